//! `trace16`'s passes eight points at a time with AVX2, for processors without AVX-512 (most
//! desktop ones): the operations and their order of the AVX-512 versions and of the
//! one-at-a-time code, so the same bits. A row's last values (fewer than eight) are taken
//! one at a time.
//!
//! The corners come, as with AVX-512, from the rows along y and z the points share: each
//! group of points with the same rows loads sixteen values of each of its four rows and picks
//! its corners by permutes ([`row_groups`], [`group_corners`]). Gathers are the fallback
//! where a group spreads over more than sixteen values along x or the rows are shorter: on
//! the processors measured (AMD Zen 3) they cost about a cycle a value, and a trace's
//! midpoint takes 24 values.

use super::*;
use std::arch::x86_64::*;

/// Trilinear interpolation as `lerp8`: the same operations in the same order.
#[inline]
#[target_feature(enable = "avx2")]
fn trilerp(g: [__m256; 8], t: [__m256; 3]) -> __m256 {
    let lerp =
        |a: __m256, b: __m256, t: __m256| _mm256_add_ps(a, _mm256_mul_ps(t, _mm256_sub_ps(b, a)));
    let c00 = lerp(g[0], g[1], t[0]);
    let c10 = lerp(g[2], g[3], t[0]);
    let c01 = lerp(g[4], g[5], t[0]);
    let c11 = lerp(g[6], g[7], t[0]);
    let c0 = lerp(c00, c10, t[1]);
    let c1 = lerp(c01, c11, t[1]);
    lerp(c0, c1, t[2])
}

/// Eight-lane copies of a value.
#[inline]
#[target_feature(enable = "avx2")]
fn int(v: usize) -> __m256i {
    _mm256_set1_epi32(v as i32)
}

/// `Sampler::locate` of eight points: the lowest sample's index along each axis and the
/// fractions. `hi` is the last sample of each axis.
#[inline]
#[target_feature(enable = "avx2")]
fn locate(p: [__m256; 3], hi: [__m256; 3]) -> ([__m256i; 3], [__m256; 3]) {
    let zero = _mm256_setzero_ps();
    // `if x > 0 {x} else {0}` (NaN goes to 0: the second operand), `if x < hi {x} else
    // {hi}`, then truncation as floor on values ≥ 0.
    let c = [0, 1, 2].map(|a| _mm256_min_ps(_mm256_max_ps(p[a], zero), hi[a]));
    let i0 = c.map(|v| _mm256_cvttps_epi32(v));
    let t = [0, 1, 2].map(|a| _mm256_sub_ps(c[a], _mm256_cvtepi32_ps(i0[a])));
    (i0, t)
}

/// The offsets of the eight samples around the lowest `i0` (order of `Sampler::gather`) in
/// an array of `dims` samples whose y and z neighbours lie `stride` apart: a neighbour only
/// where it exists, as `Sampler::loc`.
#[inline]
#[target_feature(enable = "avx2")]
fn offsets(i0: [__m256i; 3], dims: [__m256i; 3], stride: [__m256i; 2]) -> [__m256i; 8] {
    let one = int(1);
    let has = |a: usize| _mm256_cmpgt_epi32(dims[a], _mm256_add_epi32(i0[a], one));
    let di = _mm256_and_si256(has(0), one);
    let dj = _mm256_and_si256(has(1), stride[0]);
    let dk = _mm256_and_si256(has(2), stride[1]);
    let djdi = _mm256_add_epi32(dj, di);
    let dkdi = _mm256_add_epi32(dk, di);
    let dkdj = _mm256_add_epi32(dk, dj);
    let all = _mm256_add_epi32(dk, djdi);
    let o = _mm256_setzero_si256();
    [o, di, dj, djdi, dk, dkdi, dkdj, all]
}

/// The index of the sample at `i` (x, y, z) with strides `stride` (y, z).
#[inline]
#[target_feature(enable = "avx2")]
fn index(i: [__m256i; 3], stride: [__m256i; 2]) -> __m256i {
    _mm256_add_epi32(
        _mm256_add_epi32(i[0], _mm256_mullo_epi32(i[1], stride[0])),
        _mm256_mullo_epi32(i[2], stride[1]),
    )
}

