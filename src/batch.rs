//! The loop of a run, shared by `plume run` and Python's `plume.run`: re-simulate what a
//! resumed run already holds, then step and write each frame through the [`RunWriter`],
//! polling a stop request between steps. What the caller shows (a progress bar, a line per
//! frame, a Python callback) and how it asks to stop (a signal flag, Python's pending
//! KeyboardInterrupt) are its own; the folder rules and the order of steps and writes are
//! here once.

use crate::export::run::{RunWriter, Start};
use crate::export::{self, ExportError, ExportOptions};
use crate::sim::{SimError, Simulation};
use std::path::Path;

/// Why a run stopped before its last frame.
#[derive(Debug)]
pub enum Halt {
    /// A stop was asked for; `held` complete frames are in the folder.
    Interrupted {
        /// Complete frames in the folder.
        held: u32,
    },
    /// A step failed while re-simulating the frames a resumed run already holds.
    Resimulating(SimError),
    /// A step failed before frame `frame` (the earlier frames are complete).
    Step {
        /// The frame being simulated.
        frame: u32,
        /// What failed.
        source: SimError,
    },
    /// Writing a frame failed (the frame was discarded; the manifest lists the others).
    Write(ExportError),
}

/// What the loop tells its caller.
pub trait Watch {
    /// Whether to stop now (polled before every step and after every frame).
    fn stop(&mut self) -> bool;
    /// Frame `n` is complete at simulated time `time`.
    fn frame(&mut self, n: u32, time: f64);
    /// Frame `n` is complete and `sim` holds its state (a wedge draws thumbnails here).
    fn frame_sim(&mut self, _n: u32, _sim: &dyn Simulation) {}
}

/// Steps `sim` and writes frames `start.frames + 1 ..= frames`, `every` steps apart, first
/// re-simulating the `start.step` steps a resumed run's frames took.
pub fn drive(
    sim: &mut dyn Simulation,
    writer: &mut RunWriter,
    opts: &ExportOptions,
    start: Start,
    frames: u32,
    watch: &mut dyn Watch,
) -> Result<(), Halt> {
    for _ in 0..start.step {
        if watch.stop() {
            return Err(Halt::Interrupted { held: start.frames });
        }
        sim.step().map_err(Halt::Resimulating)?;
    }
    for n in start.frames + 1..=frames {
        for _ in 0..opts.every {
            if watch.stop() {
                return Err(Halt::Interrupted { held: n - 1 });
            }
            if let Err(source) = sim.step() {
                return Err(Halt::Step { frame: n, source });
            }
        }
        if let Err(e) = writer.write(&export::capture(sim, opts)) {
            return Err(match watch.stop() {
                true => Halt::Interrupted { held: n - 1 },
                false => Halt::Write(e),
            });
        }
        watch.frame(n, sim.time());
        watch.frame_sim(n, sim);
        if n < frames && watch.stop() {
            return Err(Halt::Interrupted { held: n });
        }
    }
    Ok(())
}

/// The message for a run stopped by `by` (a signal's name, Ctrl-C) with `held` of `frames`
/// frames in `dir`.
pub fn interrupted(by: &str, held: u32, frames: u32, dir: &Path) -> String {
    format!(
        "interrupted by {by}: {held} of {frames} frames are in {} (manifest.json lists them; \
         the frame in progress was discarded; --resume continues the run)",
        dir.display()
    )
}

/// The context of a step that failed before frame `frame`.
pub fn step_failed(frame: u32) -> String {
    format!(
        "stopped before frame {frame}: frames 1 to {} are complete (manifest.json lists them), \
         no frame holds a non-finite value",
        frame - 1
    )
}

/// The context of a step that failed while re-simulating a resumed run.
pub const RESIMULATING: &str = "re-simulating the run being resumed";
