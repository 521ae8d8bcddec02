//! A run folder played back as a [`Simulation`]: each step shows the next frame the run
//! wrote (after the last, the first again), so the viewer draws, slices, traces streamlines
//! through and exports a run as it does a simulation. What was recorded cannot change: a
//! new parameter, emitter or obstacle, painting or a backend is refused with a message.

use super::read::{ReadError, RunReader};
use super::Fields;
use crate::frame::{Frame, Select};
use crate::scene::Scene;
use crate::sim::{
    Emitter, FieldState, FireParams, FluidParams, Grid, Obstacle, SimError, Simulation, StageTime,
    StepStats,
};
use std::path::Path;
use std::time::Instant;

/// A run folder being played back.
pub struct Replay {
    reader: RunReader,
    scene: Scene,
    grid: Grid,
    /// The index (into the run's frames) of the frame shown.
    index: usize,
    frame: Frame,
    stats: StepStats,
    /// Seconds of the run played so far, counting every step (frames after the last wrap
    /// round to the first): a clock that only goes forward, for pacing.
    played: f64,
}

fn refused(what: &str) -> SimError {
    SimError::Playback(format!(
        "{what}: a run played back shows what was recorded; load a scene (Scene menu) to \
         simulate"
    ))
}

impl Replay {
    /// Opens the run in `dir` and reads its first frame.
    pub fn open(dir: &Path) -> Result<Self, ReadError> {
        let reader = RunReader::open(dir)?;
        if reader.frames().is_empty() {
            return Err(ReadError::NoSuchFrame {
                dir: dir.to_path_buf(),
                frame: 1,
                has: "it lists no frame yet".into(),
            });
        }
        let grid = reader.grid();
        let scene = reader.manifest().scene.clone();
        let mut r = Self {
            frame: Frame::empty(grid, 0, 0.0),
            reader,
            scene,
            grid,
            index: 0,
            stats: StepStats::default(),
            played: 0.0,
        };
        r.seek(0)?;
        Ok(r)
    }

    /// The run's reader (its manifest, frames and format).
    pub fn reader(&self) -> &RunReader {
        &self.reader
    }

    /// The index of the frame shown, and how many the run lists.
    pub fn position(&self) -> (usize, usize) {
        (self.index, self.reader.frames().len())
    }

    /// Shows the frame at `index` of the run's frames.
    pub fn seek(&mut self, index: usize) -> Result<(), ReadError> {
        let clock = Instant::now();
        let want = Fields {
            density: true,
            temperature: true,
            flame: true,
            fuel: true,
            velocity: true,
            collision: true,
        };
        self.frame = self.reader.read(index, want)?;
        self.index = index;
        let ms = clock.elapsed().as_secs_f64() * 1e3;
        self.stats = StepStats {
            stages: vec![StageTime {
                name: "read_frame",
                ms,
            }],
            total_ms: ms,
            substeps: 1,
            ..StepStats::default()
        };
        Ok(())
    }

    /// Reads the run's manifest again: frames written since it was opened join the run (the
    /// same grid and format; anything else, or a manifest that does not read now, keeps the
    /// frames known).
    fn follow(&mut self) {
        if let Ok(now) = RunReader::open(self.reader.dir()) {
            let same = now.grid() == self.grid && now.format() == self.reader.format();
            if same && now.frames().len() > self.reader.frames().len() {
                self.reader = now;
            }
        }
    }

    /// Seconds between the frames the run wrote.
    fn frame_seconds(&self) -> f64 {
        let m = self.reader.manifest();
        f64::from(m.every.max(1)) * f64::from(m.dt)
    }
}

