//! Emitters (sources of smoke, heat and motion) and obstacles (solids): spheres, boxes or
//! meshes read from files, each placed, turned and scaled, and moved by key frames.

pub use super::body::{coverage, Shape};
use super::body::{Body, Form};
use super::SimError;
use crate::geometry::{self, mesh, Key, Pose, Scale};
use crate::ranges::emitter as ranges;
use std::path::Path;

/// Which shape an emitter or obstacle has. In a scene file: `shape = "sphere"` (with
/// `radius`) or `shape = "box"` (with `size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    /// A sphere of `radius` around `center`.
    #[default]
    Sphere,
    /// A box of edge lengths `size` centred on `center`.
    Box,
    /// A triangle mesh read from `file` (Wavefront OBJ or STL), its origin at `center`.
    Mesh,
}

/// Where an emitter emits: through its volume, or from a layer one cell thick at its surface.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EmitFrom {
    /// Every covered cell.
    #[default]
    Volume,
    /// The cells at the surface.
    Surface,
}

fn check_center(c: [f32; 3]) -> Result<(), SimError> {
    if c.iter().all(|&x| ranges::CENTER.contains(f64::from(x))) {
        Ok(())
    } else {
        Err(SimError::field(
            "center",
            format!(
                "center = {c:?} has a component outside the allowed range {}",
                ranges::CENTER.range_text()
            ),
        ))
    }
}

/// Resolves the shape fields shared by emitters and obstacles, naming the offending field.
fn resolve_shape(
    kind: ShapeKind,
    center: [f32; 3],
    radius: Option<f32>,
    size: Option<[f32; 3]>,
) -> Result<Shape, SimError> {
    check_center(center)?;
    match kind {
        ShapeKind::Sphere => {
            if size.is_some() {
                return Err(SimError::field(
                    "size",
                    "a sphere takes `radius`, not `size` (or set shape = \"box\")",
                ));
            }
            let r = radius.ok_or_else(|| {
                SimError::field("radius", "a sphere needs `radius` (allowed range (0, 10])")
            })?;
            ranges::RADIUS.check(r)?;
            Ok(Shape::Sphere { center, radius: r })
        }
        ShapeKind::Box => {
            if radius.is_some() {
                return Err(SimError::field(
                    "radius",
                    "a box takes `size` (its edge lengths), not `radius` (or set shape = \"sphere\")",
                ));
            }
            let s = size.ok_or_else(|| {
                SimError::field("size", "a box needs `size` = [x, y, z] (each in (0, 20])")
            })?;
            if !s.iter().all(|&v| ranges::SIZE.contains(f64::from(v))) {
                return Err(SimError::field(
                    "size",
                    format!(
                        "size = {s:?} has an edge length outside the allowed range {}",
                        ranges::SIZE.range_text()
                    ),
                ));
            }
            Ok(Shape::Box {
                center,
                half: s.map(|v| 0.5 * v),
            })
        }
        ShapeKind::Mesh => Err(SimError::field(
            "shape",
            "a mesh has no analytic shape (this is a bug: callers ask for its body)",
        )),
    }
}

/// The methods emitters and obstacles share over their geometry fields (the same fields in
/// both: a scene file's tables take no flattened structs with `deny_unknown_fields`).
macro_rules! geometry_methods {
    ($t:ty) => {
        impl $t {
            pub(crate) fn geometry(&self) -> Geometry<'_> {
                Geometry {
                    kind: self.shape,
                    center: self.center,
                    radius: self.radius,
                    size: self.size,
                    file: self.file.as_deref(),
                    rotation: self.rotation,
                    scale: self.scale,
                    keys: &self.keys,
                    looped: self.looped,
                    smooth: self.smooth,
                }
            }

            /// The resolved geometry (reads a mesh file the first time), after checking its
            /// fields.
            pub fn body(&self) -> Result<Body, SimError> {
                self.geometry().body()
            }

            /// `true` when it moves (two key frames or more).
            pub fn moves(&self) -> bool {
                self.keys.len() >= 2
            }
        }
    };
}

geometry_methods!(Emitter);
geometry_methods!(Obstacle);

/// The geometry fields emitters and obstacles share, borrowed.
pub(crate) struct Geometry<'a> {
    pub kind: ShapeKind,
    pub center: [f32; 3],
    pub radius: Option<f32>,
    pub size: Option<[f32; 3]>,
    pub file: Option<&'a str>,
    pub rotation: Option<[f32; 3]>,
    pub scale: Option<Scale>,
    pub keys: &'a [Key],
    pub looped: bool,
    pub smooth: bool,
}

