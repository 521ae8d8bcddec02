//! Multigrid-preconditioned conjugate gradients (MGPCG, after McAdams, Sifakis and Teran,
//! "A parallel multigrid Poisson solver for fluids simulation on large grids", SCA 2010).
//!
//! The operator is the pressure matrix of the MAC grid: per cell `d·p − Σ p_nb`, where the sum
//! runs over the neighbours inside the domain and `d` counts the fluid neighbours plus the open
//! faces (ambient pressure 0 beyond them). Solid cells have `d = 0`: no equation, value 0.
//! Since solid values are held at 0, the sum may include them, which keeps every loop free of
//! per-neighbour tests.
//!
//! The preconditioner is one symmetric V-cycle: Chebyshev-Jacobi smoothing (two Jacobi
//! sweeps with the weights of a degree-2 Chebyshev polynomial, before and after the
//! coarse-grid correction), cell-centred trilinear prolongation and its transpose as
//! restriction, applied as three one-dimensional passes, and coarse operators rediscretised
//! on grids of half the size (rounded up, so any grid size works). A coarse cell is fluid when any of its children is.
//! The coarsest grid (at most 4 cells on its shortest axis) is relaxed with a fixed number of
//! Jacobi sweeps, so the whole cycle is one fixed symmetric linear operator, as conjugate
//! gradients needs.
//!
//! Every loop runs over z-planes with contiguous rows (they vectorise); every reduction sums
//! fixed per-plane partial results in plane order, so the result is bitwise the same whatever
//! the number of threads.

use super::operator::{diagonal_at, max_abs_row, SolveStats, Stencil};
use kernels::*;
use planes::*;
use sweeps::jacobi_sweeps;
use transfer::*;

mod kernels;
mod planes;
mod sweeps;
mod transfer;
mod update;
use rayon::prelude::*;

/// Damped Jacobi weight for the coarsest grid's sweeps (the best smoothing weight for the
/// 7-point Laplacian in 3D; both backends).
pub const COARSEST_OMEGA: f32 = 6.0 / 7.0;
const OMEGA: f32 = COARSEST_OMEGA;

/// The three Jacobi weights of the smoother (the GPU backend's V-cycle takes them from here): the reciprocal roots of a degree-3 Chebyshev
/// polynomial in D⁻¹A that is small over [1/4, 2]. The modes a coarser grid cannot represent
/// (some wavenumber at least half the maximum) have their eigenvalues in [1/3, 2]; widening
/// the interval down to 1/4 also damps the smoother modes that the inexact coarse correction
/// (itself one V-cycle) leaves. Measured on the default scene: two sweeps over [1/3, 2] cut
/// the residual 12-fold a CG iteration at 128³ and needed 3 iterations a step there; three
/// over [1/4, 2] cut it 25–31-fold and need 2 (at 256³: 3 → 2 a sub-step).
pub fn smoother_weights() -> [f32; 3] {
    let (lo, hi) = (0.25f32, 2.0f32);
    let (mid, half) = ((hi + lo) / 2.0, (hi - lo) / 2.0);
    let c = 0.75f32.sqrt(); // cos(π/6); the middle root has cos(π/2) = 0
    [1.0 / (mid + half * c), 1.0 / mid, 1.0 / (mid - half * c)]
}
/// Jacobi sweeps on the coarsest grid of `dims`, the first from zero (both backends): an
/// even number, so the cycle stays symmetric, growing with the grid's longest side as
/// Jacobi's convergence slows there.
pub fn coarsest_sweeps(dims: [usize; 3]) -> u32 {
    let m = dims.iter().copied().max().unwrap_or(1);
    let sweeps = (m * m).clamp(8, 512) as u32;
    2 + 2 * (sweeps / 2)
}

