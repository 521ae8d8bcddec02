//! What a step costs and the budget that bounds it (both backends).
//!
//! Work is counted in **sweeps**: one sweep is the work of one red-black SOR iteration over
//! the whole grid (one read of each cell's six neighbours and one write), so a step's work
//! in cell-updates is its sweeps times the grid's cells. The weights below are what each
//! part of a sub-step costs in sweeps, measured on the CPU backend at 64³ (2-core AMD EPYC,
//! `plume bench --size 64 --backend cpu` with each pressure solver: an SOR iteration
//! 0.4 ms, the default scene's whole step 12.1 ms, about 30 sweeps).
//!
//! The default scene's step, [`default_step`], is about 30 sweeps at any grid: one sub-step
//! and two multigrid iterations. Any scene whose settings are in range is held to
//! [`BUDGET`] times that a step, by two limits the solver sets itself:
//! - **Sub-steps** ([`substep_cap`]): no more than `max_substeps`, than a flow crossing the
//!   whole grid in one step needs (longest side / `max_cfl`), or than three quarters of the
//!   budget divided by a sub-step's least work.
//! - **Iterations** ([`Budget::caps`]): before each sub-step, what is left of the budget is
//!   shared among the sub-steps still to come (keeping each later one's least work in
//!   reserve), and the pressure and diffusion solves of this one may iterate only as far as
//!   its share pays for, never beyond their own caps (`pressure_max_iterations`,
//!   `diffusion_max_iterations`). A solve cut short by the budget stops at its residual;
//!   [`estimate`] tells a user beforehand.

use super::grid::Dims;
use super::params::{Advection, FluidParams, PressureMethod};
use super::StepStats;

/// Sweeps of a sub-step outside its solves: sources, forces, the speed limit and the
/// projection's divergence and gradient.
const FIXED: f64 = 2.5;
/// Sweeps of the velocity's semi-Lagrangian advection (three components, RK2 traces).
const ADVECT_VELOCITY: f64 = 10.5;
/// Sweeps of one scalar field's semi-Lagrangian advection (density, temperature, fuel,
/// flame).
const ADVECT_SCALAR: f64 = 2.0;
/// MacCormack's cost over semi-Lagrangian's for the same field.
const MACCORMACK: f64 = 2.5;
/// Sweeps of vorticity confinement.
const VORTICITY: f64 = 2.5;
/// Sweeps of combustion.
const COMBUSTION: f64 = 1.0;
/// Sweeps of one multigrid-preconditioned CG iteration (a V-cycle and the CG vectors).
const MULTIGRID_ITERATION: f64 = 5.0;
/// Sweeps of one red-black SOR iteration (the unit).
const SOR_ITERATION: f64 = 1.0;
/// Sweeps of one Gauss-Seidel iteration of a diffusion solve (one field or one velocity
/// component).
const DIFFUSION_ITERATION: f64 = 1.0;
/// Multigrid iterations the default scene's solve takes a step.
const DEFAULT_ITERATIONS: f64 = 2.0;

/// The most a step may cost, in default scene steps at the same grid ([`default_step`]).
pub const BUDGET: f64 = 48.0;
/// Above this many default steps, `run`, `render`, `bench` and the viewer say so once.
pub const NOTE_ABOVE: f64 = 10.0;

/// Sweeps of one pressure iteration with `p`'s solver.
pub fn pressure_iteration(p: &FluidParams) -> f64 {
    match p.pressure_method {
        PressureMethod::Multigrid => MULTIGRID_ITERATION,
        PressureMethod::RedBlackSor => SOR_ITERATION,
    }
}

/// The diffusion solves a sub-step runs with `p`: three for viscosity (one per velocity
/// component), one for the density's diffusion.
pub fn diffusion_solves(p: &FluidParams) -> u32 {
    3 * u32::from(p.viscosity > 0.0) + u32::from(p.diffusion > 0.0)
}

/// Sweeps of a sub-step outside its solves; `fire` where the fuel and flame are carried too.
pub fn sub_step_base(p: &FluidParams, fire: bool) -> f64 {
    let mac = |a: Advection| match a {
        Advection::SemiLagrangian => 1.0,
        Advection::MacCormack => MACCORMACK,
    };
    let scalars = if fire { 4.0 } else { 2.0 };
    FIXED
        + ADVECT_VELOCITY * mac(p.velocity_advection)
        + ADVECT_SCALAR * scalars * mac(p.advection)
        + if p.vorticity > 0.0 { VORTICITY } else { 0.0 }
        + if fire { COMBUSTION } else { 0.0 }
}

