//! Which samples of the grid a shape covers, and how much: what emitters and the painting
//! brush add to. The CPU solver splats through these in place; a backend that keeps its
//! fields elsewhere (the GPU's) takes them as lists of (index, coverage) and applies them
//! there, so both backends cover exactly the same samples by exactly the same amounts.

use super::advect::{face_stagger, CENTER};
use super::body::{Body, Shape};
use super::grid::{Dims, Grid};
use super::sources::Emitter;
use super::SimError;
use crate::geometry::Pose;
use rayon::prelude::*;

/// What a shape covers: cell-centred samples, then the faces of each velocity component,
/// each as (index in its array, coverage in (0, 1]) in increasing index order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Cover {
    /// Cell-centred samples (density, temperature, fuel, flame).
    pub cells: Vec<(u32, f32)>,
    /// Faces of u, v and w.
    pub faces: [Vec<(u32, f32)>; 3],
}

impl Cover {
    /// The samples covered for one field's stagger: `None` for cells, `Some(axis)` for a
    /// velocity component.
    pub fn of(&self, field: Option<usize>) -> &[(u32, f32)] {
        match field {
            None => &self.cells,
            Some(a) => &self.faces[a],
        }
    }
}

/// A world-space shape in cell-index space (positions `(p − origin)/h`, lengths `/h`).
pub fn index_shape(g: &Grid, s: &Shape) -> Shape {
    let c = s.center();
    let center = [0, 1, 2].map(|a| (c[a] - g.origin[a]) / g.h);
    match *s {
        Shape::Sphere { radius, .. } => Shape::Sphere {
            center,
            radius: radius / g.h,
        },
        Shape::Box { half, .. } => Shape::Box {
            center,
            half: half.map(|v| v / g.h),
        },
    }
}

/// The index ranges `[lo, hi)` along x, y, z of the samples of a field (dimensions `fd`,
/// stagger `st`) within a shape's bounding box (given in cell-index space) grown by one
/// cell; `None` where that box misses the field.
pub(crate) fn splat_range(fd: Dims, st: [f32; 3], shape: &Shape) -> Option<[(usize, usize); 3]> {
    let n = fd.as_array();
    let x = shape.center();
    let r = shape.half_extent();
    let range = |a: usize| {
        let lo = (x[a] - st[a] - r[a] - 1.0).floor().max(0.0) as usize;
        let hi = ((x[a] - st[a] + r[a] + 1.0).ceil() + 1.0)
            .max(0.0)
            .min(n[a] as f32) as usize;
        (lo.min(n[a]), hi)
    };
    let rs = [range(0), range(1), range(2)];
    rs.iter().all(|&(lo, hi)| lo < hi).then_some(rs)
}

/// The samples of a field (dimensions `fd`, stagger `st`) that a shape given in cell-index
/// space covers, as the CPU solver's splat visits them.
fn shape_samples(fd: Dims, st: [f32; 3], shape: &Shape) -> Vec<(u32, f32)> {
    let Some([(i0, i1), (j0, j1), (k0, k1)]) = splat_range(fd, st, shape) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for k in k0..k1 {
        let z = k as f32 + st[2];
        for j in j0..j1 {
            let y = j as f32 + st[1];
            for i in i0..i1 {
                let c = shape.coverage([i as f32 + st[0], y, z], 1.0);
                if c > 0.0 {
                    out.push((fd.idx(i, j, k) as u32, c));
                }
            }
        }
    }
    out
}

/// What a plain sphere or box (world space) covers on `grid`.
pub fn shape_cover(grid: &Grid, world: &Shape) -> Cover {
    let s = index_shape(grid, world);
    let d = grid.dims;
    Cover {
        cells: shape_samples(d, CENTER, &s),
        faces: [0, 1, 2].map(|a| shape_samples(d.faces(a), face_stagger(a), &s)),
    }
}

/// What a body (turned, scaled, moving, a mesh) covers at time `t`.
pub fn body_cover(grid: &Grid, body: &Body, t: f64) -> Cover {
    let pose = body.pose_at(t);
    let d = grid.dims;
    let list = |fd: Dims, st: [f32; 3]| {
        covered_by(grid, fd, st, body, &pose)
            .into_iter()
            .map(|(i, c)| (i as u32, c))
            .collect()
    };
    Cover {
        cells: list(d, CENTER),
        faces: [0, 1, 2].map(|a| list(d.faces(a), face_stagger(a))),
    }
}

/// An emitter's body when it is more than a plain sphere or box (turned, scaled, moving, a
/// mesh, or emitting from its surface), prepared for `grid`; `None` for a plain shape, which
/// [`shape_cover`] covers.
pub fn emitter_body(grid: &Grid, e: &Emitter) -> Result<Option<Body>, SimError> {
    let mut b = e.emitter_body()?;
    if b.plain_shape().is_some() {
        return Ok(None);
    }
    b.prepare(grid.h);
    Ok(Some(b))
}

/// What an emitter covers at time `t` (its body from [`emitter_body`], if any).
pub fn emitter_cover(
    grid: &Grid,
    e: &Emitter,
    body: Option<&Body>,
    t: f64,
) -> Result<Cover, SimError> {
    match body {
        Some(b) => Ok(body_cover(grid, b, t)),
        None => Ok(shape_cover(grid, &e.shape()?)),
    }
}

/// The samples of a field (dimensions `fd`, stagger `st`) that a body in `pose` covers, with
/// how much: (index, coverage > 0).
pub(crate) fn covered_by(
    g: &Grid,
    fd: Dims,
    st: [f32; 3],
    b: &Body,
    pose: &Pose,
) -> Vec<(usize, f32)> {
    let a = pose.affine();
    let (lo, hi) = b.bounds_in(pose);
    let n = fd.as_array();
    let range = |x: usize| {
        let l = ((lo[x] - g.origin[x]) / g.h - st[x] - 1.0).floor().max(0.0) as usize;
        let h = ((hi[x] - g.origin[x]) / g.h - st[x] + 2.0).ceil().max(0.0) as usize;
        (l.min(n[x]), h.min(n[x]))
    };
    let [(i0, i1), (j0, j1), (k0, k1)] = [range(0), range(1), range(2)];
    let h = f64::from(g.h);
    (k0..k1)
        .into_par_iter()
        .flat_map_iter(|k| {
            let a = &a;
            (j0..j1).flat_map(move |j| {
                (i0..i1).filter_map(move |i| {
                    let p = [i, j, k];
                    let w = [0, 1, 2]
                        .map(|x| f64::from(g.origin[x]) + (p[x] as f64 + f64::from(st[x])) * h);
                    let c = b.coverage(pose, a, w, g.h);
                    (c > 0.0).then(|| (fd.idx(i, j, k), c.min(1.0)))
                })
            })
        })
        .collect()
}

/// Checks a painting stroke's smoke (as the CPU solver's `add_density_at` does).
pub fn check_paint_density(center: [f32; 3], radius: f32, amount: f32) -> Result<(), SimError> {
    super::solver::check_amount(amount)?;
    super::solver::check_sphere(center, radius)
}

/// Checks a painting stroke's push (as the CPU solver's `add_velocity_at` does).
pub fn check_paint_velocity(center: [f32; 3], radius: f32, v: [f32; 3]) -> Result<(), SimError> {
    super::solver::check_velocity(v)?;
    super::solver::check_sphere(center, radius)
}
