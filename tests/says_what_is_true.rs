//! Small truths a newcomer meets (issue 47, item 6): `view` names its backend as every
//! command does and says when its window is on a virtual screen nobody sees; `bench` on the
//! GPU reports no CPU-only figures; `render --json` names the up-resolution factor beside the
//! grid it drew.

use std::process::Command;

fn plume() -> Command {
    Command::new(env!("CARGO_BIN_EXE_plume"))
}

#[test]
fn bench_on_the_gpu_backend_reports_no_cpu_only_keys() {
    let json = |backend: &str| -> serde_json::Value {
        let o = plume()
            .args([
                "bench", "--size", "8", "--steps", "1", "--warmup", "0", "--json",
            ])
            .args(["--backend", backend])
            .output()
            .expect("plume runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        serde_json::from_slice(&o.stdout).expect("JSON")
    };
    let gpu = json("gpu");
    let cpu = json("cpu");
    for key in ["simd", "vectorised"] {
        assert!(gpu[key].is_null(), "gpu {key}: {}", gpu[key]);
        assert!(!cpu[key].is_null(), "cpu {key}: {}", cpu[key]);
    }
    // Both backends skip the air around the smoke in the scalar advection, and say so.
    for j in [&gpu, &cpu] {
        assert_eq!(j["sparse"], true, "{j}");
        assert!(
            j["scalar_active"]
                .as_f64()
                .is_some_and(|v| v > 0.0 && v <= 1.0),
            "{j}"
        );
    }
    // And the GPU-only ones the other way round.
    for key in [
        "gpu_dispatches_per_step",
        "bytes_per_step",
        "host_us_per_dispatch",
    ] {
        assert!(
            gpu[key].as_f64().is_some_and(|v| v > 0.0),
            "gpu {key}: {gpu}"
        );
        assert!(cpu[key].is_null(), "cpu {key}: {}", cpu[key]);
    }
}

#[test]
fn render_json_names_the_upres_factor_and_the_grid_it_drew() {
    let out = std::env::temp_dir().join(format!("plume-upres-json-{}.png", std::process::id()));
    let o = plume()
        .args(["render", "--size", "12", "--upres", "2", "--steps", "2"])
        .args(["--width", "64", "--height", "48", "--json", "--out"])
        .arg(&out)
        .output()
        .expect("plume runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = String::from_utf8_lossy(&o.stdout);
    let j: serde_json::Value =
        serde_json::from_str(text.lines().last().expect("a line")).expect("JSON");
    assert_eq!(j["upres"], 2, "{j}");
    assert_eq!(j["simulated_dims"], serde_json::json!([12, 12, 12]), "{j}");
    assert_eq!(j["dims"], serde_json::json!([24, 24, 24]), "{j}");
    let _ = std::fs::remove_file(&out);
}

#[test]
fn view_names_its_backend_and_says_when_nobody_can_see_its_window() {
    // Without --frames under xvfb-run: the note, then (as every command) the backend line.
    // `timeout` ends xvfb-run, whose server's end ends the viewer.
    let o = Command::new("timeout")
        .args(["8", "xvfb-run", "-a"])
        .arg(env!("CARGO_BIN_EXE_plume"))
        .args(["view", "--size", "12"])
        .output()
        .expect("timeout and xvfb-run run");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("virtual screen") && err.contains("--frames") && err.contains("--screenshot"),
        "{err}"
    );
    assert!(err.lines().any(|l| l.starts_with("backend: ")), "{err}");
    // With --frames it ends by itself: no note, the backend line still.
    let o = Command::new("xvfb-run")
        .args(["-a"])
        .arg(env!("CARGO_BIN_EXE_plume"))
        .args(["view", "--size", "12", "--frames", "2"])
        .output()
        .expect("xvfb-run runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(!err.contains("virtual screen"), "{err}");
    assert!(err.lines().any(|l| l.starts_with("backend: ")), "{err}");
}

#[test]
fn the_render_scale_help_gives_the_budget_the_viewer_keeps() {
    let o = plume()
        .args(["view", "--help"])
        .output()
        .expect("plume runs");
    let help = String::from_utf8_lossy(&o.stdout);
    let budget = format!(
        "3D pass takes about {} ms",
        plume::viewer::view3d::BUDGET_MS
    );
    assert!(help.contains(&budget), "{help}");
}

/// An OpenGL without compute shaders (Mesa told to be 3.3 without `ARB_compute_shader`):
/// `--backend gpu` names that cause and the way out, not "invalid parameter" or a shader
/// compiler's message; `auto` runs on the CPU and says why.
#[test]
fn an_opengl_without_compute_shaders_is_named_and_auto_falls_back() {
    let dir = std::env::temp_dir().join(format!("plume-gl33-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let run = |backend: &str, out: &str| {
        plume()
            .env("MESA_GL_VERSION_OVERRIDE", "3.3")
            .env("MESA_EXTENSION_OVERRIDE", "-GL_ARB_compute_shader")
            .args([
                "run",
                "--size",
                "8",
                "--frames",
                "1",
                "--backend",
                backend,
                "--out",
            ])
            .arg(dir.join(out))
            .output()
            .expect("plume runs")
    };
    let gpu = run("gpu", "gpu");
    let err = String::from_utf8_lossy(&gpu.stderr);
    assert!(!gpu.status.success(), "{err}");
    assert!(
        err.contains("no compute shaders") && err.contains("OpenGL 4.3"),
        "names the cause: {err}"
    );
    assert!(err.contains("--backend cpu"), "names the way out: {err}");
    assert!(
        !err.contains("invalid parameter") && !err.contains("lacks `main'"),
        "{err}"
    );
    assert!(
        !dir.join("gpu").exists(),
        "nothing written for a refused run"
    );
    let auto = run("auto", "auto");
    let err = String::from_utf8_lossy(&auto.stderr);
    assert!(auto.status.success(), "{err}");
    assert!(
        err.contains("backend: cpu (auto: no usable GPU: ") && err.contains("no compute shaders"),
        "{err}"
    );
    assert!(
        dir.join("auto/manifest.json").exists(),
        "auto's run wrote its frame"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// With `--up z` the manifest gives the grid as simulated (`dims`) and as the files hold it
/// (`file_dims`): a `.npy` field's shape is `file_dims` reversed, with either up axis.
#[test]
fn the_manifest_gives_the_grid_the_files_hold() {
    let dir = std::env::temp_dir().join(format!("plume-filedims-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for up in ["y", "z"] {
        let out = dir.join(up);
        let o = plume()
            .args([
                "run", "--dims", "20,12,16", "--frames", "1", "--format", "npy",
            ])
            .args([
                "--fields",
                "density",
                "--backend",
                "cpu",
                "--up",
                up,
                "--out",
            ])
            .arg(&out)
            .output()
            .expect("plume runs");
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        let m: serde_json::Value =
            serde_json::from_slice(&std::fs::read(out.join("manifest.json")).expect("manifest"))
                .expect("JSON");
        let dims: Vec<u64> = serde_json::from_value(m["dims"].clone()).expect("dims");
        let file: Vec<u64> = serde_json::from_value(m["file_dims"].clone()).expect("file_dims");
        assert_eq!(dims, [20, 12, 16], "dims are the simulated grid's");
        let npy = std::fs::read_dir(&out)
            .expect("run folder")
            .map(|e| e.expect("entry").path())
            .find(|p| {
                p.to_string_lossy().ends_with("density.npy")
                    || p.extension().is_some_and(|x| x == "npy")
            })
            .expect("a .npy file");
        let bytes = std::fs::read(&npy).expect("npy");
        let shape: Vec<u64> = npyz::NpyFile::new(&bytes[..])
            .expect("npy header")
            .shape()
            .to_vec();
        let mut rev = file.clone();
        rev.reverse();
        assert_eq!(shape, rev, "up {up}: the .npy shape is file_dims reversed");
        let want = if up == "z" {
            [20, 16, 12]
        } else {
            [20, 12, 16]
        };
        assert_eq!(file, want, "up {up}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}
