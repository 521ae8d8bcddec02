//! `plume bench`: runs a scene headless and measures the step, stage by stage.

use crate::baseline::FluidCube;
use crate::scene::Scene;
use crate::sim::{SimError, Simulation};
use std::collections::BTreeMap;
use std::time::Instant;

/// What to measure.
#[derive(Clone, Debug)]
pub struct BenchConfig {
    /// Scene to run (its grid dimensions are used as given).
    pub scene: Scene,
    /// Steps run before measuring (the plume needs time to develop).
    pub warmup: usize,
    /// Steps measured.
    pub steps: usize,
    /// Also time the serial port of the article's `FluidCubeStep`.
    pub baseline: bool,
    /// Steps timed for each baseline variant.
    pub baseline_steps: usize,
    /// Time every kernel (GPU backend: [`Simulation::time_kernels`]); an error where the
    /// backend cannot.
    pub kernels: bool,
}

/// One kernel at one size in one stage, over the measured steps (`bench --kernels`).
#[derive(Clone, Debug, serde::Serialize)]
pub struct KernelRow {
    /// The stage it ran in.
    pub stage: String,
    /// The kernel (`shaders/sim/KERNEL.comp`).
    pub kernel: String,
    /// Items a dispatch works on.
    pub items: u64,
    /// Mean dispatches a step.
    pub dispatches_per_step: f64,
    /// Mean ms a step on the card's clock (see `sim::KernelTime`).
    pub ms_per_step: f64,
    /// Mean bytes a step in the byte model (each bound array once an item).
    pub bytes_per_step: f64,
    /// Those bytes over that time, GB/s.
    pub model_gb_s: f64,
    /// The bytes at `memory_bandwidth_gb_s`, ms; null without it.
    pub floor_ms: Option<f64>,
    /// µs a dispatch.
    pub us_per_dispatch: f64,
}

/// The article port's timings.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BaselineReport {
    /// Median ms per step of the article's step with 4 solver iterations.
    pub iter4_ms_per_step: f64,
    /// Median ms per step with 20 solver iterations.
    pub iter20_ms_per_step: f64,
    /// `iter20_ms_per_step / ms_per_step`: how many times faster Plume's step is.
    pub ratio_iter20: f64,
}

