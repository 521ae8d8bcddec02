//! The 2D slice view: extracting one plane of a field, colour maps, legends and velocity
//! arrows. Pure data, tested without a window.

use crate::frame::Frame;
use crate::sim::Dims;

/// Slice view settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SliceSettings {
    /// Shown or not.
    pub visible: bool,
    /// Normal axis.
    pub axis: SliceAxis,
    /// Position along the axis, 0..1.
    pub position: f32,
    /// Field.
    pub field: SliceField,
    /// Colour map.
    pub colormap: ColorMap,
    /// Velocity arrows over the slice.
    pub arrows: bool,
    /// Cells between arrows.
    pub arrow_stride: usize,
    /// Streamlines of the in-plane velocity over the slice.
    pub streamlines: bool,
    /// Cells between their seeds.
    pub stream_spacing: usize,
    /// Their longest length, cells.
    pub stream_length: f32,
}

impl Default for SliceSettings {
    fn default() -> Self {
        Self {
            visible: false,
            axis: SliceAxis::Z,
            position: 0.5,
            field: SliceField::Density,
            colormap: ColorMap::Viridis,
            arrows: true,
            arrow_stride: 4,
            streamlines: false,
            stream_spacing: 4,
            stream_length: 24.0,
        }
    }
}

impl SliceSettings {
    /// The plane index for a grid with `n` cells along the slice axis.
    pub fn index(&self, dims: Dims) -> usize {
        let n = dims.as_array()[self.axis.index()];
        ((self.position.clamp(0.0, 1.0) * n as f32) as usize).min(n - 1)
    }
}

/// Axis normal to the slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SliceAxis {
    /// A y–z plane.
    X,
    /// An x–z plane.
    Y,
    /// An x–y plane (default: looking at the plume from the front).
    #[default]
    Z,
}

impl SliceAxis {
    /// 0, 1 or 2.
    pub fn index(self) -> usize {
        match self {
            SliceAxis::X => 0,
            SliceAxis::Y => 1,
            SliceAxis::Z => 2,
        }
    }
    /// The (horizontal, vertical) axes of the image: right and up.
    pub fn image_axes(self) -> (usize, usize) {
        match self {
            SliceAxis::X => (2, 1),
            SliceAxis::Y => (0, 2),
            SliceAxis::Z => (0, 1),
        }
    }
}

/// Field shown in the slice.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum SliceField {
    /// Smoke density.
    #[default]
    Density,
    /// Temperature.
    Temperature,
    /// Flame.
    Flame,
    /// Fuel.
    Fuel,
    /// |u| at cell centres, domain-units/s.
    Speed,
    /// Kinematic pressure.
    Pressure,
    /// ∇·u, 1/s.
    Divergence,
}

impl SliceField {
    /// Every field, in the order the panel lists them.
    pub const ALL: [SliceField; 7] = [
        SliceField::Density,
        SliceField::Temperature,
        SliceField::Flame,
        SliceField::Fuel,
        SliceField::Speed,
        SliceField::Pressure,
        SliceField::Divergence,
    ];

    /// The colour map that suits the field: heat and flame in fire colours, signed fields
    /// diverging, the rest viridis.
    pub fn fitting_map(self) -> ColorMap {
        match self {
            SliceField::Temperature => ColorMap::Inferno,
            SliceField::Flame => ColorMap::Blackbody,
            SliceField::Pressure | SliceField::Divergence => ColorMap::CoolWarm,
            SliceField::Density | SliceField::Fuel | SliceField::Speed => ColorMap::Viridis,
        }
    }

    /// Signed fields get a symmetric range and a diverging colour map by default.
    pub fn signed(self) -> bool {
        matches!(self, SliceField::Pressure | SliceField::Divergence)
    }
    /// Label with unit.
    pub fn label(self) -> &'static str {
        match self {
            SliceField::Density => "density",
            SliceField::Temperature => "temperature",
            SliceField::Flame => "flame",
            SliceField::Fuel => "fuel",
            SliceField::Speed => "speed (units/s)",
            SliceField::Pressure => "pressure (units²/s²)",
            SliceField::Divergence => "divergence (1/s)",
        }
    }
}

