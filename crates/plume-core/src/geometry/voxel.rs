//! Voxelising triangle meshes: which cells of a regular grid lie inside.
//!
//! Rays along x, y and z pass through every cell centre; along each, the crossings with the
//! mesh are sorted, and a centre is inside when the winding number of the crossings before
//! it (each counted +1 or −1 by which way its triangle faces) is not 0 — so parts that
//! overlap make a union — or, on a ray whose crossings do not balance (faces turned the
//! wrong way), when an odd number lie before it. A ray with an odd number of crossings in
//! all (it went through a hole) abstains; a cell is inside when
//! most of the rays that did not abstain say so. So a small hole or a missing face spoils
//! one direction of three, not the result. Triangles repeated in the file (the same three
//! corners) count once, so doubled faces do not cancel. Crossings exactly on an edge or a
//! vertex are given to one triangle by a fixed tie-break (a symbolic shift of the ray), so a
//! ray through a shared edge crosses once. Where a mesh that is not closed has no inside
//! next to its surface (a sheet), the cells the surface passes through are solid, so a
//! sheet becomes a wall one cell thick.

use rayon::prelude::*;

/// A triangle's corners in grid-index coordinates (cell (i, j, k) spans [i, i+1)…, its
/// centre at i + ½).
pub type Tri = [[f64; 3]; 3];

/// Drops triangles that repeat another's corners (in any order) and triangles with a
/// non-finite corner.
pub fn unique(tris: impl Iterator<Item = Tri>) -> Vec<Tri> {
    use std::hash::BuildHasher;
    let tris: Vec<Tri> = tris
        .filter(|t| t.iter().flatten().all(|x| x.is_finite()))
        .collect();
    // A 64-bit hash of the sorted corners stands for the triangle (8 bytes a triangle, not
    // 72; two different triangles share one with odds of 1 in 2⁶⁴ per pair, and the keys
    // are random per process). Sorted by it in parallel, the first of each run is kept, in
    // the order read.
    let state = std::collections::hash_map::RandomState::new();
    let mut keyed: Vec<(u64, u32)> = tris
        .par_iter()
        .enumerate()
        .map(|(i, t)| {
            let mut key = t.map(|p| p.map(f64::to_bits));
            key.sort_unstable();
            (state.hash_one(key), i as u32)
        })
        .collect();
    keyed.par_sort_unstable();
    let mut keep: Vec<u32> = keyed
        .chunk_by(|a, b| a.0 == b.0)
        .map(|run| run[0].1)
        .collect();
    keep.par_sort_unstable();
    keep.into_iter().map(|i| tris[i as usize]).collect()
}

/// The 2D orientation of `p` against the directed edge `a → b`, computed the same way for
/// both directions of an edge (so the two triangles sharing it see exactly opposite values),
/// and never 0 for a non-degenerate edge: a point exactly on the edge is shifted by
/// (ε, ε²) for the decision.
#[inline]
fn side(a: [f64; 2], b: [f64; 2], p: [f64; 2]) -> f64 {
    let (lo, hi, sign) = if (a[0], a[1]) <= (b[0], b[1]) {
        (a, b, 1.0)
    } else {
        (b, a, -1.0)
    };
    let o = (hi[0] - lo[0]) * (p[1] - lo[1]) - (hi[1] - lo[1]) * (p[0] - lo[0]);
    if o != 0.0 {
        return sign * o;
    }
    // orient(lo, hi, p + (ε, ε²)) = (hi.x−lo.x)·ε² − (hi.y−lo.y)·ε
    let dy = hi[1] - lo[1];
    let tie = if dy != 0.0 { -dy } else { hi[0] - lo[0] };
    sign * tie.signum() * f64::MIN_POSITIVE
}

