//! The smoke solver: Stam's stable fluids on a staggered (MAC) grid, parallel with rayon.
//! Nothing in here knows about OpenGL, windows or egui.

pub mod advect;
pub mod boundary;
pub mod diffuse;
pub mod forces;
pub mod grid;
pub mod params;
pub mod project;
pub mod rbsor;
pub mod solver;
pub mod sources;
pub mod stencil;

pub use boundary::{Boundaries, Face};
pub use grid::{Dims, Grid};
pub use params::{FluidParams, PressureMethod};
pub use solver::{Solver, StageTime, StepStats};
pub use sources::Emitter;
pub use stencil::SolveStats;

/// Errors from building or driving a solver.
#[derive(Debug, thiserror::Error, Clone, PartialEq)]
pub enum SimError {
    /// The grid's dimensions or placement are out of range.
    #[error("invalid grid: {0}")]
    InvalidGrid(String),
    /// A parameter, emitter or injected amount is out of range.
    #[error("invalid parameter: {0}")]
    InvalidParameter(String),
}
