//! The solver's side of combustion (see [`crate::sim::fire`]): the `combustion` stage and the
//! gas expansion the pressure solve honours.

use super::*;

impl Solver {
    /// The `combustion` stage: burns fuel above the ignition temperature, decays the flame.
    pub(super) fn stage_combustion(&mut self, stats: &mut StepStats) {
        let plane = self.grid.dims.nx * self.grid.dims.ny;
        let burned = fire::burn(
            &self.fire,
            fire::FireFields {
                density: &mut self.density,
                temperature: &mut self.temperature,
                fuel: &mut self.fuel,
                flame: &mut self.flame,
            },
            plane,
            self.sub_dt,
        );
        let cell = f64::from(self.grid.h).powi(3);
        stats.fuel_burned += burned * cell;
        stats.source_added += burned * f64::from(self.fire.smoke) * cell;
    }

    /// Gas expansion: raises the projection's right-hand side so the projected velocity has
    /// ∇·u = expansion × (fuel burned per second) in every burning cell. In a closed box
    /// (`closed`) the mean is taken out again: there the air has nowhere to go.
    pub(super) fn add_expansion(&mut self, closed: bool) {
        let (h, dt) = (self.grid.h, self.sub_dt);
        // rhs = −(h/dt)·(h·∇·u); asking for ∇·u = s adds (h²/dt)·s.
        let k = h * h / dt * self.fire.expansion;
        let fire = &self.fire;
        self.rhs
            .par_iter_mut()
            .zip(self.fuel.par_iter())
            .zip(self.temperature.par_iter())
            .for_each(|((r, &f), &t)| *r += k * fire.burn_rate_at(f, t));
        if closed {
            let mean = (det_sum(&self.rhs) / self.rhs.len() as f64) as f32;
            self.rhs.par_iter_mut().for_each(|r| *r -= mean);
        }
    }

    /// Total fuel, Σ fuel·h³ (0 while there is none).
    pub fn total_fuel(&self) -> f64 {
        det_sum(&self.fuel) * f64::from(self.grid.h).powi(3)
    }

    /// Total flame, Σ flame·h³ (0 while there is none).
    pub fn total_flame(&self) -> f64 {
        det_sum(&self.flame) * f64::from(self.grid.h).powi(3)
    }
}
