//! `plume.Scene`, `plume.Emitter` and `plume.Obstacle`: the scene model of `plume-core`, its
//! values by dotted key, checked by the scene reader (one set of limits and messages).

use crate::convert::{from_py, key_error, to_py};
use plume_core::scene::{keys, Scene};
use plume_core::sim::{Emitter, Obstacle};
use pyo3::exceptions::{PyFileNotFoundError, PyKeyError, PyOSError, PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use std::path::PathBuf;
use toml::Value;

/// A scene: the grid, the fluid's parameters, emitters, obstacles, boundaries, camera and
/// render settings, as a scene file (TOML) holds them.
///
/// Every number of the range table is read and set by its dotted key, with the checks and
/// messages of a scene file::
///
///     scene = plume.Scene.preset("campfire")
///     scene["fluid.vorticity"] = 2.0
///     scene["emitter.0.temperature"]      # 1.35
///     scene.keys()                        # every numeric key of this scene
///
/// Methods that change a scene change it in place; ``with_size`` and ``copy`` return a new one.
#[pyclass(module = "plume", name = "Scene", eq)]
#[derive(Clone, PartialEq)]
pub struct PyScene {
    pub(crate) scene: Scene,
}

fn scene_error(e: plume_core::scene::SceneError) -> PyErr {
    PyValueError::new_err(e.to_string())
}

#[pymethods]
impl PyScene {
    /// The default scene (the ``plume`` preset): warm smoke rising from the floor.
    #[new]
    fn new() -> Self {
        Self {
            scene: Scene::default_plume(),
        }
    }

    /// One of the built-in presets by name (see ``Scene.presets()``); ``KeyError`` naming the
    /// presets for any other name.
    #[staticmethod]
    fn preset(name: &str) -> PyResult<Self> {
        Scene::preset(name)
            .map(|scene| Self { scene })
            .ok_or_else(|| {
                PyKeyError::new_err(format!(
                    "no preset {name:?}; the presets are {}",
                    Scene::preset_names().join(", ")
                ))
            })
    }

    /// The names of the built-in presets.
    #[staticmethod]
    fn presets() -> Vec<&'static str> {
        Scene::preset_names()
    }

    /// Reads a scene file (TOML). ``FileNotFoundError`` where there is none, ``ValueError``
    /// naming the line and key of anything wrong in it.
    #[staticmethod]
    fn load(path: PathBuf) -> PyResult<Self> {
        if !path.exists() {
            return Err(PyFileNotFoundError::new_err(format!(
                "no scene file {}",
                path.display()
            )));
        }
        Scene::load(&path)
            .map(|scene| Self { scene })
            .map_err(scene_error)
    }

    /// A scene from the text of a scene file.
    #[staticmethod]
    fn from_toml(text: &str) -> PyResult<Self> {
        Scene::from_toml(text, None)
            .map(|scene| Self { scene })
            .map_err(scene_error)
    }

    /// The scene as the text of a scene file.
    fn to_toml(&self) -> PyResult<String> {
        self.scene.to_toml().map_err(scene_error)
    }

    /// Writes the scene file (whole or not at all: written beside it, then renamed).
    fn save(&self, path: PathBuf) -> PyResult<()> {
        self.scene
            .save(&path)
            .map_err(|e| PyOSError::new_err(e.to_string()))
    }

    /// A copy with ``n`` cells along the longest side, the others scaled to keep the domain's
    /// proportions. Physical parameters are resolution-independent: it moves the same way.
    fn with_size(&self, n: i64) -> PyResult<Self> {
        if !(3..=1024).contains(&n) {
            return Err(PyValueError::new_err(format!(
                "size {n} is outside the allowed range 3..=1024 cells"
            )));
        }
        let n = n as usize;
        let scene = self.scene.clone().with_resolution(n);
        scene.validate().map_err(scene_error)?;
        Ok(Self { scene })
    }

    /// A copy with the grid ``(nx, ny, nz)`` (y is up).
    fn with_dims(&self, dims: (usize, usize, usize)) -> PyResult<Self> {
        let d = plume_core::sim::Dims::new(dims.0, dims.1, dims.2);
        let scene = self.scene.clone().with_dims(d);
        scene.validate().map_err(scene_error)?;
        Ok(Self { scene })
    }

    /// An independent copy.
    fn copy(&self) -> Self {
        self.clone()
    }

    fn __copy__(&self) -> Self {
        self.clone()
    }

    fn __deepcopy__(&self, _memo: &Bound<'_, PyAny>) -> Self {
        self.clone()
    }

    /// The value at a dotted key: a number, a tuple of numbers, a string, or ``None`` where
    /// the key is one the scene may hold but leaves unset. ``KeyError`` names close keys.
    fn __getitem__<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyAny>> {
        match keys::get(&self.scene, key).map_err(key_error)? {
            Some(v) => to_py(py, &v),
            None => Ok(py.None().into_bound(py)),
        }
    }

    /// Sets the value at a dotted key, refused (``ValueError``, ``TypeError``) as a scene
    /// file holding it would be; on error the scene is unchanged.
    fn __setitem__(&mut self, key: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let v = from_py(value, key)?;
        self.scene = keys::set(&self.scene, key, v).map_err(key_error)?;
        Ok(())
    }

    fn __contains__(&self, key: &str) -> bool {
        keys::get(&self.scene, key).is_ok()
    }

    /// The value at ``key``, or ``default`` where the key is unset.
    #[pyo3(signature = (key, default=None))]
    fn get<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        default: Option<Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        match keys::get(&self.scene, key).map_err(key_error)? {
            Some(v) => to_py(py, &v),
            None => Ok(default.unwrap_or_else(|| py.None().into_bound(py))),
        }
    }

    /// Every numeric key of this scene: the range table's entries under their sections, and
    /// each emitter's and obstacle's (``emitter.0.density``, …).
    fn keys(&self) -> Vec<String> {
        keys::number_keys(&self.scene)
    }

    /// The allowed range of a numeric key: a dict with ``min``, ``max``, ``min_open``,
    /// ``max_open``, ``default``, ``unit``, ``integer`` and ``doc`` (from the range table).
    #[staticmethod]
    fn range<'py>(py: Python<'py>, key: &str) -> PyResult<Bound<'py, PyDict>> {
        let p = keys::param(key).ok_or_else(|| {
            PyKeyError::new_err(format!("{key:?} has no entry in the range table"))
        })?;
        let d = PyDict::new(py);
        d.set_item("min", p.min)?;
        d.set_item("max", p.max)?;
        d.set_item("min_open", p.min_open)?;
        d.set_item("max_open", p.max_open)?;
        d.set_item("default", p.default)?;
        d.set_item("unit", p.unit)?;
        d.set_item("integer", p.integer)?;
        d.set_item("doc", p.doc.trim())?;
        Ok(d)
    }

    /// The scene's name.
    #[getter]
    fn name(&self) -> &str {
        &self.scene.name
    }

    #[setter]
    fn set_name(&mut self, name: String) -> PyResult<()> {
        let mut s = self.scene.clone();
        s.name = name;
        s.validate().map_err(scene_error)?;
        self.scene = s;
        Ok(())
    }

    /// One line about what the scene shows.
    #[getter]
    fn description(&self) -> &str {
        &self.scene.description
    }

    #[setter]
    fn set_description(&mut self, text: String) {
        self.scene.description = text;
    }

    /// Cells along x, y (up) and z.
    #[getter]
    fn dims(&self) -> (usize, usize, usize) {
        let d = self.scene.dims();
        (d.nx, d.ny, d.nz)
    }

    /// The emitters, as copies: assign a list to change them
    /// (``scene.emitters = [*scene.emitters, plume.Emitter(...)]``), or set one value by key
    /// (``scene["emitter.0.density"] = 3``).
    #[getter]
    fn emitters(&self) -> PyResult<Vec<PyEmitter>> {
        self.scene
            .emitters
            .iter()
            .map(|e| {
                Ok(PyEmitter {
                    table: table_of(e)?,
                })
            })
            .collect()
    }

    #[setter]
    fn set_emitters(&mut self, list: Vec<PyRef<'_, PyEmitter>>) -> PyResult<()> {
        let mut s = self.scene.clone();
        s.emitters = list.iter().map(|e| e.build()).collect::<PyResult<_>>()?;
        s.validate().map_err(scene_error)?;
        self.scene = s;
        Ok(())
    }

    /// The obstacles, as copies (as ``emitters``).
    #[getter]
    fn obstacles(&self) -> PyResult<Vec<PyObstacle>> {
        self.scene
            .obstacles
            .iter()
            .map(|o| {
                Ok(PyObstacle {
                    table: table_of(o)?,
                })
            })
            .collect()
    }

    #[setter]
    fn set_obstacles(&mut self, list: Vec<PyRef<'_, PyObstacle>>) -> PyResult<()> {
        let mut s = self.scene.clone();
        s.obstacles = list.iter().map(|o| o.build()).collect::<PyResult<_>>()?;
        s.validate().map_err(scene_error)?;
        self.scene = s;
        Ok(())
    }

    /// What is worth knowing before running it: a step's cost far above the default scene's,
    /// meshes that are not closed (what ``plume run`` prints first).
    fn notes(&self) -> Vec<String> {
        self.scene.notes()
    }

    fn __repr__(&self) -> String {
        let d = self.scene.dims();
        format!(
            "<plume.Scene {:?}: {}×{}×{} cells, {} emitter{}, {} obstacle{}>",
            self.scene.name,
            d.nx,
            d.ny,
            d.nz,
            self.scene.emitters.len(),
            if self.scene.emitters.len() == 1 {
                ""
            } else {
                "s"
            },
            self.scene.obstacles.len(),
            if self.scene.obstacles.len() == 1 {
                ""
            } else {
                "s"
            },
        )
    }
}

