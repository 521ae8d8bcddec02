//! Red-black SOR on a checkerboard-packed copy of the grid: the red cells of every row are
//! stored contiguously in one array and the black cells in another, so updating one colour
//! reads only the other colour's array. The inner loops are contiguous (they vectorise) and
//! parallel over z-planes with no shared mutable state, and the result does not depend on
//! the number of threads.
//!
//! In row (j, k) the cells of colour c sit at i = s + 2m with s = (c + j + k) mod 2. Their
//! x-neighbours are entries m+s−1 and m+s of the other colour's row; their y- and z-neighbours
//! are entry m of the other colour's adjacent rows.

use super::operator::{SolveStats, Stencil};
use rayon::prelude::*;

/// Fewest cells of one colour a parallel task of a sweep takes (see `half_sweep`).
const MIN_TASK_CELLS: usize = 4096;

/// Reusable buffers of the packed solver.
#[derive(Clone, Debug, Default)]
pub struct PackedRbSor {
    dims: [usize; 3],
    hx: usize,
    x: [Vec<f32>; 2],
    b: [Vec<f32>; 2],
    /// Per-cell diagonal and its reciprocal (0 for solid cells), when obstacles exist.
    diag: [Vec<f32>; 2],
    inv: [Vec<f32>; 2],
    zeros: Vec<f32>,
}

#[derive(Clone, Copy)]
struct Op {
    dims: [usize; 3],
    hx: usize,
    dirichlet: [[bool; 2]; 3],
    c0: f32,
    a: f32,
    has_diag: bool,
}

impl Op {
    fn diag(&self, n: usize) -> f32 {
        self.c0 + self.a * n as f32
    }
}