/// A colour map.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ColorMap {
    /// Perceptually ordered dark blue → green → yellow.
    #[default]
    Viridis,
    /// Black → red → yellow.
    Inferno,
    /// Black → white.
    Grey,
    /// Blue → white → red, for signed fields.
    CoolWarm,
    /// Black → deep red → orange → pale yellow, the colours of glowing matter (flame).
    Blackbody,
}

impl ColorMap {
    /// Every map, in the order the panel lists them.
    pub const ALL: [ColorMap; 5] = [
        ColorMap::Viridis,
        ColorMap::Inferno,
        ColorMap::Grey,
        ColorMap::CoolWarm,
        ColorMap::Blackbody,
    ];

    fn stops(self) -> &'static [[f32; 3]] {
        match self {
            ColorMap::Viridis => &[
                [0.267, 0.005, 0.329],
                [0.229, 0.322, 0.546],
                [0.128, 0.567, 0.551],
                [0.369, 0.789, 0.383],
                [0.993, 0.906, 0.144],
            ],
            ColorMap::Inferno => &[
                [0.001, 0.000, 0.014],
                [0.341, 0.062, 0.429],
                [0.735, 0.216, 0.330],
                [0.978, 0.557, 0.035],
                [0.988, 0.998, 0.645],
            ],
            ColorMap::Grey => &[[0.0, 0.0, 0.0], [1.0, 1.0, 1.0]],
            ColorMap::Blackbody => &[
                [0.0, 0.0, 0.0],
                [0.45, 0.04, 0.0],
                [0.85, 0.28, 0.02],
                [1.0, 0.62, 0.18],
                [1.0, 0.93, 0.72],
            ],
            ColorMap::CoolWarm => &[
                [0.230, 0.299, 0.754],
                [0.865, 0.865, 0.865],
                [0.706, 0.016, 0.150],
            ],
        }
    }

    /// Colour of `t` in [0, 1] (clamped; NaN shows as magenta so it cannot hide).
    pub fn color(self, t: f32) -> [u8; 3] {
        if t.is_nan() {
            return [255, 0, 255];
        }
        let s = self.stops();
        let x = t.clamp(0.0, 1.0) * (s.len() - 1) as f32;
        let i = (x as usize).min(s.len() - 2);
        let f = x - i as f32;
        [0, 1, 2].map(|c| ((s[i][c] + f * (s[i + 1][c] - s[i][c])) * 255.0).round() as u8)
    }
}

/// One plane of a field, as an image: `values[x + width·y]` with y = 0 at the top.
#[derive(Clone, Debug, PartialEq)]
pub struct Slice {
    /// Pixels across (cells along the horizontal axis).
    pub width: usize,
    /// Pixels down.
    pub height: usize,
    /// Values, top row first.
    pub values: Vec<f32>,
    /// Grid axes shown (horizontal, vertical).
    pub axes: (usize, usize),
}

impl Slice {
    /// Value at image pixel (x, y), y from the top.
    pub fn at(&self, x: usize, y: usize) -> f32 {
        self.values[x + self.width * y]
    }
    /// The grid cell behind image pixel (x, y) of a slice at `index` along `axis`.
    pub fn cell(&self, axis: SliceAxis, index: usize, x: usize, y: usize) -> [usize; 3] {
        let mut c = [0; 3];
        c[axis.index()] = index;
        c[self.axes.0] = x;
        c[self.axes.1] = self.height - 1 - y;
        c
    }
}

/// The value of `field` in cell `idx` of a frame (0 where the frame lacks the field).
fn value(f: &Frame, field: SliceField, idx: usize) -> f32 {
    let at = |v: &Option<Vec<f32>>| v.as_ref().and_then(|v| v.get(idx)).copied();
    match field {
        SliceField::Density => at(&f.density),
        SliceField::Temperature => at(&f.temperature),
        SliceField::Flame => at(&f.flame),
        SliceField::Fuel => at(&f.fuel),
        SliceField::Pressure => at(&f.pressure),
        SliceField::Speed => Some(f.speed(idx)),
        SliceField::Divergence => at(&f.divergence),
    }
    .unwrap_or(0.0)
}

