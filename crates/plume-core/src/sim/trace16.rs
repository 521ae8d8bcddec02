//! Advection's inner work many points at a time, with the widest vector instructions the
//! processor has (checked at run time): sixteen with AVX-512, eight with AVX2
//! (`trace16_avx2.rs`). RK2 traces ([`rk2_row`]), trilinear samples ([`sample_row`]) and
//! MacCormack's clamping ranges ([`range_row`]) give the same bits as the one-at-a-time code
//! they stand for: the same operations in the same order (no fused multiply-adds), the
//! clamps as the same compare-and-select, and any trace whose midpoint falls outside the
//! sampler's window taken by [`rk2`] itself.
//!
//! With AVX-512 the sixteen points' corners are read without gathers where they can be: the
//! points are grouped by the rows along y and z their corners lie in (in a smooth flow
//! mostly one, at most four), each group loads 32 values of each of its four rows and picks
//! its corners by permutes (`avx512::row_groups`). Gathers cost by the value on the
//! processors measured, and a trace's midpoint took 24 of them. With AVX2 the eight points
//! take theirs from blocks of two or three rows along y and z, loaded whole
//! (`trace16_avx2.rs`).

use super::sample::{rk2, Sampler, VelWindow};
use std::sync::atomic::{AtomicU8, Ordering};