impl Simulation for Replay {
    fn backend(&self) -> &'static str {
        "run"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn memory_bytes(&self) -> usize {
        let f = &self.frame;
        let scalars: usize = f.scalars().iter().map(|(_, v)| v.len()).sum();
        4 * scalars + 12 * f.velocity.as_ref().map_or(0, Vec::len)
    }
    fn pressure_solver(&self) -> &'static str {
        "none (a run played back)"
    }
    fn params(&self) -> &FluidParams {
        &self.scene.fluid
    }
    fn set_params(&mut self, _: FluidParams) -> Result<(), SimError> {
        Err(refused("the fluid's parameters cannot change"))
    }
    fn fire(&self) -> &FireParams {
        &self.scene.fire
    }
    fn set_fire(&mut self, _: FireParams) -> Result<(), SimError> {
        Err(refused("the fire's parameters cannot change"))
    }
    fn emitters(&self) -> &[Emitter] {
        &self.scene.emitters
    }
    fn set_emitters(&mut self, _: Vec<Emitter>) -> Result<(), SimError> {
        Err(refused("the emitters cannot change"))
    }
    fn obstacles(&self) -> &[Obstacle] {
        &self.scene.obstacles
    }
    fn set_obstacles(&mut self, _: Vec<Obstacle>) -> Result<(), SimError> {
        Err(refused("the obstacles cannot change"))
    }
    /// Shows the next frame; after the last, the next the run has written since (a run still
    /// being written is followed), else the first.
    fn step(&mut self) -> Result<&StepStats, SimError> {
        if self.index + 1 >= self.reader.frames().len() {
            self.follow();
        }
        let next = (self.index + 1) % self.reader.frames().len();
        self.seek(next)
            .map_err(|e| SimError::Playback(e.to_string()))?;
        self.played += self.frame_seconds();
        Ok(&self.stats)
    }
    fn stats(&self) -> &StepStats {
        &self.stats
    }
    /// The playing clock (see [`Replay`]); the frame's own time is in its [`Frame`].
    fn time(&self) -> f64 {
        self.played
    }
    fn steps(&self) -> u64 {
        self.frame.step
    }
    /// Back to the first frame.
    fn reset(&mut self) {
        // A frame that no longer reads keeps the one shown; the next step says why.
        let _ = self.seek(0);
    }
    fn paint(&mut self, _: [f32; 3], _: f32, _: f32, _: [f32; 3]) -> Result<(), SimError> {
        Err(refused("smoke cannot be painted in"))
    }
    fn total_density(&self) -> f64 {
        let h3 = f64::from(self.grid.h).powi(3);
        self.frame
            .density()
            .iter()
            .map(|&d| f64::from(d))
            .sum::<f64>()
            * h3
    }
    fn frame(&self, select: Select) -> Frame {
        let f = &self.frame;
        let pick = |on: bool, v: &Option<Vec<f32>>| v.as_ref().filter(|_| on).cloned();
        Frame {
            grid: f.grid,
            step: f.step,
            time: f.time,
            density: pick(select.density, &f.density),
            temperature: pick(select.temperature, &f.temperature),
            fuel: pick(select.fuel, &f.fuel),
            flame: pick(select.flame, &f.flame),
            velocity: f.velocity.as_ref().filter(|_| select.velocity).cloned(),
            pressure: None,
            divergence: None,
            solid: f.solid.as_ref().filter(|_| select.solid).cloned(),
            collision: None,
            emitters: f.emitters.clone(),
            streamlines: None,
        }
    }
    /// The fields as far as a run holds them (no face velocities or pressure: a run's
    /// velocity is at the cell centres), for what reads a state.
    fn state(&self) -> FieldState {
        let f = &self.frame;
        FieldState {
            time: f.time,
            steps: f.step,
            density: f.density.clone().unwrap_or_default(),
            temperature: f.temperature.clone().unwrap_or_default(),
            fuel: f.fuel.clone().unwrap_or_default(),
            flame: f.flame.clone().unwrap_or_default(),
            velocity: Default::default(),
            pressure: Vec::new(),
        }
    }
    fn set_state(&mut self, _: FieldState) -> Result<(), SimError> {
        Err(refused("the fields cannot be replaced"))
    }
    fn into_coarse(self: Box<Self>) -> Box<dyn Simulation> {
        self
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::run::{Existing, RunWriter};
    use crate::export::{ExportOptions, Format};

    #[test]
    fn steps_show_the_frames_in_turn_and_wrap_and_changes_are_refused() {
        let dir = std::env::temp_dir().join(format!("plume-replay-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let scene = Scene::default_plume().with_resolution(10);
        let opts = ExportOptions {
            formats: vec![Format::Npy],
            every: 2,
            ..ExportOptions::default()
        };
        let mut sim = scene.build_simulation().expect("sim");
        let (mut w, _) = RunWriter::create(&dir, &scene, &opts, Existing::Refuse).expect("run");
        let mut written = Vec::new();
        for _ in 0..3 {
            sim.step().expect("step");
            sim.step().expect("step");
            let f = crate::export::capture(sim.as_ref(), &opts);
            w.write(&f).expect("frame");
            written.push(f);
        }
        drop(w);
        let mut r = Replay::open(&dir).expect("opens");
        let all = Select::ALL;
        for k in 0..7 {
            let want = &written[k % 3];
            let got = r.frame(all);
            assert_eq!(
                (got.step, got.density.as_ref()),
                (want.step, want.density.as_ref())
            );
            assert_eq!(got.velocity, want.velocity);
            assert_eq!(r.position(), (k % 3, 3));
            assert!((r.time() - k as f64 * 2.0 * f64::from(scene.fluid.dt)).abs() < 1e-9);
            r.step().expect("next frame");
        }
        r.reset();
        assert_eq!(r.position().0, 0);
        // Frames written since it opened are followed: after the third, the fourth.
        r.seek(2).expect("frame 3");
        let (mut w, _) = RunWriter::create(&dir, &scene, &opts, Existing::Resume).expect("resume");
        let mut sim2 = scene.build_simulation().expect("sim");
        for _ in 0..8 {
            sim2.step().expect("step");
        }
        w.write(&crate::export::capture(sim2.as_ref(), &opts))
            .expect("frame 4");
        drop(w);
        r.step().expect("frame 4");
        assert_eq!(r.position(), (3, 4));
        assert_eq!(r.frame(all).step, 8);
        r.step().expect("round to the first");
        assert_eq!(r.position(), (0, 4));
        let e = r.set_params(scene.fluid.clone()).expect_err("refused");
        assert!(e.to_string().contains("load a scene"), "{e}");
        assert!(r.paint([0.5; 3], 0.1, 1.0, [0.0; 3]).is_err());
        // A frame deleted under it: the step says which file, and the shown frame stays.
        std::fs::remove_file(dir.join("plume_density_0002.npy")).expect("remove");
        let e = r.step().expect_err("missing file").to_string();
        assert!(
            e.contains("plume_density_0002.npy") && e.contains("missing"),
            "{e}"
        );
        assert_eq!(r.position().0, 0);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
