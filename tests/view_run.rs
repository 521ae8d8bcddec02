//! `plume view --run DIR`: a run folder played back in the viewer. The simulation thread
//! shows the run's frames in turn and at the slider's pick, refuses what would change what
//! was recorded, and simulates again once a scene is loaded; the side panel shows the Run
//! section in the default window; the real window under Xvfb plays a run and draws it.

use plume::export::read::RunReader;
use plume::export::Fields;
use plume::scene::Scene;
use plume::viewer::sim_thread::{SimCommand, SimThread, Snapshot};
use plume::viewer::state::{FrameStats, UiState};
use plume::viewer::{overlay, sections};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

fn scratch(tag: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("plume-vrun-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch");
    d
}

/// The campfire at 16 cells, `frames` frames `every` steps apart (density, temperature,
/// flame and velocity) into `dir`.
fn write_run(dir: &Path, frames: u32, every: u32) {
    let o = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args([
            "run",
            "--scene",
            "campfire",
            "--size",
            "16",
            "--backend",
            "cpu",
        ])
        .args(["--fields", "density,temperature,flame,velocity", "--out"])
        .arg(dir)
        .args([
            "--frames",
            &frames.to_string(),
            "--every",
            &every.to_string(),
        ])
        .output()
        .expect("plume runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// The next snapshot the thread publishes that `ok` accepts.
fn wait_for(sim: &SimThread, what: &str, ok: impl Fn(&Snapshot) -> bool) -> Snapshot {
    for _ in 0..500 {
        if let Some(s) = sim.take_latest() {
            if ok(&s) {
                return s;
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("no snapshot {what} in 5 s");
}

#[test]
fn the_thread_plays_the_frames_seeks_refuses_changes_and_simulates_a_loaded_scene() {
    let d = scratch("thread");
    let dir = d.join("run");
    write_run(&dir, 4, 3);
    let run = RunReader::open(&dir).expect("the run");
    let sim = SimThread::spawn_run(&dir, false, None, || {}).expect("plays");
    let first = wait_for(&sim, "of frame 1", |s| s.playback == Some((0, 4)));
    assert_eq!(first.frame.step, run.frames()[0].step);
    assert!(first.backend.contains("playing back") && first.backend.contains("11x16x11 grid"));
    // Steps go through the frames and round to the first after the last.
    for want in [1, 2, 3, 0] {
        sim.send(SimCommand::StepOnce);
        let s = wait_for(&sim, "after a step", |s| s.playback == Some((want, 4)));
        assert_eq!(s.frame.step, run.frames()[want].step);
        let written = run.read(want, Fields::default()).expect("reads");
        assert_eq!(s.frame.density, written.density, "frame {}", want + 1);
        assert_eq!(s.frame.velocity, written.velocity, "frame {}", want + 1);
    }
    // The slider's pick: of several asked at once, the last.
    for i in [3, 1, 2] {
        sim.send(SimCommand::Seek(i));
    }
    let s = wait_for(&sim, "at frame 3", |s| s.playback == Some((2, 4)));
    assert_eq!(s.frame.step, run.frames()[2].step);
    // What was recorded does not change; the frame shown stays.
    sim.send(SimCommand::SetParams(run.manifest().scene.fluid.clone()));
    let s = wait_for(&sim, "refusing parameters", |s| s.error.is_some());
    let e = s.error.clone().unwrap_or_default();
    assert!(e.contains("load a scene"), "{e}");
    assert_eq!(s.playback, Some((2, 4)));
    sim.send(SimCommand::SetBackend(plume::backend::Backend::Cpu));
    let s = wait_for(&sim, "refusing a backend", |s| {
        s.error
            .as_ref()
            .is_some_and(|e| e.contains("no solver backend"))
    });
    assert_eq!(s.playback, Some((2, 4)));
    // A scene loaded from the menu is simulated.
    let scene = Scene::default_plume().with_resolution(8);
    sim.send(SimCommand::LoadScene(Box::new(scene)));
    sim.send(SimCommand::StepOnce);
    let s = wait_for(&sim, "of the loaded scene", |s| {
        s.playback.is_none() && s.frame.step == 1
    });
    assert_eq!(s.frame.grid.dims.as_array(), [8, 8, 8]);
    assert!(sim.finish().is_none());
    let _ = std::fs::remove_dir_all(&d);
}

#[test]
fn the_run_section_fits_the_default_window_and_the_overlay_says_what_it_shows() {
    let d = scratch("panel");
    let dir = d.join("run");
    write_run(&dir, 3, 3);
    let sim = SimThread::spawn_run(&dir, false, None, || {}).expect("plays");
    let snap = wait_for(&sim, "of frame 1", |s| s.playback.is_some());
    let lines = overlay::stats_lines(Some(&snap), FrameStats::default()).join("\n");
    assert!(lines.contains("frame 1 of 3 read in"), "{lines}");
    assert!(
        !lines.contains("pressure"),
        "solver figures for a run:\n{lines}"
    );
    let ctx = egui::Context::default();
    let mut st = UiState::new(&RunReader::open(&dir).expect("run").manifest().scene, false);
    let mut overflow = f32::MAX;
    let mut commands = Vec::new();
    for _ in 0..4 {
        let input = egui::RawInput {
            screen_rect: Some(egui::Rect::from_min_size(
                egui::Pos2::ZERO,
                egui::vec2(1280.0, 800.0),
            )),
            ..Default::default()
        };
        let _ = ctx.run(input, |ctx| {
            let out = sections::side_panel(ctx, &mut st, Some(&snap));
            overflow = out.overflow;
            commands = out.commands;
        });
    }
    assert!(
        overflow <= 0.0,
        "the panel runs {overflow} points past the window"
    );
    assert!(commands.is_empty(), "drawing the panel sent commands");
    assert!(sim.finish().is_none());
    let _ = std::fs::remove_dir_all(&d);
}

/// `plume view --run DIR` with `extra` under Xvfb: stdout and stderr, after asserting it
/// succeeded.
fn view(dir: &Path, extra: &[&str]) -> (String, String) {
    let o = Command::new("xvfb-run")
        .args(["-a", "-s", "-screen 0 1280x1024x24"])
        .arg(env!("CARGO_BIN_EXE_plume"))
        .args(["view", "--run"])
        .arg(dir)
        .args(extra)
        .output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run (install the Debian package xvfb): {e}"));
    let (out, err) = (
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    );
    assert!(o.status.success(), "{err}");
    (out, err)
}

#[test]
fn the_window_plays_a_run_and_a_missing_one_is_refused() {
    let d = scratch("window");
    let dir = d.join("run");
    // Frames 20 steps apart: the first already shows the fire.
    write_run(&dir, 6, 20);
    // Playing: the frames change.
    let (out, err) = view(&dir, &["--frames", "90", "--json"]);
    assert!(
        err.contains("playing back") && err.contains("6 frames"),
        "{err}"
    );
    let line = out.lines().last().unwrap_or_default();
    let report: serde_json::Value = serde_json::from_str(line).expect("the JSON line");
    assert!(
        report["texture_uploads"].as_u64().unwrap_or(0) >= 2,
        "the frames did not change: {report}"
    );
    assert!(
        report["steps_per_second"].as_f64().unwrap_or(0.0) > 0.0,
        "{report}"
    );
    // Paused on the first frame: the run's fire is drawn (warm pixels; a scene at its start
    // shows none, and neither does the panel).
    let shot = d.join("shot.png");
    let shot_arg = shot.to_str().expect("utf-8 path");
    view(
        &dir,
        &["--paused", "--frames", "20", "--screenshot", shot_arg],
    );
    let file = std::fs::File::open(&shot).expect("the screenshot");
    let mut r = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .expect("a PNG");
    let mut buf = vec![0; r.output_buffer_size()];
    let info = r.next_frame(&mut buf).expect("pixels");
    let ch = info.color_type.samples();
    let warm = buf[..info.buffer_size()]
        .chunks_exact(ch)
        .filter(|p| p[0] > 150 && p[0] > p[2].saturating_add(60))
        .count();
    assert!(warm > 500, "no fire in the screenshot ({warm} warm pixels)");

    let o = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(["view", "--run"])
        .arg(d.join("nothing"))
        .output()
        .expect("plume runs");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        !o.status.success() && err.contains("there is no such folder"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&d);
}
