//! `plume.open_run` and `plume.Run`: a run folder read back (`plume::export::read`), its
//! frames as NumPy arrays in the layout of the `.npy` export, whatever format holds them.

use crate::convert::guard;
use crate::fields;
use crate::scene::PyScene;
use plume::export::read::{ReadError, RunReader};
use plume::export::Fields;
use plume::frame::Frame;
use pyo3::exceptions::{PyFileNotFoundError, PyIndexError, PyMemoryError, PyOSError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::path::PathBuf;

/// A read error in Python's words: no run or no file is `FileNotFoundError`, a manifest
/// Plume cannot read or another run in the folder `ValueError`, no such frame
/// `IndexError`, a file changed or damaged `OSError`, too little memory `MemoryError`.
fn read_error(e: ReadError) -> PyErr {
    let text = e.to_string();
    match e {
        ReadError::NotARun { .. }
            if text.contains("no such folder") || text.contains("no manifest") =>
        {
            PyFileNotFoundError::new_err(text)
        }
        ReadError::NotARun { .. } | ReadError::Replaced { .. } => PyValueError::new_err(text),
        ReadError::NoSuchFrame { .. } => PyIndexError::new_err(text),
        ReadError::File { .. } if text.contains("is missing") => PyFileNotFoundError::new_err(text),
        ReadError::File { .. } => PyOSError::new_err(text),
        ReadError::Memory { .. } => PyMemoryError::new_err(text),
    }
}

/// Opens the run folder ``path`` (what ``plume run``, ``plume.run``, ``Simulation.export``,
/// a wedge's variant or the viewer's recording wrote) for reading: a ``plume.Run``.
/// ``FileNotFoundError`` when there is no such folder or no ``manifest.json`` in it,
/// ``ValueError`` when its manifest is not Plume's.
#[pyfunction]
pub fn open_run(py: Python<'_>, path: PathBuf) -> PyResult<PyRun> {
    let reader = py.detach(|| guard(|| RunReader::open(&path).map_err(read_error)))?;
    Ok(PyRun { reader })
}

/// A run folder opened for reading (``plume.open_run(path)``). ``len(run)`` frames;
/// ``run[i]`` (from 0, negative from the end) and ``for frame in run`` give each as a dict:
/// ``frame`` (its number, as its files are numbered), ``step``, ``time`` and every field the
/// run wrote as a float32 array, scalars ``(nz, ny, nx)`` and ``velocity`` ``(nz, ny, nx, 3)``
/// at the cell centres, y up (a run written with ``up="z"`` is turned back), as
/// ``Simulation`` gives them. Frames are read from ``.npy``, else ``.vti``, else ``.vdb``
/// files (``.vdb`` leaves out values at or under its cutoff, 1e-6, and ``half=True`` keeps
/// 11 bits). A file changed since Plume wrote it, damaged or missing is an ``OSError``
/// naming it, never a wrong array.
#[pyclass(module = "plume", name = "Run", sequence)]
pub struct PyRun {
    reader: RunReader,
}

impl PyRun {
    /// Frame `index` of the listed frames with `want`, as a dict.
    fn read<'py>(
        &self,
        py: Python<'py>,
        index: usize,
        want: Fields,
    ) -> PyResult<Bound<'py, PyDict>> {
        let reader = &self.reader;
        let mut f: Frame = py.detach(|| guard(|| reader.read(index, want).map_err(read_error)))?;
        let d = PyDict::new(py);
        let entry = &reader.frames()[index];
        d.set_item("frame", entry.frame)?;
        d.set_item("step", f.step)?;
        d.set_item("time", f.time)?;
        // The frame holds the fields asked for that the run wrote: each moved into its array.
        let empty = Frame::empty(f.grid, f.step, f.time);
        for (name, field) in [
            ("density", f.density.take()),
            ("temperature", f.temperature.take()),
            ("flame", f.flame.take()),
            ("fuel", f.fuel.take()),
            ("collision", f.collision.take()),
        ] {
            if let Some(v) = field {
                let one = Frame {
                    density: Some(v),
                    ..empty.clone()
                };
                d.set_item(name, fields::scalar_array(py, one, "density")?)?;
            }
        }
        if f.velocity.is_some() {
            d.set_item("velocity", fields::vector_array(py, f)?)?;
        }
        Ok(d)
    }

    /// A position from 0 (negative from the end) as an index into the frames.
    fn position(&self, i: i64) -> PyResult<usize> {
        let n = self.reader.frames().len() as i64;
        let k = if i < 0 { i + n } else { i };
        if (0..n).contains(&k) {
            Ok(k as usize)
        } else {
            Err(PyIndexError::new_err(format!(
                "frame index {i} is out of range: the run in {} lists {n} frames",
                self.reader.dir().display()
            )))
        }
    }
}

#[pymethods]
impl PyRun {
    fn __len__(&self) -> usize {
        self.reader.frames().len()
    }

    /// Reads ``manifest.json`` again, for a run still being written (``plume run`` in
    /// another process, ``Simulation.export`` in a loop): the frames written since the run
    /// was opened (or last refreshed) join it. Returns how many. ``ValueError`` where the
    /// folder now holds another run (overwritten since; the run stays as it was),
    /// ``FileNotFoundError`` where it is gone.
    fn refresh(&mut self, py: Python<'_>) -> PyResult<usize> {
        let reader = &mut self.reader;
        py.detach(|| guard(|| reader.refresh().map_err(read_error)))
    }

