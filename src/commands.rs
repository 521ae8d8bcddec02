//! What each subcommand does. `main.rs` only parses and dispatches; errors come back as
//! `anyhow` errors with their causes.

use crate::batch;
use crate::bench::{self, BenchConfig};
use crate::cli::{BenchArgs, RunArgs, SimulateArgs, ViewArgs};
use crate::scene::Scene;
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
    // A run played back: its scene (grid, obstacles, camera) is the one it recorded.
    let scene = match &a.run {
        Some(dir) => {
            let run = crate::export::read::RunReader::open(dir)?;
            // Refused before a window opens: a run with nothing to show.
            if run.frames().is_empty() {
                anyhow::bail!(
                    "the run in {} lists no frame yet: there is nothing to play back",
                    dir.display()
                );
            }
            run.manifest().scene.clone()
        }
        None => scene_for(&a.grid)?,
    };
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
        run: a.run,
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
                gl_max_storage_block: probe.max_storage_block(),
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
