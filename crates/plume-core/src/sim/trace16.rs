//! Advection's inner work sixteen points at a time with AVX-512 where the processor has it
//! (checked at run time): RK2 traces ([`rk2_row`]), trilinear samples ([`sample_row`]) and
//! MacCormack's clamping ranges ([`range_row`]), to the same bits as the one-at-a-time code
//! they stand for: the same operations in the same order (no fused multiply-adds), the
//! clamps as the same compare-and-select, and any trace whose midpoint falls outside the
//! sampler's window taken by [`rk2`] itself.

use super::sample::{rk2, Sampler, VelWindow};
use std::sync::atomic::{AtomicBool, Ordering};

/// The ends of the RK2 traces over `k` cells per unit velocity from the points
/// `[first + m + x0, y, z]` (cell-array coordinates) with start velocities
/// `(ux[m], uy[m], uz[m])`, into `(ex[m], ey[m], ez[m])`, for every m: bit for bit
/// `rk2(win, p, u0, k)`. All six slices have the same length.
pub fn rk2_row(
    win: &VelWindow<'_>,
    first: usize,
    [x0, y, z]: [f32; 3],
    [ux, uy, uz]: [&[f32]; 3],
    k: f32,
    [ex, ey, ez]: [&mut [f32]; 3],
) {
    let n = ux.len();
    assert!(uy.len() == n && uz.len() == n && ex.len() == n && ey.len() == n && ez.len() == n);
    #[cfg(target_arch = "x86_64")]
    if simd_available() && win.fits_i32_gathers() && first + n < (1 << 24) {
        // SAFETY: the processor has AVX-512F (checked above); the slices have n values each.
        unsafe { avx512::row(win, first, [x0, y, z], [ux, uy, uz], k, [ex, ey, ez]) };
        return;
    }
    rk2_row_scalar(win, first, [x0, y, z], [ux, uy, uz], k, [ex, ey, ez]);
}

/// [`rk2_row`] one trace at a time.
pub fn rk2_row_scalar(
    win: &VelWindow<'_>,
    first: usize,
    [x0, y, z]: [f32; 3],
    [ux, uy, uz]: [&[f32]; 3],
    k: f32,
    [ex, ey, ez]: [&mut [f32]; 3],
) {
    for m in 0..ux.len() {
        let p = [(first + m) as f32 + x0, y, z];
        let e = rk2(win, p, [ux[m], uy[m], uz[m]], k);
        (ex[m], ey[m], ez[m]) = (e[0], e[1], e[2]);
    }
}

