//! Vorticity confinement (Fedkiw, Stam and Jensen 2001): the grid's numerical dissipation
//! smears small swirls out; this force puts back what was lost around each swirl's core,
//! `f = ε·h·(N × ω)` with `ω = ∇ × u` and `N = ∇|ω| / |∇|ω||`.

use super::advect::VelocityRef;
use super::boundary::Boundaries;
use super::grid::Dims;
use super::stencil::det_sum;
use rayon::prelude::*;

/// Scratch fields for the confinement force, reused between steps.
#[derive(Clone, Debug, Default)]
pub struct Confinement {
    /// Cell-centred velocity, later the force per cell.
    cell: [Vec<f32>; 3],
    /// Vorticity per cell.
    omega: [Vec<f32>; 3],
    /// |ω| per cell.
    mag: Vec<f32>,
}

/// Central difference of `f` along `axis` at cell `p`, one-sided at the grid's ends, per cell.
#[inline(always)]
fn diff(f: &[f32], d: Dims, p: [usize; 3], axis: usize) -> f32 {
    let n = d.as_array();
    let st = [1, d.nx, d.nx * d.ny][axis];
    let c = d.idx(p[0], p[1], p[2]);
    let lo = p[axis] > 0;
    let hi = p[axis] + 1 < n[axis];
    match (lo, hi) {
        (true, true) => 0.5 * (f[c + st] - f[c - st]),
        (false, true) => f[c + st] - f[c],
        (true, false) => f[c] - f[c - st],
        (false, false) => 0.0,
    }
}

/// Fills `cell` with the cell-centred velocity and `omega` with the vorticity (1/s).
fn vorticity(vel: VelocityRef<'_>, h: f32, cell: &mut [Vec<f32>; 3], omega: &mut [Vec<f32>; 3]) {
    let d = vel.dims;
    let n = d.cells();
    for a in 0..3 {
        cell[a].resize(n, 0.0);
        omega[a].resize(n, 0.0);
    }
    fill3(cell, d, |[i, j, k]| cell_velocity(vel, i, j, k));
    let inv_h = 1.0 / h;
    let (cu, cv, cw) = (&cell[0], &cell[1], &cell[2]);
    fill3(omega, d, |p| {
        [
            (diff(cw, d, p, 1) - diff(cv, d, p, 2)) * inv_h,
            (diff(cu, d, p, 2) - diff(cw, d, p, 0)) * inv_h,
            (diff(cv, d, p, 0) - diff(cu, d, p, 1)) * inv_h,
        ]
    });
}

/// Sets cell p of the three cell-centred fields `out` to `f(p)`, in parallel over z-planes.
fn fill3(out: &mut [Vec<f32>; 3], d: Dims, f: impl Fn([usize; 3]) -> [f32; 3] + Sync) {
    let plane = d.nx * d.ny;
    let [x, y, z] = out;
    x.par_chunks_mut(plane)
        .zip(y.par_chunks_mut(plane))
        .zip(z.par_chunks_mut(plane))
        .enumerate()
        .for_each(|(k, ((px, py), pz))| {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let [a, b, c] = f([i, j, k]);
                    let o = i + d.nx * j;
                    px[o] = a;
                    py[o] = b;
                    pz[o] = c;
                }
            }
        });
}

#[inline(always)]
fn cell_velocity(vel: VelocityRef<'_>, i: usize, j: usize, k: usize) -> [f32; 3] {
    let d = vel.dims;
    let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
    [
        0.5 * (vel.u[du.idx(i, j, k)] + vel.u[du.idx(i + 1, j, k)]),
        0.5 * (vel.v[dv.idx(i, j, k)] + vel.v[dv.idx(i, j + 1, k)]),
        0.5 * (vel.w[dw.idx(i, j, k)] + vel.w[dw.idx(i, j, k + 1)]),
    ]
}

