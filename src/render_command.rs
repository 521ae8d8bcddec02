//! `plume render`: draws a scene headless into PNG or JPEG files, a PNG sequence or a GIF
//! flipbook; either simulating it, or (`--run DIR`) from the frames a run folder holds, as
//! `export::read` reads them back.

use crate::camera::OrbitCamera;
use crate::cli::RenderArgs;
use crate::frame::Frame;
use crate::render::volume::VolumeBox;
use crate::render::{context, Flipbook, Image, Offscreen, VolumeRenderer};
use crate::render_settings::RenderSettings;
use crate::scene::Scene;
use crate::sim::Simulation;
use anyhow::{Context, Result};
use std::path::{Path, PathBuf};

/// The scene's render settings with the command line's changes (which only turn things
/// off, or set a number), checked.
fn settings_of(a: &RenderArgs, scene: &Scene) -> Result<RenderSettings> {
    let mut settings = scene.render.clone();
    if let Some(d) = a.density_scale {
        settings.density_scale = d;
    }
    if let Some(q) = a.quality {
        settings.step_quality = q;
    }
    if a.no_shadows {
        settings.shadows = false;
    }
    if a.no_outline {
        settings.outline = false;
    }
    settings.validate()?;
    if !(a.streamline_length.is_finite()
        && a.streamline_length > 0.0
        && a.streamline_length <= 100.0)
    {
        anyhow::bail!(
            "--streamline-length {} is outside the allowed range (0, 100]",
            a.streamline_length
        );
    }
    Ok(settings)
}

/// `--camera`, or the scene's framing.
fn camera_of(a: &RenderArgs, scene: &Scene, bx: &VolumeBox) -> OrbitCamera {
    match a.camera {
        Some([yaw, pitch, dist]) => {
            let c = [0, 1, 2].map(|i| 0.5 * (bx.min[i] + bx.max[i]));
            OrbitCamera::from_degrees(c, yaw, pitch, dist)
        }
        None => scene.camera(a.width as f32 / a.height as f32),
    }
}

/// Where the pictures go: one image, a folder of numbered PNGs, or a flipbook; and what
/// `--json` reports of them.
struct Pictures<'a> {
    a: &'a RenderArgs,
    book: Option<Flipbook>,
    uploads: Vec<f64>,
    renders: Vec<f64>,
    files: Vec<String>,
}

impl<'a> Pictures<'a> {
    /// Checks `--out` and makes what it needs, for `frames` pictures (with `--every`).
    fn new(a: &'a RenderArgs, frames: u64) -> Result<Self> {
        let flipbook = a.every.is_some() && crate::render::flipbook::is_gif(&a.out);
        if a.every.is_none() {
            crate::render::ImageFormat::of_path(&a.out)?;
        }
        if a.every.is_some() && !flipbook {
            std::fs::create_dir_all(&a.out)
                .with_context(|| format!("cannot create the output folder {}", a.out.display()))?;
            if !a.out.is_dir() {
                anyhow::bail!("{} is not a folder", a.out.display());
            }
        }
        let book = match flipbook {
            true => Some(Flipbook::new(&a.out, a.width, a.height, frames)?),
            false => None,
        };
        Ok(Self {
            a,
            book,
            uploads: Vec::new(),
            renders: Vec::new(),
            files: Vec::new(),
        })
    }

    /// The path of picture `n` (from 1).
    fn path(&self, n: u32) -> PathBuf {
        match (self.a.every, &self.book) {
            (Some(_), None) => self.a.out.join(format!("frame_{n:04}.png")),
            _ => self.a.out.clone(),
        }
    }

    /// Puts `img` (of `f`, uploaded in `up` ms and drawn in `ms`) in its place; in a
    /// flipbook it is held for `held` seconds of real time (`--fps` overrides).
    fn put(&mut self, img: &Image, f: &Frame, held: f64, up: f64, ms: f64) -> Result<()> {
        let path = self.path(self.files.len() as u32 + 1);
        let what = match self.book.as_mut() {
            Some(book) => {
                let n = book.frames() as f64 + 1.0;
                let until = match self.a.fps {
                    Some(fps) => n / fps,
                    None => n * held,
                };
                let cs = book.push(img, until)?;
                format!("frame {} of {} ({cs}/100 s)", book.frames(), path.display())
            }
            None => {
                img.save(&path)?;
                format!("wrote {}", path.display())
            }
        };
        if !self.a.json {
            println!(
                "{what} (step {}, t = {:.2} s, upload {up:.2} ms, render {ms:.1} ms)",
                f.step, f.time
            );
        }
        self.uploads.push(up);
        self.renders.push(ms);
        self.files.push(path.display().to_string());
        Ok(())
    }

