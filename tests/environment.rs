//! The experiment switches in the environment (`PLUME_GPU_…`, `PLUME_RENDER_…`) as a user
//! meets them through the binary: see `docs/reference/environment.md`.

mod common;

use std::process::Command;

/// An experiment switch misspelt, or set to a value it does not take, is refused before
/// anything runs (no folder made), naming it and what it takes; a value it takes, or an
/// empty one, runs.
#[test]
fn a_misspelt_or_wrong_environment_switch_is_refused_before_any_work() {
    let dir = common::temp_dir("cli-envswitch");
    let out_dir = dir.to_str().expect("utf-8 path");
    let run = |var: &str, value: &str| {
        Command::new(env!("CARGO_BIN_EXE_plume"))
            .args(["run", "--backend", "cpu", "--size", "8", "--frames", "1"])
            .args(["--format", "npy", "--out", out_dir])
            .env(var, value)
            .output()
            .expect("the plume binary runs")
    };
    for (var, value, says) in [
        (
            "PLUME_GPU_WG",
            "500",
            "it takes a power of two from 32 to 1024",
        ),
        ("PLUME_GPU_WGG", "512", "did you mean PLUME_GPU_WG?"),
        ("PLUME_GPU_TUNE", "yes", "it takes 0 (off) or 1 (on)"),
        (
            "PLUME_RENDER_LIGHT_CACHE",
            "on",
            "it takes 0 (off) or 1 (on)",
        ),
        (
            "PLUME_GPU_FIELD_BUFFERS",
            "mapped",
            "one of `immutable`, `default`",
        ),
    ] {
        let out = run(var, value);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{var}={value}: {err}");
        assert!(err.starts_with("error: the environment variable "), "{err}");
        assert!(
            err.contains(var) && err.contains(says),
            "{var}={value}: {err}"
        );
        assert!(!err.contains("panicked"), "{err}");
        assert!(!dir.exists(), "{var}={value}: the run started");
    }
    for (var, value) in [("PLUME_GPU_WG", "256"), ("PLUME_GPU_WG", "")] {
        let out = run(var, value);
        assert!(
            out.status.success(),
            "{var}={value}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(dir.join("manifest.json").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
