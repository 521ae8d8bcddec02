//! Plume: a real-time 3D smoke simulator and volume viewer.
//!
//! The library holds everything; the `plume` binary is a thin CLI over it.

pub mod baseline;
pub mod bench;
pub mod camera;
pub mod cli;
pub mod export;
pub mod render;
pub mod scene;
pub mod sim;
pub mod viewer;