    /// Saves the flipbook; with `--json` prints the report, `extra` added to it.
    fn finish(mut self, gl: &context::GlInfo, extra: serde_json::Value) -> Result<()> {
        if let Some(book) = self.book.take() {
            let (frames, seconds) = (book.frames(), book.seconds());
            let bytes = book.save()?;
            if !self.a.json {
                println!(
                    "wrote {}: {frames} frames, {seconds:.2} s a loop, {:.1} KiB",
                    self.a.out.display(),
                    bytes as f64 / 1024.0
                );
            }
        }
        if self.a.json {
            let mut report = serde_json::json!({
                "upload_ms": crate::bench::median(&mut self.uploads),
                "render_ms": crate::bench::median(&mut self.renders),
                "frames": self.files.len(),
                "width": self.a.width,
                "height": self.a.height,
                "gl_renderer": gl.renderer,
                "gl_version": gl.version,
                "files": self.files,
            });
            if let (Some(r), serde_json::Value::Object(e)) = (report.as_object_mut(), extra) {
                r.extend(e);
            }
            println!("{report}");
        }
        Ok(())
    }
}

/// `plume render`.
pub fn render(a: RenderArgs) -> Result<()> {
    match &a.run {
        Some(dir) => render_run(&a, dir),
        None if a.frame.is_some() => anyhow::bail!(
            "--frame picks a frame of a run folder: give the folder with --run DIR (without \
             --run, --steps says how long to simulate)"
        ),
        None => render_simulation(&a),
    }
}

/// Simulates the scene and draws it after `--steps` steps, or every `--every` steps.
fn render_simulation(a: &RenderArgs) -> Result<()> {
    let scene = a.grid.scene()?;
    context::check_memory(
        crate::backend::host_memory(&scene, a.grid.backend),
        a.width,
        a.height,
        &format!(
            "simulating a {} grid and drawing {}×{} pixels with OpenGL",
            scene.dims(),
            a.width,
            a.height
        ),
    )?;
    // The GPU solver (where it runs) shares the renderer's context: it writes the volume
    // into the renderer's textures on the card.
    let (ctx, group) = context::headless_shared()?;
    let built = crate::backend::build_in(&scene, a.grid.backend, Some(&group))
        .context("building the scene")?;
    eprintln!("{}", built.why);
    let mut sim = built.sim;
    let exchange = crate::render::exchange::VolumeExchange::default();
    let settings = settings_of(a, &scene)?;
    exchange.set_kelvin_per_unit(settings.kelvin_per_unit);
    let gl = context::info(&ctx);
    let mut renderer = VolumeRenderer::new(&ctx)?;
    renderer.set_obstacles(&ctx, &scene.obstacles)?;
    let target = Offscreen::new(&ctx, a.width, a.height)?;
    let bx = VolumeBox::of_grid(sim.grid());
    let camera = camera_of(a, &scene, &bx);
    let select = crate::frame::Select {
        density: true,
        temperature: true,
        flame: true,
        velocity: a.streamlines,
        solid: a.streamlines,
        ..Default::default()
    };
    let frames = u64::from(a.steps / a.every.unwrap_or(1).max(1));
    let mut out = Pictures::new(a, frames)?;
    // A flipbook frame is held for the simulated time between frames.
    let held = f64::from(a.every.unwrap_or(1)) * f64::from(sim.params().dt);
    let mut draw = |sim: &dyn Simulation, out: &mut Pictures<'_>| -> Result<()> {
        let time = sim.time();
        let x = &exchange;
        let on_card =
            crate::viewer::gpu_feed::draw_from_card(&mut renderer, &ctx, x, sim, group.id(), time);
        let f = sim.frame(crate::frame::Select {
            density: !on_card,
            temperature: !on_card,
            flame: !on_card,
            ..select
        });
        let up = match on_card {
            true => 0.0,
            false => renderer.upload_frame(&ctx, &f, settings.kelvin_per_unit)?,
        };
        let segments = match a.streamlines {
            true => streamline_vertices(&f, a.streamline_count as usize, a.streamline_length),
            false => Vec::new(),
        };
        let (img, ms) = target.render_with(&ctx, &renderer, &camera, &bx, &settings, &segments)?;
        out.put(&img, &f, held, up, ms)
    };
    match a.every {
        Some(k) => {
            for s in 1..=a.steps {
                sim.step()?;
                if s % k == 0 {
                    draw(sim.as_ref(), &mut out)?;
                }
            }
            if out.files.is_empty() {
                anyhow::bail!("--every {k} with --steps {} writes no frame", a.steps);
            }
        }
        None => {
            for _ in 0..a.steps {
                sim.step()?;
            }
            draw(sim.as_ref(), &mut out)?;
        }
    }
    // The grid drawn: with --upres N the fine one, N times the simulated grid.
    let d = match scene.detail.enabled {
        true => scene.detail.fine_grid(&scene.grid_placement())?.dims,
        false => scene.dims(),
    };
    out.finish(
        &gl,
        serde_json::json!({
            "dims": d.as_array(),
            "upres": if scene.detail.enabled { scene.detail.factor } else { 0 },
            "simulated_dims": scene.dims().as_array(),
            "skips_empty_bricks": renderer.skips_empty(),
            "light_cache": renderer.light_cache_dims().map(|d| d.as_array()),
        }),
    )
}

