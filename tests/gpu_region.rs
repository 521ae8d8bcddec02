//! The GPU backend's active region of the scalars (`active.comp`, `plume-gpu/src/region.rs`),
//! on llvmpipe: without the cut-off the skipping is exact (every cell worked out gives the
//! same bits), with it the region is the CPU's, and it skips most of the box while the smoke
//! is small. One test: the switches are the whole process's (`sim::active`).

use plume::scene::Scene;
use plume::sim::{active, Simulation};

mod common;
use common::gpu_solver as gpu;

/// Every field of `sim` as bits.
fn bits(sim: &dyn Simulation) -> Vec<u32> {
    let s = sim.state();
    let mut v: Vec<u32> = Vec::new();
    for f in [&s.density, &s.temperature, &s.pressure, &s.fuel, &s.flame] {
        v.extend(f.iter().map(|x| x.to_bits()));
    }
    for f in &s.velocity {
        v.extend(f.iter().map(|x| x.to_bits()));
    }
    v
}

/// `steps` steps of `scene` on the GPU: the fields' bits and the share of the cells each
/// step's scalar advection worked out.
fn run(scene: &Scene, steps: usize) -> (Vec<u32>, Vec<f32>) {
    let mut g = gpu(scene);
    let mut shares = Vec::new();
    for _ in 0..steps {
        shares.push(g.step().expect("gpu step").scalar_active);
    }
    (bits(&g), shares)
}

#[test]
fn the_gpus_active_region_is_exact_without_its_cut_off_and_the_cpus_with_it() {
    let mut campfire = Scene::preset("campfire")
        .expect("campfire")
        .with_resolution(20);
    campfire.name = "campfire".into();
    let scenes = [
        Scene::default_plume().with_resolution(24),
        campfire,
        Scene::preset("wind_tunnel")
            .expect("wind_tunnel")
            .with_resolution(20),
    ];
    // Without the cut-off: the region leaves out only cells whose result is the outside
    // air exactly, so the fields are those of working out every cell, bit for bit. (While
    // the region holds under half the cells its traces take the cell-centred velocity from
    // the faces, after that from the stored array: both paths run here, and the dense run
    // takes the stored one throughout.)
    active::set_cutoff(false);
    for scene in &scenes {
        let (exact, shares) = run(scene, 12);
        active::set_sparse(false);
        let (dense, every) = run(scene, 12);
        active::set_sparse(true);
        assert!(every.iter().all(|&s| s == 1.0), "{}: {every:?}", scene.name);
        assert!(
            exact == dense,
            "{}: the exact skipping changed the fields",
            scene.name
        );
        assert!(
            shares[0] < 0.5 && shares[11] > 0.5,
            "{}: {shares:?}",
            scene.name
        );
        println!("{}: shares without the cut-off {shares:?}", scene.name);
    }
    active::set_cutoff(true);
    // With it: the region the CPU's, step by step (the faces the reach comes from differ
    // by the two solves' tolerance, so a span may differ by a cell).
    for scene in &scenes {
        let mut cpu = scene.build().expect("cpu");
        let mut g = gpu(scene);
        for step in 0..12 {
            let c = cpu.try_step().expect("cpu step").scalar_active;
            let s = g.step().expect("gpu step").scalar_active;
            println!("{} step {step}: cpu {c}, gpu {s}", scene.name);
            assert!(
                (c - s).abs() <= 0.05 * c.max(s),
                "{} step {step}: the CPU worked out {c} of the cells, the GPU {s}",
                scene.name
            );
        }
        let d = (cpu.density(), g.state().density);
        let top = d.0.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        let worst =
            d.0.iter()
                .zip(&d.1)
                .fold(0.0f32, |m, (a, b)| m.max((a - b).abs()));
        assert!(
            worst <= 1e-3 * top,
            "{}: density differs by {worst} of {top}",
            scene.name
        );
    }
}