/// Where the ray along `axis` through the centre (b, c) crosses a triangle, if it does, and
/// which way the triangle faces along the ray (+1 or −1).
#[inline]
fn crossing(t: &Tri, axis: usize, p: [f64; 2]) -> Option<(f64, i8)> {
    let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
    let q = t.map(|v| [v[b], v[c]]);
    let area =
        (q[1][0] - q[0][0]) * (q[2][1] - q[0][1]) - (q[1][1] - q[0][1]) * (q[2][0] - q[0][0]);
    if area == 0.0 {
        return None; // seen edge-on: no crossing
    }
    let w = [
        side(q[1], q[2], p),
        side(q[2], q[0], p),
        side(q[0], q[1], p),
    ];
    let s = area.signum();
    if w.iter().all(|&x| x * s > 0.0) {
        let sum = w[0] + w[1] + w[2];
        let x = (w[0] * t[0][axis] + w[1] * t[1][axis] + w[2] * t[2][axis]) / sum;
        Some((x, if s > 0.0 { 1 } else { -1 }))
    } else {
        None
    }
}

/// The rows (cell centres `l..=h`) an extent `lo..hi` of index coordinates spans on an
/// axis of `n` cells; empty where `l > h`.
#[inline]
fn span(lo: f64, hi: f64, n: usize) -> (i64, i64) {
    let l = (lo - 0.5).ceil().max(0.0);
    let h = (hi - 0.5).floor().min(n as f64 - 1.0);
    (l as i64, h as i64)
}

/// A triangle's extent along `ax`.
#[inline]
fn extent(t: &Tri, ax: usize) -> (f64, f64) {
    let lo = t.iter().map(|v| v[ax]).fold(f64::INFINITY, f64::min);
    let hi = t.iter().map(|v| v[ax]).fold(f64::NEG_INFINITY, f64::max);
    (lo, hi)
}

/// Inside votes along one axis: per cell, 2 for an inside vote, 1 for outside, 0 for an
/// abstention (the ray crossed an odd number of times).
///
/// The rays are taken a slab (one row index across the axis) at a time, in parallel, each
/// slab with the triangles that reach it. A crossing at `x` adds its sign and a count to the
/// first cell centre at or after it (`ceil(x − ½)`, the ray's ends clamped), so running sums
/// along the ray give each centre the winding number and the number of crossings before it,
/// with no list of crossings to keep or sort: memory is the grid's, whatever the number of
/// crossings, and the time is the crossing tests'.
fn votes_along(tris: &[Tri], dims: [usize; 3], axis: usize) -> Vec<u8> {
    let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
    let (nb, nc, na) = (dims[b], dims[c], dims[axis]);
    let spans: Vec<[(i64, i64); 2]> = tris
        .par_iter()
        .map(|t| {
            let (lb, hb) = extent(t, b);
            let (lc, hc) = extent(t, c);
            [span(lb, hb, nb), span(lc, hc, nc)]
        })
        .collect();
    // The triangles of each slab, as one list in slab order.
    let mut start = vec![0usize; nc + 1];
    for s in &spans {
        if s[0].0 <= s[0].1 {
            for jc in s[1].0..=s[1].1 {
                start[jc as usize + 1] += 1;
            }
        }
    }
    for j in 0..nc {
        start[j + 1] += start[j];
    }
    let mut list = vec![0u32; start[nc]];
    let mut at = start.clone();
    for (i, s) in spans.iter().enumerate() {
        if s[0].0 <= s[0].1 {
            for jc in s[1].0..=s[1].1 {
                list[at[jc as usize]] = i as u32;
                at[jc as usize] += 1;
            }
        }
    }
    // Votes laid out as rows along the axis: row r = jb + nb·jc at r·na .. (r+1)·na.
    let mut rows = vec![1u8; nb * nc * na];
    let w = na + 1;
    rows.par_chunks_mut(nb * na)
        .enumerate()
        .for_each(|(jc, slab)| {
            let mine = &list[start[jc]..start[jc + 1]];
            if mine.is_empty() {
                return;
            }
            // Per ray: signs and counts at each first centre after a crossing (slot `na`:
            // beyond the last centre).
            let mut sign = vec![0i32; nb * w];
            let mut count = vec![0u32; nb * w];
            for &ti in mine {
                let t = &tris[ti as usize];
                let (b0, b1) = spans[ti as usize][0];
                for jb in b0..=b1 {
                    let p = [jb as f64 + 0.5, jc as f64 + 0.5];
                    if let Some((x, s)) = crossing(t, axis, p) {
                        let i = (x - 0.5).ceil().clamp(0.0, na as f64) as usize;
                        let k = jb as usize * w + i;
                        sign[k] += i32::from(s);
                        count[k] += 1;
                    }
                }
            }
            for jb in 0..nb {
                let sg = &sign[jb * w..(jb + 1) * w];
                let ct = &count[jb * w..(jb + 1) * w];
                let total: i32 = sg.iter().sum();
                let crossings: u32 = ct.iter().sum();
                if crossings == 0 {
                    continue;
                }
                let out = &mut slab[jb * na..(jb + 1) * na];
                if total != 0 && crossings % 2 == 1 {
                    out.fill(0);
                    continue;
                }
                // Balanced crossings (a consistently oriented mesh, parts overlapping or
                // not): inside where the winding number is not 0; otherwise (faces turned
                // the wrong way) by parity.
                let (mut wind, mut seen) = (0i32, 0u32);
                for (i, v) in out.iter_mut().enumerate() {
                    wind += sg[i];
                    seen += ct[i];
                    let inside = if total == 0 { wind != 0 } else { seen % 2 == 1 };
                    if inside {
                        *v = 2;
                    }
                }
            }
        });
    rows
}

