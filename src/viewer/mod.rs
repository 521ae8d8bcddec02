//! The interactive viewer: a winit window with glium, egui panels, a slice view, and the
//! simulation on its own thread.

pub mod app;
pub mod input;
pub mod panels;
pub mod scene_menu;
pub mod sim_thread;
pub mod slice_view;

pub use app::{run, ViewOptions};

/// Errors that stop the viewer.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// No window or OpenGL context could be created (no display, no driver).
    #[error("cannot open a window: {0}")]
    Window(String),
    /// Rendering failed.
    #[error(transparent)]
    Render(#[from] crate::render::RenderError),
    /// The scene could not be built.
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
}