/// The weight of a transfer's end cell (both backends), on a grid of spacing `spacing` fine
/// cells: past a wall the coarse correction is mirrored (1); towards an open face it falls
/// linearly to 0 at the finest grid's ghost-cell centre, (H + 1)/2 beyond the last centre of
/// this grid (spacing H) and H + ½ beyond the coarse one's.
pub fn transfer_end_weight(spacing: usize, open: bool) -> f32 {
    let h = spacing as f32;
    if open {
        (h + 1.0) / (2.0 * h + 1.0)
    } else {
        1.0
    }
}

/// Coarsening stops at this many cells on the shortest axis.
const COARSEST: usize = 4;
/// Planes smaller than this are not worth a task of their own.
const MIN_TASK_CELLS: usize = 1 << 13;

/// A diagonal entry: the finest grid stores its integer neighbour counts as bytes (a quarter
/// of the memory traffic), the coarse grids need fractional ones (open faces) as `f32`.
trait Diag: Copy + Send + Sync {
    /// The value.
    fn val(self) -> f32;
    /// Whether the cell is fluid (has an equation).
    fn on(self) -> bool;
}

impl Diag for u8 {
    #[inline(always)]
    fn val(self) -> f32 {
        self as f32
    }
    #[inline(always)]
    fn on(self) -> bool {
        self > 0
    }
}

impl Diag for f32 {
    #[inline(always)]
    fn val(self) -> f32 {
        self
    }
    #[inline(always)]
    fn on(self) -> bool {
        self > 0.0
    }
}

/// One grid of the hierarchy: its size and the cycle's buffers.
#[derive(Clone, Debug, Default)]
struct Level {
    dims: [usize; 3],
    /// Right-hand side (unused on the finest level, which takes the CG residual).
    b: Vec<f32>,
    /// Correction (unused on the finest level, which writes the CG's z).
    e: Vec<f32>,
    /// Second Jacobi buffer.
    t: Vec<f32>,
    /// Transfer buffers to and from the next coarser level: coarse along x (`cx·ny·nz`) and
    /// coarse along x and y (`cx·cy·nz`).
    tx: Vec<f32>,
    ty: Vec<f32>,
}

impl Level {
    fn new(dims: [usize; 3], finest: bool) -> Self {
        let n = dims[0] * dims[1] * dims[2];
        let buf = |skip: bool| if skip { Vec::new() } else { vec![0.0; n] };
        Self {
            dims,
            b: buf(finest),
            e: buf(finest),
            // The finest level's smoothing buffer is `Mgpcg::t0`, lent for each solve.
            t: buf(finest),
            tx: Vec::new(),
            ty: Vec::new(),
        }
    }
}

/// What building the hierarchy takes for a moment beyond [`estimate_bytes`]: the finest
/// diagonal as floats before it becomes bytes, and one flag a cell for which cells are fluid.
pub fn build_peak_bytes(dims: [usize; 3]) -> u64 {
    5 * (dims[0] * dims[1] * dims[2]) as u64
}

/// What [`Mgpcg`] holds between solves for a grid of `dims` once its hierarchy is built (the
/// coarse levels' buffers, the diagonals, the restriction buffers), its work vectors lent
/// out: equal to [`Mgpcg::memory_bytes`] then.
pub fn estimate_bytes(dims: [usize; 3]) -> u64 {
    let cells = |d: [usize; 3]| (d[0] * d[1] * d[2]) as u64;
    let n = cells(dims);
    // The finest diagonal as bytes and one row of zeros. The finest level's smoothing buffer
    // and the four CG vectors are lent by the caller for each solve (`work_vectors`).
    let mut floats = dims[0] as u64;
    let mut bytes = n;
    let mut fd = dims;
    while fd.iter().all(|&v| v > COARSEST) {
        let cd = fd.map(|v| v.div_ceil(2));
        floats += (cd[0] * fd[1] * fd[2]) as u64 + (cd[0] * cd[1] * fd[2]) as u64; // tx, ty
        floats += 4 * cells(cd); // b, e, t and the diagonal of the coarse level
        fd = cd;
    }
    bytes += 4 * floats;
    bytes
}