/// Most ray tests and surface samples one voxelisation may take ([`work`]): about a second
/// on two cores (a closed mesh of 4 000 000 small triangles takes about 12 million). A mesh of many large overlapping triangles would take far more at half a
/// grid cell (4 000 000 random triangles: 21 s and 1.8 GB at 16³ before); [`Voxels::build`]
/// voxelises it on a coarser grid of its own instead.
pub const MAX_WORK: f64 = 1e8;

/// The ray tests (and, for `surface`, the surface samples) voxelising `tris`, given in the
/// coordinates of a grid of `dims` whose cell is `scale` times theirs, takes: over the three
/// axes, the rays each triangle's extent spans.
pub fn work(tris: &[Tri], dims: [usize; 3], scale: f64, origin: [f64; 3], surface: bool) -> f64 {
    tris.par_iter()
        .map(|t| {
            let t = t.map(|p| [0, 1, 2].map(|a| (p[a] - origin[a]) / scale));
            let rays: f64 = (0..3)
                .map(|a| {
                    let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                    let (lb, hb) = extent(&t, b);
                    let (lc, hc) = extent(&t, c);
                    let (b0, b1) = span(lb, hb, dims[b]);
                    let (c0, c1) = span(lc, hc, dims[c]);
                    ((b1 - b0 + 1).max(0) * (c1 - c0 + 1).max(0)) as f64
                })
                .sum();
            let samples = if surface {
                let n = samples_per_side(&t) as f64;
                (n + 1.0) * (n + 2.0) / 2.0
            } else {
                0.0
            };
            rays + samples
        })
        .sum()
}

/// Samples along a triangle's longest side for [`surface`]: twice per cell width.
fn samples_per_side(t: &Tri) -> usize {
    let len = |a: usize, b: usize| {
        (0..3)
            .map(|x| (t[a][x] - t[b][x]).powi(2))
            .sum::<f64>()
            .sqrt()
    };
    ((len(0, 1).max(len(1, 2)).max(len(2, 0)) * 2.0).ceil() as usize).clamp(1, 4096)
}

/// Marks (with 1) every cell a triangle passes through, sampling each triangle at least
/// twice per cell width.
pub fn surface(tris: &[Tri], dims: [usize; 3]) -> Vec<u8> {
    use std::sync::atomic::{AtomicU8, Ordering};
    let mask: Vec<AtomicU8> = (0..dims[0] * dims[1] * dims[2])
        .map(|_| AtomicU8::new(0))
        .collect();
    tris.par_iter().for_each(|t| {
        let n = samples_per_side(t);
        for i in 0..=n {
            for j in 0..=n - i {
                let (u, v) = (i as f64 / n as f64, j as f64 / n as f64);
                let w = 1.0 - u - v;
                let p = [0, 1, 2].map(|x| w * t[0][x] + u * t[1][x] + v * t[2][x]);
                if p.iter().zip(dims).all(|(&x, n)| x >= 0.0 && x < n as f64) {
                    let k = p[0] as usize + dims[0] * (p[1] as usize + dims[1] * p[2] as usize);
                    mask[k].store(1, Ordering::Relaxed);
                }
            }
        }
    });
    mask.into_iter().map(AtomicU8::into_inner).collect()
}

