//! Solid cells from obstacles: the mask and what the solver derives from it (faces to hold at
//! zero, cells to clear, the border to extrapolate into, the pressure operator's diagonal).

use super::body::{Body, Form};
use super::boundary::Boundaries;
use super::grid::{Dims, Grid};
use super::pressure::operator::diagonal_at;
use crate::geometry::voxel;
use crate::geometry::Pose;
use nalgebra::{Matrix3, Vector3};
use rayon::prelude::*;

/// Per axis, the normal velocity of each listed face: that of the body owning the solid cell
/// it touches (the upper one where both are solid), from its pose at `t` to that at `t + dt`.
fn face_velocities(
    grid: &Grid,
    bodies: &[Body],
    owner: &[u8],
    faces: &[Vec<u32>; 3],
    t: f64,
    dt: f64,
) -> [Vec<f32>; 3] {
    let d = grid.dims;
    let dt = dt.max(1e-9);
    // Per moving body, where its material at x goes in dt: x' = M·x + c, so the velocity
    // along `axis` is ((M − I)·x + c)[axis] / dt.
    let motion: Vec<Option<(Matrix3<f64>, Vector3<f64>)>> = bodies
        .iter()
        .map(|b| {
            b.moves().then(|| {
                let (a, z) = (b.pose_at(t).affine(), b.pose_at(t + dt).affine());
                let m = z.m * a.inv;
                let c = z.t - m * a.t;
                ((m - Matrix3::identity()) / dt, c / dt)
            })
        })
        .collect();
    let h = f64::from(grid.h);
    let o = Vector3::from(grid.origin.map(f64::from));
    let n = d.as_array();
    [0, 1, 2].map(|axis| {
        let fd = d.faces(axis);
        faces[axis]
            .par_iter()
            .map(|&f| {
                let p = unflatten(fd, f as usize);
                if p[axis] == 0 || p[axis] == n[axis] {
                    return 0.0; // a face on the domain's boundary: the wall holds it
                }
                let above = if p[axis] < n[axis] {
                    owner[d.idx(p[0], p[1], p[2])]
                } else {
                    0
                };
                let id = if above != 0 || p[axis] == 0 {
                    above
                } else {
                    let mut q = p;
                    q[axis] -= 1;
                    owner[d.idx(q[0], q[1], q[2])]
                };
                let Some(Some((m, c))) = (id as usize).checked_sub(1).map(|i| motion[i]) else {
                    return 0.0;
                };
                let mut x = Vector3::new(p[0] as f64 + 0.5, p[1] as f64 + 0.5, p[2] as f64 + 0.5);
                x[axis] -= 0.5;
                let x = o + x * h;
                (m.row(axis).transpose().dot(&x) + c[axis]) as f32
            })
            .collect()
    })
}

/// Marks (with `id`) the cells of `rows` (the grid's z-planes `r[2]`) whose centres lie in a
/// turned, scaled or moving body standing in `pose`: along a row the body's own coordinates
/// (for a mesh, the index coordinates of its voxel grid) advance by a fixed step.
fn sample_rows(
    grid: &Grid,
    b: &Body,
    pose: &Pose,
    id: u8,
    rows: &mut [u8],
    r: [(usize, usize); 3],
) {
    let d = grid.dims;
    let plane = d.nx * d.ny;
    let [(i0, i1), (j0, j1), (k0, _)] = r;
    let a = pose.affine();
    let h = f64::from(grid.h);
    let (scale, shift) = match b.voxels() {
        Some(v) => (1.0 / v.h, v.origin),
        None => (1.0, [0.0; 3]),
    };
    let step = (a.inv * Vector3::new(h, 0.0, 0.0)) * scale;
    rows.par_chunks_mut(plane).enumerate().for_each(|(dk, pl)| {
        for j in j0..j1 {
            let c = grid.cell_center(i0, j, k0 + dk).map(f64::from);
            let l = a.invert(c);
            let mut g = Vector3::new(
                (l[0] - shift[0]) * scale,
                (l[1] - shift[1]) * scale,
                (l[2] - shift[2]) * scale,
            );
            let row = &mut pl[i0 + d.nx * j..i1 + d.nx * j];
            match b.voxels() {
                Some(v) => {
                    let [nx, ny, nz] = v.dims;
                    for x in row {
                        if g.x >= 0.0 && g.y >= 0.0 && g.z >= 0.0 {
                            let (i, j, k) = (g.x as usize, g.y as usize, g.z as usize);
                            if i < nx && j < ny && k < nz && v.data[i + nx * (j + ny * k)] != 0 {
                                *x = id;
                            }
                        }
                        g += step;
                    }
                }
                None => {
                    for x in row {
                        if b.inside_local([g.x, g.y, g.z]) {
                            *x = id;
                        }
                        g += step;
                    }
                }
            }
        }
    });
}

