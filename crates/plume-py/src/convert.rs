//! Between Rust and Python: scene values (TOML) as Python objects and back, Plume's errors
//! as Python exceptions, and the guard that turns a panic into a `RuntimeError`.

use plume_core::export::ExportError;
use plume_core::scene::keys::KeyError;
use plume_core::sim::SimError;
use pyo3::exceptions::{
    PyFileExistsError, PyFileNotFoundError, PyKeyError, PyMemoryError, PyOSError, PyRuntimeError,
    PyTypeError, PyValueError,
};
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString, PyTuple};
use toml::Value;

/// Runs `f`, turning a panic into a `RuntimeError` (PyO3 would raise a `PanicException`,
/// which derives from `BaseException` and escapes `except Exception`).
pub fn guard<T>(f: impl FnOnce() -> PyResult<T>) -> PyResult<T> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => Err(panicked(payload)),
    }
}

/// As [`guard`] for work done without the interpreter (inside `py.detach`): the result is
/// plain Rust, converted to an exception afterwards.
pub fn catch<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| panic_text(&p))
}

fn panic_text(payload: &Box<dyn std::any::Any + Send>) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown cause".to_string())
}

fn panicked(payload: Box<dyn std::any::Any + Send>) -> PyErr {
    internal(panic_text(&payload))
}

/// The `RuntimeError` for a panic with message `what`.
pub fn internal(what: String) -> PyErr {
    PyRuntimeError::new_err(format!(
        "internal error in Plume (please report it): {what}"
    ))
}

/// A scene key's error: `KeyError`, `TypeError` or `ValueError`.
pub fn key_error(e: KeyError) -> PyErr {
    match e {
        KeyError::Unknown { .. } => PyKeyError::new_err(e.to_string()),
        KeyError::Type(m) => PyTypeError::new_err(m),
        KeyError::Value(m) => PyValueError::new_err(m),
    }
}

/// A simulation's error: a refused parameter is a `ValueError`, a missing GPU or a failed
/// step a `RuntimeError`, too little memory a `MemoryError`.
pub fn sim_error(e: SimError) -> PyErr {
    let text = pythonic(&e.to_string());
    match e {
        SimError::InvalidParameter(_) | SimError::Field { .. } => PyValueError::new_err(text),
        _ if text.contains("memory") => PyMemoryError::new_err(text),
        _ => PyRuntimeError::new_err(text),
    }
}

/// A folder or file error, in Python's words: the command line's `--overwrite` and
/// `--resume` are the arguments `overwrite=True` and `resume=True` here.
pub fn export_error(e: ExportError) -> PyErr {
    let text = pythonic(&e.to_string());
    match e {
        ExportError::FolderInUse { .. }
        | ExportError::NotOurs { .. }
        | ExportError::NamesTaken { .. } => PyFileExistsError::new_err(text),
        ExportError::Invalid(_) => PyValueError::new_err(text),
        ExportError::Locked { .. } | ExportError::Folder { .. } | ExportError::Write(_) => {
            PyOSError::new_err(text)
        }
        _ => PyRuntimeError::new_err(text),
    }
}

/// A message written for the command line, with its flags as this module's arguments.
pub fn pythonic(text: &str) -> String {
    text.replace("--overwrite", "overwrite=True")
        .replace("--resume", "resume=True")
        .replace("--backend cpu (or auto)", "backend=\"cpu\" (or \"auto\")")
        .replace("--upres", "upres=")
}

/// An error of any other kind from the `plume` crate, as a `RuntimeError` (a file that is
/// missing as `FileNotFoundError`).
pub fn other_error(e: impl std::fmt::Display) -> PyErr {
    let text = pythonic(&e.to_string());
    if text.contains("No such file") {
        PyFileNotFoundError::new_err(text)
    } else {
        PyRuntimeError::new_err(text)
    }
}