impl Geometry<'_> {
    /// Checks the fields and resolves the body (reading a mesh file, once per file).
    pub fn body(&self) -> Result<Body, SimError> {
        let form = match self.kind {
            ShapeKind::Mesh => {
                if self.radius.is_some() || self.size.is_some() {
                    let f = if self.radius.is_some() {
                        "radius"
                    } else {
                        "size"
                    };
                    return Err(SimError::field(
                        f,
                        format!("a mesh takes `file` and `scale`, not `{f}`"),
                    ));
                }
                check_center(self.center)?;
                let file = self.file.ok_or_else(|| {
                    SimError::field(
                        "file",
                        "a mesh needs `file` = \"path/to/mesh.obj\" (OBJ or STL)",
                    )
                })?;
                let m = mesh::load_cached(Path::new(file))
                    .map_err(|e| SimError::field("file", e.to_string()))?;
                let open = m.open_edges > 0;
                Form::Mesh { mesh: m, open }
            }
            kind => {
                if self.file.is_some() {
                    return Err(SimError::field("file", "`file` is for shape = \"mesh\""));
                }
                match resolve_shape(kind, self.center, self.radius, self.size)? {
                    Shape::Sphere { radius, .. } => Form::Sphere(radius),
                    Shape::Box { half, .. } => Form::Box(half),
                }
            }
        };
        let mut base = Pose {
            position: self.center,
            ..Pose::default()
        };
        if let Some(r) = self.rotation {
            geometry::check_rotation(r).map_err(|m| SimError::field("rotation", m))?;
            base.rotation = r;
        }
        if let Some(sc) = self.scale {
            geometry::check_scale(sc.axes()).map_err(|m| SimError::field("scale", m))?;
            base.scale = sc.axes();
        }
        geometry::check_keys(self.keys, |p| {
            check_center(p).map_err(|e| e.to_string().replace("center", "position"))
        })
        .map_err(|(f, m)| SimError::field(&f, m))?;
        Ok(Body::new(
            form,
            base,
            self.keys.to_vec(),
            self.looped,
            self.smooth,
        ))
    }
}

fn is_zero(x: &f32) -> bool {
    *x == 0.0
}

fn is_false(x: &bool) -> bool {
    !*x
}

fn is_volume(x: &EmitFrom) -> bool {
    *x == EmitFrom::Volume
}

/// Periodic switching of an emitter: on for `duty·period` seconds at the start of every
/// `period` seconds (counted from the emitter's `start`).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pulse {
    /// Seconds between the starts of two pulses; allowed (0, 1e6].
    pub period: f32,
    /// Fraction of each period the emitter is on; allowed (0, 1].
    pub duty: f32,
}

/// A sphere or box that injects smoke, sets the temperature and pushes the fluid while it is
/// active.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Emitter {
    /// Shape: sphere (default) or box.
    #[serde(default)]
    pub shape: ShapeKind,
    /// Centre in world coordinates (domain units); `position` in a scene file means the same.
    #[serde(alias = "position")]
    pub center: [f32; 3],
    /// Sphere radius in domain units; allowed (0, 10].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// Box edge lengths in domain units; each allowed (0, 20].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f32; 3]>,
    /// Mesh file (Wavefront OBJ or STL) for `shape = "mesh"`; a relative path is taken from
    /// the scene file's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Rotation in degrees about x, then y, then z (Blender's XYZ Euler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[f32; 3]>,
    /// Scale: one number, or one per axis (of the shape's own axes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
    /// Key frames (`[[obstacle.key]]` / `[[emitter.key]]`): time, position, rotation, scale.
    #[serde(default, rename = "key", skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<Key>,
    /// Repeat the key frames' span for ever.
    #[serde(default, rename = "loop", skip_serializing_if = "is_false")]
    pub looped: bool,
    /// Ease in and out between key frames instead of moving at constant speed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub smooth: bool,
    /// Emit through the volume (default) or from the surface.
    #[serde(default, skip_serializing_if = "is_volume")]
    pub emit: EmitFrom,
    /// Density added per second to each covered cell; allowed [0, 1e6].
    #[serde(default)]
    pub density: f32,
    /// Fuel added per second to each covered cell (see the `[fire]` table); allowed [0, 1e6].
    /// Fuel burns where the temperature is above the ignition temperature, so a burner sets
    /// `temperature` above it too.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub fuel: f32,
    /// Flame added per second to each covered cell; allowed [0, 1e6].
    #[serde(default, skip_serializing_if = "is_zero")]
    pub flame: f32,
    /// Temperature the covered cells are set to; allowed [−1e4, 1e4]. Unset leaves the
    /// temperature alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    /// Velocity (domain-units/s) the covered fluid is set to; each component allowed within
    /// ±1e4. Unset leaves the velocity alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub velocity: Option<[f32; 3]>,
    /// Simulated second at which the emitter switches on. Default 0; allowed [0, 1e6].
    #[serde(default)]
    pub start: f32,
    /// Simulated second at which it switches off for good; unset: never. Must be > start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub end: Option<f32>,
    /// Optional on/off pulsing while active.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pulse: Option<Pulse>,
}

impl Default for Emitter {
    fn default() -> Self {
        Self {
            shape: ShapeKind::Sphere,
            center: [0.5, 0.12, 0.5],
            radius: Some(0.07),
            size: None,
            file: None,
            rotation: None,
            scale: None,
            keys: Vec::new(),
            looped: false,
            smooth: false,
            emit: EmitFrom::Volume,
            density: 2.0,
            fuel: 0.0,
            flame: 0.0,
            temperature: Some(1.0),
            velocity: Some([0.0, 0.25, 0.0]),
            start: 0.0,
            end: None,
            pulse: None,
        }
    }
}

