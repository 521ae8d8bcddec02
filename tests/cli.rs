//! The `plume` binary as a user runs it.

mod common;

use std::process::Command;

fn plume(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("the plume binary runs")
}

#[test]
fn bench_json_has_the_documented_fields() {
    let out = plume(&[
        "bench", "--dims", "12,16,10", "--steps", "3", "--warmup", "2", "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
    assert_eq!(v["dims"], serde_json::json!([12, 16, 10]));
    assert_eq!(v["steps"], 3);
    for key in [
        "ms_per_step",
        "pressure_iterations",
        "pressure_residual",
        "ns_per_cell_step",
    ] {
        assert!(
            v[key].as_f64().is_some_and(|x| x.is_finite() && x >= 0.0),
            "{key}: {v}"
        );
    }
    let stages = v["stages"].as_object().expect("stages object");
    for stage in [
        "sources",
        "advect_velocity",
        "forces",
        "project",
        "advect_density",
    ] {
        assert!(
            stages[stage].as_f64().is_some(),
            "stage {stage} missing: {v}"
        );
    }
    assert!(v.get("baseline").is_none());
    assert_eq!(v["pressure_solver"], "multigrid PCG");
    assert!(
        v["pressure_reduction_per_iteration"]
            .as_f64()
            .is_some_and(|x| x >= 1.0),
        "{v}"
    );
    assert!(v["memory_bytes"]
        .as_u64()
        .is_some_and(|m| m > 12 * 16 * 10 * 4));
    // Bytes a cell and the bandwidth floor follow from the memory and the measured bandwidth.
    let mem = v["memory_bytes"].as_f64().expect("memory");
    let per_cell = v["bytes_per_cell"].as_f64().expect("bytes_per_cell");
    assert!((per_cell - mem / (12.0 * 16.0 * 10.0)).abs() < 1e-6, "{v}");
    let bw = v["memory_bandwidth_gb_s"].as_f64().expect("bandwidth");
    assert!(bw > 0.1 && bw < 10_000.0, "implausible bandwidth: {v}");
    let floor = v["bandwidth_floor_ms"].as_f64().expect("floor");
    assert!(
        (floor - 2.0 * mem / (bw * 1e9) * 1e3).abs() <= 1e-9 * floor.max(1.0),
        "{v}"
    );
}

/// `plume bench --steps 2 --json` with `args` and `extra`: its report (the run must succeed).
fn bench_json(args: &[&str], extra: &[&str]) -> serde_json::Value {
    let mut all = vec!["bench", "--steps", "2", "--json"];
    all.extend_from_slice(args);
    all.extend_from_slice(extra);
    let out = plume(&all);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

/// `--no-simd` takes the traces one at a time and `--simd avx2` eight at a time: the report
/// says so, and the results (the pressure solve's residual, a function of every field) are
/// the same bits.
#[test]
fn bench_no_simd_traces_one_at_a_time_with_the_same_results() {
    let run = |extra: &[&str]| bench_json(&["--size", "20", "--warmup", "3"], extra);
    let (fast, slow) = (run(&[]), run(&["--no-simd"]));
    assert_eq!(slow["vectorised"], false, "{slow}");
    assert_eq!(slow["simd"], "none", "{slow}");
    #[cfg(target_arch = "x86_64")]
    {
        let (wide, avx2) = (
            std::arch::is_x86_feature_detected!("avx512f"),
            std::arch::is_x86_feature_detected!("avx2"),
        );
        assert_eq!(fast["vectorised"], wide || avx2, "{fast}");
        let want = if wide {
            "avx512"
        } else if avx2 {
            "avx2"
        } else {
            "none"
        };
        assert_eq!(fast["simd"], want, "{fast}");
        // `--simd avx2` caps a processor with AVX-512 at AVX2, with the same results.
        let capped = run(&["--simd", "avx2"]);
        assert_eq!(
            capped["simd"],
            if avx2 { "avx2" } else { "none" },
            "{capped}"
        );
        assert_eq!(fast["pressure_residual"], capped["pressure_residual"]);
        assert_eq!(fast["cfl_max"], capped["cfl_max"]);
    }
    assert_eq!(fast["pressure_residual"], slow["pressure_residual"]);
    assert_eq!(fast["cfl_max"], slow["cfl_max"]);
    let text = plume(&[
        "bench",
        "--size",
        "8",
        "--steps",
        "1",
        "--warmup",
        "0",
        "--no-simd",
    ]);
    assert!(String::from_utf8_lossy(&text.stdout).contains("traces one at a time"));
}

/// The scalar advection works out only the cells near the smoke (a fraction of the box
/// early on), and `--dense` every cell. (The results differ by what lies below the active
/// region's cut-off; without it they are the same bits: `tests/preset_hashes.rs`.)
#[test]
fn bench_dense_works_out_every_cell() {
    let run = |extra: &[&str]| bench_json(&["--size", "24", "--warmup", "5"], extra);
    let (sparse, dense) = (run(&[]), run(&["--dense"]));
    assert_eq!(sparse["sparse"], true, "{sparse}");
    assert_eq!(dense["sparse"], false, "{dense}");
    let share = |v: &serde_json::Value| v["scalar_active"].as_f64().expect("a number");
    assert!(share(&sparse) > 0.0 && share(&sparse) < 0.5, "{sparse}");
    assert_eq!(share(&dense), 1.0, "{dense}");
    for v in [&sparse, &dense] {
        let r = v["pressure_residual"].as_f64().expect("a number");
        assert!(r.is_finite() && r <= 1e-3, "{v}");
    }
}

#[test]
fn pressure_flag_picks_the_solver_and_both_converge() {
    for (flag, name) in [
        ("multigrid", "multigrid PCG"),
        ("red_black_sor", "red-black SOR"),
        ("sor", "red-black SOR"),
    ] {
        let out = plume(&[
            "bench",
            "--dims",
            "20,24,16",
            "--steps",
            "3",
            "--warmup",
            "3",
            "--pressure",
            flag,
            "--json",
        ]);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["pressure_solver"], name, "--pressure {flag}");
        assert!(
            v["pressure_residual"].as_f64().is_some_and(|r| r <= 1e-3),
            "--pressure {flag}: {v}"
        );
    }
    // The scene file's choice is replaced by the flag.
    let dir = common::temp_dir("cli-pressure_flag");
    let scene = dir.join("sor.toml");
    let mut sc = plume::scene::Scene::default_plume();
    sc.fluid.pressure_method = plume::sim::PressureMethod::RedBlackSor;
    sc.save(&scene).expect("write scene");
    let text = std::fs::read_to_string(&scene).expect("read scene");
    assert!(
        text.contains("pressure_method = \"red_black_sor\""),
        "{text}"
    );
    let s = scene.to_str().expect("utf-8 path");
    for (extra, name) in [
        (&[][..], "red-black SOR"),
        (&["--pressure", "multigrid"][..], "multigrid PCG"),
    ] {
        let mut args = vec!["bench", "--scene", s, "--size", "16", "--steps", "1"];
        args.extend_from_slice(&["--warmup", "1", "--json"]);
        args.extend_from_slice(extra);
        let out = plume(&args);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("one JSON object");
        assert_eq!(v["pressure_solver"], name, "{extra:?}");
    }
    let out = plume(&["bench", "--pressure", "jacobi"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("unknown pressure solver 'jacobi'") && err.contains("multigrid"),
        "{err}"
    );
}

#[test]
fn bench_baseline_reports_the_article_port() {
    let out = plume(&[
        "bench",
        "--size",
        "16",
        "--steps",
        "2",
        "--warmup",
        "1",
        "--baseline",
        "--json",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let b = &v["baseline"];
    for key in ["iter4_ms_per_step", "iter20_ms_per_step", "ratio_iter20"] {
        assert!(b[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
    }
}

#[test]
fn bench_text_lists_every_stage() {
    let out = plume(&["bench", "--size", "12", "--steps", "2", "--warmup", "0"]);
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains(" 2 steps, "), "{text}");
    let one = plume(&[
        "bench",
        "--size",
        "8",
        "--steps",
        "1",
        "--warmup",
        "0",
        "--threads",
        "1",
    ]);
    let one = String::from_utf8_lossy(&one.stdout);
    assert!(one.contains(" 1 step, 1 thread, "), "{one}");
    for s in [
        "ms median",
        "ns/cell/step",
        "advect_velocity",
        "project",
        "iterations",
    ] {
        assert!(text.contains(s), "missing '{s}' in:\n{text}");
    }
}

#[test]
fn simulate_prints_the_plume_rising() {
    let out = plume(&["simulate", "--size", "16", "--seconds", "1"]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8_lossy(&out.stdout);
    let rows: Vec<Vec<f64>> = text
        .lines()
        .filter(|l| {
            l.trim_start()
                .chars()
                .next()
                .is_some_and(|c| c.is_ascii_digit())
        })
        .map(|l| {
            l.split_whitespace()
                .map(|w| w.trim_end_matches(['s', '%']).parse().expect("number"))
                .collect()
        })
        .collect();
    assert_eq!(rows.len(), 4, "{text}");
    // Columns: time, steps, smoke, emitted − fade, smoky %, centroid height, pressure
    // iterations, residual, sub-steps, CFL, ms. The smoke rises.
    assert!(rows[3][5] > rows[0][5], "{text}");
    for r in &rows {
        assert_eq!(r.len(), 11, "{text}");
        // Never more smoke than the emitter added minus fade; a small part of the box.
        assert!(r[2] <= r[3] * 1.0001 && r[2] > 0.0, "{text}");
        assert!(r[4] > 0.0 && r[4] < 25.0, "{text}");
        assert!(r[8] >= 1.0 && r[9] > 0.0 && r[9] <= 2.0001, "{text}");
    }
}

#[test]
fn bad_input_gives_a_clear_error_and_nonzero_exit() {
    let cases: [(&[&str], &str); 6] = [
        (&["bench", "--size", "0"], "0 is outside the allowed range"),
        (&["bench", "--size", "abc"], "not a whole number"),
        (&["bench", "--dims", "8,8"], "three numbers"),
        (&["bench", "--dims", "8,8,5000"], "nz = 5000"),
        (&["bench", "--steps", "0"], "steps"),
        (&["frobnicate"], "unrecognized subcommand"),
    ];
    for (args, msg) in cases {
        let out = plume(args);
        assert!(!out.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(msg), "{args:?}: stderr lacks '{msg}':\n{err}");
        assert!(!err.contains("panicked"), "{args:?} panicked:\n{err}");
    }
}

#[test]
fn too_big_a_grid_is_refused_before_allocating() {
    let out = plume(&["bench", "--dims", "1024,1024,1024"]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("exceeds the limit"), "{err}");
}

fn png_size(path: &std::path::Path) -> (u32, u32) {
    let dec = png::Decoder::new(std::fs::File::open(path).expect("png exists"));
    let r = dec.read_info().expect("a valid PNG");
    let info = r.info();
    (info.width, info.height)
}

#[test]
fn render_writes_a_png_and_reports_timings() {
    let dir = common::temp_dir("cli-render");
    let out = dir.join("shot.png");
    let o = plume(&[
        "render",
        "--size",
        "16",
        "--steps",
        "10",
        "--width",
        "80",
        "--height",
        "60",
        "--out",
        out.to_str().expect("utf-8"),
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).expect("JSON");
    for key in ["upload_ms", "render_ms"] {
        assert!(v[key].as_f64().is_some_and(|x| x > 0.0), "{key}: {v}");
    }
    assert_eq!(v["frames"], 1);
    assert_eq!(v["skips_empty_bricks"], true, "{v}");
    assert_eq!(png_size(&out), (80, 60));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn render_every_k_writes_a_numbered_sequence() {
    let dir = common::temp_dir("cli-seq");
    let o = plume(&[
        "render",
        "--size",
        "12",
        "--steps",
        "7",
        "--every",
        "2",
        "--width",
        "40",
        "--height",
        "30",
        "--camera",
        "45,10,2.5",
        "--out",
        dir.to_str().expect("utf-8"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("folder made")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        ["frame_0001.png", "frame_0002.png", "frame_0003.png"]
    );
    assert_eq!(png_size(&dir.join("frame_0002.png")), (40, 30));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn render_refuses_bad_input_clearly() {
    let cases: [(&[&str], &str); 5] = [
        (
            &["render", "--out", "/tmp/x.png", "--camera", "1,2"],
            "YAW,PITCH,DIST",
        ),
        (
            &["render", "--out", "/tmp/x.png", "--camera", "0,95,2"],
            "pitch 95",
        ),
        (&["render", "--out", "/tmp/x.png", "--width", "0"], "width"),
        (
            &["render", "--out", "/tmp/x.png", "--quality", "0.5"],
            "outside the allowed range [1, 8]",
        ),
        (&["render"], "--out"),
    ];
    for (args, msg) in cases {
        let o = plume(args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: stderr lacks '{msg}':\n{err}");
    }
}

#[test]
fn render_into_an_unwritable_place_names_the_file_and_leaves_nothing() {
    let dir = common::temp_dir("cli-ro");
    std::fs::create_dir_all(&dir).expect("dir");
    // A path whose parent is a regular file cannot be created, even by root.
    let blocker = dir.join("file");
    std::fs::write(&blocker, b"x").expect("file");
    let out = blocker.join("shot.png");
    let o = plume(&[
        "render",
        "--size",
        "8",
        "--steps",
        "1",
        "--width",
        "16",
        "--height",
        "16",
        "--out",
        out.to_str().expect("utf-8"),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    // (After the line naming the solver backend, which every simulating command prints.)
    assert!(
        err.lines()
            .any(|l| l.starts_with("error:") && l.contains("shot.png")),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    let entries: Vec<_> = std::fs::read_dir(&dir).expect("list").collect();
    assert_eq!(entries.len(), 1, "something was left behind");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_writes_named_frames_and_a_manifest() {
    let dir = common::temp_dir("cli-run");
    let o = plume(&[
        "run",
        "--size",
        "12",
        "--frames",
        "3",
        "--every",
        "2",
        "--format",
        "vdb,npy,vti",
        "--out",
        dir.to_str().expect("utf-8"),
        "--prefix",
        "smoke",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("frame 3/3"), "progress lines: {err}");
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut want = vec!["manifest.json".to_string()];
    for n in 1..=3 {
        want.push(format!("smoke_{n:04}.vdb"));
        want.push(format!("smoke_{n:04}.vti"));
        want.push(format!("smoke_density_{n:04}.npy"));
        want.push(format!("smoke_velocity_{n:04}.npy"));
    }
    want.sort();
    assert_eq!(names, want);
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    assert_eq!(m["format_version"], 1);
    assert_eq!(m["dims"], serde_json::json!([12, 12, 12]));
    assert!((m["voxel_size"].as_f64().expect("h") - 1.0 / 12.0).abs() < 1e-6);
    assert_eq!(m["origin"], serde_json::json!([0.0, 0.0, 0.0]));
    assert!((m["dt"].as_f64().expect("dt") - 1.0 / 60.0).abs() < 1e-6);
    assert_eq!(m["fields"], serde_json::json!(["density", "velocity"]));
    assert!(m["scene"]["fluid"]["buoyancy"].as_f64().is_some());
    let frames = m["frames"].as_array().expect("frames");
    assert_eq!(frames.len(), 3);
    for (i, f) in frames.iter().enumerate() {
        assert_eq!(f["frame"], i + 1);
        assert_eq!(f["step"], 2 * (i + 1));
        let t = f["time"].as_f64().expect("time");
        assert!((t - 2.0 * (i + 1) as f64 / 60.0).abs() < 1e-6, "time {t}");
        assert_eq!(f["files"].as_array().expect("files").len(), 4);
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_refuses_bad_flags_formats_and_folders() {
    let dir = common::temp_dir("cli-runbad");
    std::fs::create_dir_all(&dir).expect("dir");
    let file = dir.join("a-file");
    std::fs::write(&file, b"x").expect("file");
    let under_file = file.join("out");
    let d = dir.to_str().expect("utf-8");
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["run", "--frames", "2", "--out", d, "--format", "obj"],
            "unknown format 'obj'",
        ),
        (
            vec!["run", "--frames", "2", "--out", d, "--fields", "smell"],
            "unknown field 'smell'",
        ),
        (vec!["run", "--frames", "0", "--out", d], "frames"),
        (vec!["run", "--out", d], "--frames"),
        (
            vec!["run", "--frames", "2", "--out", d, "--prefix", "../escape"],
            "prefix",
        ),
        (
            vec![
                "run",
                "--frames",
                "1",
                "--size",
                "8",
                "--out",
                under_file.to_str().expect("utf-8"),
            ],
            "a-file",
        ),
    ];
    for (args, msg) in cases {
        let o = plume(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(msg), "{args:?}: stderr lacks '{msg}':\n{err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // Nothing was written by the refused runs.
    assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 1);
    std::fs::remove_dir_all(&dir).ok();
}

#[cfg(unix)]
#[test]
fn run_stops_cleanly_on_ctrl_c_after_the_current_frame() {
    let dir = common::temp_dir("cli-sigint");
    let child = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args([
            "run", "--size", "48", "--frames", "100000", "--format", "npy", "--out",
        ])
        .arg(&dir)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("spawn");
    // Wait for the first frame, then interrupt.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !dir.join("manifest.json").exists() {
        assert!(std::time::Instant::now() < deadline, "no frame written");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let pid = child.id().to_string();
    assert!(Command::new("kill")
        .args(["-INT", &pid])
        .status()
        .expect("kill")
        .success());
    let out = child.wait_with_output().expect("wait");
    assert!(!out.status.success(), "an interrupted run must not exit 0");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("interrupted"), "{err}");
    // Every file present is complete: no temporaries, and the manifest lists exactly the files.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    let listed: usize = m["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| f["files"].as_array().map_or(0, |a| a.len()))
        .sum();
    assert_eq!(listed + 1, names.len(), "{names:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn every_command_takes_a_scene_file_or_preset() {
    let dir = common::temp_dir("cli-scene");
    std::fs::create_dir_all(&dir).expect("dir");
    // A scene file of our own: a small wind tunnel.
    let scene = dir.join("tunnel.toml");
    std::fs::write(
        &scene,
        "name = \"mine\"\n[grid]\ndims = [24, 12, 12]\nsize = 2.0\n\
         [boundaries]\nx_min = { inflow = 1.0 }\nx_max = \"open\"\n\
         [[obstacle]]\ncenter = [0.6, 0.5, 0.5]\nradius = 0.2\n\
         [[emitter]]\nshape = \"box\"\ncenter = [0.15, 0.5, 0.5]\nsize = [0.1, 0.4, 0.1]\ndensity = 5\n",
    )
    .expect("write");
    let s = scene.display().to_string();
    let o = plume(&[
        "bench", "--scene", &s, "--steps", "2", "--warmup", "1", "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["dims"], serde_json::json!([24, 12, 12]));
    // --size keeps the scene's proportions.
    let o = plume(&[
        "bench",
        "--scene",
        "wind_tunnel",
        "--size",
        "16",
        "--steps",
        "1",
        "--warmup",
        "0",
        "--json",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let j: serde_json::Value = serde_json::from_slice(&o.stdout).expect("json");
    assert_eq!(j["dims"], serde_json::json!([16, 8, 8]));
    let png = dir.join("shot.png");
    let o = plume(&[
        "render",
        "--scene",
        &s,
        "--steps",
        "3",
        "--width",
        "40",
        "--height",
        "30",
        "--out",
        &png.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(png_size(&png), (40, 30));
    let out = dir.join("frames");
    let o = plume(&[
        "run",
        "--scene",
        &s,
        "--frames",
        "2",
        "--format",
        "npy",
        "--out",
        &out.display().to_string(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(out.join("manifest.json")).expect("manifest"),
    )
    .expect("json");
    assert_eq!(m["scene"]["name"], "mine");
    assert_eq!(m["scene"]["obstacle"][0]["radius"], 0.2);
    let o = plume(&[
        "simulate",
        "--scene",
        "vortex_ring",
        "--size",
        "16",
        "--seconds",
        "0.1",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stdout).contains("vortex_ring"));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_bad_scene_file_is_named_with_its_line_by_every_command() {
    let dir = common::temp_dir("cli-badscene");
    std::fs::create_dir_all(&dir).expect("dir");
    let bad = dir.join("bad.toml");
    std::fs::write(
        &bad,
        "name = \"x\"\n[grid]\ndims = [16, 16, 16]\n[fluid]\nviscosity = -1\n",
    )
    .expect("write");
    let b = bad.display().to_string();
    let png = dir.join("x.png").display().to_string();
    let outdir = dir.join("o").display().to_string();
    for args in [
        vec!["bench", "--scene", &b],
        vec!["render", "--scene", &b, "--out", &png],
        vec!["run", "--scene", &b, "--frames", "1", "--out", &outdir],
        vec!["view", "--scene", &b],
        vec!["simulate", "--scene", &b],
    ] {
        let o = plume(&args);
        assert!(!o.status.success(), "{args:?} succeeded");
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(err.contains(&format!("{b}:5:")), "{args:?}: {err}");
        assert!(
            err.contains("viscosity = -1 is outside the allowed range [0, 1]"),
            "{err}"
        );
        assert!(!err.contains("panicked"), "{err}");
    }
    assert!(!dir.join("x.png").exists() && !dir.join("o").exists());
    let o = plume(&["bench", "--scene", "nonexistent_preset"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr)
        .contains("presets: plume, wind_tunnel, jets, vortex_ring"));
    // A grid made too big by --size on a long scene is refused before allocating.
    let o = plume(&["bench", "--scene", "wind_tunnel", "--size", "1024"]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("the limit is 134217728 cells"));
    std::fs::remove_dir_all(&dir).ok();
}

/// Every command's help names every preset the binary carries (the list comes from the one
/// table of presets, so a new preset cannot be missing from it), and each loads by name.
#[test]
fn help_names_every_preset() {
    let names = plume::scene::Scene::preset_names();
    assert!(names.len() >= 6, "{names:?}");
    for cmd in ["view", "run", "simulate", "bench", "render"] {
        let out = plume(&[cmd, "--help"]);
        assert!(out.status.success());
        let help = String::from_utf8_lossy(&out.stdout);
        // The option's line and the next (clap puts the text there in its long layout).
        let lines: Vec<&str> = help.lines().collect();
        let at = lines
            .iter()
            .position(|l| l.contains("--scene"))
            .unwrap_or_else(|| panic!("{cmd} --help has no --scene: {help}"));
        let line = lines[at..(at + 2).min(lines.len())].join(" ");
        for name in &names {
            assert!(line.contains(name), "{cmd} --help lacks {name}: {line}");
        }
    }
    for name in names {
        let out = plume(&[
            "simulate",
            "--scene",
            name,
            "--size",
            "8",
            "--seconds",
            "0.05",
        ]);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
