//! Which way is up in the written files. Plume simulates with y up, as Houdini and VTK
//! expect; Blender's up is z. `--up z` turns each frame a quarter turn about x before it is
//! written — (x, y, z) ↦ (x, −z, y), a proper rotation, so nothing is mirrored — and a plume
//! rises along Blender's Z.

use crate::frame::Frame;
use crate::sim::{Dims, Grid};

/// The axis the written volume's up direction lies along.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Up {
    /// As simulated: y up (Houdini, ParaView).
    #[default]
    Y,
    /// Turned for Blender: z up.
    Z,
}

impl Up {
    /// Parses `y` or `z`.
    pub fn parse(s: &str) -> Result<Up, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "y" => Ok(Up::Y),
            "z" => Ok(Up::Z),
            _ => Err(format!(
                "'{s}' is not an up axis: choose y (Houdini, ParaView) or z (Blender)"
            )),
        }
    }

    /// `"y"` or `"z"`.
    pub fn name(self) -> &'static str {
        match self {
            Up::Y => "y",
            Up::Z => "z",
        }
    }
}

/// A point or vector turned from y-up to z-up: (x, y, z) ↦ (x, −z, y).
pub fn y_to_z([x, y, z]: [f32; 3]) -> [f32; 3] {
    [x, -z, y]
}

/// A point or vector turned back from z-up to y-up: (x, y, z) ↦ (x, z, −y).
pub fn z_to_y([x, y, z]: [f32; 3]) -> [f32; 3] {
    [x, z, -y]
}

/// `f` on `grid`, its cell (i, j, k) holding cell `src(i, j, k)` of `f`, every field moved
/// with it and every vector (velocity, emitters, streamlines) turned by `turn`.
fn turned(
    f: &Frame,
    grid: Grid,
    src: impl Fn(usize, usize, usize) -> usize + Sync,
    turn: fn([f32; 3]) -> [f32; 3],
) -> Frame {
    let scalar = |v: &Option<Vec<f32>>| {
        v.as_ref()
            .map(|v| crate::frame::per_cell(&grid, |i, j, k| v[src(i, j, k)]))
    };
    let mut out = Frame::empty(grid, f.step, f.time);
    out.density = scalar(&f.density);
    out.temperature = scalar(&f.temperature);
    out.fuel = scalar(&f.fuel);
    out.flame = scalar(&f.flame);
    out.collision = scalar(&f.collision);
    out.pressure = scalar(&f.pressure);
    out.divergence = scalar(&f.divergence);
    out.velocity = f
        .velocity
        .as_ref()
        .map(|v| crate::frame::per_cell(&grid, |i, j, k| turn(v[src(i, j, k)])));
    out.solid = f
        .solid
        .as_ref()
        .map(|m| crate::frame::per_cell(&grid, |i, j, k| m[src(i, j, k)]));
    out.emitters = f.emitters.iter().map(|&(c, r)| (turn(c), r)).collect();
    out.streamlines = f.streamlines.as_ref().map(|ls| {
        ls.iter()
            .map(|l| crate::streamlines::Line {
                points: l.points.iter().map(|&p| turn(p)).collect(),
                speed: l.speed.clone(),
            })
            .collect()
    });
    out
}

/// The grid a frame on `g` is written on with z up: nx × nz × ny cells, placed so each cell
/// centre lands at its turned world position.
pub fn z_up_grid(g: Grid) -> Grid {
    let d = g.dims;
    let o = g.origin;
    // Cell (i', j', k') = (i, nz − 1 − k, j): its centre −(oz + (k + ½)h) = oy' + (j' + ½)h
    // with oy' = −(oz + nz·h); x is unchanged and z' takes y.
    Grid {
        dims: Dims::new(d.nx, d.nz, d.ny),
        h: g.h,
        origin: [o[0], -(o[2] + d.nz as f32 * g.h), o[1]],
    }
}

