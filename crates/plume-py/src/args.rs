//! Arguments as Python passes them, parsed as the command line parses its flags: backends,
//! the detail pass, export formats and fields.

use crate::convert::export_error;
use plume::backend::Backend;
use plume::export::{ExportOptions, Fields, Format, Up};
use plume::scene::Scene;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyString;

/// A whole-number argument checked against `lo..=hi` (a negative one is a `ValueError` with
/// the range, not an overflow).
pub(crate) fn whole(name: &str, v: i64, lo: i64, hi: i64) -> PyResult<u32> {
    if (lo..=hi).contains(&v) {
        Ok(v as u32)
    } else {
        Err(PyValueError::new_err(format!(
            "{name} = {v} is outside the allowed range {lo}..={hi}"
        )))
    }
}

/// An image's `width` and `height` in pixels, each checked against the renderer's largest
/// side.
pub(crate) fn image_size(width: i64, height: i64) -> PyResult<(u32, u32)> {
    let side = i64::from(plume::render::offscreen::MAX_IMAGE_SIDE);
    Ok((
        whole("width", width, 1, side)?,
        whole("height", height, 1, side)?,
    ))
}

/// The scene with the detail pass `upres` (0: as the scene says).
pub(crate) fn with_upres(scene: &Scene, upres: i64) -> PyResult<Scene> {
    let upres = whole("upres", upres, 0, 4)?;
    let mut s = scene.clone();
    if upres != 0 {
        plume::ranges::detail::FACTOR
            .check_count(upres)
            .map_err(|e| PyValueError::new_err(format!("upres: {e}")))?;
        s.detail.enabled = true;
        s.detail.factor = upres;
    }
    Ok(s)
}

/// Parses a backend name.
pub(crate) fn backend_of(name: &str) -> PyResult<Backend> {
    Backend::parse(name).map_err(PyValueError::new_err)
}

/// A list given as a string (`"vdb,npy"`) or a sequence of strings, joined with commas.
fn names(obj: Option<&Bound<'_, PyAny>>, what: &str) -> PyResult<Option<String>> {
    let Some(obj) = obj else {
        return Ok(None);
    };
    if obj.is_none() {
        return Ok(None);
    }
    if let Ok(s) = obj.cast::<PyString>() {
        return Ok(Some(s.extract::<String>()?));
    }
    let items: Vec<String> = obj
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("{what} takes a string or a list of strings")))?;
    Ok(Some(items.join(",")))
}

/// Fields given as a string or a list of strings, parsed as `--fields` is; `None`: none given.
pub(crate) fn fields_of(obj: Option<&Bound<'_, PyAny>>) -> PyResult<Option<Fields>> {
    match names(obj, "fields")? {
        Some(f) => Ok(Some(Fields::parse_list(&f).map_err(PyValueError::new_err)?)),
        None => Ok(None),
    }
}

/// Export options from Python's arguments, parsed as the command line parses its flags.
pub fn options(
    format: Option<&Bound<'_, PyAny>>,
    fields: Option<&Bound<'_, PyAny>>,
    up: &str,
    half: bool,
    prefix: &str,
    every: u32,
) -> PyResult<ExportOptions> {
    let mut o = ExportOptions {
        half,
        prefix: prefix.to_string(),
        every,
        up: Up::parse(up).map_err(PyValueError::new_err)?,
        ..ExportOptions::default()
    };
    if let Some(f) = names(format, "format")? {
        o.formats = Format::parse_list(&f).map_err(PyValueError::new_err)?;
    }
    if let Some(f) = fields_of(fields)? {
        o.fields = f;
    }
    if every == 0 {
        return Err(PyValueError::new_err(
            "every = 0: at least one step between frames",
        ));
    }
    o.validate().map_err(export_error)?;
    Ok(o)
}
