//! Plume's GPU solver backend: the smoke solver's stages as OpenGL compute shaders (GL 4.3,
//! through glium), its fields in shader storage buffers on the card. It implements the same
//! [`Simulation`] seam as the CPU solver and hands out the same frames; a frame reads back
//! only the fields its [`Select`] asks for.
//!
//! An OpenGL context belongs to one thread, and a [`Simulation`] must be `Send`: the solver
//! runs on a thread of its own that owns the context, and [`GpuSolver`] is the handle that
//! sends it work and waits for the answer.
//!
//! Every stage of the CPU solver runs here, under the same names and in the same order
//! (ARCHITECTURE.md, "The GPU backend", says where the arithmetic differs and by how much).

#![deny(unsafe_code)]

pub mod bytes;
mod clock;
pub mod cost;
mod diffuse;
mod dump;
mod emit;
mod engine;
mod fields;
mod kernels;
mod ledger;
mod lists;
mod multigrid;
mod pressure;
mod probe;
mod publish;
mod raw;
mod reduce;
mod region;
mod solids;
mod stages;
mod step;
mod switches;
mod tune;
mod ways;

use engine::Engine;
use glium::backend::Context;
use plume_core::frame::{Frame, Select};
use plume_core::scene::Scene;
use plume_core::sim::{
    Emitter, FieldState, FireParams, FluidParams, Grid, Obstacle, SimError, Simulation, StepStats,
};
use std::rc::Rc;
use std::sync::mpsc::{channel, Sender};
use std::thread::JoinHandle;

pub use bytes::{bytes_per_item, ByteCase, ByteModel};
pub use fields::bytes_for;
pub use kernels::kernel_bytes;
pub use switches::{environment_problem, ENVIRONMENT};

/// The name in [`GpuSolver::copy_bandwidths`] of the copy kernel on buffers made as the
/// fields are: the bandwidth [`GpuSolver::copy_bandwidth_gb_s`] measures.
pub const FIELD_COPY: &str = "kernel_immutable";

/// The copy variants' GB/s on `e`'s card, those that ran (and with `check`, copied a pattern
/// whole), then the sums' ([`SUM_VARIANTS`], with `check` each giving the exact Σ).
fn copy_variants(e: &mut Engine, check: bool) -> Vec<(&'static str, f64)> {
    let copies = COPY_VARIANTS
        .into_iter()
        .filter_map(|(name, wg, vec4, per)| {
            e.copy_variant_gb_s(wg, vec4, per, check).map(|b| (name, b))
        })
        .collect::<Vec<_>>();
    let sums = SUM_VARIANTS
        .into_iter()
        .filter_map(|(name, groups)| e.sum_variant_gb_s(groups, check).map(|b| (name, b)));
    copies.into_iter().chain(sums).collect()
}

/// The solver's reduction timed in as many work groups as a step's take (256) and in more
/// (GB/s read): name, work groups.
const SUM_VARIANTS: [(&str, u32); 3] = [
    ("sum_groups256", 256),
    ("sum_groups1024", 1024),
    ("sum_groups4096", 4096),
];

/// The copy kernels [`GpuSolver::copy_bandwidths`] also times on a hardware renderer: name,
/// work-group size, vec4s (else floats), elements an invocation.
const COPY_VARIANTS: [(&str, u32, bool, u32); 7] = [
    ("kernel_wg256", 256, false, 1),
    ("kernel_wg1024", 1024, false, 1),
    ("kernel_vec4_wg256", 256, true, 1),
    ("kernel_vec4_wg512", 512, true, 1),
    ("kernel_x4_wg256", 256, false, 4),
    ("kernel_x4_wg512", 512, false, 4),
    ("kernel_vec4_x4_wg512", 512, true, 4),
];