/// Extracts the plane `index` (clamped to the grid) normal to `axis`.
pub fn extract(f: &Frame, axis: SliceAxis, index: usize, field: SliceField) -> Slice {
    let d = f.grid.dims;
    let n = d.as_array();
    let index = index.min(n[axis.index()] - 1);
    let (ha, va) = axis.image_axes();
    let (w, h) = (n[ha], n[va]);
    let mut values = Vec::with_capacity(w * h);
    for y in 0..h {
        for x in 0..w {
            let mut c = [0; 3];
            c[axis.index()] = index;
            c[ha] = x;
            c[va] = h - 1 - y;
            values.push(value(f, field, d.idx(c[0], c[1], c[2])));
        }
    }
    Slice {
        width: w,
        height: h,
        values,
        axes: (ha, va),
    }
}

/// The colour range for a slice: [0, max] for positive fields, [−m, m] for signed ones.
/// Never empty (a constant zero slice gets [0, 1] or [−1, 1]).
pub fn value_range(s: &Slice, signed: bool) -> (f32, f32) {
    let finite = s.values.iter().copied().filter(|v| v.is_finite());
    if signed {
        let m = finite.fold(0.0f32, |m, v| m.max(v.abs()));
        let m = if m > 0.0 { m } else { 1.0 };
        (-m, m)
    } else {
        let (lo, hi) = finite.fold((f32::INFINITY, f32::NEG_INFINITY), |(a, b), v| {
            (a.min(v), b.max(v))
        });
        let lo = if lo.is_finite() { lo.min(0.0) } else { 0.0 };
        let hi = if hi.is_finite() && hi > lo {
            hi
        } else {
            lo + 1.0
        };
        (lo, hi)
    }
}

/// RGBA pixels of the slice, top row first.
pub fn colorize(s: &Slice, range: (f32, f32), map: ColorMap) -> Vec<[u8; 4]> {
    let span = range.1 - range.0;
    s.values
        .iter()
        .map(|&v| {
            let [r, g, b] = map.color((v - range.0) / span);
            [r, g, b, 255]
        })
        .collect()
}

/// In-plane velocity arrows every `stride` cells: (image x, image y of the cell centre in
/// pixels from the top-left, velocity along image right, velocity along image up).
pub fn arrows(f: &Frame, axis: SliceAxis, index: usize, stride: usize) -> Vec<[f32; 4]> {
    let d = f.grid.dims;
    let n = d.as_array();
    let index = index.min(n[axis.index()] - 1);
    let (ha, va) = axis.image_axes();
    let (w, h) = (n[ha], n[va]);
    let Some(vel) = &f.velocity else {
        return Vec::new();
    };
    let stride = stride.max(1);
    let mut out = Vec::new();
    for y in (stride / 2..h).step_by(stride) {
        for x in (stride / 2..w).step_by(stride) {
            let mut c = [0; 3];
            c[axis.index()] = index;
            c[ha] = x;
            c[va] = h - 1 - y;
            let v = vel[d.idx(c[0], c[1], c[2])];
            out.push([x as f32 + 0.5, y as f32 + 0.5, v[ha], v[va]]);
        }
    }
    out
}

/// Streamlines of the in-plane velocity on the slice `index` normal to `axis`, seeded every
/// `spacing` cells, each up to `length` cells long: per line, its points in image pixels (as
/// [`arrows`] places them, y down) and the in-plane speed at each.
pub fn streamlines(
    f: &Frame,
    axis: SliceAxis,
    index: usize,
    spacing: usize,
    length: f32,
) -> Vec<(Vec<[f32; 2]>, Vec<f32>)> {
    use crate::streamlines::{sampler, trace, Trace};
    let g = f.grid;
    let n = g.dims.as_array();
    let a = axis.index();
    let index = index.min(n[a] - 1);
    let (ha, va) = axis.image_axes();
    let (w, h) = (n[ha], n[va]);
    let plane = g.origin[a] + (index as f32 + 0.5) * g.h;
    let full = sampler(f);
    // The flow within the plane: the normal component dropped, the point held on the plane.
    let inplane = |p: [f32; 3]| {
        let mut q = p;
        q[a] = plane;
        full(q).map(|mut v| {
            v[a] = 0.0;
            v
        })
    };
    let t = Trace {
        step: 0.5 * g.h,
        length: length * g.h,
    };
    let spacing = spacing.max(1);
    let mut out = Vec::new();
    for y in (spacing / 2..h).step_by(spacing) {
        for x in (spacing / 2..w).step_by(spacing) {
            let mut seed = [0.0; 3];
            seed[a] = plane;
            seed[ha] = g.origin[ha] + (x as f32 + 0.5) * g.h;
            seed[va] = g.origin[va] + ((h - 1 - y) as f32 + 0.5) * g.h;
            let line = trace(inplane, seed, t);
            if line.points.len() < 2 {
                continue;
            }
            let px = line
                .points
                .iter()
                .map(|p| {
                    [
                        (p[ha] - g.origin[ha]) / g.h,
                        h as f32 - (p[va] - g.origin[va]) / g.h,
                    ]
                })
                .collect();
            out.push((px, line.speed));
        }
    }
    out
}

