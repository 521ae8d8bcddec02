//! The pieces of a wedge that `plume.wedge` (python/plume/wedge.py) puts together, here or on
//! a Dask cluster: planning and the index (on the client), one variant's run (the task a
//! worker runs), and the contact sheets. They are `plume wedge`'s own functions
//! (`plume::wedge`, `plume::wedge_command`), so both leave the same folder.

use crate::args::{backend_of, with_upres};
use crate::convert::{catch, internal, to_py};
use crate::scene::PyScene;
use plume::export::run::Existing;
use plume::scene::Scene;
use plume::wedge::{self, Ended, Index, Job, State, Vary};
use pyo3::exceptions::{PyFileExistsError, PyKeyboardInterrupt, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;

/// Everything a variant's run needs, as Python passes it around (to workers too).
#[allow(clippy::too_many_arguments)]
fn job(
    out: PathBuf,
    frames: u32,
    every: u32,
    formats: Option<&Bound<'_, PyAny>>,
    fields: Option<&Bound<'_, PyAny>>,
    backend: &str,
    up: &str,
    half: bool,
    prefix: &str,
    sheet_every: Option<u32>,
    overwrite: bool,
    resume: bool,
) -> PyResult<Job> {
    if frames == 0 {
        return Err(PyValueError::new_err(
            "frames = 0: a run writes at least one frame",
        ));
    }
    Ok(Job {
        out,
        frames,
        opts: crate::args::options(formats, fields, up, half, prefix, every)?,
        backend: backend_of(backend)?,
        sheet_every,
        existing: existing_of(overwrite, resume)?,
    })
}

/// What to do with an earlier wedge or run in the folder.
fn existing_of(overwrite: bool, resume: bool) -> PyResult<Existing> {
    match (overwrite, resume) {
        (true, true) => Err(PyValueError::new_err(
            "resume=True and overwrite=True: choose one",
        )),
        (true, _) => Ok(Existing::Overwrite),
        (_, true) => Ok(Existing::Resume),
        _ => Ok(Existing::Refuse),
    }
}

/// `KEY=a,b,c` or `KEY=from:to:count` as `(key, [values])`, parsed as `plume wedge --vary`.
#[pyfunction]
pub fn _parse_vary<'py>(py: Python<'py>, text: &str) -> PyResult<Bound<'py, PyAny>> {
    let v = Vary::parse(text).map_err(PyValueError::new_err)?;
    let values = v
        .values
        .iter()
        .map(|x| to_py(py, x))
        .collect::<PyResult<Vec<_>>>()?;
    Ok((v.key, PyList::new(py, values)?)
        .into_pyobject(py)?
        .into_any())
}

fn varies(vary: &Bound<'_, PyDict>) -> PyResult<Vec<Vary>> {
    let mut out = vec![];
    for (k, vs) in vary.iter() {
        let key: String = k.extract()?;
        let mut values = vec![];
        for x in vs.try_iter().map_err(|_| {
            pyo3::exceptions::PyTypeError::new_err(format!("vary[{key:?}] takes a list of values"))
        })? {
            values.push(crate::convert::from_py(&x?, &key)?);
        }
        if values.is_empty() {
            return Err(PyValueError::new_err(format!(
                "vary[{key:?}] has no values"
            )));
        }
        out.push(Vary { key, values });
    }
    Ok(out)
}

/// A variant still to run: its number, folder and scene (TOML).
type Todo = (usize, String, String);

/// The wedge folder held by this driver ([`wedge::hold`]) until `release()` (or until it is
/// garbage-collected).
#[pyclass(module = "plume")]
pub struct _WedgeHold(Option<plume::export::folder::FolderLock>);

#[pymethods]
impl _WedgeHold {
    /// Lets go of the folder.
    fn release(&mut self) {
        self.0 = None;
    }
}

/// Plans the wedge of `scene` over `vary` in `out`: checks every value, takes the folder for
/// this driver ([`wedge::hold`]) and checks it (an earlier wedge needs `resume` or
/// `overwrite`), writes `wedge.json`, and returns the hold with the variants still to run as
/// `(index, folder, scene TOML)`.
#[pyfunction]
#[pyo3(signature = (scene, vary, frames, out, every = 1, upres = 0, resume = false,
                    overwrite = false))]
