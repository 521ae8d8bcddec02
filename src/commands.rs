//! What each subcommand does. `main.rs` only parses and dispatches; errors come back as
//! `anyhow` errors with their causes.

use crate::batch;
use crate::bench::{self, BenchConfig};
use crate::cli::{BenchArgs, RenderArgs, RunArgs, SimulateArgs, ViewArgs};
use crate::scene::Scene;
use crate::sim::Simulation;
use anyhow::{Context, Result};
use std::io::Write;

fn scene_for(g: &crate::cli::GridArgs) -> Result<Scene> {
    Ok(g.scene()?)
}

/// `plume view` (and the bare `plume`): the interactive viewer.
pub fn view(a: ViewArgs) -> Result<()> {
    if let Some(p) = &a.screenshot {
        crate::render::ImageFormat::of_path(p)?;
    }
    let scene = scene_for(&a.grid)?;
    let (w, h) = a.window;
    crate::render::context::check_memory(
        crate::backend::host_memory(&scene, a.grid.backend),
        w,
        h,
        &format!("viewing a {} grid in a {w}×{h} window", scene.dims()),
    )?;
    if a.frames.is_none() && on_virtual_screen() {
        eprintln!(
            "note: the window is on a virtual screen (xvfb-run) that nobody sees, and runs \
             until it is stopped; to see a picture, end after N frames with one: \
             xvfb-run -a plume view --frames 300 --screenshot view.png"
        );
    }
    let opts = crate::viewer::ViewOptions {
        scene,
        frames: a.frames,
        screenshot: a.screenshot,
        slice: a.slice,
        streamlines: a.streamlines,
        paused: a.paused,
        size: a.window,
        record: a.record,
        overwrite: a.overwrite,
        json: a.json,
        render_scale: a.render_scale,
        backend: a.grid.backend,
    };
    crate::viewer::run(opts)?;
    Ok(())
}

/// Whether the display is a virtual one `xvfb-run` started (it points `XAUTHORITY` into its
/// own temporary folder).
fn on_virtual_screen() -> bool {
    std::env::var("XAUTHORITY").is_ok_and(|x| x.contains("xvfb-run"))
}

/// Builds the scene on the backend the options ask for and says which, on stderr.
fn build(scene: &Scene, g: &crate::cli::GridArgs) -> Result<crate::backend::Built> {
    let b = crate::backend::build(scene, g.backend).context("building the scene")?;
    eprintln!("{}", b.why);
    Ok(b)
}

/// `plume simulate`: steps a scene headless and prints what the smoke does.
pub fn simulate(a: SimulateArgs) -> Result<()> {
    let scene = scene_for(&a.grid)?;
    let built = build(&scene, &a.grid)?;
    let mut solver = built.sim;
    let d = solver.grid().dims;
    println!(
        "scene '{}' on a {d} grid, dt = {:.4} s, backend: {}, pressure solver: {}",
        scene.name,
        solver.params().dt,
        built.backend,
        solver.pressure_solver()
    );
    println!(
        "    time   steps   smoke amount   emitted - fade   smoky cells   centroid height   \
         pressure it   residual   sub-steps    CFL   ms/step"
    );
    let dt = solver.params().dt as f64;
    let total = (a.seconds / dt).ceil() as u64;
    let every = ((0.25 / dt).round() as u64).max(1);
    let mut out = std::io::stdout().lock();
    let mut ms = 0.0;
    // What the emitters added, less what fade took: the most the box can hold.
    let fade = (-f64::from(solver.params().fade) * dt).exp();
    let mut budget = solver.total_density();
    let (mut substeps, mut cfl) = (0u32, 0.0f32);
    let density = crate::frame::Select {
        density: true,
        ..Default::default()
    };
    for n in 1..=total {
        let st = solver.step()?;
        ms += st.total_ms;
        substeps = substeps.max(st.substeps);
        cfl = cfl.max(st.cfl);
        budget = budget * fade + st.source_added;
        if n % every == 0 || n == total {
            let st = solver.stats().clone();
            let f = solver.frame(density);
            let rho = f.density.as_deref().unwrap_or_default();
            let h = crate::frame::density_centroid(&f.grid, rho).map_or(f64::NAN, |c| c[1]);
            writeln!(
                out,
                "{:7.2}s {:7} {:14.5} {:16.5} {:12.1}% {:17.3} {:13} {:10.1e} {:11} {:6.2} {:9.2}",
                solver.time(),
                solver.steps(),
                solver.total_density(),
                budget,
                100.0 * crate::frame::fraction_above(rho, 0.01),
                h,
                st.pressure_iterations,
                st.pressure_residual,
                substeps,
                cfl,
                ms / every as f64
            )?;
            ms = 0.0;
            substeps = 0;
            cfl = 0.0;
        }
    }
    Ok(())
}