/// The eight corners at `b + offs[c]` of the values from `f` on.
///
/// # Safety
/// Every index must be a value of the array `f` starts.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn corners(f: *const f32, b: __m256i, offs: &[__m256i; 8]) -> [__m256; 8] {
    // SAFETY: as the caller promises.
    offs.map(|o| unsafe { _mm256_i32gather_ps::<4>(f, _mm256_add_epi32(b, o)) })
}

/// Where an array's rows lie: row (y, z) starts at `(z − z0)·row_z + y·row_y` and holds
/// `d[0]` values; `d` are the array's dimensions.
#[derive(Clone, Copy)]
pub(super) struct Rows {
    pub(super) d: [usize; 3],
    pub(super) row_y: usize,
    pub(super) row_z: usize,
    pub(super) z0: usize,
}

impl Rows {
    /// One array of dimensions `d`, x fastest.
    pub(super) fn array(d: [usize; 3]) -> Self {
        Self {
            d,
            row_y: d[0],
            row_z: d[0] * d[1],
            z0: 0,
        }
    }
}

/// Some of eight points whose eight corners all lie in the same four rows of an array, and
/// where along them: see [`row_groups`].
#[derive(Clone, Copy)]
pub(super) struct Group {
    /// The points' lanes (all bits set).
    pub(super) lanes: __m256,
    /// Index of the first of the sixteen values loaded from each row, in the order of the
    /// corners (y0 z0, y1 z0, y0 z1, y1 z1).
    starts: [usize; 4],
    /// Each point's lower and upper x-corner, counted from the first value loaded (0..16),
    /// and the lanes where that is in the second eight.
    x0: __m256i,
    x1: __m256i,
    second0: __m256,
    second1: __m256,
}

/// The groups of the lanes of `live` (a lane mask, all bits set) whose lowest corners `i0`
/// lie in the same rows along y and z, at most eight, and how many; `dx` is each lane's
/// offset to its neighbour along x (1, or 0 at the row's end). `None` where the rows are
/// shorter than sixteen values or some group's corners spread over more than sixteen.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn row_groups(
    i0: [__m256i; 3],
    live: __m256i,
    dx: __m256i,
    rows: &Rows,
    groups: &mut [Option<Group>; 8],
) -> Option<usize> {
    let d = rows.d;
    let nx = d[0];
    if nx < 16 {
        return None;
    }
    let mut lead = [[0i32; 8]; 3];
    for (l, v) in lead.iter_mut().zip(i0) {
        // SAFETY: eight i32.
        unsafe { _mm256_storeu_si256(l.as_mut_ptr().cast(), v) };
    }
    let (fifteen, seven) = (int(15), int(7));
    let mut todo = live;
    let mut n = 0;
    loop {
        let bits = _mm256_movemask_ps(_mm256_castsi256_ps(todo));
        if bits == 0 {
            return Some(n);
        }
        let l = bits.trailing_zeros() as usize;
        let (x, y, z) = (lead[0][l], lead[1][l], lead[2][l]);
        let same = _mm256_and_si256(
            _mm256_cmpeq_epi32(i0[1], _mm256_set1_epi32(y)),
            _mm256_cmpeq_epi32(i0[2], _mm256_set1_epi32(z)),
        );
        let lanes = _mm256_and_si256(same, todo);
        let start = (x - 4).clamp(0, (nx - 16) as i32);
        let x0 = _mm256_sub_epi32(i0[0], _mm256_set1_epi32(start));
        let x1 = _mm256_add_epi32(x0, dx);
        // Every lane's corners among the sixteen loaded (as unsigned: a negative one is far
        // above).
        let within = |v: __m256i| _mm256_cmpeq_epi32(_mm256_max_epu32(v, fifteen), fifteen);
        let inside = _mm256_and_si256(within(x0), within(x1));
        if _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_andnot_si256(inside, lanes))) != 0 {
            return None;
        }
        let (y, z) = (y as usize, z as usize);
        let dj = if y + 1 < d[1] { rows.row_y } else { 0 };
        let dk = if z + 1 < d[2] { rows.row_z } else { 0 };
        let r0 = (z - rows.z0) * rows.row_z + y * rows.row_y + start as usize;
        let second = |v: __m256i| _mm256_castsi256_ps(_mm256_cmpgt_epi32(v, seven));
        groups[n] = Some(Group {
            lanes: _mm256_castsi256_ps(lanes),
            starts: [r0, r0 + dj, r0 + dk, r0 + dj + dk],
            x0,
            x1,
            second0: second(x0),
            second1: second(x1),
        });
        n += 1;
        todo = _mm256_andnot_si256(lanes, todo);
    }
}

