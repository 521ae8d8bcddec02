//! `plume render --run DIR`: a run folder's frames drawn as `plume render` draws the
//! simulation (the same picture, bit for bit, from exact files), as one image, a PNG
//! sequence or a flipbook; and every mistake refused with its reason, writing nothing.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn plume(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("the plume binary runs")
}

fn ok(o: Output) -> String {
    let text = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(
        o.status.success(),
        "plume failed: {}{text}",
        String::from_utf8_lossy(&o.stderr)
    );
    text
}

fn err(o: Output) -> String {
    assert!(!o.status.success(), "plume should have refused");
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-rrun-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch");
    d
}

fn s(p: &Path) -> &str {
    p.to_str().expect("utf-8 path")
}

/// A campfire run, 2 frames 10 steps apart, on the CPU.
fn run(dir: &Path, extra: &[&str]) {
    let mut args = vec![
        "run",
        "--scene",
        "campfire",
        "--size",
        "20",
        "--frames",
        "2",
        "--every",
        "10",
        "--backend",
        "cpu",
        "--out",
    ];
    args.push(s(dir));
    args.extend_from_slice(extra);
    ok(plume(&args));
}

const SIZE: [&str; 4] = ["--width", "160", "--height", "120"];

#[test]
fn a_frame_of_a_run_is_the_picture_of_the_simulation_at_its_step() {
    let d = scratch("same");
    let dir = d.join("run");
    run(
        &dir,
        &["--format", "npy", "--fields", "density,temperature,flame"],
    );
    let from_run = d.join("from_run.png");
    let said = ok(plume(
        &[
            &["render", "--run", s(&dir), "--out", s(&from_run)][..],
            &SIZE,
        ]
        .concat(),
    ));
    assert!(
        said.contains("step 20"),
        "the last frame by default: {said}"
    );
    let simulated = d.join("simulated.png");
    ok(plume(
        &[
            &[
                "render",
                "--scene",
                "campfire",
                "--size",
                "20",
                "--steps",
                "20",
                "--backend",
                "cpu",
                "--out",
            ][..],
            &[s(&simulated)],
            &SIZE,
        ]
        .concat(),
    ));
    let (a, b) = (
        std::fs::read(&from_run).expect("png"),
        std::fs::read(&simulated).expect("png"),
    );
    assert!(
        a == b,
        "the run's frame 2 and the simulation at step 20 draw differently"
    );
    // Frame 1 is another picture (the fire has moved on since).
    let first = d.join("first.png");
    ok(plume(
        &[
            &[
                "render",
                "--run",
                s(&dir),
                "--frame",
                "1",
                "--out",
                s(&first),
            ][..],
            &SIZE,
        ]
        .concat(),
    ));
    assert!(
        std::fs::read(&first).expect("png") != a,
        "frame 1 drew as frame 2"
    );
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn every_frame_of_a_z_up_vdb_run_into_a_flipbook_and_a_sequence() {
    let d = scratch("book");
    let dir = d.join("run");
    run(
        &dir,
        &["--up", "z", "--half", "--fields", "density,flame,velocity"],
    );
    let book = d.join("book.gif");
    let out = ok(plume(
        &[
            &[
                "render",
                "--run",
                s(&dir),
                "--every",
                "1",
                "--json",
                "--out",
                s(&book),
            ][..],
            &SIZE,
        ]
        .concat(),
    ));
    let report: serde_json::Value = serde_json::from_str(out.trim()).expect("one JSON object");
    assert_eq!(report["frames"], 2);
    assert_eq!(report["read_from"], "vdb");
    assert_eq!(
        report["dims"],
        serde_json::json!([13, 20, 13]),
        "the y-up grid"
    );
    assert!(std::fs::metadata(&book).expect("gif").len() > 1000);
    let seq = d.join("seq");
    ok(plume(
        &[
            &[
                "render",
                "--run",
                s(&dir),
                "--every",
                "1",
                "--streamlines",
                "--out",
                s(&seq),
            ][..],
            &SIZE,
        ]
        .concat(),
    ));
    for n in ["frame_0001.png", "frame_0002.png"] {
        assert!(seq.join(n).is_file(), "{n} missing");
    }
    // The z-up files are turned back: the picture matches the y-up run's, within half
    // precision's rounding (a few levels of a channel where the smoke is).
    let y_dir = d.join("run_y");
    run(&y_dir, &["--fields", "density,flame,velocity"]);
    let (z_png, y_png) = (d.join("z.png"), d.join("y.png"));
    ok(plume(
        &[&["render", "--run", s(&dir), "--out", s(&z_png)][..], &SIZE].concat(),
    ));
    ok(plume(
        &[
            &["render", "--run", s(&y_dir), "--out", s(&y_png)][..],
            &SIZE,
        ]
        .concat(),
    ));
    let (z, y) = (pixels(&z_png), pixels(&y_png));
    assert_eq!(z.len(), y.len());
    let most = z
        .iter()
        .zip(&y)
        .map(|(a, b)| a.abs_diff(*b))
        .max()
        .unwrap_or(0);
    let lit = y.iter().filter(|&&v| v > 60).count();
    assert!(
        lit > 100,
        "the picture shows the fire ({lit} bright channels)"
    );
    assert!(
        most <= 4,
        "the z-up run draws unlike the y-up one: a channel differs by {most}"
    );
    let _ = std::fs::remove_dir_all(&d);
}

/// The RGB(A) bytes of a PNG.
fn pixels(p: &Path) -> Vec<u8> {
    let file = std::fs::File::open(p).expect("png");
    let mut r = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).expect("pixels");
    buf.truncate(info.buffer_size());
    buf
}

#[test]
fn mistakes_are_refused_and_write_nothing() {
    let d = scratch("refused");
    let dir = d.join("run");
    run(&dir, &["--fields", "velocity"]);
    let dens = d.join("dens");
    run(&dens, &["--fields", "density"]);
    let png = d.join("x.png");
    let nothing = d.join("nothing");
    let cases: [(Vec<&str>, &str); 6] = [
        (vec!["--run", s(&nothing)], "there is no such folder"),
        (vec!["--run", s(&d)], "there is no manifest.json in it"),
        (
            vec!["--run", s(&dens), "--frame", "3"],
            "has no frame 3: it lists 2 frames",
        ),
        (
            vec!["--run", s(&dir)],
            "wrote no field the picture draws (it wrote velocity)",
        ),
        (
            vec!["--run", s(&dir), "--size", "30"],
            "cannot be used with",
        ),
        (vec!["--frame", "2", "--steps", "3"], "--run"),
    ];
    for (args, says) in cases {
        let e = err(plume(&[&["render", "--out", s(&png)][..], &args].concat()));
        assert!(e.contains(says), "{args:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
        assert!(!png.exists(), "{args:?} wrote {}", png.display());
    }
    let e = err(plume(&[
        "render",
        "--run",
        s(&dens),
        "--streamlines",
        "--out",
        s(&png),
    ]));
    assert!(e.contains("--streamlines needs the velocity"), "{e}");
    assert!(!png.exists());
    let _ = std::fs::remove_dir_all(&d);
}
