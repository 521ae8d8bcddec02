//! One table of every numeric parameter a user can set: its name as scene files spell it,
//! unit, default, allowed range and the scale a slider should use. Validation
//! (`FluidParams::validate`, `Emitter::validate`, `RenderSettings::validate`, the scene
//! reader), the command line's value parsers and the viewer's sliders all read these
//! entries, so a range is written once, and a slider spans exactly what validation allows —
//! it never clamps a value a scene file may hold.

use crate::sim::SimError;

/// How a slider moves through a range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    /// Evenly.
    Linear,
    /// By orders of magnitude (for ranges over several decades; egui's logarithmic slider
    /// also handles ranges that include zero or span both signs).
    Log,
}

/// A numeric parameter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Param {
    /// The key as scene files spell it (`fade`, `density_scale`, …).
    pub key: &'static str,
    /// Unit, for help texts and slider suffixes (`""` for none).
    pub unit: &'static str,
    /// The default value.
    pub default: f64,
    /// Lower bound.
    pub min: f64,
    /// Upper bound.
    pub max: f64,
    /// The lower bound itself is not allowed.
    pub min_open: bool,
    /// The upper bound itself is not allowed.
    pub max_open: bool,
    /// Slider scale.
    pub scale: Scale,
    /// Whole numbers only.
    pub integer: bool,
    /// What it means: the entry's documentation (the reference pages are generated from it).
    pub doc: &'static str,
}

/// A closed range with a linear slider; the other shapes are built from it.
const fn closed(key: &'static str, unit: &'static str, default: f64, min: f64, max: f64) -> Param {
    Param {
        key,
        unit,
        default,
        min,
        max,
        min_open: false,
        max_open: false,
        scale: Scale::Linear,
        integer: false,
        doc: "",
    }
}

impl Param {
    const fn log(mut self) -> Self {
        self.scale = Scale::Log;
        self
    }
    const fn open_min(mut self) -> Self {
        self.min_open = true;
        self
    }
    const fn open_max(mut self) -> Self {
        self.max_open = true;
        self
    }
    const fn whole(mut self) -> Self {
        self.integer = true;
        self
    }
    const fn doc(mut self, doc: &'static str) -> Self {
        self.doc = doc;
        self
    }

    /// Whether `v` is allowed (finite and within the bounds).
    pub fn contains(&self, v: f64) -> bool {
        v.is_finite()
            && if self.min_open {
                v > self.min
            } else {
                v >= self.min
            }
            && if self.max_open {
                v < self.max
            } else {
                v <= self.max
            }
    }

    /// The allowed range as messages write it: `[0, 1000]`, `(0, 1]`, `[1e-7, 1)`.
    pub fn range_text(&self) -> String {
        format!(
            "{}{}, {}{}",
            if self.min_open { '(' } else { '[' },
            self.min,
            self.max,
            if self.max_open { ')' } else { ']' }
        )
    }

    /// `name = v is outside the allowed range [lo, hi] unit`.
    pub fn out_of_range(&self, name: &str, v: impl std::fmt::Display) -> String {
        let unit = if self.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", self.unit)
        };
        format!(
            "{name} = {v} is outside the allowed range {}{unit}",
            self.range_text()
        )
    }

    /// Checks `v`; the error names the key, the value and the allowed range.
    pub fn check(&self, v: f32) -> Result<(), SimError> {
        self.check_as(self.key, self.key, v)
    }

    /// [`Param::check`] for a whole-number parameter.
    pub fn check_count(&self, v: u32) -> Result<(), SimError> {
        if self.contains(f64::from(v)) {
            Ok(())
        } else {
            Err(SimError::field(self.key, self.out_of_range(self.key, v)))
        }
    }

    /// Checks `v`, reporting it as `field` (the key a scene file names) with `name` in the
    /// message (e.g. field `pulse`, name `pulse duty`).
    pub fn check_as(&self, field: &str, name: &str, v: f32) -> Result<(), SimError> {
        if self.contains(f64::from(v)) {
            Ok(())
        } else {
            Err(SimError::field(field, self.out_of_range(name, v)))
        }
    }

    /// Parses a command-line value: a number within the range, or a message naming the range.
    pub fn parse(&self, s: &str) -> Result<f64, String> {
        let v: f64 = s.trim().parse().map_err(|_| {
            if self.integer {
                format!("'{s}' is not a whole number")
            } else {
                format!("'{s}' is not a number")
            }
        })?;
        if self.integer && v.fract() != 0.0 {
            return Err(format!("'{s}' is not a whole number"));
        }
        if self.contains(v) {
            Ok(v)
        } else {
            let unit = if self.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", self.unit)
            };
            Err(format!(
                "{v} is outside the allowed range {}{unit}",
                self.range_text()
            ))
        }
    }

    /// The range a slider spans: the allowed one, an open end moved just inside it.
    pub fn slider_range(&self) -> (f64, f64) {
        let span = self.max - self.min;
        let lo = if self.min_open {
            self.min + span * 1e-9
        } else {
            self.min
        };
        let hi = if self.max_open {
            self.max - span * 1e-6
        } else {
            self.max
        };
        (lo, hi)
    }

    /// The smallest positive value a logarithmic slider shows before zero.
    pub fn log_floor(&self) -> f64 {
        if self.min > 0.0 {
            self.min
        } else {
            (self.max.abs() * 1e-7).max(1e-9)
        }
    }
}