/// An OpenGL context for the solver, current on the thread that made it, and how to look
/// up the entry points glium does not wrap (timestamp queries, memory barriers).
pub struct GlContext {
    /// The context, as glium holds it.
    pub context: Rc<Context>,
    /// Looks up an OpenGL function by name on it (null where the driver has none).
    pub proc_address: Box<dyn Fn(&str) -> *const std::ffi::c_void>,
    /// The share group it was made in (a number its maker chose), `None` for a context
    /// that shares nothing: [`GpuSolver::publish`] writes only a group's textures.
    pub share_group: Option<u64>,
}

/// Makes the OpenGL context the solver runs on, on the solver's own thread.
pub type ContextMaker = Box<dyn FnOnce() -> Result<GlContext, String> + Send>;

/// 3D textures made by another OpenGL context that shares objects with the solver's (the
/// viewer's window), named as OpenGL names them, for [`GpuSolver::publish`] to write.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VolumeTextures {
    /// Their size: the grid's.
    pub dims: plume_core::sim::Dims,
    /// Density: an R32F texture (`GL_R32F`, immutable or not, one level).
    pub density: u32,
    /// Temperature and flame: an RG32F texture, where the viewer draws fire.
    pub heat: Option<u32>,
}

/// What has crossed the bus from the card since the solver was made: whole fields read
/// back (frames, states) and the few numbers reductions leave (sums, largest values, the
/// pressure solve's figures, the flame's light).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Transfers {
    /// Whole fields read back.
    pub field_reads: u64,
    /// Their bytes.
    pub field_bytes: u64,
    /// Reductions' results read back.
    pub small_reads: u64,
    /// Their bytes.
    pub small_bytes: u64,
    /// Volumes written into shared textures ([`GpuSolver::publish`]).
    pub publishes: u64,
}

/// What the solver's OpenGL context is.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GpuInfo {
    /// `GL_RENDERER`, e.g. "NVIDIA H100 80GB HBM3/PCIe/SSE2" or "llvmpipe (LLVM 15.0.6, 256 bits)".
    pub renderer: String,
    /// `GL_VERSION`.
    pub version: String,
    /// A software rasteriser (llvmpipe, softpipe, swrast): the CPU pretending to be a GPU.
    pub software: bool,
    /// Free memory on the card as the vendor reports it (NVX/ATI extensions), bytes.
    pub free_memory: Option<u64>,
    /// The share group of the context (see [`GlContext::share_group`]).
    pub share_group: Option<u64>,
}

/// Whether a renderer string names a software rasteriser.
pub fn is_software(renderer: &str) -> bool {
    let r = renderer.to_ascii_lowercase();
    ["llvmpipe", "softpipe", "swrast", "software"]
        .iter()
        .any(|s| r.contains(s))
}

/// Whether `need` bytes of fields fit: in the free memory the card reports (`free`, from the
/// NVX/ATI memory-info extensions), or, where it reports none (llvmpipe's "card" is the
/// machine's memory; other cards are caught by `GL_OUT_OF_MEMORY` when allocating), in the
/// machine's free memory. The error names both numbers.
pub fn fits(need: u64, free: Option<u64>, what: &str) -> Result<(), SimError> {
    match free {
        Some(free) if free < need => Err(SimError::Memory {
            what: what.to_string(),
            need,
            available: free,
            limit: "free memory the graphics card reports",
        }),
        Some(_) => Ok(()),
        None => plume_core::sim::solver::memory::check(need, what),
    }
}

/// The error for fields the card would not allocate (`message`, glium's): where the driver
/// ran out of memory (`GL_OUT_OF_MEMORY`, a buffer smaller than asked), with what it would
/// allocate instead, probed in blocks; where all of it can be allocated in blocks, the
/// buffer named in `message` is larger than the driver takes at once; any other refusal as
/// it came.
fn refused(ctx: &Rc<Context>, what: &str, need: u64, message: &str) -> SimError {
    if fields::out_of_memory(message) {
        let available = fields::allocatable(ctx, need);
        if available >= need {
            return SimError::InvalidGrid(format!(
                "{what}: the driver refused one buffer ({message}), though the fields' {} \
                 can be allocated in blocks of 64 MiB: that buffer is larger than the driver \
                 takes at once; choose a smaller grid",
                plume_core::sim::solver::memory::human(need)
            ));
        }
        SimError::Memory {
            what: what.to_string(),
            need,
            available,
            limit: "memory the graphics card would allocate (it reports no free memory; \
                    measured in 64 MiB blocks)",
        }
    } else {
        SimError::InvalidGrid(format!("{what} ({need} bytes): {message}"))
    }
}