/// Σ|ω|·h³ over the grid: the total vorticity magnitude (domain-units³/s).
pub fn total_vorticity(vel: VelocityRef<'_>, h: f32) -> f64 {
    let mut cell = Default::default();
    let mut omega: [Vec<f32>; 3] = Default::default();
    vorticity(vel, h, &mut cell, &mut omega);
    let mag: Vec<f32> = (0..omega[0].len())
        .into_par_iter()
        .map(|c| (omega[0][c].powi(2) + omega[1][c].powi(2) + omega[2][c].powi(2)).sqrt())
        .collect();
    det_sum(&mag) * (h as f64).powi(3)
}

impl Confinement {
    /// Bytes held by the scratch fields.
    pub fn memory_bytes(&self) -> usize {
        (self
            .cell
            .iter()
            .chain(&self.omega)
            .map(Vec::len)
            .sum::<usize>()
            + self.mag.len())
            * 4
    }

    /// Adds `dt·ε·h·(N × ω)` to the face velocities (each face gets the mean of its two
    /// cells; faces on open boundaries the inside cell's, fixed faces nothing).
    #[allow(clippy::too_many_arguments)]
    pub fn apply(
        &mut self,
        d: Dims,
        h: f32,
        eps: f32,
        dt: f32,
        b: &Boundaries,
        u: &mut [f32],
        v: &mut [f32],
        w: &mut [f32],
    ) {
        if eps == 0.0 {
            return;
        }
        vorticity(
            VelocityRef { dims: d, u, v, w },
            h,
            &mut self.cell,
            &mut self.omega,
        );
        let n = d.cells();
        let om = &self.omega;
        self.mag.resize(n, 0.0);
        self.mag.par_iter_mut().enumerate().for_each(|(c, m)| {
            *m = (om[0][c] * om[0][c] + om[1][c] * om[1][c] + om[2][c] * om[2][c]).sqrt();
        });
        // Force per cell, written over the cell velocities.
        let mag = &self.mag;
        let scale = eps * h;
        fill3(&mut self.cell, d, |p| {
            let g = [diff(mag, d, p, 0), diff(mag, d, p, 1), diff(mag, d, p, 2)];
            let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
            let c = d.idx(p[0], p[1], p[2]);
            // |∇|ω|| is per cell here; below a tiny fraction of |ω| there is no well-defined
            // direction to push.
            if len <= 1e-6 * mag[c] || len == 0.0 {
                return [0.0; 3];
            }
            let nv = [g[0] / len, g[1] / len, g[2] / len];
            let o = [om[0][c], om[1][c], om[2][c]];
            [
                scale * (nv[1] * o[2] - nv[2] * o[1]),
                scale * (nv[2] * o[0] - nv[0] * o[2]),
                scale * (nv[0] * o[1] - nv[1] * o[0]),
            ]
        });
        let force = &self.cell;
        for (axis, f) in [u, v, w].into_iter().enumerate() {
            add_to_faces(d, axis, b, &force[axis], dt, f);
        }
    }
}

/// Adds `dt·` the mean of the two cells' values of `fc` to each face along `axis`.
fn add_to_faces(d: Dims, axis: usize, b: &Boundaries, fc: &[f32], dt: f32, f: &mut [f32]) {
    let fd = d.faces(axis);
    let n = d.as_array();
    let open = [b.face(axis, 0).is_open(), b.face(axis, 1).is_open()];
    f.par_chunks_mut(fd.nx * fd.ny)
        .enumerate()
        .for_each(|(k, pl)| {
            for j in 0..fd.ny {
                for i in 0..fd.nx {
                    let p = [i, j, k];
                    let hi = p;
                    let mut lo = p;
                    let val = if p[axis] == 0 {
                        if !open[0] {
                            continue;
                        }
                        fc[d.idx(hi[0], hi[1], hi[2])]
                    } else if p[axis] == n[axis] {
                        if !open[1] {
                            continue;
                        }
                        lo[axis] -= 1;
                        fc[d.idx(lo[0], lo[1], lo[2])]
                    } else {
                        lo[axis] -= 1;
                        0.5 * (fc[d.idx(lo[0], lo[1], lo[2])] + fc[d.idx(hi[0], hi[1], hi[2])])
                    };
                    pl[i + fd.nx * j] += dt * val;
                }
            }
        });
}
