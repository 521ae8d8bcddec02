//! Nothing lost, nothing mixed (issue 14): output folders, the lock, stale temporaries,
//! special files as scenes, array lengths, huge numbers, negative flags — each as a user
//! meets it, through the binary.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn plume(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("the plume binary runs")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-rf-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn names(dir: &Path) -> BTreeSet<String> {
    std::fs::read_dir(dir)
        .expect("folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect()
}

/// The manifest's frames and the files they list.
fn manifest(dir: &Path) -> (Vec<u64>, BTreeSet<String>, serde_json::Value) {
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    let frames = m["frames"].as_array().expect("frames");
    let numbers = frames
        .iter()
        .map(|f| f["frame"].as_u64().expect("n"))
        .collect();
    let files = frames
        .iter()
        .flat_map(|f| f["files"].as_array().expect("files").clone())
        .map(|f| f.as_str().expect("name").to_string())
        .collect();
    (numbers, files, m)
}

/// The frame files on disk (everything but the manifest, the lock and `keep`).
fn frame_files(dir: &Path, keep: &[&str]) -> BTreeSet<String> {
    names(dir)
        .into_iter()
        .filter(|n| n != "manifest.json" && n != ".plume.lock" && !keep.contains(&n.as_str()))
        .collect()
}

fn run(dir: &Path, extra: &[&str]) -> Output {
    let d = dir.display().to_string();
    let mut args = vec!["run", "--out", d.as_str()];
    args.extend_from_slice(extra);
    plume(&args)
}

