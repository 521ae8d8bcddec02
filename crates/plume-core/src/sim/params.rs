//! Fluid parameters in physical, resolution-independent units.

use super::SimError;

/// Which algorithm solves the pressure Poisson equation.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PressureMethod {
    /// Conjugate gradients preconditioned with a multigrid V-cycle: a near-constant number
    /// of iterations at any grid size.
    #[default]
    Multigrid,
    /// Red-black Gauss-Seidel with successive over-relaxation, parallel over z-slabs.
    RedBlackSor,
}

/// How cell-centred quantities (density, temperature) are carried by the flow.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Advection {
    /// Semi-Lagrangian: trace back, interpolate trilinearly. Stable and smooth, but blurs.
    #[default]
    SemiLagrangian,
    /// MacCormack (Selle et al. 2008): a semi-Lagrangian step forward and back to estimate
    /// and cancel its error, clamped to the range of the neighbours it interpolated, so no new
    /// extrema appear. Sharper smoke for about 2.5 times the advection cost.
    #[serde(rename = "maccormack")]
    MacCormack,
}

/// Parameters of the fluid and of the numerical method. All quantities are in domain units
/// (the domain's largest side is 1.0 unless the grid says otherwise) and seconds, so the same
/// parameters give the same motion at any grid resolution.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FluidParams {
    /// Time step in seconds: how much simulated time one step (one frame) advances. Default
    /// 1/60 s; allowed (0, 1]. A step runs as many sub-steps as `max_cfl` needs.
    pub dt: f32,
    /// Largest CFL number of a sub-step: the fastest face velocity may carry the flow at most
    /// this many cells per sub-step, and each step is split into as many sub-steps as that
    /// needs, chosen again before each one (adaptive time steps, as Mantaflow's). Default 2;
    /// allowed [0.25, 16].
    pub max_cfl: f32,
    /// Most sub-steps one step may take; fewer where the grid or the step budget allows
    /// fewer (`sim::cost::substep_cap`). When `max_cfl` would need more, the speed limit
    /// `max_cfl·cap·h/dt` holds the flow to what they can carry. Default 64; allowed 1..=100.
    pub max_substeps: u32,
    /// Diffusion coefficient κ of the density in domain-units²/s. Default 0 (stage skipped);
    /// allowed [0, 1].
    pub diffusion: f32,
    /// Kinematic viscosity ν in domain-units²/s. Default 0 (stage skipped); allowed [0, 1].
    pub viscosity: f32,
    /// Density fade rate in 1/s: density is multiplied by exp(−fade·dt) each step.
    /// Default 0.05; allowed [0, 1000].
    pub fade: f32,
    /// Weight of the smoke, α in f = (−α·density + β·(T − T_ambient))·up: downward
    /// acceleration per unit density in domain-units/s². Default 0.1; allowed [−1000, 1000].
    pub smoke_weight: f32,
    /// Thermal buoyancy, β in that formula: upward acceleration per degree above ambient in
    /// domain-units/s² (Fedkiw, Stam and Jensen 2001). Default 1.5; allowed [−1000, 1000].
    pub buoyancy: f32,
    /// Ambient temperature: the temperature of the air at rest and of inflowing air.
    /// Default 0; allowed [−10000, 10000].
    pub ambient_temperature: f32,
    /// Cooling rate in 1/s: T − T_ambient is multiplied by exp(−cooling·dt) each step.
    /// Default 0.5; allowed [0, 1000].
    pub cooling: f32,
    /// Vorticity confinement strength ε (Fedkiw et al. 2001): adds ε·h·(N × ω) so small swirls
    /// that the grid would smear out survive. Default 0 (stage skipped); allowed [0, 100].
    pub vorticity: f32,
    /// Advection scheme for density and temperature. Every trace is second order (RK2).
    pub advection: Advection,
    /// Advection scheme for the velocity: semi-Lagrangian (the default) or MacCormack, which
    /// keeps small swirls with less confinement for about 2.5 times the cost of that stage
    /// and 4 more floats a face.
    pub velocity_advection: Advection,
    /// Pressure solve stops when max|residual| ≤ tolerance · max|right-hand side|.
    /// Default 1e-3; allowed [1e-7, 1).
    pub pressure_tolerance: f32,
    /// Cap on pressure-solver iterations of one solve (the step budget, `sim::cost`, may
    /// stop it sooner). Default 200; allowed 1..=10000.
    pub pressure_max_iterations: u32,
    /// Over-relaxation factor ω of the red-black SOR pressure solver. Default 1.9; allowed [1, 2).
    pub sor_omega: f32,
    /// Pressure solver.
    pub pressure_method: PressureMethod,
    /// Implicit diffusion/viscosity solve stops at this relative residual. Default 1e-5;
    /// allowed [1e-7, 1).
    pub diffusion_tolerance: f32,
    /// Cap on Gauss-Seidel iterations of one implicit diffusion solve (the step budget,
    /// `sim::cost`, may stop it sooner). Default 50; allowed 1..=1000.
    pub diffusion_max_iterations: u32,
}

impl Default for FluidParams {
    fn default() -> Self {
        Self {
            dt: 1.0 / 60.0,
            max_cfl: 2.0,
            max_substeps: 64,
            diffusion: 0.0,
            viscosity: 0.0,
            fade: 0.05,
            smoke_weight: 0.1,
            buoyancy: 1.5,
            ambient_temperature: 0.0,
            cooling: 0.5,
            vorticity: 0.0,
            advection: Advection::SemiLagrangian,
            velocity_advection: Advection::SemiLagrangian,
            pressure_tolerance: 1e-3,
            pressure_max_iterations: 200,
            sor_omega: 1.9,
            pressure_method: PressureMethod::Multigrid,
            diffusion_tolerance: 1e-5,
            diffusion_max_iterations: 50,
        }
    }
}

impl FluidParams {
    /// Checks every field against its range in [`crate::ranges::fluid`].
    pub fn validate(&self) -> Result<(), SimError> {
        use crate::ranges::fluid as r;
        r::DT.check(self.dt)?;
        r::MAX_CFL.check(self.max_cfl)?;
        r::MAX_SUBSTEPS.check_count(self.max_substeps)?;
        r::DIFFUSION.check(self.diffusion)?;
        r::VISCOSITY.check(self.viscosity)?;
        r::FADE.check(self.fade)?;
        r::SMOKE_WEIGHT.check(self.smoke_weight)?;
        r::BUOYANCY.check(self.buoyancy)?;
        r::AMBIENT_TEMPERATURE.check(self.ambient_temperature)?;
        r::COOLING.check(self.cooling)?;
        r::VORTICITY.check(self.vorticity)?;
        r::PRESSURE_TOLERANCE.check(self.pressure_tolerance)?;
        r::SOR_OMEGA.check(self.sor_omega)?;
        r::DIFFUSION_TOLERANCE.check(self.diffusion_tolerance)?;
        r::PRESSURE_MAX_ITERATIONS.check_count(self.pressure_max_iterations)?;
        r::DIFFUSION_MAX_ITERATIONS.check_count(self.diffusion_max_iterations)?;
        Ok(())
    }
}
