//! A headless OpenGL context: an EGL device (Mesa's llvmpipe needs no GPU and no display),
//! a config with no surface type, an OpenGL 3.3 core context made current surfaceless, and
//! glium over it (`share::glium_context`, the backend the solver's shared contexts use too).

use super::RenderError;
use glium::backend::Context;
use glutin::api::egl::device::Device;
use glutin::api::egl::display::Display;
use glutin::config::{ConfigSurfaceTypes, ConfigTemplateBuilder};
use glutin::context::{ContextApi, ContextAttributesBuilder, GlProfile};
use glutin::prelude::*;
use std::rc::Rc;

/// Description of the OpenGL implementation behind a context.
#[derive(Clone, Debug)]
pub struct GlInfo {
    /// `GL_RENDERER`, e.g. "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub renderer: String,
    /// `GL_VERSION`.
    pub version: String,
}

/// Address space an OpenGL driver takes beyond our own buffers: Mesa's llvmpipe maps its
/// rasteriser threads' stacks and LLVM's code as it compiles shaders, and crashes (SIGSEGV,
/// SIGABRT) rather than reporting an error when a memory limit stops it. Measured on a small
/// render (`plume render --size 16`, 2 cores, peak address space 800 MiB without a limit):
/// it crashed at `ulimit -v` 400000–600000 KiB, not always at the same limit, and ran at
/// 650000 and above. The check ([`crate::sim::solver::memory::check`]) keeps a wide margin
/// and refuses below about 900000 KiB with a message.
pub const DRIVER_RESERVE_BYTES: u64 = 512 << 20;

/// Refuses, with a message, to draw a `grid_bytes` simulation into `width` × `height`
/// pixels with OpenGL when the memory left (the machine's, a `ulimit -v`, a control group's)
/// cannot hold it together with the driver's own needs.
pub fn check_memory(grid_bytes: u64, width: u32, height: u32, what: &str) -> anyhow::Result<()> {
    // Colour target, depth, read-back and the encoded image: four bytes a pixel each.
    let image = 16 * u64::from(width) * u64::from(height);
    crate::sim::solver::memory::check(grid_bytes + image + DRIVER_RESERVE_BYTES, what)?;
    Ok(())
}

/// Creates a headless OpenGL 3.3 core context on the first EGL device that provides one
/// (Mesa's software device when there is no GPU).
pub fn headless() -> Result<Rc<Context>, RenderError> {
    Ok(headless_made()?.context)
}

/// A headless context for the GPU solver, with its OpenGL entry points.
pub fn headless_gl() -> Result<plume_gpu::GlContext, RenderError> {
    let m = headless_made()?;
    let display = m.display;
    Ok(plume_gpu::GlContext {
        context: m.context,
        proc_address: Box::new(move |name| super::share::proc_address(&display, name)),
        share_group: None,
    })
}

/// A headless context and its share group: contexts made from the group (on any thread)
/// share its buffers and textures.
pub fn headless_shared() -> Result<(Rc<Context>, super::share::ShareGroup), RenderError> {
    let m = headless_made()?;
    Ok((m.context, m.group))
}

/// A headless context with what made it.
struct Made {
    context: Rc<Context>,
    display: Display,
    group: super::share::ShareGroup,
}

fn headless_made() -> Result<Made, RenderError> {
    let devices = Device::query_devices()
        .map_err(|e| RenderError::Context(format!("cannot enumerate EGL devices: {e}")))?;
    let mut errors = Vec::new();
    for device in devices {
        match try_device(&device) {
            Ok(c) => return Ok(c),
            Err(e) => errors.push(format!(
                "{}: {e}",
                device.name().unwrap_or("unnamed device")
            )),
        }
    }
    Err(RenderError::Context(if errors.is_empty() {
        "no EGL device found (install Mesa's EGL: libegl1, libegl-mesa0, libgl1-mesa-dri)".into()
    } else {
        format!(
            "no EGL device gave an OpenGL 3.3 context: {}",
            errors.join("; ")
        )
    }))
}

fn try_device(device: &Device) -> Result<Made, String> {
    // SAFETY: no raw display handle is passed, so EGL opens the device itself.
    let display = unsafe { Display::with_device(device, None) }.map_err(|e| e.to_string())?;
    let template = ConfigTemplateBuilder::new()
        .with_surface_type(ConfigSurfaceTypes::empty())
        .build();
    // SAFETY: the display is alive for the duration of the call.
    let config = unsafe { display.find_configs(template) }
        .map_err(|e| e.to_string())?
        .next()
        .ok_or("no surfaceless EGL config")?;
    let not_current = super::share::newest_core(|v| {
        let attrs = ContextAttributesBuilder::new()
            .with_profile(GlProfile::Core)
            .with_context_api(ContextApi::OpenGl(Some(v)))
            .build(None);
        // SAFETY: the config belongs to this display.
        unsafe { display.create_context(&config, &attrs) }
    })
    .map_err(|e| e.to_string())?;
    let context = not_current
        .make_current_surfaceless()
        .map_err(|e| e.to_string())?;
    let group = super::share::ShareGroup::new(
        glutin::display::Display::Egl(display.clone()),
        glutin::config::Config::Egl(config),
        &context,
    );
    let context = super::share::glium_context(
        super::share::Current::Egl(context),
        glutin::display::Display::Egl(display.clone()),
    )?;
    Ok(Made {
        context,
        display,
        group,
    })
}

/// Renderer and version strings of a context.
pub fn info(ctx: &Rc<Context>) -> GlInfo {
    GlInfo {
        renderer: ctx.get_opengl_renderer_string().to_string(),
        version: ctx.get_opengl_version_string().to_string(),
    }
}
