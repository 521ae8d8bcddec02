//! One owned frame of a simulation's fields: what the viewer uploads, the slice view reads and
//! every exporter writes. A simulation backend hands frames out through
//! [`crate::sim::Simulation::frame`]; nothing downstream reads a solver directly.

use crate::sim::Grid;
use rayon::prelude::*;

/// Which fields a frame carries. Copying only what a consumer reads keeps recording cheap.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Select {
    /// Smoke density.
    pub density: bool,
    /// Temperature.
    pub temperature: bool,
    /// Fuel.
    pub fuel: bool,
    /// Flame.
    pub flame: bool,
    /// Velocity at cell centres.
    pub velocity: bool,
    /// Pressure of the last projection.
    pub pressure: bool,
    /// ∇·u of the current velocity, 1/s.
    pub divergence: bool,
    /// Solid cells.
    pub solid: bool,
}

impl Select {
    /// Every field (the viewer's choice: the slice view can show any of them).
    pub const ALL: Select = Select {
        density: true,
        temperature: true,
        fuel: true,
        flame: true,
        velocity: true,
        pressure: true,
        divergence: true,
        solid: true,
    };
}

/// The fields of one simulation state, x-fastest (`index = x + nx·(y + ny·z)`), one value
/// per cell. A field the [`Select`] left out is `None`.
#[derive(Clone, Debug)]
pub struct Frame {
    /// Cell counts, voxel size and placement.
    pub grid: Grid,
    /// Steps taken when the frame was captured.
    pub step: u64,
    /// Simulated time then, s.
    pub time: f64,
    /// Smoke density.
    pub density: Option<Vec<f32>>,
    /// Temperature (absolute, in the scene's units).
    pub temperature: Option<Vec<f32>>,
    /// Fuel (all zero while nothing burns).
    pub fuel: Option<Vec<f32>>,
    /// Flame (all zero while nothing burns).
    pub flame: Option<Vec<f32>>,
    /// Velocity at cell centres, domain-units/s.
    pub velocity: Option<Vec<[f32; 3]>>,
    /// Pressure of the last projection.
    pub pressure: Option<Vec<f32>>,
    /// ∇·u, 1/s.
    pub divergence: Option<Vec<f32>>,
    /// Solid cells, 1 = solid (`None` also when the scene has no obstacles).
    pub solid: Option<Vec<u8>>,
    /// The solid cells as a scalar field for export (1 solid, 0 fluid), named `collision`;
    /// filled by `export::capture` when the export asks for it.
    pub collision: Option<Vec<f32>>,
    /// Each emitter's centre and radius (half its longest edge for a box): where streamlines
    /// are seeded.
    pub emitters: Vec<([f32; 3], f32)>,
    /// Streamlines traced through the velocity, when an exporter asked for them.
    pub streamlines: Option<Vec<Line>>,
}

/// One streamline (traced by [`crate::streamlines`], which also measures it): its points
/// (world coordinates) and the speed at each.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// Points along the line, `step` apart along it.
    pub points: Vec<[f32; 3]>,
    /// |u| at each point, domain-units/s.
    pub speed: Vec<f32>,
}

impl Frame {
    /// A frame of `grid` at `step` and `time` that carries no field yet.
    pub fn empty(grid: Grid, step: u64, time: f64) -> Self {
        Self {
            grid,
            step,
            time,
            density: None,
            temperature: None,
            fuel: None,
            flame: None,
            velocity: None,
            pressure: None,
            divergence: None,
            solid: None,
            collision: None,
            emitters: Vec::new(),
            streamlines: None,
        }
    }

    /// The density, or an empty slice when the frame does not carry it.
    pub fn density(&self) -> &[f32] {
        self.density.as_deref().unwrap_or(&[])
    }

    /// The scalar fields the frame carries that exporters write, in the order they are
    /// written: density, temperature, flame, fuel.
    pub fn scalars(&self) -> Vec<(&'static str, &[f32])> {
        [
            ("density", &self.density),
            ("temperature", &self.temperature),
            ("flame", &self.flame),
            ("fuel", &self.fuel),
            ("collision", &self.collision),
        ]
        .into_iter()
        .filter_map(|(n, f)| f.as_deref().map(|f| (n, f)))
        .collect()
    }

