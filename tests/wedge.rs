//! `plume wedge`: variants as run folders equal to `plume run` of each variant's scene, the
//! index, the contact sheet, refused keys before anything runs, a variant failing on its own
//! while the rest complete, and Ctrl-C then `--resume` giving the same files (and sweeping
//! the temporaries a killed writer left of the variant's and the wedge's files, and only
//! those), and one driver a folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

fn plume() -> Command {
    Command::new(env!("CARGO_BIN_EXE_plume"))
}

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-wedge-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const SMALL: [&str; 6] = ["--size", "16", "--every", "4", "--backend", "cpu"];

fn wedge(out: &Path, extra: &[&str]) -> Output {
    let frames = match extra.contains(&"--frames") {
        true => &[][..],
        false => &["--frames", "3"][..],
    };
    plume()
        .args(["wedge", "plume", "--vary", "fluid.vorticity=0,3"])
        .args(["--vary", "emitter.0.temperature=1:2:2", "--format", "npy"])
        .args(SMALL)
        .args(frames)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .expect("plume runs")
}

/// `wedge(out, --frames frames)` started in the background, once `out/sign` exists.
fn started(out: &Path, frames: &str, sign: &str) -> std::process::Child {
    let child = plume()
        .args(["wedge", "plume", "--vary", "fluid.vorticity=0,3"])
        .args(["--vary", "emitter.0.temperature=1:2:2", "--format", "npy"])
        .args(SMALL)
        .args(["--frames", frames, "--out"])
        .arg(out)
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("starts");
    let t = std::time::Instant::now();
    while !out.join(sign).exists() {
        assert!(t.elapsed().as_secs() < 120, "the wedge did not get going");
        std::thread::sleep(Duration::from_millis(5));
    }
    child
}

fn index(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("wedge.json")).expect("wedge.json");
    serde_json::from_str(&text).expect("json")
}

/// Every `.npy` file under `dir`, by relative path.
fn arrays(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    for e in std::fs::read_dir(dir).expect("dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            for (k, v) in arrays(&p) {
                out.insert(format!("{}/{k}", e.file_name().to_string_lossy()), v);
            }
        } else if p.extension().is_some_and(|x| x == "npy") {
            out.insert(
                e.file_name().to_string_lossy().into_owned(),
                std::fs::read(&p).expect("read"),
            );
        }
    }
    out
}

#[test]
fn each_variant_is_the_run_of_its_scene_and_the_sheet_shows_them_all() {
    let out = scratch("four");
    let o = wedge(&out, &["--sheet-every", "2"]);
    assert!(o.status.success(), "{}", err(&o));
    let idx = index(&out);
    let vs = idx["variants"].as_array().expect("variants");
    assert_eq!(vs.len(), 4);
    let want = [(0.0, 1.0), (0.0, 2.0), (3.0, 1.0), (3.0, 2.0)];
    for (v, (vort, temp)) in vs.iter().zip(want) {
        assert_eq!(v["state"], "done", "{v}");
        assert_eq!(v["frames"], 3);
        assert_eq!(v["values"]["fluid.vorticity"].as_f64(), Some(vort));
        assert_eq!(v["values"]["emitter.0.temperature"].as_f64(), Some(temp));
        // The variant's own scene file, run by `plume run`, gives the same bytes.
        let dir = out.join(v["folder"].as_str().expect("folder"));
        let scene = dir.join("scene.toml");
        let text = std::fs::read_to_string(&scene).expect("scene.toml");
        assert!(text.contains(&format!("vorticity = {vort:.1}")), "{text}");
        let alone = scratch(&format!("alone-{}", v["index"]));
        let r = plume()
            .args(["run", "--scene"])
            .arg(&scene)
            .args(["--format", "npy", "--frames", "3"])
            .args(SMALL)
            .arg("--out")
            .arg(&alone)
            .output()
            .expect("runs");
        assert!(r.status.success(), "{}", err(&r));
        assert_eq!(arrays(&alone), arrays(&dir), "{}", dir.display());
    }
    // The variants differ: vorticity and temperature change the smoke.
    let a = arrays(&out.join("v0001"));
    let b = arrays(&out.join("v0004"));
    assert_ne!(a["plume_density_0003.npy"], b["plume_density_0003.npy"]);
    // --sheet-every 2: a sheet of frame 2 too, of other pictures than the last frame's.
    let early = std::fs::read(out.join("contact_0002.png")).expect("contact_0002.png");
    assert_ne!(
        early,
        std::fs::read(out.join("contact.png")).expect("contact.png")
    );
    // One cell per variant (2 × 2), each a thumbnail over a label.
    let sheet = plume::wedge::read_png(&out.join("contact.png")).expect("contact.png");
    let (tw, th) = plume::wedge::THUMB;
    assert_eq!(sheet.width, 2 * (tw + 8));
    assert!(sheet.height > 2 * (th + 8));
    let ch = sheet.height / 2;
    for cell in 0..4u32 {
        let (x0, y0) = ((cell % 2) * (tw + 8) + 4, (cell / 2) * ch + 4);
        let above = |y: u32, level: u8| {
            (0..tw)
                .filter(|x| sheet.pixel(x0 + x, y)[0] > level)
                .count()
        };
        let label: usize = (y0 + th + 4..y0 + ch - 4).map(|y| above(y, 200)).sum();
        assert!(
            label > 30,
            "cell {cell} has a label ({label} bright pixels)"
        );
        // Brighter than the background and the outline: the smoke.
        let smoke: usize = (y0..y0 + th).map(|y| above(y, 150)).sum();
        assert!(
            smoke > 30,
            "cell {cell} shows smoke ({smoke} bright pixels)"
        );
    }
}