/// A TOML value as a Python object: numbers, strings and booleans as themselves, arrays of
/// numbers as tuples, other arrays as lists, tables as dicts.
pub fn to_py<'py>(py: Python<'py>, v: &Value) -> PyResult<Bound<'py, PyAny>> {
    Ok(match v {
        Value::Integer(i) => i.into_pyobject(py)?.into_any(),
        // Scene values are f32: the shortest decimal that reads back as the same f32 (0.12,
        // not 0.11999999731779099).
        Value::Float(f) if (*f as f32) as f64 == *f => {
            let short: f64 = (*f as f32).to_string().parse().unwrap_or(*f);
            short.into_pyobject(py)?.into_any()
        }
        Value::Float(f) => f.into_pyobject(py)?.into_any(),
        Value::String(s) => s.into_pyobject(py)?.into_any(),
        Value::Boolean(b) => b.into_pyobject(py)?.to_owned().into_any(),
        Value::Datetime(d) => d.to_string().into_pyobject(py)?.into_any(),
        Value::Array(a) => {
            let items = a
                .iter()
                .map(|x| to_py(py, x))
                .collect::<PyResult<Vec<_>>>()?;
            if a.iter().all(|x| x.is_integer() || x.is_float()) {
                PyTuple::new(py, items)?.into_any()
            } else {
                PyList::new(py, items)?.into_any()
            }
        }
        Value::Table(t) => {
            let d = PyDict::new(py);
            for (k, x) in t {
                d.set_item(k, to_py(py, x)?)?;
            }
            d.into_any()
        }
    })
}

/// A Python object as a TOML value; `what` names it in the error.
pub fn from_py(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Value> {
    if obj.is_instance_of::<PyBool>() {
        return Ok(Value::Boolean(obj.extract()?));
    }
    if obj.is_instance_of::<PyInt>() {
        return Ok(Value::Integer(obj.extract().map_err(|_| {
            PyValueError::new_err(format!("{what}: {obj} is too large"))
        })?));
    }
    if obj.is_instance_of::<PyFloat>() {
        return Ok(Value::Float(obj.extract()?));
    }
    if obj.is_instance_of::<PyString>() {
        return Ok(Value::String(obj.extract()?));
    }
    if let Ok(d) = obj.cast::<PyDict>() {
        let mut t = toml::map::Map::new();
        for (k, v) in d.iter() {
            let k: String = k.extract()?;
            let x = from_py(&v, &format!("{what}.{k}"))?;
            t.insert(k, x);
        }
        return Ok(Value::Table(t));
    }
    // NumPy scalars and other numbers: anything with __float__ that is not a sequence.
    if obj.hasattr("__float__")? && !obj.hasattr("__len__")? {
        let f: f64 = obj.call_method0("__float__")?.extract()?;
        let whole = obj.hasattr("__index__")?;
        return Ok(match whole {
            true => Value::Integer(f as i64),
            false => Value::Float(f),
        });
    }
    if obj.hasattr("__len__")? && obj.hasattr("__iter__")? {
        let mut out = Vec::new();
        for (i, x) in obj.try_iter()?.enumerate() {
            out.push(from_py(&x?, &format!("{what}[{i}]"))?);
        }
        return Ok(Value::Array(out));
    }
    Err(PyTypeError::new_err(format!(
        "{what}: a {} is not a scene value (numbers, strings, booleans, sequences and dicts are)",
        obj.get_type().name()?
    )))
}

/// Each of the scene's notes (what `plume run` prints before its first step: a step's cost
/// far above the default scene's, an open mesh) as a `UserWarning`.
pub fn warn_notes(py: Python<'_>, scene: &plume_core::scene::Scene) -> PyResult<()> {
    for note in scene.notes() {
        let text = std::ffi::CString::new(note).unwrap_or_default();
        PyErr::warn(
            py,
            &py.get_type::<pyo3::exceptions::PyUserWarning>(),
            &text,
            1,
        )?;
    }
    Ok(())
}
