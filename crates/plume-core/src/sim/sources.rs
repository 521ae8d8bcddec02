//! Emitters (sphere or box sources of smoke, heat and motion) and obstacles (solid spheres and
//! boxes), with the shapes they share.

use super::SimError;
use crate::ranges::emitter as ranges;

/// Which shape an emitter or obstacle has. In a scene file: `shape = "sphere"` (with
/// `radius`) or `shape = "box"` (with `size`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ShapeKind {
    /// A sphere of `radius` around `center`.
    #[default]
    Sphere,
    /// An axis-aligned box of edge lengths `size` centred on `center`.
    Box,
}

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
    }
}

fn is_zero(x: &f32) -> bool {
    *x == 0.0
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
    /// Centre in world coordinates (domain units).
    pub center: [f32; 3],
    /// Sphere radius in domain units; allowed (0, 10].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// Box edge lengths in domain units; each allowed (0, 20].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f32; 3]>,
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

    /// The emitter's shape, after checking the shape fields.
    pub fn shape(&self) -> Result<Shape, SimError> {
        resolve_shape(self.shape, self.center, self.radius, self.size)
    }

    /// Checks every field against its documented range.
    pub fn validate(&self) -> Result<(), SimError> {
        self.shape()?;
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
    /// Centre in world coordinates (domain units).
    pub center: [f32; 3],
    /// Sphere radius in domain units; allowed (0, 10].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub radius: Option<f32>,
    /// Box edge lengths in domain units; each allowed (0, 20].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<[f32; 3]>,
}

impl Obstacle {
    /// A solid sphere.
    pub fn sphere(center: [f32; 3], radius: f32) -> Self {
        Self {
            shape: ShapeKind::Sphere,
            center,
            radius: Some(radius),
            size: None,
        }
    }

    /// A solid box with edge lengths `size`.
    pub fn cuboid(center: [f32; 3], size: [f32; 3]) -> Self {
        Self {
            shape: ShapeKind::Box,
            center,
            radius: None,
            size: Some(size),
        }
    }

    /// The obstacle's shape, after checking the shape fields.
    pub fn shape(&self) -> Result<Shape, SimError> {
        resolve_shape(self.shape, self.center, self.radius, self.size)
    }
}