/// `[e(0), e(1), …]` written out, 3 or 8 values, with `$i` bound to each index in turn. The
/// vector paths build their small arrays with it instead of `array::map`, which Rust 1.95
/// compiled there to calls through stack copies (the AVX2 velocity advection at 128³ ran
/// 2× slower for it).
macro_rules! each {
    (3, |$i:ident| $e:expr) => {
        [each!(@ 0, $i, $e), each!(@ 1, $i, $e), each!(@ 2, $i, $e)]
    };
    (8, |$i:ident| $e:expr) => {
        [
            each!(@ 0, $i, $e),
            each!(@ 1, $i, $e),
            each!(@ 2, $i, $e),
            each!(@ 3, $i, $e),
            each!(@ 4, $i, $e),
            each!(@ 5, $i, $e),
            each!(@ 6, $i, $e),
            each!(@ 7, $i, $e),
        ]
    };
    (@ $n:literal, $i:ident, $e:expr) => {{
        let $i = $n as usize;
        $e
    }};
}

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
    if first + n < (1 << 24) {
        match simd_level() {
            // SAFETY: the processor has AVX-512F (checked by `simd_level`); the slices have n
            // values each.
            Simd::Avx512 => unsafe {
                return avx512::row(win, first, [x0, y, z], [ux, uy, uz], k, [ex, ey, ez]);
            },
            // SAFETY: the processor has AVX2 (checked by `simd_level`); as above.
            Simd::Avx2 => unsafe {
                return avx2::row(win, first, [x0, y, z], [ux, uy, uz], k, [ex, ey, ez]);
            },
            Simd::Scalar => {}
        }
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
    if N > 0 && s[0].dims().cells() < (1 << 30) {
        match simd_level() {
            // SAFETY: the processor has AVX-512F (checked by `simd_level`); the slices have n
            // values each.
            Simd::Avx512 => unsafe { return avx512::sample(s, [x, y, z], out, codes) },
            // SAFETY: the processor has AVX2 (checked by `simd_level`); as above.
            Simd::Avx2 => unsafe { return avx2::sample(s, [x, y, z], out, codes) },
            Simd::Scalar => {}
        }
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
    if N > 0 && s[0].dims().cells() < (1 << 30) {
        match simd_level() {
            // SAFETY: the processor has AVX-512F (checked by `simd_level`); the slices have n
            // values each, every code a cell of the arrays (the caller's promise).
            Simd::Avx512 => unsafe { return avx512::range(s, codes, lo, hi) },
            // SAFETY: the processor has AVX2 (checked by `simd_level`); as above.
            Simd::Avx2 => unsafe { return avx2::range(s, codes, lo, hi) },
            Simd::Scalar => {}
        }
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

/// The vector instructions the passes use: the widest the processor has, at most what
/// [`set_simd_cap`] allows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Simd {
    /// Sixteen lanes (AVX-512F).
    Avx512,
    /// Eight lanes (AVX2).
    Avx2,
    /// One point at a time; the multigrid's and the confinement's loops as the baseline
    /// x86-64 compiles them (four lanes).
    Scalar,
}

impl Simd {
    /// The name `plume bench` reports: "avx512", "avx2" or "none".
    pub fn name(self) -> &'static str {
        match self {
            Simd::Avx512 => "avx512",
            Simd::Avx2 => "avx2",
            Simd::Scalar => "none",
        }
    }
}

/// The widest vector instructions allowed, as `Simd as u8` (0: any).
static CAP: AtomicU8 = AtomicU8::new(Simd::Avx512 as u8);

/// Lets the passes use vector instructions up to `cap`, for the whole process: to measure
/// what each gains (`plume bench --simd avx2`, `--no-simd`) and to check that all give the
/// same results. Results do not depend on it. The multigrid pressure solver's and the
/// vorticity confinement's passes follow it too (compiled for AVX-512F, for AVX2 and for the
/// baseline x86-64).
pub fn set_simd_cap(cap: Simd) {
    CAP.store(cap as u8, Ordering::Relaxed);
}

/// [`set_simd_cap`]: any (`true`, the default) or none (`false`).
pub fn set_vectorised(on: bool) {
    set_simd_cap(if on { Simd::Avx512 } else { Simd::Scalar });
}

/// The vector instructions the passes use now: the widest the processor has that
/// [`set_simd_cap`] allows.
pub fn simd_level() -> Simd {
    #[cfg(target_arch = "x86_64")]
    {
        let cap = CAP.load(Ordering::Relaxed);
        if cap <= Simd::Avx512 as u8 && std::arch::is_x86_feature_detected!("avx512f") {
            return Simd::Avx512;
        }
        if cap <= Simd::Avx2 as u8 && std::arch::is_x86_feature_detected!("avx2") {
            return Simd::Avx2;
        }
    }
    Simd::Scalar
}

/// Whether [`rk2_row`], [`sample_row`] and [`range_row`] take many points at a time.
pub fn simd_available() -> bool {
    simd_level() != Simd::Scalar
}

/// Where an array's rows lie: row (y, z) starts at `(z − z0)·row_z + y·row_y` and holds
/// `d[0]` values; `d` are the array's dimensions. (Both vector paths load rows whole.)
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Rows {
    d: [usize; 3],
    row_y: usize,
    row_z: usize,
    z0: usize,
}

#[cfg(target_arch = "x86_64")]
impl Rows {
    /// One array of dimensions `d`, x fastest.
    fn array(d: [usize; 3]) -> Self {
        Self {
            d,
            row_y: d[0],
            row_z: d[0] * d[1],
            z0: 0,
        }
    }
}

#[cfg(target_arch = "x86_64")]
#[path = "trace16_avx2.rs"]
mod avx2;

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
        (each!(3, |a| int(d[a])), [int(d[0]), int(d[0] * d[1])])
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
        let c = each!(3, |a| _mm512_min_ps(_mm512_max_ps(p[a], zero), hi[a]));
        let i0 = each!(3, |a| _mm512_cvttps_epi32(c[a]));
        let t = each!(3, |a| _mm512_sub_ps(c[a], _mm512_cvtepi32_ps(i0[a])));
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
        let d = s[0].raw().1;
        let (dims, stride) = layout(d);
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
            // As in `sample`: the lanes that share rows load them.
            let has_x = _mm512_cmpneq_epi32_mask(offs[1], _mm512_setzero_si512());
            let mut groups = [None; 16];
            let shared = row_groups(i0, live, has_x, &Rows::array(d), &mut groups);
            for k in 0..N {
                let f = s[k].raw().0;
                let g = if let Some(ng) = shared {
                    // SAFETY: `f` has the dimensions the rows were found in.
                    unsafe { group_corners(&groups[..ng], f.as_ptr()) }
                } else {
                    let b = index(i0, stride);
                    // SAFETY: every code is a cell of these dimensions and each offset moves
                    // to a neighbour only where it exists: every index is below f.len().
                    each!(8, |c| unsafe {
                        _mm512_i32gather_ps::<4>(_mm512_add_epi32(b, offs[c]), f.as_ptr())
                    })
                };
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
        let hi = each!(3, |a| _mm512_set1_ps(hi[a]));
        let pairs = d[0] >= 2;
        let (even, odd) = pair_split();
        let mut m = 0;
        while m < n {
            let live = lanes_left(m, n);
            // SAFETY: the lanes in `live` are values m.. < n of each slice; the others are
            // not read (and stand for the point 0, which `locate` keeps in the array).
            let p = [x, y, z];
            let p = each!(3, |a| unsafe {
                _mm512_maskz_loadu_ps(live, p[a][m..].as_ptr())
            });
            let (i0, t, offs) = locate(p, hi, dims, stride);
            // The corners come from the rows the points share, by loads and permutes
            // (`row_groups`), or, where a group spreads too far along x, by gathers: where
            // the lowest sample has a neighbour along x, it and that neighbour lie side by
            // side and one 64-bit gather for eight lanes' pairs takes both; where it has none
            // (the last along x; the two corners are the same sample), the pair starts one
            // sample earlier and its second is the sample.
            let has_x = _mm512_cmpneq_epi32_mask(offs[1], _mm512_setzero_si512());
            let mut groups = [None; 16];
            let shared = row_groups(i0, live, has_x, &Rows::array(d), &mut groups);
            for (o, t_) in out.iter_mut().zip(s) {
                let f = t_.raw().0;
                let g = if let Some(ng) = shared {
                    // SAFETY: `f` has the dimensions the rows were found in.
                    unsafe { group_corners(&groups[..ng], f.as_ptr()) }
                } else if pairs {
                    let b = index(i0, stride);
                    let back = _mm512_maskz_mov_epi32(!has_x, _mm512_set1_epi32(1));
                    let start = |c: usize| _mm512_sub_epi32(_mm512_add_epi32(b, offs[c]), back);
                    let starts = [start(0), start(2), start(4), start(6)];
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
                    let b = index(i0, stride);
                    // SAFETY: `locate` clamps every sample into the array and each offset
                    // moves to a neighbour only where it exists: every index is below f.len().
                    each!(8, |c| unsafe {
                        _mm512_i32gather_ps::<4>(_mm512_add_epi32(b, offs[c]), f.as_ptr())
                    })
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

    /// Four rows of an array that some of sixteen points' eight corners all lie in, and where
    /// along them: see [`shared_rows`].
    #[derive(Clone, Copy)]
    pub(super) struct SharedRows {
        /// The lanes whose corners these are.
        pub(super) lanes: __mmask16,
        /// Index of the first value loaded from each row, in the order of the corners (y0 z0,
        /// y1 z0, y0 z1, y1 z1).
        starts: [usize; 4],
        /// How many values a row has (32 are loaded where it has at least 32, else all).
        nx: usize,
        /// Each point's lower and upper x-corner, counted from the first value loaded.
        x0: __m512i,
        x1: __m512i,
    }

    impl SharedRows {
        /// The eight corners (order of `Sampler::gather`) in `f` of the points in
        /// `self.lanes`, blended into `g`.
        ///
        /// # Safety
        /// `f` must hold the rows of the layout [`shared_rows`] was given.
        #[inline]
        #[target_feature(enable = "avx512f")]
        unsafe fn corners_into(&self, f: *const f32, g: &mut [__m512; 8]) {
            for (r, &st) in self.starts.iter().enumerate() {
                // SAFETY: `shared_rows` chose the start so that 32 values (or, in rows
                // shorter than 32, the row's nx, the rest masked) lie in the row.
                let (a, b) = unsafe {
                    let p = f.add(st);
                    if self.nx >= 32 {
                        (_mm512_loadu_ps(p), _mm512_loadu_ps(p.add(16)))
                    } else {
                        let m = |k: usize| ((1u32 << k.min(16)) - 1) as __mmask16;
                        (
                            _mm512_maskz_loadu_ps(m(self.nx), p),
                            _mm512_maskz_loadu_ps(m(self.nx.saturating_sub(16)), p.add(16)),
                        )
                    }
                };
                let l = self.lanes;
                g[2 * r] = _mm512_mask_blend_ps(l, g[2 * r], _mm512_permutex2var_ps(a, self.x0, b));
                g[2 * r + 1] =
                    _mm512_mask_blend_ps(l, g[2 * r + 1], _mm512_permutex2var_ps(a, self.x1, b));
            }
        }
    }

    /// The lanes of `todo` whose lowest corners `i0` (as `locate` gives them) lie in the same
    /// rows along y and z as the first of them, and, where all of theirs lie within 31 values
    /// along x of a start from which 32 values of the row can be loaded, those rows and the
    /// positions along them. `has_x` marks the lanes whose lowest corner has a neighbour along
    /// x. `todo` must not be empty.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn shared_rows(
        i0: [__m512i; 3],
        todo: __mmask16,
        has_x: __mmask16,
        rows: &Rows,
    ) -> (__mmask16, Option<SharedRows>) {
        let lead = _mm512_set1_epi32(todo.trailing_zeros() as i32);
        let of_lead = |v: __m512i| {
            _mm_cvtsi128_si32(_mm512_castsi512_si128(_mm512_permutexvar_epi32(lead, v)))
        };
        let (x, y, z) = (of_lead(i0[0]), of_lead(i0[1]), of_lead(i0[2]));
        let lanes = _mm512_mask_cmpeq_epi32_mask(todo, i0[1], _mm512_set1_epi32(y))
            & _mm512_mask_cmpeq_epi32_mask(todo, i0[2], _mm512_set1_epi32(z));
        let d = rows.d;
        let nx = d[0];
        let start = (x - 6).clamp(0, nx.saturating_sub(32) as i32);
        let x0 = _mm512_sub_epi32(i0[0], _mm512_set1_epi32(start));
        let x1 = _mm512_mask_add_epi32(x0, has_x, x0, _mm512_set1_epi32(1));
        // Every lane's corners among the 32 loaded (as unsigned: a negative one is far
        // above).
        let out = |v: __m512i| _mm512_mask_cmpgt_epu32_mask(lanes, v, _mm512_set1_epi32(31));
        if out(x0) | out(x1) != 0 {
            return (lanes, None);
        }
        let (y, z) = (y as usize, z as usize);
        let dj = if y + 1 < d[1] { rows.row_y } else { 0 };
        let dk = if z + 1 < d[2] { rows.row_z } else { 0 };
        let r0 = (z - rows.z0) * rows.row_z + y * rows.row_y + start as usize;
        let sr = SharedRows {
            lanes,
            starts: [r0, r0 + dj, r0 + dk, r0 + dj + dk],
            nx,
            x0,
            x1,
        };
        (lanes, Some(sr))
    }

    /// The groups of lanes of `live` that share their rows ([`shared_rows`]), at most
    /// sixteen, and how many; `None` where some group's corners spread too far along x.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) fn row_groups(
        i0: [__m512i; 3],
        live: __mmask16,
        has_x: __mmask16,
        rows: &Rows,
        groups: &mut [Option<SharedRows>; 16],
    ) -> Option<usize> {
        let mut todo = live;
        let mut n = 0;
        while todo != 0 {
            let (lanes, sr) = shared_rows(i0, todo, has_x, rows);
            groups[n] = Some(sr?);
            n += 1;
            todo &= !lanes;
        }
        Some(n)
    }

    /// The eight corners (order of `Sampler::gather`) in `f` of the points of the groups
    /// [`row_groups`] found (lanes in no group hold 0).
    ///
    /// # Safety
    /// `f` must hold the rows of the layout the groups were found in.
    #[inline]
    #[target_feature(enable = "avx512f")]
    pub(super) unsafe fn group_corners(
        groups: &[Option<SharedRows>],
        f: *const f32,
    ) -> [__m512; 8] {
        let mut g = [_mm512_setzero_ps(); 8];
        for sr in groups.iter().flatten() {
            // SAFETY: as the caller promises.
            unsafe { sr.corners_into(f, &mut g) };
        }
        g
    }

    /// [`rk2_row`] with AVX-512F.
    ///
    /// # Safety
    /// The processor must have AVX-512F and the slices n values each.
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
        let base = r.values.as_ptr();
        let nx = r.dims[0];
        let rows = Rows {
            d: r.dims,
            row_y: 3 * nx,
            row_z: 3 * nx * r.dims[1],
            z0: r.z0,
        };
        let int = |v: usize| _mm512_set1_epi32(v as i32);
        let (dims, stride) = layout(r.dims);
        let (z0, z_end, one) = (int(r.z0), int(r.z0 + r.held), int(1));
        let hi = each!(3, |a| _mm512_set1_ps(r.hi[a]));
        let half_k = _mm512_set1_ps(0.5 * k);
        let kk = _mm512_set1_ps(k);
        let (px0, py, pz) = (_mm512_set1_ps(x0), _mm512_set1_ps(y), _mm512_set1_ps(z));
        let lanes = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
        let mut m = 0;
        while m < n {
            let live = lanes_left(m, n);
            let idx = _mm512_add_epi32(int(first + m), lanes);
            let px = _mm512_add_ps(_mm512_cvtepi32_ps(idx), px0);
            // SAFETY: the lanes in `live` are values m.. < n of each slice; the others are
            // not read (velocity 0).
            let u = [ux, uy, uz];
            let u = each!(3, |a| unsafe {
                _mm512_maskz_loadu_ps(live, u[a][m..].as_ptr())
            });
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
            let mut ok =
                _mm512_cmpge_epi32_mask(i0[2], z0) & _mm512_cmplt_epi32_mask(top, z_end) & live;
            // The lanes that share a row along y and z (in a smooth flow most, often all
            // sixteen) load the window's rows and pick their corners by permutes.
            let has_x = _mm512_cmpneq_epi32_mask(offs[1], _mm512_setzero_si512());
            let mut groups = [None; 16];
            let shared = if ok != 0 {
                row_groups(i0, ok, has_x, &rows, &mut groups)
            } else {
                Some(0)
            };
            let ng = match shared {
                Some(ng) => ng,
                // Corners spread too far along x (a flow far beyond the CFL limit): one
                // trace at a time below.
                None => {
                    ok = 0;
                    0
                }
            };
            // SAFETY: the lanes in `ok` have all eight cells in the window, whose rows hold
            // u, v and w one after the other. (No closures: one without the target feature
            // could not inline the calls.)
            let (gu, gv, gw) = unsafe {
                (
                    group_corners(&groups[..ng], base),
                    group_corners(&groups[..ng], base.add(nx)),
                    group_corners(&groups[..ng], base.add(2 * nx)),
                )
            };
            let um = [trilerp(gu, t), trilerp(gv, t), trilerp(gw, t)];
            let e = [
                _mm512_add_ps(px, _mm512_mul_ps(kk, um[0])),
                _mm512_add_ps(py, _mm512_mul_ps(kk, um[1])),
                _mm512_add_ps(pz, _mm512_mul_ps(kk, um[2])),
            ];
            // SAFETY: the lanes in `live` are values m.. < n of each slice.
            unsafe {
                _mm512_mask_storeu_ps(ex[m..].as_mut_ptr(), live, e[0]);
                _mm512_mask_storeu_ps(ey[m..].as_mut_ptr(), live, e[1]);
                _mm512_mask_storeu_ps(ez[m..].as_mut_ptr(), live, e[2]);
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
#[path = "trace16_tests.rs"]
mod tests;