/// Reusable state of the MGPCG solver: the grid hierarchy and the CG vectors.
#[derive(Clone, Debug, Default)]
pub struct Mgpcg {
    /// What the hierarchy was built for: dims, open sides (`open`), whether a diagonal was
    /// given (`diag0` holds it).
    key_dims: [usize; 3],
    key_solids: bool,
    levels: Vec<Level>,
    /// Diagonal per cell of the finest grid (number of fluid or open neighbours); 0 marks a
    /// solid cell.
    diag0: Vec<u8>,
    /// The same for each coarser grid (index 0 is the second grid).
    diags: Vec<Vec<f32>>,
    /// Which sides of the domain are open (`[axis][side]`).
    open: [[bool; 2]; 3],
    zeros: Vec<f32>,
    /// The finest level's smoothing buffer: in `levels[0].t` during a solve, here between.
    t0: Vec<f32>,
    r: Vec<f32>,
    z: Vec<f32>,
    d: Vec<f32>,
    q: Vec<f32>,
    /// Residual after each iteration of the last solve, relative to max|rhs|.
    history: Vec<f32>,
}

impl Mgpcg {
    /// Relative residual (max|r| / max|rhs|) at the start and after each iteration of the last
    /// solve.
    pub fn history(&self) -> &[f32] {
        &self.history
    }

    /// Number of grids in the hierarchy built by the last solve.
    pub fn levels(&self) -> usize {
        self.levels.len()
    }

    /// Bytes held by the hierarchy and the CG vectors.
    pub fn memory_bytes(&self) -> usize {
        let f = std::mem::size_of::<f32>();
        let lv: usize = self
            .levels
            .iter()
            .map(|l| f * (l.b.len() + l.e.len() + l.t.len() + l.tx.len() + l.ty.len()))
            .sum::<usize>()
            + f * self.diags.iter().map(Vec::len).sum::<usize>()
            + self.diag0.len();
        lv + f
            * (self.r.len()
                + self.z.len()
                + self.d.len()
                + self.q.len()
                + self.t0.len()
                + self.zeros.len())
    }

    /// The conjugate-gradient vectors and the finest level's smoothing buffer: fully
    /// written by every solve before they are read (see `PressureSolver::work_vectors`).
    pub fn work_vectors(&mut self) -> Vec<&mut Vec<f32>> {
        vec![
            &mut self.r,
            &mut self.z,
            &mut self.d,
            &mut self.q,
            &mut self.t0,
        ]
    }

    /// Solves `A·x = rhs` for the pressure operator of `st` (a whole array, `c0 = 0`, `a = 1`;
    /// `dirichlet` marks open sides), starting from `x`. `diag`, when given, is each cell's
    /// diagonal (0 for solid cells). Stops when max|r| ≤ `tol`·max|rhs| or after `max_iter`
    /// iterations.
    pub fn solve(
        &mut self,
        st: &Stencil,
        diag: Option<&[f32]>,
        x: &mut [f32],
        rhs: &[f32],
        tol: f32,
        max_iter: u32,
    ) -> SolveStats {
        let [nx, ny, nz] = st.dims;
        assert!(
            st.offset == 0 && st.sy == nx && st.sz == nx * ny,
            "the multigrid solver needs a stencil over a whole array"
        );
        assert!(
            st.c0 == 0.0 && st.a == 1.0,
            "the multigrid solver is for pressure"
        );
        let n = nx * ny * nz;
        assert_eq!(x.len(), n);
        assert_eq!(rhs.len(), n);
        self.prepare(st.dims, st.dirichlet, diag);
        self.t0.resize(n, 0.0);
        std::mem::swap(&mut self.levels[0].t, &mut self.t0);
        let lent = [self.z.as_ptr(), self.d.as_ptr(), self.levels[0].t.as_ptr()];
        let stats = self.solve_prepared(x, rhs, tol, max_iter);
        // Each cycle's last sweep trades `z` with the smoothing buffer, and the first search
        // direction takes `z`'s buffer: the three go back where they were lent, so the
        // caller's buffers come back to their owners.
        let mut bufs = [
            std::mem::take(&mut self.z),
            std::mem::take(&mut self.d),
            std::mem::take(&mut self.levels[0].t),
        ];
        for (i, &p) in lent.iter().enumerate() {
            if let Some(j) = (i..3).find(|&j| bufs[j].as_ptr() == p) {
                bufs.swap(i, j);
            }
        }
        let [z, d, t] = bufs;
        (self.z, self.d, self.levels[0].t) = (z, d, t);
        std::mem::swap(&mut self.levels[0].t, &mut self.t0);
        stats
    }

