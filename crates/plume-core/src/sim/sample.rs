//! Sampling on the staggered grid: trilinear interpolation of one array, the velocity at any
//! point, second-order (RK2) traces, and where a trace meets the domain's faces and solids.
//!
//! Positions are in "cell-index space": world position = origin + X·h, so the centre of
//! cell i is at X = i + 0.5 and the x-face i (between cells i−1 and i) at X = i.

use super::grid::Dims;
use rayon::prelude::*;

mod window;

/// Where a field's samples sit inside a cell, in cells: (0.5,0.5,0.5) for cell centres,
/// (0,0.5,0.5) for x-faces, and so on.
pub type Stagger = [f32; 3];

/// Stagger of cell-centred scalars.
pub const CENTER: Stagger = [0.5, 0.5, 0.5];
/// Stagger of the face-velocity component along `axis`.
pub const fn face_stagger(axis: usize) -> Stagger {
    match axis {
        0 => [0.0, 0.5, 0.5],
        1 => [0.5, 0.0, 0.5],
        _ => [0.5, 0.5, 0.0],
    }
}

/// Trilinear interpolation in one x-fastest array. Coordinates are clamped to the array
/// first, so a sample never reads outside it (the field is extended with its edge values);
/// a NaN coordinate is treated as the lower bound.
#[derive(Clone, Copy)]
pub struct Sampler<'a> {
    f: &'a [f32],
    d: Dims,
    hi: [f32; 3],
}

impl<'a> Sampler<'a> {
    /// A sampler over `f` with dimensions `d`.
    pub fn new(f: &'a [f32], d: Dims) -> Self {
        assert_eq!(
            f.len(),
            d.cells(),
            "field length does not match its dimensions"
        );
        assert!(d.nx > 0 && d.ny > 0 && d.nz > 0);
        Self {
            f,
            d,
            hi: [(d.nx - 1) as f32, (d.ny - 1) as f32, (d.nz - 1) as f32],
        }
    }

    /// Where array coordinates `p` fall: clamped to the array (neighbours past the last
    /// sample repeat it), the index of the sample below, the offsets to its neighbours and p's
    /// fractional position between them.
    #[inline(always)]
    pub fn locate(&self, p: [f32; 3]) -> Loc {
        // A comparison with NaN is false, so NaN maps to the lower bound (and these compile to
        // single min/max instructions, unlike `f32::max`).
        let clamp = |x: f32, hi: f32| {
            let x = if x > 0.0 { x } else { 0.0 };
            if x < hi {
                x
            } else {
                hi
            }
        };
        let cx = clamp(p[0], self.hi[0]);
        let cy = clamp(p[1], self.hi[1]);
        let cz = clamp(p[2], self.hi[2]);
        // The coordinates are ≥ 0, so truncation equals floor.
        let i0 = cx as i32 as usize;
        let j0 = cy as i32 as usize;
        let k0 = cz as i32 as usize;
        self.loc(
            [i0, j0, k0],
            [cx - i0 as f32, cy - j0 as f32, cz - k0 as f32],
        )
    }

    /// The location in the cell whose lowest sample is `[i0, j0, k0]` at fractions `t`.
    #[inline(always)]
    fn loc(&self, [i0, j0, k0]: [usize; 3], t: [f32; 3]) -> Loc {
        let d = self.d;
        let sy = d.nx;
        let sz = d.nx * d.ny;
        Loc {
            i0: i0 as u32,
            j0: j0 as u32,
            k0: k0 as u32,
            b: i0 + sy * j0 + sz * k0,
            di: usize::from(i0 + 1 < d.nx),
            dj: if j0 + 1 < d.ny { sy } else { 0 },
            dk: if k0 + 1 < d.nz { sz } else { 0 },
            t,
        }
    }

