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
use super::operator::{det_sum, max_abs_row, SolveStats, Stencil};
use super::rbsor::PackedRbSor;
use crate::sim::active::max_abs_bits;
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
    /// A copy of the solver in its present state (what it has built and holds).
    fn boxed_clone(&self) -> Box<dyn PressureSolver>;
}

impl Clone for Box<dyn PressureSolver> {
    fn clone(&self) -> Self {
        self.boxed_clone()
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

    fn boxed_clone(&self) -> Box<dyn PressureSolver> {
        Box::new(self.clone())
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

    fn boxed_clone(&self) -> Box<dyn PressureSolver> {
        Box::new(self.clone())
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
                // max|D| of each row (the loops vectorise), infinite where any divergence is
                // not finite: the largest |D| whatever order it is taken in.
                let mut m = 0.0f32;
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
                    m = m.max(max_abs_row(d));
                }
                m
            },
        )
        .reduce(|| 0.0, f32::max);
    if closed {
        let mean = (det_sum(rhs) / rhs.len() as f64) as f32;
        rhs.par_iter_mut().for_each(|r| *r -= mean);
    }
    maxd / h
}

/// What [`subtract_gradient`] saw on its way: the largest of each velocity component's
/// values' bits without the sign after the update (every face of the component, so
/// `f32::from_bits` of it is `active::max_abs` of the array: the largest |value|, NaN above
/// infinity) and the same of the pressure. A value is finite exactly where its bits are below
/// [`NON_FINITE`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GradientScan {
    /// Per velocity component (u, v, w), the largest bits.
    pub vel: [u32; 3],
    /// The pressure's largest bits.
    pub pressure: u32,
}

/// The least bits (sign cleared) of a non-finite `f32`: infinity; NaNs lie above.
pub const NON_FINITE: u32 = 0x7f80_0000;

impl GradientScan {
    /// Whether every face velocity is finite.
    pub fn velocity_finite(&self) -> bool {
        self.vel.iter().all(|&b| b < NON_FINITE)
    }

    /// Whether every pressure is finite.
    pub fn pressure_finite(&self) -> bool {
        self.pressure < NON_FINITE
    }

    /// The largest |value| of each velocity component (`active::max_abs` of each array).
    pub fn vmax(&self) -> [f32; 3] {
        self.vel.map(f32::from_bits)
    }
}