/// The least a sub-step can cost: its base and one iteration of each solve.
pub fn sub_step_least(p: &FluidParams, fire: bool) -> f64 {
    sub_step_base(p, fire)
        + pressure_iteration(p)
        + DIFFUSION_ITERATION * f64::from(diffusion_solves(p))
}

/// The default scene's step in sweeps (the same at any grid): one sub-step of its settings
/// and two multigrid iterations.
pub fn default_step() -> f64 {
    static STEP: std::sync::OnceLock<f64> = std::sync::OnceLock::new();
    *STEP.get_or_init(|| {
        let p = default_fluid();
        sub_step_base(p, false) + pressure_iteration(p) * DEFAULT_ITERATIONS
    })
}

/// The default scene's fluid parameters, read once (every step's budget and speed limit
/// need them; reading the embedded preset each time cost more than a small grid's step).
fn default_fluid() -> &'static FluidParams {
    static P: std::sync::OnceLock<FluidParams> = std::sync::OnceLock::new();
    P.get_or_init(|| crate::scene::Scene::default_plume().fluid)
}

/// The budget of one step in sweeps: [`BUDGET`] default steps.
pub fn step_budget() -> f64 {
    BUDGET * default_step()
}

/// Sweeps a step of `substeps` sub-steps did, from its statistics (the solves' iterations
/// summed).
pub fn step_work(p: &FluidParams, fire: bool, st: &StepStats, substeps: u32) -> f64 {
    sub_step_base(p, fire) * f64::from(substeps.max(1))
        + pressure_iteration(p) * f64::from(st.pressure_iterations)
        + DIFFUSION_ITERATION * f64::from(st.viscosity_iterations + st.diffusion_iterations)
}

/// The most sub-steps a step takes on a grid of `dims`: `max_substeps`, or fewer where a
/// flow crossing the whole grid in one step needs fewer (longest side / `max_cfl`, as sub-
/// steps of `max_cfl` cells), or where three quarters of the budget pay for fewer of the
/// least sub-steps (the rest is for the solves). Both backends' speed limit follows from it.
pub fn substep_cap(p: &FluidParams, dims: Dims) -> u32 {
    let longest = dims.nx.max(dims.ny).max(dims.nz) as f64;
    let crossing = (longest / f64::from(p.max_cfl)).ceil().max(1.0);
    let paid = (0.75 * step_budget() / sub_step_least(p, true))
        .floor()
        .max(1.0);
    (p.max_substeps as f64).min(crossing).min(paid) as u32
}

/// `max_cfl·cap·h/dt` for the sub-step cap of [`substep_cap`] (`max_substeps`, or fewer on
/// a small grid or with a dear sub-step), domain-units/s: the fastest flow the sub-steps
/// follow (and the speed limit clamps to) on `grid`. Both backends use it.
pub fn speed_limit(p: &FluidParams, grid: &super::Grid) -> f32 {
    p.max_cfl * substep_cap(p, grid.dims) as f32 * grid.h / p.dt
}

/// Iteration caps of one sub-step's solves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Caps {
    /// Most pressure iterations.
    pub pressure: u32,
    /// Most Gauss-Seidel iterations of each diffusion solve.
    pub diffusion: u32,
}

impl Caps {
    /// The parameters' own caps (no budget).
    pub fn of(p: &FluidParams) -> Self {
        Self {
            pressure: p.pressure_max_iterations,
            diffusion: p.diffusion_max_iterations,
        }
    }
}

/// A step's budget as its sub-steps spend it.
#[derive(Clone, Debug)]
pub struct Budget {
    left: f64,
    cap: u32,
    taken: u32,
    /// Whether a solve's iterations were cut by the budget in this step.
    pub limited: bool,
}

impl Budget {
    /// The budget of one step of `p` on a grid of `dims`.
    pub fn new(p: &FluidParams, dims: Dims) -> Self {
        Self {
            left: step_budget(),
            cap: substep_cap(p, dims),
            taken: 0,
            limited: false,
        }
    }

