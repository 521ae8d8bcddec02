//! `plume.Simulation`: a scene built on a solver backend, stepped without the interpreter
//! lock, its fields handed out as NumPy arrays.

use crate::args::{backend_of, with_upres};
use crate::convert::{catch, export_error, internal, other_error, sim_error, to_py};
use crate::fields;
use crate::scene::PyScene;
use plume::export::run::{Existing, RunWriter};
use plume::frame::Select;
use plume::scene::Scene;
use plume::sim::Simulation;
use pyo3::exceptions::{PyMemoryError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use std::sync::{Mutex, MutexGuard};

pub(crate) struct Inner {
    pub sim: Box<dyn Simulation>,
    pub scene: Scene,
    pub backend: &'static str,
    pub why: String,
    /// The run folder `export` writes into, kept open (and locked) between calls.
    pub export: Option<RunWriter>,
}

/// A running simulation of a scene.
///
/// ::
///
///     sim = plume.Simulation(plume.Scene.preset("plume").with_size(64))
///     sim.step(60)                # one second at the default dt
///     d = sim.density             # float32 array, shape (nz, ny, nx)
///
/// ``backend`` is ``"cpu"``, ``"gpu"`` (OpenGL 4.3 compute shaders; ``RuntimeError`` where
/// there is none) or ``"auto"`` (the GPU where it is a hardware one that passes a start-up
/// check against the CPU, else the CPU; ``sim.why`` says which and why). ``upres`` 2, 3 or 4
/// adds the detail pass: smoke on a grid that many times finer (0: off, the scene's own
/// ``[detail]`` settings otherwise).
///
/// Steps, renders and exports run without the interpreter lock, so other Python threads go
/// on; Ctrl-C is honoured between steps.
#[pyclass(module = "plume", name = "Simulation")]
pub struct PySimulation {
    inner: Mutex<Inner>,
}

impl PySimulation {
    pub(crate) fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while it was held was turned into a RuntimeError; the solver's fields are
        // whole between its steps, so the simulation stays usable.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }
}

#[pymethods]
impl PySimulation {
    #[new]
    #[pyo3(signature = (scene, backend = "auto", upres = 0))]
    fn new(py: Python<'_>, scene: &PyScene, backend: &str, upres: i64) -> PyResult<Self> {
        let choice = backend_of(backend)?;
        let scene = with_upres(&scene.scene, upres)?;
        crate::convert::warn_notes(py, &scene)?;
        let need = plume::backend::host_memory(&scene, choice);
        plume::sim::solver::memory::check(need, &format!("simulating a {} grid", scene.dims()))
            .map_err(|e| PyMemoryError::new_err(e.to_string()))?;
        let built = py
            .detach(|| catch(|| plume::backend::build(&scene, choice)))
            .map_err(internal)?
            .map_err(sim_error)?;
        Ok(Self {
            inner: Mutex::new(Inner {
                sim: built.sim,
                scene,
                backend: built.backend,
                why: built.why,
                export: None,
            }),
        })
    }

    /// Advances ``n`` steps of ``dt`` each (``scene["fluid.dt"]``). ``RuntimeError`` where a
    /// field stops being finite (the fields stay as they were before that step);
    /// ``KeyboardInterrupt`` between steps on Ctrl-C (the steps taken stand).
    #[pyo3(signature = (n = 1))]
    fn step(&self, py: Python<'_>, n: i64) -> PyResult<()> {
        if n < 0 {
            return Err(PyValueError::new_err(format!(
                "n = {n}: steps cannot be negative"
            )));
        }
        for _ in 0..n {
            py.check_signals()?;
            py.detach(|| catch(|| self.lock().sim.step().map(|_| ())))
                .map_err(internal)?
                .map_err(sim_error)?;
        }
        Ok(())
    }

    /// Clears the fields and the clock; keeps the parameters, emitters and obstacles.
    fn reset(&self) {
        self.lock().sim.reset();
    }

    /// Simulated time, s.
    #[getter]
    fn time(&self) -> f64 {
        self.lock().sim.time()
    }

    /// Steps taken.
    #[getter]
    fn steps(&self) -> u64 {
        self.lock().sim.steps()
    }

    /// ``"cpu"`` or ``"gpu"``: the backend that runs it.
    #[getter]
    fn backend(&self) -> &'static str {
        self.lock().backend
    }

    /// One line: which backend runs it and why.
    #[getter]
    fn why(&self) -> String {
        self.lock().why.clone()
    }

    /// The scene it was built from (a copy).
    #[getter]
    fn scene(&self) -> PyScene {
        PyScene {
            scene: self.lock().scene.clone(),
        }
    }

    /// Cells along x, y (up) and z of the simulated grid (the arrays' shape is
    /// ``(nz, ny, nx)``; with ``upres`` the scalar fields read are on the finer grid).
    #[getter]
    fn dims(&self) -> (usize, usize, usize) {
        let d = self.lock().sim.grid().dims;
        (d.nx, d.ny, d.nz)
    }

    /// Edge length of a cell, domain units.
    #[getter]
    fn voxel_size(&self) -> f32 {
        self.lock().sim.grid().h
    }

    /// World position of the grid's minimum corner.
    #[getter]
    fn origin(&self) -> [f32; 3] {
        self.lock().sim.grid().origin
    }

    /// What the last step did, as ``plume bench`` and the viewer's overlay report it:
    /// ``total_ms``, ``stages`` (name and milliseconds of each), ``pressure_iterations``,
    /// ``pressure_residual``, ``substeps``, ``cfl``, ``work`` (in default steps) and the rest,
    /// with ``time``, ``steps``, ``backend``, ``pressure_solver``, ``total_density`` and
    /// ``memory_bytes``.
    fn stats<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let g = self.lock();
        let mut v = serde_json::to_value(g.sim.stats()).map_err(other_error)?;
        if let Some(o) = v.as_object_mut() {
            o.insert("time".into(), g.sim.time().into());
            o.insert("steps".into(), g.sim.steps().into());
            o.insert("backend".into(), g.backend.into());
            o.insert("pressure_solver".into(), g.sim.pressure_solver().into());
            o.insert("total_density".into(), g.sim.total_density().into());
            o.insert("memory_bytes".into(), g.sim.memory_bytes().into());
        }
        drop(g);
        json_to_py(py, &v)
    }

    /// Density, float32 ``(nz, ny, nx)``: a copy (changing it changes nothing in the
    /// simulation; ``set_density`` does).
    #[getter]
    fn density<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.scalar(py, "density")
    }

    /// Temperature, float32 ``(nz, ny, nx)``: a copy.
    #[getter]
    fn temperature<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.scalar(py, "temperature")
    }

    /// Flame, float32 ``(nz, ny, nx)``: a copy (zeros while nothing burns).
    #[getter]
    fn flame<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.scalar(py, "flame")
    }

    /// Fuel, float32 ``(nz, ny, nx)``: a copy (zeros while nothing burns).
    #[getter]
    fn fuel<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.scalar(py, "fuel")
    }

    /// Pressure of the last projection, float32 ``(nz, ny, nx)``: a copy.
    #[getter]
    fn pressure<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        self.scalar(py, "pressure")
    }

    /// Velocity at cell centres (the mean of each cell's two faces), float32
    /// ``(nz, ny, nx, 3)``, domain units per second: a copy.
    #[getter]
    fn velocity<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.frame(
            py,
            Select {
                velocity: true,
                ..Default::default()
            },
        )?;
        fields::vector_array(py, f)
    }

    /// Velocity on the cell faces where the solver holds it (the MAC grid): ``(u, v, w)``,
    /// float32 arrays shaped ``(nz, ny, nx+1)``, ``(nz, ny+1, nx)`` and ``(nz+1, ny, nx)``,
    /// copies. ``set_velocity_faces`` takes them back exactly.
    #[getter]
    fn velocity_faces<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let state = py
            .detach(|| catch(|| self.lock().sim.state()))
            .map_err(internal)?;
        let g = *self.lock().sim.grid();
        fields::faces_arrays(py, &g, state.velocity)
    }

    /// Solid cells (obstacles), bool ``(nz, ny, nx)``: a copy.
    #[getter]
    fn solid<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        let f = self.frame(
            py,
            Select {
                solid: true,
                ..Default::default()
            },
        )?;
        fields::solid_array(py, &f)
    }

    /// Replaces the density with a float32 array of shape ``(nz, ny, nx)`` (of the simulated
    /// grid). ``TypeError`` for another dtype, ``ValueError`` for another shape or a value
    /// that is not finite or below zero; on error nothing changes.
    fn set_density(&self, py: Python<'_>, array: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_scalar(py, "density", array)
    }

    /// Replaces the temperature (float32 ``(nz, ny, nx)``), as ``set_density``.
    fn set_temperature(&self, py: Python<'_>, array: &Bound<'_, PyAny>) -> PyResult<()> {
        self.set_scalar(py, "temperature", array)
    }

    /// Replaces the velocity with cell-centred values, float32 ``(nz, ny, nx, 3)``: each
    /// face takes the mean of its two cells (the one cell at the grid's border). Reading
    /// ``velocity`` back gives the same values where the field varies linearly;
    /// ``set_velocity_faces`` sets the faces exactly. The next step's projection makes it
    /// divergence-free.
    fn set_velocity(&self, py: Python<'_>, array: &Bound<'_, PyAny>) -> PyResult<()> {
        let dims = self.lock().sim.grid().dims;
        let cells = fields::read_array(array, "velocity", &[dims.nz, dims.ny, dims.nx, 3])?;
        let faces = fields::cells_to_faces(dims, &cells);
        self.replace(py, move |s| s.velocity = faces)
    }

    /// Replaces the velocity on the faces: ``u``, ``v``, ``w`` as ``velocity_faces`` gives.
    fn set_velocity_faces(
        &self,
        py: Python<'_>,
        u: &Bound<'_, PyAny>,
        v: &Bound<'_, PyAny>,
        w: &Bound<'_, PyAny>,
    ) -> PyResult<()> {
        let d = self.lock().sim.grid().dims;
        let faces = [
            fields::read_array(u, "u", &[d.nz, d.ny, d.nx + 1])?,
            fields::read_array(v, "v", &[d.nz, d.ny + 1, d.nx])?,
            fields::read_array(w, "w", &[d.nz + 1, d.ny, d.nx])?,
        ];
        self.replace(py, move |s| s.velocity = faces)
    }

    /// Adds smoke and pushes the fluid inside a ball, as a drag in the viewer does:
    /// ``center`` in domain units, ``radius`` (domain units), ``density`` added,
    /// ``velocity`` (domain units per second) given to the fluid inside.
    #[pyo3(
        signature = (center, radius = 0.05, density = 1.0, velocity = (0.0, 0.0, 0.0)),
        text_signature = "($self, center, radius=0.05, density=1.0, velocity=(0.0, 0.0, 0.0))"
    )]
    fn paint(
        &self,
        center: (f32, f32, f32),
        radius: f32,
        density: f32,
        velocity: (f32, f32, f32),
    ) -> PyResult<()> {
        let c = [center.0, center.1, center.2];
        let v = [velocity.0, velocity.1, velocity.2];
        if !(c.iter().chain(&v).all(|x| x.is_finite()) && radius.is_finite() && density.is_finite())
        {
            return Err(PyValueError::new_err("paint: every number must be finite"));
        }
        if radius <= 0.0 {
            return Err(PyValueError::new_err(format!(
                "paint: radius = {radius} must be above 0"
            )));
        }
        self.lock()
            .sim
            .paint(c, radius, density, v)
            .map_err(sim_error)
    }

    /// The volume drawn by Plume's renderer (the raymarcher of the viewer and ``plume render``,
    /// on a headless OpenGL context): uint8 ``(height, width, 3)``. ``camera`` is the scene's
    /// camera when ``None``, or ``(yaw, pitch, distance)`` in degrees and domain units around
    /// the domain's centre, as the ``--camera`` of ``plume render``.
    #[pyo3(signature = (width = 640, height = 480, camera = None))]
    fn render<'py>(
        &self,
        py: Python<'py>,
        width: i64,
        height: i64,
        camera: Option<(f32, f32, f32)>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let (width, height) = crate::args::image_size(width, height)?;
        let (scene, grid) = {
            let g = self.lock();
            (g.scene.clone(), *g.sim.grid())
        };
        let camera = crate::render::camera(&scene, &grid, width, height, camera)?;
        let frame = self.frame(
            py,
            Select {
                density: true,
                temperature: true,
                flame: true,
                ..Default::default()
            },
        )?;
        let image = crate::render::render(py, &scene, frame, camera, width, height)?;
        fields::image_array(py, image)
    }

    /// Writes the current fields as the next frame of a run folder, through the same writer
    /// as ``plume run`` (files ``<prefix>_<frame:04>.<ext>`` and ``manifest.json``, whole or
    /// not at all). The first call on a folder starts a run there: a folder holding another
    /// run is refused (``FileExistsError``) unless ``overwrite=True`` (only the files its
    /// manifest lists are removed); later calls with the same folder append frames. Returns
    /// the paths written.
    #[pyo3(signature = (folder, format = None, fields = None, up = "y", half = false,
                        prefix = "plume", overwrite = false))]
    #[allow(clippy::too_many_arguments)]
    fn export(
        &self,
        py: Python<'_>,
        folder: PathBuf,
        format: Option<&Bound<'_, PyAny>>,
        fields: Option<&Bound<'_, PyAny>>,
        up: &str,
        half: bool,
        prefix: &str,
        overwrite: bool,
    ) -> PyResult<Vec<PathBuf>> {
        let opts = crate::args::options(format, fields, up, half, prefix, 1)?;
        let written = py
            .detach(|| {
                catch(|| {
                    let mut g = self.lock();
                    let g = &mut *g;
                    let same = g
                        .export
                        .as_ref()
                        .is_some_and(|w| w.dir() == folder && *w.options() == opts);
                    if !same {
                        g.export = None;
                        let existing = match overwrite {
                            true => Existing::Overwrite,
                            false => Existing::Refuse,
                        };
                        let (w, _) = RunWriter::create_from(
                            &folder, &g.scene, &opts, existing, None, g.backend,
                        )?;
                        g.export = Some(w);
                    }
                    let frame = plume::export::capture(g.sim.as_ref(), &opts);
                    match g.export.as_mut() {
                        Some(w) => w.write(&frame).map(|(_, files)| files),
                        None => Ok(Vec::new()),
                    }
                })
            })
            .map_err(internal)?
            .map_err(export_error)?;
        Ok(written.into_iter().map(|f| folder.join(f)).collect())
    }

    fn __repr__(&self) -> String {
        let g = self.lock();
        let d = g.sim.grid().dims;
        format!(
            "<plume.Simulation {:?} on {} ({}×{}×{}), t = {:.3} s, {} steps>",
            g.scene.name,
            g.backend,
            d.nx,
            d.ny,
            d.nz,
            g.sim.time(),
            g.sim.steps()
        )
    }
}

