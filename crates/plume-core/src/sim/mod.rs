//! The smoke solver: Stam's stable fluids on a staggered (MAC) grid, parallel with rayon.
//! Nothing in here knows about OpenGL, windows or egui.

pub mod active;
pub mod advect;
pub mod body;
pub mod boundary;
pub mod cost;
pub mod cover;
pub mod detail;
pub mod diffuse;
pub mod fire;
pub mod forces;
pub mod grid;
pub mod obstacles;
pub mod params;
pub mod pressure;
pub mod sample;
pub mod simulation;
pub mod solver;
pub mod sources;
pub mod trace16;
pub mod vorticity;

/// Deterministic values in [−0.5, 0.5) for unit tests (a linear congruential sequence).
#[cfg(test)]
pub(crate) fn test_noise(n: usize, seed: u32) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            (s >> 8) as f32 / (1u32 << 24) as f32 - 0.5
        })
        .collect()
}

pub use boundary::{Boundaries, Face};
pub use fire::FireParams;
pub use grid::{Dims, Grid};
pub use params::{Advection, FluidParams, PressureMethod};
pub use pressure::operator::{det_sum, SolveStats};
pub use simulation::{FieldState, Simulation};
pub use solver::{HostStats, KernelTime, Solver, StageTime, StepStats, TunedChoice, TunedWay};
pub use sources::{EmitFrom, Emitter, Obstacle, Pulse, Shape, ShapeKind};

/// Errors from building or driving a solver.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum SimError {
    /// The grid's dimensions or placement are out of range.
    #[error("invalid grid: {0}")]
    InvalidGrid(String),
    /// A parameter, emitter or injected amount is out of range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
    /// One named field of a parameter set, emitter, obstacle or boundary is out of range.
    /// `field` is the key as scene files spell it (`radius`, `viscosity`, …); `message`
    /// names the field, its value and the allowed range.
    #[error("{message}")]
    Field {
        /// The field's name.
        field: String,
        /// What is wrong, with the allowed range.
        message: String,
    },
    /// There is not enough memory for what was asked.
    #[error(
        "{}; choose a smaller grid",
        solver::memory::shortfall(what, *need, *available, limit)
    )]
    Memory {
        /// What would not fit (`a 1024×1024×34 grid`).
        what: String,
        /// Bytes it needs.
        need: u64,
        /// Bytes free.
        available: u64,
        /// What sets that limit.
        limit: &'static str,
    },
    /// The GPU backend cannot run here: no OpenGL context, no compute shaders (OpenGL
    /// below 4.3), or its thread did not start. The message names which; `auto` falls back
    /// to the CPU with it.
    #[error("the GPU backend cannot run here: {0}")]
    Gpu(String),
    /// A run folder played back ([`crate::export::replay::Replay`]) cannot do what was
    /// asked (change what was recorded), or a frame of it cannot be read.
    #[error("{0}")]
    Playback(String),
    /// A field stopped being finite during a step (the step is not undone; the caller stops).
    #[error(
        "the simulation blew up at step {step} (t = {time:.3} s): the {field} is no longer \
         finite; likely cause: {cause}"
    )]
    NonFinite {
        /// The step that produced it (counted from 1).
        step: u64,
        /// Simulated time after that step, s.
        time: f64,
        /// Which field: `density`, `temperature`, `fuel`, `flame`, `velocity` or `pressure`.
        field: &'static str,
        /// The parameter most likely responsible, with its value.
        cause: String,
    },
}

impl SimError {
    /// An out-of-range error for `field`.
    pub fn field(field: &str, message: impl Into<String>) -> Self {
        SimError::Field {
            field: field.to_string(),
            message: message.into(),
        }
    }
}