/// The four edges of the slice plane in world space.
pub(crate) fn outline(
    bx: &crate::render::volume::VolumeBox,
    dims: crate::sim::Dims,
    s: &SliceSettings,
) -> Vec<[f32; 3]> {
    let a = s.axis.index();
    let at = bx.min[a] + (s.index(dims) as f32 + 0.5) * bx.h;
    let (u, v) = s.axis.image_axes();
    let corner = |cu: f32, cv: f32| {
        let mut p = [0.0; 3];
        p[a] = at;
        p[u] = cu;
        p[v] = cv;
        p
    };
    let c = [
        corner(bx.min[u], bx.min[v]),
        corner(bx.max[u], bx.min[v]),
        corner(bx.max[u], bx.max[v]),
        corner(bx.min[u], bx.max[v]),
    ];
    vec![c[0], c[1], c[1], c[2], c[2], c[3], c[3], c[0]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slice_position_maps_to_a_plane_index() {
        let mut s = SliceSettings::default();
        let d = Dims::new(10, 20, 40);
        s.position = 0.5;
        assert_eq!(s.index(d), 20);
        s.position = 1.0;
        assert_eq!(s.index(d), 39);
        s.axis = SliceAxis::X;
        s.position = 0.0;
        assert_eq!(s.index(d), 0);
    }

    fn frame_fixture(d: Dims) -> Frame {
        let density: Vec<f32> = (0..d.cells()).map(|i| i as f32).collect();
        let pressure: Vec<f32> = (0..d.cells()).map(|i| -(i as f32)).collect();
        Frame {
            temperature: Some(density.clone()),
            density: Some(density),
            pressure: Some(pressure),
            velocity: Some(vec![[0.0; 3]; d.cells()]),
            ..Frame::empty(
                crate::sim::Grid {
                    dims: d,
                    h: 0.25,
                    origin: [0.0; 3],
                },
                0,
                0.0,
            )
        }
    }

    #[test]
    fn z_slice_is_the_xy_plane_with_y_up() {
        let d = Dims::new(4, 3, 2);
        let f = frame_fixture(d);
        let den = f.density.clone().expect("density");
        let p = f.pressure.clone().expect("pressure");
        let s = extract(&f, SliceAxis::Z, 1, SliceField::Density);
        assert_eq!((s.width, s.height), (4, 3));
        // Top-left pixel is x = 0, y = ny−1.
        assert_eq!(s.at(0, 0), den[d.idx(0, 2, 1)]);
        assert_eq!(s.at(3, 2), den[d.idx(3, 0, 1)]);
        assert_eq!(s.cell(SliceAxis::Z, 1, 3, 2), [3, 0, 1]);
        let s = extract(&f, SliceAxis::X, 2, SliceField::Pressure);
        assert_eq!((s.width, s.height), (2, 3));
        assert_eq!(s.at(1, 0), p[d.idx(2, 2, 1)]);
        let s = extract(&f, SliceAxis::Y, 99, SliceField::Density);
        assert_eq!((s.width, s.height), (4, 2));
        assert_eq!(
            s.at(0, 0),
            den[d.idx(0, 2, 1)],
            "index clamps to the last plane"
        );
    }

    #[test]
    fn speed_and_divergence_come_from_the_solvers_face_velocities() {
        use crate::sim::{Simulation, Solver};
        let d = Dims::cube(3);
        let mut s = Solver::cube(3).expect("solver");
        // u_face(i) = i: every cell's faces differ by 1, so the divergence is 1/h = 3.
        let du = d.faces(0);
        let [u, _, _] = s.velocity_mut();
        for k in 0..3 {
            for j in 0..3 {
                for i in 0..4 {
                    u[du.idx(i, j, k)] = i as f32;
                }
            }
        }
        let f = s.frame(crate::frame::Select::ALL);
        let div = extract(&f, SliceAxis::Z, 1, SliceField::Divergence);
        assert!(
            div.values.iter().all(|&v| (v - 3.0).abs() < 1e-5),
            "{:?}",
            div.values
        );
        let speed = extract(&f, SliceAxis::Z, 1, SliceField::Speed);
        assert_eq!(speed.at(0, 0), 0.5);
        assert_eq!(speed.at(2, 0), 2.5);
        let arr = arrows(&f, SliceAxis::Z, 1, 1);
        assert_eq!(arr.len(), 9);
        assert_eq!(arr[0], [0.5, 0.5, 0.5, 0.0]);
    }

    #[test]
    fn slice_streamlines_of_a_rotation_are_circles_in_image_space() {
        use crate::sim::Grid;
        let d = Dims::new(32, 32, 4);
        let g = Grid::unit(d).expect("grid");
        // Rotation about the z axis through the slice's centre, in world units.
        let vel = (0..d.cells())
            .map(|idx| {
                let (i, j) = (idx % 32, (idx / 32) % 32);
                let (x, y) = ((i as f32 + 0.5) * g.h - 0.5, (j as f32 + 0.5) * g.h - 0.5);
                [-y, x, 5.0]
            })
            .collect();
        let f = Frame {
            velocity: Some(vel),
            ..Frame::empty(g, 0, 0.0)
        };
        let lines = streamlines(&f, SliceAxis::Z, 2, 8, 40.0);
        assert_eq!(lines.len(), 16, "one line per seed on a 4×4 lattice");
        for (pts, speed) in &lines {
            assert_eq!(pts.len(), speed.len());
            let r = |p: [f32; 2]| ((p[0] - 16.0).powi(2) + (p[1] - 16.0).powi(2)).sqrt();
            let r0 = r(pts[0]);
            for p in pts {
                // Trilinear interpolation of a linear field is exact: the radius holds.
                assert!((r(*p) - r0).abs() < 0.05 * r0.max(1.0), "{r0} vs {}", r(*p));
            }
        }
    }

    #[test]
    fn colour_maps_span_their_range_and_flag_nan() {
        for m in ColorMap::ALL {
            assert_ne!(m.color(0.0), m.color(1.0));
            assert_eq!(m.color(-5.0), m.color(0.0));
            assert_eq!(m.color(5.0), m.color(1.0));
            assert_eq!(m.color(f32::NAN), [255, 0, 255]);
        }
        assert_eq!(ColorMap::Grey.color(0.0), [0, 0, 0]);
        assert_eq!(ColorMap::Grey.color(1.0), [255, 255, 255]);
        assert_eq!(ColorMap::Grey.color(0.5), [128, 128, 128]);
        let s = Slice {
            width: 2,
            height: 1,
            values: vec![0.0, 4.0],
            axes: (0, 1),
        };
        let r = value_range(&s, false);
        assert_eq!(r, (0.0, 4.0));
        let px = colorize(&s, r, ColorMap::Grey);
        assert_eq!(px, vec![[0, 0, 0, 255], [255, 255, 255, 255]]);
        let signed = Slice {
            values: vec![-1.0, 3.0],
            ..s.clone()
        };
        assert_eq!(value_range(&signed, true), (-3.0, 3.0));
        let zero = Slice {
            values: vec![0.0, 0.0],
            ..s
        };
        assert_eq!(value_range(&zero, false), (0.0, 1.0));
        assert_eq!(value_range(&zero, true), (-1.0, 1.0));
    }
}
