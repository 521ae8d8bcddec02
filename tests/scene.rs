//! Scene files, presets and the physics that came with them: temperature and buoyancy,
//! vorticity confinement, obstacles, inflow/outflow, MacCormack advection.

mod common;

use common::max_face_divergence;
use plume::scene::Scene;
use plume::sim::{
    Advection, Boundaries, Dims, Emitter, Face, FluidParams, Grid, Obstacle, Pulse, ShapeKind,
    Solver,
};

fn finite(s: &Solver) -> bool {
    s.density().iter().all(|v| v.is_finite())
        && s.temperature().iter().all(|v| v.is_finite())
        && (0..3).all(|a| s.velocity(a).iter().all(|v| v.is_finite()))
        && s.pressure().iter().all(|v| v.is_finite())
}

#[test]
fn every_preset_loads_and_runs_50_steps_with_finite_fields() {
    let names = Scene::preset_names();
    assert_eq!(
        names,
        vec![
            "plume",
            "wind_tunnel",
            "jets",
            "vortex_ring",
            "campfire",
            "explosion",
            "paddle",
            "chimney"
        ]
    );
    for name in names {
        // The embedded text and the file in scenes/ are the same scene.
        let mut from_file =
            Scene::load(std::path::Path::new(&format!("scenes/{name}.toml"))).expect("file");
        let scene = Scene::preset(name).expect("preset");
        // A preset's mesh ships inside Plume (builtin:…); the file's is beside it on disk:
        // the same triangles.
        for (a, b) in from_file.obstacles.iter_mut().zip(&scene.obstacles) {
            if let (Some(fa), Some(fb)) = (&a.file, &b.file) {
                let load = |f: &str| plume::geometry::mesh::Mesh::load(std::path::Path::new(f));
                assert_eq!(
                    load(fa).expect("file mesh"),
                    load(fb).expect("builtin mesh")
                );
                a.file = b.file.clone();
            }
        }
        assert_eq!(scene, from_file, "{name}");
        assert_eq!(scene.name, name);
        let small = scene.with_resolution(24);
        assert_eq!(*small.grid.dims.iter().max().expect("dims"), 24);
        let mut s = small.build().expect("build");
        for _ in 0..50 {
            s.step();
        }
        assert!(finite(&s), "{name}: non-finite field");
        assert!(s.total_density() > 0.0, "{name}: no smoke after 50 steps");
    }
}

