//! Criterion benchmark: one solver step of the default scene at 64³ and 128³ with each
//! pressure solver, after the plume has developed (30 steps), so the pressure solve does
//! realistic work.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use plume::scene::Scene;
use plume::sim::{Dims, PressureMethod};

fn step(c: &mut Criterion) {
    let mut g = c.benchmark_group("step");
    g.sample_size(10);
    for n in [64usize, 128] {
        for (method, tag) in [
            (PressureMethod::Multigrid, "multigrid"),
            (PressureMethod::RedBlackSor, "red_black_sor"),
        ] {
            let mut scene = Scene::default_plume().with_dims(Dims::cube(n));
            scene.fluid.pressure_method = method;
            let mut s = scene.build().expect("default scene builds");
            for _ in 0..30 {
                s.step();
            }
            g.bench_function(format!("default_scene_{n}_{tag}"), |b| {
                b.iter(|| {
                    s.step();
                })
            });
        }
    }
    g.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
