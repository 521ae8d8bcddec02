//! A run folder read back (`export::read::RunReader`): every format, precision and up axis
//! gives the frames that were written, and a folder or file that is not what Plume wrote is
//! refused with a message naming it.

use plume::export::read::{ReadError, RunReader};
use plume::export::run::{Existing, RunWriter};
use plume::export::{self, ExportOptions, Fields, Format, Up};
use plume::frame::Frame;
use plume::scene::Scene;
use std::path::{Path, PathBuf};

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-rr-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

/// The error of a read that must fail (a frame is too long to print).
fn refused(r: Result<Frame, ReadError>) -> ReadError {
    match r {
        Ok(_) => panic!("read a frame it should have refused"),
        Err(e) => e,
    }
}

fn all_fields() -> Fields {
    Fields::parse_list("density,temperature,flame,fuel,velocity,collision").expect("fields")
}

/// The campfire (it burns, so flame and fuel are not all zero) with an obstacle, 3 frames
/// 4 steps apart written into `dir` with `opts`; returns the frames as captured (y up).
fn write_run(dir: &Path, opts: &ExportOptions) -> (Scene, Vec<Frame>) {
    let mut scene = Scene::preset("campfire")
        .expect("preset")
        .with_resolution(14);
    scene.obstacles = Scene::preset("chimney").expect("preset").obstacles;
    let mut sim = scene.build_simulation().expect("builds");
    let (mut w, _) = RunWriter::create(dir, &scene, opts, Existing::Refuse).expect("run");
    let y_up = ExportOptions {
        up: Up::Y,
        ..opts.clone()
    };
    let mut frames = Vec::new();
    for _ in 0..3 {
        for _ in 0..4 {
            sim.step().expect("step");
        }
        w.write(&export::capture(sim.as_ref(), opts))
            .expect("frame");
        frames.push(export::capture(sim.as_ref(), &y_up));
    }
    (scene, frames)
}

fn close(name: &str, got: &[f32], want: &[f32], tol: impl Fn(f32) -> f32) {
    assert_eq!(got.len(), want.len(), "{name}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol(*w),
            "{name}[{i}]: read {g}, written {w}"
        );
    }
}

