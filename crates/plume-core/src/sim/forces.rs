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
                        buoyancy_row(row, [dl, dh], Some([tl, th]), [alpha, beta, ambient], dt);
                    }
                    None => buoyancy_row(row, [dl, dh], None, [alpha, beta, ambient], dt),
                }
            }
        });
}

/// One row of y-faces of [`buoyancy`]: `e += ½·dt·(a_lo + a_hi)` with each cell's upward
/// acceleration `a = β·(T − T_amb) − α·ρ` (no temperature term without `t`). A function of
/// its own, with slices for arguments, so the loop vectorises.
#[inline]
fn buoyancy_row(
    row: &mut [f32],
    [dl, dh]: [&[f32]; 2],
    t: Option<[&[f32]; 2]>,
    [alpha, beta, ambient]: [f32; 3],
    dt: f32,
) {
    let n = row.len();
    let (dl, dh) = (&dl[..n], &dh[..n]);
    match t {
        Some([tl, th]) => {
            let (tl, th) = (&tl[..n], &th[..n]);
            for i in 0..n {
                let lo = beta * (tl[i] - ambient) - alpha * dl[i];
                let hi = beta * (th[i] - ambient) - alpha * dh[i];
                row[i] += 0.5 * dt * (lo + hi);
            }
        }
        None => {
            for i in 0..n {
                let lo = 0.0 - alpha * dl[i];
                let hi = 0.0 - alpha * dh[i];
                row[i] += 0.5 * dt * (lo + hi);
            }
        }
    }
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

#[cfg(test)]
mod tests {
    use super::*;

    /// Each interior y-face gets dt times the mean of its two cells' accelerations
    /// `β·(T − T_amb) − α·ρ` (no temperature term without a temperature field), worked out
    /// face by face here; the faces on the domain's ends get nothing.
    #[test]
    fn buoyancy_is_the_mean_of_the_two_cells_accelerations() {
        let d = Dims::new(19, 6, 3);
        let density: Vec<f32> = (0..d.cells()).map(|c| (c % 7) as f32 * 0.3).collect();
        let temperature: Vec<f32> = (0..d.cells()).map(|c| (c % 5) as f32 - 1.0).collect();
        let (alpha, beta, amb, dt) = (0.2f32, 1.5f32, 0.25f32, 0.1f32);
        let dv = d.faces(1);
        for with_t in [true, false] {
            let start: Vec<f32> = (0..dv.cells()).map(|c| (c % 3) as f32).collect();
            let mut v = start.clone();
            let t = with_t.then_some(temperature.as_slice());
            buoyancy(d, &density, t, &mut v, alpha, beta, amb, dt);
            let acc = |c: usize| {
                let heat = if with_t {
                    beta * (temperature[c] - amb)
                } else {
                    0.0
                };
                heat - alpha * density[c]
            };
            for k in 0..d.nz {
                for j in 0..=d.ny {
                    for i in 0..d.nx {
                        let f = dv.idx(i, j, k);
                        let want = if j == 0 || j == d.ny {
                            start[f]
                        } else {
                            let (lo, hi) = (acc(d.idx(i, j - 1, k)), acc(d.idx(i, j, k)));
                            start[f] + 0.5 * dt * (lo + hi)
                        };
                        assert_eq!(v[f], want, "face ({i}, {j}, {k}), temperature {with_t}");
                    }
                }
            }
        }
    }
}