    /// The eight samples of this sampler's array around `l` (found by [`Sampler::locate`] of
    /// this sampler or of one with the same dimensions), in the order 000, 100, 010, 110, 001,
    /// 101, 011, 111 of (x, y, z) offsets.
    #[inline(always)]
    fn gather(&self, l: &Loc) -> [f32; 8] {
        let f = self.f;
        let (b, di, dj, dk) = (l.b, l.di, l.dj, l.dk);
        debug_assert!(b + di + dj + dk < f.len());
        // SAFETY: `locate` clamps (i0, j0, k0) into the array and each offset moves to a
        // neighbour only when that neighbour exists, so every index is < nx·ny·nz, which is
        // f.len() for every sampler of these dimensions.
        let at = |o: usize| unsafe { *f.get_unchecked(b + o) };
        [
            at(0),
            at(di),
            at(dj),
            at(dj + di),
            at(dk),
            at(dk + di),
            at(dk + dj),
            at(dk + dj + di),
        ]
    }

    /// Trilinear interpolation of this sampler's array at `l`.
    #[inline(always)]
    pub fn at_loc(&self, l: &Loc) -> f32 {
        lerp8(&self.gather(l), l.t)
    }

    /// [`Sampler::at_loc`] and [`Sampler::range_loc`] from one gather.
    #[inline(always)]
    pub fn at_and_range(&self, l: &Loc) -> (f32, f32, f32) {
        let v = self.gather(l);
        let (lo, hi) = min_max8(&v);
        (lerp8(&v, l.t), lo, hi)
    }

    /// Smallest and largest of the eight samples [`Sampler::at_loc`] interpolates at `l`.
    #[inline(always)]
    pub fn range_loc(&self, l: &Loc) -> (f32, f32) {
        min_max8(&self.gather(l))
    }

    /// The cell `l` lies in, packed into 30 bits (10 per axis; every axis has at most
    /// [`super::grid::MAX_AXIS_CELLS`] = 1024 samples): 4 bytes that give back, with
    /// [`Sampler::cell_loc`], a location for the range of any array of these dimensions.
    #[inline(always)]
    pub fn cell_code(&self, l: &Loc) -> u32 {
        l.i0 | l.j0 << 10 | l.k0 << 20
    }

    /// The location (at the cell's lowest corner) of the cell [`Sampler::cell_code`] packed:
    /// [`Sampler::range_loc`] there is the range at the location that was packed.
    #[inline(always)]
    pub fn cell_loc(&self, code: u32) -> Loc {
        let c = code as usize;
        let cell = [c & 1023, (c >> 10) & 1023, (c >> 20) & 1023];
        debug_assert!(cell[0] < self.d.nx && cell[1] < self.d.ny && cell[2] < self.d.nz);
        self.loc(cell, [0.0; 3])
    }

    /// Value at array coordinates `p` (sample (i, j, k) sits at p = (i, j, k)).
    #[inline(always)]
    pub fn at(&self, p: [f32; 3]) -> f32 {
        self.at_loc(&self.locate(p))
    }

    /// Smallest and largest of the (up to eight) samples that [`Sampler::at`] interpolates
    /// between at `p`.
    #[inline(always)]
    pub fn range_at(&self, p: [f32; 3]) -> (f32, f32) {
        self.range_loc(&self.locate(p))
    }

    /// Dimensions of the sampled array.
    pub fn dims(&self) -> Dims {
        self.d
    }

    /// The array, its dimensions and the last sample on each axis, for vectorised sampling.
    pub(crate) fn raw(&self) -> (&'a [f32], [usize; 3], [f32; 3]) {
        (self.f, self.d.as_array(), self.hi)
    }
}

/// Trilinear interpolation between eight corner values (order as [`Sampler::gather`]).
#[inline(always)]
fn lerp8(v: &[f32; 8], [tx, ty, tz]: [f32; 3]) -> f32 {
    let c00 = v[0] + tx * (v[1] - v[0]);
    let c10 = v[2] + tx * (v[3] - v[2]);
    let c01 = v[4] + tx * (v[5] - v[4]);
    let c11 = v[6] + tx * (v[7] - v[6]);
    let c0 = c00 + ty * (c10 - c00);
    let c1 = c01 + ty * (c11 - c01);
    c0 + tz * (c1 - c0)
}

/// Smallest and largest of eight values.
#[inline(always)]
fn min_max8(v: &[f32; 8]) -> (f32, f32) {
    let mut lo = v[0];
    let mut hi = v[0];
    for &x in &v[1..] {
        lo = if x < lo { x } else { lo };
        hi = if x > hi { x } else { hi };
    }
    (lo, hi)
}