#[test]
fn every_format_reads_back_the_frames_written() {
    let cases: [(&str, &[Format], bool, Up); 5] = [
        ("npy", &[Format::Npy], false, Up::Y),
        ("vti", &[Format::Vti], false, Up::Y),
        ("vdb", &[Format::Vdb], false, Up::Y),
        ("vdb-half-z", &[Format::Vdb], true, Up::Z),
        ("npy-z-and-vdb", &[Format::Vdb, Format::Npy], false, Up::Z),
    ];
    for (tag, formats, half, up) in cases {
        let dir = scratch(tag);
        let opts = ExportOptions {
            formats: formats.to_vec(),
            fields: all_fields(),
            half,
            up,
            every: 4,
            ..ExportOptions::default()
        };
        let (scene, frames) = write_run(&dir, &opts);
        let r = RunReader::open(&dir).expect("opens");
        // .npy and .vti hold every cell as written; .vdb drops leaves at or under its
        // cutoff, and half precision keeps 11 bits.
        let tol = |w: f32| match (r.format(), half) {
            (Format::Vdb, true) => 1e-3 * w.abs().max(1.0),
            (Format::Vdb, false) => opts.cutoff,
            _ => 0.0,
        };
        let want_format = if formats.contains(&Format::Npy) {
            Format::Npy
        } else {
            formats[0]
        };
        assert_eq!(r.format(), want_format, "{tag}");
        assert_eq!(r.frames().len(), 3, "{tag}");
        assert_eq!(r.grid().dims, scene.dims(), "{tag}");
        for (i, want) in frames.iter().enumerate() {
            let got = r.read(i, all_fields()).expect("reads");
            assert_eq!((got.step, got.time), (want.step, want.time), "{tag}");
            assert_eq!(got.grid, want.grid, "{tag}");
            for (name, g, w) in [
                ("density", &got.density, &want.density),
                ("temperature", &got.temperature, &want.temperature),
                ("flame", &got.flame, &want.flame),
                ("fuel", &got.fuel, &want.fuel),
                ("collision", &got.collision, &want.collision),
            ] {
                let (g, w) = (g.as_ref().expect(name), w.as_ref().expect(name));
                close(&format!("{tag} {name}"), g, w, tol);
            }
            let gv = got.velocity.as_ref().expect("velocity").as_flattened();
            let wv = want.velocity.as_ref().expect("velocity").as_flattened();
            close(&format!("{tag} velocity"), gv, wv, tol);
            let flame: f32 = want.flame.as_ref().expect("flame").iter().sum();
            assert!(flame > 0.0, "{tag}: the test's fire burns");
            let solid = got.solid.as_ref().expect("solid cells");
            assert!(solid.contains(&1), "{tag}: the obstacle is read");
            // Only what is asked is read.
            let just = r
                .read(i, Fields::parse_list("density").expect("f"))
                .expect("reads");
            assert!(just.density.is_some() && just.velocity.is_none() && just.flame.is_none());
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn frames_are_found_by_number_from_either_end() {
    let dir = scratch("numbers");
    let opts = ExportOptions {
        formats: vec![Format::Npy],
        every: 4,
        ..ExportOptions::default()
    };
    write_run(&dir, &opts);
    let r = RunReader::open(&dir).expect("opens");
    assert_eq!(r.index_of(1).expect("first"), 0);
    assert_eq!(r.index_of(3).expect("third"), 2);
    assert_eq!(r.index_of(-1).expect("last"), 2);
    assert_eq!(r.index_of(-3).expect("first from the end"), 0);
    for n in [0, 4, -4] {
        let e = r.index_of(n).expect_err("no such frame").to_string();
        assert!(
            e.contains(&format!("has no frame {n}")) && e.contains("3 frames, numbered 1 to 3"),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn what_plume_did_not_write_is_refused_with_its_name() {
    let dir = scratch("refused");
    let e = RunReader::open(&dir).expect_err("no folder").to_string();
    assert!(e.contains("there is no such folder"), "{e}");
    std::fs::create_dir_all(&dir).expect("dir");
    let e = RunReader::open(&dir).expect_err("empty").to_string();
    assert!(e.contains("there is no manifest.json in it"), "{e}");
    std::fs::write(dir.join("manifest.json"), "{ not json").expect("write");
    let e = RunReader::open(&dir).expect_err("garbled").to_string();
    assert!(e.contains("does not read as Plume's"), "{e}");
    std::fs::remove_dir_all(&dir).expect("clean");

    let opts = ExportOptions {
        formats: vec![Format::Vdb],
        every: 4,
        ..ExportOptions::default()
    };
    write_run(&dir, &opts);
    let text = std::fs::read_to_string(dir.join("manifest.json")).expect("manifest");
    let foreign = text.replacen("\"generator\": \"plume ", "\"generator\": \"other ", 1);
    std::fs::write(dir.join("manifest.json"), &foreign).expect("write");
    let e = RunReader::open(&dir).expect_err("foreign").to_string();
    assert!(e.contains("not by Plume"), "{e}");
    std::fs::write(dir.join("manifest.json"), &text).expect("write");

    let r = RunReader::open(&dir).expect("opens");
    let f2 = dir.join("plume_0002.vdb");
    // A file changed since it was written (one byte more) is refused, not misread.
    let mut bytes = std::fs::read(&f2).expect("frame 2");
    bytes.push(0);
    std::fs::write(&f2, &bytes).expect("write");
    let e = refused(r.read(1, Fields::default()));
    assert!(matches!(e, ReadError::File { .. }), "{e:?}");
    assert!(
        e.to_string().contains("plume_0002.vdb") && e.to_string().contains("has changed"),
        "{e}"
    );
    // Damaged at the size it was written: the reader says what is wrong with it.
    bytes.pop();
    let n = bytes.len();
    bytes[n - 40..].fill(0xff);
    std::fs::write(&f2, &bytes).expect("write");
    let e = refused(r.read(1, Fields::default())).to_string();
    assert!(
        e.contains("plume_0002.vdb") && (e.contains("damaged") || e.contains("inflate")),
        "{e}"
    );
    std::fs::remove_file(&f2).expect("remove");
    let e = refused(r.read(1, Fields::default())).to_string();
    assert!(e.contains("plume_0002.vdb") && e.contains("missing"), "{e}");
    // The other frames still read.
    r.read(0, Fields::default()).expect("frame 1");
    r.read(2, Fields::default()).expect("frame 3");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A run still being written, read as it grows: `refresh` takes in the frames written
/// since, and refuses a folder another run has replaced, keeping what it had.
#[test]
fn a_reader_follows_a_run_being_written() {
    let dir = scratch("follow");
    let scene = Scene::preset("plume").expect("preset").with_resolution(12);
    let opts = ExportOptions {
        formats: vec![Format::Npy],
        ..ExportOptions::default()
    };
    let mut sim = scene.build_simulation().expect("builds");
    let (mut w, _) = RunWriter::create(&dir, &scene, &opts, Existing::Refuse).expect("run");
    let mut frame = |w: &mut RunWriter| {
        sim.step().expect("step");
        w.write(&export::capture(sim.as_ref(), &opts))
            .expect("frame");
    };
    frame(&mut w);
    let mut r = RunReader::open(&dir).expect("opens");
    assert_eq!(r.frames().len(), 1);
    assert_eq!(r.refresh().expect("refresh"), 0, "nothing new");
    frame(&mut w);
    frame(&mut w);
    assert_eq!(r.refresh().expect("refresh"), 2);
    assert_eq!(r.frames().len(), 3);
    assert_eq!(r.read(2, Fields::default()).expect("frame 3").step, 3);
    // Another run over it (other fields): refused, the reader keeps its three frames.
    drop(w);
    let other = ExportOptions {
        fields: Fields::parse_list("density").expect("fields"),
        ..opts.clone()
    };
    let (mut w, _) =
        RunWriter::create(&dir, &scene, &other, Existing::Overwrite).expect("overwrite");
    w.write(&export::capture(sim.as_ref(), &other))
        .expect("frame");
    let e = r.refresh().expect_err("replaced");
    assert!(
        matches!(e, ReadError::Replaced { .. }) && e.to_string().contains("open it again"),
        "{e}"
    );
    assert_eq!(r.frames().len(), 3);
    // Gone: the reader says so and still keeps what it had.
    std::fs::remove_dir_all(&dir).expect("clean");
    let e = r.refresh().expect_err("gone").to_string();
    assert!(e.contains("no such folder"), "{e}");
    assert_eq!(r.frames().len(), 3);
}
