//! Nothing lost, nothing mixed, part two (issue 40), through the binary as a user meets it:
//! `--overwrite` removes only what a Plume manifest lists; a frame lands whole or not at all
//! (a writer that fails after N bytes, and a real full tmpfs where mounting one is allowed);
//! SIGTERM, SIGHUP and Ctrl-C end a run promptly with a folder `--resume` completes to the
//! same bytes; the lock never writes through a link; memory limits give messages.
#![cfg(target_os = "linux")]

use std::collections::BTreeMap;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn plume() -> Command {
    Command::new(env!("CARGO_BIN_EXE_plume"))
}

fn out(c: &mut Command) -> Output {
    c.output().expect("the plume binary runs")
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-ds-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// Every entry of `dir` with its bytes.
fn contents(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .expect("folder")
        .map(|e| {
            let e = e.expect("entry");
            let name = e.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(e.path()).unwrap_or_default())
        })
        .collect()
}

/// Whether two versions of file `name` hold the same data: byte for byte, but for a `.vdb`'s
/// header UUID (bytes 21..57, unique to each write by design).
fn same_data(name: &str, a: &[u8], b: &[u8]) -> bool {
    if name.ends_with(".vdb") && a.len() == b.len() && a.len() > 57 {
        a[..21] == b[..21] && a[57..] == b[57..]
    } else {
        a == b
    }
}

/// Asserts `got` holds the files of `want` with the same data.
fn assert_same_files(
    got: &BTreeMap<String, Vec<u8>>,
    want: &BTreeMap<String, Vec<u8>>,
    what: &str,
) {
    assert_eq!(
        got.keys().collect::<Vec<_>>(),
        want.keys().collect::<Vec<_>>(),
        "{what}: other files"
    );
    for (k, v) in want {
        assert!(
            same_data(k, &got[k], v),
            "{what}: {k} differs from an uninterrupted run's"
        );
    }
}

