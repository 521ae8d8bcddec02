//! More OpenGL contexts that share objects (buffers, textures) with one already made: the
//! viewer's window, or a headless renderer. The GPU solver runs on such a context on its own
//! thread, so the textures the renderer samples can be written by the solver's kernels on the
//! card, with nothing read back or uploaded between them.

use glium::backend::{Backend, Context};
use glium::debug::DebugCallbackBehavior;
use glium::SwapBuffersError;
use glutin::config::Config;
use glutin::context::{
    AsRawContext, ContextApi, ContextAttributesBuilder, GlProfile, NotCurrentContext, RawContext,
    Version,
};
use glutin::display::{Display, GlDisplay};
use std::ffi::{c_void, CString};
use std::rc::Rc;

/// The core-profile versions contexts are asked for, newest first. A driver may give just
/// the version asked for (NVIDIA's gives "3.3.0" for 3.3, where Mesa gives its newest), and
/// the GPU backend's compute shaders are OpenGL 4.3: so ask for 4.6, then 4.3, then 3.3
/// (where only the renderer and the CPU backend run).
pub const CORE_VERSIONS: [Version; 3] =
    [Version::new(4, 6), Version::new(4, 3), Version::new(3, 3)];

/// The first context `make` gives for [`CORE_VERSIONS`], newest first; the last error where
/// none is given.
pub fn newest_core<T, E>(mut make: impl FnMut(Version) -> Result<T, E>) -> Result<T, E> {
    let mut last = None;
    for v in CORE_VERSIONS {
        match make(v) {
            Ok(c) => return Ok(c),
            Err(e) => last = Some(e),
        }
    }
    Err(last.expect("CORE_VERSIONS is not empty"))
}

/// How to make a context in the share group of an existing one: its display, a config of
/// that display, and the context.
#[derive(Clone)]
pub struct ShareGroup {
    display: Display,
    config: Config,
    context: Raw,
    id: u64,
}

/// A context's raw handle, only ever passed to the display that made it.
#[derive(Clone, Copy)]
struct Raw(RawContext);

impl AsRawContext for Raw {
    fn raw_context(&self) -> RawContext {
        self.0
    }
}

// SAFETY: the display and config are `Send + Sync` in glutin; the raw handle is only passed
// as the share context to `create_context`, which EGL and GLX allow from any thread while
// the context is current on another (winit initialises Xlib for threads).
unsafe impl Send for ShareGroup {}
// SAFETY: as above; nothing in a share group is mutated after it is made.
unsafe impl Sync for ShareGroup {}

impl std::fmt::Debug for ShareGroup {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ShareGroup")
    }
}

impl ShareGroup {
    /// The share group of `context`, made on `display` with `config`.
    pub fn new(display: Display, config: Config, context: &impl AsRawContext) -> Self {
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
        Self {
            display,
            config,
            context: Raw(context.raw_context()),
            id: NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed),
        }
    }

    /// A number no other share group of this process has.
    pub fn id(&self) -> u64 {
        self.id
    }

    /// A new OpenGL core context sharing objects with the group's, current (without a
    /// surface) on this thread, as glium holds it.
    pub fn make(&self) -> Result<plume_gpu::GlContext, String> {
        let made = newest_core(|v| {
            let attrs = ContextAttributesBuilder::new()
                .with_profile(GlProfile::Core)
                .with_context_api(ContextApi::OpenGl(Some(v)))
                .with_sharing(&self.context)
                .build(None);
            // SAFETY: the config belongs to the display, as does the share context.
            unsafe { self.display.create_context(&self.config, &attrs) }
        })
        .map_err(|e| format!("cannot make a context sharing the window's: {e}"))?;
        let current = Current::surfaceless(made)?;
        let context = glium_context(current, self.display.clone())?;
        let display = self.display.clone();
        Ok(plume_gpu::GlContext {
            context,
            proc_address: Box::new(move |name| proc_address(&display, name)),
            share_group: Some(self.id),
        })
    }
}

/// `name`'s OpenGL entry point on `display`, null where there is none.
pub fn proc_address(display: &impl GlDisplay, name: &str) -> *const c_void {
    match CString::new(name) {
        Ok(s) => display.get_proc_address(&s),
        Err(_) => std::ptr::null(),
    }
}

/// A context made current without a surface (glutin offers that per API, not on its
/// cross-API type).
pub(super) enum Current {
    Egl(glutin::api::egl::context::PossiblyCurrentContext),
    #[cfg(target_os = "linux")]
    Glx(glutin::api::glx::context::PossiblyCurrentContext),
}

impl Current {
    fn surfaceless(c: NotCurrentContext) -> Result<Self, String> {
        let e = |e: glutin::error::Error| format!("cannot make the shared context current: {e}");
        match c {
            NotCurrentContext::Egl(c) => Ok(Current::Egl(c.make_current_surfaceless().map_err(e)?)),
            #[cfg(target_os = "linux")]
            NotCurrentContext::Glx(c) => Ok(Current::Glx(c.make_current_surfaceless().map_err(e)?)),
            #[allow(unreachable_patterns)]
            _ => Err("this platform's contexts cannot be made current without a surface".into()),
        }
    }

    fn is_current(&self) -> bool {
        use glutin::prelude::PossiblyCurrentGlContext;
        match self {
            Current::Egl(c) => c.is_current(),
            #[cfg(target_os = "linux")]
            Current::Glx(c) => c.is_current(),
        }
    }

    fn make_current(&self) {
        // A failure here would surface as GL errors on the next call; nothing to recover.
        match self {
            Current::Egl(c) => drop(c.make_current_surfaceless()),
            #[cfg(target_os = "linux")]
            Current::Glx(c) => drop(c.make_current_surfaceless()),
        }
    }
}

/// glium over `context`, current on this thread without a surface (a headless renderer,
/// or a context of a share group): all drawing goes to framebuffer objects.
pub(super) fn glium_context(context: Current, display: Display) -> Result<Rc<Context>, String> {
    let backend = SurfacelessBackend { context, display };
    // SAFETY: the backend's context is current on this thread and lives inside glium's.
    unsafe { Context::new(backend, true, DebugCallbackBehavior::Ignore) }
        .map_err(|e| format!("glium refused the context: {e}"))
}

struct SurfacelessBackend {
    context: Current,
    display: Display,
}

// SAFETY: the methods forward to a live context and display owned by this struct.
unsafe impl Backend for SurfacelessBackend {
    fn swap_buffers(&self) -> Result<(), SwapBuffersError> {
        // Nothing to present: there is no default framebuffer.
        Ok(())
    }

    unsafe fn get_proc_address(&self, symbol: &str) -> *const c_void {
        proc_address(&self.display, symbol)
    }

    fn get_framebuffer_dimensions(&self) -> (u32, u32) {
        // There is no default framebuffer; report a minimal one.
        (1, 1)
    }

    fn resize(&self, _: (u32, u32)) {}

    fn is_current(&self) -> bool {
        self.context.is_current()
    }

    unsafe fn make_current(&self) {
        self.context.make_current();
    }
}
