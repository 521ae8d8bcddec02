//! `scripts/run` (`cargo run --release`) and `scripts/test` (`cargo test --release`) share one
//! build: every crate the binary uses is built with the same features in both, so the tests
//! after the viewer compile only what the tests add. Cargo builds a crate again when a
//! dev-dependency turns on one more of its features (criterion turned on serde's `alloc`, and
//! serde and all that depends on it were compiled twice); the feature pins in Cargo.toml
//! prevent that, and this test finds any crate whose features differ between the two.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// Each package (name and version) with the feature sets it is built with, from `cargo tree`.
fn features(with_dev: bool) -> BTreeMap<String, BTreeSet<String>> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["tree", "--locked", "--prefix", "none", "-f", "{p} {f}"]);
    cmd.current_dir(env!("CARGO_MANIFEST_DIR"));
    if !with_dev {
        cmd.args(["-e", "no-dev"]);
    }
    let out = cmd.output().expect("cargo tree runs");
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut map: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in String::from_utf8_lossy(&out.stdout).lines() {
        let mut words = line.split_whitespace();
        let (Some(name), Some(version)) = (words.next(), words.next()) else {
            continue;
        };
        // What follows the version: "(path)", "(proc-macro)", "(*)" and the feature list.
        let feats: String = words
            .filter(|w| !w.starts_with('('))
            .collect::<Vec<_>>()
            .join(",");
        map.entry(format!("{name} {version}"))
            .or_default()
            .insert(feats);
    }
    map
}

#[test]
fn the_binary_and_the_tests_build_each_crate_with_the_same_features() {
    let binary = features(false);
    let tests = features(true);
    assert!(
        binary.len() > 100 && binary.keys().any(|k| k.starts_with("rayon ")),
        "cargo tree listed too little: {binary:?}"
    );
    let differ: Vec<String> = binary
        .iter()
        .filter_map(|(pkg, feats)| {
            let t = tests.get(pkg)?;
            (t != feats).then(|| format!("{pkg}: binary {feats:?}, tests {t:?}"))
        })
        .collect();
    assert!(
        differ.is_empty(),
        "these crates would be compiled twice (once for `cargo build --release`, again for \
         `cargo test --release`); pin the tests' features in Cargo.toml's [dependencies]:\n{}",
        differ.join("\n")
    );
}