type Job = Box<dyn FnOnce(&mut Engine) + Send>;

/// The GPU solver: a handle to the thread that owns its context and fields. It keeps a copy
/// of what the [`Simulation`] methods hand out by reference.
pub struct GpuSolver {
    tx: Option<Sender<Job>>,
    thread: Option<JoinHandle<()>>,
    grid: Grid,
    params: FluidParams,
    fire: FireParams,
    emitters: Vec<Emitter>,
    obstacles: Vec<Obstacle>,
    stats: StepStats,
    time: f64,
    steps: u64,
    info: GpuInfo,
}

impl GpuSolver {
    /// Builds the solver for `scene` (its grid, fluid, boundaries, fire and emitters) on a
    /// context `make` creates: refused, with the reason, where the scene uses what this
    /// backend lacks, the context has no compute shaders, or the fields do not fit.
    pub fn from_scene(scene: &Scene, make: ContextMaker) -> Result<Self, SimError> {
        scene
            .validate()
            .map_err(|e| SimError::InvalidParameter(e.to_string()))?;
        let grid = Grid::new(scene.dims(), scene.grid.size, scene.grid.origin)?;
        let mut s = Self::new(grid, scene.fluid.clone(), scene.boundaries, make)?;
        s.set_fire(scene.fire.clone())?;
        s.set_emitters(scene.emitters.clone())?;
        s.set_obstacles(scene.obstacles.clone())?;
        Ok(s)
    }

    /// A solver with every field at rest and no emitters.
    pub fn new(
        grid: Grid,
        params: FluidParams,
        boundaries: plume_core::sim::Boundaries,
        make: ContextMaker,
    ) -> Result<Self, SimError> {
        params.validate()?;
        if let Some(problem) = environment_problem() {
            return Err(SimError::Gpu(problem));
        }
        let need = bytes_for(grid.dims, false);
        let what = format!("a {} grid on the graphics card", grid.dims);
        let (tx, rx) = channel::<Job>();
        let (ready_tx, ready_rx) = channel::<Result<GpuInfo, SimError>>();
        let p = params.clone();
        let thread = std::thread::Builder::new()
            .name("plume-gpu".into())
            .spawn(move || {
                let start = || -> Result<(Engine, GpuInfo), SimError> {
                    let gl = SimError::Gpu;
                    let GlContext {
                        context: ctx,
                        proc_address,
                        share_group,
                    } = make().map_err(gl)?;
                    let info = GpuInfo {
                        renderer: ctx.get_opengl_renderer_string().to_string(),
                        version: ctx.get_opengl_version_string().to_string(),
                        software: is_software(ctx.get_opengl_renderer_string()),
                        free_memory: ctx.get_free_video_memory().map(|b| b as u64),
                        share_group,
                    };
                    if !glium::program::ComputeShader::is_supported(&*ctx) {
                        return Err(gl(format!(
                            "the OpenGL renderer ({}, {}) has no compute shaders (they need \
                             OpenGL 4.3)",
                            info.renderer, info.version
                        )));
                    }
                    // (the card named in what it cannot hold)
                    let what = format!("{what} ({})", info.renderer);
                    fits(need, info.free_memory, &what)?;
                    let probe = Rc::clone(&ctx);
                    let e = Engine::new(ctx, &proc_address, grid, p, boundaries)
                        .map_err(|m| refused(&probe, &what, need, &m))?;
                    Ok((e, info))
                };
                let mut engine = match start() {
                    Ok((e, info)) => {
                        let _ = ready_tx.send(Ok(info));
                        e
                    }
                    Err(e) => {
                        let _ = ready_tx.send(Err(e));
                        return;
                    }
                };
                while let Ok(job) = rx.recv() {
                    job(&mut engine);
                }
            })
            .map_err(|e| SimError::Gpu(format!("starting the GPU thread: {e}")))?;
        let info = ready_rx
            .recv()
            .map_err(|_| SimError::Gpu("the GPU thread stopped while starting".into()))??;
        Ok(Self {
            tx: Some(tx),
            thread: Some(thread),
            grid,
            params,
            fire: FireParams::default(),
            emitters: Vec::new(),
            obstacles: Vec::new(),
            stats: StepStats::default(),
            time: 0.0,
            steps: 0,
            info,
        })
    }

