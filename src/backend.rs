//! Which solver backend runs a scene: the CPU solver (plume-core) or the GPU solver
//! (plume-gpu, OpenGL compute shaders on a headless context of its own), chosen with
//! `--backend cpu|gpu|auto` and in the viewer's Simulation section.

use crate::scene::Scene;
use crate::sim::SimError;
use plume_gpu::GpuSolver;

/// A backend choice as the command line and the panel spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// The GPU where it is a hardware one with compute shaders and passes the start-up
    /// check; the CPU otherwise.
    #[default]
    Auto,
    /// The CPU solver.
    Cpu,
    /// The GPU solver, on any OpenGL 4.3 renderer (llvmpipe too).
    Gpu,
}

impl Backend {
    /// Parses `cpu`, `gpu` or `auto`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu),
            other => Err(format!("unknown backend {other:?}: use cpu, gpu or auto")),
        }
    }

    /// The name as typed.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }
}

/// The GPU solver for `scene` on a headless OpenGL context of its own.
pub fn gpu(scene: &Scene) -> Result<GpuSolver, SimError> {
    GpuSolver::from_scene(
        scene,
        Box::new(|| crate::render::context::headless().map_err(|e| e.to_string())),
    )
}
