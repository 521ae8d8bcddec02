//! An obstacle's or emitter's geometry resolved for the solver: its form (sphere, box or a
//! mesh read from a file), its pose over time, and the tests the solver asks of it (is a
//! point inside; how much of a cell does it cover; how fast does a point of it move).

use super::grid::Grid;
use crate::geometry::mesh::Mesh;
use crate::geometry::voxel::{self, Tri, Voxels};
use crate::geometry::{Affine, Key, Motion, Pose};
use std::sync::Arc;

/// A resolved shape in world coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// Centre and radius.
    Sphere {
        /// Centre.
        center: [f32; 3],
        /// Radius.
        radius: f32,
    },
    /// Centre and half the edge lengths.
    Box {
        /// Centre.
        center: [f32; 3],
        /// Half the edge lengths.
        half: [f32; 3],
    },
}

impl Shape {
    /// Half-extent of the shape's bounding box along each axis.
    pub fn half_extent(&self) -> [f32; 3] {
        match *self {
            Shape::Sphere { radius, .. } => [radius; 3],
            Shape::Box { half, .. } => half,
        }
    }

    /// Centre of the shape.
    pub fn center(&self) -> [f32; 3] {
        match *self {
            Shape::Sphere { center, .. } | Shape::Box { center, .. } => center,
        }
    }

    /// `true` when the point is inside (or on) the shape.
    pub fn contains(&self, p: [f32; 3]) -> bool {
        match *self {
            Shape::Sphere { center, radius } => {
                let d2: f32 = (0..3).map(|a| (p[a] - center[a]).powi(2)).sum();
                d2 <= radius * radius
            }
            Shape::Box { center, half } => (0..3).all(|a| (p[a] - center[a]).abs() <= half[a]),
        }
    }

    /// Fraction of a cube of side `h` centred at `p` that the shape covers, approximated by a
    /// linear ramp one cell wide across the surface. Using coverage instead of an inside/outside
    /// test makes what an emitter adds nearly independent of the resolution.
    #[inline]
    pub fn coverage(&self, p: [f32; 3], h: f32) -> f32 {
        match *self {
            Shape::Sphere { center, radius } => {
                let d2: f32 = (0..3).map(|a| (p[a] - center[a]).powi(2)).sum();
                coverage(d2.sqrt(), radius, h)
            }
            Shape::Box { center, half } => (0..3)
                .map(|a| coverage((p[a] - center[a]).abs(), half[a], h))
                .product(),
        }
    }
}

/// Fraction of a cube of side `h` centred `dist` from a sphere's centre that lies inside the
/// sphere of radius `r`, approximated by a linear ramp one voxel wide.
#[inline]
pub fn coverage(dist: f32, r: f32, h: f32) -> f32 {
    ((r - dist) / h + 0.5).clamp(0.0, 1.0)
}

/// Most cells along an axis of a mesh's own voxel grid (what a moving mesh or a mesh
/// emitter is sampled from).
const MAX_LOCAL_CELLS: usize = 256;

/// What an object is made of.
#[derive(Clone, Debug)]
pub enum Form {
    /// A sphere of this radius around its position.
    Sphere(f32),
    /// A box of these half edge lengths centred on its position.
    Box([f32; 3]),
    /// A triangle mesh in its file's coordinates (its origin at the position).
    Mesh {
        /// The triangles.
        mesh: Arc<Mesh>,
        /// `true` when some edge is not shared by two triangles.
        open: bool,
    },
}

/// A resolved obstacle or emitter.
#[derive(Clone, Debug)]
pub struct Body {
    /// Sphere, box or mesh.
    pub form: Form,
    /// The pose without key frames.
    pub base: Pose,
    /// Key frames.
    pub keys: Vec<Key>,
    /// Repeat the keys.
    pub looped: bool,
    /// Ease between keys.
    pub smooth: bool,
    /// Emit from the surface (emitters), not the volume.
    pub surface: bool,
    /// The mesh voxelised in its own coordinates (moving mesh obstacles, mesh emitters), built
    /// by [`Body::prepare`].
    vox: Option<Arc<Voxels>>,
}

