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
    // The same sums in the same order as at the ends, below, without a test per value: the
    // coarse cells whose four fine cells all exist and are not the first or the last.
    let inner = if n >= 4 { (n - 2) / 2 } else { 0 }.min(cn.saturating_sub(1));
    if inner > 1 {
        // Coarse cell e + 1 sums the fine cells 2e + 1 ..= 2e + 4.
        for (e, o) in c[1..inner].iter_mut().enumerate() {
            let f = &f[2 * e + 1..][..4];
            let mut v = 0.75 * f[1];
            v += 0.75 * f[2];
            v += 0.25 * f[0];
            v += 0.25 * f[3];
            *o = v;
        }
    }
    for ci in (0..cn).filter(|&ci| ci == 0 || ci >= inner.max(1)) {
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
        c[ci] = v;
    }
}

/// Interpolation along one line added to `f`, solid cells (diag 0) skipped.
#[inline(always)]
pub(super) fn prolong_row_add<D: Diag>(c: &[f32], f: &mut [f32], diag: &[D], ends: [f32; 2]) {
    let cn = c.len();
    let n = f.len();
    // Fine cells 2..2·(cn − 1) in pairs (each pair's coarse cell has both neighbours), with
    // the same sums as at the ends, below, and no test per value but the solid one.
    let inner = cn.saturating_sub(1).min(n / 2);
    if inner > 1 {
        let pairs = f[2..2 * inner]
            .chunks_exact_mut(2)
            .zip(diag[2..].chunks_exact(2));
        for (ci, (o, g)) in (1..).zip(pairs) {
            let a = 0.75 * c[ci] + 0.25 * c[ci - 1];
            let b = 0.75 * c[ci] + 0.25 * c[ci + 1];
            let (a, b) = (o[0] + a, o[1] + b);
            o[0] = if g[0].on() { a } else { o[0] };
            o[1] = if g[1].on() { b } else { o[1] };
        }
    }
    for i in (0..n).filter(|&i| i < 2 || i >= 2 * inner.max(1)) {
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
        if diag[i].on() {
            f[i] += v;
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::test_noise as noise;

    /// [`restrict_row`] one coarse cell at a time, every weight tested: what the fast inner
    /// loop must match.
    fn restrict_ref(f: &[f32], c: &mut [f32], ends: [f32; 2]) {
        let (n, cn) = (f.len(), c.len());
        for (ci, o) in c.iter_mut().enumerate() {
            let i0 = 2 * ci;
            let mut v = if ci >= 1 { 0.75 } else { ends[0] } * f[i0];
            if i0 + 1 < n {
                v += if ci + 1 < cn { 0.75 } else { ends[1] } * f[i0 + 1];
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

    /// [`prolong_row_add`] one fine cell at a time.
    fn prolong_ref(c: &[f32], f: &mut [f32], diag: &[u8], ends: [f32; 2]) {
        let cn = c.len();
        for (i, o) in f.iter_mut().enumerate() {
            let ci = i / 2;
            let v = match (i % 2, ci >= 1, ci + 1 < cn) {
                (0, true, _) => 0.75 * c[ci] + 0.25 * c[ci - 1],
                (0, false, _) => ends[0] * c[ci],
                (_, _, true) => 0.75 * c[ci] + 0.25 * c[ci + 1],
                _ => ends[1] * c[ci],
            };
            if diag[i] > 0 {
                *o += v;
            }
        }
    }

    /// The row transfers give the bits of the cell-by-cell formulas for every line length
    /// from 1 to 40 (even and odd, so a coarse line's last cell has one or two fine cells),
    /// with open ends and with solid cells, and restriction stays the transpose of
    /// prolongation (Σ r·P c = Σ (R r)·c, in doubles) where all cells are fluid.
    #[test]
    fn row_transfers_match_the_cell_by_cell_formulas() {
        for n in 1..=40usize {
            let cn = n.div_ceil(2);
            let f = noise(n, n as u32);
            let c = noise(cn, 100 + n as u32);
            for ends in [[1.0, 1.0], [0.6, 1.0], [1.0, 0.6]] {
                let (mut a, mut b) = (vec![0.0; cn], vec![0.0; cn]);
                restrict_row(&f, &mut a, ends);
                restrict_ref(&f, &mut b, ends);
                let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<u32>>();
                assert_eq!(bits(&a), bits(&b), "restrict n {n} ends {ends:?}");
                for solid in [false, true] {
                    let diag: Vec<u8> = (0..n)
                        .map(|i| if solid && i % 3 == 1 { 0 } else { 6 })
                        .collect();
                    let (mut p, mut q) = (f.clone(), f.clone());
                    prolong_row_add(&c, &mut p, &diag, ends);
                    prolong_ref(&c, &mut q, &diag, ends);
                    assert_eq!(bits(&p), bits(&q), "prolong n {n} ends {ends:?}");
                    if !solid {
                        let mut pc = vec![0.0; n];
                        prolong_row_add(&c, &mut pc, &diag, ends);
                        let lhs: f64 = f.iter().zip(&pc).map(|(&x, &y)| f64::from(x * y)).sum();
                        let rhs: f64 = a.iter().zip(&c).map(|(&x, &y)| f64::from(x * y)).sum();
                        assert!((lhs - rhs).abs() < 1e-5, "n {n}: {lhs} vs {rhs}");
                    }
                }
            }
        }
    }
}
