//! Memory (issue 14): the solver's memory is known before it is built — the estimate equals
//! what it holds once every stage has run — and a grid the process cannot hold is refused
//! with a message, never an allocation abort.

use plume::scene::Scene;
use plume::sim::solver::memory::estimate_bytes;
use plume::sim::{Advection, PressureMethod};
use std::process::Command;

#[test]
fn the_estimate_is_what_the_solver_holds_after_its_stages_have_run() {
    for name in Scene::preset_names() {
        for (adv, vadv, vort, method) in [
            (
                Advection::SemiLagrangian,
                Advection::SemiLagrangian,
                0.0,
                PressureMethod::Multigrid,
            ),
            (
                Advection::MacCormack,
                Advection::MacCormack,
                3.0,
                PressureMethod::Multigrid,
            ),
            (
                Advection::MacCormack,
                Advection::SemiLagrangian,
                0.0,
                PressureMethod::RedBlackSor,
            ),
        ] {
            let mut scene = Scene::preset(name).expect("preset").with_resolution(20);
            scene.fluid.advection = adv;
            scene.fluid.velocity_advection = vadv;
            scene.fluid.vorticity = vort;
            scene.fluid.pressure_method = method;
            let mut s = scene.build().expect("builds");
            let hot = scene.emitters.iter().any(|e| e.temperature.is_some());
            for _ in 0..20 {
                s.try_step().expect("finite");
            }
            let fire = scene.emitters.iter().any(|e| e.burns());
            let est = estimate_bytes(
                scene.dims(),
                &scene.fluid,
                !scene.obstacles.is_empty(),
                hot,
                fire,
            );
            assert_eq!(
                est,
                s.memory_bytes() as u64,
                "{name} {adv:?}/{vadv:?} ε={vort} {method:?}"
            );
        }
    }
}

/// Runs `plume` under an address-space limit of `kib` KiB.
fn limited(kib: u64, args: &str) -> std::process::Output {
    Command::new("bash")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" {args}"))
        .arg(env!("CARGO_BIN_EXE_plume"))
        .output()
        .expect("bash runs")
}

#[test]
fn a_grid_the_process_cannot_hold_is_refused_with_a_message_not_an_abort() {
    let dir = std::env::temp_dir().join(format!("plume-oom-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    // 256³ needs about 2 GiB; the process may map 1.5 GiB.
    let o = limited(
        1_500_000,
        &format!("run --dims 256,256,256 --frames 2 --out {}", dir.display()),
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("256x256x256 grid needs about") && err.contains("address-space limit"),
        "{err}"
    );
    assert!(
        !err.contains("memory allocation") && !err.contains("panicked"),
        "{err}"
    );
    // Nothing was left behind: no frame, no temporary.
    let left: Vec<_> = std::fs::read_dir(&dir)
        .map(|r| r.filter_map(Result::ok).map(|e| e.file_name()).collect())
        .unwrap_or_default();
    assert!(
        left.iter().all(|n| n == ".plume.lock"),
        "left behind: {left:?}"
    );
    // The same run fits without the limit's squeeze at a smaller size.
    let o = limited(
        1_500_000,
        &format!(
            "run --size 24 --frames 1 --overwrite --out {}",
            dir.display()
        ),
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn near_the_limit_a_run_or_a_benchmark_either_fits_or_is_refused_never_aborts() {
    // Limits around what a 96³ run needs (the solver, its first step's hierarchy build, the
    // export, the benchmark's bandwidth buffers): each outcome is a finished run or a
    // refusal with a message, never an allocation abort.
    let dir = std::env::temp_dir().join(format!("plume-near-{}", std::process::id()));
    let (mut fitted, mut refused) = (0, 0);
    for kib in (160_000..=420_000).step_by(20_000) {
        for args in [
            format!(
                "run --size 96 --frames 1 --overwrite --out {}",
                dir.display()
            ),
            "bench --size 96 --steps 1 --warmup 1".to_string(),
        ] {
            let o = limited(kib, &args);
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(
                !err.contains("memory allocation") && !err.contains("panicked"),
                "{kib} KiB, {args}: {err}"
            );
            match o.status.code() {
                Some(0) => fitted += 1,
                Some(1) if err.contains("needs about") => refused += 1,
                c => panic!("{kib} KiB, {args}: exit {c:?}: {err}"),
            }
        }
    }
    // The sweep crosses the threshold: both outcomes occur.
    assert!(
        fitted > 0 && refused > 0,
        "fitted {fitted}, refused {refused}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
