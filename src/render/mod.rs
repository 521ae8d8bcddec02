//! OpenGL rendering of the density volume (glium): a 3D texture, a GLSL raymarcher, a box
//! outline and a background, drawn into a window's frame or an off-screen framebuffer.

pub mod context;
pub mod exchange;
pub mod flipbook;
pub mod label;
pub mod light;
pub mod occupancy;
pub mod offscreen;
pub mod share;
pub mod solids;
pub mod volume;
mod volume_aids;
mod volume_sets;
pub mod window;

pub use flipbook::Flipbook;
pub use offscreen::{render_image, Image, ImageFormat, Offscreen};

pub use crate::render_settings::MAX_OBSTACLES;
pub use volume::{RenderSettings, VolumeRenderer};

use plume_core::environment::{Setting, Takes};

/// Every environment variable the renderer reads (`docs/reference/environment.md` is made
/// from it), checked as the GPU backend's are ([`crate::environment_problem`]).
pub const ENVIRONMENT: &[Setting] = &[
    Setting {
        name: "PLUME_RENDER_SKIP_EMPTY",
        takes: Takes::Switch,
        does: "the raymarch skipping the volume's empty bricks (1, the default) or taking every sample (0)",
    },
    Setting {
        name: "PLUME_RENDER_LIGHT_CACHE",
        takes: Takes::Switch,
        does: "the light towards the lamp worked out once a volume into a cache (1; else on a card, off on a software renderer) or marched at every sample (0)",
    },
];

/// A 3D texture sampled as the raymarch samples the volume: linear, clamped to the edge.
pub(crate) fn linear(
    t: &glium::texture::Texture3d,
) -> glium::uniforms::Sampler<'_, glium::texture::Texture3d> {
    use glium::uniforms::{MagnifySamplerFilter, MinifySamplerFilter, SamplerWrapFunction};
    t.sampled()
        .magnify_filter(MagnifySamplerFilter::Linear)
        .minify_filter(MinifySamplerFilter::Linear)
        .wrap_function(SamplerWrapFunction::Clamp)
}

/// A 3D texture read texel by texel.
pub(crate) fn nearest(
    t: &glium::texture::Texture3d,
) -> glium::uniforms::Sampler<'_, glium::texture::Texture3d> {
    use glium::uniforms::{MagnifySamplerFilter, MinifySamplerFilter};
    t.sampled()
        .magnify_filter(MagnifySamplerFilter::Nearest)
        .minify_filter(MinifySamplerFilter::Nearest)
}

/// Compiles a vertex and a fragment shader into a program; `name` names it in errors.
pub(crate) fn program(
    facade: &impl glium::backend::Facade,
    name: &'static str,
    vertex: &str,
    fragment: &str,
) -> Result<glium::Program, RenderError> {
    glium::Program::new(
        facade,
        glium::program::ProgramCreationInput::SourceCode {
            vertex_shader: vertex,
            tessellation_control_shader: None,
            tessellation_evaluation_shader: None,
            geometry_shader: None,
            fragment_shader: fragment,
            transform_feedback_varyings: None,
            // The shaders write display values directly; no sRGB conversion on output.
            outputs_srgb: true,
            uses_point_size: false,
        },
    )
    .map_err(|e| RenderError::Shader {
        name,
        message: e.to_string(),
    })
}

/// The underlying error of a [`RenderError`], kept as its source.
pub type Cause = Box<dyn std::error::Error + Send + Sync>;

impl RenderError {
    /// A resource error caused by `e`.
    pub fn resource(what: impl Into<String>, e: impl Into<Cause>) -> Self {
        RenderError::Resource {
            what: what.into(),
            source: Some(e.into()),
        }
    }
    /// A resource error with no underlying cause.
    pub fn resource_msg(what: impl Into<String>) -> Self {
        RenderError::Resource {
            what: what.into(),
            source: None,
        }
    }
    /// A draw error caused by `e`.
    pub fn draw(what: impl Into<String>, e: impl Into<Cause>) -> Self {
        RenderError::Draw {
            what: what.into(),
            source: Some(e.into()),
        }
    }
}

/// Errors from creating a context, compiling shaders, drawing or writing images.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    /// No OpenGL context could be created.
    #[error("cannot create an OpenGL context: {0}")]
    Context(String),
    /// An environment variable the renderer reads is set to what it does not take (or one
    /// it does not read is set): see [`ENVIRONMENT`].
    #[error("{0}")]
    Environment(String),
    /// A shader failed to compile or link.
    #[error("shader program '{name}' failed to build: {message}")]
    Shader {
        /// Which program.
        name: &'static str,
        /// The driver's message.
        message: String,
    },
    /// A GL resource (texture, buffer, framebuffer) could not be created or used.
    #[error("OpenGL resource: {what}")]
    Resource {
        /// Which resource.
        what: String,
        /// The driver's (or glium's) error, when there is one.
        #[source]
        source: Option<Cause>,
    },
    /// A draw call was refused.
    #[error("drawing failed: {what}")]
    Draw {
        /// What was being drawn.
        what: String,
        /// glium's error, when there is one.
        #[source]
        source: Option<Cause>,
    },
    /// A setting is out of range.
    #[error("invalid render setting: {0}")]
    InvalidSetting(String),
    /// The scene's render settings are out of range.
    #[error("invalid render setting")]
    Settings(#[from] crate::sim::SimError),
    /// An image file could not be written (nothing was left under its name).
    #[error("cannot write {}", path.display())]
    Write {
        /// The file.
        path: std::path::PathBuf,
        /// Why.
        #[source]
        source: Cause,
    },
}
