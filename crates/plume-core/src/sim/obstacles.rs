//! Solid cells from obstacles: the mask and what the solver derives from it (faces to hold at
//! zero, cells to clear, the border to extrapolate into, the pressure operator's diagonal).

use super::body::{point_velocity, Body, Form};
use super::boundary::Boundaries;
use super::grid::{Dims, Grid};
use crate::geometry::voxel;
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
    let poses: Vec<_> = bodies
        .iter()
        .map(|b| {
            b.moves()
                .then(|| (b.pose_at(t).affine(), b.pose_at(t + dt).affine()))
        })
        .collect();
    let h = f64::from(grid.h);
    let o = grid.origin.map(f64::from);
    [0, 1, 2].map(|axis| {
        let fd = d.faces(axis);
        faces[axis]
            .par_iter()
            .map(|&f| {
                let p = unflatten(fd, f as usize);
                let n = d.as_array();
                let hi = (p[axis] < n[axis]).then(|| owner[d.idx(p[0], p[1], p[2])]);
                let lo = (p[axis] > 0).then(|| {
                    let mut q = p;
                    q[axis] -= 1;
                    owner[d.idx(q[0], q[1], q[2])]
                });
                let id = hi.filter(|&x| x != 0).or(lo).unwrap_or(0);
                let Some(Some((a, b))) = (id as usize).checked_sub(1).map(|i| poses[i]) else {
                    return 0.0;
                };
                let x = [0, 1, 2].map(|c| {
                    let s = if c == axis { 0.0 } else { 0.5 };
                    o[c] + (p[c] as f64 + s) * h
                });
                point_velocity(&a, &b, x, dt)[axis] as f32
            })
            .collect()
    })
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
                let m = voxel::voxelise(&tris, sub, open);
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
                let a = pose.affine();
                rows.par_chunks_mut(plane).enumerate().for_each(|(dk, pl)| {
                    for j in j0..j1 {
                        for i in i0..i1 {
                            let c = grid.cell_center(i, j, k0 + dk).map(f64::from);
                            if b.inside(&a, c) {
                                pl[i + d.nx * j] = id;
                            }
                        }
                    }
                });
            }
        }
        let Some([(i0, i1), (j0, j1), (k0, k1)]) = region else {
            return Self::default();
        };
        let mut cells = Vec::new();
        for k in k0..k1 {
            for j in j0..j1 {
                for i in i0..i1 {
                    let c = d.idx(i, j, k);
                    if owner[c] != 0 {
                        cells.push(c as u32);
                    }
                }
            }
        }
        if cells.is_empty() {
            return Self::default();
        }
        let solid = |i: usize, j: usize, k: usize| owner[d.idx(i, j, k)] != 0;
        let mut faces: [Vec<u32>; 3] = Default::default();
        let n = d.as_array();
        let lo = [i0, j0, k0];
        let hi = [i1, j1, k1];
        for (axis, list) in faces.iter_mut().enumerate() {
            let fd = d.faces(axis);
            // Faces of the region's cells: one more along `axis`.
            let top = |a: usize| if a == axis { hi[a] + 1 } else { hi[a] };
            for k in lo[2]..top(2) {
                for j in lo[1]..top(1) {
                    for i in lo[0]..top(0) {
                        let p = [i, j, k];
                        // The cells on either side of face p along `axis`.
                        let lo = (p[axis] > 0).then(|| {
                            let mut q = p;
                            q[axis] -= 1;
                            q
                        });
                        let hi = (p[axis] < n[axis]).then_some(p);
                        let touches = [lo, hi]
                            .into_iter()
                            .flatten()
                            .any(|q| solid(q[0], q[1], q[2]));
                        if touches {
                            list.push(fd.idx(i, j, k) as u32);
                        }
                    }
                }
            }
        }
        let border = cells
            .iter()
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
        Self {
            mask,
            cells,
            faces,
            face_vel,
            border,
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
        for &c in &self.border {
            let p = unflatten(d, c as usize);
            let (mut s, mut n) = (0.0f32, 0u32);
            for q in neighbours(d, p) {
                let qi = d.idx(q[0], q[1], q[2]);
                if self.mask[qi] == 0 {
                    s += f[qi];
                    n += 1;
                }
            }
            f[c as usize] = if n > 0 { s / n as f32 } else { 0.0 };
        }
    }

    /// Extrapolates each velocity component into the faces that touch solid cells, `layers`
    /// deep: each layer gives the faces next to known ones (the fluid's faces, then the
    /// layers already filled) the mean of their known neighbours in the same component.
    /// Deeper faces keep their value. Advection then reads the fluid's own velocity next to
    /// an obstacle instead of the zeros the obstacle holds.
    pub fn extrapolate_faces(&self, d: Dims, vel: [&mut [f32]; 3], layers: usize) {
        for (axis, f) in vel.into_iter().enumerate() {
            let list = &self.faces[axis];
            if list.is_empty() {
                continue;
            }
            let fd = d.faces(axis);
            let mut known = vec![1u8; fd.cells()];
            for &i in list {
                known[i as usize] = 0;
            }
            let mut pending: Vec<u32> = list.clone();
            for _ in 0..layers {
                let mut filled = Vec::new();
                pending.retain(|&c| {
                    let [i, j, k] = unflatten(fd, c as usize);
                    let (mut sum, mut cnt) = (0.0f32, 0u32);
                    for q in neighbours(fd, [i, j, k]) {
                        let qi = fd.idx(q[0], q[1], q[2]);
                        if known[qi] != 0 {
                            sum += f[qi];
                            cnt += 1;
                        }
                    }
                    if cnt > 0 {
                        filled.push((c, sum / cnt as f32));
                        false
                    } else {
                        true
                    }
                });
                if filled.is_empty() {
                    break;
                }
                for (c, v) in filled {
                    f[c as usize] = v;
                    known[c as usize] = 1;
                }
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
        let n = d.as_array();
        let plane = d.nx * d.ny;
        let mut diag = vec![0.0f32; d.cells()];
        diag.par_chunks_mut(plane).enumerate().for_each(|(k, pl)| {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let p = [i, j, k];
                    if self.is_solid(d.idx(i, j, k)) {
                        continue;
                    }
                    let mut cnt = 0u32;
                    for axis in 0..3 {
                        for side in 0..2 {
                            let inside = if side == 0 {
                                p[axis] > 0
                            } else {
                                p[axis] + 1 < n[axis]
                            };
                            if inside {
                                let mut q = p;
                                if side == 0 {
                                    q[axis] -= 1;
                                } else {
                                    q[axis] += 1;
                                }
                                cnt += u32::from(!self.is_solid(d.idx(q[0], q[1], q[2])));
                            } else {
                                cnt += u32::from(b.face(axis, side).is_open());
                            }
                        }
                    }
                    pl[i + d.nx * j] = cnt as f32;
                }
            }
        });
        diag
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
