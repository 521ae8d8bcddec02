//! The parts of the pass that work many cells alike: the worked region (a dilation of where
//! smoke is), the fine fields traced back many points at a time, and a coarse cell's block of
//! fine cells with trilinear samples of coarse fields at their centres, read from the cell's
//! 3×3×3 neighbourhood loaded once per block. The weights and corners are the ones the
//! general trilinear sample (`trilerp`) finds for the same points (clamped at the walls), so
//! the samples are the same to the bit; only the per-sample search is gone.

use super::coarse_pos;
use crate::sim::Dims;
use rayon::prelude::*;

/// The largest factor a block serves.
const MAX: usize = 4;

/// `[q % n, (q / n) % n, q / n²]` for every factor n ≤ MAX and place q in a block: the
/// fine cell's offsets along x, y, z (a table, as integer division by a run-time n is slow).
const SPLIT: [[[u8; 3]; MAX * MAX * MAX]; MAX + 1] = {
    let mut t = [[[0u8; 3]; MAX * MAX * MAX]; MAX + 1];
    let mut n = 1;
    while n <= MAX {
        let mut q = 0;
        while q < n * n * n {
            t[n][q] = [(q % n) as u8, ((q / n) % n) as u8, (q / (n * n)) as u8];
            q += 1;
        }
        n += 1;
    }
    t
};

/// Fine cell `q`'s offsets along x, y, z in a block of factor `n` (x fastest).
#[inline(always)]
pub(super) fn split(n: usize, q: usize) -> [usize; 3] {
    SPLIT[n][q].map(usize::from)
}

/// Linear interpolation, `a + t (b − a)`, per component.
pub(super) trait Lerp: Copy {
    fn lerp(a: Self, b: Self, t: f32) -> Self;
}

impl Lerp for f32 {
    #[inline(always)]
    fn lerp(a: f32, b: f32, t: f32) -> f32 {
        a + t * (b - a)
    }
}

impl Lerp for [f32; 3] {
    #[inline(always)]
    fn lerp(a: [f32; 3], b: [f32; 3], t: f32) -> [f32; 3] {
        [0, 1, 2].map(|c| a[c] + t * (b[c] - a[c]))
    }
}

/// The 3×3×3 neighbourhood of `cell` in a grid of `d` as its rows along x, y and z (clamped
/// to the grid), multiplied by the strides.
#[inline(always)]
pub(super) fn rows(d: Dims, cell: [usize; 3]) -> [[usize; 3]; 3] {
    let near = |c: usize, len: usize, stride: usize| {
        [0, 1, 2].map(|s| (c + s).saturating_sub(1).min(len - 1) * stride)
    };
    [
        near(cell[0], d.nx, 1),
        near(cell[1], d.ny, d.nx),
        near(cell[2], d.nz, d.nx * d.ny),
    ]
}

/// `f`'s values on the neighbourhood `rows` (x fastest).
#[inline(always)]
pub(super) fn gather<T: Copy + Default>(rows: &[[usize; 3]; 3], f: &[T]) -> [T; 27] {
    let [x, y, z] = rows;
    let mut g = [T::default(); 27];
    for k in 0..3 {
        for j in 0..3 {
            let row = y[j] + z[k];
            for i in 0..3 {
                g[i + 3 * (j + 3 * k)] = f[row + x[i]];
            }
        }
    }
    g
}

/// Where the fine cells of one coarse cell's block read the coarse grid.
pub(super) struct Block {
    n: usize,
    /// Per axis, per fine index along it: the lower and upper corner's place in the
    /// neighbourhood (0, 1, 2 for the cell before, the cell, the cell after) and the weight.
    lo: [[usize; MAX]; 3],
    hi: [[usize; MAX]; 3],
    t: [[f32; MAX]; 3],
    /// Per axis, the fine cells' centres in coarse cell-centre coordinates (unclamped).
    pos: [[f32; MAX]; 3],
    /// The neighbourhood's rows along x, y and z in the coarse grid (clamped to it),
    /// multiplied by the strides: cell (i, j, k) of it is at `rows[0][i] + rows[1][j] +
    /// rows[2][k]`.
    rows: [[usize; 3]; 3],
}

impl Block {
    /// The block of coarse cell `cell` of a grid of `d` at factor `n` (2 to 4).
    pub fn new(d: Dims, n: usize, cell: [usize; 3]) -> Self {
        debug_assert!((1..=MAX).contains(&n));
        let dims = [d.nx, d.ny, d.nz];
        let (mut lo, mut hi, mut t) = ([[0; MAX]; 3], [[0; MAX]; 3], [[0.0; MAX]; 3]);
        let mut pos = [[0.0; MAX]; 3];
        for a in 0..3 {
            for q in 0..n {
                pos[a][q] = coarse_pos(cell[a] * n + q, n);
                let x = pos[a][q].clamp(0.0, (dims[a] - 1) as f32);
                let b = (x as i32 as usize).min(dims[a].saturating_sub(2));
                // b is the cell or the one before it.
                lo[a][q] = b + 1 - cell[a];
                hi[a][q] = lo[a][q] + usize::from(dims[a] > 1);
                t[a][q] = if dims[a] > 1 { x - b as f32 } else { 0.0 };
            }
        }
        let rows = rows(d, cell);
        Self {
            n,
            lo,
            hi,
            t,
            pos,
            rows,
        }
    }

