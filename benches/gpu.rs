//! Criterion benchmark: one step of the default scene on the GPU backend at 32³ and 64³,
//! after 30 warm-up steps, from the same developed state each time (read back once and
//! handed to the solver before each timed step: that upload is timed with the step, a few
//! MB beside its dozens of passes). On Mesa's llvmpipe this measures the CPU pretending to be
//! a GPU; on a card, the card.

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, BatchSize, Criterion};
use plume::scene::Scene;
use plume::sim::Simulation;

fn step(c: &mut Criterion) {
    let mut g = c.benchmark_group("gpu_step");
    g.sample_size(10);
    for n in [32usize, 64] {
        let scene = Scene::default_plume().with_resolution(n);
        let Ok(mut s) = plume::backend::gpu(&scene) else {
            eprintln!(
                "no OpenGL 4.3 context: the GPU benchmark needs one (Mesa's llvmpipe will do)"
            );
            return;
        };
        for _ in 0..30 {
            s.step().expect("the default scene stays finite");
        }
        let developed = s.state();
        g.bench_function(format!("default_scene_{n}"), |b| {
            b.iter_batched_ref(
                || developed.clone(),
                |st| {
                    s.set_state(st.clone()).expect("same grid");
                    s.step().expect("the default scene stays finite");
                },
                BatchSize::PerIteration,
            )
        });
    }
    g.finish();
}

criterion_group!(benches, step);
criterion_main!(benches);