/// A sample position found by [`Sampler::locate`]: valid for every array of the same
/// dimensions.
#[derive(Clone, Copy, Debug)]
pub struct Loc {
    i0: u32,
    j0: u32,
    k0: u32,
    b: usize,
    di: usize,
    dj: usize,
    dk: usize,
    t: [f32; 3],
}

/// Trilinear interpolation of `f` (dimensions `d`) at array coordinates `p`; see [`Sampler`].
pub fn sample(f: &[f32], d: Dims, p: [f32; 3]) -> f32 {
    Sampler::new(f, d).at(p)
}

/// The three staggered velocity components of a grid of `dims` cells.
#[derive(Clone, Copy)]
pub struct VelocityRef<'a> {
    /// Cell counts of the grid.
    pub dims: Dims,
    /// x-face velocities, `(nx+1)·ny·nz`.
    pub u: &'a [f32],
    /// y-face velocities, `nx·(ny+1)·nz`.
    pub v: &'a [f32],
    /// z-face velocities, `nx·ny·(nz+1)`.
    pub w: &'a [f32],
}

impl VelocityRef<'_> {
    /// The component along axis `a` (0 u, 1 v, 2 w).
    pub fn comp(&self, a: usize) -> &[f32] {
        match a {
            0 => self.u,
            1 => self.v,
            _ => self.w,
        }
    }

    /// Velocity at a point in cell-index space, each component interpolated on its own grid.
    pub fn at(&self, x: [f32; 3]) -> [f32; 3] {
        let mut out = [0.0; 3];
        for (a, o) in out.iter_mut().enumerate() {
            let mut p = [x[0] - 0.5, x[1] - 0.5, x[2] - 0.5];
            p[a] = x[a];
            *o = sample(self.comp(a), self.dims.faces(a), p);
        }
        out
    }
}

/// Where air comes from when a trace leaves the domain: for each axis and side (0 minimum,
/// 1 maximum), `None` for a wall (the trace is clamped to the domain: no flow crosses a wall,
/// so only interpolation reaches past it), or the velocity of the outside air for an open
/// face (at rest) or an inflow (its speed along the inward normal). A trace that leaves
/// through such a face samples the outside air: density 0, ambient temperature, that
/// velocity; never the edge cells' own values, which would let smoke re-enter.
///
/// It also carries the solid cells (1 = solid, cell-centred, x-fastest), where traces stop.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Exits<'a> {
    /// `sides[axis][side]`.
    pub sides: [[Option<[f32; 3]>; 2]; 3],
    /// Solid cells: a trace that would cross one stops at the last fluid point before it.
    pub solid: Option<&'a [u8]>,
}

/// The end of the trace from `start` to `end` (cell-array coordinates) cut at the first
/// solid cell on the straight line between them, checked every half cell: smoke is not
/// carried through an obstacle, however thin. Points outside the grid count as fluid.
#[inline(always)]
pub fn stop_at_solid(mask: &[u8], d: Dims, start: [f32; 3], end: [f32; 3]) -> [f32; 3] {
    let n = d.as_array();
    let solid = |p: [f32; 3]| {
        let mut idx = [0usize; 3];
        for a in 0..3 {
            let r = (p[a] + 0.5).floor();
            if !(r >= 0.0 && r < n[a] as f32) {
                return false;
            }
            idx[a] = r as usize;
        }
        mask[d.idx(idx[0], idx[1], idx[2])] != 0
    };
    let dist = (0..3).fold(0.0f32, |m, a| m.max((end[a] - start[a]).abs()));
    // A trace shorter than half a cell cannot skip a cell: only its end needs a look.
    if dist <= 0.5 && !solid(end) {
        return end;
    }
    // A trace longer than the grid is wide leaves it (starts are inside): walk only its part
    // inside the grid and a cell around it (outside, nothing is solid), so no trace costs
    // more than the grid's width in half-cell looks, however fast the flow.
    let widest = n.iter().fold(0usize, |m, &x| m.max(x)) as f32 + 2.0;
    let reach = if dist > widest {
        (0..3).fold(1.0f32, |t1, a| {
            let dp = end[a] - start[a];
            let bound = if dp > 0.0 { n[a] as f32 } else { -1.0 };
            if dp != 0.0 {
                t1.min(((bound - start[a]) / dp).max(0.0))
            } else {
                t1
            }
        })
    } else {
        1.0
    };
    let steps = ((2.0 * dist * reach).ceil() as usize).clamp(1, 4096);
    let mut last = start;
    for s in 1..=steps {
        let t = reach * s as f32 / steps as f32;
        let p = [0, 1, 2].map(|a| start[a] + t * (end[a] - start[a]));
        if solid(p) {
            return last;
        }
        last = p;
    }
    end
}