#[test]
fn keys_and_values_are_checked_before_anything_runs() {
    let out = scratch("refused");
    let o = plume()
        .args([
            "wedge",
            "plume",
            "--vary",
            "fluid.vorticty=0,2",
            "--frames",
            "2",
        ])
        .args(SMALL)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(!o.status.success());
    assert!(
        err(&o).contains("did you mean \"fluid.vorticity\""),
        "{}",
        err(&o)
    );
    assert!(!out.exists(), "nothing was written");
    let o = plume()
        .args([
            "wedge",
            "plume",
            "--vary",
            "fluid.vorticity=0,200",
            "--frames",
            "2",
        ])
        .args(SMALL)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(err(&o).contains("fluid.vorticity=200") && err(&o).contains("[0, 100]"));
    assert!(!out.exists());
}

#[test]
fn a_variant_that_fails_is_listed_with_its_message_and_the_rest_complete() {
    let out = scratch("fails");
    // A file of the user's where variant 2 would write: Plume does not replace it.
    std::fs::create_dir_all(out.join("v0002")).expect("mkdir");
    std::fs::write(out.join("v0002/plume_density_0001.npy"), b"mine").expect("write");
    let o = wedge(&out, &[]);
    assert!(!o.status.success());
    assert!(err(&o).contains("1 variant failed"), "{}", err(&o));
    let idx = index(&out);
    let states: Vec<&str> = idx["variants"]
        .as_array()
        .expect("variants")
        .iter()
        .map(|v| v["state"].as_str().expect("state"))
        .collect();
    assert_eq!(states, ["done", "failed", "done", "done"]);
    let msg = idx["variants"][1]["message"].as_str().expect("message");
    assert!(msg.contains("no Plume manifest lists"), "{msg}");
    assert_eq!(
        std::fs::read(out.join("v0002/plume_density_0001.npy")).expect("kept"),
        b"mine"
    );
    assert!(
        out.join("contact.png").is_file(),
        "the sheet shows the others"
    );
    // A second wedge in the same folder is refused; --overwrite is needed.
    let o = wedge(&out, &[]);
    assert!(err(&o).contains("already holds a wedge"), "{}", err(&o));
}

