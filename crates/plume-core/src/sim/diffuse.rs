//! Implicit (backward Euler) diffusion of scalars and of the velocity (viscosity):
//! `(I − κ·dt·∇²) x_new = x_old`, solved by red-black Gauss-Seidel. Unconditionally stable;
//! plain Gauss-Seidel (ω = 1) makes each update a weighted average, so no new extrema appear.

use super::boundary::Boundaries;
use super::grid::Dims;
use super::pressure::operator::{SolveStats, Stencil};

/// Coupling `a = κ·dt/h²` of the implicit diffusion operator.
pub fn coupling(kappa: f32, dt: f32, h: f32) -> f32 {
    kappa * dt / (h * h)
}

/// Diffuses a cell-centred scalar with zero-flux boundaries (total amount is conserved).
/// `scratch` must have the same length as `x`.
pub fn diffuse_scalar(
    x: &mut [f32],
    scratch: &mut [f32],
    dims: Dims,
    a: f32,
    tol: f32,
    max_iter: u32,
) -> SolveStats {
    scratch.copy_from_slice(x);
    let st = Stencil::whole(dims.as_array(), 1.0, a);
    st.solve(x, scratch, 1.0, tol, max_iter, 1)
}

/// Diffuses the face-velocity component normal to `axis`. Faces on walls keep their zero
/// normal velocity and act as Dirichlet neighbours; everything else is zero-flux (free slip).
#[allow(clippy::too_many_arguments)]
pub fn diffuse_component(
    axis: usize,
    x: &mut [f32],
    scratch: &mut [f32],
    dims: Dims,
    b: &Boundaries,
    a: f32,
    tol: f32,
    max_iter: u32,
) -> SolveStats {
    let fd = dims.faces(axis);
    let n = fd.as_array();
    let lo_wall = b.face(axis, 0).is_fixed();
    let hi_wall = b.face(axis, 1).is_fixed();
    let lo = lo_wall as usize;
    let hi = n[axis] - hi_wall as usize;
    let mut region = n;
    region[axis] = hi - lo;
    let stride = [1, fd.nx, fd.nx * fd.ny];
    let mut dirichlet = [[false; 2]; 3];
    dirichlet[axis] = [lo_wall, hi_wall];
    let st = Stencil {
        dims: region,
        offset: lo * stride[axis],
        sy: stride[1],
        sz: stride[2],
        dirichlet,
        c0: 1.0,
        a,
    };
    scratch.copy_from_slice(x);
    // A fixed face's value is the Dirichlet neighbour of the first face inside: 0 for a wall,
    // the inflow speed for an inflow (moved to the right-hand side).
    for side in 0..2 {
        let s = b.normal_velocity(axis, side).unwrap_or(0.0);
        if s == 0.0 || region[axis] == 0 {
            continue;
        }
        let plane_at = if side == 0 { lo } else { hi - 1 };
        let (a1, a2) = ((axis + 1) % 3, (axis + 2) % 3);
        for q in 0..n[a2] {
            for p in 0..n[a1] {
                scratch[plane_at * stride[axis] + p * stride[a1] + q * stride[a2]] += a * s;
            }
        }
    }
    st.solve(x, scratch, 1.0, tol, max_iter, 1)
}

/// How a masked entry of [`diffuse_masked`] acts on its neighbours.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Masked {
    /// No flux crosses into it (a solid cell for a scalar: smoke neither enters nor leaves
    /// through the obstacle's surface).
    ZeroFlux,
    /// It keeps its value and its neighbours see it (a face held at a fixed velocity: 0 on
    /// an obstacle, the normal velocity on a wall or inflow).
    Fixed,
}

/// Implicit diffusion `(1 + a·n)·x − a·Σ x_nb = x_old` on an x-fastest array of `dims`
/// where the entries with `mask[i] != 0` are not solved for and act on their neighbours as
/// `masked` says; the array's own ends are zero-flux. Red-black Gauss-Seidel (ω = 1), each
/// colour in parallel over z-planes (a cell of one colour reads only the other colour), so the
/// result does not depend on the thread count. Used where obstacles are present.
#[allow(clippy::too_many_arguments)]
pub fn diffuse_masked(
    x: &mut [f32],
    scratch: &mut [f32],
    dims: [usize; 3],
    mask: &[u8],
    masked: Masked,
    a: f32,
    tol: f32,
    max_iter: u32,
) -> SolveStats {
    use rayon::prelude::*;
    let [nx, ny, nz] = dims;
    assert_eq!(x.len(), nx * ny * nz);
    assert_eq!(mask.len(), x.len());
    scratch.copy_from_slice(x);
    let rhs: &[f32] = scratch;
    let plane = nx * ny;
    let rhs_max = rhs
        .iter()
        .zip(mask)
        .filter(|(_, &m)| m == 0)
        .fold(0.0f32, |m, (v, _)| m.max(v.abs()));
    if rhs_max == 0.0 || a == 0.0 {
        return SolveStats::default();
    }
    // One colour's sweep (update = true) or the largest residual (update = false).
    let pass = |x: &mut [f32], color: usize, update: bool| -> f32 {
        debug_assert_eq!(x.len(), nx * ny * nz);
        let ptr = x.as_mut_ptr() as usize;
        // SAFETY (both closures): every index is < nx·ny·nz = x.len() (the neighbours are
        // taken only inside the array); within a colour a written cell is read by no other
        // thread (its neighbours are of the other colour, and each z-plane writes only its own
        // cells), so reads and writes never race.
        let get = |q: usize| unsafe { *(ptr as *const f32).add(q) };
        let set = |q: usize, v: f32| unsafe { *(ptr as *mut f32).add(q) = v };
        (0..nz)
            .into_par_iter()
            .map(|k| {
                let mut worst = 0.0f32;
                for j in 0..ny {
                    let i0 = (color + j + k) % 2;
                    for i in (if update { i0 } else { 0 }..nx).step_by(if update { 2 } else { 1 }) {
                        let c = i + nx * j + plane * k;
                        if mask[c] != 0 {
                            continue;
                        }
                        let mut sum = 0.0f32;
                        let mut n = 0.0f32;
                        let mut nb = |q: usize| {
                            if mask[q] == 0 || masked == Masked::Fixed {
                                sum += get(q);
                                n += 1.0;
                            }
                        };
                        if i > 0 {
                            nb(c - 1);
                        }
                        if i + 1 < nx {
                            nb(c + 1);
                        }
                        if j > 0 {
                            nb(c - nx);
                        }
                        if j + 1 < ny {
                            nb(c + nx);
                        }
                        if k > 0 {
                            nb(c - plane);
                        }
                        if k + 1 < nz {
                            nb(c + plane);
                        }
                        if update {
                            set(c, (rhs[c] + a * sum) / (1.0 + a * n));
                        } else {
                            let r = rhs[c] - ((1.0 + a * n) * get(c) - a * sum);
                            worst = worst.max(r.abs());
                        }
                    }
                }
                worst
            })
            .reduce(|| 0.0, f32::max)
    };
    let initial = pass(x, 0, false) / rhs_max;
    let mut stats = SolveStats {
        iterations: 0,
        relative_residual: initial,
        initial_residual: initial,
        rhs_max: None,
    };
    while stats.relative_residual > tol && stats.iterations < max_iter {
        pass(x, 0, true);
        pass(x, 1, true);
        stats.iterations += 1;
        stats.relative_residual = pass(x, 0, false) / rhs_max;
    }
    stats
}
