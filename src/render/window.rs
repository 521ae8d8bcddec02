//! A window with an OpenGL context for the viewer (winit + glutin), beside the headless EGL
//! context in `context.rs`: both end as a glium facade the same renderer draws into.

use super::share::ShareGroup;
use glium::glutin::surface::WindowSurface;
use glutin::config::{ConfigTemplateBuilder, GlConfig};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile};
use glutin::display::GetGlDisplay;
use glutin::prelude::*;
use glutin::surface::{SurfaceAttributesBuilder, SwapInterval};
use raw_window_handle::HasWindowHandle;
use std::num::NonZeroU32;
use winit::event_loop::ActiveEventLoop;
use winit::window::Window;

/// Why no window could be opened; the cause, where there is one, is the error's source.
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    /// The event loop could not start or failed (no display connection, a display that
    /// refuses).
    #[error("{0}")]
    EventLoop(String),
    /// The display offers no OpenGL configuration.
    #[error("the display offers no OpenGL configuration")]
    NoConfig,
    /// Building the window and its GL configuration failed.
    #[error("{0}")]
    Build(String),
    /// The window was not created.
    #[error("the window was not created")]
    NoWindow,
    /// The window has no handle to draw into.
    #[error("the window has no native handle")]
    Handle(#[from] raw_window_handle::HandleError),
    /// The window's OpenGL surface could not be created.
    #[error("cannot create the window's OpenGL surface")]
    Surface(#[source] glutin::error::Error),
    /// No OpenGL 3.3 core context could be made current on it.
    #[error("no OpenGL 3.3 core context")]
    Context(#[source] glutin::error::Error),
    /// glium refused the context.
    #[error("glium cannot use the context: {0}")]
    Glium(String),
}

impl From<winit::error::EventLoopError> for WindowError {
    /// winit's message without the registry path it carries (its source repeats that path,
    /// so it is not kept).
    fn from(e: winit::error::EventLoopError) -> Self {
        WindowError::EventLoop(without_source_location(&e.to_string()))
    }
}

/// Whether the environment (read through `var`) names a display winit can open a window on.
/// On Linux and the BSDs that is `DISPLAY` (X11) or `WAYLAND_DISPLAY` / `WAYLAND_SOCKET`;
/// elsewhere (Windows, macOS) there is always one.
pub fn display_named(var: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    if cfg!(any(target_os = "windows", target_os = "macos")) {
        return true;
    }
    ["DISPLAY", "WAYLAND_DISPLAY", "WAYLAND_SOCKET"]
        .iter()
        .any(|v| var(v).is_some_and(|s| !s.is_empty()))
}

/// winit's OS errors read "os error at <source file>:<line>: <message>", the file being a path
/// into cargo's registry that means nothing to a user: keep the message.
pub fn without_source_location(msg: &str) -> String {
    if let Some(rest) = msg.strip_prefix("os error at ") {
        if let Some(i) = rest.find(".rs:") {
            let after = &rest[i + 4..];
            let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
            if let Some(m) = after[digits..].strip_prefix(": ") {
                return m.to_string();
            }
        }
    }
    msg.to_string()
}

/// Opens a resizable window titled `title` of `size` logical pixels with an OpenGL 3.3 core
/// context current on it, vsync where the platform allows, wrapped as a glium display; and
/// the context's share group (the GPU solver's context joins it).
pub fn create(
    el: &ActiveEventLoop,
    title: &str,
    size: (u32, u32),
) -> Result<(Window, glium::Display<WindowSurface>, ShareGroup), WindowError> {
    let attrs = Window::default_attributes()
        .with_title(title)
        .with_resizable(true)
        .with_inner_size(winit::dpi::LogicalSize::new(size.0, size.1));
    let template = ConfigTemplateBuilder::new().with_alpha_size(8);
    let built = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        glutin_winit::DisplayBuilder::new()
            .with_window_attributes(Some(attrs))
            .build(el, template, |mut configs| {
                #[allow(clippy::expect_used)]
                configs
                    .next()
                    .expect("the display offers no OpenGL configuration")
            })
            .map_err(|e| WindowError::Build(without_source_location(&e.to_string())))
    }))
    .map_err(|_| WindowError::NoConfig)??;
    let (window, config) = built;
    let window = window.ok_or(WindowError::NoWindow)?;
    let raw = window.window_handle()?.as_raw();
    let size = window.inner_size();
    let w = NonZeroU32::new(size.width.max(1)).unwrap_or(NonZeroU32::MIN);
    let h = NonZeroU32::new(size.height.max(1)).unwrap_or(NonZeroU32::MIN);
    let surface_attrs = SurfaceAttributesBuilder::<WindowSurface>::new().build(raw, w, h);
    let gl_display = config.display();
    // SAFETY: the window outlives the surface (both are owned by `Running`, window first).
    let surface = unsafe { gl_display.create_window_surface(&config, &surface_attrs) }
        .map_err(WindowError::Surface)?;
    let context = super::share::newest_core(|v| {
        let ctx_attrs = ContextAttributesBuilder::new()
            .with_profile(GlProfile::Core)
            .with_context_api(ContextApi::OpenGl(Some(v)))
            .build(Some(raw));
        // SAFETY: config and window handle come from the same display.
        unsafe { gl_display.create_context(&config, &ctx_attrs) }
    })
    .map_err(WindowError::Context)?
    .make_current(&surface)
    .map_err(WindowError::Context)?;
    let share = ShareGroup::new(gl_display.clone(), config.clone(), &context);
    // Vsync where the platform allows it; without it the viewer still works.
    let _ = surface.set_swap_interval(&context, SwapInterval::Wait(NonZeroU32::MIN));
    let display = glium::Display::from_context_surface(context, surface)
        .map_err(|e| WindowError::Glium(e.to_string()))?;
    let _ = config.num_samples();
    Ok((window, display, share))
}
