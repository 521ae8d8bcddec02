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
