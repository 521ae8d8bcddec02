//! Flipbooks stream and check first: `render --every K --out x.gif` encodes each frame into
//! a temporary as it comes (the process's memory does not grow with the frame count), the
//! output is checked before the first step (a folder, a file past the cap or the disk's free
//! space: refused at once with the figures), and the file appears whole at the end.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-flip-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch");
    d
}

/// Runs `plume render` for a flipbook of `steps` frames of 256×192 into `out`; returns the
/// exit status's success and the process's peak resident memory in KiB.
fn flipbook(out: &Path, steps: u32) -> (bool, i64) {
    common::peak_kib(
        Command::new(env!("CARGO_BIN_EXE_plume"))
            .args([
                "render", "--size", "12", "--width", "256", "--height", "192",
            ])
            .args(["--steps", &steps.to_string(), "--every", "1", "--out"])
            .arg(out),
    )
}

#[test]
fn a_long_flipbook_takes_no_more_memory_than_a_short_one() {
    let dir = scratch("memory");
    let (short, long) = (dir.join("short.gif"), dir.join("long.gif"));
    let (ok_short, rss_short) = flipbook(&short, 100);
    let (ok_long, rss_long) = flipbook(&long, 900);
    assert!(ok_short && ok_long);
    let (a, b) = (
        std::fs::metadata(&short).expect("short").len(),
        std::fs::metadata(&long).expect("long").len(),
    );
    // The long file is many MiB larger; held in memory it would show in the peak.
    assert!(b > a + 8 * 1024 * 1024, "files {a} and {b} bytes");
    assert!(
        rss_long - rss_short < 6 * 1024,
        "peak memory {rss_short} KiB for 100 frames, {rss_long} KiB for 900 (files {a} and {b} \
         bytes)"
    );
    // No temporary left beside them.
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_flipbook_that_cannot_be_written_is_refused_before_the_first_step() {
    let dir = scratch("refused");
    let plume = |out: &Path, steps: &str| {
        let t = std::time::Instant::now();
        let o = Command::new(env!("CARGO_BIN_EXE_plume"))
            .args(["render", "--size", "16", "--width", "64", "--height", "48"])
            .args(["--steps", steps, "--every", "1", "--out"])
            .arg(out)
            .output()
            .expect("plume runs");
        (o, t.elapsed())
    };
    // A folder named like a GIF: refused at once, the folder and its file untouched.
    let folder = dir.join("taken.gif");
    std::fs::create_dir_all(&folder).expect("folder");
    std::fs::write(folder.join("mine.txt"), b"mine").expect("file");
    let (o, took) = plume(&folder, "100000");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains("is a folder"), "{err}");
    assert!(took.as_secs() < 20, "{took:?}: after the simulation");
    assert_eq!(
        std::fs::read(folder.join("mine.txt")).expect("kept"),
        b"mine"
    );
    // A million frames: past the cap, refused with the figures before anything runs.
    let huge = dir.join("huge.gif");
    let (o, took) = plume(&huge, "1000000");
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("1000000 frames of 64×48 may take up to") && err.contains("GiB"),
        "{err}"
    );
    assert!(took.as_secs() < 20, "{took:?}");
    let names: Vec<String> = std::fs::read_dir(&dir)
        .expect("dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["taken.gif"], "nothing else written");
    let _ = std::fs::remove_dir_all(&dir);
}
