//! Implicit (backward Euler) diffusion of scalars and of the velocity (viscosity):
//! `(I − κ·dt·∇²) x_new = x_old`, solved by red-black Gauss-Seidel. Unconditionally stable;
//! plain Gauss-Seidel (ω = 1) makes each update a weighted average, so no new extrema appear.

use super::boundary::Boundaries;
use super::grid::Dims;
use super::stencil::{SolveStats, Stencil};

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