#[allow(clippy::too_many_arguments)]
pub fn _wedge_prepare(
    scene: &PyScene,
    vary: &Bound<'_, PyDict>,
    frames: i64,
    out: PathBuf,
    every: i64,
    upres: i64,
    resume: bool,
    overwrite: bool,
) -> PyResult<(_WedgeHold, Vec<Todo>)> {
    let frames = crate::args::whole("frames", frames, 1, 1_000_000)?;
    let every = crate::args::whole("every", every, 1, 1_000_000)?;
    let base = with_upres(&scene.scene, upres)?;
    let vary = varies(vary)?;
    let variants = wedge::plan(&base, &vary).map_err(PyValueError::new_err)?;
    let existing = existing_of(overwrite, resume)?;
    // One driver a folder: a second is refused (`OSError`, with the first one's process id).
    let hold = wedge::hold(&out).map_err(crate::convert::export_error)?;
    let index =
        plume::wedge_command::prepare(&out, frames, every, existing, &base, &vary, &variants)
            .map_err(|e| PyFileExistsError::new_err(crate::convert::pythonic(&e)))?;
    index
        .save(&out)
        .map_err(pyo3::exceptions::PyOSError::new_err)?;
    let mut todo = vec![];
    for (v, e) in variants.iter().zip(&index.variants) {
        let dir = out.join(&v.folder);
        let complete =
            wedge::frames_in(&dir) >= frames && dir.join(wedge::thumb_name(frames)).is_file();
        if e.state == State::Done && complete {
            continue;
        }
        let text = v
            .scene
            .to_toml()
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        todo.push((v.index, v.folder.clone(), text));
    }
    Ok((_WedgeHold(Some(hold)), todo))
}

/// Runs one variant (the task a Dask worker runs): `(state, frames, message)`. Its folder
/// continues (a retry after a worker died resumes it) unless `overwrite`.
#[pyfunction]
#[pyo3(signature = (out, index, folder, scene_toml, frames, every = 1, formats = None,
                    fields = None, backend = "auto", up = "y", half = false, prefix = "plume",
                    sheet_every = None, overwrite = false))]
#[allow(clippy::too_many_arguments)]
pub fn _wedge_variant(
    py: Python<'_>,
    out: PathBuf,
    index: usize,
    folder: String,
    scene_toml: &str,
    frames: u32,
    every: u32,
    formats: Option<&Bound<'_, PyAny>>,
    fields: Option<&Bound<'_, PyAny>>,
    backend: &str,
    up: &str,
    half: bool,
    prefix: &str,
    sheet_every: Option<u32>,
    overwrite: bool,
) -> PyResult<(String, u32, Option<String>)> {
    let j = job(
        out.clone(),
        frames,
        every,
        formats,
        fields,
        backend,
        up,
        half,
        prefix,
        sheet_every,
        overwrite,
        !overwrite,
    )?;
    let scene =
        Scene::from_toml(scene_toml, None).map_err(|e| PyValueError::new_err(e.to_string()))?;
    let v = wedge::Variant {
        index,
        folder,
        values: vec![],
        scene,
    };
    let mut watch = crate::run::PyWatch::new(None, frames);
    let ended = py
        .detach(|| catch(|| wedge::run_variant(&j, &v, &mut watch)))
        .map_err(internal)?;
    let held = wedge::frames_in(&out.join(&v.folder));
    Ok(match ended {
        Ended::Done => ("done".into(), held, None),
        Ended::Interrupted(_) => {
            return Err(watch
                .interrupt
                .unwrap_or_else(|| PyKeyboardInterrupt::new_err("interrupted")))
        }
        Ended::Failed(m) => ("failed".into(), held, Some(m)),
    })
}

/// Records variant `index`'s state (`pending`, `running`, `done`, `failed`, `interrupted`)
/// and message in `out/wedge.json`, with the frames its folder holds.
#[pyfunction]
#[pyo3(signature = (out, index, state, message = None))]
pub fn _wedge_record(
    out: PathBuf,
    index: usize,
    state: &str,
    message: Option<String>,
) -> PyResult<()> {
    let mut idx = load(&out)?;
    let state: State = serde_json::from_value(serde_json::Value::String(state.into()))
        .map_err(|e| PyValueError::new_err(format!("state {state:?}: {e}")))?;
    let e = idx
        .variants
        .get_mut(index.wrapping_sub(1))
        .ok_or_else(|| PyValueError::new_err(format!("no variant {index}")))?;
    e.state = state;
    e.frames = wedge::frames_in(&out.join(&e.folder));
    e.message = message;
    idx.save(&out).map_err(pyo3::exceptions::PyOSError::new_err)
}

fn load(out: &std::path::Path) -> PyResult<Index> {
    Index::load(out)
        .map_err(pyo3::exceptions::PyOSError::new_err)?
        .ok_or_else(|| PyValueError::new_err(format!("{} holds no wedge.json", out.display())))
}

/// Draws the contact sheets of the wedge in `out` (`contact.png`, and every `sheet_every`
/// frames); returns the index as a dict.
#[pyfunction]
#[pyo3(signature = (out, sheet_every = None))]
pub fn _wedge_finish<'py>(
    py: Python<'py>,
    out: PathBuf,
    sheet_every: Option<u32>,
) -> PyResult<Bound<'py, PyAny>> {
    let idx = load(&out)?;
    let j = Job {
        out: out.clone(),
        frames: idx.frames,
        opts: Default::default(),
        backend: Default::default(),
        sheet_every,
        existing: Existing::Resume,
    };
    py.detach(|| catch(|| plume::wedge_command::sheets(&j, &idx)))
        .map_err(internal)?
        .map_err(pyo3::exceptions::PyOSError::new_err)?;
    let v = serde_json::to_value(&idx).map_err(crate::convert::other_error)?;
    crate::simulation::json_to_py(py, &v)
}