#[test]
fn ctrl_c_then_resume_gives_the_files_of_an_uninterrupted_wedge() {
    let whole = scratch("whole");
    let o = wedge(&whole, &["--frames", "40"]);
    assert!(o.status.success(), "{}", err(&o));
    let out = scratch("stopped");
    // Stop it during its second variant.
    let mut child = started(&out, "40", "v0002/manifest.json");
    // SAFETY: kill with a pid this test started.
    assert_eq!(unsafe { libc::kill(child.id() as i32, libc::SIGINT) }, 0);
    let status = child.wait().expect("ends");
    assert!(!status.success());
    let idx = index(&out);
    assert_eq!(idx["variants"][0]["state"], "done");
    assert_eq!(idx["variants"][1]["state"], "interrupted");
    assert_eq!(idx["variants"][3]["state"], "pending");
    // A writer killed mid-write (SIGKILL: no clean-up) leaves temporaries of the variant's
    // own files; the resumed variant removes those and nothing it cannot prove it wrote.
    // The same of the driver's files (the index, the contact sheets) in the wedge's folder.
    let v2 = out.join("v0002");
    let ours = [
        "v0002/.scene.toml.4242-9.tmp",
        "v0002/.thumb_0040.png.4242-10.tmp",
        ".wedge.json.4242-12.tmp",
        ".contact_0040.png.4242-13.tmp",
    ];
    let theirs = [
        "v0002/.notes.txt.4242-11.tmp",
        "v0002/.scene.toml.tmp",
        "v0002/draft.tmp",
        ".notes.txt.4242-14.tmp",
        ".contact.jpg.4242-15.tmp",
    ];
    for n in ours.iter().chain(&theirs) {
        std::fs::write(out.join(n), b"half").expect("plant");
    }
    let o = wedge(&out, &["--frames", "40", "--resume"]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        !err(&o).contains("variant 1 of 4"),
        "done variants are skipped"
    );
    assert_eq!(arrays(&out), arrays(&whole));
    for n in ours {
        assert!(!out.join(n).exists(), "{n} left behind");
    }
    for n in theirs {
        assert!(out.join(n).exists(), "{n} removed");
    }
    assert!(v2.join("scene.toml").is_file());
}

/// One driver a wedge folder: a second `plume wedge` on a folder one is running is refused
/// with the first one's process id before it starts a variant, and the first completes.
#[test]
fn a_second_wedge_on_a_running_ones_folder_is_refused() {
    let out = scratch("twice");
    let mut first = started(&out, "150", "v0001/manifest.json");
    let second = wedge(&out, &["--frames", "150", "--resume"]);
    let said = err(&second);
    let first_done = first.try_wait().expect("status").is_some();
    assert!(
        !first_done,
        "the first wedge ended before the second was tried"
    );
    assert!(!second.status.success());
    assert!(
        said.contains("being written by another plume")
            && said.contains(&format!("process {}", first.id())),
        "{said}"
    );
    assert!(
        !said.contains("variant 1 of 4"),
        "no variant started: {said}"
    );
    assert!(first.wait().expect("ends").success());
    let idx = index(&out);
    for v in idx["variants"].as_array().expect("variants") {
        assert_eq!(v["state"], "done", "{idx}");
        assert_eq!(v["frames"], 150, "{idx}");
    }
    assert!(!out.join(".plume.lock").exists(), "the lock is let go");
}

/// `plume free` removes a run by its manifest and nothing else; a folder without one is
/// refused whole.
#[test]
fn free_removes_what_the_manifest_lists_and_nothing_else() {
    let out = scratch("free");
    let o = plume()
        .args(["run", "--format", "npy", "--frames", "2"])
        .args(SMALL)
        .arg("--out")
        .arg(&out)
        .output()
        .expect("runs");
    assert!(o.status.success(), "{}", err(&o));
    std::fs::write(out.join("notes.txt"), b"mine").expect("write");
    let o = plume().arg("free").arg(&out).output().expect("runs");
    assert!(o.status.success(), "{}", err(&o));
    let mut left: Vec<String> = std::fs::read_dir(&out)
        .expect("dir")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    left.sort();
    assert_eq!(left, ["notes.txt"]);
    std::fs::write(out.join("plume_density_0001.npy"), b"mine too").expect("write");
    let o = plume().arg("free").arg(&out).output().expect("runs");
    assert!(!o.status.success());
    assert!(err(&o).contains("nothing was removed"), "{}", err(&o));
    assert!(out.join("plume_density_0001.npy").exists());
}
