//! Obstacles that move: each sub-step puts them where their key frames say, gives the faces
//! they touch their velocity (so the projection makes the fluid flow around and away from
//! them), and pushes the smoke out of the cells they sweep into instead of deleting it.

use super::*;
use crate::sim::body::Body;

impl Solver {
    /// Resolves the obstacles' bodies for this grid (reads mesh files once).
    pub(super) fn resolve_bodies(obstacles: &[Obstacle], h: f32) -> Result<Vec<Body>, SimError> {
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

    /// The stage: moves the obstacles to where they are at the sub-step's start.
    pub(super) fn stage_obstacles(&mut self, stats: &mut StepStats) {
        let old = std::mem::take(&mut self.solids);
        let new = Solids::build(&self.grid, &self.bodies, self.time, f64::from(self.sub_dt));
        let d = self.grid.dims;
        let mut lost = 0.0;
        for f in [&mut self.density, &mut self.fuel, &mut self.flame] {
            lost += push_out(d, &old.mask, &new.mask, f);
        }
        stats.swept_loss += lost;
        self.solids = new;
        self.scalar_maxima = [None; 4];
        self.update_pressure_diag();
        self.solids
            .fill_cells(&mut self.temperature, self.params.ambient_temperature);
        self.solids.fill_cells(&mut self.pressure, 0.0);
        self.enforce_boundaries();
    }
}

/// Moves what field `f` holds in cells that turned solid (solid in `new`, not in `old`) into
/// the nearest fluid cells of `new` (split evenly among those at the same distance, searched
/// up to 4 cells away), so the total is kept. Returns what found no fluid cell (lost).
fn push_out(d: Dims, old: &[u8], new: &[u8], f: &mut [f32]) -> f64 {
    if f.is_empty() || new.is_empty() {
        return 0.0;
    }
    let was_solid = |c: usize| !old.is_empty() && old[c] != 0;
    let n = d.as_array();
    let mut lost = 0.0f64;
    let swept: Vec<usize> = (0..new.len())
        .filter(|&c| new[c] != 0 && !was_solid(c) && f[c] != 0.0)
        .collect();
    for c in swept {
        let amount = f[c];
        f[c] = 0.0;
        let p = [c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny)];
        let mut done = false;
        for r in 1..=4i64 {
            let mut targets = Vec::new();
            for dz in -r..=r {
                for dy in -r..=r {
                    for dx in -r..=r {
                        if dx.abs().max(dy.abs()).max(dz.abs()) != r {
                            continue;
                        }
                        let q = [p[0] as i64 + dx, p[1] as i64 + dy, p[2] as i64 + dz];
                        if (0..3).any(|a| q[a] < 0 || q[a] >= n[a] as i64) {
                            continue;
                        }
                        let qi = d.idx(q[0] as usize, q[1] as usize, q[2] as usize);
                        if new[qi] == 0 {
                            targets.push(qi);
                        }
                    }
                }
            }
            if !targets.is_empty() {
                let share = amount / targets.len() as f32;
                for t in targets {
                    f[t] += share;
                }
                done = true;
                break;
            }
        }
        if !done {
            lost += f64::from(amount);
        }
    }
    lost
}
