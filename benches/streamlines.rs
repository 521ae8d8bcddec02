//! Criterion benchmark: tracing the 3D streamlines the viewer draws (key L) for one frame of
//! the wind tunnel after 60 steps, at 64 and 128 cells along its length, with the viewer's
//! default 48 lines and with 400 (the panel's most), 1 unit long.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use plume::frame::Select;
use plume::scene::Scene;
use plume::sim::Simulation;
use plume::streamlines::{seeds_around, trace_all, Trace};

fn streamlines(c: &mut Criterion) {
    let mut g = c.benchmark_group("streamlines");
    g.sample_size(10);
    for n in [64usize, 128] {
        let scene = Scene::preset("wind_tunnel")
            .expect("preset")
            .with_resolution(n);
        let mut s = scene.build().expect("builds");
        for _ in 0..60 {
            s.step();
        }
        let f = Simulation::frame(&s, Select::ALL);
        let t = Trace::for_grid(&f.grid, 1.0);
        for count in [48usize, 400] {
            let seeds = seeds_around(&f.emitters, count);
            g.bench_function(format!("wind_tunnel_{n}_{count}_lines"), |b| {
                b.iter(|| trace_all(&f, &seeds, t))
            });
        }
    }
    g.finish();
}

criterion_group!(benches, streamlines);
criterion_main!(benches);
