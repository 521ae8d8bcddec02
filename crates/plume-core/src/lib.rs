//! Plume's core: the smoke solver, scenes, camera maths, render settings as plain data, and
//! export. Nothing in this crate knows about OpenGL, windows or egui — Cargo enforces that,
//! since none of those is a dependency — so everything here runs and is tested headless.

pub mod atomic;
pub mod baseline;
pub mod bench;
pub mod blackbody;
pub mod camera;
pub mod environment;
pub mod export;
pub mod frame;
pub mod geometry;
pub mod ranges;
pub mod render_settings;
pub mod scene;
pub mod sim;
pub mod streamlines;

/// An error and its causes on one line, `outer: cause: cause`, as the CLI and the viewer show
/// them (errors keep their causes as `source()`, not in their own message).
pub fn report(e: &(dyn std::error::Error + 'static)) -> String {
    let mut s = e.to_string();
    let mut cause = e.source();
    while let Some(c) = cause {
        let text = c.to_string();
        if !s.contains(&text) {
            s.push_str(": ");
            s.push_str(&text);
        }
        cause = c.source();
    }
    s
}