/// Whether any of the eight cells a trilinear sample at `p` (inside the grid) reads is solid.
#[inline(always)]
pub(crate) fn touches_solid(mask: &[u8], d: Dims, p: [f32; 3]) -> bool {
    let n = d.as_array();
    let lo = [0, 1, 2].map(|a| (p[a].floor().max(0.0) as usize).min(n[a] - 1));
    let hi = [0, 1, 2].map(|a| (lo[a] + 1).min(n[a] - 1));
    for k in [lo[2], hi[2]] {
        for j in [lo[1], hi[1]] {
            for i in [lo[0], hi[0]] {
                if mask[d.idx(i, j, k)] != 0 {
                    return true;
                }
            }
        }
    }
    false
}

impl Exits<'_> {
    /// How much of the outside air a sample at `p` takes, and that air's velocity, when `p`
    /// lies beyond the first (0) or `last` sample of an axis whose face there lets air in.
    /// The outside air sits in a ghost layer one sample beyond the last (as a Dirichlet
    /// boundary value), so between the last sample and the ghost the weight grows linearly
    /// from 0 to 1: air enters at the rate the flow carries it, however small the CFL number
    /// (a trace that stays within the last half cell reaches outside air too). Several axes
    /// combine as 1 − Π(1 − wₐ). `None` inside, beyond walls, and for NaN coordinates.
    #[inline(always)]
    pub fn blend(&self, p: [f32; 3], last: [f32; 3]) -> Option<(f32, [f32; 3])> {
        // Inside on every axis (most samples): nothing to mix in.
        let inside = |a: usize| p[a] >= 0.0 && p[a] <= last[a];
        if inside(0) & inside(1) & inside(2) {
            return None;
        }
        self.blend_outside(p, last)
    }

    /// Whether [`Exits::blend`] can mix air into any of the points `(x[m], y[m], z[m])`: some
    /// face lets air in and some point lies beyond the first or `last` sample of an axis (or
    /// is NaN). One pass without branches (it vectorises) ahead of a loop over the points:
    /// where it says no, `blend` gives `None` for every one of them.
    pub fn may_blend(&self, [x, y, z]: [&[f32]; 3], last: [f32; 3]) -> bool {
        if self.sides.iter().flatten().all(Option::is_none) {
            return false;
        }
        let out = |v: &[f32], hi: f32| {
            v.iter()
                .fold(0u32, |a, &c| a | u32::from(!(c >= 0.0 && c <= hi)))
        };
        (out(x, last[0]) | out(y, last[1]) | out(z, last[2])) != 0
    }

    /// [`Exits::blend`] for a point outside the samples on some axis (or NaN).
    #[inline(never)]
    fn blend_outside(&self, p: [f32; 3], last: [f32; 3]) -> Option<(f32, [f32; 3])> {
        let mut keep = 1.0f32;
        let mut best = 0.0f32;
        let mut air = None;
        for a in 0..3 {
            let (side, w) = if p[a] < 0.0 {
                (0, -p[a])
            } else if p[a] > last[a] {
                (1, p[a] - last[a])
            } else {
                continue;
            };
            if let Some(v) = self.sides[a][side] {
                let w = if w < 1.0 { w } else { 1.0 };
                keep *= 1.0 - w;
                if w > best || air.is_none() {
                    best = w;
                    air = Some(v);
                }
            }
        }
        air.map(|v| (1.0 - keep, v))
    }
}

/// z-planes a pass traces between two refills of its [`VelSampler`] window.
pub const CHUNK_PLANES: usize = 8;

