//! Pressure projection on the staggered (MAC) grid: make the velocity divergence-free.
//!
//! Divergence, Laplacian and gradient use the same face differences, so the discrete
//! divergence after projection is exactly the Poisson residual: driving the residual down
//! drives the divergence down, with no checkerboard modes (unlike the collocated original).
//!
//! The unknown is the kinematic pressure p (domain-units²/s²) with `u ← u − dt·∇p`. Per cell,
//! `n·p − Σ p_nb = −(h/dt)·D`, where D is the sum of outgoing face velocities, the sum runs
//! over fluid neighbours, and n also counts open faces (ambient pressure 0 beyond them).

use super::multigrid::Mgpcg;
use super::operator::{det_sum, SolveStats, Stencil};
use super::rbsor::PackedRbSor;
use crate::sim::advect::VelocityRef;
use crate::sim::boundary::Boundaries;
use crate::sim::grid::Dims;
use rayon::prelude::*;

/// Settings handed to a pressure solver for one solve.
#[derive(Clone, Copy, Debug)]
pub struct PressureSettings {
    /// Stop when max|residual| ≤ tolerance · max|rhs|.
    pub tolerance: f32,
    /// Iteration cap.
    pub max_iterations: u32,
    /// Over-relaxation factor, for solvers that use one.
    pub omega: f32,
}

/// A pressure Poisson solver: finds p with `A·p = rhs` for the operator described by `stencil`,
/// starting from the `p` it is given (the previous step's pressure: a warm start). With
/// obstacles, `diag` gives each cell's diagonal (its number of fluid or open neighbours; 0 for
/// solid cells, whose pressure stays 0).
pub trait PressureSolver: Send + Sync {
    /// Short name shown in statistics.
    fn name(&self) -> &'static str;
    /// Solves in place and reports iterations and the relative residual reached.
    fn solve(
        &mut self,
        stencil: &Stencil,
        diag: Option<&[f32]>,
        p: &mut [f32],
        rhs: &[f32],
        settings: &PressureSettings,
    ) -> SolveStats;
    /// Bytes of working memory the solver holds.
    fn memory_bytes(&self) -> usize {
        0
    }
    /// The work vectors, one value a grid cell each, that the solver needs only during a
    /// solve (nothing in them carries over to the next): the caller may put its own idle
    /// buffers (of one value a cell) in their place before [`PressureSolver::solve`] and take
    /// them back after, so they are not held twice. Empty where the solver keeps no such
    /// vectors.
    fn work_vectors(&mut self) -> Vec<&mut Vec<f32>> {
        Vec::new()
    }
}

/// Multigrid-preconditioned conjugate gradients (see [`Mgpcg`]): the default.
#[derive(Clone, Debug, Default)]
pub struct Multigrid {
    mg: Mgpcg,
}

impl Multigrid {
    /// Relative residual at the start and after each iteration of the last solve.
    pub fn history(&self) -> &[f32] {
        self.mg.history()
    }
}

impl PressureSolver for Multigrid {
    fn name(&self) -> &'static str {
        "multigrid PCG"
    }

    fn solve(
        &mut self,
        stencil: &Stencil,
        diag: Option<&[f32]>,
        p: &mut [f32],
        rhs: &[f32],
        s: &PressureSettings,
    ) -> SolveStats {
        self.mg
            .solve(stencil, diag, p, rhs, s.tolerance, s.max_iterations)
    }

    fn memory_bytes(&self) -> usize {
        self.mg.memory_bytes()
    }

    fn work_vectors(&mut self) -> Vec<&mut Vec<f32>> {
        self.mg.work_vectors()
    }
}

/// Red-black Gauss-Seidel with successive over-relaxation (seed 002: ω ≈ 1.9).
#[derive(Clone, Debug, Default)]
pub struct RedBlackSor {
    packed: PackedRbSor,
}

impl PressureSolver for RedBlackSor {
    fn name(&self) -> &'static str {
        "red-black SOR"
    }

    fn solve(
        &mut self,
        stencil: &Stencil,
        diag: Option<&[f32]>,
        p: &mut [f32],
        rhs: &[f32],
        s: &PressureSettings,
    ) -> SolveStats {
        self.packed.solve(
            stencil,
            diag,
            p,
            rhs,
            s.omega,
            s.tolerance,
            s.max_iterations,
            4,
        )
    }

    fn memory_bytes(&self) -> usize {
        self.packed.memory_bytes()
    }
}

/// The pressure operator for a grid of `dims` cells with the given boundaries.
pub fn pressure_stencil(dims: Dims, b: &Boundaries) -> Stencil {
    let mut st = Stencil::whole(dims.as_array(), 0.0, 1.0);
    for (axis, d) in st.dirichlet.iter_mut().enumerate() {
        for (side, v) in d.iter_mut().enumerate() {
            *v = b.face(axis, side).is_open();
        }
    }
    st
}

