//! OpenGL rendering of the density volume (glium): a 3D texture, a GLSL raymarcher, a box
//! outline and a background, drawn into a window's frame or an off-screen framebuffer.

pub mod context;
pub mod offscreen;
pub mod volume;

pub use offscreen::{render_image, Image, ImageFormat, Offscreen};

pub use crate::render_settings::MAX_OBSTACLES;
pub use volume::{RenderSettings, VolumeRenderer};

/// Errors from creating a context, compiling shaders, drawing or writing images.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No OpenGL context could be created.
    #[error("cannot create an OpenGL context: {0}")]
    Context(String),
    /// A shader failed to compile or link.
    #[error("shader program '{name}' failed to build: {message}")]
    Shader {
        /// Which program.
        name: &'static str,
        /// The driver's message.
        message: String,
    },
    /// A GL resource (texture, buffer, framebuffer) could not be created.
    #[error("OpenGL resource: {0}")]
    Resource(String),
    /// A draw call was refused.
    #[error("drawing failed: {0}")]
    Draw(String),
    /// A setting is out of range.
    #[error("invalid render setting: {0}")]
    InvalidSetting(String),
    /// The scene's render settings are out of range.
    #[error("invalid render setting")]
    Settings(#[from] crate::sim::SimError),
    /// Writing an image file failed.
    #[error("cannot write {path}: {message}")]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// What went wrong.
        message: String,
    },
}