impl PackedRbSor {
    /// Solves `A·x = rhs` for a stencil covering a whole array (offset 0, natural strides),
    /// starting from `x`. Stops at `max|r| ≤ tol·max|rhs|` or `max_iter` iterations, checking
    /// every `check_every` iterations. `diag`, when given, replaces the stencil's diagonal per
    /// cell (x-fastest, natural layout); cells with diagonal 0 are solid: their unknown is
    /// held at 0 and their equation dropped.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &mut self,
        st: &Stencil,
        diag: Option<&[f32]>,
        x: &mut [f32],
        rhs: &[f32],
        omega: f32,
        tol: f32,
        max_iter: u32,
        check_every: u32,
    ) -> SolveStats {
        let [nx, ny, nz] = st.dims;
        assert!(
            st.offset == 0 && st.sy == nx && st.sz == nx * ny,
            "the packed solver needs a stencil over a whole array"
        );
        assert_eq!(x.len(), nx * ny * nz);
        assert_eq!(rhs.len(), x.len());
        self.resize(st.dims);
        let op = Op {
            dims: st.dims,
            hx: self.hx,
            dirichlet: st.dirichlet,
            c0: st.c0,
            a: st.a,
            has_diag: false,
        };
        let has_diag = diag.is_some();
        if let Some(dg) = diag {
            assert_eq!(dg.len(), x.len());
            pack(op, dg, &mut self.diag);
            for c in 0..2 {
                let (d, inv) = (&self.diag[c], &mut self.inv[c]);
                inv.resize(d.len(), 0.0);
                inv.par_iter_mut()
                    .zip(d.par_iter())
                    .for_each(|(i, &d)| *i = if d > 0.0 { 1.0 / d } else { 0.0 });
            }
        }
        let op = Op { has_diag, ..op };
        pack(op, x, &mut self.x);
        pack(op, rhs, &mut self.b);
        if has_diag {
            // Solid cells start (and stay) at 0.
            for c in 0..2 {
                self.x[c]
                    .par_iter_mut()
                    .zip(self.inv[c].par_iter())
                    .for_each(|(x, &i)| {
                        if i == 0.0 {
                            *x = 0.0
                        }
                    });
            }
        }
        let bnorm = self.b.iter().map(|v| max_abs(v)).fold(0.0, f32::max);
        if bnorm == 0.0 {
            x.fill(0.0);
            return SolveStats::default();
        }
        let target = tol * bnorm;
        let mut res = self.residual(op);
        let initial = res / bnorm;
        let mut it = 0;
        // Checking the residual costs about one iteration, so after the first `check_every`
        // iterations the next check is placed where the observed convergence rate predicts
        // the target is reached (at most 4·check_every iterations ahead).
        let mut n = check_every.max(1);
        while res > target && it < max_iter {
            let n_now = n.min(max_iter - it);
            for _ in 0..n_now {
                self.half_sweep(op, 0, omega);
                self.half_sweep(op, 1, omega);
            }
            it += n_now;
            let prev = res;
            res = self.residual(op);
            let rate = (res / prev).powf(1.0 / n_now as f32);
            n = if rate.is_finite() && rate > 0.0 && rate < 0.999 && res > target {
                let needed = ((target / res).ln() / rate.ln()).ceil();
                (needed as u32).clamp(1, 4 * check_every.max(1))
            } else {
                check_every.max(1)
            };
        }
        unpack(op, &self.x, x);
        SolveStats {
            iterations: it,
            relative_residual: res / bnorm,
            initial_residual: initial,
            rhs_max: None,
        }
    }

    /// Bytes held by the packed copies.
    pub fn memory_bytes(&self) -> usize {
        let n: usize = [&self.x, &self.b, &self.diag, &self.inv]
            .iter()
            .map(|p| p[0].len() + p[1].len())
            .sum();
        std::mem::size_of::<f32>() * (n + self.zeros.len())
    }

    fn resize(&mut self, dims: [usize; 3]) {
        if self.dims == dims && !self.zeros.is_empty() {
            return;
        }
        let hx = dims[0].div_ceil(2);
        let rows = dims[1] * dims[2];
        self.dims = dims;
        self.hx = hx;
        self.x = [vec![0.0; hx * rows], vec![0.0; hx * rows]];
        self.b = [vec![0.0; hx * rows], vec![0.0; hx * rows]];
        self.diag = [vec![0.0; hx * rows], vec![0.0; hx * rows]];
        self.inv = [vec![0.0; hx * rows], vec![0.0; hx * rows]];
        self.zeros = vec![0.0; hx + 1];
    }

    fn half_sweep(&mut self, op: Op, color: usize, omega: f32) {
        let (lo, hi) = self.x.split_at_mut(1);
        let (mine, other) = if color == 0 {
            (&mut lo[0], &hi[0])
        } else {
            (&mut hi[0], &lo[0])
        };
        let rhs = &self.b[color];
        let inv_all = &self.inv[color];
        let zeros = &self.zeros;
        let plane = op.hx * op.dims[1];
        // Tasks of at least MIN_TASK_CELLS: on a small grid a half sweep is a few
        // microseconds of work, and handing each plane to another thread cost more than it
        // (the same cells in the same order, so the same bits).
        let min = MIN_TASK_CELLS.div_ceil(plane.max(1)).max(1);
        let relax = |(k, out): (usize, &mut [f32])| {
            for j in 0..op.dims[1] {
                let row = &mut out[j * op.hx..(j + 1) * op.hx];
                let base = (k * op.dims[1] + j) * op.hx;
                let brow = &rhs[base..][..op.hx];
                let plan = plan_row(op, other, zeros, color, j, k);
                // With obstacles the diagonal varies per cell (its reciprocal is 0 for solid
                // cells, which therefore stay 0); without, it follows from the neighbour count.
                let irow = op.has_diag.then(|| &inv_all[base..][..op.hx]);
                for &(m, n, x_nb) in &plan.edges[..plan.n_edges] {
                    let inv = irow.map_or_else(|| 1.0 / op.diag(n), |iv| iv[m]);
                    let gs = (brow[m] + op.a * x_nb) * inv;
                    row[m] += omega * (gs - row[m]);
                }
                if let Some(ctx) = plan.interior {
                    let r = &mut row[ctx.m_lo..ctx.m_hi];
                    let b = &brow[ctx.m_lo..ctx.m_hi];
                    match irow {
                        Some(iv) => {
                            let iv = &iv[ctx.m_lo..ctx.m_hi];
                            relax_interior(r, b, &ctx, op.a, omega, |t| iv[t]);
                        }
                        None => {
                            let inv = 1.0 / op.diag(ctx.n_full);
                            relax_interior(r, b, &ctx, op.a, omega, |_| inv);
                        }
                    }
                }
            }
        };
        mine.par_chunks_mut(plane)
            .enumerate()
            .with_min_len(min)
            .for_each(relax);
    }

    /// max|rhs − A·x| over both colours; infinite when any residual is not finite.
    fn residual(&self, op: Op) -> f32 {
        let mut m = 0.0f32;
        for color in 0..2 {
            let mine = &self.x[color];
            let other = &self.x[1 - color];
            let rhs = &self.b[color];
            let dg_all = &self.diag[color];
            let zeros = &self.zeros;
            let min = MIN_TASK_CELLS.div_ceil((op.hx * op.dims[1]).max(1)).max(1);
            let r = (0..op.dims[2])
                .into_par_iter()
                .with_min_len(min)
                .map(|k| {
                    let mut mx = 0.0f32;
                    let mut poison = 0.0f32;
                    for j in 0..op.dims[1] {
                        let base = (k * op.dims[1] + j) * op.hx;
                        let row = &mine[base..base + op.hx];
                        let brow = &rhs[base..base + op.hx];
                        let plan = plan_row(op, other, zeros, color, j, k);
                        // Solid cells (diagonal 0) have no equation: their residual is 0.
                        let drow = op.has_diag.then(|| &dg_all[base..][..op.hx]);
                        for &(m, n, x_nb) in &plan.edges[..plan.n_edges] {
                            let d = drow.map_or_else(|| op.diag(n), |dr| dr[m]);
                            let r = if d > 0.0 {
                                brow[m] - (d * row[m] - op.a * x_nb)
                            } else {
                                0.0
                            };
                            poison += r * 0.0;
                            mx = mx.max(r.abs());
                        }
                        if let Some(ctx) = plan.interior {
                            let xr = &row[ctx.m_lo..ctx.m_hi];
                            let b = &brow[ctx.m_lo..ctx.m_hi];
                            let (lm, lp) = match drow {
                                Some(dr) => {
                                    let dr = &dr[ctx.m_lo..ctx.m_hi];
                                    residual_interior(xr, b, &ctx, op.a, |t| dr[t])
                                }
                                None => {
                                    let d = op.diag(ctx.n_full);
                                    residual_interior(xr, b, &ctx, op.a, |_| d)
                                }
                            };
                            poison += lp;
                            mx = mx.max(lm);
                        }
                    }
                    // r·0 is 0 for finite r and NaN otherwise.
                    if poison == 0.0 {
                        mx
                    } else {
                        f32::INFINITY
                    }
                })
                .reduce(|| 0.0, f32::max);
            m = m.max(r);
        }
        m
    }
}

