//! The row kernels of the multigrid cycle and of conjugate gradients: stencil passes,
//! Jacobi sweeps, residuals and deterministic reductions over z-planes.

use super::*;
#[cfg(target_arch = "x86_64")]
use crate::sim::trace16::Simd;

/// What a stencil pass hands its kernel for one row.
pub(super) struct RowCtx<'a, D> {
    /// Index of the row's first cell in the level's arrays.
    pub(super) base: usize,
    /// The row of the input field.
    pub(super) x: &'a [f32],
    /// Sum of each cell's six neighbours inside the domain.
    pub(super) s: &'a [f32],
    pub(super) diag: &'a [D],
    pub(super) out: &'a mut [f32],
}

/// Parallel over z-planes (small grids run in one task).
pub(super) fn plane_len(dims: [usize; 3]) -> (usize, usize) {
    let plane = dims[0] * dims[1];
    (plane, (MIN_TASK_CELLS / plane.max(1)).max(1))
}

/// Runs `kernel` on every row of `x` with the row's neighbour sums, writing `out`, and returns
/// the sum of the kernel's results in plane order (deterministic).
pub(super) fn stencil_pass<D: Diag>(
    dims: [usize; 3],
    diag: &[D],
    zeros: &[f32],
    x: &[f32],
    out: &mut [f32],
    kernel: impl Fn(RowCtx<'_, D>) -> f64 + Sync,
) -> f64 {
    let [nx, ny, _] = dims;
    let (plane, min) = plane_len(dims);
    let parts: Vec<f64> = out
        .par_chunks_mut(plane)
        .with_min_len(min)
        .enumerate()
        .map_init(
            || vec![0.0f32; nx],
            |s, (k, pl)| {
                let mut acc = 0.0;
                for j in 0..ny {
                    let base = (k * ny + j) * nx;
                    let c = neighbour_sum(dims, zeros, x, j, k, s);
                    acc += kernel(RowCtx {
                        base,
                        x: c,
                        s,
                        diag: &diag[base..][..nx],
                        out: &mut pl[j * nx..][..nx],
                    });
                }
                acc
            },
        )
        .collect();
    parts.iter().sum()
}

/// `f(k, plane, base)` for every z-plane of `v`, results in plane order.
pub(super) fn map_planes(
    dims: [usize; 3],
    v: &[f32],
    f: impl Fn(usize, &[f32], usize) -> f64 + Sync,
) -> Vec<f64> {
    let (plane, min) = plane_len(dims);
    v.par_chunks(plane)
        .with_min_len(min)
        .enumerate()
        .map(|(k, p)| f(k, p, k * plane))
        .collect()
}

/// `f(a_plane, b_plane)` for every z-plane.
pub(super) fn zip_planes(
    dims: [usize; 3],
    a: &mut [f32],
    b: &[f32],
    f: impl Fn(&mut [f32], &[f32]) + Sync,
) {
    let (plane, min) = plane_len(dims);
    a.par_chunks_mut(plane)
        .with_min_len(min)
        .zip(b.par_chunks(plane))
        .for_each(|(x, y)| f(x, y));
}

pub(super) fn max_abs(dims: [usize; 3], v: &[f32]) -> f32 {
    map_planes(dims, v, |_, p, _| max_abs_row(p) as f64)
        .into_iter()
        .fold(0.0, f64::max) as f32
}

/// Zeroes the solid cells of `v`.
pub(super) fn mask<D: Diag>(diag: &[D], dims: [usize; 3], v: &mut [f32]) {
    let (plane, min) = plane_len(dims);
    v.par_chunks_mut(plane)
        .with_min_len(min)
        .zip(diag.par_chunks(plane))
        .for_each(|(p, g)| {
            for (e, &g) in p.iter_mut().zip(g) {
                if !g.on() {
                    *e = 0.0;
                }
            }
        });
}

/// Removes the mean over the fluid cells (the null space of a closed domain's operator).
pub(super) fn remove_mean<D: Diag>(diag: &[D], dims: [usize; 3], v: &mut [f32]) {
    let parts = map_planes(dims, v, |_, p, base| {
        let g = &diag[base..][..p.len()];
        p.iter()
            .zip(g)
            .fold(0.0f64, |s, (&e, &g)| if g.on() { s + e as f64 } else { s })
    });
    let count = diag.par_iter().filter(|&&g| g.on()).count().max(1);
    let mean = (parts.iter().sum::<f64>() / count as f64) as f32;
    let (plane, min) = plane_len(dims);
    v.par_chunks_mut(plane)
        .with_min_len(min)
        .zip(diag.par_chunks(plane))
        .for_each(|(p, g)| {
            for (e, &g) in p.iter_mut().zip(g) {
                if g.on() {
                    *e -= mean;
                }
            }
        });
}

/// x += α·d, r −= α·q; returns max|r| (infinite when not finite).
pub(super) fn update_xr(
    dims: [usize; 3],
    alpha: f32,
    d: &[f32],
    q: &[f32],
    x: &mut [f32],
    r: &mut [f32],
) -> f32 {
    let (plane, min) = plane_len(dims);
    x.par_chunks_mut(plane)
        .with_min_len(min)
        .zip(r.par_chunks_mut(plane))
        .zip(d.par_chunks(plane).zip(q.par_chunks(plane)))
        .map(|((xp, rp), (dp, qp))| {
            #[cfg(target_arch = "x86_64")]
            match crate::sim::trace16::simd_level() {
                // SAFETY: the processor has AVX-512F (`simd_level` asked it).
                Simd::Avx512 => return unsafe { update_xr_avx512(alpha, dp, qp, xp, rp) },
                // SAFETY: the processor has AVX2 (`simd_level` asked it).
                Simd::Avx2 => return unsafe { update_xr_avx2(alpha, dp, qp, xp, rp) },
                Simd::Scalar => {}
            }
            update_xr_plane(alpha, dp, qp, xp, rp)
        })
        .reduce(|| 0.0, f32::max)
}

/// A plane of [`update_xr`].
#[inline(always)]
fn update_xr_plane(alpha: f32, d: &[f32], q: &[f32], x: &mut [f32], r: &mut [f32]) -> f32 {
    for ((xe, re), (&de, &qe)) in x.iter_mut().zip(r.iter_mut()).zip(d.iter().zip(q)) {
        *xe += alpha * de;
        *re -= alpha * qe;
    }
    max_abs_row(r)
}

/// [`update_xr_plane`] compiled for AVX-512F (the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn update_xr_avx512(alpha: f32, d: &[f32], q: &[f32], x: &mut [f32], r: &mut [f32]) -> f32 {
    update_xr_plane(alpha, d, q, x, r)
}

