//! The interactive viewer: a winit window with glium, egui panels, a slice view, and the
//! simulation on its own thread.

pub mod app;
pub mod detail_section;
pub mod fire_section;
pub mod frame_clock;
pub mod gpu_feed;
pub mod gpu_view;
pub mod input;
pub mod obstacles_section;
pub mod overlay;
pub mod plots;
pub mod run_section;
pub mod scene_menu;
pub mod sections;
pub mod sim_thread;
pub mod slice_panel;
pub mod slice_view;
pub mod state;
pub mod view3d;
pub mod widgets;

pub use app::{run, ViewOptions};

/// The command as the user ran it (its first argument: `plume` when on the PATH, else the
/// path typed, such as `target/release/plume`), so advice that names it works as printed;
/// quoted when it holds a space.
pub fn invoked_as() -> String {
    let p = std::env::args_os()
        .next()
        .map(|a| a.to_string_lossy().into_owned())
        .filter(|a| !a.is_empty())
        .unwrap_or_else(|| "plume".to_string());
    match p.contains(char::is_whitespace) {
        true => format!("'{p}'"),
        false => p,
    }
}

/// Errors that stop the viewer.
#[derive(Debug, thiserror::Error)]
pub enum ViewerError {
    /// No window or OpenGL context could be created (no driver, a display that refuses).
    #[error(
        "cannot open a window: {0}\n  without a working display: `xvfb-run -a {p} view` runs \
         the viewer on a virtual screen, `{p} render --out smoke.png` draws a picture",
        p = invoked_as()
    )]
    Window(#[from] crate::render::window::WindowError),
    /// Neither an X11 nor a Wayland display is named in the environment.
    #[error(
        "no display to open the viewer's window on (DISPLAY and WAYLAND_DISPLAY are not set)\n  \
         without one: `xvfb-run -a {p} view` runs it on a virtual screen, `{p} render --out \
         smoke.png` draws a picture, `{p} run --frames 60 --out DIR` exports frames",
        p = invoked_as()
    )]
    NoDisplay,
    /// `--record` was given settings that cannot be recorded.
    #[error("cannot record: {0}")]
    Recording(String),
    /// Rendering failed.
    #[error(transparent)]
    Render(#[from] crate::render::RenderError),
    /// The scene could not be built.
    #[error(transparent)]
    Sim(#[from] crate::sim::SimError),
    /// The signal handlers could not be installed.
    #[error("cannot install the signal handlers: {0}")]
    Signals(std::io::Error),
    /// A signal (Ctrl-C, SIGTERM, SIGHUP) closed the viewer.
    #[error(
        "stopped by {0}; a recording holds the whole frames its manifest.json lists (--resume \
         continues it with `plume run`)"
    )]
    Stopped(&'static str),
}