    /// [`Mgpcg::solve`] once the hierarchy is built and the finest smoothing buffer is in
    /// place.
    fn solve_prepared(
        &mut self,
        x: &mut [f32],
        rhs: &[f32],
        tol: f32,
        max_iter: u32,
    ) -> SolveStats {
        self.history.clear();
        let closed = !self.open.iter().flatten().any(|&o| o);
        let Self {
            levels,
            diag0,
            diags,
            zeros,
            r,
            z,
            d,
            q,
            history,
            open,
            key_solids,
            ..
        } = self;
        let dims = levels[0].dims;
        let diag0: &[u8] = diag0;

        // Solid cells hold 0 (without obstacles there are none); the residual of the warm
        // start is the first search residual, worked out with max|rhs| and max|r|.
        if *key_solids {
            mask(diag0, dims, x);
        }
        let first = FirstResidual {
            dims,
            diag: diag0,
            zeros,
            x,
            rhs,
        };
        let maxima = for_planes(dims, r, &first);
        let bnorm = maxima.iter().fold(0.0f32, |m, p| m.max(p.0));
        let mut res = maxima.iter().fold(0.0f32, |m, p| m.max(p.1));
        // Without obstacles every cell has an equation, so the largest |rhs| over them is
        // the largest over the array (with them, solid cells are left out).
        let rhs_max = (!*key_solids).then_some(bnorm);
        if bnorm == 0.0 || !bnorm.is_finite() {
            x.fill(0.0);
            let r = if bnorm == 0.0 { 0.0 } else { f32::INFINITY };
            return SolveStats {
                iterations: 0,
                relative_residual: r,
                initial_residual: r,
                rhs_max,
            };
        }
        if closed {
            remove_mean(diag0, dims, r);
            res = max_abs(dims, r);
        }
        let target = tol * bnorm;
        history.push(res / bnorm);
        let mut it = 0u32;
        if res > target && res.is_finite() {
            let mut rz = precondition(levels, diag0, diags, *open, zeros, closed, r, z);
            // The first search direction is z itself: `d` takes its buffer (the next
            // preconditioning writes all of `z` before reading it).
            std::mem::swap(d, z);
            loop {
                let mv = MatVec {
                    dims,
                    diag: diag0,
                    zeros,
                    d,
                };
                let dq: f64 = for_planes(dims, q, &mv).iter().sum();
                if dq <= 0.0 || !dq.is_finite() || !rz.is_finite() {
                    res = if dq.is_finite() && rz.is_finite() {
                        res
                    } else {
                        f32::INFINITY
                    };
                    break;
                }
                let alpha = (rz / dq) as f32;
                res = update_xr(dims, alpha, d, q, x, r);
                it += 1;
                history.push(res / bnorm);
                if res <= target || it >= max_iter || !res.is_finite() {
                    break;
                }
                let rz_new = precondition(levels, diag0, diags, *open, zeros, closed, r, z);
                let beta = (rz_new / rz) as f32;
                rz = rz_new;
                zip_planes(dims, d, z, |dd, zz| {
                    for (a, &b) in dd.iter_mut().zip(zz) {
                        *a = b + beta * *a;
                    }
                });
            }
        }
        SolveStats {
            iterations: it,
            relative_residual: res / bnorm,
            initial_residual: history[0],
            rhs_max,
        }
    }