#[test]
fn a_second_run_into_a_used_folder_is_refused_and_the_first_run_is_untouched() {
    let dir = scratch("refuse");
    let first = run(
        &dir,
        &["--size", "16", "--frames", "5", "--format", "vdb,npy"],
    );
    assert!(first.status.success(), "{}", err(&first));
    let before = names(&dir);
    let o = run(
        &dir,
        &[
            "--size", "12", "--scene", "jets", "--frames", "3", "--format", "npy",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(
        e.contains(
            "already holds manifest.json of scene 'plume' on a 16×16×16 grid listing 5 frames"
        ) && !e.contains("named like frames")
            && e.contains("--overwrite")
            && e.contains("--resume"),
        "{e}"
    );
    assert_eq!(names(&dir), before, "the refused run changed the folder");
    let (n, files, _) = manifest(&dir);
    assert_eq!(n, vec![1, 2, 3, 4, 5]);
    assert_eq!(
        files,
        frame_files(&dir, &[]),
        "the manifest lists exactly the files"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn overwrite_removes_exactly_that_runs_files() {
    let dir = scratch("overwrite");
    assert!(run(
        &dir,
        &["--size", "16", "--frames", "6", "--format", "vdb,npy"]
    )
    .status
    .success());
    std::fs::write(dir.join("notes.txt"), b"mine").expect("a user's file");
    let o = run(
        &dir,
        &[
            "--size",
            "12",
            "--scene",
            "jets",
            "--frames",
            "2",
            "--format",
            "npy",
            "--overwrite",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    let (n, files, m) = manifest(&dir);
    assert_eq!(n, vec![1, 2]);
    assert_eq!(m["scene"]["name"], "jets");
    assert_eq!(
        files,
        frame_files(&dir, &["notes.txt"]),
        "old frames gone, new ones listed"
    );
    assert_eq!(std::fs::read(dir.join("notes.txt")).expect("kept"), b"mine");
    std::fs::remove_dir_all(&dir).ok();
}

/// The manifest records each file's size as written, and `--overwrite` (and `--resume`)
/// deletes a listed file only while it is still that: a manifest edited by hand to list a
/// user's file (`user.txt` added to a frame's files) or a frame file the user has since
/// replaced with their own keeps them. Before, any in-folder file the manifest listed was
/// deleted.
#[test]
fn overwrite_deletes_only_files_that_are_still_what_plume_wrote() {
    let dir = scratch("overwrite-sizes");
    assert!(
        run(&dir, &["--size", "12", "--frames", "3", "--format", "npy"])
            .status
            .success()
    );
    let path = dir.join("manifest.json");
    let mut m: serde_json::Value =
        serde_json::from_slice(&std::fs::read(&path).expect("manifest")).expect("JSON");
    // Each file's size, as written.
    for e in m["frames"].as_array().expect("frames") {
        let files = e["files"].as_array().expect("files");
        let sizes = e["sizes"].as_array().expect("sizes recorded");
        assert_eq!(files.len(), sizes.len());
        for (f, n) in files.iter().zip(sizes) {
            let len = std::fs::metadata(dir.join(f.as_str().expect("name")))
                .expect("file")
                .len();
            assert_eq!(n.as_u64(), Some(len), "{f}");
        }
    }
    std::fs::write(dir.join("user.txt"), b"mine").expect("a user's file");
    m["frames"][0]["files"]
        .as_array_mut()
        .expect("files")
        .push("user.txt".into());
    std::fs::write(&path, serde_json::to_vec_pretty(&m).expect("JSON")).expect("edit");
    // A frame file the user replaced with their own, of another size.
    let theirs = m["frames"][2]["files"][0]
        .as_str()
        .expect("name")
        .to_string();
    std::fs::write(dir.join(&theirs), b"my own array").expect("replace");
    let o = run(
        &dir,
        &[
            "--size",
            "12",
            "--frames",
            "1",
            "--format",
            "vdb",
            "--overwrite",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read(dir.join("user.txt")).expect("kept"), b"mine");
    assert_eq!(
        std::fs::read(dir.join(&theirs)).expect("kept"),
        b"my own array"
    );
    // What was still Plume's is gone.
    let left: Vec<String> = names(&dir)
        .into_iter()
        .filter(|n| n.ends_with(".npy"))
        .collect();
    assert_eq!(
        left,
        vec![theirs],
        "only the replaced file is left of the old run"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn resume_continues_a_compatible_run_with_the_frames_a_fresh_run_writes() {
    let (a, b) = (scratch("resume-a"), scratch("resume-b"));
    let args = [
        "--size", "16", "--frames", "8", "--format", "npy", "--every", "2",
    ];
    assert!(run(&a, &args).status.success());
    // Three frames, then an interrupted fourth: listed as pending by the manifest, one of its
    // files renamed into place, the manifest not yet updated (what a kill -9 between the two
    // leaves). A user's file named like a frame but not listed stays.
    assert!(run(
        &b,
        &["--size", "16", "--frames", "3", "--format", "npy", "--every", "2"]
    )
    .status
    .success());
    std::fs::copy(
        a.join("plume_density_0004.npy"),
        b.join("plume_density_0004.npy"),
    )
    .expect("copy");
    let mut m = manifest(&b).2;
    m["pending"] = serde_json::json!({"frame": 4, "step": 8, "time": 0.1,
        "files": ["plume_density_0004.npy", "plume_velocity_0004.npy"]});
    std::fs::write(b.join("manifest.json"), m.to_string()).expect("manifest");
    std::fs::write(b.join("plume_notes_0004.npy"), b"mine").expect("a user's file");
    let o = run(&b, &[&args[..], &["--resume"]].concat());
    assert!(o.status.success(), "{}", err(&o));
    assert!(err(&o).contains("resuming after frame 3"), "{}", err(&o));
    let (n, files, m) = manifest(&b);
    assert_eq!(n, (1..=8).collect::<Vec<_>>());
    assert!(m.get("pending").is_none(), "{m}");
    assert_eq!(files, frame_files(&b, &["plume_notes_0004.npy"]));
    assert_eq!(
        std::fs::read(b.join("plume_notes_0004.npy")).expect("kept"),
        b"mine"
    );
    for k in 1..=8 {
        for f in ["density", "velocity"] {
            let name = format!("plume_{f}_{k:04}.npy");
            assert_eq!(
                std::fs::read(a.join(&name)).expect("fresh"),
                std::fs::read(b.join(&name)).expect("resumed"),
                "{name} differs between the fresh and the resumed run"
            );
        }
    }
    // A different run is not resumed.
    let o = run(
        &b,
        &[
            "--size", "16", "--frames", "9", "--format", "npy", "--every", "3", "--resume",
        ],
    );
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("cannot resume") && err(&o).contains("every 2"),
        "{}",
        err(&o)
    );
    let o = run(
        &b,
        &[
            "--size", "20", "--frames", "9", "--format", "npy", "--every", "2", "--resume",
        ],
    );
    assert!(err(&o).contains("its grid is 16×16×16"), "{}", err(&o));
    let o = run(
        &b,
        &[
            "--size", "16", "--frames", "9", "--format", "vdb", "--every", "2", "--resume",
        ],
    );
    assert!(err(&o).contains("written as npy"), "{}", err(&o));
    assert_eq!(manifest(&b).0.len(), 8, "refused resumes change nothing");
    std::fs::remove_dir_all(&a).ok();
    std::fs::remove_dir_all(&b).ok();
}

#[test]
fn a_second_writer_is_refused_naming_the_process_that_holds_the_folder() {
    let dir = scratch("lock");
    let d = dir.display().to_string();
    let mut first = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args([
            "run", "--size", "48", "--frames", "400", "--format", "npy", "--out", &d,
        ])
        .stderr(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .spawn()
        .expect("starts");
    // Wait until it holds the lock and has written a frame.
    let t = std::time::Instant::now();
    while !dir.join("manifest.json").exists() && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let o = run(
        &dir,
        &[
            "--size",
            "16",
            "--frames",
            "2",
            "--format",
            "npy",
            "--overwrite",
        ],
    );
    let _ = first.kill();
    let _ = first.wait();
    assert_eq!(o.status.code(), Some(1));
    let e = err(&o);
    assert!(
        e.contains("is being written by another plume")
            && e.contains(&format!("process {}", first.id())),
        "{e}"
    );
    // Once it is gone the folder is free again (the lock dies with its process).
    let o = run(
        &dir,
        &[
            "--size",
            "16",
            "--frames",
            "2",
            "--format",
            "npy",
            "--overwrite",
        ],
    );
    assert!(o.status.success(), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn stale_temporaries_of_plumes_pattern_are_removed_and_nothing_else() {
    let dir = scratch("stale");
    std::fs::create_dir_all(&dir).expect("dir");
    let ours = [".plume_0034.vdb.4242-7.tmp", ".manifest.json.4242-8.tmp"];
    let theirs = [".plume_0034.vdb.tmp", ".editor.swp", "draft.tmp"];
    for f in ours.iter().chain(&theirs) {
        std::fs::write(dir.join(f), b"x").expect("file");
    }
    let o = run(&dir, &["--size", "12", "--frames", "1", "--format", "npy"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        err(&o).contains("removed 2 unfinished temporary files"),
        "{}",
        err(&o)
    );
    let now = names(&dir);
    for f in ours {
        assert!(!now.contains(f), "{f} left");
    }
    for f in theirs {
        assert!(now.contains(f), "{f} removed");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn special_files_as_scenes_are_refused_quickly() {
    for dev in ["/dev/zero", "/dev/urandom"] {
        let t = std::time::Instant::now();
        let o = plume(&["simulate", "--scene", dev, "--seconds", "0.1"]);
        assert_eq!(o.status.code(), Some(1));
        assert!(
            err(&o).contains(&format!("{dev}: is a device, not a scene file")),
            "{}",
            err(&o)
        );
        assert!(t.elapsed().as_secs() < 10, "{dev} took {:?}", t.elapsed());
    }
    // A FIFO would block the open until something wrote into it: refused at once.
    let dir = scratch("fifo");
    std::fs::create_dir_all(&dir).expect("dir");
    let fifo = dir.join("scene.toml");
    let c = std::ffi::CString::new(fifo.display().to_string()).expect("path");
    // SAFETY: a valid NUL-terminated path.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0, "mkfifo");
    let t = std::time::Instant::now();
    let mut child = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(["simulate", "--seconds", "0.1", "--scene"])
        .arg(&fifo)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let status = loop {
        if let Some(s) = child.try_wait().expect("wait") {
            break Some(s);
        }
        if t.elapsed().as_secs_f64() > 1.0 {
            let _ = child.kill();
            break None;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    };
    let o = child.wait_with_output().expect("output");
    assert_eq!(
        status.and_then(|s| s.code()),
        Some(1),
        "a FIFO scene must be refused within a second: {}",
        err(&o)
    );
    assert!(
        err(&o).contains("is a FIFO (named pipe), not a scene file"),
        "{}",
        err(&o)
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn arrays_too_long_and_numbers_too_large_are_refused_at_their_line() {
    let dir = scratch("arrays");
    std::fs::create_dir_all(&dir).expect("dir");
    let base = "name = \"t\"\n[grid]\ndims = [16, 16, 16]\n";
    for (body, want) in [
        (
            "name = \"t\"\n[grid]\ndims = [16, 16, 16, \"junk\", {a=1}]\n",
            "t.toml:3: grid.dims has 5 elements; it takes exactly 3",
        ),
        (
            &format!("{base}[[emitter]]\ncenter = [0.5, 0.5, 0.5, 0.1]\nradius = 0.1\n"),
            "t.toml:5: emitter[0].center has 4 elements",
        ),
        (
            &format!("{base}origin = [0.0, 0.0, 0.0, 1.0]\n"),
            "t.toml:4: grid.origin has 4 elements",
        ),
        (
            &format!("{base}[render]\nsmoke_color = [1.0, 1.0, 1.0, 1.0, 1.0]\n"),
            "t.toml:5: render.smoke_color has 5 elements",
        ),
        (
            &format!(
                "{base}[[emitter]]\ncenter = [0.5, 0.5, 0.5]\nradius = 0.1\ndensity = 1e300\n"
            ),
            "t.toml:7: emitter[0].density = 1e300 is too large",
        ),
        (
            &format!("{base}[render]\ndensity_scale = nan\n"),
            "t.toml:5: render: density_scale = NaN is outside the allowed range",
        ),
    ] {
        let f = dir.join("t.toml");
        std::fs::write(&f, body).expect("write");
        let o = plume(&[
            "simulate",
            "--scene",
            &f.display().to_string(),
            "--seconds",
            "0.1",
        ]);
        assert_eq!(o.status.code(), Some(1), "{body}");
        let e = err(&o);
        assert!(e.contains(want), "want '{want}' in: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn ranged_flags_take_negative_numbers_and_name_their_range() {
    for (args, want) in [
        (
            vec!["bench", "--size", "-1"],
            "-1 is outside the allowed range 3..=1024",
        ),
        (
            vec!["run", "--frames", "-1", "--out", "x"],
            "-1 is not in 1..=1000000",
        ),
        (
            vec!["render", "--density-scale", "-1", "--out", "x.png"],
            "-1 is outside the allowed range [0, 1000000]",
        ),
    ] {
        let o = plume(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = err(&o);
        assert!(
            e.contains(want) && !e.contains("unexpected argument"),
            "{args:?}: {e}"
        );
    }
}

#[test]
fn faces_not_named_in_a_boundaries_table_are_walls() {
    let dir = scratch("faces");
    std::fs::create_dir_all(&dir).expect("dir");
    let f = dir.join("inflow.toml");
    std::fs::write(
        &f,
        "name = \"inflow only\"\n[grid]\ndims = [16, 16, 16]\n[boundaries]\nx_min = { inflow = 1.0 }\n",
    )
    .expect("write");
    let o = plume(&[
        "simulate",
        "--scene",
        &f.display().to_string(),
        "--seconds",
        "0.1",
    ]);
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("no face is open"), "{}", err(&o));
    std::fs::remove_dir_all(&dir).ok();
}