/// Writes `rhs = −(h/dt)·D` per cell and returns max|D|/h, the largest divergence (1/s).
/// In a closed box the mean is removed so the singular Neumann problem stays solvable.
pub fn divergence_rhs(vel: VelocityRef<'_>, h: f32, dt: f32, closed: bool, rhs: &mut [f32]) -> f32 {
    let (dims, u, v, w) = (vel.dims, vel.u, vel.v, vel.w);
    let (du, dv, dw) = (dims.faces(0), dims.faces(1), dims.faces(2));
    let scale = -h / dt;
    let plane = dims.nx * dims.ny;
    let nx = dims.nx;
    let maxd = rhs
        .par_chunks_mut(plane)
        .enumerate()
        .map_init(
            || vec![0.0f32; nx],
            |d, (k, out)| {
                // Eight running maxima and a NaN flag (the loops vectorise): infinite where
                // any divergence is NaN, else the largest |D|, whatever order it is taken in.
                let mut m = [0.0f32; 8];
                let mut nan = 0u32;
                for j in 0..dims.ny {
                    let ur = &u[du.idx(0, j, k)..][..nx + 1];
                    let (vb, vt) = (&v[dv.idx(0, j, k)..][..nx], &v[dv.idx(0, j + 1, k)..][..nx]);
                    let (wb, wf) = (&w[dw.idx(0, j, k)..][..nx], &w[dw.idx(0, j, k + 1)..][..nx]);
                    for i in 0..nx {
                        d[i] = ur[i + 1] - ur[i] + vt[i] - vb[i] + wf[i] - wb[i];
                    }
                    for (o, &d) in out[j * nx..][..nx].iter_mut().zip(d.iter()) {
                        *o = scale * d;
                    }
                    let lanes = d.chunks_exact(8);
                    for &x in lanes.remainder() {
                        nan |= u32::from(x.is_nan());
                        m[0] = if x.abs() > m[0] { x.abs() } else { m[0] };
                    }
                    for x in lanes {
                        for l in 0..8 {
                            nan |= u32::from(x[l].is_nan());
                            let a = x[l].abs();
                            m[l] = if a > m[l] { a } else { m[l] };
                        }
                    }
                }
                if nan != 0 {
                    f32::INFINITY
                } else {
                    m.iter().fold(0.0f32, |a, &b| a.max(b))
                }
            },
        )
        .reduce(|| 0.0, f32::max);
    if closed {
        let mean = (det_sum(rhs) / rhs.len() as f64) as f32;
        rhs.par_iter_mut().for_each(|r| *r -= mean);
    }
    maxd / h
}

/// Subtracts `dt·∇p` from the face velocities. Wall faces keep their zero normal velocity;
/// open faces see ambient pressure 0 beyond the domain.
#[allow(clippy::too_many_arguments)]
pub fn subtract_gradient(
    dims: Dims,
    b: &Boundaries,
    p: &[f32],
    u: &mut [f32],
    v: &mut [f32],
    w: &mut [f32],
    h: f32,
    dt: f32,
) {
    let k = dt / h;
    let (nx, ny, nz) = (dims.nx, dims.ny, dims.nz);
    let open = |a: usize, s: usize| b.face(a, s).is_open();
    let (ox0, ox1, oy0, oy1, oz0, oz1) = (
        open(0, 0),
        open(0, 1),
        open(1, 0),
        open(1, 1),
        open(2, 0),
        open(2, 1),
    );
    let prow = |j: usize, kk: usize| &p[dims.idx(0, j, kk)..dims.idx(0, j, kk) + nx];
    // Face between pressure rows `lo` and `hi`: u −= k·(p_hi − p_lo).
    let between = |row: &mut [f32], lo: &[f32], hi: &[f32]| {
        for ((e, a), c) in row.iter_mut().zip(lo).zip(hi) {
            *e -= k * (c - a);
        }
    };
    // Face on an open end: ambient pressure 0 beyond it.
    let end = |row: &mut [f32], inside: &[f32], sign: f32| {
        for (e, a) in row.iter_mut().zip(inside) {
            *e += sign * k * a;
        }
    };
    u.par_chunks_mut((nx + 1) * ny)
        .enumerate()
        .for_each(|(kk, pl)| {
            for j in 0..ny {
                let row = &mut pl[j * (nx + 1)..(j + 1) * (nx + 1)];
                let pr = prow(j, kk);
                for (e, pp) in row[1..nx].iter_mut().zip(pr.windows(2)) {
                    *e -= k * (pp[1] - pp[0]);
                }
                if ox0 {
                    row[0] -= k * pr[0];
                }
                if ox1 {
                    row[nx] += k * pr[nx - 1];
                }
            }
        });
    v.par_chunks_mut(nx * (ny + 1))
        .enumerate()
        .for_each(|(kk, pl)| {
            for j in 0..=ny {
                let row = &mut pl[j * nx..(j + 1) * nx];
                if j > 0 && j < ny {
                    between(row, prow(j - 1, kk), prow(j, kk));
                } else if j == 0 && oy0 {
                    end(row, prow(0, kk), -1.0);
                } else if j == ny && oy1 {
                    end(row, prow(ny - 1, kk), 1.0);
                }
            }
        });
    w.par_chunks_mut(nx * ny).enumerate().for_each(|(kk, pl)| {
        for j in 0..ny {
            let row = &mut pl[j * nx..(j + 1) * nx];
            if kk > 0 && kk < nz {
                between(row, prow(j, kk - 1), prow(j, kk));
            } else if kk == 0 && oz0 {
                end(row, prow(j, 0), -1.0);
            } else if kk == nz && oz1 {
                end(row, prow(j, nz - 1), 1.0);
            }
        }
    });
}
