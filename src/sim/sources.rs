//! Sphere emitters and direct injection of density and velocity.

use super::SimError;

/// A sphere that injects smoke and pushes the fluid.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Emitter {
    /// Centre in world coordinates (domain units).
    pub center: [f32; 3],
    /// Radius in domain units; allowed (0, 10].
    pub radius: f32,
    /// Density added per second to each cell inside the sphere; allowed [0, 1e6].
    pub rate: f32,
    /// Velocity (domain-units/s) the fluid inside the sphere is set to; each component
    /// allowed within ±1e4. `None` leaves the velocity alone.
    #[serde(default)]
    pub velocity: Option<[f32; 3]>,
}

impl Emitter {
    /// Checks the emitter's fields against their documented ranges.
    pub fn validate(&self) -> Result<(), SimError> {
        let bad = |m: String| Err(SimError::InvalidParameter(m));
        if self.center.iter().any(|c| !c.is_finite() || c.abs() > 1e6) {
            return bad(format!("emitter center {:?} must be finite", self.center));
        }
        if !(self.radius.is_finite() && self.radius > 0.0 && self.radius <= 10.0) {
            return bad(format!(
                "emitter radius = {} is outside the allowed range (0, 10]",
                self.radius
            ));
        }
        if !(self.rate.is_finite() && (0.0..=1e6).contains(&self.rate)) {
            return bad(format!(
                "emitter rate = {} is outside the allowed range [0, 1000000]",
                self.rate
            ));
        }
        if let Some(v) = self.velocity {
            if v.iter().any(|c| !c.is_finite() || c.abs() > 1e4) {
                return bad(format!(
                    "emitter velocity {v:?} has a component outside the allowed range [-10000, 10000]"
                ));
            }
        }
        Ok(())
    }
}

/// Fraction of a cube of side `h` centred `dist` from a sphere's centre that lies inside the
/// sphere of radius `r`, approximated by a linear ramp one voxel wide. Using coverage instead of
/// an inside/outside test makes the emitted volume nearly independent of the resolution.
#[inline]
pub fn coverage(dist: f32, r: f32, h: f32) -> f32 {
    ((r - dist) / h + 0.5).clamp(0.0, 1.0)
}