/// [`update_xr_plane`] compiled for AVX2 (the same bits).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn update_xr_avx2(alpha: f32, d: &[f32], q: &[f32], x: &mut [f32], r: &mut [f32]) -> f32 {
    update_xr_plane(alpha, d, q, x, r)
}

/// One damped Jacobi sweep `out = x + ω·(b − A·x)/d`; returns Σ b·out when `want_dot`.
#[allow(clippy::too_many_arguments)]
pub(super) fn jacobi<D: Diag>(
    omega: f32,
    dims: [usize; 3],
    diag: &[D],
    zeros: &[f32],
    b: &[f32],
    x: &[f32],
    out: &mut [f32],
    want_dot: bool,
) -> f64 {
    stencil_pass(dims, diag, zeros, x, out, |ctx| {
        let n = ctx.out.len();
        let bb = &b[ctx.base..][..n];
        for (((o, &x), &s), (&g, &b)) in ctx
            .out
            .iter_mut()
            .zip(ctx.x)
            .zip(ctx.s)
            .zip(ctx.diag.iter().zip(bb))
        {
            // Both sides worked out and one chosen (a solid cell's division by 0 is
            // discarded): the loop vectorises, the division with it.
            let gf = g.val();
            let inv = omega / gf;
            let inv = if g.on() { inv } else { 0.0 };
            *o = x + inv * (b - gf * x + s);
        }
        if want_dot {
            dot(bb, ctx.out)
        } else {
            0.0
        }
    })
}

