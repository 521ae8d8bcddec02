//! Body forces and boundary conditions on the face velocities.

use super::boundary::Boundaries;
use super::grid::Dims;
use rayon::prelude::*;

/// Buoyancy after Fedkiw, Stam and Jensen (2001): adds `dt·(−α·ρ + β·(T − T_amb))` to every
/// interior y-face velocity, with ρ and T the means of the two cells sharing the face. Faces on
/// the domain's boundary get nothing: walls and inflows are fixed, and an open face's velocity
/// is set by the projection (a force there would draw air in that nothing balances).
/// `temperature` may be `None` when the whole field is at ambient.
#[allow(clippy::too_many_arguments)]
pub fn buoyancy(
    dims: Dims,
    density: &[f32],
    temperature: Option<&[f32]>,
    v: &mut [f32],
    alpha: f32,
    beta: f32,
    ambient: f32,
    dt: f32,
) {
    let temperature = temperature.filter(|_| beta != 0.0);
    if alpha == 0.0 && temperature.is_none() {
        return;
    }
    let (nx, ny) = (dims.nx, dims.ny);
    let plane = nx * ny;
    // Upward acceleration of one cell, a row at a time (slices, so the loop vectorises).
    let acc = |t: Option<f32>, d: f32| -> f32 {
        let t = t.map_or(0.0, |t| beta * (t - ambient));
        t - alpha * d
    };
    v.par_chunks_mut(nx * (ny + 1))
        .enumerate()
        .for_each(|(k, pl)| {
            let dk = &density[k * plane..(k + 1) * plane];
            let tk = temperature.map(|t| &t[k * plane..(k + 1) * plane]);
            for j in 1..ny {
                let row = &mut pl[j * nx..(j + 1) * nx];
                let (dl, dh) = (&dk[(j - 1) * nx..][..nx], &dk[j * nx..][..nx]);
                match tk {
                    Some(tk) => {
                        let (tl, th) = (&tk[(j - 1) * nx..][..nx], &tk[j * nx..][..nx]);
                        for (i, e) in row.iter_mut().enumerate() {
                            let lo = acc(Some(tl[i]), dl[i]);
                            let hi = acc(Some(th[i]), dh[i]);
                            *e += 0.5 * dt * (lo + hi);
                        }
                    }
                    None => {
                        for ((e, &a), &b) in row.iter_mut().zip(dl).zip(dh) {
                            let lo = acc(None, a);
                            let hi = acc(None, b);
                            *e += 0.5 * dt * (lo + hi);
                        }
                    }
                }
            }
        });
}

/// Sets the normal velocity on every fixed face: 0 on walls, the inflow speed on inflows.
pub fn enforce_walls(dims: Dims, b: &Boundaries, u: &mut [f32], v: &mut [f32], w: &mut [f32]) {
    let (nx, ny, nz) = (dims.nx, dims.ny, dims.nz);
    let du = dims.faces(0);
    let ux = [b.normal_velocity(0, 0), b.normal_velocity(0, 1)];
    for k in 0..nz {
        for j in 0..ny {
            if let Some(s) = ux[0] {
                u[du.idx(0, j, k)] = s;
            }
            if let Some(s) = ux[1] {
                u[du.idx(nx, j, k)] = s;
            }
        }
    }
    let dv = dims.faces(1);
    let vy = [b.normal_velocity(1, 0), b.normal_velocity(1, 1)];
    for k in 0..nz {
        if let Some(s) = vy[0] {
            let o = dv.idx(0, 0, k);
            v[o..o + nx].fill(s);
        }
        if let Some(s) = vy[1] {
            let o = dv.idx(0, ny, k);
            v[o..o + nx].fill(s);
        }
    }
    let dw = dims.faces(2);
    let plane = nx * ny;
    if let Some(s) = b.normal_velocity(2, 0) {
        w[..plane].fill(s);
    }
    if let Some(s) = b.normal_velocity(2, 1) {
        let o = dw.idx(0, 0, nz);
        w[o..o + plane].fill(s);
    }
}