fn table_of<T: serde::Serialize>(x: &T) -> PyResult<toml::Table> {
    match Value::try_from(x) {
        Ok(Value::Table(t)) => Ok(t),
        Ok(_) => Err(PyTypeError::new_err("not a table")),
        Err(e) => Err(PyValueError::new_err(e.to_string())),
    }
}

fn table_from_kwargs(kwargs: Option<&Bound<'_, PyDict>>, what: &str) -> PyResult<toml::Table> {
    let mut t = toml::Table::new();
    if let Some(kw) = kwargs {
        for (k, v) in kw.iter() {
            let k: String = k.extract()?;
            let value = from_py(&v, &format!("{what}.{k}"))?;
            t.insert(k, value);
        }
    }
    Ok(t)
}

fn parse<T: serde::de::DeserializeOwned>(t: &toml::Table, what: &str) -> PyResult<T> {
    Value::Table(t.clone())
        .try_into()
        .map_err(|e: toml::de::Error| {
            PyValueError::new_err(format!("{what}: {}", e.message().trim()))
        })
}

fn attr<'py>(
    py: Python<'py>,
    t: &toml::Table,
    name: &str,
    what: &str,
) -> PyResult<Bound<'py, PyAny>> {
    match t.get(name) {
        Some(v) => to_py(py, v),
        None if KNOWN.contains(&name) => Ok(py.None().into_bound(py)),
        None => Err(pyo3::exceptions::PyAttributeError::new_err(format!(
            "{what} has no attribute {name:?}"
        ))),
    }
}

