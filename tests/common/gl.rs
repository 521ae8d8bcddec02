//! The renderer's tests' OpenGL: a headless context (Mesa's EGL in CI; a test that cannot
//! get one fails) and a picture drawn off-screen.

use plume::camera::OrbitCamera;
use plume::render::volume::VolumeBox;
use plume::render::{context, Image, Offscreen, RenderSettings, VolumeRenderer};
use std::rc::Rc;

/// A headless context, or a panic that says what to install.
pub fn headless() -> Rc<glium::backend::Context> {
    context::headless().unwrap_or_else(|e| {
        panic!("no OpenGL context: {e}. The GL tests need Mesa's EGL (libegl1, libegl-mesa0, libgl1-mesa-dri).")
    })
}

/// `r`'s volume in `bx` drawn through `cam` with `s`, `size` pixels.
pub fn image(
    ctx: &Rc<glium::backend::Context>,
    r: &VolumeRenderer,
    cam: &OrbitCamera,
    bx: &VolumeBox,
    s: &RenderSettings,
    (w, h): (u32, u32),
) -> Image {
    Offscreen::new(ctx, w, h)
        .expect("target")
        .render(ctx, r, cam, bx, s)
        .expect("render")
        .0
}