    /// Builds the hierarchy when the grid, its open sides or its solid cells changed.
    fn prepare(&mut self, dims: [usize; 3], open: [[bool; 2]; 3], diag: Option<&[f32]>) {
        let n = dims[0] * dims[1] * dims[2];
        let same = self.key_dims == dims
            && self.open == open
            && !self.levels.is_empty()
            && self.key_solids == diag.is_some();
        // Solids that moved change the diagonals where they were and are, nothing else.
        if same && diag.is_none_or(|dg| dg.len() == n && self.update_diagonals(dg)) {
            return;
        }
        let diag0 = match diag {
            Some(dg) => dg.par_iter().map(|&a| f32::from(to_u8(a))).collect(),
            None => rediscretise(dims, open, 1, |_| true),
        };
        let mut levels = vec![Level::new(dims, true)];
        let mut diags = vec![diag0];
        let mut fd = dims;
        while fd.iter().all(|&v| v > COARSEST) {
            let cd = fd.map(|v| v.div_ceil(2));
            let fdiag = &diags[diags.len() - 1];
            let active = |[i, j, k]: [usize; 3]| {
                (0..2).any(|c| {
                    let kk = 2 * k + c;
                    kk < fd[2]
                        && (0..2).any(|b| {
                            let jj = 2 * j + b;
                            jj < fd[1]
                                && (0..2).any(|a| {
                                    let ii = 2 * i + a;
                                    ii < fd[0] && fdiag[(kk * fd[1] + jj) * fd[0] + ii] > 0.0
                                })
                        })
                })
            };
            let cdiag = rediscretise(cd, open, 1 << levels.len(), active);
            let last = levels.len() - 1;
            levels[last].tx = vec![0.0; cd[0] * fd[1] * fd[2]];
            levels[last].ty = vec![0.0; cd[0] * cd[1] * fd[2]];
            levels.push(Level::new(cd, false));
            diags.push(cdiag);
            fd = cd;
        }
        self.levels = levels;
        // The finest diagonal goes to bytes (its entries are neighbour counts, 0..=6).
        self.diag0 = diags[0].par_iter().map(|&a| to_u8(a)).collect();
        diags.remove(0);
        self.diags = diags;
        self.key_dims = dims;
        self.key_solids = diag.is_some();
        self.open = open;
        self.zeros = vec![0.0; dims[0]];
        for v in [&mut self.r, &mut self.z, &mut self.d, &mut self.q] {
            v.clear();
            v.resize(n, 0.0);
        }
    }
}

fn to_u8(a: f32) -> u8 {
    if a > 0.0 {
        a.round().min(255.0) as u8
    } else {
        0
    }
}

/// Diagonal of the pressure operator on a grid whose fluid cells are given by `active`.
fn rediscretise(
    dims: [usize; 3],
    open: [[bool; 2]; 3],
    spacing: usize,
    active: impl Fn([usize; 3]) -> bool + Sync,
) -> Vec<f32> {
    let [nx, ny, nz] = dims;
    // The finest grid's pressure is 0 at the centre of the ghost cell beyond an open face,
    // half a fine cell outside; on a grid of spacing H (in fine cells) that point is
    // (H + 1)/2 from the last cell's centre, so the face couples with H / ((H + 1)/2).
    let h = spacing as f32;
    let open_coef = 2.0 * h / (h + 1.0);
    let act: Vec<bool> = (0..nx * ny * nz)
        .into_par_iter()
        .map(|c| active([c % nx, (c / nx) % ny, c / (nx * ny)]))
        .collect();
    (0..nx * ny * nz)
        .into_par_iter()
        .map(|c| {
            let p = [c % nx, (c / nx) % ny, c / (nx * ny)];
            diagonal_at(
                dims,
                open,
                open_coef,
                |q| act[q[0] + nx * (q[1] + ny * q[2])],
                p,
            )
        })
        .collect()
}

