//! The GPU solver backend (plume-gpu) against the CPU solver, on Mesa's llvmpipe in CI.

use plume::scene::Scene;
use plume::sim::Simulation;
use plume_core::frame::Select;

fn pair(scene: &Scene) -> (Box<dyn Simulation>, Box<dyn Simulation>) {
    let cpu = scene.build_simulation().expect("cpu");
    let gpu = plume::backend::gpu(scene).unwrap_or_else(|e| panic!("gpu: {e}"));
    (cpu, Box::new(gpu))
}

fn max_diff(a: &[f32], b: &[f32]) -> (f32, f32) {
    let scale = a.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let d = a
        .iter()
        .zip(b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    (d, scale)
}

#[test]
fn default_scene_matches_cpu() {
    let scene = Scene::default_plume().with_resolution(32);
    let (mut cpu, mut gpu) = pair(&scene);
    for step in 1..=20 {
        cpu.step().expect("cpu step");
        gpu.step().expect("gpu step");
        if step == 1 || step == 20 {
            let a = cpu.frame(Select::ALL);
            let b = gpu.frame(Select::ALL);
            let (dd, ds) = max_diff(a.density.as_deref().unwrap(), b.density.as_deref().unwrap());
            let av: Vec<f32> = a.velocity.unwrap().iter().flatten().copied().collect();
            let bv: Vec<f32> = b.velocity.unwrap().iter().flatten().copied().collect();
            let (vd, vs) = max_diff(&av, &bv);
            println!(
                "step {step}: density {dd} of {ds}; velocity {vd} of {vs}; cpu {:?}",
                cpu.stats().pressure_iterations
            );
            println!("gpu stats {:?}", gpu.stats());
        }
    }
}

#[test]
fn stages_match_cpu() {
    let scene = Scene::default_plume().with_resolution(24);
    let mut cpu = scene.build().expect("cpu");
    let mut gpu = plume::backend::gpu(&scene).unwrap_or_else(|e| panic!("gpu: {e}"));
    for _ in 0..10 {
        cpu.step();
    }
    let load = |cpu: &plume::sim::Solver, gpu: &mut plume_gpu::GpuSolver| {
        gpu.load_state(plume_gpu::State {
            density: cpu.density().to_vec(),
            temperature: cpu.temperature().to_vec(),
            velocity: [0, 1, 2].map(|a| cpu.velocity(a).to_vec()),
            pressure: cpu.pressure().to_vec(),
        })
        .expect("load");
    };
    let dt = 1.0 / 60.0;
    for stage in [
        "sources",
        "advect_velocity",
        "forces",
        "vorticity",
        "speed_limit",
        "project",
        "advect_density",
    ] {
        load(&cpu, &mut gpu);
        let mut c = cpu.clone();
        if stage == "advect_velocity" {
            let g0 = gpu.state();
            let fd = scene.dims().faces(1);
            for i in [fd.idx(8, 3, 0), fd.idx(8, 3, 1), fd.idx(8, 3, 2)] {
                println!(
                    "  before v[{i}] cpu {} gpu {}",
                    cpu.velocity(1)[i],
                    g0.velocity[1][i]
                );
            }
            let fw = scene.dims().faces(2);
            for i in [fw.idx(8, 3, 0), fw.idx(8, 3, 1), fw.idx(8, 3, 2)] {
                println!(
                    "  before w[{i}] cpu {} gpu {}",
                    cpu.velocity(2)[i],
                    g0.velocity[2][i]
                );
            }
        }
        assert!(c.run_stage(stage, dt));
        assert!(gpu.run_stage(stage, dt));
        let g = gpu.state();
        let (dd, ds) = max_diff(c.density(), &g.density);
        let (td, ts) = max_diff(c.temperature(), &g.temperature);
        let v: Vec<(f32, f32)> = (0..3)
            .map(|a| max_diff(c.velocity(a), &g.velocity[a]))
            .collect();
        let (pd, ps) = max_diff(c.pressure(), &g.pressure);
        if stage == "advect_velocity" {
            for a in 0..3 {
                let s: f32 = g.velocity[a].iter().map(|x| x.abs()).sum();
                let sc: f32 = c.velocity(a).iter().map(|x| x.abs()).sum();
                println!("  sum|vel{a}| gpu {s} cpu {sc}");
            }
            let fd = scene.dims().faces(1);
            let cv = c.velocity(1);
            let mut shown = 0;
            for (i, (x, y)) in cv.iter().zip(&g.velocity[1]).enumerate() {
                if (x - y).abs() > 1e-2 && shown < 30 {
                    shown += 1;
                    println!(
                        "  v at {:?}: cpu {x} gpu {y}",
                        (i % fd.nx, (i / fd.nx) % fd.ny, i / (fd.nx * fd.ny))
                    );
                }
            }
        }
        println!("{stage}: density {dd:e}/{ds}, temperature {td:e}/{ts}, velocity {v:?}, pressure {pd:e}/{ps}");
    }
}