/// The entries of one table: each `pub const` keeps its doc comment, which also becomes the
/// entry's [`Param::doc`], and `LIST` holds them in order.
macro_rules! params {
    ($($(#[doc = $d:literal])+ pub const $name:ident: Param = $e:expr;)+) => {
        $($(#[doc = $d])+ pub const $name: Param = $e.doc(concat!($($d, "\n"),+));)+
        /// This table's entries, in order.
        pub const LIST: &[Param] = &[$($name),+];
    };
}

/// Fluid parameters (`[fluid]` in a scene file, `FluidParams`).
pub mod fluid {
    use super::{closed, Param};
    params! {
        /// Time step, s.
        pub const DT: Param = closed("dt", "s", 1.0 / 60.0, 0.0, 1.0).open_min().log();
        /// Largest CFL number of a sub-step, cells.
        pub const MAX_CFL: Param = closed("max_cfl", "cells", 2.0, 0.25, 16.0).log();
        /// Most sub-steps a step may take. The solver takes fewer where the grid or the step
        /// budget allows fewer (`sim::cost::substep_cap`: a flow crossing the grid in one step
        /// needs no more than its longest side / `max_cfl`, and the budget pays for a few dozen
        /// sub-steps at most), so more than 100 have no use.
        pub const MAX_SUBSTEPS: Param = closed("max_substeps", "", 64.0, 1.0, 100.0).whole().log();
        /// Density diffusion κ.
        pub const DIFFUSION: Param = closed("diffusion", "u²/s", 0.0, 0.0, 1.0).log();
        /// Kinematic viscosity ν.
        pub const VISCOSITY: Param = closed("viscosity", "u²/s", 0.0, 0.0, 1.0).log();
        /// Density fade rate.
        pub const FADE: Param = closed("fade", "1/s", 0.05, 0.0, 1000.0).log();
        /// Smoke weight α.
        pub const SMOKE_WEIGHT: Param = closed("smoke_weight", "u/s²", 0.1, -1000.0, 1000.0).log();
        /// Thermal buoyancy β.
        pub const BUOYANCY: Param = closed("buoyancy", "u/s² per degree", 1.5, -1000.0, 1000.0).log();
        /// Ambient temperature.
        pub const AMBIENT_TEMPERATURE: Param = closed("ambient_temperature", "", 0.0, -1e4, 1e4).log();
        /// Cooling rate.
        pub const COOLING: Param = closed("cooling", "1/s", 0.5, 0.0, 1000.0).log();
        /// Vorticity confinement ε.
        pub const VORTICITY: Param = closed("vorticity", "", 0.0, 0.0, 100.0).log();
        /// Relative tolerance of the pressure solve.
        pub const PRESSURE_TOLERANCE: Param = closed("pressure_tolerance", "", 1e-3, 1e-7, 1.0)
            .open_max()
            .log();
        /// Cap on pressure iterations of one solve. The step budget (`sim::cost`) stops a
        /// solve sooner where it would cost more: red-black SOR on the largest grid (512
        /// cells a side) reaches 1e-7 in under a thousand iterations, so more than 10 000
        /// have no use.
        pub const PRESSURE_MAX_ITERATIONS: Param =
            closed("pressure_max_iterations", "", 200.0, 1.0, 10_000.0)
                .whole()
                .log();
        /// SOR over-relaxation ω.
        pub const SOR_OMEGA: Param = closed("sor_omega", "", 1.9, 1.0, 2.0).open_max();
        /// Relative tolerance of the implicit diffusion solves.
        pub const DIFFUSION_TOLERANCE: Param = closed("diffusion_tolerance", "", 1e-5, 1e-7, 1.0)
            .open_max()
            .log();
        /// Cap on Gauss-Seidel iterations of a diffusion solve. The step budget
        /// (`sim::cost`) stops a solve sooner where it would cost more: beyond about a
        /// thousand sweeps of the grid a step costs more than the budget allows at any
        /// setting, so more than 1000 have no use.
        pub const DIFFUSION_MAX_ITERATIONS: Param =
            closed("diffusion_max_iterations", "", 50.0, 1.0, 1000.0)
                .whole()
                .log();
    }
}

/// Emitters and obstacles (`[[emitter]]`, `[[obstacle]]`).
pub mod emitter {
    use super::{closed, Param};
    params! {
        /// Sphere radius, domain units.
        pub const RADIUS: Param = closed("radius", "", 0.05, 0.0, 10.0).open_min().log();
        /// Box edge length, domain units.
        pub const SIZE: Param = closed("size", "", 0.1, 0.0, 20.0).open_min().log();
        /// Each component of a centre, domain units.
        pub const CENTER: Param = closed("center", "", 0.5, -1e6, 1e6);
        /// Density added per second.
        pub const DENSITY: Param = closed("density", "", 1.0, 0.0, 1e6).log();
        /// Temperature of what it emits.
        pub const TEMPERATURE: Param = closed("temperature", "", 0.0, -1e4, 1e4).log();
        /// Each component of its velocity, domain-units/s.
        pub const VELOCITY: Param = closed("velocity", "u/s", 0.0, -1e4, 1e4).log();
        /// When it starts, s.
        pub const START: Param = closed("start", "seconds", 0.0, 0.0, 1e6).log();
        /// Pulse period, s.
        pub const PERIOD: Param = closed("period", "seconds", 1.0, 0.0, 1e6).open_min().log();
        /// Fraction of a period it is on.
        pub const DUTY: Param = closed("duty", "", 0.5, 0.0, 1.0).open_min();
        /// Fuel added per second.
        pub const FUEL: Param = closed("fuel", "", 0.0, 0.0, 1e6).log();
        /// Flame added per second.
        pub const FLAME: Param = closed("flame", "", 0.0, 0.0, 1e6).log();
    }
}

/// Combustion (`[fire]`, `FireParams`).
pub mod fire {
    use super::{closed, Param};
    params! {
        /// Temperature above which fuel burns (thousands of kelvin as Blender reads them).
        pub const IGNITION: Param = closed("ignition", "", 1.5, -1e4, 1e4).log();
        /// First-order burn rate, 1/s.
        pub const BURN_RATE: Param = closed("burn_rate", "1/s", 4.0, 0.0, 1000.0).log();
        /// Temperature rise per unit of fuel burned.
        pub const HEAT: Param = closed("heat", "per fuel", 1.5, 0.0, 1e4).log();
        /// Flame produced per unit of fuel burned.
        pub const FLAME: Param = closed("flame", "per fuel", 1.0, 0.0, 1e4).log();
        /// Flame decay rate, 1/s.
        pub const FLAME_DECAY: Param = closed("flame_decay", "1/s", 6.0, 0.0, 1000.0).log();
        /// Smoke produced per unit of fuel burned.
        pub const SMOKE: Param = closed("smoke", "per fuel", 0.6, 0.0, 1e4).log();
        /// Gas expansion: divergence per unit of fuel burned per second.
        pub const EXPANSION: Param = closed("expansion", "per fuel", 0.0, 0.0, 100.0).log();
    }
}

/// Rendering (`[render]`, `RenderSettings`).
pub mod render {
    use super::{closed, Param};
    params! {
        /// Extinction per unit density per domain unit.
        pub const DENSITY_SCALE: Param = closed("density_scale", "", 40.0, 0.0, 1e6).log();
        /// Samples per voxel along a ray.
        pub const STEP_QUALITY: Param = closed("step_quality", "", 1.5, 1.0, 8.0);
        /// Samples of the shadow march.
        pub const SHADOW_STEPS: Param = closed("shadow_steps", "", 24.0, 1.0, 256.0).whole().log();
        /// Ambient light.
        pub const AMBIENT: Param = closed("ambient", "", 0.25, 0.0, 10.0);
        /// Each component of a colour.
        pub const COLOR: Param = closed("color", "", 1.0, 0.0, 10.0);
        /// Henyey–Greenstein anisotropy g.
        pub const ANISOTROPY: Param = closed("anisotropy", "", 0.3, -0.95, 0.95);
        /// Exposure, stops.
        pub const EXPOSURE: Param = closed("exposure", "stops", 0.0, -10.0, 10.0);
        /// Flame emission per domain unit at 1500 K.
        pub const FLAME_INTENSITY: Param = closed("flame_intensity", "", 12.0, 0.0, 1e4).log();
        /// How strongly the flame lights the smoke.
        pub const FLAME_LIGHT: Param = closed("flame_light", "", 1.0, 0.0, 100.0).log();
        /// Kelvin per unit of temperature.
        pub const KELVIN_PER_UNIT: Param = closed("kelvin_per_unit", "K", 1000.0, 1.0, 1e5).log();
    }
}

/// The grid, camera and boundaries.
pub mod scene {
    use super::{closed, Param};
    params! {
        /// Length of the domain's largest side.
        pub const GRID_SIZE: Param = closed("grid.size", "", 1.0, 0.0, 1e4).open_min().log();
        /// Camera pitch, degrees.
        pub const PITCH: Param = closed("camera.pitch", "", 20.0, -89.0, 89.0);
        /// Camera distance, domain units.
        pub const DISTANCE: Param = closed("camera.distance", "", 2.5, 0.0, 1000.0)
            .open_min()
            .log();
        /// Inflow speed of a boundary face, domain-units/s.
        pub const INFLOW_SPEED: Param = closed("inflow speed", "", 1.0, 0.0, 1000.0)
            .open_min()
            .log();
    }
}

/// The up-resolution pass (`[detail]`, `DetailParams`).
pub mod detail {
    use super::{closed, Param};
    params! {
        /// Fine cells along a coarse cell's side.
        pub const FACTOR: Param = closed("factor", "", 2.0, 2.0, 4.0).whole();
        /// Turbulence against the coarse flow's unresolved part.
        pub const STRENGTH: Param = closed("strength", "", 24.0, 0.0, 200.0);
        /// Size of the noise's features, fine cells.
        pub const NOISE_SCALE: Param = closed("noise_scale", "cells", 4.0, 0.5, 16.0).log();
        /// Seconds between regenerations of each set of noise coordinates.
        pub const REGENERATE: Param = closed("regenerate", "seconds", 1.0, 0.05, 100.0).log();
    }
}

/// Every entry, for listings and tests: each table's `LIST` in turn.
pub const ALL: [Param; 52] = {
    let lists = [
        fluid::LIST,
        emitter::LIST,
        fire::LIST,
        render::LIST,
        scene::LIST,
        detail::LIST,
    ];
    let mut all = [fluid::DT; 52];
    let (mut n, mut i) = (0, 0);
    while i < lists.len() {
        let mut j = 0;
        while j < lists[i].len() {
            all[n] = lists[i][j];
            n += 1;
            j += 1;
        }
        i += 1;
    }
    assert!(n == all.len(), "ALL's length is the tables' entries in all");
    all
};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_default_is_allowed_and_every_slider_range_is_inside_the_allowed_one() {
        for p in ALL {
            assert!(p.contains(p.default), "{}: default {}", p.key, p.default);
            let (lo, hi) = p.slider_range();
            assert!(p.contains(lo) && p.contains(hi), "{}: {lo}..{hi}", p.key);
            assert!(lo < hi, "{}", p.key);
            assert_eq!(p.contains(p.min), !p.min_open, "{}", p.key);
            assert_eq!(p.contains(p.max), !p.max_open, "{}", p.key);
            assert!(!p.contains(f64::NAN) && !p.contains(f64::INFINITY));
        }
    }

    #[test]
    fn messages_name_the_value_and_the_range() {
        assert_eq!(
            fluid::FADE.check(2000.0).expect_err("too big").to_string(),
            "fade = 2000 is outside the allowed range [0, 1000] 1/s"
        );
        assert_eq!(
            fluid::DT.parse("0").expect_err("open"),
            "0 is outside the allowed range (0, 1] s"
        );
        assert_eq!(
            fluid::MAX_SUBSTEPS.parse("2.5").expect_err("whole"),
            "'2.5' is not a whole number"
        );
        assert_eq!(render::DENSITY_SCALE.parse(" 12 "), Ok(12.0));
    }
}