/// The keys an emitter or obstacle table may hold (unset ones read as `None`).
const KNOWN: [&str; 20] = [
    "shape",
    "center",
    "radius",
    "size",
    "file",
    "rotation",
    "scale",
    "key",
    "loop",
    "smooth",
    "emit",
    "density",
    "fuel",
    "flame",
    "temperature",
    "velocity",
    "start",
    "end",
    "pulse",
    "position",
];

fn set_attr(t: &mut toml::Table, name: &str, value: &Bound<'_, PyAny>, what: &str) -> PyResult<()> {
    if value.is_none() {
        t.remove(name);
    } else {
        t.insert(name.to_string(), from_py(value, &format!("{what}.{name}"))?);
    }
    Ok(())
}

/// A smoke (and fuel, heat, flame) source: ``shape`` ``"sphere"`` (``radius``), ``"box"``
/// (``size``) or ``"mesh"`` (``file``), ``center``, ``density``, ``temperature``,
/// ``velocity``, ``fuel``, ``flame``, ``start``, ``end``, ``pulse``, ``rotation``, ``scale``
/// and key frames (``key``), named as in a scene file's ``[[emitter]]`` table::
///
///     plume.Emitter(shape="sphere", center=(0.5, 0.1, 0.5), radius=0.06,
///                   density=2.0, temperature=1.0, velocity=(0, 0.3, 0))
///
/// Each value is checked when set, against the range table.
#[pyclass(module = "plume", name = "Emitter", eq)]
#[derive(Clone, PartialEq)]
pub struct PyEmitter {
    table: toml::Table,
}

