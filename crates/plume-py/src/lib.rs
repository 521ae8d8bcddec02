//! Plume from Python: the `plume._plume` extension module behind the `plume` package. It
//! offers the scene model, the solver backends, the renderer and the run writer of the
//! `plume` crate; it adds no physics and keeps no copy of a limit, a default or a file rule.

mod args;
mod convert;
mod fields;
mod read;
mod render;
mod run;
mod scene;
mod simulation;
mod wedge;

use pyo3::prelude::*;

/// Raises the RuntimeError a panic inside the module becomes (for the tests of that guard).
#[pyfunction]
fn _panic_for_test() -> PyResult<()> {
    convert::guard(|| -> PyResult<()> { panic!("a panic asked for by _panic_for_test") })
}

/// Plume's version.
const VERSION: &str = env!("CARGO_PKG_VERSION");

#[pymodule]
fn _plume(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<scene::PyScene>()?;
    m.add_class::<scene::PyEmitter>()?;
    m.add_class::<scene::PyObstacle>()?;
    m.add_class::<simulation::PySimulation>()?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_class::<read::PyRun>()?;
    m.add_function(wrap_pyfunction!(read::open_run, m)?)?;
    m.add_function(wrap_pyfunction!(_panic_for_test, m)?)?;
    m.add_function(wrap_pyfunction!(wedge::_parse_vary, m)?)?;
    m.add_class::<wedge::_WedgeHold>()?;
    m.add_function(wrap_pyfunction!(wedge::_wedge_prepare, m)?)?;
    m.add_function(wrap_pyfunction!(wedge::_wedge_variant, m)?)?;
    m.add_function(wrap_pyfunction!(wedge::_wedge_record, m)?)?;
    m.add_function(wrap_pyfunction!(wedge::_wedge_finish, m)?)?;
    m.add("__version__", VERSION)?;
    Ok(())
}