/// Results, serialised as `plume bench --json`.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchReport {
    /// The solver backend measured: "cpu" or "gpu".
    pub backend: String,
    /// The OpenGL renderer the GPU backend ran on (`GL_RENDERER`); null for the CPU backend.
    pub gl_renderer: Option<String>,
    /// The OpenGL version string (`GL_VERSION`: the driver's version follows it on most
    /// vendors); null for the CPU backend.
    pub gl_version: Option<String>,
    /// What timed the stages: "CPU clock"; on the GPU "GL timestamp queries" (the card's
    /// own clock), or "CPU clock after glFinish" where the driver has no timer queries.
    pub stage_clock: String,
    /// The up-resolution factor (0: the pass is off).
    pub upres: u32,
    /// Grid dimensions `[nx, ny, nz]`.
    pub dims: [usize; 3],
    /// Steps measured.
    pub steps: usize,
    /// rayon worker threads.
    pub threads: usize,
    /// Median milliseconds per step.
    pub ms_per_step: f64,
    /// Mean milliseconds per step.
    pub mean_ms_per_step: f64,
    /// Median ms of each stage.
    pub stages: BTreeMap<String, f64>,
    /// Median ms of a step spent in no stage (the step's wall time less its stages'): every
    /// part of a step is a named stage, so this is a few hundredths of a millisecond.
    pub unstaged_ms: f64,
    /// Median pressure iterations per step.
    pub pressure_iterations: f64,
    /// Largest relative pressure residual over the measured steps.
    pub pressure_residual: f32,
    /// Average factor by which one pressure iteration reduced the residual (geometric mean
    /// over the measured steps that iterated).
    pub pressure_reduction_per_iteration: f64,
    /// Pressure solver used.
    pub pressure_solver: String,
    /// Median nanoseconds per cell per step.
    pub ns_per_cell_step: f64,
    /// Memory held by the solver's fields, bytes.
    pub memory_bytes: usize,
    /// The scene's time step, s.
    pub dt: f64,
    /// Median milliseconds per 1/60 s of simulated time (`ms_per_step·(1/60)/dt`): the
    /// measure of the speed goals, whatever dt and the sub-steps are.
    pub ms_per_60th_second: f64,
    /// Mean sub-steps per step over the measured steps.
    pub substeps_mean: f64,
    /// Median work of a step in sweeps of the grid (`sim::cost`: machine-independent; times
    /// the cells, cell-updates).
    pub work_sweeps: f64,
    /// `work_sweeps` in default scene steps at the same grid (`sim::cost::default_step`);
    /// steps are held to `sim::cost::BUDGET` of them.
    pub work_times_default: f64,
    /// Measured steps whose budget cut a solve short.
    pub budget_limited_steps: u32,
    /// Most sub-steps one measured step took.
    pub substeps_max: u32,
    /// Largest CFL number of any sub-step measured.
    pub cfl_max: f32,
    /// The scene's `max_cfl`: the most cells a sub-step may move the flow (what splits a
    /// step into sub-steps; `--set fluid.max_cfl=…` changes it).
    pub max_cfl: f32,
    /// `memory_bytes` per cell of the grid.
    pub bytes_per_cell: f64,
    /// The memory bandwidth the backend's fields live in, GB/s (10⁹ bytes), bytes read plus
    /// bytes written per second. CPU backend: a parallel copy between two 128 MiB buffers
    /// (far larger than the caches) by these threads, best of three copies. GPU backend:
    /// the copy kernel between two 256 MiB buffers made as the fields are, on a card kept
    /// busy for a quarter of a second first (its clocks up), best of five rounds of four
    /// copies on the card's clock. `None` (null) when the buffers could not be had.
    pub memory_bandwidth_gb_s: Option<f64>,
    /// The bandwidth floor of a step, ms: reading and writing every byte the solver holds
    /// once at `memory_bandwidth_gb_s`. A lower bound where the fields do not fit the caches
    /// (from 128³ on); a step does several passes over most fields, so it sits above it.
    pub bandwidth_floor_ms: Option<f64>,
    /// CPU backend: whether advection took its traces and samples many at a time (sixteen
    /// with AVX-512, eight with AVX2; see `sim::trace16`): false on processors without either
    /// and with `--no-simd`. Null on the GPU backend, which has no such paths.
    pub vectorised: Option<bool>,
    /// CPU backend: the vector instructions the passes used: "avx512", "avx2" or "none"
    /// (`--simd`). Null on the GPU backend.
    pub simd: Option<&'static str>,
    /// Whether the scalar advection skipped the cells with only outside air within their
    /// traces' reach (see `sim::active`; the GPU backend's on the card, `active.comp`):
    /// false with `--dense`. Always given (an `Option` for the JSON's older readers).
    pub sparse: Option<bool>,
    /// Median share of the cells the scalar advection worked out (1 with `--dense`).
    /// Always given.
    pub scalar_active: Option<f64>,
    /// GPU backend: median compute dispatches a measured step issued; null on the CPU.
    pub gpu_dispatches_per_step: Option<f64>,
    /// GPU backend: median waits for the card a measured step made (`glFinish`, read-backs
    /// of reductions' results, timestamp reads); null on the CPU.
    pub gpu_waits_per_step: Option<f64>,
    /// GPU backend: median milliseconds a measured step's host spent inside its dispatch
    /// calls (glium binding the uniforms, the driver queueing the work); null on the CPU.
    pub host_issue_ms: Option<f64>,
    /// GPU backend: microseconds of host time one dispatch of an empty kernel takes through
    /// glium (the floor of `host_issue_ms / gpu_dispatches_per_step`); null on the CPU.
    pub host_us_per_dispatch: Option<f64>,
    /// GPU backend: microseconds of the card's time one dispatch takes in a chain where
    /// each reads what the one before wrote (a memory barrier between them, as between a
    /// step's kernels; one work group each): the floor of a step's time at
    /// `gpu_dispatches_per_step` dispatches, however small the grid. Null on the CPU, where
    /// the driver has no timer queries, or where the host could not get ahead of the card.
    pub card_us_per_dependent_dispatch: Option<f64>,
    /// GPU backend: the largest storage block a kernel may bind, bytes, as the driver
    /// reports it (`GL_MAX_SHADER_STORAGE_BLOCK_SIZE`); null on the CPU.
    pub gl_max_storage_block: Option<u64>,
    /// GPU backend: the card's copy bandwidths, GB/s, by how the buffers are made and
    /// what copies (`kernel_immutable`: the copy kernel on buffers made as the fields are,
    /// which `memory_bandwidth_gb_s` repeats; `kernel_mappable`, `copy_engine`; on a
    /// hardware renderer also `kernel_wg256`, `kernel_wg1024`, `kernel_vec4_wg256`,
    /// `kernel_vec4_wg512`, `kernel_x4_wg256`, `kernel_x4_wg512` and
    /// `kernel_vec4_x4_wg512`: work-group sizes, vec4s, four elements an invocation);
    /// empty on the CPU.
    pub copy_bandwidths: BTreeMap<String, f64>,
    /// GPU backend: median bytes a measured step's kernels read and wrote, in the byte model
    /// of `plume_gpu::bytes` (an ideal cache: what each dispatch touches, once; a lower
    /// bound but for the scalars' advection, counted whole); null on the CPU.
    pub bytes_per_step: Option<f64>,
    /// GPU backend: each stage's floor, ms: its median bytes a step at
    /// `memory_bandwidth_gb_s`, to set beside `stages` ("substeps" is the largest speed read
    /// for the sub-steps); empty on the CPU.
    pub stage_floors_ms: BTreeMap<String, f64>,
    /// With `--kernels`: every kernel by stage and size, the longest first; null without.
    pub kernels: Option<Vec<KernelRow>>,
    /// GPU backend: its choices between ways of doing a piece of work that give the same
    /// bits, as its tuner left them after the last measured step (each way's best time on
    /// the card and the way taken; `picked` null while it still times them, which the
    /// measured steps then include); empty on the CPU and where the tuner is off.
    pub gpu_tuning: Vec<crate::sim::TunedChoice>,
    /// Article baseline, when requested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub baseline: Option<BaselineReport>,
}