/// Planes held beyond a chunk on either side so that an RK2 midpoint of a sub-step at CFL
/// number `max_cfl` (half a step: at most `max_cfl/2` cells from its start, and one more
/// plane for the interpolation) falls inside the window. Only speed depends on it: a
/// midpoint outside the window is worked out from the face velocities instead, to the
/// same bits.
pub fn halo_for_cfl(max_cfl: f32) -> usize {
    let reach = (0.5 * max_cfl).ceil();
    (if reach.is_finite() && reach > 0.0 {
        reach.min(1024.0) as usize
    } else {
        1
    }) + 1
}

/// The part of each plane a [`VelSampler`] fills: `[[x0, x1], [y0, y1]]`, the cells `x0..x1`
/// of the rows `y0..y1`.
pub type FillArea = [[usize; 2]; 2];

/// The [`FillArea`] of whole planes of `d`.
pub fn whole_area(d: Dims) -> FillArea {
    [[0, d.nx], [0, d.ny]]
}

/// Planes a windowed [`VelSampler`] holds on a grid of `nz` planes with `halo`.
pub fn window_planes(nz: usize, halo: usize) -> usize {
    nz.min(CHUNK_PLANES.saturating_add(halo.saturating_mul(2)))
}

/// The velocity at cell centres, the midpoints of second-order (RK2) traces sample: one
/// location for all three components, each row's u, v and w side by side (sixteen traces
/// whose midpoints share rows load them, `sim::trace16`).
///
/// It holds a window of z-planes, not the grid: a pass traces [`CHUNK_PLANES`] planes at a
/// time ([`VelSampler::chunks`]) with the planes of those and `halo` more on either side
/// filled, about 2.3 bytes a cell on a 64³ grid instead of 12 ([`window_planes`]). A sample
/// whose cells lie outside the window (a trace faster than the halo allows, a NaN) takes
/// the same cell velocities from the faces ([`VelWindow`]): results do not depend on the
/// window. [`VelSampler::new`] holds the whole grid.
#[derive(Clone, Debug)]
pub struct VelSampler {
    /// The cell velocities of the planes held, a row (j, k) at a time: its nx values of u,
    /// then of v, then of w (each component's row contiguous, so sixteen traces that share
    /// their rows load them instead of gathering).
    v: Vec<f32>,
    d: Dims,
    hi: [f32; 3],
    /// The first plane held and how many are.
    z0: usize,
    held: usize,
    /// Planes held beyond a chunk on either side; `usize::MAX` for the whole grid.
    halo: usize,
}

impl Default for VelSampler {
    fn default() -> Self {
        Self::windowed(halo_for_cfl(2.0))
    }
}

/// A [`VelSampler`]'s window with the face velocities it was filled from: samples inside
/// the window read it, the rare ones outside work the same cell velocities out from the
/// faces.
#[derive(Clone, Copy)]
pub struct VelWindow<'a> {
    s: &'a VelSampler,
    vel: VelocityRef<'a>,
}

/// What a vectorised trace reads of a [`VelWindow`].
pub(crate) struct WindowRaw<'a> {
    /// The window's values, plane `z0` first, a row's u, v and w one after the other.
    pub values: &'a [f32],
    /// Cells of the grid along x, y, z.
    pub dims: [usize; 3],
    /// The first plane held and how many are.
    pub z0: usize,
    pub held: usize,
    /// The last cell centre on each axis.
    pub hi: [f32; 3],
}

