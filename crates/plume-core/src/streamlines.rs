//! Streamlines: curves everywhere tangent to the velocity, traced through a frame's
//! cell-centred velocity with fixed arc-length RK4 steps. They stop at the domain's edge, at
//! solid cells, where the flow stands still, and at the length asked for. The viewer draws
//! them over the slice and in the 3D view; `plume run --format vtp` writes them for ParaView.

use crate::frame::Frame;
pub use crate::frame::Line;
use crate::sim::Grid;

/// How streamlines are traced.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Trace {
    /// Arc length of one step, domain units.
    pub step: f32,
    /// Longest line, domain units.
    pub length: f32,
}

impl Trace {
    /// Steps of half a voxel, lines up to `length`.
    pub fn for_grid(grid: &Grid, length: f32) -> Self {
        Self {
            step: 0.5 * grid.h,
            length,
        }
    }
}

impl Line {
    /// Arc length: the sum of the segments.
    pub fn length(&self) -> f32 {
        self.points.windows(2).map(|w| norm(sub(w[1], w[0]))).sum()
    }
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn norm(a: [f32; 3]) -> f32 {
    (a[0] * a[0] + a[1] * a[1] + a[2] * a[2]).sqrt()
}

fn axpy(p: [f32; 3], s: f32, d: [f32; 3]) -> [f32; 3] {
    [p[0] + s * d[0], p[1] + s * d[1], p[2] + s * d[2]]
}

/// Slowest flow a line follows, domain-units/s: below it the direction means nothing.
pub const STILL: f32 = 1e-6;

/// Traces from `seed` along `velocity` (`None` outside the fluid) with fixed arc-length
/// RK4 steps of the unit direction. The line ends at `trace.length`, where the flow leaves
/// the fluid, or where it stands still.
pub fn trace(velocity: impl Fn([f32; 3]) -> Option<[f32; 3]>, seed: [f32; 3], t: Trace) -> Line {
    let mut line = Line::default();
    let dir = |p: [f32; 3]| -> Option<([f32; 3], f32)> {
        let v = velocity(p)?;
        let s = norm(v);
        (s > STILL).then(|| ([v[0] / s, v[1] / s, v[2] / s], s))
    };
    let Some((_, s0)) = dir(seed) else {
        return line;
    };
    line.points.push(seed);
    line.speed.push(s0);
    let steps = (t.length / t.step).floor() as usize;
    let h = t.step;
    let mut p = seed;
    for _ in 0..steps {
        let Some((k1, _)) = dir(p) else { break };
        let Some((k2, _)) = dir(axpy(p, 0.5 * h, k1)) else {
            break;
        };
        let Some((k3, _)) = dir(axpy(p, 0.5 * h, k2)) else {
            break;
        };
        let Some((k4, _)) = dir(axpy(p, h, k3)) else {
            break;
        };
        let d = [0, 1, 2].map(|a| (k1[a] + 2.0 * k2[a] + 2.0 * k3[a] + k4[a]) / 6.0);
        // The average of unit directions is a little shorter than one: renormalise so each
        // step covers exactly `step` of arc.
        let n = norm(d);
        if n <= 0.0 {
            break;
        }
        let next = axpy(p, h / n, d);
        let Some((_, s)) = dir(next) else { break };
        line.points.push(next);
        line.speed.push(s);
        p = next;
    }
    line
}

/// Trilinear sampling of a frame's cell-centred velocity at world position `p`: `None`
/// outside the domain or in a solid cell.
pub fn sampler(frame: &Frame) -> impl Fn([f32; 3]) -> Option<[f32; 3]> + '_ {
    let g = frame.grid;
    let d = g.dims;
    let n = d.as_array();
    let vel = frame.velocity.as_deref().unwrap_or(&[]);
    let solid = frame.solid.as_deref();
    move |p: [f32; 3]| {
        if vel.len() != d.cells() {
            return None;
        }
        let x = [0, 1, 2].map(|a| (p[a] - g.origin[a]) / g.h);
        if (0..3).any(|a| !(x[a] >= 0.0 && x[a] <= n[a] as f32)) {
            return None;
        }
        let cell = [0, 1, 2].map(|a| (x[a] as usize).min(n[a] - 1));
        if solid.is_some_and(|s| s[d.idx(cell[0], cell[1], cell[2])] != 0) {
            return None;
        }
        // Cell centres sit at i + 0.5; clamp to the outermost centres.
        let c = [0, 1, 2].map(|a| (x[a] - 0.5).clamp(0.0, (n[a] - 1) as f32));
        let i0 = c.map(|v| v.floor() as usize);
        let f = [0, 1, 2].map(|a| c[a] - i0[a] as f32);
        let i1 = [0, 1, 2].map(|a| (i0[a] + 1).min(n[a] - 1));
        let mut out = [0.0f32; 3];
        for (dz, wz) in [(i0[2], 1.0 - f[2]), (i1[2], f[2])] {
            for (dy, wy) in [(i0[1], 1.0 - f[1]), (i1[1], f[1])] {
                for (dx, wx) in [(i0[0], 1.0 - f[0]), (i1[0], f[0])] {
                    let w = wx * wy * wz;
                    let v = vel[d.idx(dx, dy, dz)];
                    for a in 0..3 {
                        out[a] += w * v[a];
                    }
                }
            }
        }
        Some(out)
    }
}