/// Subtracts `dt·∇p` from the face velocities. Wall faces keep their zero normal velocity;
/// open faces see ambient pressure 0 beyond the domain. Returns what it saw of the velocity
/// and the pressure ([`GradientScan`]), which saves the passes after it a read of them.
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
) -> GradientScan {
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
    // The x-faces pass reads every pressure row once: it scans them too.
    let (su, sp) = u
        .par_chunks_mut((nx + 1) * ny)
        .enumerate()
        .map(|(kk, pl)| {
            let (mut su, mut sp) = (0u32, 0u32);
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
                su = su.max(max_abs_bits(row));
                sp = sp.max(max_abs_bits(pr));
            }
            (su, sp)
        })
        .reduce(|| (0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
    let sv = v
        .par_chunks_mut(nx * (ny + 1))
        .enumerate()
        .map(|(kk, pl)| {
            let mut sv = 0u32;
            for j in 0..=ny {
                let row = &mut pl[j * nx..(j + 1) * nx];
                if j > 0 && j < ny {
                    between(row, prow(j - 1, kk), prow(j, kk));
                } else if j == 0 && oy0 {
                    end(row, prow(0, kk), -1.0);
                } else if j == ny && oy1 {
                    end(row, prow(ny - 1, kk), 1.0);
                }
                sv = sv.max(max_abs_bits(row));
            }
            sv
        })
        .reduce(|| 0, u32::max);
    let sw = w
        .par_chunks_mut(nx * ny)
        .enumerate()
        .map(|(kk, pl)| {
            let mut sw = 0u32;
            for j in 0..ny {
                let row = &mut pl[j * nx..(j + 1) * nx];
                if kk > 0 && kk < nz {
                    between(row, prow(j, kk - 1), prow(j, kk));
                } else if kk == 0 && oz0 {
                    end(row, prow(j, 0), -1.0);
                } else if kk == nz && oz1 {
                    end(row, prow(j, nz - 1), 1.0);
                }
                sw = sw.max(max_abs_bits(row));
            }
            sw
        })
        .reduce(|| 0, u32::max);
    GradientScan {
        vel: [su, sv, sw],
        pressure: sp,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::test_noise as noise;

    /// What `subtract_gradient` returns is the largest bits (sign cleared) of each velocity
    /// component after the update, over every face (those it leaves alone on walls too), and
    /// of the pressure: closed and open boxes, and a NaN or an infinity in a face it does not
    /// touch, in one it does, or in the pressure shows as non-finite.
    #[test]
    fn the_gradient_pass_scans_every_face_and_the_pressure() {
        use crate::sim::boundary::Face;
        let bits = |f: &[f32]| {
            f.iter()
                .map(|x| x.to_bits() & 0x7fff_ffff)
                .max()
                .unwrap_or(0)
        };
        let d = Dims::new(21, 6, 5);
        let mut open = Boundaries::closed();
        *open.face_mut(1, 1) = Face::Open;
        *open.face_mut(0, 0) = Face::Open;
        type Edit<'a> = &'a dyn Fn(&mut [Vec<f32>; 3], &mut Vec<f32>);
        let run = |b: &Boundaries, edit: Edit<'_>| {
            let mut f = [0, 1, 2].map(|a| noise(d.faces(a).cells(), 70 + a as u32));
            let mut p = noise(d.cells(), 80);
            edit(&mut f, &mut p);
            let [u, v, w] = &mut f;
            let scan = subtract_gradient(d, b, &p, u, v, w, 0.1, 0.02);
            (scan, f, p)
        };
        for b in [Boundaries::closed(), open] {
            let (scan, f, p) = run(&b, &|_, _| {});
            assert_eq!(scan.vel, [0, 1, 2].map(|a| bits(&f[a])));
            assert_eq!(scan.pressure, bits(&p));
            assert!(scan.vel.iter().all(|&x| x < NON_FINITE) && scan.pressure < NON_FINITE);
            // The largest face on a closed wall (left alone by the pass) still counts.
            let (scan, f, _) = run(&b, &|f, _| f[2][3] = 50.0);
            assert_eq!(scan.vel[2], 50.0f32.to_bits());
            assert_eq!(scan.vel[2], bits(&f[2]));
            for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
                // The bottom row of v (a wall in both boxes), an inner u face, the pressure.
                let last_v = d.faces(1).idx(4, 0, 3);
                let (s, _, _) = run(&b, &|f, _| f[1][last_v] = bad);
                assert!(s.vel[1] >= NON_FINITE && s.vel[0] < NON_FINITE, "{bad}");
                let (s, _, _) = run(&b, &|f, _| f[0][d.faces(0).idx(7, 2, 2)] = bad);
                assert!(s.vel[0] >= NON_FINITE, "{bad}");
                let (s, _, _) = run(&b, &|_, p| p[d.idx(20, 5, 4)] = bad);
                assert!(s.pressure >= NON_FINITE, "{bad}");
            }
        }
    }

    /// `divergence_rhs` writes −(h/dt)·D per cell and returns max|D|/h, worked out one cell
    /// at a time here, for rows longer and shorter than its eight lanes; infinite when a
    /// divergence is NaN or infinite.
    #[test]
    fn divergence_rhs_matches_the_cell_by_cell_divergence_and_flags_non_finite() {
        for d in [Dims::new(19, 4, 3), Dims::new(5, 3, 2)] {
            let mut f = [0, 1, 2].map(|a| noise(d.faces(a).cells(), 40 + a as u32));
            let (h, dt) = (0.1f32, 0.02f32);
            let run = |f: &[Vec<f32>; 3]| {
                let vel = VelocityRef {
                    dims: d,
                    u: &f[0],
                    v: &f[1],
                    w: &f[2],
                };
                let mut rhs = vec![0.0; d.cells()];
                let m = divergence_rhs(vel, h, dt, false, &mut rhs);
                (m, rhs)
            };
            let (m, rhs) = run(&f);
            let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
            let mut want = 0.0f32;
            for k in 0..d.nz {
                for j in 0..d.ny {
                    for i in 0..d.nx {
                        let div = f[0][du.idx(i + 1, j, k)] - f[0][du.idx(i, j, k)]
                            + f[1][dv.idx(i, j + 1, k)]
                            - f[1][dv.idx(i, j, k)]
                            + f[2][dw.idx(i, j, k + 1)]
                            - f[2][dw.idx(i, j, k)];
                        want = want.max(div.abs());
                        let r = rhs[d.idx(i, j, k)];
                        assert_eq!(r.to_bits(), ((-h / dt) * div).to_bits());
                    }
                }
            }
            assert_eq!(m, want / h);
            for bad in [f32::NAN, f32::INFINITY] {
                let keep = f[1][7];
                f[1][7] = bad;
                assert_eq!(run(&f).0, f32::INFINITY, "{bad}");
                f[1][7] = keep;
            }
        }
    }
}
