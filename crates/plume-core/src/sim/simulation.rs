//! The seam between a solver backend and everything that drives or reads it: the viewer's
//! simulation thread, the batch CLI and the exporters. The CPU [`Solver`] is one backend; a
//! second one (a GPU solver is planned) implements this trait, hands out the same
//! [`Frame`]s, and nothing in the viewer or export changes.

use super::{Emitter, FireParams, FluidParams, Grid, Obstacle, SimError, Solver, StepStats};
use crate::frame::{cell_velocity, divergence, emitter_marks, Frame, Select};

/// Every field of a simulation and its clock, as the solver holds them (velocity on its
/// faces): what switching backends carries from one to the other.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FieldState {
    /// Simulated time, s.
    pub time: f64,
    /// Steps taken.
    pub steps: u64,
    /// Density, `nx·ny·nz`.
    pub density: Vec<f32>,
    /// Temperature, `nx·ny·nz`.
    pub temperature: Vec<f32>,
    /// Fuel, `nx·ny·nz`, or empty while nothing burns.
    pub fuel: Vec<f32>,
    /// Flame, `nx·ny·nz`, or empty while nothing burns.
    pub flame: Vec<f32>,
    /// u, v and w on their faces (`(nx+1)·ny·nz`, `nx·(ny+1)·nz`, `nx·ny·(nz+1)`).
    pub velocity: [Vec<f32>; 3],
    /// Pressure, `nx·ny·nz`.
    pub pressure: Vec<f32>,
}

impl FieldState {
    /// Checks every length against `grid` (fuel and flame may be empty).
    pub fn check(&self, grid: &Grid) -> Result<(), SimError> {
        let d = grid.dims;
        let n = d.cells();
        let bad = |what: &str, len: usize, want: usize| {
            Err(SimError::InvalidParameter(format!(
                "{what} holds {len} values; a {d} grid has {want}"
            )))
        };
        for (what, v) in [
            ("density", &self.density),
            ("temperature", &self.temperature),
            ("pressure", &self.pressure),
        ] {
            if v.len() != n {
                return bad(what, v.len(), n);
            }
        }
        for (what, v) in [("fuel", &self.fuel), ("flame", &self.flame)] {
            if !v.is_empty() && v.len() != n {
                return bad(what, v.len(), n);
            }
        }
        for a in 0..3 {
            let want = d.faces(a).cells();
            if self.velocity[a].len() != want {
                return bad("velocity", self.velocity[a].len(), want);
            }
        }
        Ok(())
    }
}

/// A running simulation: step it, change its parameters, read frames of its fields.
pub trait Simulation: Send {
    /// A short name of the backend, for statistics and benchmark output.
    fn backend(&self) -> &'static str;
    /// Cell counts, voxel size and placement.
    fn grid(&self) -> &Grid;
    /// Bytes the backend holds for its fields (on the card for the GPU backend).
    fn memory_bytes(&self) -> usize;
    /// What solves the pressure equation, in words.
    fn pressure_solver(&self) -> &'static str;
    /// The current parameters.
    fn params(&self) -> &FluidParams;
    /// Replaces the parameters (validated; on error nothing changes).
    fn set_params(&mut self, p: FluidParams) -> Result<(), SimError>;
    /// How fuel burns.
    fn fire(&self) -> &FireParams;
    /// Replaces the combustion parameters (validated; on error nothing changes).
    fn set_fire(&mut self, p: FireParams) -> Result<(), SimError>;
    /// The current emitters.
    fn emitters(&self) -> &[Emitter];
    /// Replaces the emitters (validated; on error nothing changes).
    fn set_emitters(&mut self, es: Vec<Emitter>) -> Result<(), SimError>;
    /// The current obstacles.
    fn obstacles(&self) -> &[Obstacle];
    /// Replaces the obstacles (validated, meshes read; on error nothing changes). The smoke
    /// inside the new solids is cleared; the flow carries on around them.
    fn set_obstacles(&mut self, os: Vec<Obstacle>) -> Result<(), SimError>;
    /// Advances one step (`params().dt` of simulated time, in as many sub-steps as it needs).
    /// Fails, leaving the fields as they are, when one stops being finite.
    fn step(&mut self) -> Result<&StepStats, SimError>;
    /// Statistics of the last step.
    fn stats(&self) -> &StepStats;
    /// Simulated time, s.
    fn time(&self) -> f64;
    /// Steps taken.
    fn steps(&self) -> u64;
    /// Clears the fields and the clock; keeps parameters, emitters and obstacles.
    fn reset(&mut self);
    /// Adds smoke and pushes the fluid inside a ball (mouse painting).
    fn paint(
        &mut self,
        center: [f32; 3],
        radius: f32,
        density: f32,
        velocity: [f32; 3],
    ) -> Result<(), SimError>;
    /// Total amount of smoke, Σ density·h³.
    fn total_density(&self) -> f64;
    /// An owned copy of the selected fields.
    fn frame(&self, select: Select) -> Frame;
    /// Every field and the clock (for handing the simulation to another backend).
    fn state(&self) -> FieldState;
    /// Replaces every field and the clock (lengths checked; on error nothing changes).
    fn set_state(&mut self, s: FieldState) -> Result<(), SimError>;
    /// The simulation without any pass layered on top (itself when there is none), state
    /// kept: what switching the up-resolution pass off or re-making it starts from.
    fn into_coarse(self: Box<Self>) -> Box<dyn Simulation>;
    /// Turns the kernel clock on or off: with it on, each step's [`HostStats::kernels`]
    /// times every kernel on the card's clock (a timestamp after each dispatch, which costs
    /// a little time of its own). Returns whether the backend has such a clock (the CPU
    /// backend has no kernels; a GPU driver without timer queries has none).
    ///
    /// [`HostStats::kernels`]: crate::sim::HostStats::kernels
    fn time_kernels(&mut self, _on: bool) -> bool {
        false
    }
    /// The backend's own type, for what only it offers (the GPU backend's shared textures);
    /// `None` where there is nothing more.
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
    /// [`Simulation::as_any`], to change what only the backend offers (a played-back run's
    /// position).
    fn as_any_mut(&mut self) -> Option<&mut dyn std::any::Any> {
        None
    }
}

