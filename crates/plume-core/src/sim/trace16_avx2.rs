//! `trace16`'s passes eight points at a time with AVX2, for processors without AVX-512 (most
//! desktop ones): the operations and their order of the AVX-512 versions and of the
//! one-at-a-time code, so the same bits. A row's last values (fewer than eight) are taken
//! one at a time.
//!
//! The corners come from rows loaded whole, sixteen values at a time, and picked by
//! permutes ([`find_block`], [`corners_of_block`]): where the eight points' lowest corners lie at
//! most a row apart along y and a plane apart along z (the usual case: a face's start sits on
//! a cell row, and a slow flow's traces end just above or just below it), the block's two or
//! three rows along each axis are loaded and each point takes its corners from its own. Gathers
//! are the fallback where the points spread further or the rows are shorter: on the
//! processor measured (AMD Zen 3) they cost about a cycle a value, and a trace's midpoint
//! takes 24 values.

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
    let c = each!(3, |a| _mm256_min_ps(_mm256_max_ps(p[a], zero), hi[a]));
    let i0 = each!(3, |a| _mm256_cvttps_epi32(c[a]));
    let t = each!(3, |a| _mm256_sub_ps(c[a], _mm256_cvtepi32_ps(i0[a])));
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
    each!(8, |c| unsafe {
        _mm256_i32gather_ps::<4>(f, _mm256_add_epi32(b, offs[c]))
    })
}

/// Eight points whose lowest corners lie at most one row apart along y and one plane apart
/// along z, within sixteen values along x: the rows all their corners lie in (two or three
/// along each of y and z) and where along them. See [`find_block`].
#[derive(Clone, Copy)]
pub(super) struct Block {
    /// Index of the first of the sixteen values loaded from row `ry` of plane `rz` of the
    /// block, at `starts[rz][ry]`.
    starts: [[usize; 3]; 3],
    /// Whether the points' lowest corners span two rows along y, along z.
    split: [bool; 2],
    /// Each point's lower and upper x-corner, counted from the first value loaded (0..16),
    /// and the lanes where that is in the second eight.
    x0: __m256i,
    x1: __m256i,
    second0: __m256,
    second1: __m256,
    /// The lanes whose lowest corner is in the block's second row along y, along z.
    up: [__m256; 2],
    /// Where the eight points' lower x-corners are consecutive values from `x` on (of the
    /// sixteen loaded, x ≤ 7) and each has its upper one after it: `Some(x)`. The corners
    /// are then two loads a row, from x and x + 1, instead of permutes (the usual case: a
    /// row of faces traced by a smooth flow).
    pub(super) run: Option<usize>,
}