    /// Frame ``i`` of the run (from 0; negative from the end), every field it wrote.
    fn __getitem__<'py>(&self, py: Python<'py>, i: i64) -> PyResult<Bound<'py, PyDict>> {
        let index = self.position(i)?;
        self.read(py, index, self.reader.fields())
    }

    /// The frame numbered ``number`` (as its files and ``manifest.json`` number them, from 1;
    /// negative from the end, -1 the last), with only ``fields`` (a string such as
    /// ``"density,flame"`` or a list; default every field the run wrote). ``IndexError``
    /// for a number the run does not list, ``ValueError`` for a field it did not write.
    #[pyo3(signature = (number = -1, fields = None), text_signature = "($self, number=-1, fields=None)")]
    fn frame<'py>(
        &self,
        py: Python<'py>,
        number: i64,
        fields: Option<&Bound<'_, PyAny>>,
    ) -> PyResult<Bound<'py, PyDict>> {
        let index = self.reader.index_of(number).map_err(read_error)?;
        let have = self.reader.fields();
        let want = crate::args::fields_of(fields)?.unwrap_or(have);
        if let Some(missing) = want.names().into_iter().find(|n| !have.has(n)) {
            return Err(PyValueError::new_err(format!(
                "the run did not write {missing} (it wrote {})",
                have.names().join(", ")
            )));
        }
        self.read(py, index, want)
    }

    /// The frames listed, each a dict of ``frame``, ``step`` and ``time`` (no field read).
    #[getter]
    fn frames<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        let out = PyList::empty(py);
        for e in self.reader.frames() {
            let d = PyDict::new(py);
            d.set_item("frame", e.frame)?;
            d.set_item("step", e.step)?;
            d.set_item("time", e.time)?;
            out.append(d)?;
        }
        Ok(out)
    }

    /// The folder.
    #[getter]
    fn path(&self) -> PathBuf {
        self.reader.dir().to_path_buf()
    }

    /// The fields the run wrote, as ``fields=`` names them.
    #[getter]
    fn fields(&self) -> Vec<&'static str> {
        self.reader.fields().names()
    }

    /// The formats the run wrote (``"vdb"``, ``"vti"``, ``"npy"``, ``"vtp"``).
    #[getter]
    fn formats(&self) -> Vec<&'static str> {
        self.reader
            .manifest()
            .formats
            .iter()
            .map(|f| f.ext())
            .collect()
    }

    /// The format frames are read from.
    #[getter]
    fn format(&self) -> &'static str {
        self.reader.format().ext()
    }

    /// The scene the run simulated (a copy).
    #[getter]
    fn scene(&self) -> PyScene {
        PyScene {
            scene: self.reader.manifest().scene.clone(),
        }
    }

    /// Cells ``(nx, ny, nz)`` of the frames (y up; with ``upres`` the fine grid's).
    #[getter]
    fn dims(&self) -> (usize, usize, usize) {
        let [x, y, z] = self.reader.manifest().dims;
        (x, y, z)
    }

    /// Edge of a cell, domain units.
    #[getter]
    fn voxel_size(&self) -> f32 {
        self.reader.manifest().voxel_size
    }

    /// World position of the domain's minimum corner.
    #[getter]
    fn origin(&self) -> (f32, f32, f32) {
        let [x, y, z] = self.reader.manifest().origin;
        (x, y, z)
    }

    /// The up axis of the files (``"y"``, or ``"z"`` for Blender); arrays are y up either way.
    #[getter]
    fn up(&self) -> &'static str {
        self.reader.manifest().up.name()
    }

    /// Solver steps between frames.
    #[getter]
    fn every(&self) -> u32 {
        self.reader.manifest().every
    }

    /// The frame numbered ``number`` (default the last) drawn by Plume's renderer as
    /// ``Simulation.render`` draws a simulation: uint8 ``(height, width, 3)``.
    #[pyo3(
        signature = (number = -1, width = 640, height = 480, camera = None),
        text_signature = "($self, number=-1, width=640, height=480, camera=None)"
    )]
    fn render<'py>(
        &self,
        py: Python<'py>,
        number: i64,
        width: i64,
        height: i64,
        camera: Option<(f32, f32, f32)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (width, height) = crate::args::image_size(width, height)?;
        let index = self.reader.index_of(number).map_err(read_error)?;
        let scene = &self.reader.manifest().scene;
        let grid = self.reader.grid();
        let camera = crate::render::camera(scene, &grid, width, height, camera)?;
        let want = Fields {
            density: true,
            temperature: true,
            flame: true,
            fuel: false,
            velocity: false,
            collision: false,
        };
        let reader = &self.reader;
        let frame = py.detach(|| guard(|| reader.read(index, want).map_err(read_error)))?;
        let image = crate::render::render(py, scene, frame, camera, width, height)?;
        fields::image_array(py, image)
    }

    fn __repr__(&self) -> String {
        let m = self.reader.manifest();
        let [x, y, z] = m.dims;
        format!(
            "<plume.Run '{}': {} frames of scene '{}' on a {x}x{y}x{z} grid, {}>",
            self.reader.dir().display(),
            m.frames.len(),
            m.scene.name,
            self.reader.fields().names().join(", ")
        )
    }
}
