//! `plume bench --kernels`: every kernel of a GPU step timed on the card's clock (llvmpipe
//! here), its rows adding up to what the step reports as a whole, and a clear refusal where
//! there are no kernels to time.

use std::collections::BTreeSet;
use std::process::Command;

fn bench(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(["bench", "--size", "16", "--warmup", "1", "--steps", "1"])
        .args(args)
        .output()
        .expect("plume runs")
}

fn json(args: &[&str]) -> serde_json::Value {
    let o = bench(args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("JSON")
}

fn num(v: &serde_json::Value, key: &str) -> f64 {
    v[key]
        .as_f64()
        .unwrap_or_else(|| panic!("{key} is not a number: {}", v[key]))
}

#[test]
fn the_kernels_rows_add_up_to_the_step() {
    let timed = json(&["--backend", "gpu", "--kernels", "--json"]);
    let rows = timed["kernels"].as_array().expect("a list of kernels");
    assert!(rows.len() >= 10, "{} rows", rows.len());
    // One measured step: the rows' dispatches and bytes are the step's, exactly.
    let sum = |key: &str| rows.iter().map(|r| num(r, key)).sum::<f64>();
    assert_eq!(
        sum("dispatches_per_step"),
        num(&timed, "gpu_dispatches_per_step")
    );
    assert_eq!(sum("bytes_per_step"), num(&timed, "bytes_per_step"));
    // The same clock times the stages: the kernels' times add up to theirs.
    let stages: f64 = timed["stages"]
        .as_object()
        .expect("stages")
        .values()
        .map(|v| v.as_f64().expect("ms"))
        .sum();
    let kernels = sum("ms_per_step");
    assert!(
        (kernels - stages).abs() <= 0.1 * stages + 0.5,
        "kernels {kernels} ms, stages {stages} ms"
    );
    // Each row: a real kernel in a real stage, its rate and floor from its own figures,
    // the longest first.
    let sources: BTreeSet<String> = std::fs::read_dir("shaders/sim")
        .expect("shaders/sim")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".comp").map(str::to_string)
        })
        .collect();
    let bw = num(&timed, "memory_bandwidth_gb_s");
    let mut last = f64::INFINITY;
    for r in rows {
        let kernel = r["kernel"].as_str().expect("kernel");
        assert!(sources.contains(kernel), "{kernel} is no kernel");
        let stage = r["stage"].as_str().expect("stage");
        assert!(
            timed["stages"].get(stage).is_some() || stage == "substeps",
            "{stage} is no stage"
        );
        let (ms, bytes, d) = (
            num(r, "ms_per_step"),
            num(r, "bytes_per_step"),
            num(r, "dispatches_per_step"),
        );
        assert!(ms >= 0.0 && ms <= last, "{r}");
        last = ms;
        assert!(d >= 1.0 && num(r, "items") >= 1.0, "{r}");
        let floor = num(r, "floor_ms");
        assert!(
            (floor - bytes / (bw * 1e6)).abs() <= 1e-9 * (1.0 + floor),
            "{r}"
        );
        if ms > 0.0 {
            let rate = num(r, "model_gb_s");
            assert!(
                (rate - bytes / (ms * 1e6)).abs() <= 1e-9 * (1.0 + rate),
                "{r}"
            );
            let per = num(r, "us_per_dispatch");
            assert!((per - ms * 1e3 / d).abs() <= 1e-9 * (1.0 + per), "{r}");
        }
    }
    // The projection's passes are there, each V-cycle level by its size.
    for k in ["divergence", "laplace", "cg_step", "gradient", "smooth"] {
        assert!(
            rows.iter()
                .any(|r| r["stage"] == "project" && r["kernel"] == k),
            "no {k} in project"
        );
    }
    // The clock changes what is timed, not what is worked out.
    let plain = json(&["--backend", "gpu", "--json"]);
    assert!(plain["kernels"].is_null(), "{}", plain["kernels"]);
    for key in ["pressure_iterations", "pressure_residual", "bytes_per_step"] {
        assert_eq!(plain[key], timed[key], "{key}");
    }
}

#[test]
fn kernels_on_the_cpu_backend_is_refused_by_name() {
    let o = bench(&["--backend", "cpu", "--kernels"]);
    assert_eq!(o.status.code(), Some(1));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--kernels") && err.contains("--backend gpu"),
        "{err}"
    );
    assert!(!err.contains("panicked"), "{err}");
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
}