#[test]
fn a_scene_saved_as_toml_loads_back_to_the_same_scene() {
    let mut scenes: Vec<Scene> = Scene::preset_names()
        .into_iter()
        .map(|n| Scene::preset(n).expect("preset"))
        .collect();
    // Everything a scene can hold, including the optional parts.
    let mut s = Scene::default_plume();
    s.name = "everything \"quoted\"".into();
    s.description = "all the keys".into();
    s.grid.dims = [40, 20, 30];
    s.grid.size = 2.0;
    s.grid.origin = [-1.0, 0.0, 0.5];
    s.fluid.advection = Advection::SemiLagrangian;
    s.fluid.vorticity = 1.25;
    s.fluid.ambient_temperature = -3.0;
    s.fire.heat = 2.5;
    s.fire.expansion = 0.125;
    s.render.exposure = -0.5;
    s.render.tone_map = false;
    s.boundaries = Boundaries {
        x_min: Face::Inflow(0.75),
        x_max: Face::Open,
        ..Boundaries::closed()
    };
    s.emitters.push(Emitter {
        shape: ShapeKind::Box,
        center: [0.0, 0.3, 0.9],
        radius: None,
        size: Some([0.1, 0.2, 0.3]),
        density: 5.0,
        fuel: 1.5,
        flame: 0.25,
        temperature: Some(-2.0),
        velocity: None,
        start: 0.5,
        end: Some(3.0),
        pulse: Some(Pulse {
            period: 0.7,
            duty: 0.25,
        }),
        ..Emitter::default()
    });
    s.obstacles = vec![
        Obstacle::sphere([0.2, 0.4, 1.0], 0.1),
        Obstacle::cuboid([0.5, 0.2, 1.0], [0.1, 0.4, 0.2]),
    ];
    s.camera.distance = Some(3.5);
    s.camera.target = Some([0.1, 0.2, 0.3]);
    s.render.density_scale = 12.5;
    s.render.obstacle_color = [0.1, 0.2, 0.3];
    s.validate().expect("valid");
    scenes.push(s);
    let dir = std::env::temp_dir().join(format!("plume-scene-rt-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    for sc in scenes {
        let path = dir.join(format!("{}.toml", sc.grid.dims[0]));
        sc.save(&path).expect("save");
        let back = Scene::load(&path).expect("load back");
        assert_eq!(
            back,
            sc,
            "{}",
            std::fs::read_to_string(&path).unwrap_or_default()
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// Malformed scene files: each must give its own message, naming the file and the line.
#[test]
fn malformed_scene_files_give_specific_messages_with_file_and_line() {
    let base = "name = \"t\"\n[grid]\ndims = [16, 16, 16]\n";
    let cases: Vec<(&str, String, &str, Option<usize>)> = vec![
        ("syntax error", format!("{base}[fluid\nfade = 1\n"), "", Some(4)),
        (
            "unknown top-level key",
            format!("{base}colour = 3\n"),
            "unknown field `colour`",
            Some(4),
        ),
        (
            "unknown fluid key",
            format!("{base}[fluid]\nviscocity = 0.1\n"),
            "unknown field `viscocity`",
            Some(5),
        ),
        (
            "wrong type",
            format!("{base}[fluid]\nfade = \"lots\"\n"),
            "invalid type: string \"lots\"",
            Some(5),
        ),
        (
            "negative radius",
            format!("{base}[[emitter]]\ncenter = [0.5, 0.5, 0.5]\nradius = -0.1\ndensity = 1\n"),
            "emitter[0]: radius = -0.1 is outside the allowed range (0, 10]",
            Some(6),
        ),
        (
            "zero grid",
            "name = \"t\"\n[grid]\ndims = [0, 16, 16]\n".to_string(),
            "grid.dims[0] = 0 is outside the allowed range [3, 1024]",
            Some(3),
        ),
        (
            "huge grid",
            "name = \"t\"\n[grid]\ndims = [1024, 1024, 1024]\n".to_string(),
            "the limit is 134217728 cells",
            Some(3),
        ),
        (
            "emitter outside the domain",
            format!("{base}[[emitter]]\ncenter = [0.5, 3.0, 0.5]\nradius = 0.1\n"),
            "emitter[0].center = [0.5, 3.0, 0.5] lies outside the domain",
            Some(5),
        ),
        (
            "obstacle outside the domain",
            format!("{base}[[obstacle]]\ncenter = [-1.0, 0.5, 0.5]\nradius = 0.1\n"),
            "obstacle[0].center = [-1.0, 0.5, 0.5] lies outside the domain",
            Some(5),
        ),
        (
            "box without size",
            format!("{base}[[obstacle]]\nshape = \"box\"\ncenter = [0.5, 0.5, 0.5]\n"),
            "a box needs `size`",
            Some(4),
        ),
        (
            "sphere given a size",
            format!("{base}[[emitter]]\ncenter = [0.5, 0.5, 0.5]\nsize = [0.1, 0.1, 0.1]\n"),
            "a sphere takes `radius`, not `size`",
            Some(6),
        ),
        (
            "unknown shape",
            format!("{base}[[obstacle]]\nshape = \"cone\"\ncenter = [0.5, 0.5, 0.5]\n"),
            "unknown variant `cone`",
            Some(5),
        ),
        (
            "out-of-range viscosity",
            format!("{base}[fluid]\nviscosity = 5.0\n"),
            "fluid: viscosity = 5 is outside the allowed range [0, 1]",
            Some(5),
        ),
        (
            "NaN time step",
            format!("{base}[fluid]\ndt = nan\n"),
            "fluid: dt = NaN is outside the allowed range (0, 1]",
            Some(5),
        ),
        (
            "unknown pressure solver",
            format!("{base}[fluid]\npressure_method = \"jacobi\"\n"),
            "unknown variant `jacobi`, expected `multigrid` or `red_black_sor`",
            Some(5),
        ),
        (
            "bad boundary kind",
            format!("{base}[boundaries]\nx_min = \"sticky\"\n"),
            "unknown variant `sticky`",
            Some(5),
        ),
        (
            "inflow with nowhere to go",
            format!("{base}[boundaries]\nx_min = {{ inflow = 1.0 }}\ny_max = \"wall\"\n"),
            "no face is open",
            Some(5),
        ),
        (
            "negative inflow",
            format!("{base}[boundaries]\nx_min = {{ inflow = -2.0 }}\nx_max = \"open\"\n"),
            "x_min inflow speed = -2 is outside the allowed range (0, 1000]",
            Some(5),
        ),
        (
            "pulse duty above one",
            format!(
                "{base}[[emitter]]\ncenter = [0.5, 0.5, 0.5]\nradius = 0.1\n\
                 pulse = {{ period = 1.0, duty = 1.5 }}\n"
            ),
            "pulse duty = 1.5 is outside the allowed range (0, 1]",
            Some(7),
        ),
        (
            "end before start",
            format!(
                "{base}[[emitter]]\ncenter = [0.5, 0.5, 0.5]\nradius = 0.1\nstart = 2.0\nend = 1.0\n"
            ),
            "end = 1 must be after start = 2",
            Some(8),
        ),
        (
            "camera pitch",
            format!("{base}[camera]\npitch = 120\n"),
            "camera.pitch = 120 is outside the allowed range [-89, 89]",
            Some(5),
        ),
        (
            "missing grid",
            "name = \"t\"\n".to_string(),
            "missing field `grid`",
            Some(1),
        ),
        (
            "grid dims of two numbers",
            "name = \"t\"\n[grid]\ndims = [16, 16]\n".to_string(),
            "invalid length 2",
            Some(3),
        ),
        (
            "negative cell count",
            "name = \"t\"\n[grid]\ndims = [16, -4, 16]\n".to_string(),
            "invalid value: integer `-4`",
            Some(3),
        ),
    ];
    assert!(cases.len() >= 15);
    let dir = std::env::temp_dir().join(format!("plume-bad-scenes-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("dir");
    let mut messages = std::collections::HashSet::new();
    for (i, (what, text, expect, line)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad_{i:02}.toml"));
        std::fs::write(&path, text).expect("write");
        let r = std::panic::catch_unwind(|| Scene::load(&path));
        let e = r
            .unwrap_or_else(|_| panic!("{what}: loading panicked"))
            .expect_err(what);
        let shown = e.to_string();
        assert_eq!(e.file.as_deref(), Some(path.display().to_string().as_str()));
        assert!(
            shown.starts_with(&path.display().to_string()),
            "{what}: {shown}"
        );
        assert!(
            shown.contains(expect),
            "{what}: expected '{expect}' in: {shown}"
        );
        assert_eq!(e.line, *line, "{what}: {shown}");
        messages.insert(e.message.clone());
    }
    // Every case has its own message.
    assert_eq!(messages.len(), cases.len());
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn unreadable_and_missing_scene_files_are_errors_not_panics() {
    let e = Scene::resolve("no/such/scene.toml").expect_err("missing");
    assert!(e.to_string().contains("no such file"), "{e}");
    assert!(
        e.to_string().contains("wind_tunnel"),
        "lists the presets: {e}"
    );
    let dir = std::env::temp_dir();
    let e = Scene::load(&dir).expect_err("a folder");
    assert!(e.to_string().contains("folder"), "{e}");
    let bin = dir.join(format!("plume-binary-{}.toml", std::process::id()));
    std::fs::write(&bin, [0xff, 0xfe, 0x00, 0x41]).expect("write");
    let e = Scene::load(&bin).expect_err("binary");
    assert!(e.to_string().contains("UTF-8"), "{e}");
    std::fs::remove_file(&bin).ok();
    assert_eq!(Scene::resolve("jets").expect("preset").name, "jets");
}

fn obstacle_solver() -> Solver {
    let mut s = Solver::new(
        Grid::unit(Dims::new(24, 20, 22)).expect("grid"),
        FluidParams {
            smoke_weight: -2.0,
            ..FluidParams::default()
        },
        Boundaries::default(),
    )
    .expect("solver");
    s.set_obstacles(vec![
        Obstacle::sphere([0.5, 0.55, 0.5], 0.18),
        Obstacle::cuboid([0.25, 0.3, 0.3], [0.1, 0.08, 0.3]),
    ])
    .expect("obstacles");
    s.set_emitters(vec![Emitter {
        velocity: Some([0.3, 0.8, -0.2]),
        ..Emitter::sphere([0.45, 0.15, 0.5], 0.1, 5.0)
    }])
    .expect("emitters");
    s
}

#[test]
fn obstacles_hold_no_smoke_and_no_flow_through_their_faces() {
    let mut s = obstacle_solver();
    let mask = s.solid_mask().expect("solid cells").to_vec();
    assert!(s.solid_cells() > 200, "{} solid cells", s.solid_cells());
    // Try to paint smoke right into the obstacle.
    s.add_density_at([0.5, 0.55, 0.5], 0.25, 3.0)
        .expect("paint");
    for _ in 0..40 {
        s.step();
        s.add_velocity_at([0.5, 0.4, 0.5], 0.2, [0.5, 2.0, 0.0])
            .expect("push");
    }
    s.project();
    let d = s.dims();
    let mut touching_smoke = 0;
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let c = d.idx(i, j, k);
                if mask[c] != 0 {
                    assert_eq!(s.density()[c], 0.0, "smoke inside solid cell {i},{j},{k}");
                    // Every face of a solid cell carries no flow.
                    for a in 0..3 {
                        let fd = d.faces(a);
                        let mut hi = [i, j, k];
                        hi[a] += 1;
                        assert_eq!(s.velocity(a)[fd.idx(i, j, k)], 0.0);
                        assert_eq!(s.velocity(a)[fd.idx(hi[0], hi[1], hi[2])], 0.0);
                    }
                } else if s.density()[c] > 1e-3 {
                    touching_smoke += 1;
                }
            }
        }
    }
    assert!(
        touching_smoke > 100,
        "the smoke must flow around the obstacles"
    );
    // The fluid is divergence-free around the obstacles (the face divergence over all cells,
    // computed by the test, relative to the speeds present).
    let vmax = (0..3)
        .flat_map(|a| s.velocity(a).iter().map(|v| v.abs()).collect::<Vec<_>>())
        .fold(0.0f32, f32::max);
    let div = max_face_divergence(&s);
    assert!(
        div < 1e-2 * vmax,
        "divergence {div} with speeds up to {vmax}"
    );
}

#[test]
fn the_wind_tunnel_flow_is_slower_right_behind_the_sphere_than_in_the_free_stream() {
    let scene = Scene::preset("wind_tunnel")
        .expect("preset")
        .with_resolution(48);
    let mut s = scene.build().expect("build");
    let speed = match scene.boundaries.x_min {
        Face::Inflow(v) => v,
        f => panic!("x_min is {f:?}"),
    };
    for _ in 0..60 {
        s.step();
    }
    assert!(finite(&s));
    let o = &scene.obstacles[0];
    let r = o.radius.expect("sphere");
    let behind = [o.center[0] + r + 0.06, o.center[1], o.center[2]];
    let beside = [o.center[0], o.center[1] + r + 0.2, o.center[2]];
    let u_behind = s.velocity_at(behind)[0];
    let u_beside = s.velocity_at(beside)[0];
    let u_inlet = s.velocity_at([0.05, 0.5, 0.5])[0];
    assert!((u_inlet - speed).abs() < 0.15 * speed, "inlet {u_inlet}");
    assert!(
        u_behind < 0.5 * speed,
        "wake {u_behind} vs free stream {speed}"
    );
    // The flow squeezes past the sphere: faster beside it than behind it.
    assert!(
        u_beside > u_behind + 0.3 * speed,
        "beside {u_beside}, behind {u_behind}"
    );
}

#[test]
fn vorticity_confinement_raises_total_vorticity() {
    let run = |eps: f32| {
        let mut scene = Scene::default_plume().with_resolution(32);
        scene.fluid.vorticity = eps;
        let mut s = scene.build().expect("build");
        for _ in 0..60 {
            s.step();
        }
        assert!(finite(&s));
        s.total_vorticity()
    };
    let off = run(0.0);
    let on = run(10.0);
    assert!(off > 0.0);
    assert!(on > 1.1 * off, "with confinement {on}, without {off}");
}

/// A blob of smoke carried across the box by a uniform flow.
fn advected_blob(a: Advection) -> (f32, f32, f32, f32) {
    let p = FluidParams {
        advection: a,
        fade: 0.0,
        smoke_weight: 0.0,
        buoyancy: 0.0,
        ..FluidParams::default()
    };
    let b = Boundaries {
        x_min: Face::Inflow(0.6),
        x_max: Face::Open,
        ..Boundaries::closed()
    };
    let mut s = Solver::new(Grid::unit(Dims::new(48, 16, 16)).expect("grid"), p, b).expect("s");
    // The box is 1 × 1/3 × 1/3.
    s.add_density_at([0.2, 1.0 / 6.0, 1.0 / 6.0], 0.08, 1.0)
        .expect("blob");
    let peak0 = s.density().iter().copied().fold(0.0, f32::max);
    for _ in 0..40 {
        s.step();
    }
    let peak = s.density().iter().copied().fold(0.0, f32::max);
    let min = s.density().iter().copied().fold(f32::MAX, f32::min);
    let x = s.density_centroid().expect("smoke")[0] as f32;
    (peak0, peak, min, x)
}

#[test]
fn maccormack_keeps_a_blob_sharper_without_new_extrema() {
    let (p0, sl, sl_min, x_sl) = advected_blob(Advection::SemiLagrangian);
    let (q0, mc, mc_min, x_mc) = advected_blob(Advection::MacCormack);
    assert_eq!(p0, q0);
    // Both carried it downstream by about 0.6 · 40/60 s = 0.4.
    for x in [x_sl, x_mc] {
        assert!((x - 0.6).abs() < 0.06, "centroid at {x}");
    }
    assert!(mc > 1.15 * sl, "MacCormack peak {mc}, semi-Lagrangian {sl}");
    // No new extrema: never above the initial peak, never negative.
    assert!(mc <= p0 * (1.0 + 1e-6), "{mc} above the initial {p0}");
    assert!(mc_min >= 0.0 && sl_min >= 0.0, "{mc_min} {sl_min}");
}

fn temperature_blob(temperature: f32, smoke_weight: f32) -> (f64, f64) {
    let p = FluidParams {
        smoke_weight,
        buoyancy: 2.0,
        ambient_temperature: 0.5,
        cooling: 0.0,
        ..FluidParams::default()
    };
    let mut s = Solver::new(
        Grid::unit(Dims::cube(24)).expect("g"),
        p,
        Boundaries::closed(),
    )
    .expect("s");
    s.set_emitters(vec![Emitter {
        temperature: Some(temperature),
        end: Some(0.05),
        ..Emitter::sphere([0.5, 0.5, 0.5], 0.12, 20.0)
    }])
    .expect("emitter");
    s.step();
    let y0 = s.density_centroid().expect("smoke")[1];
    for _ in 0..40 {
        s.step();
    }
    (y0, s.density_centroid().expect("smoke")[1])
}

#[test]
fn hot_smoke_rises_and_cold_dense_smoke_sinks() {
    // Hot, light smoke: T above ambient.
    let (y0, y1) = temperature_blob(2.5, 0.0);
    assert!(y1 > y0 + 0.05, "hot smoke {y0} -> {y1}");
    // Cold, dense smoke: T below ambient and heavy.
    let (y0, y1) = temperature_blob(-1.5, 0.2);
    assert!(y1 < y0 - 0.05, "cold smoke {y0} -> {y1}");
    // At ambient temperature and weightless it stays where it is.
    let (y0, y1) = temperature_blob(0.5, 0.0);
    assert!((y1 - y0).abs() < 0.01, "neutral smoke {y0} -> {y1}");
}

#[test]
fn cooling_brings_the_temperature_back_to_ambient() {
    let p = FluidParams {
        cooling: 2.0,
        ambient_temperature: 1.0,
        buoyancy: 0.0,
        smoke_weight: 0.0,
        ..FluidParams::default()
    };
    let mut s = Solver::new(
        Grid::unit(Dims::cube(12)).expect("g"),
        p,
        Boundaries::closed(),
    )
    .expect("s");
    assert!(s.temperature().iter().all(|&t| t == 1.0));
    s.temperature_mut().fill(3.0);
    let dt = s.params().dt;
    let steps = 30;
    for _ in 0..steps {
        s.step();
    }
    let expect = 1.0 + 2.0 * (-2.0 * dt * steps as f32).exp();
    for &t in s.temperature() {
        assert!((t - expect).abs() < 1e-3, "{t} vs {expect}");
    }
}

#[test]
fn emitters_follow_their_time_window_and_pulse() {
    let e = Emitter {
        start: 1.0,
        end: Some(5.0),
        pulse: Some(Pulse {
            period: 1.0,
            duty: 0.25,
        }),
        ..Emitter::default()
    };
    let on: Vec<bool> = [0.5, 1.0, 1.2, 1.3, 2.1, 4.2, 5.0, 6.0]
        .into_iter()
        .map(|t| e.active_at(t))
        .collect();
    assert_eq!(on, [false, true, true, false, true, true, false, false]);
    // In the solver: an emitter that stops at 0.1 s adds nothing afterwards.
    let p = FluidParams {
        fade: 0.0,
        ..FluidParams::default()
    };
    let mut s = Solver::new(
        Grid::unit(Dims::cube(12)).expect("g"),
        p,
        Boundaries::closed(),
    )
    .expect("s");
    s.set_emitters(vec![Emitter {
        end: Some(0.1),
        velocity: None,
        temperature: None,
        ..Emitter::sphere([0.5, 0.5, 0.5], 0.2, 1.0)
    }])
    .expect("emitter");
    let mut sums = Vec::new();
    for _ in 0..12 {
        s.step();
        sums.push(s.density_sum());
    }
    // Six steps of 1/60 s fall before 0.1 s; after that the amount only drifts by advection.
    assert!(sums[5] > sums[0] * 5.5, "{sums:?}");
    assert!((sums[11] - sums[6]).abs() < 0.02 * sums[6], "{sums:?}");
}

#[test]
fn an_inflow_drives_the_flow_through_to_the_outflow() {
    let b = Boundaries {
        z_min: Face::Inflow(0.8),
        z_max: Face::Open,
        ..Boundaries::closed()
    };
    // With viscosity too the stream stays uniform from the inflow face to the outflow.
    for viscosity in [0.0, 1e-2] {
        let p = FluidParams {
            viscosity,
            ..FluidParams::default()
        };
        let mut s = Solver::new(Grid::unit(Dims::new(12, 10, 20)).expect("g"), p, b).expect("s");
        for _ in 0..10 {
            s.step();
        }
        let w = s.velocity(2);
        let d = s.dims();
        let dw = d.faces(2);
        for k in [0, 1, d.nz / 2, d.nz - 1, d.nz] {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let v = w[dw.idx(i, j, k)];
                    assert!(
                        (v - 0.8).abs() < 1e-3,
                        "ν {viscosity}: w at {i},{j},{k} = {v}"
                    );
                }
            }
        }
        assert!(max_face_divergence(&s) < 1e-3);
    }
}

#[test]
fn viscosity_sees_the_inflow_speed_beyond_an_inflow_face() {
    // A uniform stream at the inflow speed is a fixed point of implicit viscosity: the inflow
    // face's value is the Dirichlet neighbour of the first face inside (a wall's would be 0).
    let d = Dims::new(6, 5, 8);
    let b = Boundaries {
        z_min: Face::Inflow(0.8),
        z_max: Face::Open,
        ..Boundaries::closed()
    };
    let mut w = vec![0.8f32; d.faces(2).cells()];
    let mut scratch = vec![0.0f32; w.len()];
    plume::sim::diffuse::diffuse_component(2, &mut w, &mut scratch, d, &b, 5.0, 1e-7, 500);
    for (i, v) in w.iter().enumerate() {
        assert!((v - 0.8).abs() < 1e-4, "face {i}: {v}");
    }
}