    /// Speed |u| of one cell, 0 when the frame carries no velocity.
    pub fn speed(&self, idx: usize) -> f32 {
        self.velocity
            .as_ref()
            .and_then(|v| v.get(idx))
            .map_or(0.0, |v| (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt())
    }
}

/// Fills one value per cell from `at(i, j, k)`, a z-plane per task.
pub fn per_cell<T: Send + Copy + Default>(
    grid: &Grid,
    at: impl Fn(usize, usize, usize) -> T + Sync,
) -> Vec<T> {
    let d = grid.dims;
    let mut out = vec![T::default(); d.cells()];
    out.par_chunks_mut(d.nx * d.ny)
        .enumerate()
        .for_each(|(k, plane)| {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    plane[i + d.nx * j] = at(i, j, k);
                }
            }
        });
    out
}

/// The fraction of cells of `density` above `threshold` (how much of the box is smoky: a
/// plume fills a small part, a box of fog all of it).
pub fn fraction_above(density: &[f32], threshold: f32) -> f64 {
    let n: usize = density
        .par_chunks(4096)
        .map(|c| c.iter().filter(|&&x| x > threshold).count())
        .sum();
    n as f64 / density.len().max(1) as f64
}

/// The density-weighted centroid of `density` on `grid` in world coordinates, or `None`
/// when there is no smoke.
pub fn density_centroid(grid: &Grid, density: &[f32]) -> Option<[f64; 3]> {
    let d = grid.dims;
    let parts: Vec<[f64; 4]> = density
        .par_chunks(d.nx * d.ny)
        .enumerate()
        .map(|(k, pl)| {
            let mut s = [0.0f64; 4];
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let m = pl[i + d.nx * j] as f64;
                    s[0] += m * i as f64;
                    s[1] += m * j as f64;
                    s[2] += m * k as f64;
                    s[3] += m;
                }
            }
            s
        })
        .collect();
    let mut t = [0.0f64; 4];
    for p in parts {
        for a in 0..4 {
            t[a] += p[a];
        }
    }
    if t[3] <= 0.0 {
        return None;
    }
    Some([0, 1, 2].map(|a| grid.origin[a] as f64 + (t[a] / t[3] + 0.5) * grid.h as f64))
}

/// The velocity at the cells' centres (each component the mean of the cell's two faces along
/// it) from the three face arrays of `grid`: what every backend's frame holds.
pub fn cell_velocity(grid: &Grid, faces: [&[f32]; 3]) -> Vec<[f32; 3]> {
    let d = grid.dims;
    let (nx, ny) = (d.nx, d.ny);
    let mut out = vec![[0.0f32; 3]; d.cells()];
    // Row by row over slices (no index arithmetic per cell): a 128³ frame's velocity in a
    // few milliseconds, as Python's `sim.velocity` reads it.
    out.par_chunks_mut(nx * ny)
        .enumerate()
        .for_each(|(k, plane)| {
            for (j, row) in plane.chunks_mut(nx).enumerate() {
                let u = &faces[0][(nx + 1) * (j + ny * k)..][..nx + 1];
                let v0 = &faces[1][nx * (j + (ny + 1) * k)..][..nx];
                let v1 = &faces[1][nx * (j + 1 + (ny + 1) * k)..][..nx];
                let w0 = &faces[2][nx * (j + ny * k)..][..nx];
                let w1 = &faces[2][nx * (j + ny * (k + 1))..][..nx];
                for (i, c) in row.iter_mut().enumerate() {
                    *c = [
                        0.5 * (u[i] + u[i + 1]),
                        0.5 * (v0[i] + v1[i]),
                        0.5 * (w0[i] + w1[i]),
                    ];
                }
            }
        });
    out
}

/// ∇·u of every cell (1/s) from the three face arrays of `grid`.
pub fn divergence(grid: &Grid, faces: [&[f32]; 3]) -> Vec<f32> {
    let d = grid.dims;
    let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
    let inv_h = 1.0 / grid.h;
    per_cell(grid, |i, j, k| {
        (faces[0][du.idx(i + 1, j, k)] - faces[0][du.idx(i, j, k)] + faces[1][dv.idx(i, j + 1, k)]
            - faces[1][dv.idx(i, j, k)]
            + faces[2][dw.idx(i, j, k + 1)]
            - faces[2][dw.idx(i, j, k)])
            * inv_h
    })
}

/// Where a frame marks the emitters: each one's centre and radius (half a box's largest
/// side).
pub fn emitter_marks(emitters: &[crate::sim::Emitter]) -> Vec<([f32; 3], f32)> {
    emitters
        .iter()
        .map(|e| {
            let r = e
                .radius
                .or(e.size.map(|s| 0.5 * s[0].max(s[1]).max(s[2])))
                .unwrap_or(0.0);
            (e.center, r)
        })
        .collect()
}