/// `plume bench`: times the solver's stages.
pub fn bench(a: BenchArgs) -> Result<()> {
    // The worker threads (`--threads`) were started by `main` before any command ran.
    {
        use crate::cli::SimdArg;
        use crate::sim::trace16::{set_simd_cap, Simd};
        match (a.no_simd, a.simd) {
            (true, _) | (_, Some(SimdArg::None)) => set_simd_cap(Simd::Scalar),
            (_, Some(SimdArg::Avx2)) => set_simd_cap(Simd::Avx2),
            _ => set_simd_cap(Simd::Avx512),
        }
    }
    if a.dense {
        crate::sim::active::set_sparse(false);
    }
    let cfg = BenchConfig {
        scene: scene_for(&a.grid)?,
        warmup: a.warmup as usize,
        steps: a.steps as usize,
        baseline: a.baseline,
        baseline_steps: 3,
        kernels: a.kernels,
    };
    let built = build(&cfg.scene, &a.grid)?;
    if a.kernels && built.backend != "gpu" {
        anyhow::bail!(
            "--kernels times the GPU backend's kernels on the card's clock; this run is on the {} backend (use --backend gpu)",
            built.backend
        );
    }
    let info = match built.backend {
        "gpu" => {
            // The card's own bandwidth, on a solver of its own (the measured one is wrapped).
            let probe = crate::backend::gpu(&cfg.scene.clone().with_resolution(8))
                .context("measuring the card's bandwidth")?;
            // Measured once: the kernel's copy on buffers made as the fields are is the
            // bandwidth the floors use.
            let copies: std::collections::BTreeMap<String, f64> = probe
                .copy_bandwidths()
                .into_iter()
                .map(|(k, v)| (k.to_string(), v))
                .collect();
            bench::BackendInfo {
                gl_renderer: Some(probe.info().renderer.clone()),
                gl_version: Some(probe.info().version.clone()),
                host_us_per_dispatch: probe.host_us_per_dispatch(),
                card_us_per_dependent_dispatch: probe.card_us_per_dependent_dispatch(),
                bandwidth_gb_s: copies.get(plume_gpu::FIELD_COPY).copied(),
                copy_bandwidths: copies,
                stage_clock: probe.stage_clock().into(),
            }
        }
        _ => bench::BackendInfo {
            bandwidth_gb_s: bench::memory_bandwidth_gb_s(),
            stage_clock: "CPU clock".into(),
            ..Default::default()
        },
    };
    // The up-resolution pass is run and timed by the benchmark itself (as the stage
    // "detail", with the copy of the coarse fields it reads): it gets the coarse solver,
    // not one with the pass already layered on top (which ran the pass twice a step).
    let report =
        bench::run_with(&cfg, built.sim.into_coarse(), info).context("running the benchmark")?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}