/// Bytes read plus bytes written per second (GB/s) by a parallel copy between two buffers of
/// 128 MiB, the best of three copies (the first touch of the pages is not timed); `None` when
/// the memory for the buffers cannot be had (the measure is skipped, not the benchmark).
pub fn memory_bandwidth_gb_s() -> Option<f64> {
    use crate::sim::solver::memory::{check, try_filled};
    use rayon::prelude::*;
    const N: usize = 32 << 20; // f32s: 128 MiB
    let what = "the bandwidth measure";
    check(2 * 4 * N as u64, what).ok()?;
    let mut src = try_filled(N, 0.0f32, what).ok()?;
    let mut dst = try_filled(N, 0.0f32, what).ok()?;
    src.par_chunks_mut(1 << 16)
        .enumerate()
        .for_each(|(k, c)| c.fill(k as f32));
    dst.par_chunks_mut(1 << 16).for_each(|c| c.fill(1.0));
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        dst.par_chunks_mut(1 << 16)
            .zip(src.par_chunks(1 << 16))
            .for_each(|(d, s)| d.copy_from_slice(s));
        best = best.min(t.elapsed().as_secs_f64());
    }
    std::hint::black_box(&dst);
    Some((2 * N * std::mem::size_of::<f32>()) as f64 / best / 1e9)
}