impl Simulation for Solver {
    fn backend(&self) -> &'static str {
        "cpu"
    }
    fn into_coarse(self: Box<Self>) -> Box<dyn Simulation> {
        self
    }
    fn grid(&self) -> &Grid {
        Solver::grid(self)
    }
    fn memory_bytes(&self) -> usize {
        Solver::memory_bytes(self)
    }
    fn pressure_solver(&self) -> &'static str {
        self.pressure_solver_name()
    }
    fn params(&self) -> &FluidParams {
        Solver::params(self)
    }
    fn set_params(&mut self, p: FluidParams) -> Result<(), SimError> {
        Solver::set_params(self, p)
    }
    fn fire(&self) -> &FireParams {
        Solver::fire(self)
    }
    fn set_fire(&mut self, p: FireParams) -> Result<(), SimError> {
        Solver::set_fire(self, p)
    }
    fn emitters(&self) -> &[Emitter] {
        Solver::emitters(self)
    }
    fn set_emitters(&mut self, es: Vec<Emitter>) -> Result<(), SimError> {
        Solver::set_emitters(self, es)
    }
    fn obstacles(&self) -> &[Obstacle] {
        Solver::obstacles(self)
    }
    fn set_obstacles(&mut self, os: Vec<Obstacle>) -> Result<(), SimError> {
        Solver::set_obstacles(self, os)
    }
    fn step(&mut self) -> Result<&StepStats, SimError> {
        self.try_step()
    }
    fn stats(&self) -> &StepStats {
        Solver::stats(self)
    }
    fn time(&self) -> f64 {
        Solver::time(self)
    }
    fn steps(&self) -> u64 {
        Solver::steps(self)
    }
    fn reset(&mut self) {
        Solver::reset(self)
    }
    fn paint(
        &mut self,
        center: [f32; 3],
        radius: f32,
        density: f32,
        velocity: [f32; 3],
    ) -> Result<(), SimError> {
        let r1 = self.add_density_at(center, radius, density);
        let r2 = self.add_velocity_at(center, radius, velocity);
        r1.and(r2)
    }
    fn total_density(&self) -> f64 {
        Solver::total_density(self)
    }
    fn state(&self) -> FieldState {
        FieldState {
            time: Solver::time(self),
            steps: Solver::steps(self),
            density: self.density().to_vec(),
            temperature: self.temperature().to_vec(),
            fuel: self.fuel().to_vec(),
            flame: self.flame().to_vec(),
            velocity: [0, 1, 2].map(|a| self.velocity(a).to_vec()),
            pressure: self.pressure().to_vec(),
        }
    }
    fn set_state(&mut self, s: FieldState) -> Result<(), SimError> {
        s.check(Solver::grid(self))?;
        self.set_fields(s);
        Ok(())
    }
    fn frame(&self, select: Select) -> Frame {
        let grid = *Solver::grid(self);
        let d = grid.dims;
        let vel = [0, 1, 2].map(|a| self.velocity(a));
        Frame {
            grid,
            step: Solver::steps(self),
            time: Solver::time(self),
            density: select.density.then(|| self.density().to_vec()),
            temperature: select.temperature.then(|| self.temperature().to_vec()),
            fuel: select.fuel.then(|| or_zeros(self.fuel(), d.cells())),
            flame: select.flame.then(|| or_zeros(self.flame(), d.cells())),
            velocity: select.velocity.then(|| cell_velocity(&grid, vel)),
            pressure: select.pressure.then(|| self.pressure().to_vec()),
            divergence: select.divergence.then(|| divergence(&grid, vel)),
            solid: if select.solid {
                self.solid_mask().map(<[u8]>::to_vec)
            } else {
                None
            },
            collision: None,
            emitters: emitter_marks(Solver::emitters(self)),
            streamlines: None,
        }
    }
}

/// A copy of `f`, or `n` zeros where the field has not been allocated.
fn or_zeros(f: &[f32], n: usize) -> Vec<f32> {
    if f.is_empty() {
        vec![0.0; n]
    } else {
        f.to_vec()
    }
}