/// The frame turned so its up axis is z: the grid becomes nx × nz × ny cells, cell
/// (i, j, k) of the result holding cell (i, k, nz − 1 − j) of the input, every field moved
/// with it, vectors and streamlines turned, and the placement chosen so each cell centre
/// lands at its turned world position.
pub fn turn_z_up(f: &Frame) -> Frame {
    let d = f.grid.dims;
    // Index in the input of the cell that lands at (i', j', k').
    turned(
        f,
        z_up_grid(f.grid),
        |i, j, k| d.idx(i, k, d.nz - 1 - j),
        y_to_z,
    )
}

/// The inverse of [`turn_z_up`]: a frame read from z-up files turned back to y up,
/// (x, y, z) ↦ (x, z, −y), on the grid it was simulated on.
pub fn turn_y_up(f: &Frame) -> Frame {
    let g = f.grid;
    let d = g.dims;
    // The y-up grid is nx × nz × ny; its cell (i, j, k) went to (i, nz' − 1 − k, j) of the
    // turned one, where nz' = ny here is that grid's own nz.
    let nd = Dims::new(d.nx, d.nz, d.ny);
    let grid = Grid {
        dims: nd,
        h: g.h,
        origin: [g.origin[0], g.origin[2], -g.origin[1] - d.ny as f32 * g.h],
    };
    turned(f, grid, |i, j, k| d.idx(i, nd.nz - 1 - k, j), z_to_y)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_cell_centre_lands_at_its_turned_position() {
        let g = Grid::new(Dims::new(3, 4, 5), 2.0, [0.5, -1.0, 2.0]).expect("grid");
        let d = g.dims;
        let mut f = Frame::empty(g, 0, 0.0);
        f.density = Some((0..d.cells()).map(|c| c as f32).collect());
        f.velocity = Some((0..d.cells()).map(|c| [c as f32, 1.0, 2.0]).collect());
        let t = turn_z_up(&f);
        let td = t.grid.dims;
        assert_eq!((td.nx, td.ny, td.nz), (3, 5, 4));
        assert_eq!(t.grid.h, g.h);
        for k in 0..td.nz {
            for j in 0..td.ny {
                for i in 0..td.nx {
                    let c = t.density()[td.idx(i, j, k)] as usize;
                    let (si, sj, sk) = (c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny));
                    let want = y_to_z(g.cell_center(si, sj, sk));
                    let got = t.grid.cell_center(i, j, k);
                    for a in 0..3 {
                        assert!((want[a] - got[a]).abs() < 1e-5, "{want:?} vs {got:?}");
                    }
                    let v = t.velocity.as_ref().expect("velocity")[td.idx(i, j, k)];
                    assert_eq!(v, [c as f32, -2.0, 1.0]);
                }
            }
        }
    }

    #[test]
    fn turning_back_to_y_up_undoes_the_turn() {
        let g = Grid::new(Dims::new(3, 4, 5), 2.0, [0.5, -1.0, 2.0]).expect("grid");
        let d = g.dims;
        let mut f = Frame::empty(g, 0, 0.0);
        f.density = Some((0..d.cells()).map(|c| c as f32).collect());
        f.velocity = Some((0..d.cells()).map(|c| [c as f32, 1.0, -2.0]).collect());
        f.solid = Some((0..d.cells()).map(|c| (c % 3) as u8).collect());
        f.emitters = vec![([0.1, 0.2, 0.3], 0.5)];
        let back = turn_y_up(&turn_z_up(&f));
        assert_eq!(back.emitters, f.emitters);
        assert_eq!(back.grid.dims, d);
        for a in 0..3 {
            assert!(
                (back.grid.origin[a] - g.origin[a]).abs() < 1e-6,
                "{:?}",
                back.grid
            );
        }
        assert_eq!(back.density, f.density);
        assert_eq!(back.velocity, f.velocity);
        assert_eq!(back.solid, f.solid);
    }
}