impl PySimulation {
    pub(crate) fn frame(&self, py: Python<'_>, select: Select) -> PyResult<plume::frame::Frame> {
        py.detach(|| catch(|| self.lock().sim.frame(select)))
            .map_err(internal)
    }

    fn scalar<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        let select = Select {
            density: name == "density",
            temperature: name == "temperature",
            flame: name == "flame",
            fuel: name == "fuel",
            pressure: name == "pressure",
            ..Default::default()
        };
        let f = self.frame(py, select)?;
        fields::scalar_array(py, f, name)
    }

    fn set_scalar(&self, py: Python<'_>, name: &str, array: &Bound<'_, PyAny>) -> PyResult<()> {
        let d = self.lock().sim.grid().dims;
        let values = fields::read_array(array, name, &[d.nz, d.ny, d.nx])?;
        if name == "density" {
            if let Some(x) = values.iter().find(|x| **x < 0.0) {
                return Err(PyValueError::new_err(format!(
                    "density holds {x}: smoke cannot be negative"
                )));
            }
        }
        let name = name.to_string();
        self.replace(py, move |s| match name.as_str() {
            "density" => s.density = values,
            _ => s.temperature = values,
        })
    }

    /// Changes the solver's state with `change` (lengths checked by the solver).
    fn replace(
        &self,
        py: Python<'_>,
        change: impl FnOnce(&mut plume::sim::FieldState) + Send,
    ) -> PyResult<()> {
        py.detach(|| {
            catch(|| {
                let mut g = self.lock();
                let mut s = g.sim.state();
                change(&mut s);
                g.sim.set_state(s)
            })
        })
        .map_err(internal)?
        .map_err(sim_error)
    }
}

/// A JSON value (statistics) as Python objects.
pub(crate) fn json_to_py<'py>(
    py: Python<'py>,
    v: &serde_json::Value,
) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value as J;
    Ok(match v {
        J::Null => py.None().into_bound(py),
        J::Bool(b) => b.into_pyobject(py)?.to_owned().into_any(),
        J::Number(n) => match (n.as_i64(), n.as_f64()) {
            (Some(i), _) => i.into_pyobject(py)?.into_any(),
            (None, Some(f)) => f.into_pyobject(py)?.into_any(),
            _ => to_py(py, &toml::Value::String(n.to_string()))?,
        },
        J::String(s) => s.into_pyobject(py)?.into_any(),
        J::Array(a) => {
            let items = a
                .iter()
                .map(|x| json_to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            pyo3::types::PyList::new(py, items)?.into_any()
        }
        J::Object(o) => {
            let d = PyDict::new(py);
            for (k, x) in o {
                d.set_item(k, json_to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}