impl Emitter {
    /// A sphere emitter adding `density` per second, no temperature, no velocity.
    pub fn sphere(center: [f32; 3], radius: f32, density: f32) -> Self {
        Self {
            center,
            radius: Some(radius),
            density,
            temperature: None,
            velocity: None,
            ..Self::default()
        }
    }

    /// The emitter's analytic shape (spheres and boxes; an error for a mesh), after checking
    /// the shape fields.
    pub fn shape(&self) -> Result<Shape, SimError> {
        resolve_shape(self.shape, self.center, self.radius, self.size)
    }

    /// The resolved geometry with where it emits from.
    pub fn emitter_body(&self) -> Result<Body, SimError> {
        let mut b = self.body()?;
        b.surface = self.emit == EmitFrom::Surface;
        Ok(b)
    }

    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<(), SimError> {
        self.body()?;
        ranges::DENSITY.check(self.density)?;
        ranges::FUEL.check(self.fuel)?;
        ranges::FLAME.check(self.flame)?;
        if let Some(t) = self.temperature {
            ranges::TEMPERATURE.check(t)?;
        }
        if let Some(v) = self.velocity {
            if !v.iter().all(|&c| ranges::VELOCITY.contains(f64::from(c))) {
                return Err(SimError::field(
                    "velocity",
                    format!(
                        "velocity = {v:?} has a component outside the allowed range {}",
                        ranges::VELOCITY.range_text()
                    ),
                ));
            }
        }
        ranges::START.check(self.start)?;
        if let Some(e) = self.end {
            if !(e.is_finite() && e > self.start && e <= 1e6) {
                return Err(SimError::field(
                    "end",
                    format!(
                        "end = {e} must be after start = {} and at most 1000000 seconds",
                        self.start
                    ),
                ));
            }
        }
        if let Some(p) = self.pulse {
            ranges::PERIOD.check_as("pulse", "pulse period", p.period)?;
            ranges::DUTY.check_as("pulse", "pulse duty", p.duty)?;
        }
        Ok(())
    }

    /// Whether the emitter injects fuel or flame (the solver then carries those fields).
    pub fn burns(&self) -> bool {
        self.fuel > 0.0 || self.flame > 0.0
    }

    /// Whether the emitter is on at simulated time `t` (seconds).
    pub fn active_at(&self, t: f64) -> bool {
        let start = self.start as f64;
        if t < start || self.end.is_some_and(|e| t >= e as f64) {
            return false;
        }
        match self.pulse {
            None => true,
            Some(p) => {
                let period = p.period as f64;
                (t - start).rem_euclid(period) < p.duty as f64 * period
            }
        }
    }
}

/// A solid sphere or box. Cells whose centre lies inside are solid: no flow through their
/// faces, no smoke inside.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Obstacle {
    /// Shape: sphere (default) or box.
    #[serde(default)]
    pub shape: ShapeKind,
    /// Centre in world coordinates (domain units); `position` in a scene file means the same.
    #[serde(alias = "position")]
    pub center: [f32; 3],
    /// Sphere radius in domain units; allowed (0, 10].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// Box edge lengths in domain units; each allowed (0, 20].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f32; 3]>,
    /// Mesh file (Wavefront OBJ or STL) for `shape = "mesh"`; a relative path is taken from
    /// the scene file's folder.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file: Option<String>,
    /// Rotation in degrees about x, then y, then z (Blender's XYZ Euler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[f32; 3]>,
    /// Scale: one number, or one per axis (of the shape's own axes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
    /// Key frames (`[[obstacle.key]]` / `[[emitter.key]]`): time, position, rotation, scale.
    #[serde(default, rename = "key", skip_serializing_if = "Vec::is_empty")]
    pub keys: Vec<Key>,
    /// Repeat the key frames' span for ever.
    #[serde(default, rename = "loop", skip_serializing_if = "is_false")]
    pub looped: bool,
    /// Ease in and out between key frames instead of moving at constant speed.
    #[serde(default, skip_serializing_if = "is_false")]
    pub smooth: bool,
}

impl Obstacle {
    /// A solid sphere.
    pub fn sphere(center: [f32; 3], radius: f32) -> Self {
        Self {
            shape: ShapeKind::Sphere,
            center,
            radius: Some(radius),
            size: None,
            file: None,
            rotation: None,
            scale: None,
            keys: Vec::new(),
            looped: false,
            smooth: false,
        }
    }

    /// A solid box with edge lengths `size`.
    pub fn cuboid(center: [f32; 3], size: [f32; 3]) -> Self {
        Self {
            shape: ShapeKind::Box,
            center,
            radius: None,
            size: Some(size),
            file: None,
            rotation: None,
            scale: None,
            keys: Vec::new(),
            looped: false,
            smooth: false,
        }
    }

    /// The obstacle's analytic shape (spheres and boxes; an error for a mesh), after
    /// checking the shape fields.
    pub fn shape(&self) -> Result<Shape, SimError> {
        resolve_shape(self.shape, self.center, self.radius, self.size)
    }
}