/// The eight corners (order of `Sampler::gather`) in `f` of the points of the groups
/// [`row_groups`] found (lanes in no group hold 0).
///
/// # Safety
/// `f` must hold the rows of the layout the groups were found in.
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn group_corners(groups: &[Option<Group>], f: *const f32) -> [__m256; 8] {
    let mut g = [_mm256_setzero_ps(); 8];
    for gr in groups.iter().flatten() {
        for (r, &st) in gr.starts.iter().enumerate() {
            // SAFETY: `row_groups` chose the start so that sixteen values lie in the row.
            let (a, b) = unsafe {
                let p = f.add(st);
                (_mm256_loadu_ps(p), _mm256_loadu_ps(p.add(8)))
            };
            let pick = |x: __m256i, second: __m256| {
                _mm256_blendv_ps(
                    _mm256_permutevar8x32_ps(a, x),
                    _mm256_permutevar8x32_ps(b, x),
                    second,
                )
            };
            g[2 * r] = _mm256_blendv_ps(g[2 * r], pick(gr.x0, gr.second0), gr.lanes);
            g[2 * r + 1] = _mm256_blendv_ps(g[2 * r + 1], pick(gr.x1, gr.second1), gr.lanes);
        }
    }
    g
}

/// The row's values `m..m + 8`.
///
/// # Safety
/// `s` must hold them.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn load(s: &[f32], m: usize) -> __m256 {
    debug_assert!(m + 8 <= s.len());
    // SAFETY: as the caller promises.
    unsafe { _mm256_loadu_ps(s.as_ptr().add(m)) }
}

/// Stores `v` into the row's values `m..m + 8`.
///
/// # Safety
/// `s` must hold them.
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn store(s: &mut [f32], m: usize, v: __m256) {
    debug_assert!(m + 8 <= s.len());
    // SAFETY: as the caller promises.
    unsafe { _mm256_storeu_ps(s.as_mut_ptr().add(m), v) }
}

/// [`range_row`] with AVX2.
///
/// # Safety
/// The processor must have AVX2, the slices as many values as `codes`, every array of `s`
/// fewer than 2³⁰ values, all of the same dimensions, every code a cell of them.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn range<const N: usize>(
    s: &[Sampler<'_>; N],
    codes: &[u32],
    mut lo: [&mut [f32]; N],
    mut hi: [&mut [f32]; N],
) {
    let n = codes.len();
    let full = n / 8 * 8;
    let d = s[0].raw().1;
    let (dims, stride) = (d.map(|v| int(v)), [int(d[0]), int(d[0] * d[1])]);
    let ten = int(1023);
    for m in (0..full).step_by(8) {
        // SAFETY: m + 8 ≤ n values of `codes`.
        let code = unsafe { _mm256_loadu_si256(codes.as_ptr().add(m).cast()) };
        let i0 = [
            _mm256_and_si256(code, ten),
            _mm256_and_si256(_mm256_srli_epi32::<10>(code), ten),
            _mm256_and_si256(_mm256_srli_epi32::<20>(code), ten),
        ];
        let (offs, b) = (offsets(i0, dims, stride), index(i0, stride));
        let mut groups = [None; 8];
        let shared = row_groups(i0, int(usize::MAX), offs[1], &Rows::array(d), &mut groups);
        for k in 0..N {
            let f = s[k].raw().0.as_ptr();
            // SAFETY: every code is a cell of these dimensions and each offset moves to a
            // neighbour only where it exists: every index is below the array's length (and
            // the groups were found in these dimensions).
            let g = unsafe {
                match shared {
                    Some(ng) => group_corners(&groups[..ng], f),
                    None => corners(f, b, &offs),
                }
            };
            // `min_max8`: `if x < lo {x} else {lo}` in order, likewise the largest.
            let (mut l, mut h) = (g[0], g[0]);
            for &x in &g[1..] {
                l = _mm256_min_ps(x, l);
                h = _mm256_max_ps(x, h);
            }
            // SAFETY: the slices have n ≥ m + 8 values.
            unsafe {
                store(lo[k], m, l);
                store(hi[k], m, h);
            }
        }
    }
    let lo = lo.each_mut().map(|o| &mut o[full..]);
    let hi = hi.each_mut().map(|o| &mut o[full..]);
    range_row_scalar(s, &codes[full..], lo, hi);
}

