//! `Simulation.render`: Plume's raymarcher on a headless OpenGL context. An OpenGL context
//! belongs to one thread, and Python may call from any; so one thread of this module owns the
//! context and the renderer, made on the first render, and draws the frames it is sent.

use crate::convert::{catch, internal};
use plume::camera::OrbitCamera;
use plume::frame::Frame;
use plume::render::offscreen::{Image, MAX_IMAGE_SIDE};
use plume::render::volume::VolumeBox;
use plume::render::{RenderSettings, VolumeRenderer};
use plume::sim::Obstacle;
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use std::sync::mpsc::{channel, Sender};
use std::sync::{Mutex, OnceLock};

struct Job {
    frame: Frame,
    obstacles: Vec<Obstacle>,
    settings: RenderSettings,
    camera: OrbitCamera,
    width: u32,
    height: u32,
    reply: Sender<Result<Image, String>>,
}

static RENDERER: OnceLock<Mutex<Sender<Job>>> = OnceLock::new();

fn renderer() -> Result<Sender<Job>, String> {
    let tx = RENDERER.get_or_init(|| {
        let (tx, rx) = channel::<Job>();
        let spawned = std::thread::Builder::new()
            .name("plume-render".into())
            .spawn(move || {
                let made = plume::render::context::headless()
                    .map_err(|e| format!("no OpenGL context for rendering: {e}"))
                    .and_then(|ctx| {
                        VolumeRenderer::new(&ctx)
                            .map(|r| (ctx, r))
                            .map_err(|e| e.to_string())
                    });
                let mut made = made;
                for job in rx {
                    let result = match &mut made {
                        Ok((ctx, r)) => catch(|| draw(ctx, r, &job))
                            .unwrap_or_else(|p| Err(format!("internal error in Plume: {p}"))),
                        Err(e) => Err(e.clone()),
                    };
                    let _ = job.reply.send(result);
                }
            });
        if let Err(e) = spawned {
            eprintln!("plume: cannot start the render thread: {e}");
        }
        Mutex::new(tx)
    });
    Ok(tx.lock().map_err(|e| e.to_string())?.clone())
}

fn draw(
    ctx: &std::rc::Rc<glium::backend::Context>,
    r: &mut VolumeRenderer,
    job: &Job,
) -> Result<Image, String> {
    plume::render::offscreen::snapshot(
        ctx,
        r,
        &job.frame,
        &job.obstacles,
        &job.settings,
        &job.camera,
        job.width,
        job.height,
    )
    .map_err(|e| e.to_string())
}

/// The camera `plume render` would use for `(width, height)`: the scene's, or
/// `(yaw, pitch, distance)` around the domain's centre; checks the image size too.
pub fn camera(
    scene: &plume::scene::Scene,
    grid: &plume::sim::Grid,
    width: u32,
    height: u32,
    camera: Option<(f32, f32, f32)>,
) -> PyResult<OrbitCamera> {
    for (what, v) in [("width", width), ("height", height)] {
        if !(1..=MAX_IMAGE_SIDE).contains(&v) {
            return Err(PyValueError::new_err(format!(
                "{what} = {v} is outside the allowed range 1..={MAX_IMAGE_SIDE} pixels"
            )));
        }
    }
    Ok(match camera {
        None => scene.camera(width as f32 / height as f32),
        Some((yaw, pitch, distance)) => {
            use plume::ranges::scene::{DISTANCE, PITCH};
            if !yaw.is_finite() {
                return Err(PyValueError::new_err("camera yaw must be a finite number"));
            }
            PITCH
                .check_as("camera", "camera pitch", pitch)
                .and_then(|_| DISTANCE.check_as("camera", "camera distance", distance))
                .map_err(|e| PyValueError::new_err(e.to_string()))?;
            let bx = VolumeBox::of_grid(grid);
            let c = [0, 1, 2].map(|i| 0.5 * (bx.min[i] + bx.max[i]));
            OrbitCamera::from_degrees(c, yaw, pitch, distance)
        }
    })
}

/// Draws `frame` of `scene` as `plume render` does (the scene's render settings), on the
/// render thread, without the interpreter lock.
pub fn render(
    py: Python<'_>,
    scene: &plume::scene::Scene,
    frame: Frame,
    camera: OrbitCamera,
    width: u32,
    height: u32,
) -> PyResult<Image> {
    let job_tx = renderer().map_err(PyRuntimeError::new_err)?;
    let obstacles = scene.obstacles.clone();
    let settings = scene.render.clone();
    py.detach(move || {
        let (reply, answer) = channel();
        let job = Job {
            frame,
            obstacles,
            settings,
            camera,
            width,
            height,
            reply,
        };
        job_tx
            .send(job)
            .map_err(|_| "the render thread has stopped".to_string())?;
        answer
            .recv()
            .map_err(|_| "the render thread has stopped".to_string())?
    })
    .map_err(|e| match e.starts_with("internal error") {
        true => internal(e),
        false => PyRuntimeError::new_err(e),
    })
}