/// The solid cells of a grid. Empty (no allocation beyond the struct) when nothing is solid.
#[derive(Clone, Debug, Default)]
pub struct Solids {
    /// 1 for a solid cell, 0 for fluid; empty when no cell is solid.
    pub mask: Vec<u8>,
    /// Indices of the solid cells.
    pub cells: Vec<u32>,
    /// Per axis, indices of the faces (in that axis's face array) that touch a solid cell.
    pub faces: [Vec<u32>; 3],
    /// Per axis, the normal velocity of each face in `faces` (the velocity of the solid it
    /// touches); empty when nothing moves (every solid face is then held at 0).
    pub face_vel: [Vec<f32>; 3],
    /// Solid cells with at least one fluid neighbour.
    pub border: Vec<u32>,
    /// Bounding box of the solid cells, `[lo, hi)` per axis (`None` when empty).
    pub region: Option<[(usize, usize); 3]>,
}

/// Cell index range `[lo, hi)` per axis of a world box, grown by one cell, within the grid.
fn cell_range(grid: &Grid, lo: [f32; 3], hi: [f32; 3]) -> [(usize, usize); 3] {
    let n = grid.dims.as_array();
    [0, 1, 2].map(|a| {
        let l = ((lo[a] - grid.origin[a]) / grid.h - 1.0).floor().max(0.0);
        let h = ((hi[a] - grid.origin[a]) / grid.h + 1.0).ceil().max(0.0);
        ((l as usize).min(n[a]), (h as usize).min(n[a]))
    })
}