/// [`sample_row`] with AVX2.
///
/// # Safety
/// The processor must have AVX2, the slices n values each, every array of `s` fewer than
/// 2³⁰ values, all of the same dimensions.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn sample<const N: usize>(
    s: &[Sampler<'_>; N],
    [x, y, z]: [&[f32]; 3],
    mut out: [&mut [f32]; N],
    mut codes: Option<&mut [u32]>,
) {
    let n = x.len();
    let full = n / 8 * 8;
    let (_, d, hi) = s[0].raw();
    let (dims, stride) = (d.map(|v| int(v)), [int(d[0]), int(d[0] * d[1])]);
    let hi = hi.map(|h| _mm256_set1_ps(h));
    for m in (0..full).step_by(8) {
        // SAFETY: the slices have n ≥ m + 8 values.
        let p = [x, y, z].map(|a| unsafe { load(a, m) });
        let (i0, t) = locate(p, hi);
        let (offs, b) = (offsets(i0, dims, stride), index(i0, stride));
        let mut groups = [None; 8];
        let shared = row_groups(i0, int(usize::MAX), offs[1], &Rows::array(d), &mut groups);
        for (o, t_) in out.iter_mut().zip(s) {
            let f = t_.raw().0.as_ptr();
            // SAFETY: `locate` clamps every sample into the array and each offset moves to a
            // neighbour only where it exists: every index is below the array's length (and
            // the groups were found in these dimensions).
            let g = unsafe {
                match shared {
                    Some(ng) => group_corners(&groups[..ng], f),
                    None => corners(f, b, &offs),
                }
            };
            // SAFETY: the slices have n ≥ m + 8 values.
            unsafe { store(o, m, trilerp(g, t)) };
        }
        if let Some(c) = codes.as_deref_mut() {
            let code = _mm256_or_si256(
                i0[0],
                _mm256_or_si256(
                    _mm256_slli_epi32::<10>(i0[1]),
                    _mm256_slli_epi32::<20>(i0[2]),
                ),
            );
            // SAFETY: `c` has n ≥ m + 8 values.
            unsafe { _mm256_storeu_si256(c.as_mut_ptr().add(m).cast(), code) };
        }
    }
    let rest = [&x[full..], &y[full..], &z[full..]];
    let out = out.each_mut().map(|o| &mut o[full..]);
    sample_row_scalar(s, rest, out, codes.map(|c| &mut c[full..]));
}