/// The least (`max` false) or greatest of the lanes of `v` in `live` (all bits set; the
/// lanes outside it count as `i32::MAX`, `i32::MIN`).
#[inline]
#[target_feature(enable = "avx2")]
fn reduce(v: __m256i, live: __m256i, max: bool) -> i32 {
    let fill = _mm256_set1_epi32(if max { i32::MIN } else { i32::MAX });
    let v = _mm256_blendv_epi8(fill, v, live);
    let pick = |a: __m128i, b: __m128i| {
        if max {
            _mm_max_epi32(a, b)
        } else {
            _mm_min_epi32(a, b)
        }
    };
    let m = pick(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
    let m = pick(m, _mm_shuffle_epi32::<0b01_00_11_10>(m));
    let m = pick(m, _mm_shuffle_epi32::<0b10_11_00_01>(m));
    _mm_cvtsi128_si32(m)
}

/// The [`Block`] of the lanes of `live` (a lane mask, all bits set; not empty) whose lowest
/// corners are `i0` (as `locate` gives them); `dx` is each lane's offset to its neighbour
/// along x (1, or 0 at the row's end). `None` where the rows are shorter than sixteen values
/// or the corners spread further (then they are gathered). Written out where it is used, as
/// [`corners_of_block`] and for the same reason (the velocity's advection at 64³ 10% faster
/// than with a function call); `block` is the same as a function, for the tests.
macro_rules! find_block {
    ($i0:expr, $live:expr, $dx:expr, $rows:expr) => {{
        let (i0, live, dx): ([__m256i; 3], __m256i, __m256i) = ($i0, $live, $dx);
        let rows: &Rows = $rows;
        'found: {
            let d = rows.d;
            let nx = d[0];
            if nx < 16 {
                break 'found None;
            }
            let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
            // The usual case first, without the six reductions: every lane live, all on lane
            // 0's row and plane, lower x-corners consecutive from lane 0's (each with its
            // upper one after it) and the run within the sixteen values from `start`; then
            // the least and greatest row, plane and corner are lane 0's and lane 7's, and
            // everything below is as the reductions would have made it.
            let first = |v: __m256i| _mm256_broadcastd_epi32(_mm256_castsi256_si128(v));
            let usual = _mm256_and_si256(
                _mm256_and_si256(
                    _mm256_cmpeq_epi32(i0[1], first(i0[1])),
                    _mm256_cmpeq_epi32(i0[2], first(i0[2])),
                ),
                _mm256_and_si256(
                    _mm256_cmpeq_epi32(i0[0], _mm256_add_epi32(first(i0[0]), lanes)),
                    _mm256_cmpeq_epi32(dx, int(1)),
                ),
            );
            let xl = _mm256_cvtsi256_si32(i0[0]);
            let xs = xl.clamp(0, (nx - 16) as i32);
            let at_start = |start: i32| {
                let x0 = _mm256_sub_epi32(i0[0], _mm256_set1_epi32(start));
                (x0, _mm256_add_epi32(x0, dx))
            };
            let (y, z, y1, z1, start, (x0, x1), run) =
                // (`usual` and `live` all ones: every lane live.)
                if _mm256_movemask_epi8(_mm256_and_si256(usual, live)) == -1 && xl - xs <= 7
                {
                    // The compares above are the run's own test: lane 0's corner is its start.
                    let (y, z) = (_mm256_cvtsi256_si32(i0[1]), _mm256_cvtsi256_si32(i0[2]));
                    (y, z, y, z, xs, at_start(xs), Some((xl - xs) as usize))
                } else {
                    let (y, z) = (reduce(i0[1], live, false), reduce(i0[2], live, false));
                    let (y1, z1) = (reduce(i0[1], live, true), reduce(i0[2], live, true));
                    if y1 > y + 1 || z1 > z + 1 {
                        break 'found None;
                    }
                    let start = reduce(i0[0], live, false).clamp(0, (nx - 16) as i32);
                    let (x0, x1) = at_start(start);
                    if reduce(x1, live, true) > 15 {
                        break 'found None;
                    }
                    let lane0 = _mm256_cvtsi256_si32(x0);
                    let run = _mm256_and_si256(
                        _mm256_cmpeq_epi32(x0, _mm256_add_epi32(_mm256_set1_epi32(lane0), lanes)),
                        _mm256_cmpeq_epi32(dx, int(1)),
                    );
                    let run = ((0..=7).contains(&lane0) && _mm256_movemask_epi8(run) == -1)
                        .then_some(lane0 as usize);
                    (y, z, y1, z1, start, (x0, x1), run)
                };
            // Rows y, y + 1 and y + 2 (the last row repeated where there are fewer), likewise the
            // planes: a point's corner rows are the block's first two from its own on.
            let (y, z) = (y as usize, z as usize);
            let ry = [y, (y + 1).min(d[1] - 1), (y + 2).min(d[1] - 1)];
            let rz = [z, (z + 1).min(d[2] - 1), (z + 2).min(d[2] - 1)];
            let at =
                |k: usize, j: usize| (k - rows.z0) * rows.row_z + j * rows.row_y + start as usize;
            let starts = each!(3, |c| each!(3, |r| at(rz[c], ry[r])));
            let seven = int(7);
            let second = |v: __m256i| _mm256_castsi256_ps(_mm256_cmpgt_epi32(v, seven));
            let up = |v: __m256i, lo: usize| {
                _mm256_castsi256_ps(_mm256_cmpeq_epi32(v, _mm256_set1_epi32(lo as i32 + 1)))
            };
            Some(Block {
                starts,
                split: [y1 as usize > y, z1 as usize > z],
                x0,
                x1,
                second0: second(x0),
                second1: second(x1),
                up: [up(i0[1], y), up(i0[2], z)],
                run,
            })
        }
    }};
}

/// [`find_block!`] as a function.
#[cfg(test)]
#[inline]
#[target_feature(enable = "avx2")]
pub(super) fn block(i0: [__m256i; 3], live: __m256i, dx: __m256i, rows: &Rows) -> Option<Block> {
    find_block!(i0, live, dx, rows)
}