    /// The OpenGL context the solver runs on.
    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// Bytes of the solver's buffers on the card (fields, obstacles' mask and lists).
    pub fn memory_bytes(&self) -> u64 {
        self.call(|e| e.memory_bytes())
    }

    /// Runs the stage called `name` (the CPU solver's names) as a sub-step of `dt` would,
    /// without moving the clock; `false` where this backend has no such stage.
    pub fn run_stage(&mut self, name: &str, dt: f32) -> bool {
        let name = name.to_string();
        self.call(move |e| e.run_stage(&name, dt))
    }

    /// The card's own copy bandwidth, GB/s (bytes read plus bytes written per second): the
    /// copy kernel (`copy.comp`) between two buffers made as the fields are, of 256 MiB
    /// each (32 MiB on a software renderer), on a card kept busy for a quarter of a second
    /// first (by the first copy this solver times), the best of five rounds of four copies
    /// on the card's clock (the host's where there are no timer queries). `None` when the
    /// buffers cannot be had.
    pub fn copy_bandwidth_gb_s(&self) -> Option<f64> {
        self.call(|e| e.copy_bandwidth_gb_s())
    }

    /// The card's copy bandwidths, GB/s, by how the buffers are made and what copies: the
    /// copy kernel on immutable storage (as the fields are made), on storage the CPU may
    /// map (glium's default), and `glCopyBufferSubData` (a copy engine on NVIDIA's cards);
    /// on hardware renderers also copy kernels of other work-group sizes, of vec4s, and of
    /// four elements an invocation (`kernel_x4_…`: four loads in flight each), and the
    /// solver's reduction in 256, 1024 and 4096 work groups (`sum_groups…`, GB/s read). The first
    /// keeps the card busy for a quarter of a second before it is timed, so that all are
    /// timed on a warm card (see `Engine::copy_bandwidth`). Those that could not be
    /// measured are left out.
    pub fn copy_bandwidths(&self) -> Vec<(&'static str, f64)> {
        use glium::buffer::BufferMode;
        self.call(|e| {
            let mut out: Vec<(&'static str, f64)> = [
                (FIELD_COPY, crate::fields::FIELD_MODE, false),
                ("kernel_mappable", BufferMode::Default, false),
                ("copy_engine", BufferMode::Default, true),
            ]
            .into_iter()
            .filter_map(|(name, mode, engine)| e.copy_bandwidth(mode, engine).map(|b| (name, b)))
            .collect();
            // Work-group sizes, access widths and loads in flight, on hardware renderers
            // only (a software renderer's copies are slow and say nothing of a card).
            if !e.software || plume_core::environment::value("PLUME_GPU_ALL_COPIES").is_some() {
                out.extend(copy_variants(e, false));
            }
            out
        })
    }

    /// The copy variants of [`GpuSolver::copy_bandwidths`] (on any renderer), each copying
    /// a known pattern that it must leave whole: those that did are listed, with their
    /// GB/s. For the tests.
    pub fn checked_copy_variants(&self) -> Vec<(&'static str, f64)> {
        self.call(|e| copy_variants(e, true))
    }