/// Median of a list (0 for an empty one).
pub fn median(v: &mut [f64]) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let m = v.len() / 2;
    if v.len() % 2 == 1 {
        v[m]
    } else {
        0.5 * (v[m - 1] + v[m])
    }
}

/// What a backend tells the benchmark about itself besides what [`Simulation`] says.
#[derive(Clone, Debug, Default)]
pub struct BackendInfo {
    /// The OpenGL renderer (GPU backend).
    pub gl_renderer: Option<String>,
    /// The OpenGL version (GPU backend).
    pub gl_version: Option<String>,
    /// Host microseconds one empty dispatch takes (GPU backend).
    pub host_us_per_dispatch: Option<f64>,
    /// The card's microseconds a dependent dispatch (GPU backend).
    pub card_us_per_dependent_dispatch: Option<f64>,
    /// The driver's largest storage block, bytes (GPU backend).
    pub gl_max_storage_block: Option<u64>,
    /// The card's copy bandwidths by kind, GB/s (GPU backend).
    pub copy_bandwidths: BTreeMap<String, f64>,
    /// The bandwidth of the memory its fields live in, GB/s (see
    /// [`BenchReport::memory_bandwidth_gb_s`]).
    pub bandwidth_gb_s: Option<f64>,
    /// What times the stages (see [`BenchReport::stage_clock`]).
    pub stage_clock: String,
}

/// Runs the benchmark on the CPU backend.
pub fn run(cfg: &BenchConfig) -> Result<BenchReport, SimError> {
    let solver = cfg.scene.build()?;
    run_with(
        cfg,
        Box::new(solver),
        BackendInfo {
            bandwidth_gb_s: memory_bandwidth_gb_s(),
            stage_clock: "CPU clock".into(),
            ..Default::default()
        },
    )
}

