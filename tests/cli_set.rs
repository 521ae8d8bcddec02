//! `--set KEY=VALUE`: a scene key replaced from the command line, checked as a scene file
//! holding it is, on every command that takes a scene.

use std::path::PathBuf;
use std::process::{Command, Output};

/// A folder of this test's own (removed by the test that made it, once done).
fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-set-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn plume(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("the plume binary runs")
}

fn bench_json(extra: &[&str]) -> serde_json::Value {
    let mut args = vec![
        "bench",
        "--backend",
        "cpu",
        "--scene",
        "wind_tunnel",
        "--size",
        "32",
        "--warmup",
        "1",
        "--steps",
        "1",
        "--json",
    ];
    args.extend_from_slice(extra);
    let out = plume(&args);
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("one JSON object")
}

#[test]
fn a_smaller_max_cfl_set_on_the_command_line_splits_the_step() {
    // The wind tunnel at 32³ moves about a third of a cell a step: one sub-step at the
    // scene's max_cfl (2), two where --set holds each to a quarter of a cell.
    let plain = bench_json(&[]);
    assert_eq!(plain["substeps_max"], 1, "{plain}");
    assert_eq!(plain["max_cfl"], 2.0, "{plain}");
    let cfl = plain["cfl_max"].as_f64().expect("cfl_max");
    assert!(cfl > 0.25, "{plain}");
    let set = bench_json(&["--set", "fluid.max_cfl=0.25"]);
    assert_eq!(set["max_cfl"], 0.25, "{set}");
    assert!(
        set["substeps_max"].as_u64().is_some_and(|n| n >= 2),
        "{set}"
    );
    assert!(
        set["cfl_max"].as_f64().is_some_and(|c| c <= 0.25 * 1.0001),
        "{set}"
    );
    // Several are applied in order: the last value of a key is the one that holds.
    let twice = bench_json(&["--set", "fluid.max_cfl=4", "--set", "fluid.max_cfl=0.25"]);
    assert_eq!(twice["substeps_max"], set["substeps_max"], "{twice}");
}

/// `plume run` of the default scene at 12³, one frame as .npy into `out`, with each of `sets`
/// as a `--set`.
fn run_with(sets: &[&str], out: &std::path::Path) -> Output {
    let mut args = vec![
        "run",
        "--backend",
        "cpu",
        "--size",
        "12",
        "--frames",
        "1",
        "--format",
        "npy",
    ];
    for s in sets {
        args.extend(["--set", s]);
    }
    args.extend(["--out", out.to_str().expect("utf-8 path")]);
    plume(&args)
}

#[test]
fn a_run_records_the_scene_with_the_values_set() {
    let dir = scratch("run");
    let out_dir = dir.join("run");
    let out = run_with(
        &[
            "fluid.max_cfl=3",
            "fluid.advection=semi_lagrangian",
            "emitter.0.center=[0.4, 0.2, 0.5]",
        ],
        &out_dir,
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out_dir.join("manifest.json")).expect("the manifest"),
    )
    .expect("JSON");
    let text = manifest.to_string();
    assert!(text.contains("\"max_cfl\":3.0"), "{text}");
    assert!(text.contains("\"advection\":\"semi_lagrangian\""), "{text}");
    assert!(text.contains("[0.4,0.2,0.5]"), "{text}");
    std::fs::remove_dir_all(&dir).expect("scratch removed");
}

#[test]
fn a_bad_key_or_value_is_refused_by_name_before_anything_runs() {
    let dir = scratch("bad");
    let cases: [(&str, &[&str]); 7] = [
        ("fluid.max_cfl=0", &["fluid.max_cfl", "0.25", "16"]),
        (
            "fluid.max_cfll=3",
            &["fluid.max_cfll", "did you mean", "fluid.max_cfl"],
        ),
        ("fluid.max_cfl=fast", &["fluid.max_cfl", "takes a number"]),
        (
            "fluid.max_substeps=2.5",
            &["fluid.max_substeps", "whole number"],
        ),
        (
            "emitter.0.center=[0.5, 0.2]",
            &["emitter.0.center", "3 numbers"],
        ),
        // (a second key smuggled in after a line break is text, not a number)
        (
            "fluid.max_cfl=1\nfluid.dt = 5",
            &["fluid.max_cfl", "takes a number"],
        ),
        ("fluid.max_cfl", &["KEY=VALUE"]),
    ];
    for (i, (set, words)) in cases.iter().enumerate() {
        let out_dir = dir.join(format!("run{i}"));
        let out = run_with(&[set], &out_dir);
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{set:?} was taken: {err}");
        for w in *words {
            assert!(err.contains(w), "{set:?}: {w:?} not in {err}");
        }
        assert!(!err.contains("panicked"), "{set:?}: {err}");
        assert!(!out_dir.exists(), "{set:?}: the run's folder was made");
    }
    std::fs::remove_dir_all(&dir).expect("scratch removed");
}

#[test]
fn a_run_played_back_takes_no_scene_key() {
    // Frames already written have their scene: --set with --run is refused by name before
    // any folder is read or window opened.
    for cmd in [
        &["render", "--run", "no-such-run", "--out", "x.png"][..],
        &["view", "--run", "no-such-run"][..],
    ] {
        let mut args = cmd.to_vec();
        args.extend(["--set", "fluid.max_cfl=4"]);
        let out = plume(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        assert!(
            err.contains("--set") && err.contains("--run"),
            "{args:?}: {err}"
        );
    }
}