    /// The sub-step cap ([`substep_cap`]).
    pub fn substeps(&self) -> u32 {
        self.cap
    }

    /// The caps of the next sub-step, of which `coming` (at least 1, it included) are
    /// expected: its share of what is left, keeping the least work of every sub-step that
    /// may still follow in reserve.
    pub fn caps(&mut self, p: &FluidParams, fire: bool, coming: u32) -> Caps {
        let own = Caps::of(p);
        let least = sub_step_least(p, fire);
        let later = f64::from(self.cap.saturating_sub(self.taken + 1));
        let share = (self.left / f64::from(coming.max(1))).min(self.left - later * least);
        let spare = (share - sub_step_base(p, fire)).max(0.0);
        let solves = diffusion_solves(p);
        // At least one iteration each; with diffusion solves the pressure gets half of what
        // is spare and they share what the pressure leaves, so the sub-step costs at most
        // its share, or its least where the share is smaller.
        let fit = |sweeps: f64, per: f64, own: u32| -> u32 {
            let n = (sweeps / per).floor().max(1.0);
            if n < f64::from(own) {
                n as u32
            } else {
                own
            }
        };
        let per_pressure = pressure_iteration(p);
        if solves == 0 {
            return Caps {
                pressure: fit(spare, per_pressure, own.pressure),
                diffusion: own.diffusion,
            };
        }
        let pressure = fit(0.5 * spare, per_pressure, own.pressure);
        let rest = spare - f64::from(pressure) * per_pressure;
        Caps {
            pressure,
            diffusion: fit(rest / f64::from(solves), DIFFUSION_ITERATION, own.diffusion),
        }
    }

    /// Counts a finished sub-step's work; `caps` were its caps: where a solve used all its
    /// iterations and they were fewer than its own cap, the budget cut it.
    pub fn spend(&mut self, p: &FluidParams, fire: bool, caps: Caps, st: &StepStats) {
        self.left -= step_work(p, fire, st, 1);
        self.taken += 1;
        let own = Caps::of(p);
        let solves = diffusion_solves(p);
        if (caps.pressure < own.pressure && st.pressure_iterations >= caps.pressure)
            || (solves > 0
                && caps.diffusion < own.diffusion
                && st.viscosity_iterations + st.diffusion_iterations >= caps.diffusion * solves)
        {
            self.limited = true;
        }
    }
}

/// What a scene's step is expected to cost before it runs.
#[derive(Clone, Debug, PartialEq)]
pub struct Estimate {
    /// Its step in default scene steps at the same grid ([`default_step`]), at most
    /// [`BUDGET`].
    pub times_default: f64,
    /// The setting that costs most, with its value and why.
    pub costliest: String,
}

/// Expected iterations of one pressure solve: the multigrid's near-constant count, more
/// for a tighter tolerance (measured: 2 at 1e-3, 5 at 1e-7); SOR's from its contraction on
/// a grid of `longest` cells a side at `sor_omega` (`ω − 1` at or above the best ω, else
/// from the Jacobi radius `cos(π/n)`), over all but one of the tolerance's decades (the
/// last step's pressure starts it; measured at 64³ and 1e-3: 40, estimated 70).
fn pressure_iterations(p: &FluidParams, longest: f64) -> f64 {
    let digits = f64::from(-p.pressure_tolerance.log10()).max(0.5);
    let n = match p.pressure_method {
        PressureMethod::Multigrid => DEFAULT_ITERATIONS * digits / 3.0,
        PressureMethod::RedBlackSor => {
            let w = f64::from(p.sor_omega);
            let rj = (std::f64::consts::PI / longest.max(2.0)).cos();
            let best = 2.0 / (1.0 + (1.0 - rj * rj).sqrt());
            let rho = if w >= best {
                w - 1.0
            } else {
                let r = 0.5 * (w * rj + (w * w * rj * rj - 4.0 * (w - 1.0)).max(0.0).sqrt());
                r * r
            };
            (digits - 1.0).max(1.0) * std::f64::consts::LN_10 / -rho.min(0.999_999).ln()
        }
    };
    n.clamp(1.0, f64::from(p.pressure_max_iterations))
}

