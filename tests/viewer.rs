//! End to end: the real viewer window under Xvfb (Debian package `xvfb`, installed by
//! `.ci/run`) runs frames with the panel and the slice view on, writes its screenshot and
//! exits 0. The picture must hold the panel and the smoke. And the panel's layout, laid out
//! by egui itself without a window: it fits the default window, and the statistics overlay
//! fits the 3D view.

use plume::scene::Scene;
use plume::viewer::overlay;
use plume::viewer::sections;
use plume::viewer::sim_thread::Snapshot;
use plume::viewer::state::{FrameStats, UiState};
use std::process::Command;

/// Lays out the menu bar, the side panel (and the slice panel when `slice`) in a headless
/// egui context the size of a `w`×`h` window; returns the side panel's overflow and the
/// statistics overlay's rectangle and the 3D view's.
fn layout(w: f32, h: f32, slice: bool, snap: Option<&Snapshot>) -> (f32, egui::Rect, egui::Rect) {
    let ctx = egui::Context::default();
    let scene = Scene::default_plume();
    let mut st = UiState::new(&scene, true);
    let mut res = (0.0, egui::Rect::NOTHING, egui::Rect::NOTHING);
    // Collapsing sections settle over the first frames; the last one is measured.
    for _ in 0..4 {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(w, h),
            )),
            ..Default::default()
        };
        let _ = ctx.run(input, |ctx| {
            let mut cmds = Vec::new();
            plume::viewer::scene_menu::menu_bar(ctx, &mut st, &mut cmds);
            let overflow = sections::side_panel(ctx, &mut st, snap).overflow;
            if slice {
                egui::SidePanel::right("slice")
                    .default_width(340.0)
                    .show(ctx, |ui| ui.label("slice"));
            }
            let view = ctx.available_rect();
            let stats = overlay::stats_overlay(ctx, view, snap, FrameStats::default());
            res = (overflow, stats, view);
        });
    }
    res
}

fn snapshot_after_steps(n: usize) -> Snapshot {
    let mut s = Scene::default_plume()
        .with_resolution(16)
        .build()
        .expect("scene");
    for _ in 0..n {
        s.step();
    }
    Snapshot {
        frame: plume::sim::Simulation::frame(&s, plume::frame::Select::ALL),
        scene_name: "plume".into(),
        stats: s.stats().clone(),
        total_density: s.total_density(),
        running: true,
        serial: 1,
        error: None,
        recording: false,
        recorder: Default::default(),
        backend: "backend: cpu (asked for)".into(),
        volume: plume::viewer::gpu_feed::Volume::Frame,
        transfers: None,
        playback: None,
    }
}

#[test]
fn the_side_panel_fits_the_default_window_and_scrolls_in_a_small_one() {
    let (fits, _, _) = layout(1280.0, 800.0, true, None);
    assert!(
        fits <= 0.0,
        "the side panel runs {fits} points past the bottom of a 1280x800 window"
    );
    // A smaller window: the content does not fit, so the (always drawn) scroll bar has
    // something to scroll. The same content, so the overflow grows by the height lost.
    let (small, _, _) = layout(1000.0, 600.0, true, None);
    assert!(small > 0.0, "{small}");
    assert!((small - fits - 200.0).abs() < 1.0, "{small} vs {fits}");
}

#[test]
fn the_statistics_overlay_shows_every_stage_inside_the_3d_view() {
    let snap = snapshot_after_steps(3);
    let lines = overlay::stats_lines(Some(&snap), FrameStats::default()).join("\n");
    assert!(!snap.stats.stages.is_empty());
    for st in &snap.stats.stages {
        assert!(
            lines.contains(st.name),
            "stage {} missing from\n{lines}",
            st.name
        );
    }
    assert!(
        lines.contains("pressure") && lines.contains("step 3"),
        "{lines}"
    );
    assert!(
        lines.contains("backend: cpu"),
        "the backend is not named:\n{lines}"
    );
    for (w, h) in [(1280.0, 800.0), (1000.0, 700.0)] {
        let (_, stats, view) = layout(w, h, true, Some(&snap));
        assert!(stats.height() > 100.0, "{stats:?}");
        assert!(
            view.contains_rect(stats),
            "{w}x{h}: the overlay {stats:?} leaves the 3D view {view:?}"
        );
    }
}