/// The eight corners (order of `Sampler::gather`) in `f` of the points of a [`Block`] (lanes
/// outside it hold values of the block's rows), written out where they are used: as a
/// function the RK2 rows call three times it was no longer inlined (Rust 1.95), and the
/// corners then went through the stack (the AVX2 velocity advection at 128³ about 30% slower
/// for it); `block_corners` is the same as a function, for the tests. Its reads are unsafe:
/// it expands inside an `unsafe` block, `f` holding the rows of the layout the block was
/// found in.
macro_rules! corners_of_block {
    ($bl:expr, $f:expr) => {{
        let bl: &Block = $bl;
        let f: *const f32 = $f;
        let zero = _mm256_setzero_ps();
        let (ny, nz) = (2 + usize::from(bl.split[0]), 2 + usize::from(bl.split[1]));
        // The lower and upper x-corners from each row.
        let mut p = [[(zero, zero); 3]; 3];
        for (pz, sz) in p.iter_mut().zip(&bl.starts).take(nz) {
            for (pr, &st) in pz.iter_mut().zip(sz).take(ny) {
                // `find_block!` chose the start so that sixteen values lie in the row.
                let q = f.add(st);
                *pr = if let Some(x) = bl.run {
                    (_mm256_loadu_ps(q.add(x)), _mm256_loadu_ps(q.add(x + 1)))
                } else {
                    let (a, b) = (_mm256_loadu_ps(q), _mm256_loadu_ps(q.add(8)));
                    let pick = |x: __m256i, second: __m256| {
                        _mm256_blendv_ps(
                            _mm256_permutevar8x32_ps(a, x),
                            _mm256_permutevar8x32_ps(b, x),
                            second,
                        )
                    };
                    (pick(bl.x0, bl.second0), pick(bl.x1, bl.second1))
                };
            }
        }
        let blend = |a: (__m256, __m256), b: (__m256, __m256), m: __m256| {
            (_mm256_blendv_ps(a.0, b.0, m), _mm256_blendv_ps(a.1, b.1, m))
        };
        let mut g = [zero; 8];
        for cz in 0..2 {
            for cy in 0..2 {
                let row = |rz: usize| {
                    if bl.split[0] {
                        blend(p[rz][cy], p[rz][cy + 1], bl.up[0])
                    } else {
                        p[rz][cy]
                    }
                };
                let v = if bl.split[1] {
                    blend(row(cz), row(cz + 1), bl.up[1])
                } else {
                    row(cz)
                };
                (g[4 * cz + 2 * cy], g[4 * cz + 2 * cy + 1]) = v;
            }
        }
        g
    }};
}

/// [`corners_of_block!`] as a function.
///
/// # Safety
/// `f` must hold the rows of the layout the block was found in.
#[cfg(test)]
#[inline]
#[target_feature(enable = "avx2")]
pub(super) unsafe fn block_corners(bl: &Block, f: *const f32) -> [__m256; 8] {
    // SAFETY: as the caller promises.
    unsafe { corners_of_block!(bl, f) }
}