/// Expected Gauss-Seidel iterations of one implicit diffusion solve with coefficient `k`
/// over a sub-step `dt`: the sweeps for its residual to fall to the tolerance at the
/// contraction `6a/(1+6a)` of the coupling `a = k·dt/h²`.
fn diffusion_iterations(p: &FluidParams, k: f32, dt: f64, h: f64) -> f64 {
    if k <= 0.0 {
        return 0.0;
    }
    let a = f64::from(k) * dt / (h * h);
    let rho = 6.0 * a / (1.0 + 6.0 * a);
    let n = f64::from(p.diffusion_tolerance).ln() / rho.ln();
    n.ceil().clamp(1.0, f64::from(p.diffusion_max_iterations))
}

/// The expected cost of a step of `p` on `grid` whose fastest emitter sets `fastest`
/// (domain-units/s; 0 without), `fire` where fuel burns: sub-steps from the emitter's
/// speed and `max_cfl` within [`substep_cap`], each with the expected iterations of its
/// solves, within the budget. The flow's own speed is not known beforehand.
pub fn estimate(p: &FluidParams, grid: &super::Grid, fastest: f32, fire: bool) -> Estimate {
    let d = grid.dims;
    let longest = d.nx.max(d.ny).max(d.nz) as f64;
    let h = f64::from(grid.h);
    let dt = f64::from(p.dt);
    let cap = substep_cap(p, d);
    let cells_a_step = f64::from(fastest.min(speed_limit(p, grid))) * dt / h;
    let n = (cells_a_step / f64::from(p.max_cfl))
        .ceil()
        .clamp(1.0, f64::from(cap));
    let sub_dt = dt / n;
    let pressure = pressure_iteration(p) * pressure_iterations(p, longest);
    let visc = 3.0 * DIFFUSION_ITERATION * diffusion_iterations(p, p.viscosity, sub_dt, h);
    let diff = DIFFUSION_ITERATION * diffusion_iterations(p, p.diffusion, sub_dt, h);
    let base = sub_step_base(p, fire);
    let per_sub = base + pressure + visc + diff;
    let work = (n * per_sub).min(step_budget());
    let default_p = default_fluid();
    let default_base = sub_step_base(default_p, false);
    let default_pressure = pressure_iteration(default_p) * DEFAULT_ITERATIONS;
    // Each candidate: how many times the default's share of a step it makes the step.
    let mut parts: Vec<(f64, String)> = vec![
        (
            n,
            format!(
                "{n} sub-steps a step: an emitter sets {fastest} domain-units/s{}, which \
                 crosses {cells_a_step:.0} cells a step of dt = {} s, and max_cfl = {} \
                 carries {} of them a sub-step",
                if f64::from(fastest) * dt / h > cells_a_step + 0.5 {
                    format!(" (held to {:.0} by the speed limit)", cells_a_step * h / dt)
                } else {
                    String::new()
                },
                p.dt,
                p.max_cfl,
                p.max_cfl
            ),
        ),
        (
            pressure / default_pressure,
            match p.pressure_method {
                PressureMethod::RedBlackSor => format!(
                    "pressure_method = \"red_black_sor\": about {:.0} iterations a solve at \
                     pressure_tolerance = {} on this grid (multigrid takes a few)",
                    pressure_iterations(p, longest),
                    p.pressure_tolerance
                ),
                PressureMethod::Multigrid => format!(
                    "pressure_tolerance = {}: about {:.0} iterations a solve",
                    p.pressure_tolerance,
                    pressure_iterations(p, longest)
                ),
            },
        ),
        (
            1.0 + visc / default_base,
            format!(
                "viscosity = {}: three implicit solves a sub-step of about {:.0} iterations each",
                p.viscosity,
                visc / 3.0
            ),
        ),
        (
            1.0 + diff / default_base,
            format!(
                "diffusion = {}: an implicit solve a sub-step of about {diff:.0} iterations",
                p.diffusion
            ),
        ),
        (
            base / default_base,
            "advection = \"maccormack\" or fire: dearer advection of each field".to_string(),
        ),
    ];
    parts.sort_by(|a, b| b.0.total_cmp(&a.0));
    Estimate {
        times_default: work / default_step(),
        costliest: parts.swap_remove(0).1,
    }
}