/// Where `xvfb-run -a` starts looking for a free display: a different place for every call
/// of this process and for other processes, so that tests starting screens at the same
/// moment do not race for one number.
fn server_number() -> u32 {
    static NEXT: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let k = NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    1000 + (std::process::id() % 1000) * 16 + k % 16
}

/// Runs `plume` with the arguments `args` adds, on a virtual X screen.
fn under_xvfb(args: impl FnOnce(&mut Command)) -> std::process::Output {
    let mut c = Command::new("xvfb-run");
    c.args([
        "-a",
        "-n",
        &server_number().to_string(),
        "-s",
        "-screen 0 1280x1024x24",
        env!("CARGO_BIN_EXE_plume"),
    ]);
    args(&mut c);
    c.output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run (install the Debian package xvfb): {e}"))
}

#[test]
fn viewer_window_runs_and_screenshots_panel_and_smoke() {
    let dir = std::env::temp_dir().join(format!("plume-view-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shot = dir.join("viewer.png");
    let rec = dir.join("frames");
    let out = under_xvfb(|c| {
        c.args([
            "view",
            "--size",
            "24",
            "--frames",
            "25",
            "--slice",
            "--window",
            "1100x700",
            "--screenshot",
        ])
        .arg(&shot)
        .arg("--record")
        .arg(&rec);
    });
    assert!(
        out.status.success(),
        "viewer failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let dec = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot written"));
    let mut reader = dec.read_info().expect("PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("pixels");
    let (w, h) = (info.width as usize, info.height as usize);
    assert_eq!((w, h), (1100, 700));
    let px = |x: usize, y: usize| {
        let i = 4 * (y * w + x);
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    let luma = |p: [u8; 3]| (p[0] as u32 * 3 + p[1] as u32 * 6 + p[2] as u32) / 10;
    // Not blank: many distinct colours.
    let mut colours = std::collections::HashSet::new();
    for y in (0..h).step_by(3) {
        for x in (0..w).step_by(3) {
            colours.insert(px(x, y));
        }
    }
    assert!(
        colours.len() > 200,
        "only {} colours: blank picture?",
        colours.len()
    );
    // The side panel on the left: a flat panel colour with light text on it.
    let panel: Vec<[u8; 3]> = (40..h - 40)
        .step_by(2)
        .flat_map(|y| (5..200).step_by(2).map(move |x| (x, y)))
        .map(|(x, y)| px(x, y))
        .collect();
    let mut counts = std::collections::HashMap::new();
    for p in &panel {
        *counts.entry(*p).or_insert(0usize) += 1;
    }
    let (fill, n) = counts
        .iter()
        .max_by_key(|e| e.1)
        .map(|(c, n)| (*c, *n))
        .expect("pixels");
    assert!(
        n * 2 > panel.len(),
        "no uniform panel background on the left ({fill:?} covers {n} of {})",
        panel.len()
    );
    let text = panel.iter().filter(|p| luma(**p) > luma(fill) + 80).count();
    assert!(text > 200, "no text in the panel ({text} bright pixels)");
    // The smoke: bright, low-saturation pixels in the middle of the 3D view, below the
    // statistics overlay in its top-left corner (whose light grey text would count too).
    let smoke = (h / 2..h * 5 / 6)
        .flat_map(|y| (w * 3 / 10..w * 7 / 10).map(move |x| (x, y)))
        .map(|(x, y)| px(x, y))
        .filter(|p| {
            luma(*p) > 150 && p.iter().max().unwrap_or(&0) - p.iter().min().unwrap_or(&0) < 40
        })
        .count();
    assert!(
        smoke > 300,
        "no smoke in the 3D view ({smoke} bright grey pixels)"
    );
    // The recording ran on the background writer and finished its queue on exit: numbered
    // .vdb frames and a manifest that lists exactly them.
    let mut vdbs: Vec<String> = std::fs::read_dir(&rec)
        .expect("recording folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".vdb"))
        .collect();
    vdbs.sort();
    assert!(vdbs.len() >= 2, "recorded only {vdbs:?}");
    assert_eq!(vdbs[0], "plume_0001.vdb");
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(rec.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    let steps: Vec<u64> = m["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| f["step"].as_u64().expect("step"))
        .collect();
    assert_eq!(steps.len(), vdbs.len());
    assert!(
        steps.iter().all(|s| s % 2 == 0),
        "every 2nd step: {steps:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// A scene may hold any value validation allows; the panel's sliders span exactly those
/// ranges (from `plume::ranges`), so drawing the panel changes nothing and sends nothing.
/// (Before the range table, the fade slider ran 0..5 against an allowed 0..1000 and egui
/// clamped a loaded 900 to 5 — which "Save current as" then wrote.)
#[test]
fn the_panel_never_clamps_a_value_that_validation_allows() {
    use plume::ranges::fluid as r;
    use plume::sim::PressureMethod;
    let mut scene = Scene::default_plume();
    let f = &mut scene.fluid;
    f.fade = 900.0;
    f.smoke_weight = -700.0;
    f.buoyancy = 800.0;
    f.ambient_temperature = -9000.0;
    f.cooling = 999.0;
    f.vorticity = 90.0;
    f.diffusion = 0.9;
    f.viscosity = 1e-6;
    f.dt = 1.0;
    f.max_cfl = 16.0;
    f.max_substeps = 100;
    f.pressure_tolerance = 1e-7;
    f.pressure_max_iterations = 9_000;
    f.pressure_method = PressureMethod::RedBlackSor;
    f.sor_omega = 1.999;
    scene.validate().expect("every value is allowed");
    assert!(!r::FADE.contains(1000.5) && r::FADE.contains(900.0));
    let ctx = egui::Context::default();
    let mut st = UiState::new(&scene, true);
    let mut sent = Vec::new();
    for _ in 0..4 {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 800.0),
            )),
            ..Default::default()
        };
        let _ = ctx.run(input, |ctx| {
            sent.extend(sections::side_panel(ctx, &mut st, None).commands);
        });
    }
    assert_eq!(st.scene.fluid, scene.fluid, "the panel changed a parameter");
    assert_eq!(st.scene, scene);
    assert!(sent.is_empty(), "drawing alone sent {sent:?}");
}

/// `view --record` into a folder that cannot be written: the failure is printed on stderr
/// when it happens, and the viewer exits non-zero (issue 14).
#[test]
fn a_failed_recording_is_printed_and_makes_the_viewer_exit_non_zero() {
    let dir = std::env::temp_dir().join(format!("plume-recfail-view-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("dir");
    let blocker = dir.join("a-file");
    std::fs::write(&blocker, b"x").expect("file");
    let out = under_xvfb(|c| {
        c.args([
            "view", "--size", "16", "--frames", "12", "--window", "800x600", "--record",
        ])
        .arg(blocker.join("frames"));
    });
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("recording stopped: cannot use the output folder") && err.contains("a-file"),
        "{err}"
    );
    assert!(err.contains("error: cannot record"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

/// `view --frames N --json` (issue 16's measure of a fluid viewer) prints one JSON object
/// with the frame times and the simulation's rate.
#[test]
fn view_json_reports_frame_times_and_steps_per_second() {
    let out = under_xvfb(|c| {
        c.args([
            "view", "--size", "16", "--frames", "24", "--window", "640x480", "--json",
        ]);
    });
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let v: serde_json::Value = serde_json::from_str(text.trim().lines().last().unwrap_or(""))
        .unwrap_or_else(|e| panic!("not one JSON object ({e}): {text}"));
    assert_eq!(v["frames"], 24);
    let n = v["measured_frames"].as_u64().expect("count");
    assert!((1..24).contains(&n), "{v}");
    let med = v["median_frame_ms"].as_f64().expect("median");
    let p95 = v["p95_frame_ms"].as_f64().expect("p95");
    assert!(med > 0.0 && p95 >= med, "{v}");
    assert!(
        v["steps_per_second"].as_f64().is_some_and(|s| s > 0.0),
        "{v}"
    );
    assert_eq!(v["window"], serde_json::json!([640, 480]));
    assert_eq!(v["dims"], serde_json::json!([16, 16, 16]));
}

#[test]
fn the_viewer_draws_mesh_and_moving_obstacles_and_the_panel_adds_and_checks_them() {
    // The chimney preset's house (a mesh) is drawn as a solid in the 3D view.
    let dir = std::env::temp_dir().join(format!("plume-view-mesh-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shot = dir.join("chimney.png");
    let out = under_xvfb(|c| {
        c.args([
            "view",
            "--scene",
            "chimney",
            "--size",
            "32",
            "--frames",
            "10",
            "--window",
            "900x600",
            "--screenshot",
        ])
        .arg(&shot);
    });
    assert!(
        out.status.success(),
        "viewer failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let dec = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot written"));
    let mut reader = dec.read_info().expect("PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("pixels");
    let (w, h) = (info.width as usize, info.height as usize);
    // The obstacle colour (a warm grey: red above blue) in the 3D view, right of the panel.
    let warm = (0..h)
        .flat_map(|y| (w / 3..w).map(move |x| (x, y)))
        .filter(|&(x, y)| {
            let i = 4 * (y * w + x);
            let (r, g, b) = (buf[i] as i32, buf[i + 1] as i32, buf[i + 2] as i32);
            r >= g && g >= b && r - b >= 15 && r > 90
        })
        .count();
    assert!(warm > 1500, "the house is not drawn ({warm} warm pixels)");
    std::fs::remove_dir_all(&dir).ok();

    // The panel's "Add" takes a mesh by path: centred, scaled to a third of the domain, and
    // checked (a missing file is refused with its name, and nothing changes).
    let scene = Scene::preset("paddle").expect("preset");
    let obj = std::env::temp_dir().join(format!("plume-panel-{}.obj", std::process::id()));
    std::fs::write(
        &obj,
        "v 0 0 0\nv 2 0 0\nv 0 2 0\nv 0 0 2\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
    )
    .expect("write mesh");
    let (lo, hi) = scene.bounds();
    let middle = [0, 1, 2].map(|a| 0.5 * (lo[a] + hi[a]));
    let side = (0..3).map(|a| hi[a] - lo[a]).fold(f32::INFINITY, f32::min);
    let o = plume::viewer::obstacles_section::mesh_at(&obj.to_string_lossy(), middle, side);
    let mut list = scene.obstacles.clone();
    list.push(o.clone());
    let cmd = plume::viewer::state::obstacles_command(&list, &scene).expect("valid");
    assert!(matches!(cmd, plume::viewer::state::UiCommand::SetObstacles(ref l) if l.len() == 2));
    let (a, b) = o
        .body()
        .expect("body")
        .bounds_in(&o.body().expect("body").pose_at(0.0));
    for x in 0..3 {
        assert!(
            (0.5 * (a[x] + b[x]) - middle[x]).abs() < 1e-4,
            "not centred: {a:?} {b:?}"
        );
    }
    assert!(((0..3).map(|x| b[x] - a[x]).fold(0.0, f32::max) - side / 3.0).abs() < 1e-4);
    let missing = plume::viewer::obstacles_section::mesh_at("/no/such/mesh.stl", middle, side);
    list.push(missing);
    let err = plume::viewer::state::obstacles_command(&list, &scene).expect_err("refused");
    assert!(
        err.contains("mesh.stl") && err.contains("no such file"),
        "{err}"
    );
    // Saved with the scene, the obstacles come back.
    let mut saved = scene.clone();
    saved.obstacles = list[..2].to_vec();
    let again = Scene::from_toml(&saved.to_toml().expect("toml"), None).expect("loads");
    assert_eq!(again.obstacles, saved.obstacles);
    std::fs::remove_file(&obj).ok();
}

/// The obstacles' editors span what validation allows too: a fan turned 720° and a mesh
/// scaled ×5000 are drawn without being clamped or sent.
#[test]
fn the_obstacle_editors_never_clamp_what_validation_allows() {
    let mut scene = Scene::preset("paddle").expect("preset");
    let mut fan = plume::sim::Obstacle::cuboid([0.7, 0.5, 0.5], [0.4, 0.05, 0.1]);
    fan.rotation = Some([0.0, 720.0, -5000.0]);
    fan.scale = Some(plume::geometry::Scale::Axes([0.5, 1.0, 1.25]));
    scene.obstacles.push(fan);
    let mut big = plume::sim::Obstacle::sphere([0.7, 0.5, 0.5], 0.0001);
    big.scale = Some(plume::geometry::Scale::Uniform(5000.0));
    scene.obstacles.push(big);
    scene.validate().expect("every value is allowed");
    let ctx = egui::Context::default();
    let mut st = UiState::new(&scene, true);
    let mut sent = Vec::new();
    for _ in 0..3 {
        let _ = ctx.run(egui::RawInput::default(), |ctx| {
            egui::CentralPanel::default().show(ctx, |ui| {
                plume::viewer::obstacles_section::obstacles(ui, &mut st, &mut sent);
            });
        });
    }
    assert_eq!(
        st.scene.obstacles, scene.obstacles,
        "the panel changed an obstacle"
    );
    assert!(
        sent.is_empty(),
        "drawing alone sent {} commands",
        sent.len()
    );
}

/// The overlay's line for the GPU backend's tuner: none where it does not tune, how many
/// choices it is still timing, then the ways it took off their default.
#[test]
fn the_statistics_overlay_says_what_the_gpu_tuner_took() {
    use plume::sim::{HostStats, TunedChoice, TunedWay};
    let way = |name, samples| TunedWay {
        name,
        samples,
        best_us: (samples > 0).then_some(10.0),
    };
    let choice = |site, picked, fixed| TunedChoice {
        site,
        ways: vec![way("1 cell", 4), way("4 cells", 4)],
        picked,
        fixed,
    };
    let mut snap = snapshot_after_steps(1);
    let line = |snap: &plume::viewer::sim_thread::Snapshot| {
        overlay::stats_lines(Some(snap), FrameStats::default())
            .into_iter()
            .find(|l| l.starts_with("tuner:"))
    };
    // The CPU backend: no host stats, no line.
    assert_eq!(line(&snap), None);
    let mut with = |tuning: Vec<TunedChoice>| {
        snap.stats.host = Some(HostStats {
            tuning,
            ..Default::default()
        });
        line(&snap)
    };
    // Off (nothing timed) or every choice set from outside: no line.
    let mut off = choice("gradient", None, false);
    off.ways = vec![way("1 cell", 0), way("4 cells", 0)];
    assert_eq!(with(vec![off]), None);
    assert_eq!(with(vec![choice("gradient", Some(1), true)]), None);
    assert_eq!(
        with(vec![
            choice("gradient", Some(1), false),
            choice("cg_step", None, false)
        ])
        .as_deref(),
        Some("tuner: timing 1 of 2 choices on the card")
    );
    assert_eq!(
        with(vec![
            choice("gradient", Some(1), false),
            choice("cg_step", Some(0), false)
        ])
        .as_deref(),
        Some("tuner: gradient 4 cells")
    );
    assert_eq!(
        with(vec![choice("cg_step", Some(0), false)]).as_deref(),
        Some("tuner: the default ways are the fastest on this card")
    );
}