/// Seeds on the surface of each emitter's sphere or box (`centers` with a radius): `count`
/// points spread over the emitters by a golden-angle spiral around each centre.
pub fn seeds_around(centers: &[([f32; 3], f32)], count: usize) -> Vec<[f32; 3]> {
    if centers.is_empty() || count == 0 {
        return Vec::new();
    }
    let per = count.div_ceil(centers.len());
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    let mut out = Vec::with_capacity(per * centers.len());
    for &(c, r) in centers {
        for i in 0..per {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / per as f32;
            let rad = (1.0 - y * y).max(0.0).sqrt();
            let th = golden * i as f32;
            out.push([
                c[0] + r * rad * th.cos(),
                c[1] + r * y,
                c[2] + r * rad * th.sin(),
            ]);
        }
    }
    out.truncate(count);
    out
}

/// Seeds on a plane normal to `axis` at `position` (0..1 across the domain): an `n`×`n`
/// lattice over the plane's cell centres.
pub fn seeds_on_plane(grid: &Grid, axis: usize, position: f32, n: usize) -> Vec<[f32; 3]> {
    let e = grid.extent();
    let (u, v) = ((axis + 1) % 3, (axis + 2) % 3);
    let mut out = Vec::with_capacity(n * n);
    for j in 0..n {
        for i in 0..n {
            let mut p = [0.0; 3];
            p[axis] = grid.origin[axis] + position.clamp(0.0, 1.0) * e[axis];
            p[u] = grid.origin[u] + (i as f32 + 0.5) / n as f32 * e[u];
            p[v] = grid.origin[v] + (j as f32 + 0.5) / n as f32 * e[v];
            out.push(p);
        }
    }
    out
}

/// Streamlines of `frame` from each seed.
pub fn trace_all(frame: &Frame, seeds: &[[f32; 3]], t: Trace) -> Vec<Line> {
    use rayon::prelude::*;
    let v = sampler(frame);
    seeds
        .par_iter()
        .map(|&s| trace(&v, s, t))
        .filter(|l| l.points.len() > 1)
        .collect()
}

/// `count` streamlines of `frame` seeded around its emitters, up to `length` long, in steps
/// of half a voxel: what `plume render --streamlines` draws and `.vtp` files hold.
pub fn around_emitters(frame: &Frame, count: usize, length: f32) -> Vec<Line> {
    trace_all(
        frame,
        &seeds_around(&frame.emitters, count),
        Trace::for_grid(&frame.grid, length),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_a_solid_body_rotation_a_line_closes_on_itself() {
        let rot = |p: [f32; 3]| Some([-(p[1] - 0.5), p[0] - 0.5, 0.0]);
        let r = 0.3;
        let circumference = 2.0 * std::f32::consts::PI * r;
        let step = circumference / 200.0;
        let l = trace(
            rot,
            [0.5 + r, 0.5, 0.2],
            Trace {
                step,
                length: circumference,
            },
        );
        assert_eq!(l.points.len(), 201);
        let end = l.points[200];
        let gap = norm(sub(end, l.points[0]));
        assert!(gap < 1e-3 * r, "the circle does not close: gap {gap}");
        for p in &l.points {
            let rr = ((p[0] - 0.5).powi(2) + (p[1] - 0.5).powi(2)).sqrt();
            assert!((rr - r).abs() < 1e-4, "off the circle: {rr}");
            assert_eq!(p[2], 0.2);
        }
        // Speed |ω×r| = r.
        assert!(l.speed.iter().all(|s| (s - r).abs() < 1e-4));
    }

    #[test]
    fn in_uniform_flow_lines_are_straight_and_of_the_set_length() {
        let v = |_p: [f32; 3]| Some([0.0, 2.0, 0.0]);
        let l = trace(
            v,
            [0.1, 0.1, 0.1],
            Trace {
                step: 0.01,
                length: 0.5,
            },
        );
        assert!((l.length() - 0.5).abs() < 1e-4, "{}", l.length());
        assert!(l.points.iter().all(|p| p[0] == 0.1 && p[2] == 0.1));
        assert!(l.speed.iter().all(|s| *s == 2.0));
    }

    #[test]
    fn lines_stop_at_the_edge_of_the_fluid_and_where_the_flow_stands_still() {
        // The fluid ends at x = 0.3 (a wall, an obstacle or the domain's edge).
        let v = |p: [f32; 3]| (p[0] <= 0.3).then_some([1.0, 0.0, 0.0]);
        let l = trace(
            v,
            [0.0, 0.0, 0.0],
            Trace {
                step: 0.01,
                length: 5.0,
            },
        );
        let last = l.points.last().expect("points");
        assert!(last[0] <= 0.3 && last[0] > 0.28, "{last:?}");
        let still = |_p: [f32; 3]| Some([0.0, 0.0, 0.0]);
        assert!(trace(
            still,
            [0.0; 3],
            Trace {
                step: 0.01,
                length: 1.0
            }
        )
        .points
        .is_empty());
    }
}
