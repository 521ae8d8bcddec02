//! Plume: a real-time 3D smoke simulator and volume viewer.
//!
//! This crate is the part that draws: the OpenGL renderer, the interactive viewer and the
//! command line. Everything that runs without a GPU lives in [`plume_core`] and is re-exported
//! here under the same names, so `plume::sim`, `plume::scene` and `plume::export` work as
//! before.

pub mod backend;
pub mod batch;
pub mod cli;
pub mod commands;
pub mod docs;
pub mod render;
pub mod render_command;
pub mod signals;
pub mod viewer;
pub mod wedge;
pub mod wedge_command;

pub use plume_core::{
    atomic, baseline, bench, blackbody, camera, export, frame, geometry, ranges, render_settings,
    report, scene, sim, streamlines,
};

/// The environment variables Plume reads for experiments, by prefix: what reads them and
/// their table (the GPU backend's, the renderer's).
pub const ENVIRONMENT: [(&str, &str, &[plume_core::environment::Setting]); 2] = [
    ("PLUME_GPU_", "the GPU backend", plume_gpu::ENVIRONMENT),
    ("PLUME_RENDER_", "the renderer", render::ENVIRONMENT),
];

/// Where a `PLUME_GPU_…` or `PLUME_RENDER_…` environment variable is one Plume does not read,
/// or is set to a value it does not take, what is wrong: the command line refuses to start,
/// the GPU backend and the renderer to be built (see [`plume_core::environment`]).
pub fn environment_problem() -> Option<String> {
    plume_core::environment::problem(std::env::vars_os(), &ENVIRONMENT)
}