    /// Host microseconds one dispatch of an empty kernel takes through glium (2000 issued
    /// back to back, the driver's queueing included, the card's work not waited for): the
    /// floor of what a step's dispatches cost the CPU. `None` where it cannot compile.
    pub fn host_us_per_dispatch(&self) -> Option<f64> {
        self.call(|e| e.host_us_per_dispatch())
    }

    /// The card's microseconds a dispatch takes in a chain where each one reads what the
    /// one before wrote (one work group each, a memory barrier between them as between a
    /// step's kernels): launch and drain, the floor of a step at its dispatch count. On the
    /// card's clock, the host kept ahead by a backlog of copies; `None` without timer
    /// queries or where the host could not get ahead.
    pub fn card_us_per_dependent_dispatch(&self) -> Option<f64> {
        self.call(|e| e.card_us_per_dependent_dispatch())
    }

    /// Each axis' largest |face velocity| and the pressure's largest |value| (a float's bits)
    /// as the last projection's gradient pass merged them, where they are still the fields'
    /// (nothing has changed the faces since); `None` where they are not.
    pub fn projection_maxima(&self) -> Option<[u32; 4]> {
        self.call(|e| e.projection_maxima())
    }

    /// Each field the finite check reads (density, temperature, fuel and flame where they
    /// are in use, the three face arrays of the velocity, the pressure), in its order, with
    /// its Σ and largest |value| as the check's one dispatch finds them.
    pub fn field_figures(&self) -> Vec<(&'static str, f64, f32)> {
        self.call(|e| e.field_figures())
    }

    /// How many of the V-cycle's levels its fused dispatch works (0: none), as
    /// [`GpuSolver::set_fused_cells`] or the environment set it (where neither did, the
    /// tuner may pick another way; see [`GpuSolver::tuning`]).
    pub fn fused_levels(&self) -> usize {
        self.call(|e| {
            e.mg.as_ref().map_or(0, |m| {
                m.fuse_from(e.fused_cells).map_or(0, |l| m.levels.len() - l)
            })
        })
    }

    /// What times the stages in [`StepStats::stages`]: "GL timestamp queries" (the card's
    /// own clock, between the end of one stage's work and the end of the next's), or "CPU
    /// clock after glFinish" where the driver has no timer queries.
    pub fn stage_clock(&self) -> &'static str {
        match self.call(|e| e.raw.has_timer()) {
            true => "GL timestamp queries",
            false => "CPU clock after glFinish",
        }
    }

    /// The largest storage block a kernel may bind as the driver reports it, bytes
    /// (`GL_MAX_SHADER_STORAGE_BLOCK_SIZE`: llvmpipe says 2²⁷ and binds larger buffers
    /// all the same): where it is 2³¹ or more, the cell velocity of a grid of 2²⁷ cells
    /// (2³¹ bytes as `vec4`s) goes as `vec4`s, else three floats a cell.
    pub fn max_storage_block(&self) -> Option<u64> {
        self.call(|e| e.raw.max_storage_block())
    }

    /// How much of `up_to` bytes the card would allocate now (probed in 64 MiB blocks,
    /// then freed): what a refusal reports where the driver gives no free memory.
    pub fn allocatable(&self, up_to: u64) -> u64 {
        self.call(move |e| fields::allocatable(&e.ctx, up_to))
    }

    /// What has crossed the bus from the card so far (see [`Transfers`]).
    pub fn transfers(&self) -> Transfers {
        self.call(|e| e.transfers.get())
    }

    /// Writes the density (and, where `textures.heat` is given and something burns, the
    /// temperature and flame) into 3D textures of another context of the solver's share
    /// group, on the card, and waits until they are written: the viewer raymarches them
    /// without a read-back or an upload. Returns the flame's light summed on the card (Σ
    /// f·e rgb, Σ w, Σ w·position xyz, Σ w·|position|², e the blackbody emission at
    /// temperature × `kelvin_per_unit` and w = f·luminance(e)), `None` without heat.
    ///
    /// # Safety
    /// The solver's context must have been made sharing objects with the textures' context,
    /// and `textures` must name live 3D textures of the grid's size (density `GL_R32F`,
    /// heat `GL_RG32F`, one level each) that stay alive, and that no other context writes,
    /// until this returns.
    #[allow(unsafe_code)]
    pub unsafe fn publish(
        &self,
        textures: VolumeTextures,
        kelvin_per_unit: f32,
    ) -> Result<Option<[f64; 8]>, String> {
        // SAFETY: the caller keeps this function's contract, which is the engine's.
        self.call(move |e| unsafe { e.publish(textures, kelvin_per_unit) })
    }

    /// Runs `f` on the solver's thread and waits for its answer.
    fn call<R: Send + 'static>(&self, f: impl FnOnce(&mut Engine) -> R + Send + 'static) -> R {
        let (tx, rx) = channel();
        let job: Job = Box::new(move |e| {
            let _ = tx.send(f(e));
        });
        self.tx
            .as_ref()
            .and_then(|t| t.send(job).ok())
            .and_then(|()| rx.recv().ok())
            .expect("the GPU solver's thread stopped")
    }
}