/// Runs the benchmark on `solver`, a backend built for `cfg.scene`.
pub fn run_with(
    cfg: &BenchConfig,
    mut solver: Box<dyn Simulation>,
    info: BackendInfo,
) -> Result<BenchReport, SimError> {
    if cfg.kernels && !solver.time_kernels(true) {
        return Err(SimError::InvalidParameter(format!(
            "bench --kernels times the kernels on a graphics card's clock: the {} backend {}",
            solver.backend(),
            if solver.backend() == "cpu" {
                "has no kernels (use --backend gpu)"
            } else {
                "has no timer queries on this driver"
            }
        )));
    }
    // The up-resolution pass, when the scene asks for it: timed as the stage "detail" (with
    // the copy of the coarse fields it reads) and counted in the step.
    let mut detail = match cfg.scene.detail.enabled {
        true => {
            let fire = cfg.scene.emitters.iter().any(crate::sim::Emitter::burns);
            let mut d = crate::sim::detail::Detail::new(solver.grid(), cfg.scene.detail, fire)?;
            d.reset_from(&solver.frame(d.select()));
            Some(d)
        }
        false => None,
    };
    let mut detail_step = |solver: &dyn Simulation| -> f64 {
        let Some(d) = detail.as_mut() else {
            return 0.0;
        };
        let t = Instant::now();
        let f = solver.frame(d.select());
        d.step(&f, solver.params().dt);
        t.elapsed().as_secs_f64() * 1e3
    };
    for _ in 0..cfg.warmup {
        solver.step()?;
        detail_step(solver.as_ref());
    }
    let (mut sub_sum, mut sub_max, mut cfl_max) = (0u64, 0u32, 0.0f32);
    let mut totals = Vec::with_capacity(cfg.steps);
    let mut stages: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let mut iters = Vec::new();
    let mut work = Vec::new();
    let mut limited = 0u32;
    let mut unstaged = Vec::new();
    let mut active = Vec::new();
    let mut worst = 0.0f32;
    let mut host: [Vec<f64>; 3] = Default::default();
    let mut step_bytes: Vec<f64> = Vec::new();
    let mut stage_bytes: BTreeMap<String, Vec<f64>> = BTreeMap::new();
    let (mut log_red, mut red_iters) = (0.0f64, 0.0f64);
    let mut kernels: Vec<KernelRow> = Vec::new();
    let mut tuning = Vec::new();
    for _ in 0..cfg.steps.max(1) {
        let t = Instant::now();
        let mut st = solver.step()?.clone();
        let detail_ms = detail_step(solver.as_ref());
        if cfg.scene.detail.enabled {
            st.stages.push(crate::sim::StageTime {
                name: "detail",
                ms: detail_ms,
            });
        }
        let wall = t.elapsed().as_secs_f64() * 1e3;
        totals.push(wall);
        unstaged.push(wall - st.stages.iter().map(|s| s.ms).sum::<f64>());
        sub_sum += u64::from(st.substeps);
        sub_max = sub_max.max(st.substeps);
        cfl_max = cfl_max.max(st.cfl);
        for s in &st.stages {
            stages.entry(s.name.to_string()).or_default().push(s.ms);
        }
        iters.push(st.pressure_iterations as f64);
        work.push(st.work);
        limited += u32::from(st.budget_limited);
        active.push(f64::from(st.scalar_active));
        if st.pressure_iterations > 0 && st.pressure_residual > 0.0 {
            log_red += (st.pressure_initial_residual as f64 / st.pressure_residual as f64).ln();
            red_iters += st.pressure_iterations as f64;
        }
        worst = worst.max(st.pressure_residual);
        if let Some(h) = &st.host {
            host[0].push(f64::from(h.dispatches));
            host[1].push(f64::from(h.waits));
            host[2].push(h.issue_ms);
            step_bytes.push(h.stage_bytes.iter().map(|s| s.1 as f64).sum());
            for (name, b) in &h.stage_bytes {
                stage_bytes
                    .entry(name.to_string())
                    .or_default()
                    .push(*b as f64);
            }
            add_kernels(&mut kernels, &h.kernels);
            tuning.clone_from(&h.tuning);
        }
    }
    let [mut dispatches, mut waits, mut issue] = host;
    let host_median = |v: &mut Vec<f64>| (!v.is_empty()).then(|| median(v));
    let mean = totals.iter().sum::<f64>() / totals.len() as f64;
    let ms = median(&mut totals);
    let work_sweeps = median(&mut work);
    let bandwidth = info.bandwidth_gb_s;
    let d = solver.grid().dims;
    let memory = solver.memory_bytes();
    let cpu = solver.backend() == "cpu";
    let baseline = if cfg.baseline {
        let b4 = baseline_ms(d.nx.max(d.ny).max(d.nz), 4, cfg.baseline_steps);
        let b20 = baseline_ms(d.nx.max(d.ny).max(d.nz), 20, cfg.baseline_steps);
        Some(BaselineReport {
            iter4_ms_per_step: b4,
            iter20_ms_per_step: b20,
            ratio_iter20: b20 / ms,
        })
    } else {
        None
    };
    Ok(BenchReport {
        backend: solver.backend().to_string(),
        gl_renderer: info.gl_renderer,
        gl_version: info.gl_version,
        gpu_dispatches_per_step: host_median(&mut dispatches),
        gpu_waits_per_step: host_median(&mut waits),
        host_issue_ms: host_median(&mut issue),
        host_us_per_dispatch: info.host_us_per_dispatch,
        card_us_per_dependent_dispatch: info.card_us_per_dependent_dispatch,
        gl_max_storage_block: info.gl_max_storage_block,
        copy_bandwidths: info.copy_bandwidths,
        bytes_per_step: (!step_bytes.is_empty()).then(|| median(&mut step_bytes)),
        stage_floors_ms: match bandwidth {
            Some(bw) if bw > 0.0 => stage_bytes
                .into_iter()
                .map(|(k, mut v)| (k, median(&mut v) / (bw * 1e9) * 1e3))
                .collect(),
            _ => BTreeMap::new(),
        },
        kernels: cfg
            .kernels
            .then(|| kernel_rows(kernels, totals.len(), bandwidth)),
        gpu_tuning: tuning
            .into_iter()
            .filter(|c| c.fixed || c.timed())
            .collect(),
        stage_clock: info.stage_clock,
        upres: if cfg.scene.detail.enabled {
            cfg.scene.detail.factor
        } else {
            0
        },
        dims: d.as_array(),
        steps: totals.len(),
        threads: rayon::current_num_threads(),
        // The CPU's vector paths: none of them on the GPU backend (both have active regions).
        vectorised: cpu.then(crate::sim::trace16::simd_available),
        simd: cpu.then(|| crate::sim::trace16::simd_level().name()),
        sparse: Some(crate::sim::active::sparse_enabled()),
        scalar_active: Some(median(&mut active)),
        ms_per_step: ms,
        mean_ms_per_step: mean,
        stages: stages
            .into_iter()
            .map(|(k, mut v)| (k, median(&mut v)))
            .collect(),
        unstaged_ms: median(&mut unstaged),
        pressure_iterations: median(&mut iters),
        pressure_residual: worst,
        pressure_reduction_per_iteration: if red_iters > 0.0 {
            (log_red / red_iters).exp()
        } else {
            1.0
        },
        pressure_solver: solver.pressure_solver().to_string(),
        ns_per_cell_step: ms * 1e6 / d.cells() as f64,
        memory_bytes: memory,
        dt: f64::from(solver.params().dt),
        ms_per_60th_second: ms / (60.0 * f64::from(solver.params().dt)),
        substeps_mean: sub_sum as f64 / totals.len().max(1) as f64,
        work_sweeps,
        work_times_default: work_sweeps / crate::sim::cost::default_step(),
        budget_limited_steps: limited,
        substeps_max: sub_max,
        cfl_max,
        max_cfl: solver.params().max_cfl,
        bytes_per_cell: memory as f64 / d.cells() as f64,
        memory_bandwidth_gb_s: bandwidth,
        bandwidth_floor_ms: bandwidth.map(|b| 2.0 * memory as f64 / (b * 1e9) * 1e3),
        baseline,
    })
}

