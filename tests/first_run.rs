//! What a new user meets first: the bare command with the viewer's flags, the viewer without
//! a display, image formats, `--half`, and the progress display on a terminal and in a pipe.

mod common;

use std::process::{Command, Output};

fn plume(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("the plume binary runs")
}

/// `plume ARGS` with no display in the environment.
fn plume_headless(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .env_remove("DISPLAY")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("the plume binary runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn temp_dir(tag: &str) -> std::path::PathBuf {
    let d = common::temp_dir(&format!("first-{tag}"));
    std::fs::create_dir_all(&d).expect("temp dir");
    d
}

/// The no-display message: what is missing and what to do instead, in two lines, with no
/// path into cargo's registry and no panic.
fn assert_no_display_message(o: &Output) {
    let err = stderr(o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: no display"), "{err}");
    assert!(
        err.contains("DISPLAY") && err.contains("WAYLAND_DISPLAY"),
        "{err}"
    );
    // The ways forward name the command as it was run, so they work as printed.
    let me = env!("CARGO_BIN_EXE_plume");
    for way in [
        format!("xvfb-run -a {me} view"),
        format!("{me} render"),
        format!("{me} run"),
    ] {
        assert!(err.contains(&way), "'{way}' not offered: {err}");
    }
    assert!(err.lines().count() <= 2, "{err}");
    for bad in [".cargo", "registry", ".rs:", "panicked"] {
        assert!(!err.contains(bad), "'{bad}' in: {err}");
    }
}

#[test]
fn without_a_display_the_viewer_says_what_is_missing_and_what_to_do() {
    assert_no_display_message(&plume_headless(&[]));
    assert_no_display_message(&plume_headless(&["view", "--frames", "1"]));
}

#[test]
fn a_display_that_cannot_be_reached_is_named_without_a_source_path() {
    let o = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(["view", "--frames", "1"])
        .env("DISPLAY", ":4917")
        .env_remove("WAYLAND_DISPLAY")
        .env_remove("WAYLAND_SOCKET")
        .output()
        .expect("runs");
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.starts_with("error: cannot open a window: "), "{err}");
    assert!(err.contains("xvfb-run"), "{err}");
    for bad in [".cargo", "registry", ".rs:", "panicked"] {
        assert!(!err.contains(bad), "'{bad}' in: {err}");
    }
}

#[test]
fn the_bare_command_takes_the_viewers_flags() {
    // `plume --scene jets` is `plume view --scene jets`: it gets as far as the display.
    assert_no_display_message(&plume_headless(&[
        "--scene", "jets", "--size", "16", "--slice",
    ]));
    // The scene is read before the window is opened: a missing one is named.
    let o = plume_headless(&["--scene", "no_such_scene"]);
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("no_such_scene") && err.contains("presets"),
        "{err}"
    );
    // Bad values of the view's flags are clap errors naming the flag.
    let o = plume_headless(&["--size", "1"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stderr(&o).contains("--size"), "{}", stderr(&o));
    // The help lists them.
    let help = String::from_utf8_lossy(&plume(&["--help"]).stdout).into_owned();
    for f in ["--scene", "--size", "--slice", "--record", "Commands:"] {
        assert!(help.contains(f), "{f} missing from:\n{help}");
    }
}

#[test]
fn render_writes_jpeg_for_jpg_names_and_refuses_other_extensions() {
    let dir = temp_dir("jpeg");
    for name in ["smoke.jpg", "smoke.JPEG"] {
        let path = dir.join(name);
        let o = plume(
            &[
                "render", "--size", "12", "--steps", "5", "--width", "64", "--height", "40",
                "--out",
            ]
            .into_iter()
            .chain([path.to_str().expect("utf-8")])
            .collect::<Vec<_>>(),
        );
        assert!(o.status.success(), "{}", stderr(&o));
        let bytes = std::fs::read(&path).expect("written");
        assert_eq!(&bytes[..2], &[0xFF, 0xD8], "not a JPEG (SOI marker)");
        let mut dec = jpeg_decoder::Decoder::new(&bytes[..]);
        let px = dec.decode().expect("a JPEG that a JPEG decoder reads");
        let info = dec.info().expect("header");
        assert_eq!((info.width, info.height), (64, 40));
        assert_eq!(px.len(), 64 * 40 * 3);
        // Not one flat colour: the background gradient at least.
        let lo = px.iter().min().expect("pixels");
        let hi = px.iter().max().expect("pixels");
        assert!(hi - lo > 10, "flat image");
    }
    for bad in ["smoke.gif", "smoke"] {
        let path = dir.join(bad);
        let o = plume(
            &["render", "--size", "12", "--steps", "1", "--out"]
                .into_iter()
                .chain([path.to_str().expect("utf-8")])
                .collect::<Vec<_>>(),
        );
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert!(err.contains(".png") && err.contains(".jpg"), "{err}");
        assert!(err.contains(bad), "{err}");
        assert!(!path.exists());
    }
    let names: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
    assert_eq!(names.len(), 2, "only the two JPEGs: {names:?}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn half_precision_is_refused_without_vdb_and_noted_beside_other_formats() {
    let dir = temp_dir("half");
    let out = dir.join("a");
    let o = plume(
        &[
            "run", "--size", "8", "--frames", "1", "--format", "vti,npy", "--half", "--out",
        ]
        .into_iter()
        .chain([out.to_str().expect("utf-8")])
        .collect::<Vec<_>>(),
    );
    let err = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(err.contains(".vdb files only"), "{err}");
    assert!(!out.exists(), "nothing written");

    let o = plume(
        &[
            "run", "--size", "8", "--frames", "1", "--format", "vdb,npy", "--half", "--out",
        ]
        .into_iter()
        .chain([out.to_str().expect("utf-8")])
        .collect::<Vec<_>>(),
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    assert!(
        err.contains("note: --half") && err.contains("32-bit"),
        "{err}"
    );
    // The .npy really is 32-bit, as the note says.
    let npy = std::fs::read(out.join("plume_density_0001.npy")).expect("npy");
    let header = String::from_utf8_lossy(&npy[..128]);
    assert!(header.contains("'<f4'"), "{header}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn run_shows_a_progress_bar_on_a_terminal_and_lines_in_a_pipe() {
    let dir = temp_dir("progress");
    // Piped: one plain line per frame.
    let piped = dir.join("piped");
    let o = plume(
        &[
            "run", "--size", "8", "--frames", "3", "--format", "npy", "--out",
        ]
        .into_iter()
        .chain([piped.to_str().expect("utf-8")])
        .collect::<Vec<_>>(),
    );
    let err = stderr(&o);
    assert!(o.status.success(), "{err}");
    for n in 1..=3 {
        assert!(err.contains(&format!("frame {n}/3 t = ")), "{err}");
    }
    assert!(!err.contains('█'), "{err}");
    // On a terminal (a pseudo-terminal made by util-linux's `script`): a bar.
    let tty = dir.join("tty");
    let cmd = format!(
        "{} run --size 8 --frames 3 --format npy --out {}",
        env!("CARGO_BIN_EXE_plume"),
        tty.display()
    );
    let o = Command::new("script")
        .args(["-qec", &cmd, "/dev/null"])
        .output()
        .unwrap_or_else(|e| panic!("cannot run `script` (Debian package bsdutils): {e}"));
    let all = String::from_utf8_lossy(&o.stdout).into_owned() + &stderr(&o);
    assert!(o.status.success(), "{all}");
    assert!(all.contains('█'), "no bar drawn:\n{all}");
    assert!(all.contains("frame 3/3"), "{all}");
    assert!(
        !all.contains("frame 1/3 t = "),
        "plain lines on a terminal:\n{all}"
    );
    assert!(tty.join("plume_density_0003.npy").exists());
    std::fs::remove_dir_all(&dir).ok();
}

/// One frame of a flipbook: width, height, delay in 1/100 s, RGBA pixels.
type GifFrame = (u16, u16, u16, Vec<u8>);

/// The frames of a flipbook, read by the gif crate's decoder, and whether it loops forever.
fn read_gif(path: &std::path::Path) -> (Vec<GifFrame>, bool) {
    let file = std::fs::File::open(path).expect("the flipbook exists");
    let mut opts = gif::DecodeOptions::new();
    opts.set_color_output(gif::ColorOutput::RGBA);
    let mut dec = opts.read_info(file).expect("a GIF a GIF decoder reads");
    let mut frames = vec![];
    while let Some(f) = dec.read_next_frame().expect("a whole frame") {
        frames.push((f.width, f.height, f.delay, f.buffer.to_vec()));
    }
    (frames, dec.repeat() == gif::Repeat::Infinite)
}

/// `render --every K --out x.gif` writes one looping animated GIF, one frame every K steps,
/// that plays at real time (the delays add up to the simulated time, every one at least
/// 1/50 s) or at `--fps`; the smoke moves between frames; a bad rate is refused and leaves
/// no file.
#[test]
fn render_every_writes_a_flipbook_that_plays_at_real_time() {
    let dir = temp_dir("flipbook");
    let path = dir.join("smoke.gif");
    let p = path.to_str().expect("utf-8");
    let common = [
        "render", "--size", "16", "--width", "48", "--height", "32", "--steps", "24", "--every",
        "3", "--out", p,
    ];
    let o = plume(&common);
    assert!(o.status.success(), "{}", stderr(&o));
    let (frames, loops) = read_gif(&path);
    assert!(loops, "the flipbook does not loop");
    assert_eq!(frames.len(), 8);
    assert!(frames.iter().all(|f| (f.0, f.1) == (48, 32)));
    // 24 steps of 1/60 s: 40/100 s in all, each frame held 5/100 s.
    let delays: Vec<u16> = frames.iter().map(|f| f.2).collect();
    assert_eq!(
        delays.iter().map(|&d| u32::from(d)).sum::<u32>(),
        40,
        "{delays:?}"
    );
    assert!(delays.iter().all(|&d| d >= 2), "{delays:?}");
    assert_ne!(
        frames[0].3, frames[7].3,
        "the first and last frames are the same"
    );
    // At a chosen rate: 1/10 s a frame.
    let o = plume(&[&common[..], &["--fps", "10"]].concat());
    assert!(o.status.success(), "{}", stderr(&o));
    let (frames, _) = read_gif(&path);
    assert!(
        frames.iter().all(|f| f.2 == 10),
        "{:?}",
        frames.iter().map(|f| f.2).collect::<Vec<_>>()
    );
    // A rate GIF cannot show is refused before anything is drawn.
    let other = dir.join("fast.gif");
    let o = plume(&[
        "render",
        "--size",
        "16",
        "--steps",
        "4",
        "--every",
        "2",
        "--fps",
        "60",
        "--out",
        other.to_str().expect("utf-8"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--fps"), "{}", stderr(&o));
    assert!(!other.exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// The Debian packages are listed in one place: `scripts/packages.sh` prints them when run
/// (every tool the tests call among them), and the README installs them through it instead
/// of a copy of the list.
#[test]
fn the_package_list_has_one_source() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = Command::new("bash")
        .arg(format!("{root}/scripts/packages.sh"))
        .output()
        .expect("bash runs");
    assert!(out.status.success(), "{}", stderr(&out));
    let list = String::from_utf8_lossy(&out.stdout).into_owned();
    let names: Vec<&str> = list.split_whitespace().collect();
    for needed in [
        "gcc",
        "libgl1-mesa-dri",
        "xvfb",
        "python3-openvdb",
        "python3-vtk9",
        "blender",
    ] {
        assert!(names.contains(&needed), "{needed} missing from {names:?}");
    }
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README");
    assert!(readme.contains("sudo apt-get install $(bash scripts/packages.sh)"));
    // No second, hand-kept list: no line of the README names half the packages.
    for line in readme.lines() {
        let named = names
            .iter()
            .filter(|n| {
                line.split_whitespace()
                    .any(|w| w.trim_matches(|c: char| !c.is_alphanumeric() && c != '-') == **n)
            })
            .count();
        assert!(
            named < names.len() / 2,
            "a copy of the package list: {line}"
        );
    }
}
