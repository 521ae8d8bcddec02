//! Fields between the solver's vectors (x fastest: `x + nx·(y + ny·z)`) and NumPy arrays in
//! the layout of the `.npy` export: C order `(nz, ny, nx)`, vectors `(nz, ny, nx, 3)`.

use numpy::ndarray::{Array, Array3, Array4};
use numpy::{IntoPyArray, PyArrayDyn, PyArrayMethods, PyUntypedArrayMethods};
use plume::frame::Frame;
use plume::sim::{Dims, Grid};
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

fn shape3(d: Dims) -> (usize, usize, usize) {
    (d.nz, d.ny, d.nx)
}

/// A scalar field of `f` as a float32 array (moved, not copied) (zeros where the frame has none: fire fields
/// while nothing burns).
pub fn scalar_array<'py>(py: Python<'py>, f: Frame, name: &str) -> PyResult<Bound<'py, PyAny>> {
    let d = f.grid.dims;
    let field = match name {
        "density" => f.density,
        "temperature" => f.temperature,
        "flame" => f.flame,
        "fuel" => f.fuel,
        _ => f.pressure,
    };
    let v = match field {
        Some(v) if v.len() == d.cells() => v,
        _ => vec![0.0; d.cells()],
    };
    let a =
        Array3::from_shape_vec(shape3(d), v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(a.into_pyarray(py).into_any())
}

/// The frame's cell-centred velocity as float32 `(nz, ny, nx, 3)`.
pub fn vector_array<'py>(py: Python<'py>, f: Frame) -> PyResult<Bound<'py, PyAny>> {
    let d = f.grid.dims;
    let v = f.velocity.unwrap_or_else(|| vec![[0.0; 3]; d.cells()]);
    let flat: Vec<f32> = flatten(v);
    let a = Array4::from_shape_vec((d.nz, d.ny, d.nx, 3), flat)
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(a.into_pyarray(py).into_any())
}

/// `[f32; 3]`s as their floats, without copying.
fn flatten(v: Vec<[f32; 3]>) -> Vec<f32> {
    let mut v = std::mem::ManuallyDrop::new(v);
    let (ptr, len, cap) = (v.as_mut_ptr(), v.len(), v.capacity());
    // SAFETY: `[f32; 3]` is three `f32`s with no padding and the alignment of `f32`, so the
    // allocation holds `3·len` initialised floats in `3·cap` floats' room, made by the same
    // allocator with the same alignment; the original vector is never dropped.
    unsafe { Vec::from_raw_parts(ptr.cast::<f32>(), 3 * len, 3 * cap) }
}

/// The three face arrays of `grid` as float32 arrays `(nz, ny, nx+1)`, `(nz, ny+1, nx)`,
/// `(nz+1, ny, nx)`.
pub fn faces_arrays<'py>(
    py: Python<'py>,
    grid: &Grid,
    faces: [Vec<f32>; 3],
) -> PyResult<Bound<'py, PyAny>> {
    let mut out = Vec::new();
    for (a, v) in faces.into_iter().enumerate() {
        let fd = grid.dims.faces(a);
        let arr = Array3::from_shape_vec(shape3(fd), v)
            .map_err(|e| PyValueError::new_err(e.to_string()))?;
        out.push(arr.into_pyarray(py).into_any());
    }
    Ok(pyo3::types::PyTuple::new(py, out)?.into_any())
}

/// Solid cells as a bool array.
pub fn solid_array<'py>(py: Python<'py>, f: &Frame) -> PyResult<Bound<'py, PyAny>> {
    let d = f.grid.dims;
    let v: Vec<bool> = match &f.solid {
        Some(s) if s.len() == d.cells() => s.iter().map(|x| *x != 0).collect(),
        _ => vec![false; d.cells()],
    };
    let a =
        Array3::from_shape_vec(shape3(d), v).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(a.into_pyarray(py).into_any())
}

/// An RGBA image as uint8 `(height, width, 3)`.
pub fn image_array<'py>(
    py: Python<'py>,
    img: plume::render::offscreen::Image,
) -> PyResult<Bound<'py, PyAny>> {
    let (w, h) = (img.width as usize, img.height as usize);
    let rgb: Vec<u8> = img
        .rgba
        .chunks_exact(4)
        .flat_map(|p| [p[0], p[1], p[2]])
        .collect();
    let a =
        Array::from_shape_vec((h, w, 3), rgb).map_err(|e| PyValueError::new_err(e.to_string()))?;
    Ok(a.into_pyarray(py).into_any())
}

/// The values of a float32 NumPy array of exactly `shape`, in C order (any strides), all
/// finite. `TypeError` for anything else than a float32 array, `ValueError` for another shape
/// or a value that is not finite.
pub fn read_array(obj: &Bound<'_, PyAny>, name: &str, shape: &[usize]) -> PyResult<Vec<f32>> {
    let want = shape
        .iter()
        .map(|d| d.to_string())
        .collect::<Vec<_>>()
        .join(", ");
    let np = obj.py().import("numpy")?;
    if !obj.is_instance(&np.getattr("ndarray")?)? {
        return Err(PyTypeError::new_err(format!(
            "{name} takes a NumPy float32 array of shape ({want}), not a {}",
            obj.get_type().name()?
        )));
    }
    let dtype: String = obj.getattr("dtype")?.str()?.extract()?;
    let arr = obj.cast::<PyArrayDyn<f32>>().map_err(|_| {
        PyTypeError::new_err(format!(
            "{name} takes a float32 array, not {dtype} (convert it with .astype(numpy.float32))"
        ))
    })?;
    if arr.shape() != shape {
        let got = arr
            .shape()
            .iter()
            .map(|d| d.to_string())
            .collect::<Vec<_>>()
            .join(", ");
        return Err(PyValueError::new_err(format!(
            "{name} must have shape ({want}), not ({got})"
        )));
    }
    let ro = arr.readonly();
    let view = ro.as_array();
    let values: Vec<f32> = view.iter().copied().collect();
    let bad = values.iter().filter(|x| !x.is_finite()).count();
    if bad > 0 {
        return Err(PyValueError::new_err(format!(
            "{name} holds {bad} value{} that {} not finite",
            if bad == 1 { "" } else { "s" },
            if bad == 1 { "is" } else { "are" }
        )));
    }
    Ok(values)
}

/// Face velocities from cell-centred ones (`(nz, ny, nx, 3)` in C order): each face the mean
/// of its two cells, the border faces their one cell.
pub fn cells_to_faces(d: Dims, cells: &[f32]) -> [Vec<f32>; 3] {
    let cell = |i: usize, j: usize, k: usize, c: usize| cells[3 * (i + d.nx * (j + d.ny * k)) + c];
    let n = [d.nx, d.ny, d.nz];
    std::array::from_fn(|a| {
        let fd = d.faces(a);
        let mut out = vec![0.0f32; fd.cells()];
        for k in 0..fd.nz {
            for j in 0..fd.ny {
                for i in 0..fd.nx {
                    let at = [i, j, k];
                    let hi = at[a].min(n[a] - 1);
                    let lo = at[a].saturating_sub(1);
                    let mut p = at;
                    p[a] = lo;
                    let x = cell(p[0], p[1], p[2], a);
                    p[a] = hi;
                    let y = cell(p[0], p[1], p[2], a);
                    out[fd.idx(i, j, k)] = 0.5 * (x + y);
                }
            }
        }
        out
    })
}
