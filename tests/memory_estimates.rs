//! Memory estimates are upper bounds (issue 47, item 5): what `run` checks before it starts
//! is at least what the process then holds at its peak, beyond its code and libraries (the
//! peak of the same command on an 8³ grid), for `--upres 2`, `3` and `4`, with and without
//! fire, for each format. Before, `--upres 4` was estimated at 750 MiB and peaked at
//! 825 MB, so a run under a 1.5 GB limit was accepted and failed after 13.5 s; here the
//! detail pass counted 8 bytes a fine cell and held 23.

mod common;

use clap::Parser;
use plume::cli::{Cli, Command as Cmd};
use std::process::Command;

/// The `run` command line `args`: what its memory check counts (KiB, with the check's
/// margin of an eighth) and its peak resident memory (KiB).
fn estimate_and_peak(args: &[&str], out: &std::path::Path) -> (i64, i64) {
    let mut full = vec!["plume", "run"];
    full.extend_from_slice(args);
    full.extend_from_slice(&["--backend", "cpu", "--out", out.to_str().expect("utf-8")]);
    let Some(Cmd::Run(a)) = Cli::parse_from(&full).command else {
        panic!("a run command line")
    };
    let need = plume::commands::run_memory_of(&a).expect("estimate");
    let _ = std::fs::remove_dir_all(out);
    let (ok, peak) = common::peak_kib(Command::new(env!("CARGO_BIN_EXE_plume")).args(&full[1..]));
    assert!(ok, "{full:?} runs");
    ((need + need / 8) as i64 / 1024, peak)
}

#[test]
fn run_estimates_at_least_what_it_holds_with_upres_2_3_and_4() {
    let dir = std::env::temp_dir().join(format!("plume-mem-est-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("scratch");
    let out = dir.join("run");
    let (_, base) = estimate_and_peak(&["--size", "8", "--frames", "2"], &out);
    let mut worst: f64 = 0.0;
    for scene in ["plume", "campfire"] {
        for (k, format) in [("2", "vdb"), ("3", "npy,vti"), ("4", "vdb")] {
            let args = [
                "--scene", scene, "--size", "40", "--upres", k, "--frames", "3", "--format", format,
            ];
            let (est, peak) = estimate_and_peak(&args, &out);
            let held = peak - base;
            eprintln!("{scene} ×{k} {format}: estimated {est} KiB, held {held} KiB (peak {peak})");
            worst = worst.max(held as f64 / est as f64);
            assert!(
                held <= est,
                "{scene} --upres {k} --format {format}: the process held {held} KiB beyond its \
                 code and libraries ({peak} KiB at its peak, {base} KiB on 8³), the check \
                 counted {est} KiB"
            );
        }
    }
    // An upper bound that is not loose beyond use: within three times.
    assert!(
        worst > 0.33,
        "the estimates are more than three times what runs hold"
    );
    let _ = std::fs::remove_dir_all(&dir);
}
