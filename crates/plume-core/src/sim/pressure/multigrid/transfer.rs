//! Grid transfers of the V-cycle: cell-centred trilinear interpolation (prolongation) and
//! its transpose (restriction), one axis at a time.

use super::*;

/// Transpose of the cell-centred linear interpolation along one line: fine `f` → coarse `c`.
/// Fine cell i lies in coarse cell i/2 (weight ¾) next to its neighbour on i's side (¼); at
/// the ends, where that neighbour does not exist, the whole weight goes to i/2.
#[inline(always)]
pub(super) fn restrict_row(f: &[f32], c: &mut [f32], ends: [f32; 2]) {
    let n = f.len();
    let cn = c.len();
    for (ci, o) in c.iter_mut().enumerate() {
        let i0 = 2 * ci;
        let w0 = if ci >= 1 { 0.75 } else { ends[0] };
        let mut v = w0 * f[i0];
        if i0 + 1 < n {
            let w1 = if ci + 1 < cn { 0.75 } else { ends[1] };
            v += w1 * f[i0 + 1];
        }
        if ci >= 1 {
            v += 0.25 * f[i0 - 1];
        }
        if i0 + 2 < n {
            v += 0.25 * f[i0 + 2];
        }
        *o = v;
    }
}

/// Interpolation along one line added to `f`, solid cells (diag 0) skipped.
#[inline(always)]
pub(super) fn prolong_row_add<D: Diag>(c: &[f32], f: &mut [f32], diag: &[D], ends: [f32; 2]) {
    let cn = c.len();
    for (i, (o, &g)) in f.iter_mut().zip(diag).enumerate() {
        let ci = i / 2;
        let v = if i % 2 == 0 {
            if ci >= 1 {
                0.75 * c[ci] + 0.25 * c[ci - 1]
            } else {
                ends[0] * c[ci]
            }
        } else if ci + 1 < cn {
            0.75 * c[ci] + 0.25 * c[ci + 1]
        } else {
            ends[1] * c[ci]
        };
        if g.on() {
            *o += v;
        }
    }
}

/// Coarse block `ci` (of `cn`) of the restriction of `n` fine blocks of `len` values (`src`)
/// into `o`: the transpose of the interpolation, block-wise (see [`restrict_row`]).
#[inline(always)]
pub(super) fn restrict_block(
    src: &[f32],
    o: &mut [f32],
    ci: usize,
    n: usize,
    cn: usize,
    ends: [f32; 2],
) {
    let len = o.len();
    let blk = |i: usize| &src[i * len..][..len];
    let i0 = 2 * ci;
    let w0 = if ci >= 1 { 0.75 } else { ends[0] };
    for (o, &a) in o.iter_mut().zip(blk(i0)) {
        *o = w0 * a;
    }
    if i0 + 1 < n {
        let w1 = if ci + 1 < cn { 0.75 } else { ends[1] };
        for (o, &a) in o.iter_mut().zip(blk(i0 + 1)) {
            *o += w1 * a;
        }
    }
    if ci >= 1 {
        for (o, &a) in o.iter_mut().zip(blk(i0 - 1)) {
            *o += 0.25 * a;
        }
    }
    if i0 + 2 < n {
        for (o, &a) in o.iter_mut().zip(blk(i0 + 2)) {
            *o += 0.25 * a;
        }
    }
}

/// Fine block `i` of the interpolation of `cn` coarse blocks of `len` values (`src`) into
/// `o` (see [`prolong_row_add`]).
#[inline(always)]
pub(super) fn prolong_block(src: &[f32], o: &mut [f32], i: usize, cn: usize, ends: [f32; 2]) {
    let len = o.len();
    let blk = |c: usize| &src[c * len..][..len];
    let ci = i / 2;
    let (other, end) = if i.is_multiple_of(2) {
        (ci.checked_sub(1), ends[0])
    } else if ci + 1 < cn {
        (Some(ci + 1), 0.0)
    } else {
        (None, ends[1])
    };
    match other {
        Some(oc) => {
            for ((e, &a), &b) in o.iter_mut().zip(blk(ci)).zip(blk(oc)) {
                *e = 0.75 * a + 0.25 * b;
            }
        }
        None => {
            for (e, &a) in o.iter_mut().zip(blk(ci)) {
                *e = end * a;
            }
        }
    }
}

/// Restriction along y: `src` is `cx × ny × nz`, `dst` `cx × cy × nz`.
pub(super) fn restrict_rows(
    src: &[f32],
    dst: &mut [f32],
    cx: usize,
    ny: usize,
    cy: usize,
    ends: [f32; 2],
) {
    dst.par_chunks_mut(cx * cy)
        .with_min_len((MIN_TASK_CELLS / (cx * cy).max(1)).max(1))
        .zip(src.par_chunks(cx * ny))
        .for_each(|(o, s)| {
            for (cj, orow) in o.chunks_mut(cx).enumerate() {
                restrict_block(s, orow, cj, ny, cy, ends);
            }
        });
}

/// Restriction along z into the coarse right-hand side, scaled by ½ and masked.
pub(super) fn restrict_planes(
    src: &[f32],
    dst: &mut [f32],
    plane: usize,
    nz: usize,
    cz: usize,
    diag: &[f32],
    ends: [f32; 2],
) {
    dst.par_chunks_mut(plane)
        .with_min_len((MIN_TASK_CELLS / plane.max(1)).max(1))
        .zip(diag.par_chunks(plane))
        .enumerate()
        .for_each(|(ck, (o, g))| {
            restrict_block(src, o, ck, nz, cz, ends);
            for (e, &g) in o.iter_mut().zip(g) {
                *e = if g > 0.0 { 0.5 * *e } else { 0.0 };
            }
        });
}

/// Interpolation along z: `src` is `plane × cz`, `dst` `plane × nz`.
pub(super) fn prolong_planes(
    src: &[f32],
    dst: &mut [f32],
    plane: usize,
    cz: usize,
    ends: [f32; 2],
) {
    dst.par_chunks_mut(plane)
        .with_min_len((MIN_TASK_CELLS / plane.max(1)).max(1))
        .enumerate()
        .for_each(|(k, o)| prolong_block(src, o, k, cz, ends));
}

/// Interpolation along y: `src` is `cx × cy × nz`, `dst` `cx × ny × nz`.
pub(super) fn prolong_rows(
    src: &[f32],
    dst: &mut [f32],
    cx: usize,
    cy: usize,
    ny: usize,
    ends: [f32; 2],
) {
    dst.par_chunks_mut(cx * ny)
        .with_min_len((MIN_TASK_CELLS / (cx * ny).max(1)).max(1))
        .zip(src.par_chunks(cx * cy))
        .for_each(|(o, s)| {
            for (j, orow) in o.chunks_mut(cx).enumerate() {
                prolong_block(s, orow, j, cy, ends);
            }
        });
}