impl Solids {
    /// Rasterises the bodies standing where they are at time `t`: a cell is solid when its
    /// centre lies inside one. A body that moves gives the faces it touches the velocity it
    /// has from `t` to `t + dt`; the others hold their faces at 0. Returns the solids and,
    /// per cell, which body (its index + 1) owns it when any moves (else empty).
    pub fn build(grid: &Grid, bodies: &[Body], t: f64, dt: f64) -> Self {
        let d = grid.dims;
        if bodies.is_empty() {
            return Self::default();
        }
        let plane = d.nx * d.ny;
        let mut owner = vec![0u8; d.cells()];
        let mut region: Option<[(usize, usize); 3]> = None;
        for (id, b) in bodies.iter().enumerate() {
            let id = id as u8 + 1;
            let pose = b.pose_at(t);
            let (wlo, whi) = b.bounds_in(&pose);
            let r = cell_range(grid, wlo, whi);
            if r.iter().any(|&(l, h)| l >= h) {
                continue;
            }
            region = Some(match region {
                None => r,
                Some(q) => [0, 1, 2].map(|a| (q[a].0.min(r[a].0), q[a].1.max(r[a].1))),
            });
            let [(i0, i1), (j0, j1), (k0, k1)] = r;
            let rows = &mut owner[k0 * plane..k1 * plane];
            if let Some(shape) = b.plain_shape() {
                rows.par_chunks_mut(plane).enumerate().for_each(|(dk, pl)| {
                    for j in j0..j1 {
                        for i in i0..i1 {
                            if shape.contains(grid.cell_center(i, j, k0 + dk)) {
                                pl[i + d.nx * j] = id;
                            }
                        }
                    }
                });
            } else if matches!(b.form, Form::Mesh { .. }) && !b.moves() {
                // A mesh that stays put: voxelised exactly on the grid's own cells.
                let open = matches!(b.form, Form::Mesh { open: true, .. });
                let tris: Vec<_> = b
                    .index_triangles(grid, &pose)
                    .into_iter()
                    .map(|t| t.map(|p| [p[0] - i0 as f64, p[1] - j0 as f64, p[2] - k0 as f64]))
                    .collect();
                let sub = [i1 - i0, j1 - j0, k1 - k0];
                let m = voxel::voxelise_bounded(&tris, sub, open);
                rows.par_chunks_mut(plane).enumerate().for_each(|(dk, pl)| {
                    for j in 0..sub[1] {
                        for i in 0..sub[0] {
                            if m[i + sub[0] * (j + sub[1] * dk)] != 0 {
                                pl[i0 + i + d.nx * (j0 + j)] = id;
                            }
                        }
                    }
                });
            } else {
                sample_rows(grid, b, &pose, id, rows, r);
            }
        }
        let Some([(i0, i1), (j0, j1), (k0, k1)]) = region else {
            return Self::default();
        };
        // Per z-plane in parallel, then joined in order (the same lists as a serial sweep).
        let cells: Vec<u32> = (k0..k1)
            .into_par_iter()
            .flat_map_iter(|k| {
                let owner = &owner;
                (j0..j1).flat_map(move |j| {
                    (i0..i1)
                        .map(move |i| d.idx(i, j, k))
                        .filter(|&c| owner[c] != 0)
                        .map(|c| c as u32)
                })
            })
            .collect();
        if cells.is_empty() {
            return Self::default();
        }
        let solid = |i: usize, j: usize, k: usize| owner[d.idx(i, j, k)] != 0;
        let n = d.as_array();
        let lo = [i0, j0, k0];
        let hi = [i1, j1, k1];
        let faces: [Vec<u32>; 3] = [0, 1, 2].map(|axis| {
            let fd = d.faces(axis);
            // Faces of the region's cells: one more along `axis`.
            let top = |a: usize| if a == axis { hi[a] + 1 } else { hi[a] };
            (lo[2]..top(2))
                .into_par_iter()
                .flat_map_iter(|k| {
                    let mut list = Vec::new();
                    for j in lo[1]..top(1) {
                        for i in lo[0]..top(0) {
                            let p = [i, j, k];
                            // The cells on either side of face p along `axis`.
                            let below = p[axis] > 0 && {
                                let mut q = p;
                                q[axis] -= 1;
                                solid(q[0], q[1], q[2])
                            };
                            let above = p[axis] < n[axis] && solid(i, j, k);
                            if below || above {
                                list.push(fd.idx(i, j, k) as u32);
                            }
                        }
                    }
                    list
                })
                .collect()
        });
        let border = cells
            .par_iter()
            .copied()
            .filter(|&c| {
                let [i, j, k] = unflatten(d, c as usize);
                neighbours(d, [i, j, k]).any(|q| !solid(q[0], q[1], q[2]))
            })
            .collect();
        let face_vel = if bodies.iter().any(Body::moves) {
            face_velocities(grid, bodies, &owner, &faces, t, dt)
        } else {
            Default::default()
        };
        let mask = if bodies.len() == 1 {
            owner
        } else {
            owner.par_iter_mut().for_each(|m| *m = u8::from(*m != 0));
            owner
        };
        // The solid cells' bounding box (within the bodies' box, where they were rasterised).
        let region = Some(cells.iter().fold([(usize::MAX, 0); 3], |r, &c| {
            let p = unflatten(d, c as usize);
            [0, 1, 2].map(|a| (r[a].0.min(p[a]), r[a].1.max(p[a] + 1)))
        }));
        Self {
            mask,
            cells,
            faces,
            face_vel,
            border,
            region,
        }
    }