    /// Fine cell `q`'s centre in coarse cell-centre coordinates (as [`coarse_pos`] gives).
    #[inline(always)]
    pub fn pos(&self, q: usize) -> [f32; 3] {
        let [qi, qj, qk] = split(self.n, q);
        [self.pos[0][qi], self.pos[1][qj], self.pos[2][qk]]
    }

    /// `f`'s values on the neighbourhood (x fastest).
    #[inline(always)]
    pub fn gather<T: Copy + Default>(&self, f: &[T]) -> [T; 27] {
        gather(&self.rows, f)
    }

    /// The trilinear sample at fine cell `q` of the block (x fastest) of the field whose
    /// neighbourhood is `g`.
    #[inline(always)]
    pub fn sample<T: Lerp>(&self, g: &[T; 27], q: usize) -> T {
        let [qi, qj, qk] = split(self.n, q);
        let (x0, x1, tx) = (self.lo[0][qi], self.hi[0][qi], self.t[0][qi]);
        let (y0, y1, ty) = (3 * self.lo[1][qj], 3 * self.hi[1][qj], self.t[1][qj]);
        let (z0, z1, tz) = (9 * self.lo[2][qk], 9 * self.hi[2][qk], self.t[2][qk]);
        let l = |o: usize| T::lerp(g[o + x0], g[o + x1], tx);
        let a0 = T::lerp(l(y0 + z0), l(y1 + z0), ty);
        let a1 = T::lerp(l(y0 + z1), l(y1 + z1), ty);
        T::lerp(a0, a1, tz)
    }
}

/// The cells of `seed`, dilated by `reach` cells along each axis (separably: along x
/// within each row, then along y within each plane, then along z across planes).
pub(super) fn dilate(seed: Vec<bool>, d: Dims, reach: usize) -> Vec<bool> {
    let (nx, plane) = (d.nx, d.nx * d.ny);
    let window = |p: usize, len: usize| p.saturating_sub(reach)..=(p + reach).min(len - 1);
    let mut x = vec![false; d.cells()];
    x.par_chunks_mut(nx)
        .zip(seed.par_chunks(nx))
        .for_each(|(out, row): (&mut [bool], &[bool])| {
            // Each shift of the row within the reach, or-ed in.
            for s in 0..=reach.min(nx - 1) {
                out[s..].iter_mut().zip(row).for_each(|(o, &b)| *o |= b);
                out.iter_mut().zip(&row[s..]).for_each(|(o, &b)| *o |= b);
            }
        });
    let mut y = vec![false; d.cells()];
    y.par_chunks_mut(plane)
        .zip(x.par_chunks(plane))
        .for_each(|(out, src)| {
            for (j, row) in out.chunks_mut(nx).enumerate() {
                for jj in window(j, d.ny) {
                    let s = &src[jj * nx..(jj + 1) * nx];
                    row.iter_mut().zip(s).for_each(|(o, &b)| *o |= b);
                }
            }
        });
    x.par_chunks_mut(plane).enumerate().for_each(|(k, out)| {
        out.iter_mut().for_each(|o| *o = false);
        for kk in window(k, d.nz) {
            let s = &y[kk * plane..(kk + 1) * plane];
            out.iter_mut().zip(s).for_each(|(o, &b)| *o |= b);
        }
    });
    x
}

/// The fields `src` (of dimensions `d`) sampled trilinearly at the points `(x, y, z)` (fine
/// cell-centre coordinates), with the vector sampler of the solver's advection.
pub(super) fn trace_all(src: &[&[f32]], d: Dims, [x, y, z]: [&[f32]; 3]) -> Vec<Vec<f32>> {
    use crate::sim::sample::Sampler;
    use crate::sim::trace16::sample_row;
    const RUN: usize = 4096;
    let mut out: Vec<Vec<f32>> = src.iter().map(|_| vec![0.0f32; x.len()]).collect();
    let s: Vec<Sampler> = src.iter().map(|f| Sampler::new(f, d)).collect();
    let p = |r: usize| {
        let at = r * RUN..((r + 1) * RUN).min(x.len());
        [&x[at.clone()], &y[at.clone()], &z[at]]
    };
    match out.as_mut_slice() {
        [a] => a.par_chunks_mut(RUN).enumerate().for_each(|(r, a)| {
            sample_row(&[s[0]], p(r), [a], None);
        }),
        [a, b, c] => a
            .par_chunks_mut(RUN)
            .zip(b.par_chunks_mut(RUN))
            .zip(c.par_chunks_mut(RUN))
            .enumerate()
            .for_each(|(r, ((a, b), c))| {
                sample_row(&[s[0], s[1], s[2]], p(r), [a, b, c], None);
            }),
        _ => unreachable!("the pass carries one field or three"),
    }
    out
}