impl PyEmitter {
    fn build(&self) -> PyResult<Emitter> {
        let e: Emitter = parse(&self.table, "emitter")?;
        e.validate()
            .map_err(|err| PyValueError::new_err(format!("emitter: {err}")))?;
        Ok(e)
    }
}

#[pymethods]
impl PyEmitter {
    /// An emitter from keyword arguments (none: the default scene's emitter).
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let table = match kwargs.is_some_and(|k| !k.is_empty()) {
            true => table_from_kwargs(kwargs, "emitter")?,
            false => table_of(&Emitter::default())?,
        };
        let e = Self { table };
        e.build()?;
        Ok(e)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        attr(py, &self.table, name, "Emitter")
    }

    fn __setattr__(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut t = self.table.clone();
        set_attr(&mut t, name, value, "emitter")?;
        let changed = Self { table: t };
        changed.build()?;
        *self = changed;
        Ok(())
    }

    /// The emitter as a dict of its scene-file keys.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Table(self.table.clone()))
    }

    fn __repr__(&self) -> String {
        format!("plume.Emitter({})", inline(&self.table))
    }
}

/// A solid the fluid flows around: ``shape``, ``center``, ``radius``/``size``/``file``,
/// ``rotation``, ``scale`` and key frames (``key``), as in a scene file's ``[[obstacle]]``
/// table. Checked in full when a scene takes it (``scene.obstacles = [...]``).
#[pyclass(module = "plume", name = "Obstacle", eq)]
#[derive(Clone, PartialEq)]
pub struct PyObstacle {
    table: toml::Table,
}

impl PyObstacle {
    fn build(&self) -> PyResult<Obstacle> {
        parse(&self.table, "obstacle")
    }
}

#[pymethods]
impl PyObstacle {
    /// An obstacle from keyword arguments (``center`` is required).
    #[new]
    #[pyo3(signature = (**kwargs))]
    fn new(kwargs: Option<&Bound<'_, PyDict>>) -> PyResult<Self> {
        let o = Self {
            table: table_from_kwargs(kwargs, "obstacle")?,
        };
        o.build()?;
        Ok(o)
    }

    fn __getattr__<'py>(&self, py: Python<'py>, name: &str) -> PyResult<Bound<'py, PyAny>> {
        attr(py, &self.table, name, "Obstacle")
    }

    fn __setattr__(&mut self, name: &str, value: &Bound<'_, PyAny>) -> PyResult<()> {
        let mut t = self.table.clone();
        set_attr(&mut t, name, value, "obstacle")?;
        let changed = Self { table: t };
        changed.build()?;
        *self = changed;
        Ok(())
    }

    /// The obstacle as a dict of its scene-file keys.
    fn to_dict<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        to_py(py, &Value::Table(self.table.clone()))
    }

    fn __repr__(&self) -> String {
        format!("plume.Obstacle({})", inline(&self.table))
    }
}

fn inline(t: &toml::Table) -> String {
    t.iter()
        .map(|(k, v)| format!("{k}={v}"))
        .collect::<Vec<_>>()
        .join(", ")
}