/// [`rk2_row`] with AVX2.
///
/// # Safety
/// The processor must have AVX2, the slices n values each, and `first + n` below 2²⁴.
#[target_feature(enable = "avx2")]
pub(super) unsafe fn row(
    win: &VelWindow<'_>,
    first: usize,
    [x0, y, z]: [f32; 3],
    [ux, uy, uz]: [&[f32]; 3],
    k: f32,
    [ex, ey, ez]: [&mut [f32]; 3],
) {
    let n = ux.len();
    let full = n / 8 * 8;
    let r = win.raw();
    let base = r.values.as_ptr();
    let [nx, ny, _] = r.dims;
    // The window's rows hold u, v and w one after the other.
    let (dims, stride) = (r.dims.map(|v| int(v)), [int(3 * nx), int(3 * nx * ny)]);
    let rows = Rows {
        d: r.dims,
        row_y: 3 * nx,
        row_z: 3 * nx * ny,
        z0: r.z0,
    };
    let (z0, z_end) = (int(r.z0), int(r.z0 + r.held));
    let hi = r.hi.map(|h| _mm256_set1_ps(h));
    let half_k = _mm256_set1_ps(0.5 * k);
    let kk = _mm256_set1_ps(k);
    let (px0, py, pz) = (_mm256_set1_ps(x0), _mm256_set1_ps(y), _mm256_set1_ps(z));
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for m in (0..full).step_by(8) {
        let px = _mm256_add_ps(
            _mm256_cvtepi32_ps(_mm256_add_epi32(int(first + m), lanes)),
            px0,
        );
        // SAFETY: the slices have n ≥ m + 8 values.
        let u = [ux, uy, uz].map(|s| unsafe { load(s, m) });
        let mid = [
            _mm256_add_ps(px, _mm256_mul_ps(half_k, u[0])),
            _mm256_add_ps(py, _mm256_mul_ps(half_k, u[1])),
            _mm256_add_ps(pz, _mm256_mul_ps(half_k, u[2])),
        ];
        let (i0, t) = locate(mid, hi);
        let offs = offsets(i0, dims, stride);
        // The lanes whose eight cells lie in the window (`VelWindow::at_cell_coords`): the
        // lowest plane and, where there is one (an all-ones lane, −1), the plane above it.
        let above = _mm256_xor_si256(
            _mm256_cmpeq_epi32(offs[4], _mm256_setzero_si256()),
            _mm256_set1_epi32(-1),
        );
        let top = _mm256_sub_epi32(i0[2], above);
        let ok = _mm256_andnot_si256(
            _mm256_cmpgt_epi32(z0, i0[2]),
            _mm256_cmpgt_epi32(z_end, top),
        );
        let ok_bits = _mm256_movemask_ps(_mm256_castsi256_ps(ok));
        let e = if ok_bits != 0 {
            // The other lanes read the window's first values (and are traced one at a time
            // below).
            let plane = _mm256_sub_epi32(i0[2], z0);
            let b = _mm256_and_si256(index([i0[0], i0[1], plane], stride), ok);
            let offs = offs.map(|o| _mm256_and_si256(o, ok));
            let mut groups = [None; 8];
            // SAFETY: the lanes in `ok` have all eight cells in the window, whose rows hold
            // u, v and w one after the other; the others read its first cell (or are in no
            // group).
            let (gu, gv, gw) = unsafe {
                match row_groups(i0, ok, offs[1], &rows, &mut groups) {
                    Some(ng) => (
                        group_corners(&groups[..ng], base),
                        group_corners(&groups[..ng], base.add(nx)),
                        group_corners(&groups[..ng], base.add(2 * nx)),
                    ),
                    None => (
                        corners(base, b, &offs),
                        corners(base.add(nx), b, &offs),
                        corners(base.add(2 * nx), b, &offs),
                    ),
                }
            };
            let um = [trilerp(gu, t), trilerp(gv, t), trilerp(gw, t)];
            [
                _mm256_add_ps(px, _mm256_mul_ps(kk, um[0])),
                _mm256_add_ps(py, _mm256_mul_ps(kk, um[1])),
                _mm256_add_ps(pz, _mm256_mul_ps(kk, um[2])),
            ]
        } else {
            [_mm256_setzero_ps(); 3]
        };
        for (s, e) in [&mut *ex, &mut *ey, &mut *ez].into_iter().zip(e) {
            // SAFETY: the slices have n ≥ m + 8 values.
            unsafe { store(s, m, e) };
        }
        if ok_bits != 0xFF {
            for l in (0..8).filter(|l| ok_bits & (1 << l) == 0) {
                let q = m + l;
                let p = [(first + q) as f32 + x0, y, z];
                let e = rk2(win, p, [ux[q], uy[q], uz[q]], k);
                (ex[q], ey[q], ez[q]) = (e[0], e[1], e[2]);
            }
        }
    }
    let u0 = [&ux[full..], &uy[full..], &uz[full..]];
    let e = [&mut ex[full..], &mut ey[full..], &mut ez[full..]];
    rk2_row_scalar(win, first + full, [x0, y, z], u0, k, e);
}