/// Σ a·b in eight fixed lanes (vectorises; the same order on every run).
#[inline(always)]
pub(super) fn dot(a: &[f32], b: &[f32]) -> f64 {
    let mut acc = [0.0f32; 8];
    let (ca, cb) = (a.chunks_exact(8), b.chunks_exact(8));
    let (ra, rb) = (ca.remainder(), cb.remainder());
    for (x, y) in ca.zip(cb) {
        for l in 0..8 {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f32 = ra.iter().zip(rb).map(|(x, y)| x * y).sum();
    acc.iter().map(|&v| v as f64).sum::<f64>() + tail as f64
}

/// `out = ω·b/d`: the first Jacobi sweep from zero.
pub(super) fn jacobi_from_zero<D: Diag>(
    omega: f32,
    dims: [usize; 3],
    diag: &[D],
    b: &[f32],
    out: &mut [f32],
) {
    let (plane, min) = plane_len(dims);
    out.par_chunks_mut(plane)
        .with_min_len(min)
        .zip(b.par_chunks(plane).zip(diag.par_chunks(plane)))
        .for_each(|(o, (bp, g))| {
            for ((o, &b), &g) in o.iter_mut().zip(bp).zip(g) {
                // As in `jacobi`: computed for every cell, kept for the fluid ones.
                let v = omega * b / g.val();
                *o = if g.on() { v } else { 0.0 };
            }
        });
}

/// Writes into `s` the sum of the six neighbours inside the domain of each cell of row (j, k)
/// of `x`, and returns the row itself.
#[inline(always)]
pub(super) fn neighbour_sum<'a>(
    dims: [usize; 3],
    zeros: &'a [f32],
    x: &'a [f32],
    j: usize,
    k: usize,
    s: &mut [f32],
) -> &'a [f32] {
    let [nx, ny, nz] = dims;
    let plane = |kk: usize| &x[kk * nx * ny..][..nx * ny];
    let below = (k > 0).then(|| plane(k - 1));
    let above = (k + 1 < nz).then(|| plane(k + 1));
    neighbour_sum_planes([nx, ny], zeros, [below, Some(plane(k)), above], j, s)
}

/// [`neighbour_sum`] from the planes below, of and above the row (`None`: outside the
/// domain, zeros), each `nx·ny` values: row `j` of the middle plane's neighbour sums into `s`.
/// The same sums in the same order whichever array the planes lie in.
#[inline(always)]
pub(super) fn neighbour_sum_planes<'a>(
    [nx, ny]: [usize; 2],
    zeros: &'a [f32],
    planes: [Option<&'a [f32]>; 3],
    j: usize,
    s: &mut [f32],
) -> &'a [f32] {
    let s = &mut s[..nx];
    let row = |p: Option<&'a [f32]>, jj: usize| p.map_or(&zeros[..nx], |p| &p[jj * nx..][..nx]);
    let [below, mid, above] = planes;
    let c = row(mid, j);
    let ym = if j > 0 { row(mid, j - 1) } else { &zeros[..nx] };
    let yp = if j + 1 < ny {
        row(mid, j + 1)
    } else {
        &zeros[..nx]
    };
    let (zm, zp) = (row(below, j), row(above, j));
    // (y− + y+ + z− + z+) + (x− + x+); the ends, which miss an x-neighbour, apart (so no
    // value is read back just after the vector loop stored it).
    let yz = |i: usize| ym[i] + yp[i] + zm[i] + zp[i];
    if nx == 1 {
        s[0] = yz(0);
        return c;
    }
    let inner = s[1..nx - 1]
        .iter_mut()
        .zip(&ym[1..nx - 1])
        .zip(&yp[1..nx - 1])
        .zip(zm[1..nx - 1].iter().zip(&zp[1..nx - 1]))
        .zip(c[..nx - 2].iter().zip(&c[2..]));
    for ((((o, a), b), (c2, d)), (l, r)) in inner {
        *o = a + b + c2 + d + (l + r);
    }
    s[0] = yz(0) + c[1];
    s[nx - 1] = yz(nx - 1) + c[nx - 2];
    c
}

/// Residual `b − A·e` of row (j, k) into `out` (0 on solid cells).
#[allow(clippy::too_many_arguments)]
#[inline(always)]
pub(super) fn residual_row<D: Diag>(
    dims: [usize; 3],
    diag: &[D],
    zeros: &[f32],
    b: &[f32],
    e: &[f32],
    j: usize,
    k: usize,
    base: usize,
    out: &mut [f32],
) {
    let nx = dims[0];
    let c = neighbour_sum(dims, zeros, e, j, k, out);
    let bb = &b[base..][..nx];
    let g = &diag[base..][..nx];
    for (((o, &bv), &gv), &cv) in out.iter_mut().zip(bb).zip(g).zip(c) {
        let v = bv - (gv.val() * cv - *o);
        *o = if gv.on() { v } else { 0.0 };
    }
}
