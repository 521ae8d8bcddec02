//! Semi-Lagrangian advection on the staggered grid with trilinear interpolation.
//!
//! Positions are in "cell-index space": world position = origin + X·h, so the centre of
//! cell i is at X = i + 0.5 and the x-face i (between cells i−1 and i) at X = i.

use super::grid::Dims;
use rayon::prelude::*;

/// Where a field's samples sit inside a cell, in cells: (0.5,0.5,0.5) for cell centres,
/// (0,0.5,0.5) for x-faces, and so on.
pub type Stagger = [f32; 3];

/// Stagger of cell-centred scalars.
pub const CENTER: Stagger = [0.5, 0.5, 0.5];
/// Stagger of the face-velocity component along `axis`.
pub const fn face_stagger(axis: usize) -> Stagger {
    match axis {
        0 => [0.0, 0.5, 0.5],
        1 => [0.5, 0.0, 0.5],
        _ => [0.5, 0.5, 0.0],
    }
}

/// Trilinear interpolation of `f` (dimensions `d`) at array coordinates `p`. Coordinates are
/// clamped to the array first, so a sample never reads outside it (the field is extended with
/// its edge values), and a NaN coordinate is treated as 0.
#[inline(always)]
pub fn sample(f: &[f32], d: Dims, p: [f32; 3]) -> f32 {
    // `max`/`min` (unlike `clamp`) map NaN to the bound.
    let cx = p[0].max(0.0).min((d.nx - 1) as f32);
    let cy = p[1].max(0.0).min((d.ny - 1) as f32);
    let cz = p[2].max(0.0).min((d.nz - 1) as f32);
    // The coordinates are ≥ 0, so truncation equals floor.
    let i0 = cx as usize;
    let j0 = cy as usize;
    let k0 = cz as usize;
    let tx = cx - i0 as f32;
    let ty = cy - j0 as f32;
    let tz = cz - k0 as f32;
    let i1 = (i0 + 1).min(d.nx - 1) - i0;
    let sy = d.nx;
    let sz = d.nx * d.ny;
    let j1 = if j0 + 1 < d.ny { sy } else { 0 };
    let k1 = if k0 + 1 < d.nz { sz } else { 0 };
    let b = d.idx(i0, j0, k0);
    let l = |o: usize| f[b + o];
    let c00 = l(0) + tx * (l(i1) - l(0));
    let c10 = l(j1) + tx * (l(j1 + i1) - l(j1));
    let c01 = l(k1) + tx * (l(k1 + i1) - l(k1));
    let c11 = l(k1 + j1) + tx * (l(k1 + j1 + i1) - l(k1 + j1));
    let c0 = c00 + ty * (c10 - c00);
    let c1 = c01 + ty * (c11 - c01);
    c0 + tz * (c1 - c0)
}

/// The three staggered velocity components of a grid of `dims` cells.
#[derive(Clone, Copy)]
pub struct VelocityRef<'a> {
    /// Cell counts of the grid.
    pub dims: Dims,
    /// x-face velocities, `(nx+1)·ny·nz`.
    pub u: &'a [f32],
    /// y-face velocities, `nx·(ny+1)·nz`.
    pub v: &'a [f32],
    /// z-face velocities, `nx·ny·(nz+1)`.
    pub w: &'a [f32],
}

impl VelocityRef<'_> {
    /// Velocity at a point in cell-index space, each component interpolated on its own grid.
    #[inline(always)]
    pub fn at(&self, x: [f32; 3]) -> [f32; 3] {
        [
            sample(self.u, self.dims.faces(0), [x[0], x[1] - 0.5, x[2] - 0.5]),
            sample(self.v, self.dims.faces(1), [x[0] - 0.5, x[1], x[2] - 0.5]),
            sample(self.w, self.dims.faces(2), [x[0] - 0.5, x[1] - 0.5, x[2]]),
        ]
    }
}

/// Advects `src` (dimensions `d`, stagger `s`) through the velocity field for `dt` seconds
/// with voxel size `h`, writing `scale ×` the result to `dst`. Cells for which `skip` returns
/// true (wall faces) are left untouched.
#[allow(clippy::too_many_arguments)]
pub fn advect(
    dst: &mut [f32],
    src: &[f32],
    d: Dims,
    s: Stagger,
    vel: VelocityRef<'_>,
    dt: f32,
    h: f32,
    scale: f32,
    skip: &(dyn Fn(usize, usize, usize) -> bool + Sync),
) {
    assert_eq!(dst.len(), d.cells());
    assert_eq!(src.len(), d.cells());
    let k_dt = dt / h;
    let plane = d.nx * d.ny;
    dst.par_chunks_mut(plane).enumerate().for_each(|(k, out)| {
        for j in 0..d.ny {
            for i in 0..d.nx {
                if skip(i, j, k) {
                    continue;
                }
                let x = [i as f32 + s[0], j as f32 + s[1], k as f32 + s[2]];
                let u = vel.at(x);
                let back = [
                    x[0] - k_dt * u[0] - s[0],
                    x[1] - k_dt * u[1] - s[1],
                    x[2] - k_dt * u[2] - s[2],
                ];
                out[i + d.nx * j] = scale * sample(src, d, back);
            }
        }
    });
}