/// The smallest whole factor `f` such that voxelising `tris` (index coordinates of a grid
/// of `dims`) on cells `f` times larger takes at most [`MAX_WORK`] ray tests (`surface`: and
/// surface samples); 1 for any mesh that is not a pile of large overlapping triangles.
pub fn coarsening(tris: &[Tri], dims: [usize; 3], surface: bool) -> usize {
    let largest = dims.into_iter().max().unwrap_or(1).max(1);
    (1..largest)
        .find(|&f| {
            let d = dims.map(|n| n.div_ceil(f));
            work(tris, d, f as f64, [0.0; 3], surface) <= MAX_WORK
        })
        .unwrap_or(largest)
}

/// [`voxelise`], bounded: where that would take more than [`MAX_WORK`] ray tests, on cells
/// [`coarsening`] times larger, each fine cell taking its coarse cell's value.
pub fn voxelise_bounded(tris: &[Tri], dims: [usize; 3], open: bool) -> Vec<u8> {
    let f = coarsening(tris, dims, open);
    if f == 1 {
        return voxelise(tris, dims, open);
    }
    let d = dims.map(|n| n.div_ceil(f));
    let inv = 1.0 / f as f64;
    let coarse_tris: Vec<Tri> = tris.iter().map(|t| t.map(|p| p.map(|x| x * inv))).collect();
    let coarse = voxelise(&coarse_tris, d, open);
    let mut out = vec![0u8; dims[0] * dims[1] * dims[2]];
    out.par_chunks_mut(dims[0] * dims[1])
        .enumerate()
        .for_each(|(k, pl)| {
            for j in 0..dims[1] {
                for i in 0..dims[0] {
                    pl[i + dims[0] * j] = coarse[i / f + d[0] * (j / f + d[1] * (k / f))];
                }
            }
        });
    out
}

/// Which cells of a `dims` grid lie inside the triangles (1) or not (0), x fastest.
/// `open` also marks the cells the surface passes through (for a mesh that is not closed).
pub fn voxelise(tris: &[Tri], dims: [usize; 3], open: bool) -> Vec<u8> {
    let n = dims[0] * dims[1] * dims[2];
    if n == 0 {
        return Vec::new();
    }
    let votes: Vec<Vec<u8>> = (0..3usize)
        .into_par_iter()
        .map(|a| votes_along(tris, dims, a))
        .collect();
    let [nx, ny, _] = dims;
    let mut mask = vec![0u8; n];
    mask.par_chunks_mut(nx * ny)
        .enumerate()
        .for_each(|(k, pl)| {
            for j in 0..ny {
                for i in 0..nx {
                    let p = [i, j, k];
                    let (mut inside, mut valid) = (0u8, 0u8);
                    for (a, v) in votes.iter().enumerate() {
                        let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                        let row = p[b] + dims[b] * p[c];
                        match v[row * dims[a] + p[a]] {
                            2 => {
                                inside += 1;
                                valid += 1
                            }
                            1 => valid += 1,
                            _ => {}
                        }
                    }
                    pl[i + nx * j] = u8::from(2 * inside > valid);
                }
            }
        });
    if open {
        // Where the votes found no inside next to the surface (a sheet, a thin shell), the
        // cells the surface passes through are solid; next to an inside they would only
        // thicken a mesh with a few holes by a layer.
        let surf = surface(tris, dims);
        let inside = mask.clone();
        let at = |i: i64, j: i64, k: i64| {
            i >= 0
                && j >= 0
                && k >= 0
                && (i as usize) < nx
                && (j as usize) < ny
                && (k as usize) < dims[2]
                && inside[i as usize + nx * (j as usize + ny * k as usize)] != 0
        };
        for (c, m) in mask.iter_mut().enumerate() {
            if surf[c] == 0 || *m != 0 {
                continue;
            }
            let (i, j, k) = (
                (c % nx) as i64,
                ((c / nx) % ny) as i64,
                (c / (nx * ny)) as i64,
            );
            let near = [
                (1, 0, 0),
                (-1, 0, 0),
                (0, 1, 0),
                (0, -1, 0),
                (0, 0, 1),
                (0, 0, -1),
            ]
            .iter()
            .any(|&(a, b, d)| at(i + a, j + b, k + d));
            if !near {
                *m = 1;
            }
        }
    }
    mask
}

