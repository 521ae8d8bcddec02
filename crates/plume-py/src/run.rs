//! `plume.run`: `plume run` from Python, through the same run writer, folder rules and loop
//! (`plume::batch`), with Ctrl-C as a KeyboardInterrupt between steps.

use crate::args::{backend_of, options, with_upres};
use crate::convert::{catch, export_error, internal, other_error, pythonic, sim_error};
use crate::scene::PyScene;
use plume::batch::{self, Halt, Watch};
use plume::export::run::{Existing, RunWriter};
use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;

/// Polls Python's signal handlers between steps; calls `progress(frame, frames, time)`.
pub(crate) struct PyWatch<'a> {
    /// The KeyboardInterrupt that stopped the run.
    pub interrupt: Option<PyErr>,
    progress: Option<&'a Py<PyAny>>,
    /// What the progress callback raised.
    pub failed: Option<PyErr>,
    frames: u32,
}

impl<'a> PyWatch<'a> {
    /// A watch calling `progress` (if any) for each of `frames` frames.
    pub fn new(progress: Option<&'a Py<PyAny>>, frames: u32) -> Self {
        Self {
            interrupt: None,
            progress,
            failed: None,
            frames,
        }
    }
}

impl Watch for PyWatch<'_> {
    fn stop(&mut self) -> bool {
        if self.interrupt.is_some() || self.failed.is_some() {
            return true;
        }
        if let Err(e) = Python::attach(|py| py.check_signals()) {
            self.interrupt = Some(e);
        }
        self.interrupt.is_some()
    }

    fn frame(&mut self, n: u32, time: f64) {
        if let Some(cb) = self.progress {
            Python::attach(|py| {
                if let Err(e) = cb.call1(py, (n, self.frames, time)) {
                    // Ctrl-C while the callback ran is a stop like any other.
                    match e.is_instance_of::<PyKeyboardInterrupt>(py) {
                        true => self.interrupt = Some(e),
                        false => self.failed = Some(e),
                    }
                }
            });
        }
    }
}

/// Simulates ``scene`` and writes ``frames`` frames, ``every`` steps apart, into the folder
/// ``out``, exactly as ``plume run`` does (the same files, ``manifest.json`` and folder
/// rules; see ``docs/export.md``).
#[pyfunction]
#[pyo3(signature = (scene, frames, out, every = 1, formats = None, fields = None,
                    backend = "auto", upres = 0, up = "y", half = false, prefix = "plume",
                    resume = false, overwrite = false, progress = None))]
#[allow(clippy::too_many_arguments)]
pub fn run<'py>(
    py: Python<'py>,
    scene: &PyScene,
    frames: i64,
    out: PathBuf,
    every: i64,
    formats: Option<&Bound<'_, PyAny>>,
    fields: Option<&Bound<'_, PyAny>>,
    backend: &str,
    upres: i64,
    up: &str,
    half: bool,
    prefix: &str,
    resume: bool,
    overwrite: bool,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    if resume && overwrite {
        return Err(PyValueError::new_err(
            "resume=True and overwrite=True: choose one",
        ));
    }
    let frames = crate::args::whole("frames", frames, 1, 1_000_000)?;
    let every = crate::args::whole("every", every, 1, 1_000_000)?;
    let opts = options(formats, fields, up, half, prefix, every)?;
    let choice = backend_of(backend)?;
    let scene = with_upres(&scene.scene, upres)?;
    crate::convert::warn_notes(py, &scene)?;
    let need = plume::commands::run_memory(&scene, &opts, choice).map_err(other_error)?;
    plume::sim::solver::memory::check(
        need,
        &format!("simulating and exporting a {} grid", scene.dims()),
    )
    .map_err(|e| PyMemoryError::new_err(e.to_string()))?;
    let existing = match (overwrite, resume) {
        (true, _) => Existing::Overwrite,
        (_, true) => Existing::Resume,
        _ => Existing::Refuse,
    };
    let built = py
        .detach(|| catch(|| plume::backend::build(&scene, choice)))
        .map_err(internal)?
        .map_err(sim_error)?;
    let mut sim = built.sim;
    let (mut writer, start) = py
        .detach(|| {
            catch(|| {
                RunWriter::create_from(&out, &scene, &opts, existing, Some(frames), built.backend)
            })
        })
        .map_err(internal)?
        .map_err(export_error)?;
    let mut watch = PyWatch::new(progress.as_ref(), frames);
    let clock = std::time::Instant::now();
    let ran = match start.frames >= frames {
        true => Ok(()),
        false => py
            .detach(|| {
                catch(|| batch::drive(sim.as_mut(), &mut writer, &opts, start, frames, &mut watch))
            })
            .map_err(internal)?,
    };
    if let Some(e) = watch.failed.take() {
        return Err(e);
    }
    if let Err(halt) = ran {
        return Err(match halt {
            Halt::Interrupted { held } => PyKeyboardInterrupt::new_err(pythonic(
                &batch::interrupted("Ctrl-C", held, frames, &out),
            )),
            Halt::Resimulating(e) => {
                PyRuntimeError::new_err(format!("{}: {e}", batch::RESIMULATING))
            }
            Halt::Step { frame, source } => {
                let msg = format!("{}: {source}", batch::step_failed(frame));
                PyRuntimeError::new_err(msg)
            }
            Halt::Write(e) => export_error(e),
        });
    }
    let d = PyDict::new(py);
    d.set_item("out", out)?;
    d.set_item("frames", frames)?;
    d.set_item("written", frames.saturating_sub(start.frames))?;
    d.set_item("resumed_after", start.frames)?;
    d.set_item("temporaries_removed", start.temporaries_removed)?;
    d.set_item("backend", built.backend)?;
    d.set_item("why", built.why)?;
    d.set_item("seconds", clock.elapsed().as_secs_f64())?;
    Ok(d)
}