/// `plume render`: draws a scene headless into PNG or JPEG files.
pub fn render(a: RenderArgs) -> Result<()> {
    use crate::camera::OrbitCamera;
    use crate::render::{context, volume::VolumeBox, Offscreen, VolumeRenderer};

    // With --every: a flipbook when --out names a .gif, else a folder of PNGs.
    let flipbook = a.every.is_some() && crate::render::flipbook::is_gif(&a.out);
    if a.every.is_none() {
        crate::render::ImageFormat::of_path(&a.out)?;
    }
    let scene = scene_for(&a.grid)?;
    crate::render::context::check_memory(
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
    let mut settings = scene.render.clone();
    if let Some(d) = a.density_scale {
        settings.density_scale = d;
    }
    if let Some(q) = a.quality {
        settings.step_quality = q;
    }
    // The flags only turn things off; without them the scene's own settings stand.
    if a.no_shadows {
        settings.shadows = false;
    }
    if a.no_outline {
        settings.outline = false;
    }
    settings.validate()?;

    exchange.set_kelvin_per_unit(settings.kelvin_per_unit);
    let gl = context::info(&ctx);
    let mut renderer = VolumeRenderer::new(&ctx)?;
    renderer.set_obstacles(&ctx, &scene.obstacles)?;
    let target = Offscreen::new(&ctx, a.width, a.height)?;
    let bx = VolumeBox::of_grid(sim.grid());
    let camera = match a.camera {
        Some([yaw, pitch, dist]) => {
            let c = [0, 1, 2].map(|i| 0.5 * (bx.min[i] + bx.max[i]));
            OrbitCamera::from_degrees(c, yaw, pitch, dist)
        }
        None => scene.camera(a.width as f32 / a.height as f32),
    };
    if a.every.is_some() && !flipbook {
        std::fs::create_dir_all(&a.out)
            .with_context(|| format!("cannot create the output folder {}", a.out.display()))?;
        if !a.out.is_dir() {
            anyhow::bail!("{} is not a folder", a.out.display());
        }
    }

    let mut uploads = Vec::new();
    let mut renders = Vec::new();
    let mut files = Vec::new();
    if !(a.streamline_length.is_finite()
        && a.streamline_length > 0.0
        && a.streamline_length <= 100.0)
    {
        anyhow::bail!(
            "--streamline-length {} is outside the allowed range (0, 100]",
            a.streamline_length
        );
    }
    let select = crate::frame::Select {
        density: true,
        temperature: true,
        flame: true,
        velocity: a.streamlines,
        solid: a.streamlines,
        ..Default::default()
    };
    let mut book = match flipbook {
        true => Some(crate::render::Flipbook::new(
            &a.out,
            a.width,
            a.height,
            u64::from(a.steps / a.every.unwrap_or(1).max(1)),
        )?),
        false => None,
    };
    let dt = f64::from(sim.params().dt);
    let mut frame = |sim: &dyn Simulation, path: std::path::PathBuf| -> Result<()> {
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
        let segments = if a.streamlines {
            streamline_vertices(&f, a.streamline_count as usize, a.streamline_length)
        } else {
            Vec::new()
        };
        let (img, ms) = target.render_with(&ctx, &renderer, &camera, &bx, &settings, &segments)?;
        let what = match book.as_mut() {
            Some(book) => {
                // Held until the next frame's time: real time, or 1/fps a frame.
                let n = book.frames() as f64 + 1.0;
                let until = match a.fps {
                    Some(fps) => n / fps,
                    None => n * f64::from(a.every.unwrap_or(1)) * dt,
                };
                let cs = book.push(&img, until)?;
                format!("frame {} of {} ({cs}/100 s)", book.frames(), path.display())
            }
            None => {
                img.save(&path)?;
                format!("wrote {}", path.display())
            }
        };
        if !a.json {
            println!(
                "{what} (step {}, t = {:.2} s, upload {up:.2} ms, render {ms:.1} ms)",
                f.step, f.time
            );
        }
        uploads.push(up);
        renders.push(ms);
        files.push(path.display().to_string());
        Ok(())
    };
    match a.every {
        Some(k) => {
            let mut n = 0;
            for s in 1..=a.steps {
                sim.step()?;
                if s % k == 0 {
                    n += 1;
                    let path = match flipbook {
                        true => a.out.clone(),
                        false => a.out.join(format!("frame_{n:04}.png")),
                    };
                    frame(sim.as_ref(), path)?;
                }
            }
            if n == 0 {
                anyhow::bail!("--every {k} with --steps {} writes no frame", a.steps);
            }
        }
        None => {
            for _ in 0..a.steps {
                sim.step()?;
            }
            frame(sim.as_ref(), a.out.clone())?;
        }
    }
    if let Some(book) = book {
        let (frames, seconds) = (book.frames(), book.seconds());
        let bytes = book.save()?;
        if !a.json {
            println!(
                "wrote {}: {frames} frames, {seconds:.2} s a loop, {:.1} KiB",
                a.out.display(),
                bytes as f64 / 1024.0
            );
        }
    }
    if a.json {
        // The grid drawn: with --upres N the fine one, N times the simulated grid.
        let d = match scene.detail.enabled {
            true => scene.detail.fine_grid(&scene.grid_placement())?.dims,
            false => scene.dims(),
        };
        let report = serde_json::json!({
            "upload_ms": bench::median(&mut uploads),
            "render_ms": bench::median(&mut renders),
            "frames": files.len(),
            "width": a.width,
            "height": a.height,
            "dims": [d.nx, d.ny, d.nz],
            "upres": if scene.detail.enabled { scene.detail.factor } else { 0 },
            "simulated_dims": scene.dims().as_array(),
            "gl_renderer": gl.renderer,
            "gl_version": gl.version,
            "files": files,
        });
        println!("{report}");
    }
    Ok(())
}

/// What `run` with `a` writes: its formats, fields and file rules.
pub fn run_options(a: &RunArgs) -> crate::export::ExportOptions {
    crate::export::ExportOptions {
        formats: a.format.0.clone(),
        fields: a.fields,
        up: a.up,
        half: a.half,
        prefix: a.prefix.clone(),
        every: a.every,
        ..crate::export::ExportOptions::default()
    }
}

/// Bytes `run` needs for `scene` with `opts` on `backend` (what its memory check counts,
/// before the check's margin): the solver and the up-resolution pass at their peak, and
/// the exporters' copies of a frame (of the fine grid with `--upres`). An upper bound on
/// what the process holds beyond its code and libraries (`tests/memory_estimates.rs`).
pub fn run_memory(
    scene: &Scene,
    opts: &crate::export::ExportOptions,
    backend: crate::backend::Backend,
) -> Result<u64> {
    let frame_dims = match scene.detail.enabled {
        true => scene.detail.fine_grid(&scene.grid_placement())?.dims,
        false => scene.dims(),
    };
    Ok(crate::backend::host_memory(scene, backend)
        + crate::export::estimate_bytes(frame_dims, opts))
}

/// [`run_memory`] for the command line `a`.
pub fn run_memory_of(a: &RunArgs) -> Result<u64> {
    run_memory(&scene_for(&a.grid)?, &run_options(a), a.grid.backend)
}

/// How `plume run` shows a run's progress and hears a stop: a bar on a terminal, else a line
/// per frame; the signal flag.
struct CliWatch<'a> {
    bar: Option<&'a indicatif::ProgressBar>,
    clock: std::time::Instant,
    from: u32,
    frames: u32,
}