/// A mask on a grid of its own (a mesh voxelised once in its own coordinates, then sampled
/// wherever the object stands): cell (i, j, k) centred at `origin + (i + ½)·h`.
#[derive(Clone, Debug, Default)]
pub struct Voxels {
    /// Corner of the grid.
    pub origin: [f64; 3],
    /// Cell size.
    pub h: f64,
    /// Cells per axis.
    pub dims: [usize; 3],
    /// 0 or 1 per cell, x fastest.
    pub data: Vec<u8>,
}

impl Voxels {
    /// Where a grid covering local-space triangles with a two-cell margin, cells of size
    /// `h` (grown where that would need more than `max_cells` along an axis), lies: its
    /// corner, cell size and cells per axis.
    fn placement(tris: &[Tri], h: f64, max_cells: usize) -> ([f64; 3], f64, [usize; 3]) {
        let mut lo = [f64::INFINITY; 3];
        let mut hi = [f64::NEG_INFINITY; 3];
        for p in tris.iter().flatten() {
            for a in 0..3 {
                lo[a] = lo[a].min(p[a]);
                hi[a] = hi[a].max(p[a]);
            }
        }
        let ext = (0..3).map(|a| hi[a] - lo[a]).fold(0.0, f64::max);
        let h = h.max(ext / (max_cells.saturating_sub(4).max(1)) as f64);
        let dims = [0, 1, 2].map(|a| ((hi[a] - lo[a]) / h).ceil() as usize + 4);
        let origin = [0, 1, 2].map(|a| lo[a] - 2.0 * h);
        (origin, h, dims)
    }

    /// The cell size to voxelise `tris` at for cells of size `h` (see [`Voxels::build`];
    /// `surface`: the surface is sampled too): `h`, or coarser where that would take more
    /// than [`MAX_WORK`] ray tests and samples. Returns it and how many times `h` it is.
    pub fn bounded_cell(tris: &[Tri], h: f64, max_cells: usize, surface: bool) -> (f64, f64) {
        let mut cell = h;
        for _ in 0..16 {
            let (origin, h2, dims) = Self::placement(tris, cell, max_cells);
            let w = work(tris, dims, h2, origin, surface);
            if w <= MAX_WORK {
                return (cell, cell / h);
            }
            // The work goes as the square of the cells across a triangle.
            cell *= (w / MAX_WORK).sqrt() * 1.05;
        }
        (cell, cell / h)
    }

    /// A grid covering local-space triangles (see [`Voxels::placement`], at the cell size
    /// [`Voxels::bounded_cell`] gives), and the triangles in its index coordinates.
    fn frame(tris: &[Tri], h: f64, max_cells: usize, surface: bool) -> (Voxels, Vec<Tri>) {
        if tris.is_empty() {
            return (Voxels::default(), Vec::new());
        }
        let (cell, _) = Self::bounded_cell(tris, h, max_cells, surface);
        let (origin, h, dims) = Self::placement(tris, cell, max_cells);
        let index = tris
            .iter()
            .map(|t| t.map(|p| [0, 1, 2].map(|a| (p[a] - origin[a]) / h)))
            .collect();
        let v = Voxels {
            origin,
            h,
            dims,
            data: Vec::new(),
        };
        (v, index)
    }

    /// Voxelises local-space triangles on a grid of their own (see [`voxelise`]).
    pub fn build(tris: &[Tri], h: f64, max_cells: usize, open: bool) -> Voxels {
        let (mut v, index) = Self::frame(tris, h, max_cells, open);
        v.data = voxelise(&index, v.dims, open);
        v
    }

    /// Marks the cells the triangles pass through instead of those inside (for emitting
    /// from a surface), on the same kind of grid as [`Voxels::build`].
    pub fn surface_of(tris: &[Tri], h: f64, max_cells: usize) -> Voxels {
        let (mut v, index) = Self::frame(tris, h, max_cells, true);
        v.data = surface(&index, v.dims);
        v
    }

