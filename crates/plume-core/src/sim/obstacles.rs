//! Solid cells from obstacles: the mask and what the solver derives from it (faces to hold at
//! zero, cells to clear, the border to extrapolate into, the pressure operator's diagonal).

use super::boundary::Boundaries;
use super::grid::{Dims, Grid};
use super::sources::Obstacle;
use super::SimError;
use rayon::prelude::*;

/// The solid cells of a grid. Empty (no allocation beyond the struct) when nothing is solid.
#[derive(Clone, Debug, Default)]
pub struct Solids {
    /// 1 for a solid cell, 0 for fluid; empty when no cell is solid.
    pub mask: Vec<u8>,
    /// Indices of the solid cells.
    pub cells: Vec<u32>,
    /// Per axis, indices of the faces (in that axis's face array) that touch a solid cell.
    pub faces: [Vec<u32>; 3],
    /// Solid cells with at least one fluid neighbour.
    pub border: Vec<u32>,
}

impl Solids {
    /// Rasterises the obstacles: a cell is solid when its centre lies inside one.
    pub fn build(grid: &Grid, obstacles: &[Obstacle]) -> Result<Self, SimError> {
        let shapes = obstacles
            .iter()
            .map(Obstacle::shape)
            .collect::<Result<Vec<_>, _>>()?;
        let d = grid.dims;
        if shapes.is_empty() {
            return Ok(Self::default());
        }
        let plane = d.nx * d.ny;
        let mut mask = vec![0u8; d.cells()];
        mask.par_chunks_mut(plane).enumerate().for_each(|(k, pl)| {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let c = grid.cell_center(i, j, k);
                    if shapes.iter().any(|s| s.contains(c)) {
                        pl[i + d.nx * j] = 1;
                    }
                }
            }
        });
        let cells: Vec<u32> = (0..mask.len())
            .filter(|&c| mask[c] != 0)
            .map(|c| c as u32)
            .collect();
        if cells.is_empty() {
            return Ok(Self::default());
        }
        let solid = |i: usize, j: usize, k: usize| mask[d.idx(i, j, k)] != 0;
        let mut faces: [Vec<u32>; 3] = Default::default();
        let n = d.as_array();
        for (axis, list) in faces.iter_mut().enumerate() {
            let fd = d.faces(axis);
            for k in 0..fd.nz {
                for j in 0..fd.ny {
                    for i in 0..fd.nx {
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
        Ok(Self {
            mask,
            cells,
            faces,
            border,
        })
    }

    /// `true` when no cell is solid.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// `true` when cell index `c` is solid.
    pub fn is_solid(&self, c: usize) -> bool {
        !self.mask.is_empty() && self.mask[c] != 0
    }

    /// Sets the normal velocity of every face touching a solid cell to zero (static solids).
    pub fn zero_faces(&self, vel: [&mut [f32]; 3]) {
        for (f, list) in vel.into_iter().zip(&self.faces) {
            for &i in list {
                f[i as usize] = 0.0;
            }
        }
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