impl VelWindow<'_> {
    /// The window's layout for vectorised traces.
    pub(crate) fn raw(&self) -> WindowRaw<'_> {
        let s = self.s;
        WindowRaw {
            values: &s.v,
            dims: s.d.as_array(),
            z0: s.z0,
            held: s.held,
            hi: s.hi,
        }
    }

    /// The cell velocities of row `j` of plane `k`, which the window must hold (every plane
    /// of the chunk it was filled for does).
    pub fn cells_row(&self, j: usize, k: usize) -> [&[f32]; 3] {
        let s = self.s;
        assert!(
            k >= s.z0 && k < s.z0 + s.held,
            "plane {k} is outside the window"
        );
        let nx = s.d.nx;
        let row = &s.v[((k - s.z0) * s.d.ny + j) * 3 * nx..][..3 * nx];
        [&row[..nx], &row[nx..2 * nx], &row[2 * nx..]]
    }

    /// Velocity at `p` in cell-array coordinates, as [`VelSampler::at_cell_coords`] of a
    /// sampler holding the whole grid would give it.
    #[inline(always)]
    pub fn at_cell_coords(&self, p: [f32; 3]) -> [f32; 3] {
        let s = self.s;
        let l = s.locate(p);
        let k0 = l.k0 as usize;
        let top = k0 + usize::from(l.dk != 0);
        if k0 >= s.z0 && top < s.z0 + s.held {
            trilerp4(s.gather(&l), l.t)
        } else {
            self.at_loc_via_faces(&l)
        }
    }

    /// The velocity at `l` from the eight cell velocities around it worked out from the
    /// faces, as [`VelSampler::fill`] works them out.
    #[cold]
    #[inline(never)]
    fn at_loc_via_faces(&self, l: &Loc) -> [f32; 3] {
        let vel = &self.vel;
        let d = vel.dims;
        let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
        let (i0, j0, k0) = (l.i0 as usize, l.j0 as usize, l.k0 as usize);
        let i1 = i0 + l.di;
        let j1 = j0 + usize::from(l.dj != 0);
        let k1 = k0 + usize::from(l.dk != 0);
        let cell = |i: usize, j: usize, k: usize| {
            let (a, b, c) = (du.idx(i, j, k), dv.idx(i, j, k), dw.idx(i, j, k));
            [
                0.5 * (vel.u[a] + vel.u[a + 1]),
                0.5 * (vel.v[b] + vel.v[b + d.nx]),
                0.5 * (vel.w[c] + vel.w[c + d.nx * d.ny]),
                0.0,
            ]
        };
        let c = [
            cell(i0, j0, k0),
            cell(i1, j0, k0),
            cell(i0, j1, k0),
            cell(i1, j1, k0),
            cell(i0, j0, k1),
            cell(i1, j0, k1),
            cell(i0, j1, k1),
            cell(i1, j1, k1),
        ];
        trilerp4(c, l.t)
    }
}

/// Trilinear interpolation of eight cell velocities (order as [`Sampler::gather`]).
#[inline(always)]
fn trilerp4(g: [[f32; 4]; 8], [tx, ty, tz]: [f32; 3]) -> [f32; 3] {
    let lerp = |a: [f32; 4], b: [f32; 4], t: f32| {
        [
            a[0] + t * (b[0] - a[0]),
            a[1] + t * (b[1] - a[1]),
            a[2] + t * (b[2] - a[2]),
            0.0,
        ]
    };
    let c00 = lerp(g[0], g[1], tx);
    let c10 = lerp(g[2], g[3], tx);
    let c01 = lerp(g[4], g[5], tx);
    let c11 = lerp(g[6], g[7], tx);
    let c0 = lerp(c00, c10, ty);
    let c1 = lerp(c01, c11, ty);
    let c = lerp(c0, c1, tz);
    [c[0], c[1], c[2]]
}

/// Something that gives the velocity at any point in cell-array coordinates: a sampler of
/// the whole grid, or a window of one.
pub trait CellVelocity {
    /// Velocity at `p` (cell i's centre at i).
    fn velocity_at(&self, p: [f32; 3]) -> [f32; 3];
}

impl CellVelocity for VelSampler {
    fn velocity_at(&self, p: [f32; 3]) -> [f32; 3] {
        self.at_cell_coords(p)
    }
}

impl CellVelocity for VelWindow<'_> {
    #[inline(always)]
    fn velocity_at(&self, p: [f32; 3]) -> [f32; 3] {
        self.at_cell_coords(p)
    }
}

/// The second-order (midpoint, RK2) trace from `p` (cell-array coordinates) over `k`
/// (signed: −k_dt backwards, +k_dt forwards) cells per unit velocity, given the velocity `u0`
/// at `p`: half a step with `u0`, then the whole step with the velocity found there.
#[inline(always)]
pub fn rk2(vs: &impl CellVelocity, p: [f32; 3], u0: [f32; 3], k: f32) -> [f32; 3] {
    let mid = [
        p[0] + 0.5 * k * u0[0],
        p[1] + 0.5 * k * u0[1],
        p[2] + 0.5 * k * u0[2],
    ];
    let um = vs.velocity_at(mid);
    [p[0] + k * um[0], p[1] + k * um[1], p[2] + k * um[2]]
}

#[cfg(test)]
#[path = "sample_tests.rs"]
mod tests;
