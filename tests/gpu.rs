//! The GPU solver backend (plume-gpu) against the CPU solver, stage by stage and step by
//! step, on Mesa's llvmpipe in CI (a test that cannot get an OpenGL context fails). The
//! physics both backends must show is in `tests/backends.rs`, one harness for both.

use plume::backend::Backend;
use plume::scene::Scene;
use plume::sim::Simulation;
use plume_core::frame::Select;

mod common;
use common::gpu_solver as gpu;

/// The largest |a − b| and the largest |a|.
fn max_diff(a: &[f32], b: &[f32]) -> (f32, f32) {
    assert_eq!(a.len(), b.len());
    let scale = a.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let d = a
        .iter()
        .zip(b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    (d, scale)
}

/// Random fields instead of the simulation's: smoke, heat, flow and pressure everywhere,
/// every face kind and every solid touched by something.
fn randomise(cpu: &mut plume::sim::Solver) {
    let mut st = Simulation::state(cpu);
    let mut seed = 12345u32;
    let mut noise = |v: &mut Vec<f32>, lo: f32, hi: f32| {
        for x in v.iter_mut() {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *x = lo + (hi - lo) * ((seed >> 8) as f32 / (1u32 << 24) as f32);
        }
    };
    noise(&mut st.density, 0.0, 1.0);
    noise(&mut st.temperature, -0.5, 2.0);
    noise(&mut st.pressure, -0.01, 0.01);
    for v in &mut st.velocity {
        noise(v, -0.4, 0.4);
    }
    cpu.set_state(st).expect("random state");
}

/// Each stage on the GPU from the CPU's state after 10 steps of `scene`, against the same
/// stage on the CPU: the largest difference of every field, relative to its largest value.
fn stage_differences(scene: &Scene, random: bool) -> Vec<(&'static str, [f32; 6])> {
    let mut cpu = scene.build().expect("cpu");
    let mut g = gpu(scene);
    for _ in 0..10 {
        cpu.try_step().expect("cpu step");
        // The GPU's clock (and its moving solids) keep pace.
        g.step().expect("gpu step");
    }
    if random {
        randomise(&mut cpu);
    }
    let dt = scene.fluid.dt;
    let moving = scene.obstacles.iter().any(|o| !o.keys.is_empty());
    let stages = [
        "obstacles",
        "sources",
        "advect_velocity",
        "forces",
        "vorticity",
        "speed_limit",
        "project",
        "advect_density",
        "combustion",
        "viscosity",
        "diffuse_density",
    ];
    stages
        .into_iter()
        .map(|stage| {
            g.set_state(Simulation::state(&cpu)).expect("load");
            let mut c = cpu.clone();
            if moving {
                // The moving solids' face velocities depend on the last sub-step's length,
                // which each backend chose from its own flow: both build them for `dt` first.
                c.run_stage("obstacles", dt);
                g.run_stage("obstacles", dt);
            }
            assert!(c.run_stage(stage, dt), "the CPU has no stage {stage}");
            assert!(g.run_stage(stage, dt), "the GPU has no stage {stage}");
            let solid = Select {
                solid: true,
                ..Default::default()
            };
            assert_eq!(
                Simulation::frame(&c, solid).solid,
                g.frame(solid).solid,
                "{stage}: the solids differ"
            );
            let s = Simulation::state(&g);
            let rel = |(d, m): (f32, f32)| if m > 0.0 { d / m } else { d };
            let vel = (0..3)
                .map(|a| rel(max_diff(c.velocity(a), &s.velocity[a])))
                .fold(0.0, f32::max);
            let diffs = [
                rel(max_diff(c.density(), &s.density)),
                rel(max_diff(c.temperature(), &s.temperature)),
                vel,
                rel(max_diff(c.pressure(), &s.pressure)),
                rel(max_diff(c.fuel(), &s.fuel)),
                rel(max_diff(c.flame(), &s.flame)),
            ];
            println!(
                "{stage}: density, temperature, velocity, pressure, fuel, flame differ by \
                 {diffs:?}"
            );
            (stage, diffs)
        })
        .collect()
}

#[test]
fn every_stage_matches_the_cpu_stage_on_the_same_input() {
    // The default scene (open top, walls, MacCormack scalars, vorticity) and an inflow
    // tunnel with open faces (traces that take outside air on both kinds of face).
    let mut tunnel = Scene::preset("jets").expect("jets");
    tunnel.boundaries.x_min = plume::sim::Face::Inflow(0.3);
    tunnel.boundaries.x_max = plume::sim::Face::Open;
    tunnel.boundaries.z_max = plume::sim::Face::Open;
    // (and MacCormack for the velocity too, through inflow and open faces)
    tunnel.fluid.velocity_advection = plume::sim::Advection::MacCormack;
    // Viscosity and diffusion through inflow and open faces.
    tunnel.fluid.viscosity = 0.002;
    tunnel.fluid.diffusion = 0.001;
    // A fire with expansion (fuel, flame, combustion, the expanding gas).
    let mut fire = Scene::preset("campfire")
        .expect("campfire")
        .with_resolution(20);
    fire.fire.expansion = 0.5;
    // Obstacles (the wind tunnel's: solid cells, faces, extrapolation, stopped traces, the
    // pressure only in the fluid), with MacCormack velocity, viscosity and diffusion.
    let obstacles = Scene::preset("wind_tunnel")
        .expect("wind_tunnel")
        .with_resolution(24);
    let mut obstacles_mac = obstacles.clone().with_resolution(20);
    obstacles_mac.fluid.velocity_advection = plume::sim::Advection::MacCormack;
    obstacles_mac.fluid.viscosity = 0.002;
    obstacles_mac.fluid.diffusion = 0.001;
    // A moving obstacle (the paddle, moving from the start).
    let mut paddle = Scene::preset("paddle").expect("paddle").with_resolution(24);
    for k in &mut paddle.obstacles[0].keys {
        k.time -= 2.0;
    }
    // Random fields through inflow, open faces and obstacles (the wind tunnel's, MacCormack
    // for the velocity, viscosity and diffusion).
    let mut random = obstacles_mac.clone();
    random.name = "random".into();
    for scene in [
        random,
        Scene::default_plume().with_resolution(24),
        tunnel.with_resolution(20),
        fire,
        obstacles,
        obstacles_mac,
        paddle,
    ] {
        let random = scene.name == "random";
        for (stage, d) in stage_differences(&scene, random) {
            let bound = match stage {
                // The projection: both solves stop at the relative residual 1e-3 with different
                // preconditioners (multigrid on the CPU, Jacobi here), so the velocities
                // agree to about that and the pressures (an error, not a residual) to 1e-2.
                "project" => [1e-6, 1e-6, 1e-3, 1e-2, 1e-6, 1e-6],
                // Every other stage: the same operations in the same order (`precise` in the
                // shaders); float sums in another order at most.
                _ => [1e-5; 6],
            };
            for (f, (x, b)) in d.iter().zip(bound).enumerate() {
                assert!(
                    x <= &b,
                    "{} stage {stage}: field {f} differs by {x:e} relative (bound {b:e})",
                    scene.name
                );
            }
        }
    }
}

/// Both backends' pressure after one projection whose solve may take one iteration, from
/// the same random fields. One iteration of conjugate gradients is r's preconditioned
/// direction scaled: the pressures agree to rounding only if the V-cycles are the same
/// operator (smoother, transfers at walls and open faces, coarse operators, the coarsest
/// level's sweeps), level by level.
#[test]
fn the_gpus_v_cycle_is_the_cpus() {
    let mut open_top = Scene::default_plume().with_resolution(40);
    open_top.name = "open top".into();
    let mut tunnel = Scene::preset("jets").expect("jets");
    tunnel.boundaries.x_min = plume::sim::Face::Inflow(0.3);
    tunnel.boundaries.x_max = plume::sim::Face::Open;
    tunnel.boundaries.z_min = plume::sim::Face::Open;
    let tunnel = tunnel.with_resolution(37);
    let obstacles = Scene::preset("wind_tunnel")
        .expect("wind_tunnel")
        .with_resolution(40);
    let mut closed = Scene::default_plume().with_resolution(36);
    closed.name = "closed".into();
    closed.boundaries.y_max = plume::sim::Face::Wall;
    for mut scene in [open_top, tunnel, obstacles, closed] {
        scene.fluid.pressure_max_iterations = 1;
        let mut cpu = scene.build().expect("cpu");
        randomise(&mut cpu);
        let dt = scene.fluid.dt;
        let before = cpu.pressure().to_vec();
        let start = Simulation::state(&cpu);
        assert!(cpu.run_stage("project", dt));
        let mut pressures = Vec::new();
        // Each level a dispatch a pass, and the coarse levels (1000 cells or fewer: two or
        // three of them at these sizes) in the fused dispatch; the smoother's sweeps a pass
        // each or by tiles (three sweeps in one pass, two in another).
        for (fused, tiled) in [(0, false), (1024, false), (0, true), (1024, true)] {
            let mut g = gpu(&scene);
            g.set_fused_cells(fused);
            g.set_tiled_smoothing(tiled);
            assert_eq!(g.fused_levels() >= 2, fused > 0, "{}", scene.name);
            g.set_state(start.clone()).expect("load");
            assert!(g.run_stage("project", dt));
            let gp = Simulation::state(&g).pressure;
            let (d, m) = max_diff(cpu.pressure(), &gp);
            let (moved, _) = max_diff(cpu.pressure(), &before);
            println!(
                "{} (fused up to {fused} cells, tiled {tiled}): the pressure after one \
                 iteration differs by {:e} relative (the iteration moved it by {:e})",
                scene.name,
                d / m,
                moved / m
            );
            assert!(
                moved > 1e-2 * m,
                "{}: the solve did not iterate",
                scene.name
            );
            assert!(m > 0.0 && d <= 2e-5 * m, "{}: {d:e} of {m:e}", scene.name);
            pressures.push(gp);
        }
        // The fused dispatch is the same passes in the same order, the tiles the same
        // sweeps: the same bits.
        for p in &pressures[1..] {
            assert!(p == &pressures[0], "{}", scene.name);
        }
    }
}

/// Where the flow has no divergence there is nothing to solve: both backends leave no
/// pressure, however much there was (open and closed boxes).
#[test]
fn nothing_to_solve_leaves_no_pressure() {
    for closed in [false, true] {
        let mut scene = Scene::default_plume().with_resolution(20);
        scene.emitters.clear();
        if closed {
            scene.boundaries.y_max = plume::sim::Face::Wall;
        }
        let mut cpu = scene.build().expect("cpu");
        randomise(&mut cpu);
        let mut st = Simulation::state(&cpu);
        for v in &mut st.velocity {
            v.iter_mut().for_each(|x| *x = 0.0);
        }
        cpu.set_state(st.clone()).expect("still air");
        let mut g = gpu(&scene);
        g.set_state(st).expect("load");
        let dt = scene.fluid.dt;
        assert!(cpu.run_stage("project", dt) && g.run_stage("project", dt));
        assert!(
            cpu.pressure().iter().all(|&p| p == 0.0),
            "closed {closed}: cpu"
        );
        let gp = Simulation::state(&g).pressure;
        assert!(gp.iter().all(|&p| p == 0.0), "closed {closed}: gpu");
    }
}

/// Steps both backends and compares density and velocity after 1 and 20 steps.
fn whole_steps(scene: &Scene) -> [(f32, f32); 2] {
    let mut cpu = scene.build_simulation().expect("cpu");
    let mut g: Box<dyn Simulation> = Box::new(gpu(scene));
    let mut out = [(0.0, 0.0); 2];
    for step in 1..=20 {
        cpu.step().expect("cpu step");
        g.step().expect("gpu step");
        if step == 1 || step == 20 {
            let a = cpu.frame(Select::ALL);
            let b = g.frame(Select::ALL);
            let (dd, ds) = max_diff(
                a.density.as_deref().expect("density"),
                b.density.as_deref().expect("density"),
            );
            let flat = |v: Option<Vec<[f32; 3]>>| -> Vec<f32> {
                v.unwrap_or_default().into_iter().flatten().collect()
            };
            let (vd, vs) = max_diff(&flat(a.velocity), &flat(b.velocity));
            println!("  step {step}: density {dd:e} of {ds:e}, velocity {vd:e} of {vs:e}");
            out[usize::from(step == 20)] = (dd / ds.max(1e-12), vd / vs.max(1e-12));
        }
    }
    out
}

#[test]
fn every_preset_the_gpu_runs_matches_the_cpu_after_1_and_20_steps() {
    let mut ran = 0;
    for name in Scene::preset_names() {
        let scene = Scene::preset(name).expect("preset").with_resolution(32);
        let [one, twenty] = whole_steps(&scene);
        println!("{name}: after 1 step {one:?}, after 20 {twenty:?} (density, velocity; relative)");
        // After one step the only difference is the pressure solve's (both stop at the
        // relative residual 1e-3, from different preconditioners); after 20 it has been
        // carried along by the flow.
        assert!(
            one.0 <= 1e-4 && one.1 <= 5e-3,
            "{name} after 1 step: {one:?}"
        );
        assert!(
            twenty.0 <= 1e-3 && twenty.1 <= 1e-3,
            "{name} after 20 steps: {twenty:?}"
        );
        ran += 1;
    }
    assert_eq!(
        ran,
        Scene::preset_names().len(),
        "every preset runs on the GPU"
    );
}

#[test]
fn a_moving_obstacle_matches_the_cpu() {
    // The paddle preset with its motion from the start (the preset holds it still for 2 s).
    let mut scene = Scene::preset("paddle").expect("paddle").with_resolution(32);
    for k in &mut scene.obstacles[0].keys {
        k.time -= 2.0;
    }
    let mut cpu = scene.build_simulation().expect("cpu");
    let mut g: Box<dyn Simulation> = Box::new(gpu(&scene));
    for step in 1..=40 {
        let a = cpu.step().expect("cpu step").clone();
        let b = g.step().expect("gpu step").clone();
        assert_eq!(a.substeps, b.substeps, "step {step}");
        assert!(
            (a.swept - b.swept).abs() <= 1e-3 * a.swept.max(1e-9),
            "swept {} vs {}",
            a.swept,
            b.swept
        );
    }
    let (fa, fb) = (cpu.frame(Select::ALL), g.frame(Select::ALL));
    assert_eq!(fa.solid, fb.solid, "the solid cells differ");
    let (dd, ds) = max_diff(
        fa.density.as_deref().expect("d"),
        fb.density.as_deref().expect("d"),
    );
    let flat = |v: Option<Vec<[f32; 3]>>| -> Vec<f32> {
        v.unwrap_or_default().into_iter().flatten().collect()
    };
    let (vd, vs) = max_diff(&flat(fa.velocity), &flat(fb.velocity));
    println!("paddle moving, after 40 steps: density {dd:e} of {ds:e}, velocity {vd:e} of {vs:e}");
    assert!(vs > 0.05, "the paddle did not stir the air: {vs}");
    // Every stage matches to rounding (see above); over 40 steps of a paddle stirring the
    // smoke the pressure solves' differences (both to the relative residual 1e-3) grow to
    // about 1e-4 of the density and 3.5e-4 of the velocity (measured on llvmpipe).
    assert!(
        dd <= 1e-3 * ds && vd <= 2e-3 * vs,
        "density {dd}/{ds}, velocity {vd}/{vs}"
    );
}

#[test]
fn auto_picks_the_cpu_on_llvmpipe_and_says_why() {
    let scene = Scene::default_plume().with_resolution(16);
    let b = plume::backend::build(&scene, Backend::Auto).expect("auto");
    assert_eq!(b.backend, "cpu");
    assert_eq!(b.sim.backend(), "cpu");
    assert!(b.why.contains("software rasteriser"), "{}", b.why);
    let g = plume::backend::build(&scene, Backend::Gpu).expect("forced");
    assert_eq!(g.sim.backend(), "gpu");
    assert!(g.why.contains("llvmpipe"), "{}", g.why);
}

#[test]
fn the_start_up_check_passes_on_a_matching_backend_and_fails_on_a_wrong_one() {
    let scene = Scene::default_plume().with_resolution(16);
    plume::backend::startup_check(&scene, Box::new(gpu(&scene))).expect("a sound GPU passes");
    // A backend that runs another scene (no emitter) does not.
    let mut other = scene.clone();
    other.emitters.clear();
    let err = plume::backend::startup_check(&scene, Box::new(gpu(&other)))
        .expect_err("a wrong backend fails");
    assert!(err.contains("differed"), "{err}");
}

#[test]
fn a_frame_reads_back_only_what_it_selects() {
    let scene = Scene::default_plume().with_resolution(16);
    let mut g = gpu(&scene);
    g.step().expect("step");
    let f = g.frame(Select {
        density: true,
        ..Default::default()
    });
    assert!(f.density.is_some());
    assert!(f.velocity.is_none() && f.pressure.is_none() && f.temperature.is_none());
    let all = g.frame(Select::ALL);
    assert_eq!(all.density, f.density);
    assert_eq!(all.step, 1);
}

#[test]
fn memory_is_counted_exactly() {
    let scene = Scene::default_plume().with_resolution(32);
    let g = gpu(&scene);
    let d = scene.dims();
    let bytes = g.memory_bytes();
    assert_eq!(Simulation::memory_bytes(&g) as u64, bytes);
    // The fields, one word of obstacle mask and one of the multigrid's coarse masks, and
    // the multigrid's table of its levels (16 words a level; halved down to 4 cells or
    // fewer on the shortest side).
    let mut shortest = d.nx.min(d.ny).min(d.nz);
    let mut levels = 1;
    while shortest > 4 {
        shortest = shortest.div_ceil(2);
        levels += 1;
    }
    assert_eq!(
        bytes,
        plume_gpu::bytes_for(d, false) + 4 + 4 + 64 * levels as u64
    );
    let per_cell = bytes as f64 / d.cells() as f64;
    assert!(per_cell <= 70.0, "{per_cell} bytes a cell");
}

#[test]
fn switching_backends_carries_the_smoke_over() {
    // Ten steps on the CPU, then ten on the GPU from its state, against twenty on the CPU.
    let scene = Scene::default_plume().with_resolution(24);
    let mut cpu = scene.build_simulation().expect("cpu");
    for _ in 0..10 {
        cpu.step().expect("step");
    }
    let mut g: Box<dyn Simulation> = Box::new(gpu(&scene));
    g.set_state(cpu.state()).expect("carried over");
    assert_eq!((g.steps(), g.time()), (cpu.steps(), cpu.time()));
    assert!((g.total_density() - cpu.total_density()).abs() <= 1e-9 * cpu.total_density());
    for _ in 0..10 {
        cpu.step().expect("step");
        g.step().expect("step");
    }
    let (a, b) = (cpu.state(), g.state());
    let (dd, ds) = max_diff(&a.density, &b.density);
    assert_eq!(b.steps, 20);
    assert!(
        dd <= 1e-3 * ds,
        "after the switch the smoke went elsewhere: {dd} of {ds}"
    );
    // And back: the CPU takes the GPU's fields.
    let mut back = scene.build_simulation().expect("cpu");
    back.set_state(g.state()).expect("carried back");
    assert_eq!(back.state().density, b.density);
    // A state of the wrong size is refused, naming what is wrong.
    let small = Scene::default_plume()
        .with_resolution(8)
        .build_simulation()
        .expect("cpu");
    let err = g.set_state(small.state()).expect_err("refused").to_string();
    assert!(err.contains("density") && err.contains("24x24x24"), "{err}");
}

/// Where `xvfb-run -a` starts looking for a free display: apart for each test (`k`) and
/// each process, so screens started at the same moment do not race for one number.
fn server_number(k: u32) -> u32 {
    20_000 + (std::process::id() % 1000) * 8 + k
}

#[test]
fn the_viewer_runs_the_plume_on_the_gpu_backend() {
    let dir = std::env::temp_dir().join(format!("plume-gpu-view-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shot = dir.join("gpu.png");
    let rec = dir.join("frames");
    let out = std::process::Command::new("xvfb-run")
        .args([
            "-a",
            "-n",
            &server_number(0).to_string(),
            "-s",
            "-screen 0 1280x1024x24",
            env!("CARGO_BIN_EXE_plume"),
        ])
        .args([
            "view",
            "--backend",
            "gpu",
            "--size",
            "24",
            "--frames",
            "150",
        ])
        .args(["--window", "1000x650", "--screenshot"])
        .arg(&shot)
        .arg("--record")
        .arg(&rec)
        .output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run (install the Debian package xvfb): {e}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "viewer failed: {err}");
    let dec = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot written"));
    let mut reader = dec.read_info().expect("PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("pixels");
    let (w, h) = (info.width as usize, info.height as usize);
    let px = |x: usize, y: usize| {
        let i = 4 * (y * w + x);
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    let luma = |p: [u8; 3]| (p[0] as u32 * 3 + p[1] as u32 * 6 + p[2] as u32) / 10;
    // The plume: bright, low-saturation pixels in the lower middle of the 3D view.
    let smoke = (h / 2..h * 5 / 6)
        .flat_map(|y| (w * 3 / 10..w * 7 / 10).map(move |x| (x, y)))
        .map(|(x, y)| px(x, y))
        .filter(|p| {
            let (lo, hi) = (p.iter().min().copied(), p.iter().max().copied());
            luma(*p) > 150 && hi.unwrap_or(0) - lo.unwrap_or(0) < 40
        })
        .count();
    // (On llvmpipe the GPU backend takes about 0.2 s a step, so 150 frames see some 10
    // steps: a small plume, a few hundred pixels; an empty view has none.)
    assert!(
        smoke > 150,
        "no smoke in the 3D view ({smoke} bright grey pixels)"
    );
    // The frames it recorded name the backend that made them.
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(rec.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    assert_eq!(m["backend"], "gpu", "{m}");
    assert!(!m["frames"].as_array().expect("frames").is_empty());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn the_viewers_3d_view_draws_the_gpu_solvers_textures_with_nothing_read_back() {
    // The real window under Xvfb: the solver's context joins the window's share group, its
    // kernels write the volume into the window's textures, and with the slice view and the
    // streamlines off no field crosses the bus and nothing is uploaded.
    let out = std::process::Command::new("xvfb-run")
        .args(["-a", "-n", &server_number(1).to_string()])
        .args(["-s", "-screen 0 1280x1024x24"])
        .arg(env!("CARGO_BIN_EXE_plume"))
        .args([
            "view",
            "--backend",
            "gpu",
            "--size",
            "20",
            "--frames",
            "90",
            "--json",
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run (install the Debian package xvfb): {e}"));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "viewer failed: {err}");
    let j: serde_json::Value =
        serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {err}"));
    assert_eq!(j["draws_gpu_textures"], true, "{j}");
    // (the 3D view steps over the empty bricks of the solver's textures too)
    assert_eq!(j["skips_empty_bricks"], true, "{j}");
    assert_eq!(j["texture_uploads"], 0, "{j}");
    assert_eq!(j["gpu_field_reads"], 0, "{j}");
    assert!(!err.contains("reads the GPU solver's fields back"), "{err}");
    // The frame's parts: each measured, and together the mean frame.
    let parts = j["frame_parts_mean_ms"]
        .as_object()
        .expect("the frame's parts");
    let sum: f64 = parts.values().map(|v| v.as_f64().expect("ms")).sum();
    let mean = j["mean_frame_ms"].as_f64().expect("mean frame");
    assert!(
        (sum - mean).abs() <= 1e-6 * mean,
        "{sum} against {mean}: {j}"
    );
    for p in ["feed", "ui", "view", "panels", "present", "between"] {
        assert!(parts[p].as_f64().is_some_and(|v| v >= 0.0), "{p}: {j}");
    }
    assert!(
        parts["view"].as_f64() > Some(0.0) && parts["present"].as_f64() > Some(0.0),
        "{j}"
    );
}

#[test]
fn stages_are_timed_on_the_cards_clock_and_memory_is_probed_in_blocks() {
    let scene = Scene::default_plume().with_resolution(16);
    let mut g = gpu(&scene);
    assert_eq!(g.stage_clock(), "GL timestamp queries");
    let stats = g.step().expect("step").clone();
    let names: Vec<&str> = stats.stages.iter().map(|s| s.name).collect();
    assert!(
        names.contains(&"project") && names.contains(&"finite_check"),
        "{names:?}"
    );
    // The card's clock: every stage took some time, and the stages add up to the step.
    assert!(
        stats.stages.iter().all(|s| s.ms > 0.0),
        "{:?}",
        stats.stages
    );
    let sum: f64 = stats.stages.iter().map(|s| s.ms).sum();
    assert!(
        (sum - stats.total_ms).abs() < 1e-6 * sum.max(1.0),
        "{sum} {}",
        stats.total_ms
    );
    // The card's time a dependent dispatch: a positive figure, or none where the host
    // cannot get ahead of the renderer (llvmpipe runs the work as it is issued); the probe
    // leaves the stage clock working.
    let chain = g.card_us_per_dependent_dispatch();
    assert!(
        chain.is_none_or(|us| us.is_finite() && us > 0.0),
        "{chain:?}"
    );
    let again = g.step().expect("step").clone();
    let sum: f64 = again.stages.iter().map(|s| s.ms).sum();
    assert!(
        again.stages.iter().all(|s| s.ms > 0.0),
        "{:?}",
        again.stages
    );
    assert!((sum - again.total_ms).abs() < 1e-6 * sum.max(1.0));
    // What a refusal would report where the driver gives no free memory: llvmpipe grants
    // 200 MiB in blocks of 64 (the last one smaller).
    assert_eq!(g.allocatable(200 << 20), 200 << 20);
}

/// OpenVDB (Debian's python3-openvdb) reads the density grid of a `.vdb` into an array; it
/// must equal the `.npy` written beside it.
const VDB_EQUALS_NPY: &str = r#"
import sys
import numpy as np
import pyopenvdb as vdb
path, npy = sys.argv[1:3]
grids, meta = vdb.readAll(path)
g = {x.name: x for x in grids}["density"]
want = np.load(npy)                       # (nz, ny, nx)
nz, ny, nx = want.shape
arr = np.zeros((nx, ny, nz), dtype=np.float32)
g.copyToArray(arr, ijk=(0, 0, 0))
got = np.transpose(arr, (2, 1, 0))
# (the .vdb leaves out leaves whose values are all ≤ 1e-6, the export's default cutoff)
err = np.abs(got - want).max()
assert err <= 1e-6, err
assert np.array_equal(got[got != 0], want[got != 0])
assert want.max() > 0
print("OK", int(np.count_nonzero(want)))
"#;

#[test]
fn export_from_the_gpu_backend_is_its_frame_as_openvdb_reads_it() {
    let dir = std::env::temp_dir().join(format!("plume-gpu-export-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_plume"))
        .args([
            "run",
            "--backend",
            "gpu",
            "--size",
            "16",
            "--frames",
            "2",
            "--every",
            "3",
        ])
        .args(["--format", "vdb,npy", "--fields", "density", "--out"])
        .arg(&dir)
        .output()
        .expect("plume runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(err.contains("backend: gpu"), "{err}");
    // OpenVDB reads the .vdb as the .npy holds it ...
    let py = std::process::Command::new("/usr/bin/python3")
        .env("PYTHONPATH", "/usr/lib/python3/dist-packages")
        .args(["-c", VDB_EQUALS_NPY])
        .arg(dir.join("plume_0002.vdb"))
        .arg(dir.join("plume_density_0002.npy"))
        .output()
        .expect("python3 runs (Debian's, with python3-openvdb and python3-numpy)");
    let stdout = String::from_utf8_lossy(&py.stdout);
    assert!(
        stdout.starts_with("OK"),
        "OpenVDB check failed: {stdout}\n{}",
        String::from_utf8_lossy(&py.stderr)
    );
    // ... and the .npy holds the GPU backend's frame after those 6 steps, bit for bit.
    let bytes = std::fs::read(dir.join("plume_density_0002.npy")).expect("npy");
    let npy = npyz::NpyFile::new(&bytes[..]).expect("npy header");
    let got: Vec<f32> = npy.into_vec().expect("floats");
    let mut g = gpu(&Scene::default_plume().with_resolution(16));
    for _ in 0..6 {
        g.step().expect("step");
    }
    let want = g
        .frame(Select {
            density: true,
            ..Default::default()
        })
        .density
        .expect("density");
    assert_eq!(got, want);
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    assert_eq!(m["backend"], "gpu");
    std::fs::remove_dir_all(&dir).ok();
}

/// Every copy variant the benchmark times on a card (work-group sizes, vec4s, four
/// elements an invocation) copies a known pattern whole, and the solver's reduction in each
/// number of work groups it is timed in gives the exact Σ and largest value of known
/// floats, and each is timed: a variant that skipped elements would report a bandwidth it
/// never moved.
#[test]
fn every_copy_variant_copies_what_it_times() {
    let g = gpu(&Scene::default_plume().with_resolution(8));
    let got = g.checked_copy_variants();
    let names: Vec<&str> = got.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        names,
        [
            "kernel_wg256",
            "kernel_wg1024",
            "kernel_vec4_wg256",
            "kernel_vec4_wg512",
            "kernel_x4_wg256",
            "kernel_x4_wg512",
            "kernel_vec4_x4_wg512",
            "sum_groups256",
            "sum_groups1024",
            "sum_groups4096",
        ]
    );
    assert!(
        got.iter().all(|(_, gb_s)| gb_s.is_finite() && *gb_s > 0.0),
        "{got:?}"
    );
    // The copy the floors use is timed the same way.
    let field = g
        .copy_bandwidth_gb_s()
        .expect("the copy kernel's bandwidth");
    assert!(field.is_finite() && field > 0.0, "{field}");
}