impl Drop for GpuSolver {
    fn drop(&mut self) {
        // Closing the channel ends the thread's loop; it frees the fields with its context.
        self.tx = None;
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

impl Simulation for GpuSolver {
    fn backend(&self) -> &'static str {
        "gpu"
    }
    fn grid(&self) -> &Grid {
        &self.grid
    }
    fn memory_bytes(&self) -> usize {
        GpuSolver::memory_bytes(self) as usize
    }
    fn pressure_solver(&self) -> &'static str {
        "multigrid PCG (GPU)"
    }
    fn time_kernels(&mut self, on: bool) -> bool {
        self.call(move |e| e.kernel_clock.set_on(on))
    }
    fn params(&self) -> &FluidParams {
        &self.params
    }
    fn set_params(&mut self, p: FluidParams) -> Result<(), SimError> {
        p.validate()?;
        let q = p.clone();
        self.call(move |e| {
            e.params = q;
            e.region.forget();
        });
        self.params = p;
        Ok(())
    }
    fn fire(&self) -> &FireParams {
        &self.fire
    }
    fn set_fire(&mut self, p: FireParams) -> Result<(), SimError> {
        p.validate()?;
        let q = p.clone();
        self.call(move |e| {
            e.fire = q;
            e.region.forget();
        });
        self.fire = p;
        Ok(())
    }
    fn emitters(&self) -> &[Emitter] {
        &self.emitters
    }
    fn set_emitters(&mut self, es: Vec<Emitter>) -> Result<(), SimError> {
        if es.iter().any(Emitter::burns) {
            let what = format!(
                "fuel and flame of a {} grid on the graphics card ({})",
                self.grid.dims, self.info.renderer
            );
            let extra = bytes_for(self.grid.dims, true) - bytes_for(self.grid.dims, false);
            fits(extra, self.info.free_memory, &what)?;
        }
        let q = es.clone();
        self.call(move |e| e.set_emitters(q))?;
        self.emitters = es;
        Ok(())
    }
    fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }
    fn set_obstacles(&mut self, os: Vec<Obstacle>) -> Result<(), SimError> {
        let q = os.clone();
        self.call(move |e| e.set_obstacles(q))?;
        self.obstacles = os;
        Ok(())
    }
    fn step(&mut self) -> Result<&StepStats, SimError> {
        let (stats, time, steps, bad) = self.call(|e| {
            e.step();
            (e.stats.clone(), e.time, e.steps, e.non_finite)
        });
        self.stats = stats;
        self.time = time;
        self.steps = steps;
        match bad {
            None => Ok(&self.stats),
            Some(field) => Err(SimError::NonFinite {
                step: steps,
                time,
                field,
                cause: plume_core::sim::solver::likely_cause(&self.params),
            }),
        }
    }
    fn stats(&self) -> &StepStats {
        &self.stats
    }
    fn time(&self) -> f64 {
        self.time
    }
    fn steps(&self) -> u64 {
        self.steps
    }
    fn reset(&mut self) {
        self.call(Engine::reset);
        self.time = 0.0;
        self.steps = 0;
        self.stats = StepStats::default();
    }
    fn paint(
        &mut self,
        center: [f32; 3],
        radius: f32,
        density: f32,
        velocity: [f32; 3],
    ) -> Result<(), SimError> {
        self.call(move |e| e.paint(center, radius, density, velocity))
    }
    fn total_density(&self) -> f64 {
        self.call(|e| e.total_density())
    }
    fn frame(&self, select: Select) -> Frame {
        self.call(move |e| e.frame(select))
    }
    fn state(&self) -> FieldState {
        self.call(|e| e.state())
    }
    fn set_state(&mut self, s: FieldState) -> Result<(), SimError> {
        let (time, steps) = (s.time, s.steps);
        self.call(move |e| e.load_state(&s))?;
        self.time = time;
        self.steps = steps;
        Ok(())
    }
    fn into_coarse(self: Box<Self>) -> Box<dyn Simulation> {
        self
    }
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        Some(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_grid_the_card_cannot_hold_is_refused_with_both_numbers() {
        let need = bytes_for(plume_core::sim::Dims::cube(512), false);
        // An 8 GiB card with 6 GiB free.
        let e = fits(
            need,
            Some(6 << 30),
            "a 512x512x512 grid on the graphics card",
        )
        .expect_err("refused");
        let m = e.to_string();
        // 64.2 B a cell: 8.0 GiB.
        assert!(
            m.contains("512x512x512") && m.contains("8.0 GiB") && m.contains("6.0 GiB"),
            "{m}"
        );
        fits(need, Some(80 << 30), "a grid").expect("an 80 GiB card holds it");
    }

    #[test]
    fn an_allocation_the_driver_refuses_is_reported_with_what_it_would_allocate() {
        // glium reports GL_OUT_OF_MEMORY as a buffer smaller than asked: "OutOfMemory".
        assert!(fields::out_of_memory(
            "allocating a field of 134217728 floats on the card: OutOfMemory"
        ));
        assert!(!fields::out_of_memory("compiling shaders/sim/mg.comp: …"));
    }

    #[test]
    fn only_a_cell_velocity_too_large_for_one_buffer_goes_in_floats() {
        // 512³, the most cells a grid may have; the blocks: none reported, llvmpipe's 2²⁷
        // bytes (smaller than the buffers it takes) and 2³¹ − 1.
        let most = 1u64 << 27;
        for block in [None, Some(1 << 27), Some(i32::MAX as u64)] {
            assert!(!fields::cell_vel_in_floats(most - 1, block), "{block:?}");
            assert!(fields::cell_vel_in_floats(most, block), "{block:?}");
        }
        // A driver whose storage blocks may be larger keeps the vec4s.
        assert!(!fields::cell_vel_in_floats(most, Some(1 << 31)));
        assert!(fields::cell_vel_in_floats(most + 1, Some(1 << 31)));
    }

    #[test]
    fn the_fields_take_about_64_bytes_a_cell() {
        // 16 floats a cell (the cell velocity a vec4), the face arrays' extra planes and the
        // active region's spans (32 bytes a row): 64.3 B at 256³, 64.2 at 512³.
        for n in [256, 512] {
            let d = plume_core::sim::Dims::cube(n);
            let per_cell = bytes_for(d, false) as f64 / d.cells() as f64;
            assert!((64.0..64.35).contains(&per_cell), "{n}: {per_cell}");
            let fire = bytes_for(d, true) as f64 / d.cells() as f64;
            assert!(fire <= 72.35, "{n}: {fire} with fuel and flame");
        }
    }

    #[test]
    fn software_renderers_are_recognised() {
        assert!(is_software("llvmpipe (LLVM 15.0.6, 256 bits)"));
        assert!(is_software("softpipe"));
        assert!(!is_software("NVIDIA H100 80GB HBM3/PCIe/SSE2"));
    }
}
