//! Body forces and boundary conditions on the face velocities.

use super::boundary::{Boundaries, Face};
use super::grid::Dims;
use rayon::prelude::*;

/// Buoyancy: adds `dt·β·ρ` to every y-face velocity, with ρ the mean density of the two cells
/// sharing the face (the one inside cell at an open face). Wall faces are left at zero.
pub fn buoyancy(dims: Dims, b: &Boundaries, density: &[f32], v: &mut [f32], beta: f32, dt: f32) {
    if beta == 0.0 {
        return;
    }
    let (nx, ny) = (dims.nx, dims.ny);
    let c = dt * beta;
    let open0 = b.y_min == Face::Open;
    let open1 = b.y_max == Face::Open;
    v.par_chunks_mut(nx * (ny + 1))
        .enumerate()
        .for_each(|(k, pl)| {
            let d = &density[k * nx * ny..(k + 1) * nx * ny];
            for j in 0..=ny {
                let row = &mut pl[j * nx..(j + 1) * nx];
                if j > 0 && j < ny {
                    let lo = &d[(j - 1) * nx..j * nx];
                    let hi = &d[j * nx..(j + 1) * nx];
                    for ((e, a), b) in row.iter_mut().zip(lo).zip(hi) {
                        *e += 0.5 * c * (a + b);
                    }
                } else if (j == 0 && open0) || (j == ny && open1) {
                    let jj = if j == 0 { 0 } else { ny - 1 };
                    for (e, a) in row.iter_mut().zip(&d[jj * nx..(jj + 1) * nx]) {
                        *e += c * a;
                    }
                }
            }
        });
}

/// Sets the normal velocity on every wall face to zero.
pub fn enforce_walls(dims: Dims, b: &Boundaries, u: &mut [f32], v: &mut [f32], w: &mut [f32]) {
    let (nx, ny, nz) = (dims.nx, dims.ny, dims.nz);
    let du = dims.faces(0);
    for k in 0..nz {
        for j in 0..ny {
            if b.x_min == Face::Wall {
                u[du.idx(0, j, k)] = 0.0;
            }
            if b.x_max == Face::Wall {
                u[du.idx(nx, j, k)] = 0.0;
            }
        }
    }
    let dv = dims.faces(1);
    for k in 0..nz {
        if b.y_min == Face::Wall {
            let s = dv.idx(0, 0, k);
            v[s..s + nx].fill(0.0);
        }
        if b.y_max == Face::Wall {
            let s = dv.idx(0, ny, k);
            v[s..s + nx].fill(0.0);
        }
    }
    let dw = dims.faces(2);
    let plane = nx * ny;
    if b.z_min == Face::Wall {
        w[..plane].fill(0.0);
    }
    if b.z_max == Face::Wall {
        let s = dw.idx(0, 0, nz);
        w[s..s + plane].fill(0.0);
    }
}