    /// Whether the cell holding a local point is set (false outside the grid).
    #[inline]
    pub fn nearest(&self, p: [f64; 3]) -> bool {
        let g = [0, 1, 2].map(|a| (p[a] - self.origin[a]) / self.h);
        if !(g[0] >= 0.0 && g[1] >= 0.0 && g[2] >= 0.0) {
            return false;
        }
        let [i, j, k] = g.map(|x| x as usize);
        let [nx, ny, nz] = self.dims;
        i < nx && j < ny && k < nz && self.data[i + nx * (j + ny * k)] != 0
    }

    /// The mask interpolated at a local point: 0 outside, 1 deep inside, a ramp one cell wide
    /// across the surface.
    #[inline]
    pub fn sample(&self, p: [f64; 3]) -> f32 {
        let g = [0, 1, 2].map(|a| (p[a] - self.origin[a]) / self.h - 0.5);
        if !g
            .iter()
            .zip(self.dims)
            .all(|(&x, n)| x > -1.0 && x < n as f64)
        {
            return 0.0;
        }
        let i0 = g.map(|x| x.floor() as i64);
        let f = [0, 1, 2].map(|a| g[a] - i0[a] as f64);
        let at = |i: i64, j: i64, k: i64| -> f64 {
            let [nx, ny, nz] = self.dims.map(|n| n as i64);
            if i < 0 || j < 0 || k < 0 || i >= nx || j >= ny || k >= nz {
                0.0
            } else {
                self.data[(i + nx * (j + ny * k)) as usize] as f64
            }
        };
        let mut s = 0.0;
        for c in 0..8 {
            let d = [c & 1, c >> 1 & 1, c >> 2 & 1];
            let w: f64 = (0..3)
                .map(|a| if d[a] == 1 { f[a] } else { 1.0 - f[a] })
                .product();
            if w > 0.0 {
                s += w * at(
                    i0[0] + d[0] as i64,
                    i0[1] + d[1] as i64,
                    i0[2] + d[2] as i64,
                );
            }
        }
        s as f32
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A closed axis-aligned box as 12 triangles.
    fn cube(lo: [f64; 3], hi: [f64; 3]) -> Vec<Tri> {
        let v = |i: usize| [0, 1, 2].map(|a| if i >> a & 1 == 0 { lo[a] } else { hi[a] });
        let quads = [
            [0, 2, 6, 4],
            [1, 5, 7, 3],
            [0, 4, 5, 1],
            [2, 3, 7, 6],
            [0, 1, 3, 2],
            [4, 6, 7, 5],
        ];
        quads
            .iter()
            .flat_map(|q| [[v(q[0]), v(q[1]), v(q[2])], [v(q[0]), v(q[2]), v(q[3])]])
            .collect()
    }

    #[test]
    fn a_box_fills_exactly_its_cells_even_with_corners_on_cell_centres() {
        // Corners at cell centres put every ray through edges and vertices.
        let tris = cube([2.5, 3.5, 1.5], [6.5, 5.5, 7.5]);
        let m = voxelise(&tris, [10, 10, 10], false);
        let inside = |i: usize, j: usize, k: usize| m[i + 10 * (j + 10 * k)] == 1;
        let mut n = 0;
        for k in 0..10 {
            for j in 0..10 {
                for i in 0..10 {
                    let want = (2..6).contains(&i) && (3..5).contains(&j) && (1..7).contains(&k);
                    // A centre exactly on a face counts as inside on the lower faces and
                    // outside on the upper ones (every ray shifted the same way).
                    n += usize::from(inside(i, j, k));
                    assert_eq!(inside(i, j, k), want, "cell {i} {j} {k}");
                }
            }
        }
        assert_eq!(n, 4 * 2 * 6);
    }

    #[test]
    fn a_box_with_a_missing_face_and_doubled_faces_is_still_solid() {
        let mut tris = cube([2.2, 2.2, 2.2], [7.8, 7.8, 7.8]);
        tris.drain(0..2); // one face gone
        let again = tris[4];
        tris.push(again); // one triangle doubled
        let tris = unique(tris.into_iter());
        let m = voxelise(&tris, [10, 10, 10], true);
        let solid = m.iter().filter(|&&x| x == 1).count();
        assert_eq!(solid, 6 * 6 * 6);
    }
}
