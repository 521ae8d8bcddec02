//! Obstacles that move: each sub-step puts them where their key frames say and gives the
//! faces they touch their velocity, so the projection makes the fluid flow around and away
//! from them.
//!
//! Smoke where a solid sweeps in is not lost. The fluid at a solid's front moves with it, so
//! the advection carries the front cells' smoke ahead of the solid (a trace from a front
//! cell stops at the solid and keeps the cell's value, the cell ahead takes its share)
//! before the solid covers them; the covered cells are then cleared, and what they held is
//! added to the mass correction's target for the sub-step (`Solver::swept`), so the total
//! is kept and the smoke ahead of the solid is where it went. Pushing the covered smoke
//! into the cells ahead instead counts it twice: tried, the front layer piled up and blew
//! up within two seconds of the `paddle` preset. What the covered cells held is reported
//! per step (`StepStats::swept`); a test measures the total over a trip.

use super::*;
use crate::geometry::Pose;
use crate::sim::body::Body;

impl Solver {
    /// Resolves the obstacles' bodies for this grid (reads mesh files once).
    pub fn resolve_bodies(obstacles: &[Obstacle], h: f32) -> Result<Vec<Body>, SimError> {
        obstacles
            .iter()
            .enumerate()
            .map(|(i, o)| {
                let mut b = o.body().map_err(|e| match e {
                    SimError::Field { field, message } => SimError::Field {
                        message: format!("obstacle[{i}]: {message}"),
                        field,
                    },
                    e => e,
                })?;
                if b.moves() {
                    b.prepare(h);
                }
                Ok(b)
            })
            .collect()
    }

    /// `true` when an obstacle moves.
    pub(super) fn obstacles_move(&self) -> bool {
        self.bodies.iter().any(Body::moves)
    }

    /// The stage: moves the obstacles to where they are at the sub-step's start (nothing to
    /// do while every one stands where it stood the sub-step before, as before its first
    /// key or after its last).
    pub(super) fn stage_obstacles(&mut self, stats: &mut StepStats) {
        let dt = f64::from(self.sub_dt);
        let key: Vec<(Pose, Pose)> = self
            .bodies
            .iter()
            .map(|b| (b.pose_at(self.time), b.pose_at(self.time + dt)))
            .collect();
        let still = key.iter().all(|(a, b)| a == b);
        if still && self.solids_key.as_ref() == Some(&key) {
            return;
        }
        let old = std::mem::take(&mut self.solids);
        let new = Solids::build(&self.grid, &self.bodies, self.time, dt);
        let covered: f64 = new
            .cells
            .iter()
            .filter(|&&c| !old.is_solid(c as usize))
            .map(|&c| f64::from(self.density[c as usize]))
            .sum();
        stats.swept += covered * f64::from(self.grid.h).powi(3);
        self.swept += covered;
        self.solids = new;
        self.solids_key = Some(key);
        self.solids.fill_cells(&mut self.density, 0.0);
        self.solids.fill_cells(&mut self.fuel, 0.0);
        self.solids.fill_cells(&mut self.flame, 0.0);
        self.scalar_maxima = [None; 4];
        // The pressure operator changes only where solids were or are (and one cell around).
        let d = self.grid.dims;
        match (old.region, self.solids.region) {
            (Some(a), Some(b)) if self.pressure_diag.len() == d.cells() => {
                let n = d.as_array();
                let r = [0, 1, 2].map(|x| {
                    (
                        a[x].0.min(b[x].0).saturating_sub(1),
                        (a[x].1.max(b[x].1) + 1).min(n[x]),
                    )
                });
                self.solids
                    .pressure_diag_in(d, &self.boundaries, &mut self.pressure_diag, r);
            }
            _ => self.update_pressure_diag(),
        }
        self.solids
            .fill_cells(&mut self.temperature, self.params.ambient_temperature);
        self.solids.fill_cells(&mut self.pressure, 0.0);
        self.enforce_boundaries();
    }
}
