//! Criterion benchmark: one solver step of the default scene at 64³ and 128³ with each
//! pressure solver, after the plume has developed (30 steps, as `plume bench` warms up), so
//! the pressure solve does realistic work. Every timed step is the same one (step 32, from a
//! copy of the developed solver stepped once untimed): stepping on would time a later,
//! heavier plume the faster the build (criterion runs as many steps as fit its time).

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
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
                b.iter_batched_ref(
                    || {
                        // A clone's buffers hold no spare capacity and its caches are
                        // cold: one untimed step settles both, as in a run that goes on.
                        let mut c = s.clone();
                        c.step();
                        c
                    },
                    |c| {
                        c.step();
                    },
                    BatchSize::PerIteration,
                )
            });
        }
    }
    g.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