/// For every m, the N arrays of `s` (all of the same dimensions) interpolated at the point
/// `(x[m], y[m], z[m])` into `out[n][m]`, and with `codes` the cell it fell in
/// ([`Sampler::cell_code`]): bit for bit [`Sampler::locate`] and [`Sampler::at_loc`].
pub fn sample_row<const N: usize>(
    s: &[Sampler<'_>; N],
    [x, y, z]: [&[f32]; 3],
    out: [&mut [f32]; N],
    codes: Option<&mut [u32]>,
) {
    let n = x.len();
    assert!(y.len() == n && z.len() == n && out.iter().all(|o| o.len() == n));
    assert!(codes.as_ref().is_none_or(|c| c.len() == n));
    assert!(s.iter().all(|t| t.dims() == s[0].dims()));
    #[cfg(target_arch = "x86_64")]
    if N > 0 && simd_available() && s[0].dims().cells() < (1 << 30) {
        // SAFETY: the processor has AVX-512F (checked above); the slices have n values each.
        unsafe { avx512::sample(s, [x, y, z], out, codes) };
        return;
    }
    sample_row_scalar(s, [x, y, z], out, codes);
}

/// [`sample_row`] one point at a time.
pub fn sample_row_scalar<const N: usize>(
    s: &[Sampler<'_>; N],
    [x, y, z]: [&[f32]; 3],
    mut out: [&mut [f32]; N],
    mut codes: Option<&mut [u32]>,
) {
    let Some(first) = s.first() else { return };
    for m in 0..x.len() {
        let l = first.locate([x[m], y[m], z[m]]);
        for (o, t) in out.iter_mut().zip(s) {
            o[m] = t.at_loc(&l);
        }
        if let Some(c) = codes.as_deref_mut() {
            c[m] = first.cell_code(&l);
        }
    }
}

/// For every m, the smallest and largest of the eight values of each array of `s` (all of
/// the same dimensions) around the cell `codes[m]` packs (its top bit ignored), into
/// `lo[n][m]` and `hi[n][m]`: bit for bit [`Sampler::range_loc`] at [`Sampler::cell_loc`].
pub fn range_row<const N: usize>(
    s: &[Sampler<'_>; N],
    codes: &[u32],
    lo: [&mut [f32]; N],
    hi: [&mut [f32]; N],
) {
    let n = codes.len();
    assert!(lo.iter().chain(&hi).all(|o| o.len() == n));
    assert!(s.iter().all(|t| t.dims() == s[0].dims()));
    #[cfg(target_arch = "x86_64")]
    if N > 0 && simd_available() && s[0].dims().cells() < (1 << 30) {
        // SAFETY: the processor has AVX-512F (checked above); the slices have n values each.
        unsafe { avx512::range(s, codes, lo, hi) };
        return;
    }
    range_row_scalar(s, codes, lo, hi);
}

/// [`range_row`] one cell at a time.
pub fn range_row_scalar<const N: usize>(
    s: &[Sampler<'_>; N],
    codes: &[u32],
    lo: [&mut [f32]; N],
    hi: [&mut [f32]; N],
) {
    let Some(first) = s.first() else { return };
    for (m, &code) in codes.iter().enumerate() {
        let l = first.cell_loc(code & !(1 << 31));
        for n in 0..N {
            (lo[n][m], hi[n][m]) = s[n].range_loc(&l);
        }
    }
}

/// Set by [`set_vectorised`]`(false)`: one at a time even where AVX-512 is there.
static ONE_AT_A_TIME: AtomicBool = AtomicBool::new(false);

/// Lets the passes take sixteen points at a time where the processor can (`true`, the
/// default) or makes them take one at a time (`false`), for the whole process: to measure
/// what the vector path gains (`plume bench --no-simd`) and to check that both give the same
/// results. Results do not depend on it.
pub fn set_vectorised(on: bool) {
    ONE_AT_A_TIME.store(!on, Ordering::Relaxed);
}

/// Whether [`rk2_row`], [`sample_row`] and [`range_row`] take sixteen points at a time:
/// the processor has AVX-512F and [`set_vectorised`] has not turned it off.
pub fn simd_available() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        !ONE_AT_A_TIME.load(Ordering::Relaxed) && std::arch::is_x86_feature_detected!("avx512f")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::*;
    use std::arch::x86_64::*;

    /// Trilinear interpolation as `lerp8`: the same operations in the same order.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn trilerp(g: [__m512; 8], t: [__m512; 3]) -> __m512 {
        let lerp = |a: __m512, b: __m512, t: __m512| {
            _mm512_add_ps(a, _mm512_mul_ps(t, _mm512_sub_ps(b, a)))
        };
        let c00 = lerp(g[0], g[1], t[0]);
        let c10 = lerp(g[2], g[3], t[0]);
        let c01 = lerp(g[4], g[5], t[0]);
        let c11 = lerp(g[6], g[7], t[0]);
        let c0 = lerp(c00, c10, t[1]);
        let c1 = lerp(c01, c11, t[1]);
        lerp(c0, c1, t[2])
    }

    /// The lanes of a group of sixteen from value `m` of `n` that hold values (all but in
    /// the last, ragged group).
    #[inline]
    fn lanes_left(m: usize, n: usize) -> __mmask16 {
        if n - m >= 16 {
            0xFFFF
        } else {
            (1u16 << (n - m)) - 1
        }
    }

    /// The permutes that split two vectors of eight pairs each (as 64-bit gathers give them)
    /// into the sixteen firsts and the sixteen seconds.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn pair_split() -> (__m512i, __m512i) {
        (
            _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30),
            _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31),
        )
    }

    /// Sixteen-lane copies of an array's dimensions and of its y and z strides.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn layout(d: [usize; 3]) -> ([__m512i; 3], [__m512i; 2]) {
        let int = |v: usize| _mm512_set1_epi32(v as i32);
        (d.map(int), [int(d[0]), int(d[0] * d[1])])
    }

    /// The index of the sample at `i` (x, y, z) with strides `stride` (y, z).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn index(i: [__m512i; 3], stride: [__m512i; 2]) -> __m512i {
        _mm512_add_epi32(
            _mm512_add_epi32(i[0], _mm512_mullo_epi32(i[1], stride[0])),
            _mm512_mullo_epi32(i[2], stride[1]),
        )
    }

    /// `Sampler::locate` of sixteen points: the lowest sample's index along each axis, the
    /// fractions, and the offsets of the eight samples (order of `Sampler::gather`) from the
    /// index of the lowest. `dims` are the array's; `stride` its y and z strides.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn locate(
        p: [__m512; 3],
        hi: [__m512; 3],
        dims: [__m512i; 3],
        stride: [__m512i; 2],
    ) -> ([__m512i; 3], [__m512; 3], [__m512i; 8]) {
        let zero = _mm512_setzero_ps();
        // `if x > 0 {x} else {0}`, `if x < hi {x} else {hi}` (NaN goes to 0), then
        // truncation as floor on values ≥ 0.
        let c = [0, 1, 2].map(|a| _mm512_min_ps(_mm512_max_ps(p[a], zero), hi[a]));
        let i0 = c.map(|v| _mm512_cvttps_epi32(v));
        let t = [0, 1, 2].map(|a| _mm512_sub_ps(c[a], _mm512_cvtepi32_ps(i0[a])));
        (i0, t, offsets(i0, dims, stride))
    }

    /// The offsets of the eight samples around the lowest `i0` (order of `Sampler::gather`),
    /// a neighbour only where it exists, as `Sampler::loc`.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn offsets(i0: [__m512i; 3], dims: [__m512i; 3], stride: [__m512i; 2]) -> [__m512i; 8] {
        let one = _mm512_set1_epi32(1);
        let has = |a: usize| _mm512_cmplt_epi32_mask(_mm512_add_epi32(i0[a], one), dims[a]);
        let di = _mm512_maskz_mov_epi32(has(0), one);
        let dj = _mm512_maskz_mov_epi32(has(1), stride[0]);
        let dk = _mm512_maskz_mov_epi32(has(2), stride[1]);
        let djdi = _mm512_add_epi32(dj, di);
        let dkdi = _mm512_add_epi32(dk, di);
        let dkdj = _mm512_add_epi32(dk, dj);
        let all = _mm512_add_epi32(dk, djdi);
        let o = _mm512_setzero_si512();
        [o, di, dj, djdi, dk, dkdi, dkdj, all]
    }

    /// [`range_row`] with AVX-512F.
    ///
    /// # Safety
    /// The processor must have AVX-512F, the slices as many values as `codes`, every array of
    /// `s` fewer than 2³⁰ values, all of the same dimensions, every code a cell of them.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn range<const N: usize>(
        s: &[Sampler<'_>; N],
        codes: &[u32],
        lo: [&mut [f32]; N],
        hi: [&mut [f32]; N],
    ) {
        let n = codes.len();
        let (dims, stride) = layout(s[0].raw().1);
        let ten = _mm512_set1_epi32(1023);
        let mut m = 0;
        while m < n {
            let live = lanes_left(m, n);
            // SAFETY: the lanes in `live` are codes m.. < n; the others are not read (and
            // stand for cell 0).
            let code = unsafe { _mm512_maskz_loadu_epi32(live, codes[m..].as_ptr().cast()) };
            let i0 = [
                _mm512_and_si512(code, ten),
                _mm512_and_si512(_mm512_srli_epi32::<10>(code), ten),
                _mm512_and_si512(_mm512_srli_epi32::<20>(code), ten),
            ];
            let offs = offsets(i0, dims, stride);
            let b = index(i0, stride);
            for k in 0..N {
                let f = s[k].raw().0;
                // SAFETY: every code is a cell of these dimensions and each offset moves to a
                // neighbour only where it exists: every index is below f.len().
                let g = offs.map(|o| unsafe {
                    _mm512_i32gather_ps::<4>(_mm512_add_epi32(b, o), f.as_ptr())
                });
                // `min_max8`: `if x < lo {x} else {lo}` in order, likewise the largest.
                let (mut l, mut h) = (g[0], g[0]);
                for &x in &g[1..] {
                    l = _mm512_min_ps(x, l);
                    h = _mm512_max_ps(x, h);
                }
                // SAFETY: the lanes in `live` are values m.. < n of each slice.
                unsafe {
                    _mm512_mask_storeu_ps(lo[k][m..].as_mut_ptr(), live, l);
                    _mm512_mask_storeu_ps(hi[k][m..].as_mut_ptr(), live, h);
                }
            }
            m += 16;
        }
    }

    /// [`sample_row`] with AVX-512F.
    ///
    /// # Safety
    /// The processor must have AVX-512F, the slices n values each, every array of `s` fewer
    /// than 2³⁰ values, all of the same dimensions.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn sample<const N: usize>(
        s: &[Sampler<'_>; N],
        [x, y, z]: [&[f32]; 3],
        mut out: [&mut [f32]; N],
        mut codes: Option<&mut [u32]>,
    ) {
        let n = x.len();
        let (_, d, hi) = s[0].raw();
        let (dims, stride) = layout(d);
        let hi = hi.map(|h| _mm512_set1_ps(h));
        let pairs = d[0] >= 2;
        let (even, odd) = pair_split();
        let mut m = 0;
        while m < n {
            let live = lanes_left(m, n);
            // SAFETY: the lanes in `live` are values m.. < n of each slice; the others are
            // not read (and stand for the point 0, which `locate` keeps in the array).
            let p = [x, y, z].map(|a| unsafe { _mm512_maskz_loadu_ps(live, a[m..].as_ptr()) });
            let (i0, t, offs) = locate(p, hi, dims, stride);
            let b = index(i0, stride);
            let idx = offs.map(|o| _mm512_add_epi32(b, o));
            // Where the lowest sample has a neighbour along x, it and that neighbour lie side
            // by side: one 64-bit gather for eight lanes' pairs takes both. Where it has none
            // (the last along x; the two corners are the same sample), the pair starts one
            // sample earlier and its second is the sample.
            let has_x = _mm512_cmpneq_epi32_mask(offs[1], _mm512_setzero_si512());
            let back = _mm512_maskz_mov_epi32(!has_x, _mm512_set1_epi32(1));
            let starts = [0, 2, 4, 6].map(|c| _mm512_sub_epi32(idx[c], back));
            for (o, t_) in out.iter_mut().zip(s) {
                let f = t_.raw().0;
                let g = if pairs {
                    let mut g = [_mm512_setzero_ps(); 8];
                    for (c, &st) in starts.iter().enumerate() {
                        let (lo, hi) = (
                            _mm512_castsi512_si256(st),
                            _mm512_extracti64x4_epi64::<1>(st),
                        );
                        let fp = f.as_ptr() as *const f64;
                        // SAFETY: `locate` clamps every sample into the array; a pair starts
                        // at the sample and ends at its neighbour along x where that exists,
                        // else starts at the sample before it (there is one: nx ≥ 2) and ends
                        // at it: both indices are in 0..f.len().
                        let (a, b) = unsafe {
                            (
                                _mm512_castpd_ps(_mm512_i32gather_pd::<4>(lo, fp)),
                                _mm512_castpd_ps(_mm512_i32gather_pd::<4>(hi, fp)),
                            )
                        };
                        let (first, second) = (
                            _mm512_permutex2var_ps(a, even, b),
                            _mm512_permutex2var_ps(a, odd, b),
                        );
                        g[2 * c] = _mm512_mask_blend_ps(has_x, second, first);
                        g[2 * c + 1] = second;
                    }
                    g
                } else {
                    // SAFETY: `locate` clamps every sample into the array and each offset
                    // moves to a neighbour only where it exists: every index is below f.len().
                    idx.map(|i| unsafe { _mm512_i32gather_ps::<4>(i, f.as_ptr()) })
                };
                let v = trilerp(g, t);
                // SAFETY: the lanes in `live` are values m.. < n of each slice.
                unsafe { _mm512_mask_storeu_ps(o[m..].as_mut_ptr(), live, v) };
            }
            if let Some(c) = codes.as_deref_mut() {
                let code = _mm512_or_si512(
                    i0[0],
                    _mm512_or_si512(
                        _mm512_slli_epi32::<10>(i0[1]),
                        _mm512_slli_epi32::<20>(i0[2]),
                    ),
                );
                // SAFETY: the lanes in `live` are values m.. < n.
                unsafe { _mm512_mask_storeu_epi32(c[m..].as_mut_ptr().cast(), live, code) };
            }
            m += 16;
        }
    }

    /// [`rk2_row`] with AVX-512F.
    ///
    /// # Safety
    /// The processor must have AVX-512F, the slices n values each, and the window's values
    /// (four floats a cell) must be addressable with 32-bit gather indices.
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn row(
        win: &VelWindow<'_>,
        first: usize,
        [x0, y, z]: [f32; 3],
        [ux, uy, uz]: [&[f32]; 3],
        k: f32,
        [ex, ey, ez]: [&mut [f32]; 3],
    ) {
        let n = ux.len();
        let r = win.raw();
        let base = r.values.as_ptr() as *const f32;
        let int = |v: usize| _mm512_set1_epi32(v as i32);
        let (dims, stride) = layout(r.dims);
        let (z0, z_end, one) = (int(r.z0), int(r.z0 + r.held), int(1));
        let zero = _mm512_setzero_ps();
        let hi = r.hi.map(|h| _mm512_set1_ps(h));
        let half_k = _mm512_set1_ps(0.5 * k);
        let kk = _mm512_set1_ps(k);
        let (px0, py, pz) = (_mm512_set1_ps(x0), _mm512_set1_ps(y), _mm512_set1_ps(z));
        let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let base_pd = base as *const f64;
        let zero_pd = _mm512_setzero_pd();
        let two = int(2);
        let (even, odd) = pair_split();
        let mut m = 0;
        while m < n {
            let live = lanes_left(m, n);
            let idx = _mm512_add_epi32(int(first + m), lanes);
            let px = _mm512_add_ps(_mm512_cvtepi32_ps(idx), px0);
            // SAFETY: the lanes in `live` are values m.. < n of each slice; the others are
            // not read (velocity 0) and gather nothing below.
            let u = [ux, uy, uz].map(|s| unsafe { _mm512_maskz_loadu_ps(live, s[m..].as_ptr()) });
            let mid = [
                _mm512_add_ps(px, _mm512_mul_ps(half_k, u[0])),
                _mm512_add_ps(py, _mm512_mul_ps(half_k, u[1])),
                _mm512_add_ps(pz, _mm512_mul_ps(half_k, u[2])),
            ];
            let (i0, t, offs) = locate(mid, hi, dims, stride);
            // The lanes whose eight cells lie in the window (`VelWindow::at_cell_coords`):
            // the lowest plane and, where there is one, the plane above it.
            let above = _mm512_cmpneq_epi32_mask(offs[4], _mm512_setzero_si512());
            let top = _mm512_mask_add_epi32(i0[2], above, i0[2], one);
            let ok =
                _mm512_cmpge_epi32_mask(i0[2], z0) & _mm512_cmplt_epi32_mask(top, z_end) & live;
            // The window's planes start at z0.
            let b = index([i0[0], i0[1], _mm512_sub_epi32(i0[2], z0)], stride);
            // Four floats a cell: the index of a cell's first float.
            let offs = offs.map(|o| _mm512_slli_epi32::<2>(_mm512_add_epi32(b, o)));
            // Each corner's u and v are side by side in the window, and a cell's w with the
            // w of the next along x (its own at the row's end, where the two x-corners are
            // the same cell): 64-bit gathers of eight lanes' pairs, split by two permutes,
            // take u and v at every corner and w at two corners at once.
            let mut gu = [zero; 8];
            let mut gv = [zero; 8];
            let mut gw = [zero; 8];
            // SAFETY (every gather below): the lanes in `ok` have all eight cells in the
            // window (as `VelWindow::at_cell_coords` checks), so every index read (and the
            // float after it) is below 4·held·nx·ny, the floats it holds; the other lanes
            // read nothing.
            let pair = |o: __m512i| unsafe {
                let (lo, hi) = (_mm512_castsi512_si256(o), _mm512_extracti64x4_epi64::<1>(o));
                let a = _mm512_mask_i32gather_pd::<4>(zero_pd, ok as u8, lo, base_pd);
                let b = _mm512_mask_i32gather_pd::<4>(zero_pd, (ok >> 8) as u8, hi, base_pd);
                let (a, b) = (_mm512_castpd_ps(a), _mm512_castpd_ps(b));
                (
                    _mm512_permutex2var_ps(a, even, b),
                    _mm512_permutex2var_ps(a, odd, b),
                )
            };
            for c in 0..8 {
                (gu[c], gv[c]) = pair(offs[c]);
            }
            for c in [0, 2, 4, 6] {
                (gw[c], gw[c + 1]) = pair(_mm512_add_epi32(offs[c], two));
            }
            let um = [trilerp(gu, t), trilerp(gv, t), trilerp(gw, t)];
            let e = [
                _mm512_add_ps(px, _mm512_mul_ps(kk, um[0])),
                _mm512_add_ps(py, _mm512_mul_ps(kk, um[1])),
                _mm512_add_ps(pz, _mm512_mul_ps(kk, um[2])),
            ];
            for (s, e) in [&mut *ex, &mut *ey, &mut *ez].into_iter().zip(e) {
                // SAFETY: the lanes in `live` are values m.. < n of each slice.
                unsafe { _mm512_mask_storeu_ps(s[m..].as_mut_ptr(), live, e) };
            }
            if ok != live {
                for l in (0..16).filter(|l| (live & !ok) & (1 << l) != 0) {
                    let q = m + l;
                    let p = [(first + q) as f32 + x0, y, z];
                    let e = rk2(win, p, [ux[q], uy[q], uz[q]], k);
                    (ex[q], ey[q], ez[q]) = (e[0], e[1], e[2]);
                }
            }
            m += 16;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::grid::Dims;
    use crate::sim::sample::{VelSampler, VelocityRef};

    use crate::sim::test_noise as noise;

    /// Sixteen at a time gives the bits of one at a time: inside the window, outside it (fast
    /// starts), at the grid's edges, for NaN starts, and for rows that are not a multiple of
    /// sixteen long.
    #[test]
    fn sixteen_traces_at_a_time_give_the_bits_of_one_at_a_time() {
        let d = Dims::new(37, 9, 30);
        let [u, v, w] = [0, 1, 2].map(|a| {
            let f: Vec<f32> = noise(d.faces(a).cells(), 3 + a as u32);
            f.iter().map(|x| 5.0 * x).collect::<Vec<f32>>()
        });
        let vel = VelocityRef {
            dims: d,
            u: &u,
            v: &v,
            w: &w,
        };
        let mut vs = VelSampler::windowed(1);
        let mut rows = 0;
        vs.chunks(vel, d.nz, |c0, c1, win| {
            for kz in c0..c1 {
                for (j, len) in [(0usize, 37usize), (4, 16), (8, 21)] {
                    let seed = (kz * 10 + j) as u32;
                    let mut s = [0, 1, 2].map(|a| {
                        let f = noise(len, seed * 3 + a);
                        f.iter().map(|x| 12.0 * x).collect::<Vec<f32>>()
                    });
                    s[seed as usize % 3][len / 2] = f32::NAN;
                    let x0 = if j == 4 { -0.5 } else { 0.0 };
                    let p = [x0, j as f32, kz as f32 - 0.5 * (j % 2) as f32];
                    let u0 = [&s[0][..], &s[1][..], &s[2][..]];
                    let mut a = [0, 1, 2].map(|_| vec![0.0f32; len]);
                    let mut b = [0, 1, 2].map(|_| vec![0.0f32; len]);
                    let [a0, a1, a2] = &mut a;
                    rk2_row(win, 1, p, u0, -0.9, [a0, a1, a2]);
                    let [b0, b1, b2] = &mut b;
                    rk2_row_scalar(win, 1, p, u0, -0.9, [b0, b1, b2]);
                    let bits = |x: &[Vec<f32>; 3]| {
                        x.concat().iter().map(|v| v.to_bits()).collect::<Vec<u32>>()
                    };
                    assert_eq!(bits(&a), bits(&b), "row y {j} z {kz}");
                    #[cfg(target_arch = "x86_64")]
                    if simd_available() {
                        let mut c = [0, 1, 2].map(|_| vec![0.0f32; len]);
                        let [c0, c1, c2] = &mut c;
                        // SAFETY: AVX-512F checked; the slices have `len` values each.
                        unsafe { avx512::row(win, 1, p, u0, -0.9, [c0, c1, c2]) };
                        assert_eq!(bits(&c), bits(&b), "row y {j} z {kz} (AVX-512)");
                    }
                    rows += 1;
                }
            }
        });
        assert_eq!(rows, 3 * d.nz);
    }

    /// Sixteen points and sixteen ranges at a time give the bits of one at a time: at random
    /// points (outside the grid and NaN included), and around random cells (the last cells of
    /// each axis, where a neighbour repeats, and codes with the outside-air bit set).
    #[test]
    fn sixteen_samples_and_ranges_at_a_time_give_the_bits_of_one_at_a_time() {
        let d = Dims::new(11, 6, 5);
        let (a, b) = (noise(d.cells(), 1), noise(d.cells(), 2));
        let s = [Sampler::new(&a, d), Sampler::new(&b, d)];
        let len = 53;
        let mut p = [0, 1, 2].map(|k| {
            let f = noise(len, 7 + k);
            f.iter().map(|x| 16.0 * x + 4.0).collect::<Vec<f32>>()
        });
        p[1][9] = f32::NAN;
        let pts = [&p[0][..], &p[1][..], &p[2][..]];
        let codes: Vec<u32> = (0..len)
            .map(|m| {
                let c = [m * 7 % d.nx, m * 5 % d.ny, m * 3 % d.nz].map(|x| x as u32);
                c[0] | c[1] << 10 | c[2] << 20 | u32::from(m % 4 == 0) << 31
            })
            .collect();
        type Out = ([Vec<f32>; 2], Vec<u32>, [Vec<f32>; 4]);
        let run = |simd: bool| -> Out {
            let mut v = [vec![0.0; len], vec![0.0; len]];
            let mut c = vec![0; len];
            let mut r = [0, 1, 2, 3].map(|_| vec![0.0; len]);
            let [v0, v1] = &mut v;
            let [l0, l1, h0, h1] = &mut r;
            if simd {
                sample_row(&s, pts, [v0, v1], Some(&mut c));
                range_row(&s, &codes, [l0, l1], [h0, h1]);
            } else {
                sample_row_scalar(&s, pts, [v0, v1], Some(&mut c));
                range_row_scalar(&s, &codes, [l0, l1], [h0, h1]);
            }
            (v, c, r)
        };
        let bits = |o: &Out| {
            let f = o.0.concat().into_iter().chain(o.2.concat());
            (f.map(f32::to_bits).collect::<Vec<u32>>(), o.1.clone())
        };
        let (one, many) = (run(false), run(true));
        assert_eq!(bits(&one), bits(&many));
        assert!(one.2[0].iter().zip(&one.2[2]).all(|(l, h)| l <= h));
        assert!(one.2[0].iter().zip(&one.2[2]).any(|(l, h)| l < h));
        if !simd_available() {
            eprintln!("no AVX-512 here: the dispatch took the scalar path on both sides");
        }
    }
}