    /// `true` when no cell is solid.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// `true` when cell index `c` is solid.
    pub fn is_solid(&self, c: usize) -> bool {
        !self.mask.is_empty() && self.mask[c] != 0
    }

    /// Sets the normal velocity of every face touching a solid cell to the solid's (0 where
    /// it stands still).
    pub fn set_faces(&self, vel: [&mut [f32]; 3]) {
        for ((f, list), v) in vel.into_iter().zip(&self.faces).zip(&self.face_vel) {
            if v.is_empty() {
                for &i in list {
                    f[i as usize] = 0.0;
                }
            } else {
                for (&i, &x) in list.iter().zip(v) {
                    f[i as usize] = x;
                }
            }
        }
    }

    /// `true` when some solid face moves.
    pub fn moving(&self) -> bool {
        self.face_vel.iter().any(|v| !v.is_empty())
    }

    /// Sets `value` in every solid cell of a cell-centred field.
    pub fn fill_cells(&self, f: &mut [f32], value: f32) {
        if f.is_empty() {
            return; // a field not allocated yet (fuel and flame before anything burns)
        }
        for &c in &self.cells {
            f[c as usize] = value;
        }
    }

    /// Gives each solid border cell the mean of its fluid neighbours, so that interpolation
    /// near an obstacle reads fluid values instead of whatever the solid cell held.
    pub fn extrapolate(&self, d: Dims, f: &mut [f32]) {
        apply_averages(&self.border_averages(d), f);
    }

    /// Extrapolates each velocity component into the faces that touch solid cells, `layers`
    /// deep: each layer gives the faces next to known ones (the fluid's faces, then the
    /// layers already filled) the mean of their known neighbours in the same component.
    /// Deeper faces keep their value. Advection then reads the fluid's own velocity next to
    /// an obstacle instead of the zeros the obstacle holds.
    pub fn extrapolate_faces(&self, d: Dims, vel: [&mut [f32]; 3], layers: usize) {
        for (f, plan) in vel.into_iter().zip(self.face_averages(d, layers)) {
            for layer in &plan {
                apply_averages(layer, f);
            }
        }
    }

    /// Per face of the component along `axis`: 1 where the face touches a solid cell.
    pub fn face_mask(&self, d: Dims, axis: usize) -> Vec<u8> {
        let mut m = vec![0u8; d.faces(axis).cells()];
        for &i in &self.faces[axis] {
            m[i as usize] = 1;
        }
        m
    }

    /// Diagonal of the pressure operator per cell: the number of neighbours that are fluid
    /// cells or lie beyond an open face; 0 for solid cells (their pressure stays 0).
    pub fn pressure_diag(&self, d: Dims, b: &Boundaries) -> Vec<f32> {
        let mut diag = vec![0.0f32; d.cells()];
        self.pressure_diag_in(d, b, &mut diag, [(0, d.nx), (0, d.ny), (0, d.nz)]);
        diag
    }

    /// [`Solids::pressure_diag`] for the cells of `region` only (`[lo, hi)` per axis), in
    /// place: what changes when solids move within it.
    pub fn pressure_diag_in(
        &self,
        d: Dims,
        b: &Boundaries,
        diag: &mut [f32],
        region: [(usize, usize); 3],
    ) {
        let n = d.as_array();
        let plane = d.nx * d.ny;
        let [(i0, i1), (j0, j1), (k0, k1)] = region;
        let open = [0, 1, 2].map(|a| [0, 1].map(|side| b.face(a, side).is_open()));
        let fluid = |q: [usize; 3]| !self.is_solid(d.idx(q[0], q[1], q[2]));
        diag[k0 * plane..k1 * plane]
            .par_chunks_mut(plane)
            .enumerate()
            .for_each(|(dk, pl)| {
                let k = k0 + dk;
                for j in j0..j1 {
                    for i in i0..i1 {
                        pl[i + d.nx * j] = diagonal_at(n, open, 1.0, fluid, [i, j, k]);
                    }
                }
            });
    }
}

