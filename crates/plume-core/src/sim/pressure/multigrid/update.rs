//! Moving solids change the finest diagonal only near where they were and are: the
//! hierarchy's diagonals are then updated in that box (grown by a cell at each coarser
//! level, where a cell's diagonal depends on its neighbours' children), not rebuilt. The
//! values are those a rebuild gives (they are neighbour counts; a unit test compares).

use super::{to_u8, Mgpcg};
use crate::sim::pressure::operator::diagonal_at;
use rayon::prelude::*;

impl Mgpcg {
    /// Takes the finest diagonal `dg` (of the grid the hierarchy was built for) and updates
    /// every level's diagonal where it changed. Returns `true` (nothing else to rebuild).
    pub(super) fn update_diagonals(&mut self, dg: &[f32]) -> bool {
        let dims = self.key_dims;
        let [nx, ny, nz] = dims;
        let plane = nx * ny;
        // The box of changed cells: per z-plane, then joined.
        let boxes: Vec<Option<[(usize, usize); 3]>> = (0..nz)
            .into_par_iter()
            .map(|k| {
                let mut b: Option<[(usize, usize); 3]> = None;
                let row = &dg[k * plane..(k + 1) * plane];
                let old = &self.diag0[k * plane..(k + 1) * plane];
                for (c, (&a, &o)) in row.iter().zip(old).enumerate() {
                    if to_u8(a) != o {
                        let p = [c % nx, c / nx, k];
                        b = Some(match b {
                            None => p.map(|x| (x, x + 1)),
                            Some(q) => [0, 1, 2].map(|x| (q[x].0.min(p[x]), q[x].1.max(p[x] + 1))),
                        });
                    }
                }
                b
            })
            .collect();
        let Some(mut bx) = boxes
            .into_iter()
            .flatten()
            .reduce(|a, b| [0, 1, 2].map(|x| (a[x].0.min(b[x].0), a[x].1.max(b[x].1))))
        else {
            return true;
        };
        for k in bx[2].0..bx[2].1 {
            for j in bx[1].0..bx[1].1 {
                for i in bx[0].0..bx[0].1 {
                    let c = i + nx * (j + ny * k);
                    self.diag0[c] = to_u8(dg[c]);
                }
            }
        }
        let mut fd = dims;
        for level in 0..self.diags.len() {
            let cd = self.levels[level + 1].dims;
            // Coarse cells whose children changed, and their neighbours.
            bx = [0, 1, 2].map(|x| {
                (
                    (bx[x].0 / 2).saturating_sub(1),
                    (bx[x].1.div_ceil(2) + 1).min(cd[x]),
                )
            });
            let h = (1usize << (level + 1)) as f32;
            let open_coef = 2.0 * h / (h + 1.0);
            let (fine, coarse) = if level == 0 {
                (None, &mut self.diags[0])
            } else {
                let (a, b) = self.diags.split_at_mut(level);
                (Some(&a[level - 1]), &mut b[0])
            };
            let diag0 = &self.diag0;
            let fine_at = |c: usize| match fine {
                None => diag0[c] > 0,
                Some(f) => f[c] > 0.0,
            };
            let active = |[i, j, k]: [usize; 3]| {
                (0..8).any(|m| {
                    let (ii, jj, kk) = (2 * i + (m & 1), 2 * j + (m >> 1 & 1), 2 * k + (m >> 2));
                    ii < fd[0]
                        && jj < fd[1]
                        && kk < fd[2]
                        && fine_at(ii + fd[0] * (jj + fd[1] * kk))
                })
            };
            for k in bx[2].0..bx[2].1 {
                for j in bx[1].0..bx[1].1 {
                    for i in bx[0].0..bx[0].1 {
                        coarse[i + cd[0] * (j + cd[1] * k)] =
                            diagonal_at(cd, self.open, open_coef, active, [i, j, k]);
                    }
                }
            }
            fd = cd;
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A diagonal for solid cells in a box: 0 inside, neighbour counts elsewhere.
    fn diag_with_box(d: [usize; 3], lo: [usize; 3], hi: [usize; 3], open_top: bool) -> Vec<f32> {
        let solid = |p: [usize; 3]| (0..3).all(|a| p[a] >= lo[a] && p[a] < hi[a]);
        let mut out = vec![0.0; d[0] * d[1] * d[2]];
        for k in 0..d[2] {
            for j in 0..d[1] {
                for i in 0..d[0] {
                    let p = [i, j, k];
                    if solid(p) {
                        continue;
                    }
                    let mut n = 0.0;
                    for a in 0..3 {
                        for s in 0..2 {
                            let inside = if s == 0 { p[a] > 0 } else { p[a] + 1 < d[a] };
                            if inside {
                                let mut q = p;
                                if s == 0 {
                                    q[a] -= 1
                                } else {
                                    q[a] += 1
                                }
                                n += if solid(q) { 0.0 } else { 1.0 };
                            } else if open_top && a == 1 && s == 1 {
                                n += 1.0;
                            }
                        }
                    }
                    out[i + d[0] * (j + d[1] * k)] = n;
                }
            }
        }
        out
    }

    #[test]
    fn updating_the_diagonals_gives_what_a_rebuild_gives() {
        let d = [37, 30, 33];
        let mut open = [[false; 2]; 3];
        open[1][1] = true;
        let mut moved = Mgpcg::default();
        let first = diag_with_box(d, [5, 6, 7], [12, 14, 11], true);
        moved.prepare(d, open, Some(&first));
        for (lo, hi) in [([6, 6, 7], [13, 14, 11]), ([20, 3, 20], [29, 9, 31])] {
            let next = diag_with_box(d, lo, hi, true);
            moved.prepare(d, open, Some(&next));
            let mut fresh = Mgpcg::default();
            fresh.prepare(d, open, Some(&next));
            assert_eq!(moved.diag0, fresh.diag0);
            assert_eq!(moved.diags, fresh.diags);
        }
    }
}