/// The first values of the groups of eight a row of `n` values is taken in: every eighth,
/// and where `n` is not a multiple of eight (but at least eight), a last group of the row's
/// last eight values, which overlaps the one before (each lane is worked out on its own, so
/// the overlapped values are written twice, the same). Returns them and where the values
/// left to take one at a time begin (`n`, but for rows shorter than eight).
#[inline]
fn groups(n: usize) -> (impl Iterator<Item = usize>, usize) {
    let full = n / 8 * 8;
    let last = (n > full && n >= 8).then_some(n - 8);
    ((0..full).step_by(8).chain(last), if n >= 8 { n } else { 0 })
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
    let (starts, full) = groups(n);
    let d = s[0].raw().1;
    let (dims, stride) = (each!(3, |a| int(d[a])), [int(d[0]), int(d[0] * d[1])]);
    let ten = int(1023);
    for m in starts {
        // SAFETY: m + 8 ≤ n values of `codes`.
        let code = unsafe { _mm256_loadu_si256(codes.as_ptr().add(m).cast()) };
        let i0 = [
            _mm256_and_si256(code, ten),
            _mm256_and_si256(_mm256_srli_epi32::<10>(code), ten),
            _mm256_and_si256(_mm256_srli_epi32::<20>(code), ten),
        ];
        let (offs, b) = (offsets(i0, dims, stride), index(i0, stride));
        let shared = find_block!(i0, int(usize::MAX), offs[1], &Rows::array(d));
        for k in 0..N {
            let f = s[k].raw().0.as_ptr();
            // SAFETY: every code is a cell of these dimensions and each offset moves to a
            // neighbour only where it exists: every index is below the array's length (and
            // the block was found in these dimensions).
            let g = unsafe {
                match &shared {
                    Some(bl) => corners_of_block!(bl, f),
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
    let (starts, full) = groups(n);
    let (_, d, hi) = s[0].raw();
    let (dims, stride) = (each!(3, |a| int(d[a])), [int(d[0]), int(d[0] * d[1])]);
    let hi = each!(3, |a| _mm256_set1_ps(hi[a]));
    for m in starts {
        // SAFETY: the slices have n ≥ m + 8 values.
        let p = [x, y, z];
        let p = each!(3, |a| unsafe { load(p[a], m) });
        let (i0, t) = locate(p, hi);
        let (offs, b) = (offsets(i0, dims, stride), index(i0, stride));
        let shared = find_block!(i0, int(usize::MAX), offs[1], &Rows::array(d));
        for (o, t_) in out.iter_mut().zip(s) {
            let f = t_.raw().0.as_ptr();
            // SAFETY: `locate` clamps every sample into the array and each offset moves to a
            // neighbour only where it exists: every index is below the array's length (and
            // the block was found in these dimensions).
            let g = unsafe {
                match &shared {
                    Some(bl) => corners_of_block!(bl, f),
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
    let (starts, full) = groups(n);
    let r = win.raw();
    let base = r.values.as_ptr();
    let [nx, ny, _] = r.dims;
    // The window's rows hold u, v and w one after the other.
    let (dims, stride) = (
        each!(3, |a| int(r.dims[a])),
        [int(3 * nx), int(3 * nx * ny)],
    );
    let rows = Rows {
        d: r.dims,
        row_y: 3 * nx,
        row_z: 3 * nx * ny,
        z0: r.z0,
    };
    let (z0, z_end) = (int(r.z0), int(r.z0 + r.held));
    let hi = each!(3, |a| _mm256_set1_ps(r.hi[a]));
    let half_k = _mm256_set1_ps(0.5 * k);
    let kk = _mm256_set1_ps(k);
    let (px0, py, pz) = (_mm256_set1_ps(x0), _mm256_set1_ps(y), _mm256_set1_ps(z));
    let lanes = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    for m in starts {
        let px = _mm256_add_ps(
            _mm256_cvtepi32_ps(_mm256_add_epi32(int(first + m), lanes)),
            px0,
        );
        // SAFETY: the slices have n ≥ m + 8 values.
        let u = [ux, uy, uz];
        let u = each!(3, |a| unsafe { load(u[a], m) });
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
            let offs = each!(8, |c| _mm256_and_si256(offs[c], ok));
            // Each component interpolated as soon as its corners are in (eight registers
            // at a time rather than twenty-four).
            // SAFETY: the lanes in `ok` have all eight cells in the window, whose rows hold
            // u, v and w one after the other; the others read its first cell (or the block's
            // rows).
            let um = unsafe {
                match find_block!(i0, ok, offs[1], &rows) {
                    Some(bl) => [
                        trilerp(corners_of_block!(&bl, base), t),
                        trilerp(corners_of_block!(&bl, base.add(nx)), t),
                        trilerp(corners_of_block!(&bl, base.add(2 * nx)), t),
                    ],
                    None => [
                        trilerp(corners(base, b, &offs), t),
                        trilerp(corners(base.add(nx), b, &offs), t),
                        trilerp(corners(base.add(2 * nx), b, &offs), t),
                    ],
                }
            };
            [
                _mm256_add_ps(px, _mm256_mul_ps(kk, um[0])),
                _mm256_add_ps(py, _mm256_mul_ps(kk, um[1])),
                _mm256_add_ps(pz, _mm256_mul_ps(kk, um[2])),
            ]
        } else {
            [_mm256_setzero_ps(); 3]
        };
        // SAFETY: the slices have n ≥ m + 8 values.
        unsafe {
            store(ex, m, e[0]);
            store(ey, m, e[1]);
            store(ez, m, e[2]);
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