/// One averaging step of an extrapolation, for a backend that runs it elsewhere:
/// `[target, count, neighbour₀, …, neighbour₅]` (the first `count` neighbours are read, in
/// the order [`Solids::extrapolate`] and [`Solids::extrapolate_faces`] read them; the target
/// becomes their mean, or 0 without any).
pub type Average = [u32; 8];

fn average(target: usize, nbs: impl Iterator<Item = usize>) -> Average {
    let mut a = [0u32; 8];
    a[0] = target as u32;
    for q in nbs {
        a[2 + a[1] as usize] = q as u32;
        a[1] += 1;
    }
    a
}

/// Sets each average's target to the mean of its neighbours in `f` (summed in order; 0
/// without any). No average reads another's target, so the order does not matter.
fn apply_averages(plan: &[Average], f: &mut [f32]) {
    for a in plan {
        let n = a[1] as usize;
        let mut s = 0.0f32;
        for &q in &a[2..2 + n] {
            s += f[q as usize];
        }
        f[a[0] as usize] = if n > 0 { s / n as f32 } else { 0.0 };
    }
}

impl Solids {
    /// [`Solids::extrapolate`] as a list of averages: each border cell, the mean of its
    /// fluid neighbours. Every average reads only fluid cells, which none writes.
    pub fn border_averages(&self, d: Dims) -> Vec<Average> {
        self.border
            .iter()
            .map(|&c| {
                let p = unflatten(d, c as usize);
                let nbs = neighbours(d, p)
                    .map(|q| d.idx(q[0], q[1], q[2]))
                    .filter(|&qi| self.mask[qi] == 0);
                average(c as usize, nbs)
            })
            .collect()
    }

    /// [`Solids::extrapolate_faces`] with `layers` as lists of averages, per axis and layer:
    /// an average of a layer reads only faces known before it (fluid faces and those of
    /// earlier layers), so a layer's averages can run in any order.
    pub fn face_averages(&self, d: Dims, layers: usize) -> [Vec<Vec<Average>>; 3] {
        [0, 1, 2].map(|axis| {
            let list = &self.faces[axis];
            let mut out = Vec::new();
            if list.is_empty() {
                return out;
            }
            let fd = d.faces(axis);
            let mut known = vec![1u8; fd.cells()];
            for &i in list {
                known[i as usize] = 0;
            }
            let mut pending: Vec<u32> = list.clone();
            for _ in 0..layers {
                let mut layer = Vec::new();
                pending.retain(|&c| {
                    let p = unflatten(fd, c as usize);
                    let nbs: Vec<usize> = neighbours(fd, p)
                        .map(|q| fd.idx(q[0], q[1], q[2]))
                        .filter(|&qi| known[qi] != 0)
                        .collect();
                    if nbs.is_empty() {
                        return true;
                    }
                    layer.push(average(c as usize, nbs.into_iter()));
                    false
                });
                if layer.is_empty() {
                    break;
                }
                for a in &layer {
                    known[a[0] as usize] = 1;
                }
                out.push(layer);
            }
            out
        })
    }
}

fn unflatten(d: Dims, c: usize) -> [usize; 3] {
    [c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny)]
}

/// The up to six face neighbours of cell `p` inside the grid.
fn neighbours(d: Dims, p: [usize; 3]) -> impl Iterator<Item = [usize; 3]> {
    let n = d.as_array();
    (0..6).filter_map(move |m| {
        let (axis, up) = (m / 2, m % 2 == 1);
        let mut q = p;
        if up {
            if q[axis] + 1 >= n[axis] {
                return None;
            }
            q[axis] += 1;
        } else {
            if q[axis] == 0 {
                return None;
            }
            q[axis] -= 1;
        }
        Some(q)
    })
}
