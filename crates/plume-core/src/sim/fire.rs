//! Combustion, after Nguyen, Fedkiw and Jensen (2002) in the simplified form Blender's
//! Mantaflow uses: fuel carried by the flow burns wherever the air is hotter than the ignition
//! temperature, at a first-order rate; what burns heats the air (so buoyancy lifts the fire),
//! feeds a flame field that decays at its own rate, leaves smoke, and may expand the gas
//! (a divergence source for the pressure solve).
//!
//! Units follow the rest of the solver: seconds, domain units, and the scene's temperature
//! scale. Plume writes temperature as Blender's Principled Volume reads it, in thousands of
//! kelvin (the shader's "Temperature" input, 1000 K by default, multiplies the grid), so an
//! ignition of 1.5 is 1500 K, and the renderer's blackbody colour uses the same scale.

use super::SimError;
use crate::ranges::fire as r;
use rayon::prelude::*;

/// The `[fire]` table of a scene file: how fuel burns. Fire happens only where an emitter
/// injects fuel; a scene without fuel pays nothing for it.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FireParams {
    /// Temperature above which fuel burns, in the scene's temperature units (thousands of
    /// kelvin as Blender reads them). Default 1.5; allowed [−10000, 10000].
    pub ignition: f32,
    /// First-order burn rate k in 1/s: where it burns, fuel decays as e^(−k·t). Default 4;
    /// allowed [0, 1000].
    pub burn_rate: f32,
    /// Temperature rise per unit of fuel burned. Default 1.5; allowed [0, 10000].
    pub heat: f32,
    /// Flame produced per unit of fuel burned. Default 1; allowed [0, 10000].
    pub flame: f32,
    /// Flame decay rate in 1/s: flame is multiplied by e^(−rate·dt) each step. Default 6;
    /// allowed [0, 1000].
    pub flame_decay: f32,
    /// Smoke (density) produced per unit of fuel burned. Default 0.6; allowed [0, 10000].
    pub smoke: f32,
    /// Gas expansion: ∇·u = expansion × (fuel burned per second) where it burns, so a burning
    /// cell pushes the air around it away. Default 0 (off); allowed [0, 100].
    pub expansion: f32,
}

impl Default for FireParams {
    fn default() -> Self {
        Self {
            ignition: r::IGNITION.default as f32,
            burn_rate: r::BURN_RATE.default as f32,
            heat: r::HEAT.default as f32,
            flame: r::FLAME.default as f32,
            flame_decay: r::FLAME_DECAY.default as f32,
            smoke: r::SMOKE.default as f32,
            expansion: r::EXPANSION.default as f32,
        }
    }
}

impl FireParams {
    /// Checks every field against its range in [`crate::ranges::fire`].
    pub fn validate(&self) -> Result<(), SimError> {
        r::IGNITION.check(self.ignition)?;
        r::BURN_RATE.check(self.burn_rate)?;
        r::HEAT.check(self.heat)?;
        r::FLAME.check(self.flame)?;
        r::FLAME_DECAY.check(self.flame_decay)?;
        r::SMOKE.check(self.smoke)?;
        r::EXPANSION.check(self.expansion)?;
        Ok(())
    }

    /// Fuel burned per second in a cell holding `fuel` at `temperature` (0 below ignition).
    #[inline]
    pub fn burn_rate_at(&self, fuel: f32, temperature: f32) -> f32 {
        if temperature > self.ignition && fuel > 0.0 {
            self.burn_rate * fuel
        } else {
            0.0
        }
    }
}

/// The fields combustion reads and writes, one value per cell.
pub struct FireFields<'a> {
    /// Smoke density.
    pub density: &'a mut [f32],
    /// Temperature.
    pub temperature: &'a mut [f32],
    /// Fuel.
    pub fuel: &'a mut [f32],
    /// Flame.
    pub flame: &'a mut [f32],
}

/// One combustion step of length `dt` over cells laid out in planes of `plane` cells: flame
/// decays by e^(−flame_decay·dt); where T > ignition, fuel F loses F·(1 − e^(−k·dt)) (the
/// exact solution of dF/dt = −k·F over the step), and that amount b raises the temperature by
/// heat·b, the flame by flame·b and the density by smoke·b. Nothing becomes negative.
/// Returns Σ b over the cells (fuel burned, cell units), summed plane by plane in order so
/// the figure does not depend on the number of threads.
pub fn burn(p: &FireParams, f: FireFields<'_>, plane: usize, dt: f32) -> f64 {
    let burned = 1.0 - (-p.burn_rate * dt).exp();
    let decay = (-p.flame_decay * dt).exp();
    let plane = plane.max(1);
    let per_plane: Vec<f64> = f
        .density
        .par_chunks_mut(plane)
        .zip(f.temperature.par_chunks_mut(plane))
        .zip(f.fuel.par_chunks_mut(plane))
        .zip(f.flame.par_chunks_mut(plane))
        .map(|(((d, t), fu), fl)| {
            let mut sum = 0.0f64;
            for c in 0..d.len() {
                let mut flame = fl[c] * decay;
                let fuel = fu[c];
                if fuel > 0.0 && t[c] > p.ignition {
                    let b = fuel * burned;
                    fu[c] = (fuel - b).max(0.0);
                    t[c] += p.heat * b;
                    d[c] += p.smoke * b;
                    flame += p.flame * b;
                    sum += f64::from(b);
                }
                fl[c] = flame.max(0.0);
            }
            sum
        })
        .collect();
    per_plane.iter().sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` cells of density, temperature, fuel and flame.
    struct Cells([Vec<f32>; 4]);

    impl Cells {
        fn new(n: usize, fuel: f32, t: f32) -> Self {
            Cells([vec![0.0; n], vec![t; n], vec![fuel; n], vec![0.0; n]])
        }
        /// One `burn` of `dt` over planes of 4 cells.
        fn burn(&mut self, p: &FireParams, dt: f32) -> f64 {
            let [d, t, fu, fl] = &mut self.0;
            let f = FireFields {
                density: d,
                temperature: t,
                fuel: fu,
                flame: fl,
            };
            burn(p, f, 4, dt)
        }
    }

    #[test]
    fn fuel_decays_exactly_at_the_burn_rate_and_heat_matches_fuel_burned() {
        let p = FireParams::default();
        let mut c = Cells::new(8, 2.0, 2.0);
        let total: f64 = (0..60).map(|_| c.burn(&p, 1.0 / 60.0)).sum();
        let [d, t, fu, _] = &c.0;
        let expect = 2.0 * (-p.burn_rate).exp();
        assert!((fu[0] - expect).abs() < 1e-5, "{} vs {expect}", fu[0]);
        let per_cell = total / 8.0;
        assert!((per_cell - f64::from(2.0 - expect)).abs() < 1e-5);
        assert!((t[0] - (2.0 + p.heat * (2.0 - expect))).abs() < 1e-4);
        assert!((d[0] - p.smoke * (2.0 - expect)).abs() < 1e-5);
    }

    #[test]
    fn nothing_burns_at_or_below_ignition() {
        let p = FireParams::default();
        let mut c = Cells::new(4, 1.0, p.ignition);
        assert_eq!(c.burn(&p, 0.1), 0.0);
        assert_eq!(c.0[2], vec![1.0; 4]);
        assert_eq!(c.0[1], vec![p.ignition; 4]);
    }
}