impl Body {
    /// A body from its parts.
    pub fn new(form: Form, base: Pose, keys: Vec<Key>, looped: bool, smooth: bool) -> Self {
        Self {
            form,
            base,
            keys,
            looped,
            smooth,
            surface: false,
            vox: None,
        }
    }

    /// Its motion.
    pub fn motion(&self) -> Motion<'_> {
        Motion {
            base: self.base,
            keys: &self.keys,
            looped: self.looped,
            smooth: self.smooth,
        }
    }

    /// `true` when it moves (two key frames or more).
    pub fn moves(&self) -> bool {
        self.motion().moves()
    }

    /// The pose at time `t`.
    pub fn pose_at(&self, t: f64) -> Pose {
        self.motion().pose_at(t)
    }

    /// The analytic shape when the body is a sphere or box that neither moves, turns nor
    /// scales (the solver then takes the same path as before bodies could do more).
    pub fn plain_shape(&self) -> Option<Shape> {
        if self.moves() || !self.base.is_plain() || self.surface {
            return None;
        }
        let center = self.base.position;
        match self.form {
            Form::Sphere(radius) => Some(Shape::Sphere { center, radius }),
            Form::Box(half) => Some(Shape::Box { center, half }),
            Form::Mesh { .. } => None,
        }
    }

    /// Bounds in its own coordinates.
    pub fn local_bounds(&self) -> ([f32; 3], [f32; 3]) {
        match &self.form {
            Form::Sphere(r) => ([-r; 3], [*r; 3]),
            Form::Box(h) => (h.map(|x| -x), *h),
            Form::Mesh { mesh, .. } => mesh.bounds(),
        }
    }

    /// World bounds in pose `p`.
    pub fn bounds_in(&self, p: &Pose) -> ([f32; 3], [f32; 3]) {
        let (lo, hi) = self.local_bounds();
        p.bounds_of(lo, hi)
    }

    /// World bounds over every pose its key frames name (for "is it in the domain at all").
    pub fn bounds_over_motion(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for p in self.motion().key_poses() {
            let (a, b) = self.bounds_in(&p);
            for x in 0..3 {
                lo[x] = lo[x].min(a[x]);
                hi[x] = hi[x].max(b[x]);
            }
        }
        (lo, hi)
    }

    /// Builds what sampling a mesh needs for cells of size `h`: its own voxel grid, fine
    /// enough for half a cell at its largest scale. No-op for spheres and boxes.
    pub fn prepare(&mut self, h: f32) {
        let Form::Mesh { mesh, open } = &self.form else {
            return;
        };
        let local_h = self.local_cell(h);
        let tris = voxel::unique(mesh.corners());
        let v = if self.surface {
            Voxels::surface_of(&tris, local_h, MAX_LOCAL_CELLS)
        } else {
            Voxels::build(&tris, local_h, MAX_LOCAL_CELLS, *open)
        };
        self.vox = Some(Arc::new(v));
    }

    /// The cell of a mesh's own voxel grid for cells of size `h`: half a cell at its
    /// largest scale.
    fn local_cell(&self, h: f32) -> f64 {
        f64::from(h) / (2.0 * f64::from(self.motion().max_scale().max(1e-6)))
    }

    /// Where a mesh's triangles overlap so much that voxelising it would take more than
    /// [`voxel::MAX_WORK`] ray tests, how much coarser it is voxelised instead, in words: a
    /// static obstacle on `grid`'s own cells ([`voxel::voxelise_bounded`]), anything else on
    /// its own grid of half a cell ([`Body::prepare`]).
    pub fn voxel_note(&self, grid: &Grid, obstacle: bool) -> Option<String> {
        let Form::Mesh { mesh, open } = &self.form else {
            return None;
        };
        let (count, factor) = if obstacle && !self.moves() {
            let tris = self.index_triangles(grid, &self.pose_at(0.0));
            let d = grid.dims.as_array();
            (tris.len(), voxel::coarsening(&tris, d, *open) as f64)
        } else {
            let tris = voxel::unique(mesh.corners());
            let surface = *open || self.surface;
            let (_, f) =
                Voxels::bounded_cell(&tris, self.local_cell(grid.h), MAX_LOCAL_CELLS, surface);
            (tris.len(), f)
        };
        (factor > 1.0).then(|| {
            format!(
                "its {count} triangles overlap so much that voxelising them would take over \
                 {:.0e} ray tests; it is voxelised {factor:.1} times coarser (its shape is \
                 blurred at that scale; fewer or smaller triangles keep it sharp)",
                voxel::MAX_WORK
            )
        })
    }

    /// The mesh's own voxel grid, once [`Body::prepare`] has built it.
    pub fn voxels(&self) -> Option<&Voxels> {
        self.vox.as_deref()
    }

    /// Whether the world point lies inside, the body standing at `a`.
    #[inline]
    pub fn inside(&self, a: &Affine, p: [f64; 3]) -> bool {
        self.inside_local(a.invert(p))
    }

    /// Whether a point in the body's own coordinates lies inside (a mesh: the nearest cell
    /// of its own voxel grid, half a grid cell wide at the largest scale).
    #[inline]
    pub fn inside_local(&self, l: [f64; 3]) -> bool {
        match &self.form {
            Form::Sphere(r) => {
                let r = f64::from(*r);
                l[0] * l[0] + l[1] * l[1] + l[2] * l[2] <= r * r
            }
            Form::Box(h) => (0..3).all(|x| l[x].abs() <= f64::from(h[x])),
            Form::Mesh { .. } => self.vox.as_ref().is_some_and(|v| v.nearest(l)),
        }
    }

    /// How much of a cell of size `h` centred at world point `p` the body covers (or, for a
    /// surface emitter, how near the cell is to its surface), the body standing in `pose`.
    #[inline]
    pub fn coverage(&self, pose: &Pose, a: &Affine, p: [f64; 3], h: f32) -> f32 {
        let l = a.invert(p);
        let s = pose.scale;
        let smin = s[0].min(s[1]).min(s[2]);
        match &self.form {
            Form::Sphere(r) => {
                let dist = (l[0] * l[0] + l[1] * l[1] + l[2] * l[2]).sqrt() as f32;
                if self.surface {
                    (1.0 - ((dist - r) * smin).abs() / h).clamp(0.0, 1.0)
                } else {
                    coverage(dist * smin, r * smin, h)
                }
            }
            Form::Box(half) => {
                if self.surface {
                    let d = (0..3)
                        .map(|x| (l[x].abs() as f32 - half[x]) * s[x])
                        .fold(f32::NEG_INFINITY, f32::max);
                    (1.0 - d.abs() / h).clamp(0.0, 1.0)
                } else {
                    (0..3)
                        .map(|x| coverage(l[x].abs() as f32 * s[x], half[x] * s[x], h))
                        .product()
                }
            }
            Form::Mesh { .. } => self.vox.as_ref().map_or(0.0, |v| v.sample(l)),
        }
    }

    /// The mesh's triangles in grid-index coordinates in pose `p`.
    pub fn index_triangles(&self, grid: &Grid, p: &Pose) -> Vec<Tri> {
        let Form::Mesh { mesh, .. } = &self.form else {
            return Vec::new();
        };
        let a = p.affine();
        let o = grid.origin.map(f64::from);
        let h = f64::from(grid.h);
        voxel::unique(mesh.corners().map(|t| {
            t.map(|v| {
                let w = a.apply(v);
                [0, 1, 2].map(|x| (w[x] - o[x]) / h)
            })
        }))
    }
}