/// One line of `bench`'s text for a choice of the GPU backend's tuner: the way taken (or
/// that it is still timing) and each way's best time.
fn tuning_line(c: &crate::sim::TunedChoice) -> String {
    let ways: Vec<String> = c
        .ways
        .iter()
        .map(|w| match w.best_us {
            Some(us) => format!("{} {us:.1} µs (best of {})", w.name, w.samples),
            None => format!("{} not timed", w.name),
        })
        .collect();
    let taken = match (c.picked, c.fixed) {
        (Some(i), true) => format!("{} (fixed)", c.ways[i].name),
        (Some(i), false) => c.ways[i].name.to_string(),
        (None, _) => "still timing".to_string(),
    };
    if c.fixed {
        format!("tuning: {:<14} {taken}", c.site)
    } else {
        format!("tuning: {:<14} {taken}: {}", c.site, ways.join(", "))
    }
}

/// Adds a step's kernel times to the sums so far (one row a stage, kernel and size).
fn add_kernels(rows: &mut Vec<KernelRow>, step: &[crate::sim::KernelTime]) {
    for k in step {
        match rows
            .iter_mut()
            .find(|r| r.stage == k.stage && r.kernel == k.kernel && r.items == k.items)
        {
            Some(r) => {
                r.dispatches_per_step += f64::from(k.dispatches);
                r.ms_per_step += k.ms;
                r.bytes_per_step += k.bytes as f64;
            }
            None => rows.push(KernelRow {
                stage: k.stage.to_string(),
                kernel: k.kernel.to_string(),
                items: k.items,
                dispatches_per_step: f64::from(k.dispatches),
                ms_per_step: k.ms,
                bytes_per_step: k.bytes as f64,
                model_gb_s: 0.0,
                floor_ms: None,
                us_per_dispatch: 0.0,
            }),
        }
    }
}