/// Fills `out`, the grid `n` times finer than `d`, block by block, one coarse plane per
/// task: a block where `own(c, cell, values)` fills it and returns true, any other with
/// `coarse` interpolated trilinearly (to the bit as `trilerp`; at once where the cell's
/// neighbourhood holds one finite value, which every sample then is).
pub(super) fn fill_blocks(
    coarse: &[f32],
    d: Dims,
    n: usize,
    out: &mut [f32],
    own: impl Fn(usize, [usize; 3], &mut [f32]) -> bool + Sync,
) {
    let (fx, fy) = (d.nx * n, d.ny * n);
    let n3 = n * n * n;
    out.par_chunks_mut(fx * fy * n)
        .enumerate()
        .for_each(|(ck, slab)| {
            let mut vals = [0.0f32; MAX * MAX * MAX];
            let vals = &mut vals[..n3];
            for cj in 0..d.ny {
                for ci in 0..d.nx {
                    let cell = [ci, cj, ck];
                    if !own(ci + d.nx * (cj + d.ny * ck), cell, vals) {
                        let g = gather(&rows(d, cell), coarse);
                        let same = g.iter().all(|v| v.to_bits() == g[0].to_bits());
                        if same && g[0].is_finite() {
                            // a + t·0: the value itself (a zero of either sign: +0).
                            vals.fill(g[0] + 0.0);
                        } else {
                            let blk = Block::new(d, n, cell);
                            for (q, v) in vals.iter_mut().enumerate() {
                                *v = blk.sample(&g, q);
                            }
                        }
                    }
                    for dk in 0..n {
                        for dj in 0..n {
                            let row = ci * n + fx * (cj * n + dj + fy * dk);
                            let from = n * (dj + n * dk);
                            slab[row..row + n].copy_from_slice(&vals[from..from + n]);
                        }
                    }
                }
            }
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Filling block by block gives every fine cell the trilinear sample at its centre, to
    /// the bit, uniform neighbourhoods (and zeros of both signs) included.
    #[test]
    fn filled_blocks_equal_trilerp_per_fine_cell() {
        let d = Dims::new(6, 5, 4);
        for n in 2..=4 {
            let f: Vec<f32> = (0..d.cells())
                .map(|i| match i % 7 {
                    0..=2 => -0.0,
                    3 => 0.0,
                    _ => (i as f32 * 0.61).sin(),
                })
                .collect();
            let (fx, fy, fz) = (d.nx * n, d.ny * n, d.nz * n);
            let mut out = vec![f32::NAN; fx * fy * fz];
            fill_blocks(&f, d, n, &mut out, |_, _, _| false);
            for k in 0..fz {
                for j in 0..fy {
                    for i in 0..fx {
                        let p = [coarse_pos(i, n), coarse_pos(j, n), coarse_pos(k, n)];
                        let want = super::super::trilerp(&f, d, p);
                        let got = out[i + fx * (j + fy * k)];
                        assert_eq!(got.to_bits(), want.to_bits(), "{n}: {i} {j} {k}");
                    }
                }
            }
        }
    }

    /// Every fine cell of every block, walls and one-cell-wide axes included, samples as
    /// the general trilinear sample does, to the bit.
    #[test]
    fn block_samples_equal_trilerp() {
        for (d, n) in [
            (Dims::new(5, 4, 3), 2),
            (Dims::new(4, 1, 6), 3),
            (Dims::new(2, 3, 5), 4),
        ] {
            let f: Vec<f32> = (0..d.cells())
                .map(|i| ((i * 7919) % 101) as f32 * 0.37 - 11.0)
                .collect();
            let v: Vec<[f32; 3]> = f.iter().map(|&x| [x, -2.0 * x, x * x]).collect();
            for c in 0..d.cells() {
                let cell = [c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny)];
                let b = Block::new(d, n, cell);
                let (g, gv) = (b.gather(&f), b.gather(&v));
                for q in 0..n * n * n {
                    let fine = [q % n, (q / n) % n, q / (n * n)];
                    let p = [0, 1, 2].map(|a| coarse_pos(cell[a] * n + fine[a], n));
                    assert_eq!(b.pos(q), p);
                    assert_eq!(b.sample(&g, q), super::super::trilerp(&f, d, p));
                    assert_eq!(b.sample(&gv, q), super::super::trilerp3(&v, d, p));
                }
            }
        }
    }
}