/// One SOR update of a row's contiguous interior, with `inv(t)` the reciprocal diagonal of
/// entry t (a constant without obstacles, so the loop stays branch-free and vectorises).
#[inline(always)]
fn relax_interior(
    r: &mut [f32],
    b: &[f32],
    ctx: &RowCtx<'_>,
    a: f32,
    omega: f32,
    inv: impl Fn(usize) -> f32,
) {
    let len = r.len();
    let b = &b[..len];
    let (l, rt) = (&ctx.left[..len], &ctx.right[..len]);
    let (ym, yp, zm, zp) = (
        &ctx.ym[..len],
        &ctx.yp[..len],
        &ctx.zm[..len],
        &ctx.zp[..len],
    );
    for t in 0..len {
        let s = l[t] + rt[t] + ym[t] + yp[t] + zm[t] + zp[t];
        let gs = (b[t] + a * s) * inv(t);
        r[t] += omega * (gs - r[t]);
    }
}

/// Largest |residual| over a row's interior and the NaN probe Σ r·0, with `diag(t)` the
/// diagonal of entry t (cells with diagonal 0 are solid and contribute nothing).
#[inline(always)]
fn residual_interior(
    x: &[f32],
    b: &[f32],
    ctx: &RowCtx<'_>,
    a: f32,
    diag: impl Fn(usize) -> f32,
) -> (f32, f32) {
    let len = x.len();
    let b = &b[..len];
    let (l, rt) = (&ctx.left[..len], &ctx.right[..len]);
    let (ym, yp) = (&ctx.ym[..len], &ctx.yp[..len]);
    let (zm, zp) = (&ctx.zm[..len], &ctx.zp[..len]);
    let mut lm = 0.0f32;
    let mut lp = 0.0f32;
    for t in 0..len {
        let s = l[t] + rt[t] + ym[t] + yp[t] + zm[t] + zp[t];
        let d = diag(t);
        let r = if d > 0.0 {
            b[t] - (d * x[t] - a * s)
        } else {
            0.0
        };
        lp += r * 0.0;
        let ra = r.abs();
        lm = if ra > lm { ra } else { lm };
    }
    (lm, lp)
}

/// The contiguous interior of one packed row: neighbour slices aligned with `m_lo..m_hi`.
struct RowCtx<'a> {
    m_lo: usize,
    m_hi: usize,
    n_full: usize,
    left: &'a [f32],
    right: &'a [f32],
    ym: &'a [f32],
    yp: &'a [f32],
    zm: &'a [f32],
    zp: &'a [f32],
}

/// The cells of row (j, k) of one colour: the (at most two) cells at the row's ends as
/// `(m, n, Σ neighbours)`, and the contiguous interior whose cells have both x-neighbours.
struct RowPlan<'a> {
    edges: [(usize, usize, f32); 2],
    n_edges: usize,
    interior: Option<RowCtx<'a>>,
}