/// The kernels' sums over `steps` steps as means a step, with their rates and floors at
/// `bandwidth` GB/s, the longest first.
fn kernel_rows(mut rows: Vec<KernelRow>, steps: usize, bandwidth: Option<f64>) -> Vec<KernelRow> {
    let n = steps.max(1) as f64;
    for r in &mut rows {
        r.dispatches_per_step /= n;
        r.ms_per_step /= n;
        r.bytes_per_step /= n;
        r.model_gb_s = if r.ms_per_step > 0.0 {
            r.bytes_per_step / (r.ms_per_step * 1e6)
        } else {
            0.0
        };
        r.floor_ms = bandwidth
            .filter(|&b| b > 0.0)
            .map(|b| r.bytes_per_step / (b * 1e6));
        r.us_per_dispatch = if r.dispatches_per_step > 0.0 {
            r.ms_per_step * 1e3 / r.dispatches_per_step
        } else {
            0.0
        };
    }
    rows.sort_by(|a, b| b.ms_per_step.total_cmp(&a.ms_per_step));
    rows
}

/// Median ms per step of the article's `FluidCubeStep` on an n³ cube with a plume-like source.
pub fn baseline_ms(n: usize, iter: usize, steps: usize) -> f64 {
    let mut cube = FluidCube::new(n, 0.0, 0.0, 1.0 / 60.0, iter);
    let c = n / 2;
    let mut times = Vec::new();
    for _ in 0..steps.max(1) {
        cube.add_density(c, n / 8, c, 2.0);
        cube.add_velocity(c, n / 8, c, [0.0, 0.5, 0.0]);
        let t = Instant::now();
        cube.step();
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    median(&mut times)
}

impl BenchReport {
    /// Human-readable summary.
    pub fn to_text(&self) -> String {
        use std::fmt::Write;
        let mut s = String::new();
        let [x, y, z] = self.dims;
        let _ = match &self.gl_renderer {
            Some(r) => writeln!(
                s,
                "backend: {} on {r} (stages timed by {})",
                self.backend, self.stage_clock
            ),
            None => writeln!(s, "backend: {}", self.backend),
        };
        let _ = writeln!(
            s,
            "grid {x}x{y}x{z}, {} step{}, {} thread{}, pressure: {}, traces {}",
            self.steps,
            if self.steps == 1 { "" } else { "s" },
            self.threads,
            if self.threads == 1 { "" } else { "s" },
            self.pressure_solver,
            match self.simd {
                Some("avx512") => "16 at a time (AVX-512)",
                Some("avx2") => "8 at a time (AVX2)",
                Some(_) => "one at a time",
                None => "on the card",
            }
        );
        let _ = writeln!(
            s,
            "step: {:.2} ms median ({:.2} mean), {:.1} ns/cell/step, memory {:.1} MiB ({:.0} B a cell)",
            self.ms_per_step,
            self.mean_ms_per_step,
            self.ns_per_cell_step,
            self.memory_bytes as f64 / (1024.0 * 1024.0),
            self.bytes_per_cell
        );
        let _ = match (self.memory_bandwidth_gb_s, self.bandwidth_floor_ms) {
            (Some(bw), Some(floor)) => writeln!(
                s,
                "memory bandwidth {bw:.1} GB/s: reading and writing the solver's memory once takes {floor:.2} ms"
            ),
            _ => writeln!(
                s,
                "memory bandwidth not measured (no memory to spare for its two 128 MiB buffers)"
            ),
        };
        let _ = writeln!(
            s,
            "per 1/60 s of simulated time: {:.2} ms (dt = {:.4} s); sub-steps {:.2} mean, {} most; largest CFL {:.2} (max_cfl {})",
            self.ms_per_60th_second, self.dt, self.substeps_mean, self.substeps_max, self.cfl_max, self.max_cfl
        );
        let _ = writeln!(
            s,
            "work: {:.0} sweeps of the grid a step (median), {:.1} times the default scene's{}",
            self.work_sweeps,
            self.work_times_default,
            if self.budget_limited_steps > 0 {
                format!(
                    "; the step budget ({} times) cut solves short in {} of the steps",
                    crate::sim::cost::BUDGET,
                    self.budget_limited_steps
                )
            } else {
                String::new()
            }
        );
        if let (Some(active), Some(sparse)) = (self.scalar_active, self.sparse) {
            let _ = writeln!(
                s,
                "scalar advection: {:.1}% of the cells worked out ({})",
                100.0 * active,
                if sparse {
                    "the rest hold only outside air within their traces' reach"
                } else {
                    "--dense: every cell"
                }
            );
        }
        if let (Some(d), Some(w), Some(i)) = (
            self.gpu_dispatches_per_step,
            self.gpu_waits_per_step,
            self.host_issue_ms,
        ) {
            let _ = writeln!(
                s,
                "host: {d:.0} dispatches and {w:.0} waits a step, {i:.3} ms issuing them \
                 ({} µs an empty dispatch); the card's time a dependent dispatch: {}",
                self.host_us_per_dispatch
                    .map_or_else(|| "?".to_string(), |u| format!("{u:.2}")),
                self.card_us_per_dependent_dispatch.map_or_else(
                    || "not measurable here (no timer queries, or the host cannot get ahead \
                        of the renderer)"
                        .to_string(),
                    |u| format!("{u:.2} µs")
                )
            );
        }
        for (k, v) in &self.stages {
            let _ = writeln!(s, "  {k:<16} {v:8.2} ms");
        }
        let _ = writeln!(s, "  {:<16} {:8.2} ms", "(in no stage)", self.unstaged_ms);
        let _ = writeln!(
            s,
            "pressure: {:.0} iterations (median), worst relative residual {:.2e}, residual reduced {:.1}x per iteration",
            self.pressure_iterations, self.pressure_residual, self.pressure_reduction_per_iteration
        );
        for c in &self.gpu_tuning {
            let _ = writeln!(s, "{}", tuning_line(c));
        }
        if let Some(rows) = &self.kernels {
            let _ = writeln!(
                s,
                "kernels on the card's clock, mean a step, the longest first (model bytes; floor at the measured bandwidth):"
            );
            let _ = writeln!(
                s,
                "  {:<16} {:<14} {:>10} {:>6} {:>9} {:>9} {:>8} {:>9}",
                "stage", "kernel", "items", "disp.", "ms", "floor ms", "GB/s", "µs/disp."
            );
            for r in rows {
                let _ = writeln!(
                    s,
                    "  {:<16} {:<14} {:>10} {:>6.1} {:>9.3} {:>9} {:>8.1} {:>9.1}",
                    r.stage,
                    r.kernel,
                    r.items,
                    r.dispatches_per_step,
                    r.ms_per_step,
                    r.floor_ms.map_or_else(|| "–".into(), |f| format!("{f:.3}")),
                    r.model_gb_s,
                    r.us_per_dispatch
                );
            }
        }
        if let Some(b) = &self.baseline {
            let _ = writeln!(
                s,
                "article FluidCubeStep (serial): iter=4 {:.1} ms, iter=20 {:.1} ms; Plume is {:.1}x faster than iter=20",
                b.iter4_ms_per_step, b.iter20_ms_per_step, b.ratio_iter20
            );
        }
        s
    }
}