impl batch::Watch for CliWatch<'_> {
    fn stop(&mut self) -> bool {
        crate::signals::stopped()
    }

    fn frame(&mut self, n: u32, time: f64) {
        match self.bar {
            Some(bar) => {
                bar.set_message(format!("t = {time:.3} s"));
                bar.set_position(u64::from(n));
            }
            None => {
                let elapsed = self.clock.elapsed().as_secs_f64();
                let rate = (n - self.from) as f64 / elapsed.max(1e-9);
                let left = (self.frames - n) as f64 / rate;
                eprintln!(
                    "frame {n}/{} t = {time:.3} s, {rate:.2} frames/s, {left:.0} s left",
                    self.frames
                );
            }
        }
    }
}

/// `plume run`: simulates and exports frames into a folder.
pub fn run(a: RunArgs) -> Result<()> {
    use crate::export::{self, run::RunWriter};
    use std::io::IsTerminal;

    let opts = run_options(&a);
    opts.validate()?;
    if opts.half && opts.formats.iter().any(|f| *f != export::Format::Vdb) {
        eprintln!("note: --half makes the .vdb files 16-bit; .vti and .npy stay 32-bit floats");
    }
    let scene = scene_for(&a.grid)?;
    crate::sim::solver::memory::check(
        run_memory(&scene, &opts, a.grid.backend)?,
        &format!("simulating and exporting a {} grid", scene.dims()),
    )?;
    let built = build(&scene, &a.grid)?;
    let mut sim = built.sim;
    // Before the folder is touched: a signal from here on ends the run cleanly.
    crate::signals::install().context("installing the signal handlers")?;
    let (mut writer, start) = RunWriter::create_from(
        &a.out,
        &scene,
        &opts,
        a.existing(),
        Some(a.frames),
        built.backend,
    )?;
    writer.set_stop(crate::signals::flag());
    if start.temporaries_removed > 0 {
        eprintln!(
            "removed {} unfinished temporary file{} an interrupted run left in {}",
            start.temporaries_removed,
            if start.temporaries_removed == 1 {
                ""
            } else {
                "s"
            },
            a.out.display()
        );
    }
    if start.frames >= a.frames {
        println!(
            "{} already holds {} complete frames; nothing to do",
            a.out.display(),
            start.frames
        );
        return Ok(());
    }
    if start.frames > 0 {
        eprintln!(
            "resuming after frame {} of {}: re-simulating its {} steps first",
            start.frames, a.frames, start.step
        );
    }
    // A live bar on a terminal; one plain line per frame when stderr is piped or logged.
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::new(u64::from(a.frames));
        bar.set_position(u64::from(start.frames));
        bar.reset_eta();
        bar.set_style(
            indicatif::ProgressStyle::with_template(
                "{bar:30.cyan/blue} frame {pos}/{len}, {msg}, {per_sec}, {eta} left",
            )
            .unwrap_or_else(|_| indicatif::ProgressStyle::default_bar()),
        );
        bar
    });
    let clock = std::time::Instant::now();
    let mut watch = CliWatch {
        bar: bar.as_ref(),
        clock,
        from: start.frames,
        frames: a.frames,
    };
    let ran = batch::drive(
        sim.as_mut(),
        &mut writer,
        &opts,
        start,
        a.frames,
        &mut watch,
    );
    if let Err(halt) = ran {
        if let Some(bar) = &bar {
            bar.abandon();
        }
        return Err(match halt {
            batch::Halt::Interrupted { held } => anyhow::anyhow!(batch::interrupted(
                crate::signals::last_name(),
                held,
                a.frames,
                &a.out
            )),
            batch::Halt::Resimulating(e) => anyhow::Error::new(e).context(batch::RESIMULATING),
            batch::Halt::Step { frame, source } => {
                anyhow::Error::new(source).context(batch::step_failed(frame))
            }
            batch::Halt::Write(e) => e.into(),
        });
    }
    if let Some(bar) = &bar {
        bar.finish();
    }
    let written = a.frames - start.frames;
    println!(
        "wrote {written} frame{} to {} in {:.1} s{}",
        if written == 1 { "" } else { "s" },
        a.out.display(),
        clock.elapsed().as_secs_f64(),
        if start.frames > 0 {
            format!(
                " (frames {} to {}, after the {} it held)",
                start.frames + 1,
                a.frames,
                start.frames
            )
        } else {
            String::new()
        }
    );
    Ok(())
}

/// Streamline segments of `f` seeded around its emitters, coloured by speed (Inferno).
pub fn streamline_vertices(
    f: &crate::frame::Frame,
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