/// Draws frames of the run in `dir`: `--frame N` (the last by default), or with `--every K`
/// every K-th frame from the first.
fn render_run(a: &RenderArgs, dir: &Path) -> Result<()> {
    use crate::export::read::RunReader;
    let run = RunReader::open(dir)?;
    let scene = &run.manifest().scene;
    let fields = run.fields();
    let wrote = run.manifest().fields.join(", ");
    if !(fields.density || fields.temperature || fields.flame || a.streamlines) {
        anyhow::bail!(
            "the run in {} wrote no field the picture draws (it wrote {wrote}): it needs \
             density, temperature or flame, or --streamlines with velocity",
            dir.display()
        );
    }
    if a.streamlines && !fields.velocity {
        anyhow::bail!(
            "--streamlines needs the velocity, which the run in {} did not write (it wrote \
             {wrote})",
            dir.display()
        );
    }
    let picks: Vec<usize> = match a.every {
        Some(k) => (0..run.frames().len()).step_by(k as usize).collect(),
        None => vec![run.index_of(a.frame.unwrap_or(-1))?],
    };
    if picks.is_empty() {
        anyhow::bail!("the run in {} lists no frame yet", dir.display());
    }
    let grid = run.grid();
    let want = crate::export::Fields {
        density: true,
        temperature: true,
        flame: true,
        fuel: false,
        velocity: a.streamlines,
        collision: a.streamlines,
    };
    let read_opts = crate::export::ExportOptions {
        fields: want,
        ..crate::export::ExportOptions::default()
    };
    context::check_memory(
        // A frame and one file of it held whole, as when it was written.
        crate::export::estimate_bytes(grid.dims, &read_opts),
        a.width,
        a.height,
        &format!(
            "reading a {} frame and drawing {}×{} pixels with OpenGL",
            grid.dims, a.width, a.height
        ),
    )?;
    let settings = settings_of(a, scene)?;
    let ctx = context::headless()?;
    let gl = context::info(&ctx);
    let mut renderer = VolumeRenderer::new(&ctx)?;
    if let Err(e) = renderer.set_obstacles(&ctx, &scene.obstacles) {
        eprintln!("note: the run's obstacles are not drawn: {e}");
    }
    let target = Offscreen::new(&ctx, a.width, a.height)?;
    let bx = VolumeBox::of_grid(&grid);
    let camera = camera_of(a, scene, &bx);
    // A flipbook frame is held for the simulated time between the frames it shows.
    let m = run.manifest();
    let held = f64::from(a.every.unwrap_or(1)) * f64::from(m.every.max(1)) * f64::from(m.dt);
    let mut out = Pictures::new(a, picks.len() as u64)?;
    for i in picks {
        let f = run.read(i, want)?;
        let up = renderer.upload_frame(&ctx, &f, settings.kelvin_per_unit)?;
        let segments = match a.streamlines {
            true => streamline_vertices(&f, a.streamline_count as usize, a.streamline_length),
            false => Vec::new(),
        };
        let (img, ms) = target.render_with(&ctx, &renderer, &camera, &bx, &settings, &segments)?;
        out.put(&img, &f, held, up, ms)?;
    }
    out.finish(
        &gl,
        serde_json::json!({
            "run": dir.display().to_string(),
            "read_from": run.format().ext(),
            "dims": grid.dims.as_array(),
            "upres": m.upres,
            "skips_empty_bricks": renderer.skips_empty(),
            "light_cache": renderer.light_cache_dims().map(|d| d.as_array()),
        }),
    )
}

/// Streamline segments of `f` seeded around its emitters, coloured by speed (Inferno).
pub fn streamline_vertices(
    f: &Frame,
    count: usize,
    length: f32,
) -> Vec<crate::render::volume::StreamVertex> {
    let lines = crate::streamlines::around_emitters(f, count, length);
    let range = crate::render::volume::speed_range(&lines);
    crate::render::volume::stream_vertices(&lines, range, |x| {
        crate::viewer::slice_view::ColorMap::Inferno
            .color(0.15 + 0.85 * x)
            .map(|c| f32::from(c) / 255.0)
    })
}