#[inline(always)]
fn plan_row<'a>(
    op: Op,
    other: &'a [f32],
    zeros: &'a [f32],
    color: usize,
    j: usize,
    k: usize,
) -> RowPlan<'a> {
    let [nx, ny, nz] = op.dims;
    let hx = op.hx;
    let d = op.dirichlet;
    let s = (color + j + k) % 2;
    let cnt = (nx - s).div_ceil(2);
    let orow = |jj: usize, kk: usize| &other[(kk * ny + jj) * hx..][..hx];
    let (ym, yp, zm, zp) = (
        if j > 0 { orow(j - 1, k) } else { &zeros[..hx] },
        if j + 1 < ny {
            orow(j + 1, k)
        } else {
            &zeros[..hx]
        },
        if k > 0 { orow(j, k - 1) } else { &zeros[..hx] },
        if k + 1 < nz {
            orow(j, k + 1)
        } else {
            &zeros[..hx]
        },
    );
    let n_yz = (j > 0 || d[1][0]) as usize
        + (j + 1 < ny || d[1][1]) as usize
        + (k > 0 || d[2][0]) as usize
        + (k + 1 < nz || d[2][1]) as usize;
    let xrow = orow(j, k);
    let m_lo = 1 - s;
    let m_hi = (nx - s) / 2;
    let mut plan = RowPlan {
        edges: [(0, 0, 0.0); 2],
        n_edges: 0,
        interior: None,
    };
    let mut push_edge = |m: usize| {
        let i = s + 2 * m;
        let mut n = n_yz;
        let mut sum = ym[m] + yp[m] + zm[m] + zp[m];
        if i > 0 {
            sum += xrow[m + s - 1];
            n += 1;
        } else if d[0][0] {
            n += 1;
        }
        if i + 1 < nx {
            sum += xrow[m + s];
            n += 1;
        } else if d[0][1] {
            n += 1;
        }
        plan.edges[plan.n_edges] = (m, n, sum);
        plan.n_edges += 1;
    };
    for m in 0..m_lo.min(cnt) {
        push_edge(m);
    }
    for m in m_hi.max(m_lo)..cnt {
        push_edge(m);
    }
    if m_hi > m_lo {
        plan.interior = Some(RowCtx {
            m_lo,
            m_hi,
            n_full: n_yz + 2,
            left: &xrow[m_lo + s - 1..m_hi + s - 1],
            right: &xrow[m_lo + s..m_hi + s],
            ym: &ym[m_lo..m_hi],
            yp: &yp[m_lo..m_hi],
            zm: &zm[m_lo..m_hi],
            zp: &zp[m_lo..m_hi],
        });
    }
    plan
}

fn max_abs(v: &[f32]) -> f32 {
    v.par_chunks(1 << 14)
        .map(|c| c.iter().fold(0.0f32, |m, e| m.max(e.abs())))
        .reduce(|| 0.0, f32::max)
}

fn pack(op: Op, x: &[f32], out: &mut [Vec<f32>; 2]) {
    let [nx, ny, _] = op.dims;
    let hx = op.hx;
    let (r, b) = out.split_at_mut(1);
    r[0].par_chunks_mut(hx * ny)
        .zip(b[0].par_chunks_mut(hx * ny))
        .enumerate()
        .for_each(|(k, (pr, pb))| {
            for j in 0..ny {
                let src = &x[(k * ny + j) * nx..][..nx];
                let s_red = (j + k) % 2;
                let (rr, br) = (&mut pr[j * hx..(j + 1) * hx], &mut pb[j * hx..(j + 1) * hx]);
                for (i, &v) in src.iter().enumerate() {
                    if i % 2 == s_red {
                        rr[i / 2] = v;
                    } else {
                        br[i / 2] = v;
                    }
                }
            }
        });
}

fn unpack(op: Op, packed: &[Vec<f32>; 2], x: &mut [f32]) {
    let [nx, ny, _] = op.dims;
    let hx = op.hx;
    x.par_chunks_mut(nx * ny).enumerate().for_each(|(k, pl)| {
        for j in 0..ny {
            let s_red = (j + k) % 2;
            let base = (k * ny + j) * hx;
            let (rr, br) = (&packed[0][base..base + hx], &packed[1][base..base + hx]);
            for (i, v) in pl[j * nx..(j + 1) * nx].iter_mut().enumerate() {
                *v = if i % 2 == s_red { rr[i / 2] } else { br[i / 2] };
            }
        }
    });
}