/// The manifest's frame numbers, every file it lists, and the manifest.
fn manifest(dir: &Path) -> (Vec<u64>, Vec<String>, serde_json::Value) {
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(dir.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    let frames = m["frames"].as_array().expect("frames").clone();
    let numbers = frames
        .iter()
        .map(|f| f["frame"].as_u64().expect("n"))
        .collect();
    let mut files: Vec<String> = frames
        .iter()
        .flat_map(|f| f["files"].as_array().expect("files").clone())
        .map(|f| f.as_str().expect("name").to_string())
        .collect();
    files.sort();
    (numbers, files, m)
}

/// Asserts the folder holds exactly what its manifest lists (plus `others`): no temporaries,
/// no unlisted frame, no pending frame, frames numbered 1, 2, ….
fn assert_consistent(dir: &Path, others: &[&str]) -> Vec<u64> {
    if !dir.join("manifest.json").exists() {
        let left: Vec<String> = contents(dir)
            .into_keys()
            .filter(|f| !others.contains(&f.as_str()))
            .collect();
        assert!(left.is_empty(), "no manifest, yet files: {left:?}");
        return Vec::new();
    }
    let (n, files, m) = manifest(dir);
    assert!(m.get("pending").is_none(), "a pending frame is left: {m}");
    let mut on_disk: Vec<String> = contents(dir)
        .into_keys()
        .filter(|f| f != "manifest.json" && !others.contains(&f.as_str()))
        .collect();
    on_disk.sort();
    assert_eq!(
        on_disk, files,
        "the folder holds exactly the manifest's files"
    );
    assert_eq!(n, (1..=n.len() as u64).collect::<Vec<_>>());
    n
}

fn run_args(dir: &Path, extra: &[&str]) -> Command {
    let mut c = plume();
    c.arg("run").arg("--out").arg(dir).args(extra);
    c
}

/// Files of the kinds a user keeps, with names that look like frames.
const USER_FILES: [&str; 7] = [
    "Report_2024.npy",
    "a_1234.vtp",
    "data_0001.npy",
    "frame_0001.vti",
    "houdini_cache_0100.vdb",
    "my_scan_density_0042.npy",
    "smoke_0001.vdb",
];

#[test]
fn user_files_named_like_frames_survive_overwrite_byte_for_byte() {
    let dir = scratch("userfiles");
    for (i, f) in USER_FILES.iter().enumerate() {
        std::fs::write(dir.join(f), format!("the user's own file {i}")).expect("user file");
    }
    let before = contents(&dir);
    for flags in [&[][..], &["--overwrite"], &["--resume"]] {
        let o = out(run_args(&dir, &["--size", "12", "--frames", "2"]).args(flags));
        assert_eq!(o.status.code(), Some(1), "{flags:?}: {}", err(&o));
        let e = err(&o);
        if flags != ["--resume"] {
            assert!(
                e.contains("7 files named like frames (Report_2024.npy")
                    && e.contains("no manifest.json of Plume's")
                    && e.contains("choose another folder")
                    && !e.contains("pass --overwrite"),
                "{flags:?}: {e}"
            );
        }
        assert_eq!(contents(&dir), before, "{flags:?} changed the folder");
    }

    // Beside a Plume run: --overwrite removes that run's files and nothing else.
    let dir = scratch("beside");
    let o = out(&mut run_args(
        &dir,
        &["--size", "12", "--frames", "3", "--format", "vdb,npy"],
    ));
    assert!(o.status.success(), "{}", err(&o));
    let strangers = [
        "other_0001.vdb",
        "other_density_0001.npy",
        "PLUME_0001.vdb",
        "plume_9999.vdb",
        "notes.txt",
    ];
    for f in strangers.iter().chain(&USER_FILES) {
        std::fs::write(dir.join(f), format!("mine: {f}")).expect("user file");
    }
    let o = out(&mut run_args(
        &dir,
        &[
            "--size",
            "12",
            "--frames",
            "2",
            "--format",
            "vdb",
            "--overwrite",
        ],
    ));
    assert!(o.status.success(), "{}", err(&o));
    for f in strangers.iter().chain(&USER_FILES) {
        assert_eq!(
            std::fs::read(dir.join(f)).expect("still there"),
            format!("mine: {f}").as_bytes(),
            "{f}"
        );
    }
    let all: Vec<&str> = strangers.iter().chain(&USER_FILES).copied().collect();
    assert_eq!(assert_consistent(&dir, &all), vec![1, 2]);
    assert!(
        !dir.join("plume_density_0001.npy").exists(),
        "the old run's files are gone"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_name_the_run_needs_is_refused_before_anything_changes() {
    let dir = scratch("taken");
    let o = out(&mut run_args(
        &dir,
        &["--size", "12", "--frames", "3", "--format", "vdb"],
    ));
    assert!(o.status.success(), "{}", err(&o));
    std::fs::write(dir.join("plume_0004.vdb"), b"the user's").expect("user file");
    let before = contents(&dir);
    for flags in [&["--overwrite"][..], &["--resume"]] {
        let o =
            out(run_args(&dir, &["--size", "12", "--frames", "5", "--format", "vdb"]).args(flags));
        assert_eq!(o.status.code(), Some(1));
        assert!(
            err(&o).contains("holds a file this run would write (plume_0004.vdb)"),
            "{}",
            err(&o)
        );
        assert_eq!(
            contents(&dir),
            before,
            "{flags:?}: the refused run changed the folder"
        );
    }
    std::fs::remove_dir_all(&dir).ok();
}

/// `plume run` with writes beyond `bytes` failing (RLIMIT_FSIZE with SIGXFSZ ignored: a
/// writer that fails after N bytes, as a full disk or a quota does).
fn run_with_file_limit(dir: &Path, args: &[&str], bytes: u64) -> Output {
    out(limited(&mut run_args(dir, args), libc::RLIMIT_FSIZE, bytes))
}

/// `c` with the resource limit `resource` set to `bytes` in the child (SIGXFSZ ignored, so
/// a write past RLIMIT_FSIZE fails with EFBIG instead of killing it).
fn limited(c: &mut Command, resource: libc::__rlimit_resource_t, bytes: u64) -> &mut Command {
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        c.pre_exec(move || {
            libc::signal(libc::SIGXFSZ, libc::SIG_IGN);
            let lim = libc::rlimit {
                rlim_cur: bytes as libc::rlim_t,
                rlim_max: bytes as libc::rlim_t,
            };
            if libc::setrlimit(resource, &lim) != 0 {
                return Err(std::io::Error::last_os_error());
            }
            Ok(())
        })
    }
}

// npy first: a frame's files are then 16 KB, 49 KB and 64-66 KB (the .vdb grows with the
// smoke), so per-file limits can fail a frame's second file or a later frame's last.
const FULL_ARGS: [&str; 6] = ["--size", "16", "--frames", "4", "--format", "npy,vdb"];

/// What an uninterrupted run writes (the reference bytes).
fn reference(tag: &str) -> BTreeMap<String, Vec<u8>> {
    let dir = scratch(&format!("reference-{tag}"));
    let o = out(&mut run_args(&dir, &FULL_ARGS));
    assert!(o.status.success(), "{}", err(&o));
    let mut c = contents(&dir);
    c.remove("manifest.json");
    std::fs::remove_dir_all(&dir).ok();
    c
}

/// After a failed frame: consistent folder, then `--resume` completes it to the reference.
fn check_failed_then_resumed(dir: &Path, o: &Output, reference: &BTreeMap<String, Vec<u8>>) {
    let e = err(o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    let held = assert_consistent(dir, &[]);
    assert!(held.len() < 4, "the run cannot have finished: {e}");
    let n = held.len() + 1;
    assert!(
        e.contains(&format!("frame {n} was not written")),
        "the error names the frame: {e}"
    );
    let o = out(run_args(dir, &FULL_ARGS).arg("--resume"));
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(assert_consistent(dir, &[]), vec![1, 2, 3, 4]);
    let mut now = contents(dir);
    now.remove("manifest.json");
    assert_same_files(&now, reference, "resumed");
}

#[test]
fn a_frame_that_cannot_be_written_whole_leaves_exactly_the_manifests_files() {
    let reference = reference("fsize");
    let size = |f: &str| reference[f].len() as u64;
    // A limit between the two .npy files fails frame 1 after one file was staged; a limit
    // just under a frame's .vdb size that all earlier .vdb files fit fails that frame at its
    // last file, after its .npy files.
    let mut limits = vec![(size("plume_density_0001.npy") + size("plume_velocity_0001.npy")) / 2];
    let mut biggest = size("plume_0001.vdb");
    for k in 2..=4 {
        let s = size(&format!("plume_{k:04}.vdb"));
        if s > biggest {
            limits.push(biggest.max(s - 1));
        }
        biggest = biggest.max(s);
    }
    assert!(
        limits.len() >= 2,
        "the .vdb files should grow with the smoke"
    );
    let mut failed_frames = std::collections::BTreeSet::new();
    for limit in limits {
        let dir = scratch(&format!("fsize-{limit}"));
        let o = run_with_file_limit(&dir, &FULL_ARGS, limit);
        let e = err(&o);
        assert!(e.contains("File too large"), "limit {limit}: {e}");
        failed_frames.insert(manifest(&dir).0.len() + 1);
        check_failed_then_resumed(&dir, &o, &reference);
        std::fs::remove_dir_all(&dir).ok();
    }
    assert!(
        failed_frames.len() >= 2 && failed_frames.contains(&1),
        "the limits should fail the first and a later frame: {failed_frames:?}"
    );
}

/// Mounts a tmpfs of `opts` on `dir`; false where this machine does not allow it.
fn mount_tmpfs(dir: &Path, opts: &str) -> bool {
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", opts, "tmpfs"])
        .arg(dir)
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

#[test]
fn a_full_tmpfs_leaves_exactly_the_manifests_files() {
    let reference = reference("tmpfs");
    let cases = [
        "size=64k",
        "size=160k",
        "size=320k",
        "nr_inodes=6",
        "nr_inodes=12",
    ];
    let mut ran = 0;
    for opts in cases {
        let dir = scratch(&format!("tmpfs-{}", opts.replace('=', "")));
        if !mount_tmpfs(&dir, opts) {
            eprintln!("note: cannot mount a tmpfs here (not root?); the RLIMIT_FSIZE test covers a writer failing after N bytes");
            break;
        }
        let o = out(&mut run_args(&dir, &FULL_ARGS));
        let e = err(&o);
        let outcome = if o.status.success() {
            None
        } else {
            assert!(
                e.contains("No space left on device"),
                "{opts}: the cause is named: {e}"
            );
            Some(assert_consistent(&dir, &[]))
        };
        // Resume after freeing space: unmounting is not possible with the files in it, so
        // remount bigger (tmpfs keeps its files across a remount).
        let grown = Command::new("mount")
            .args(["-o", "remount,size=8m,nr_inodes=1000"])
            .arg(&dir)
            .status()
            .is_ok_and(|s| s.success());
        assert!(grown, "remount");
        if outcome.is_some() {
            check_failed_then_resumed(&dir, &o, &reference);
        }
        let _ = Command::new("umount").arg(&dir).status();
        std::fs::remove_dir_all(&dir).ok();
        ran += 1;
        assert!(outcome.is_some(), "{opts} should be too small for the run");
    }
    if std::env::var("CI").as_deref() == Ok("true") && ran == 0 {
        eprintln!("note: CI without tmpfs mounts: only the RLIMIT_FSIZE writer was exercised");
    }
}

/// Starts a run and waits until its manifest lists at least `frames` frames (the caller
/// signals and waits for it).
#[allow(clippy::zombie_processes)]
fn start_and_wait(dir: &Path, args: &[&str], frames: usize) -> std::process::Child {
    let mut child = run_args(dir, args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    let t = Instant::now();
    loop {
        if dir.join("manifest.json").exists()
            && std::fs::read_to_string(dir.join("manifest.json"))
                .ok()
                .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
                .and_then(|m| m["frames"].as_array().map(|a| a.len()))
                .is_some_and(|n| n >= frames)
        {
            return child;
        }
        if t.elapsed().as_secs() > 120 {
            let _ = child.kill();
            let _ = child.wait();
            panic!("the run did not get going");
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Sends `sig` and waits for the process; returns its output and how long it took to end.
fn signal_and_wait(child: std::process::Child, sig: i32) -> (Output, Duration) {
    let t = Instant::now();
    // SAFETY: kill with a pid this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, sig) }, 0);
    let o = child.wait_with_output().expect("waits");
    (o, t.elapsed())
}

#[test]
fn sigterm_and_sighup_mid_run_leave_a_folder_resume_completes_to_the_same_bytes() {
    let args = ["--size", "24", "--frames", "60", "--format", "npy,vdb"];
    let fresh = scratch("sig-fresh");
    let o = out(&mut run_args(&fresh, &args));
    assert!(o.status.success(), "{}", err(&o));
    let mut want = contents(&fresh);
    want.remove("manifest.json");
    for (sig, name) in [(libc::SIGTERM, "SIGTERM"), (libc::SIGHUP, "SIGHUP")] {
        let dir = scratch(&format!("sig-{name}"));
        let child = start_and_wait(&dir, &args, 3);
        let (o, took) = signal_and_wait(child, sig);
        let e = err(&o);
        assert_eq!(o.status.code(), Some(1), "{name}: {e}");
        assert!(e.contains(&format!("interrupted by {name}")), "{e}");
        assert!(took < Duration::from_secs(5), "{name} took {took:?}");
        let held = assert_consistent(&dir, &[]);
        assert!(held.len() >= 3 && held.len() < 60, "{held:?}");
        let o = out(run_args(&dir, &args).arg("--resume"));
        assert!(o.status.success(), "{}", err(&o));
        assert_consistent(&dir, &[]);
        let mut got = contents(&dir);
        got.remove("manifest.json");
        assert_same_files(&got, &want, name);
        std::fs::remove_dir_all(&dir).ok();
    }
    std::fs::remove_dir_all(&fresh).ok();
}

#[test]
fn ctrl_c_stops_within_a_step_and_a_signal_during_resume_is_handled() {
    // A frame every 100000 steps: the stop must not wait for the frame.
    let dir = scratch("prompt");
    let mut child = run_args(
        &dir,
        &["--size", "16", "--frames", "2", "--every", "100000"],
    )
    .stdout(Stdio::null())
    .stderr(Stdio::piped())
    .spawn()
    .expect("starts");
    std::thread::sleep(Duration::from_millis(1500));
    assert!(child.try_wait().expect("wait").is_none(), "still running");
    let (o, took) = signal_and_wait(child, libc::SIGINT);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains("interrupted by Ctrl-C"), "{}", err(&o));
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(assert_consistent(&dir, &[]), Vec::<u64>::new());

    // The same during --resume's re-simulation: a message, and the folder as it was.
    let args = [
        "--size", "24", "--frames", "3", "--every", "3000", "--format", "npy",
    ];
    let o = out(&mut run_args(
        &dir,
        &[
            "--size",
            "24",
            "--frames",
            "1",
            "--every",
            "3000",
            "--format",
            "npy",
            "--overwrite",
        ],
    ));
    assert!(o.status.success(), "{}", err(&o));
    let before = contents(&dir);
    let child = run_args(&dir, &args)
        .arg("--resume")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("starts");
    std::thread::sleep(Duration::from_millis(800));
    let (o, took) = signal_and_wait(child, libc::SIGTERM);
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(
        err(&o).contains("re-simulating") && err(&o).contains("interrupted by SIGTERM"),
        "{}",
        err(&o)
    );
    assert!(took < Duration::from_secs(2), "took {took:?}");
    assert_eq!(
        contents(&dir),
        before,
        "the folder is as the first run left it"
    );
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_run_killed_during_its_first_frame_is_recovered_by_resume() {
    let dir = scratch("kill9");
    let args = ["--size", "16", "--frames", "3", "--format", "vdb,npy"];
    let o = out(&mut run_args(&dir, &args));
    assert!(o.status.success(), "{}", err(&o));
    let mut want = contents(&dir);
    want.remove("manifest.json");
    // What kill -9 between the first file's rename and the manifest's update leaves: the
    // manifest (written first) lists no frame and frame 1 as pending; one file is in place.
    let (_, _, mut m) = manifest(&dir);
    let first = m["frames"][0].clone();
    m["frames"] = serde_json::json!([]);
    m["pending"] = first;
    std::fs::write(dir.join("manifest.json"), m.to_string()).expect("manifest");
    for f in want.keys().filter(|f| *f != "plume_0001.vdb") {
        std::fs::remove_file(dir.join(f)).expect("rm");
    }
    let o = out(run_args(&dir, &args).arg("--resume"));
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(assert_consistent(&dir, &[]), vec![1, 2, 3]);
    let mut got = contents(&dir);
    got.remove("manifest.json");
    assert_same_files(&got, &want, "resumed after kill -9");
    // A real kill -9 as early as possible: whatever it leaves, --resume recovers it.
    for delay in [0u64, 5, 20, 60] {
        let d = scratch(&format!("kill9-{delay}"));
        let mut child = run_args(&d, &args)
            .stderr(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .expect("starts");
        std::thread::sleep(Duration::from_millis(delay));
        let _ = child.kill();
        let _ = child.wait();
        let o = out(run_args(&d, &args).arg("--resume"));
        assert!(o.status.success(), "after kill at {delay} ms: {}", err(&o));
        assert_eq!(assert_consistent(&d, &[]), vec![1, 2, 3]);
        std::fs::remove_dir_all(&d).ok();
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_linked_lock_path_is_refused_and_its_target_untouched() {
    let base = scratch("locklink");
    let target = base.join("precious.txt");
    std::fs::write(&target, b"precious").expect("target");
    let dir = base.join("run");
    std::fs::create_dir_all(&dir).expect("dir");
    std::os::unix::fs::symlink(&target, dir.join(".plume.lock")).expect("symlink");
    let o = out(&mut run_args(&dir, &["--size", "12", "--frames", "1"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains(".plume.lock is a symbolic link"),
        "{}",
        err(&o)
    );
    assert_eq!(std::fs::read(&target).expect("target"), b"precious");

    std::fs::remove_file(dir.join(".plume.lock")).expect("rm link");
    std::fs::hard_link(&target, dir.join(".plume.lock")).expect("hard link");
    let o = out(&mut run_args(&dir, &["--size", "12", "--frames", "1"]));
    assert_eq!(o.status.code(), Some(1));
    assert!(err(&o).contains("has 2 hard links"), "{}", err(&o));
    assert_eq!(std::fs::read(&target).expect("target"), b"precious");
    assert!(!dir.join("manifest.json").exists(), "nothing written");

    // A screenshot or render output name that is a link is replaced, not written through.
    std::fs::remove_file(dir.join(".plume.lock")).expect("rm link");
    let png = dir.join("out.png");
    std::os::unix::fs::symlink(&target, &png).expect("symlink");
    let o = out(plume()
        .args([
            "render", "--size", "12", "--steps", "1", "--width", "32", "--height", "24", "--out",
        ])
        .arg(&png));
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(std::fs::read(&target).expect("target"), b"precious");
    assert!(!std::fs::symlink_metadata(&png)
        .expect("png")
        .file_type()
        .is_symlink());
    std::fs::remove_dir_all(&base).ok();
}

/// Runs `plume args` with its address space limited to `kib` KiB (as `ulimit -v` does).
fn with_address_limit(args: &[&str], kib: u64) -> Output {
    out(limited(plume().args(args), libc::RLIMIT_AS, kib * 1024))
}

#[test]
fn memory_limits_give_a_message_never_a_crash() {
    let dir = scratch("ulimit");
    let png = dir.join("r.png");
    let png = png.display().to_string();
    // Before: rc 101 at 300000 (the thread pool's panic), SIGSEGV at 400000 (Mesa compiling
    // shaders without memory), SIGABRT on allocations.
    let mut refused = 0;
    for kib in [
        100_000u64, 200_000, 300_000, 400_000, 500_000, 600_000, 700_000, 800_000,
    ] {
        let o = with_address_limit(
            &[
                "render", "--size", "16", "--steps", "2", "--width", "64", "--height", "48",
                "--out", &png,
            ],
            kib,
        );
        let code = o.status.code();
        assert!(
            code == Some(0) || code == Some(1),
            "ulimit -v {kib}: ended by {:?}: {}",
            o.status,
            err(&o)
        );
        if code == Some(1) {
            refused += 1;
            assert!(
                err(&o).contains("error:") && err(&o).contains("MiB"),
                "ulimit -v {kib}: {}",
                err(&o)
            );
        }
    }
    assert!(refused >= 6, "the small limits must be refused");
    // `run` across the narrow windows: exits 0 or 1, and the folder is consistent.
    for kib in (120_000u64..=320_000).step_by(20_000) {
        let out_dir = dir.join(format!("run-{kib}"));
        let d = out_dir.display().to_string();
        let o = with_address_limit(
            &[
                "run", "--size", "16", "--frames", "2", "--format", "vdb,npy", "--out", &d,
            ],
            kib,
        );
        let code = o.status.code();
        assert!(
            code == Some(0) || code == Some(1),
            "run under ulimit -v {kib}: ended by {:?}: {}",
            o.status,
            err(&o)
        );
        if out_dir.exists() {
            assert_consistent(&out_dir, &[]);
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn sigterm_closes_the_recording_viewer_with_a_consistent_folder() {
    // A real window on our own Xvfb, so the signal goes to plume itself. Xvfb picks a free
    // display and writes its number once it accepts connections (`-displayfd`): no race
    // with other servers starting, no connecting before it listens.
    let mut xvfb = Command::new("Xvfb")
        .args([
            "-displayfd",
            "1",
            "-screen",
            "0",
            "800x600x24",
            "-nolisten",
            "tcp",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("Xvfb runs (Debian package xvfb)");
    let n = {
        use std::io::BufRead;
        let mut line = String::new();
        let out = xvfb.stdout.take().expect("Xvfb's output");
        std::io::BufReader::new(out)
            .read_line(&mut line)
            .expect("Xvfb says its display");
        line.trim().parse::<u32>().expect("a display number")
    };
    let dir = scratch("viewer-sig");
    let rec = dir.join("rec");
    let mut child = plume()
        .args(["view", "--size", "16", "--window", "400x300", "--record"])
        .arg(&rec)
        .env("DISPLAY", format!(":{n}"))
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the viewer starts");
    let t = Instant::now();
    let frames = || {
        std::fs::read_to_string(rec.join("manifest.json"))
            .ok()
            .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
            .and_then(|m| m["frames"].as_array().map(|a| a.len()))
            .unwrap_or(0)
    };
    while frames() < 3 {
        if t.elapsed() > Duration::from_secs(90) || child.try_wait().ok().flatten().is_some() {
            let _ = child.kill();
            let o = child.wait_with_output().expect("output");
            let _ = xvfb.kill();
            let _ = xvfb.wait();
            panic!("the viewer recorded no frames: {}", err(&o));
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let (o, took) = signal_and_wait(child, libc::SIGTERM);
    let _ = xvfb.kill();
    let _ = xvfb.wait();
    assert_eq!(o.status.code(), Some(1), "{}", err(&o));
    assert!(err(&o).contains("stopped by SIGTERM"), "{}", err(&o));
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(assert_consistent(&rec, &[]).len() >= 3);
    std::fs::remove_dir_all(&dir).ok();
}