/// `z = M⁻¹·r`; returns r·z. In a closed domain the operator's null space (constants on the
/// fluid cells) is projected out of z, which keeps conjugate gradients from breaking down.
#[allow(clippy::too_many_arguments)]
fn precondition(
    levels: &mut [Level],
    diag0: &[u8],
    diags: &[Vec<f32>],
    open: [[bool; 2]; 3],
    zeros: &[f32],
    closed: bool,
    r: &[f32],
    z: &mut Vec<f32>,
) -> f64 {
    let rz = vcycle(levels, diag0, diags, 1, open, zeros, r, z);
    if !closed {
        return rz;
    }
    let dims = levels[0].dims;
    remove_mean(diag0, dims, z);
    map_planes(dims, z, |_, zp, base| dot(zp, &r[base..][..zp.len()]))
        .iter()
        .sum()
}

/// The preconditioner: one V-cycle for `A·e = b` from `e = 0`. Returns Σ b·e.
#[allow(clippy::too_many_arguments)]
fn vcycle<D: Diag>(
    levels: &mut [Level],
    diag: &[D],
    coarse: &[Vec<f32>],
    spacing: usize,
    open: [[bool; 2]; 3],
    zeros: &[f32],
    b: &[f32],
    e: &mut Vec<f32>,
) -> f64 {
    let (cur, rest) = levels.split_first_mut().expect("at least one level");
    let dims = cur.dims;
    let t = &mut cur.t;
    if rest.is_empty() {
        // Coarsest grid: a fixed, even number of sweeps (a symmetric operator).
        jacobi_from_zero(OMEGA, dims, diag, b, t);
        jacobi(OMEGA, dims, diag, zeros, b, t, e, false);
        for _ in 0..(coarsest_sweeps(dims) - 2) / 2 {
            jacobi(OMEGA, dims, diag, zeros, b, e, t, false);
            jacobi(OMEGA, dims, diag, zeros, b, t, e, false);
        }
        return dot(b, e);
    }
    // Pre-smoothing: three sweeps from zero, ending in `e`.
    let [w1, w2, w3] = smoother_weights();
    jacobi_sweeps(&[w1, w2, w3], dims, diag, zeros, b, None, e, false);
    // Residual, restricted along x as it is computed.
    let [_, ny, nz] = dims;
    let ends = open.map(|a| a.map(|o| transfer_end_weight(spacing, o)));
    let next = &mut rest[0];
    let cd = next.dims;
    let job = ResidualRestrict {
        dims,
        diag,
        zeros,
        b,
        e,
        cx: cd[0],
        ends: ends[0],
    };
    for_planes(dims, &mut cur.tx, &job);
    // Along y, then along z into the coarse right-hand side (×½: the coarse operator is the
    // same stencil at twice the spacing), solid coarse cells dropped.
    restrict_rows(&cur.tx, &mut cur.ty, cd[0], ny, cd[1], ends[1]);
    restrict_planes(
        &cur.ty,
        &mut next.b,
        cd[0] * cd[1],
        nz,
        cd[2],
        &coarse[0],
        ends[2],
    );
    let mut nb = std::mem::take(&mut next.b);
    let mut ne = std::mem::take(&mut next.e);
    vcycle(
        rest,
        &coarse[0],
        &coarse[1..],
        2 * spacing,
        open,
        zeros,
        &nb,
        &mut ne,
    );
    let next = &mut rest[0];
    // Prolongation: along z, along y, then along x added to e.
    prolong_planes(&ne, &mut cur.ty, cd[0] * cd[1], cd[2], ends[2]);
    prolong_rows(&cur.ty, &mut cur.tx, cd[0], cd[1], ny, ends[1]);
    let job = ProlongAdd {
        dims,
        diag,
        tx: &cur.tx,
        cx: cd[0],
        ends: ends[0],
    };
    for_planes(dims, e, &job);
    std::mem::swap(&mut next.b, &mut nb);
    std::mem::swap(&mut next.e, &mut ne);
    // Post-smoothing: the three sweeps in reverse order (a symmetric cycle), the last also
    // giving Σ b·e; it ends in `t`, which then trades places with `e`.
    let be = jacobi_sweeps(&[w3, w2, w1], dims, diag, zeros, b, Some(e), t, true);
    std::mem::swap(e, t);
    be
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pressure operator of a whole box of `dims` with an open top.
    fn open_top(dims: [usize; 3]) -> Stencil {
        let mut dirichlet = [[false; 2]; 3];
        dirichlet[1][1] = true;
        Stencil {
            dims,
            offset: 0,
            sy: dims[0],
            sz: dims[0] * dims[1],
            dirichlet,
            c0: 0.0,
            a: 1.0,
        }
    }

    /// The caller lends its buffers for each solve (`work_vectors`) and takes them back in the
    /// same order: each must come back to the slot it was lent in, however many iterations the
    /// solve ran (the V-cycles trade `z` with the smoothing buffer, the first search direction
    /// takes `z`'s buffer), or an owner would get a buffer of another size back and allocate
    /// again every step.
    #[test]
    fn lent_buffers_come_back_to_their_slots_after_any_number_of_iterations() {
        let dims = [12, 10, 9];
        let n = dims.iter().product::<usize>();
        let st = open_top(dims);
        let rhs: Vec<f32> = (0..n)
            .map(|c| ((c * 37 % 23) as f32 - 11.0) / 5.0)
            .collect();
        let mut mg = Mgpcg::default();
        let mut residuals = Vec::new();
        for max_iter in 1..=5u32 {
            // Buffers of distinct capacities, as the solver's owners lend them.
            let mut owned: Vec<Vec<f32>> = (0..5).map(|i| Vec::with_capacity(n + 7 * i)).collect();
            let ptrs: Vec<*const f32> = owned.iter().map(|v| v.as_ptr()).collect();
            for (mine, theirs) in owned.iter_mut().zip(mg.work_vectors()) {
                mine.resize(n, 0.0);
                *theirs = std::mem::take(mine);
            }
            let mut x = vec![0.0f32; n];
            let s = mg.solve(&st, None, &mut x, &rhs, 1e-9, max_iter);
            assert_eq!(s.iterations, max_iter);
            residuals.push(s.relative_residual);
            for (mine, theirs) in owned.iter_mut().zip(mg.work_vectors()) {
                *mine = std::mem::take(theirs);
            }
            let back: Vec<*const f32> = owned.iter().map(|v| v.as_ptr()).collect();
            assert_eq!(back, ptrs, "after {max_iter} iterations");
        }
        // And the iterations still converge.
        assert!(residuals.windows(2).all(|w| w[1] < w[0]), "{residuals:?}");
    }

    /// The largest |rhs| the solve reports is the one `Stencil::max_abs` works out, bit for
    /// bit (the projection's divergence-after takes it instead of reading the array again):
    /// with NaN and infinity in the rhs, and all zeros. With obstacles it reports none.
    #[test]
    fn the_reported_rhs_maximum_is_the_stencils() {
        let dims = [11, 9, 10];
        let n = dims.iter().product::<usize>();
        let st = open_top(dims);
        let base: Vec<f32> = (0..n)
            .map(|c| ((c * 53 % 97) as f32 - 48.0) * 0.37)
            .collect();
        let mut cases = vec![base.clone(), vec![0.0; n]];
        for (at, v) in [(17, f32::NAN), (n - 1, f32::INFINITY), (5, -f32::INFINITY)] {
            let mut r = base.clone();
            r[at] = v;
            cases.push(r);
        }
        let mut mg = Mgpcg::default();
        for rhs in &cases {
            let mut x = vec![0.0f32; n];
            let s = mg.solve(&st, None, &mut x, rhs, 1e-3, 3);
            let want = st.max_abs(rhs);
            assert_eq!(s.rhs_max.map(f32::to_bits), Some(want.to_bits()));
        }
        let diag: Vec<f32> = (0..n).map(|c| if c % 7 == 0 { 0.0 } else { 6.0 }).collect();
        let mut x = vec![0.0f32; n];
        let s = mg.solve(&st, Some(&diag), &mut x, &base, 1e-3, 3);
        assert_eq!(s.rhs_max, None);
    }
}
