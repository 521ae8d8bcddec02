//! What a step did: per-stage times and the solver's figures, summed over sub-steps.

/// Wall-clock time of one named stage of the last step.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct StageTime {
    /// Stage name (`sources`, `advect_velocity`, `forces`, `vorticity`, `viscosity`,
    /// `speed_limit`, `project`, `advect_density` (density, temperature, fuel and flame), `combustion`,
    /// `diffuse_density`, and once a step `finite_check`).
    pub name: &'static str,
    /// Milliseconds spent in it.
    pub ms: f64,
}

/// What the last step did and how long each stage took.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct StepStats {
    /// Stages in execution order with their times.
    pub stages: Vec<StageTime>,
    /// Pressure solver iterations and relative residual reached.
    pub pressure_iterations: u32,
    /// max|residual| / max|rhs| of the pressure solve.
    pub pressure_residual: f32,
    /// Relative residual of the pressure solve's starting guess (last step's pressure).
    pub pressure_initial_residual: f32,
    /// Largest |∇·u| over the cells before projection, 1/s.
    pub divergence_before: f32,
    /// Largest |∇·u| over the cells after projection, 1/s.
    pub divergence_after: f32,
    /// Gauss-Seidel iterations of the viscosity solves (sum over components).
    pub viscosity_iterations: u32,
    /// Gauss-Seidel iterations of the density diffusion solve.
    pub diffusion_iterations: u32,
    /// Total of all stages, ms.
    pub total_ms: f64,
    /// Sub-steps the step took (see `FluidParams::max_cfl`).
    pub substeps: u32,
    /// Largest CFL number of its sub-steps: the fastest face velocity at the start of a
    /// sub-step times its length, in cells.
    pub cfl: f32,
    /// Faces the speed limit `max_cfl·max_substeps·h/dt` held back during the step (0 in
    /// any flow the sub-steps can carry).
    pub speed_limited: u64,
    /// Smoke in the cells moving obstacles covered during the step (Σ density·h³), cleared
    /// there: the advection had carried it ahead of the solid already (see
    /// `sim/solver/moving.rs`).
    pub swept: f64,
    /// Smoke that left through open faces during the step (Σ density·h³, estimated upwind
    /// from the projected velocity at the faces).
    pub outflow: f64,
    /// Factor the mass correction scaled the advected density by, in the last sub-step
    /// (1 = none was needed).
    pub mass_correction: f32,
    /// Smoke the emitters and combustion added during the step (Σ density·h³).
    pub source_added: f64,
    /// Fuel burned during the step (Σ fuel·h³).
    pub fuel_burned: f64,
    /// Share of the cells the scalar advection worked out in the step's last sub-step (the
    /// others held only outside air within their traces' reach; see `sim::active`).
    pub scalar_active: f32,
    /// The step's work in sweeps of the grid ([`crate::sim::cost`]; times the cells, in
    /// cell-updates): its sub-steps and the solves' iterations, weighted.
    pub work: f64,
    /// Whether the step's budget ([`crate::sim::cost::BUDGET`] default steps) cut a solve
    /// short.
    pub budget_limited: bool,
    /// What the step cost the host, on backends that drive a card (`None` on the CPU).
    pub host: Option<HostStats>,
}

/// What a GPU step cost the CPU that drove it.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct HostStats {
    /// Compute dispatches issued.
    pub dispatches: u32,
    /// Waits for the card: `glFinish`, read-backs (reductions' results, fields), timestamp
    /// reads. Each stalls the CPU until the card has caught up.
    pub waits: u32,
    /// Milliseconds the host spent inside the dispatch calls (binding, queueing).
    pub issue_ms: f64,
    /// Bytes each stage's kernels read and wrote in the step, in the backend's model (see
    /// `plume_gpu::kernel_bytes`), by stage name ("substeps": the largest speed for the
    /// sub-steps), in the order they came.
    pub stage_bytes: Vec<(&'static str, u64)>,
    /// Each kernel's time on the card in the step, where the kernel clock is on (see
    /// `Simulation::time_kernels`; empty otherwise): one entry a stage, kernel and size.
    pub kernels: Vec<KernelTime>,
    /// The backend's choices between kernels that give the same bits, as its tuner left
    /// them after the step (empty where it does not tune).
    pub tuning: Vec<TunedChoice>,
}

/// A choice between ways of doing some work that give the same bits (a kernel taking one
/// cell an invocation or four, a stage's passes), picked by timing each way on the card
/// during the first steps: as the tuner left it after a step.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TunedChoice {
    /// What is chosen: the kernel's or the stage's name.
    pub site: &'static str,
    /// The ways, the default first.
    pub ways: Vec<TunedWay>,
    /// The way taken from now on (an index into `ways`); `None` while the ways are timed.
    pub picked: Option<usize>,
    /// Set from outside (the environment, a setter), or not tuned on this renderer (the GPU
    /// backend's vorticity on a card): not timed.
    pub fixed: bool,
}

impl TunedChoice {
    /// Whether the tuner has kept a time of any of its ways (it times, and has begun to).
    pub fn timed(&self) -> bool {
        self.ways.iter().any(|w| w.samples > 0)
    }
}

/// One way of a [`TunedChoice`]: its name and the card's times of it kept so far.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct TunedWay {
    /// What it is ("1 cell", "4 cells", "two passes", "tiles").
    pub name: &'static str,
    /// Times kept (the first of each way, which may pay for the driver's first use of the
    /// kernel, is not kept).
    pub samples: u32,
    /// The shortest of them, microseconds; `None` before the first.
    pub best_us: Option<f64>,
}

/// What one kernel, at one size, took in one stage of a step: the card's time from the
/// end of the dispatch before it to the end of its own (so the barrier, the launch and the
/// drain count, and a gap where the card waited for the host), summed over its dispatches.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize)]
pub struct KernelTime {
    /// The stage it ran in (as in [`StepStats::stages`]; "substeps": the largest speed).
    pub stage: &'static str,
    /// The kernel's file name in `shaders/sim` (without `.comp`).
    pub kernel: &'static str,
    /// Items a dispatch of it works on.
    pub items: u64,
    /// Dispatches of it in the step.
    pub dispatches: u32,
    /// Bytes they read and wrote in the backend's model (see `HostStats::stage_bytes`).
    pub bytes: u64,
    /// Milliseconds on the card's clock.
    pub ms: f64,
}

impl StepStats {
    /// Adds a sub-step's statistics: stage times and iterations summed, residuals,
    /// divergences and the CFL number the largest.
    pub fn absorb(&mut self, s: &StepStats) {
        for st in &s.stages {
            match self.stages.iter_mut().find(|x| x.name == st.name) {
                Some(x) => x.ms += st.ms,
                None => self.stages.push(st.clone()),
            }
        }
        self.pressure_iterations += s.pressure_iterations;
        self.pressure_residual = self.pressure_residual.max(s.pressure_residual);
        self.pressure_initial_residual = self
            .pressure_initial_residual
            .max(s.pressure_initial_residual);
        self.divergence_before = self.divergence_before.max(s.divergence_before);
        self.divergence_after = self.divergence_after.max(s.divergence_after);
        self.viscosity_iterations += s.viscosity_iterations;
        self.diffusion_iterations += s.diffusion_iterations;
        self.total_ms += s.total_ms;
        self.speed_limited += s.speed_limited;
        self.outflow += s.outflow;
        self.swept += s.swept;
        self.mass_correction = s.mass_correction;
        self.source_added += s.source_added;
        self.fuel_burned += s.fuel_burned;
        self.scalar_active = s.scalar_active;
    }
}
