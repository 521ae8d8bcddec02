//! The `Solver` (Plume's FluidCube): fields, emitters, and the step as a flat list of stages.

use super::active;
use super::advect::{self, Exits, Scalar, VelocityRef, CENTER};
use super::body::Body;
use super::boundary::{Boundaries, Face};
use super::diffuse;
use super::fire::{self, FireParams};
use super::forces;
use super::grid::{Dims, Grid};
use super::obstacles::Solids;
use super::params::{Advection, FluidParams, PressureMethod};
use super::pressure::operator::{det_sum, SolveStats};
use super::pressure::project::{self, Multigrid, PressureSettings, PressureSolver, RedBlackSor};
use super::sources::{Emitter, Obstacle, Shape};
use super::vorticity::{self, Confinement};
use super::SimError;
use rayon::prelude::*;
use std::time::Instant;

mod combustion;
mod diagnostics;
mod inject;
pub mod memory;
mod moving;
mod scalars;
mod stages;
mod stats;
mod substeps;

pub use crate::sim::cost::speed_limit;
pub(crate) use inject::{check_amount, check_sphere, check_velocity};
pub use scalars::MASS_CORRECTION_BOUNDS;
pub use stats::{HostStats, KernelTime, StageTime, StepStats, TunedChoice, TunedWay};
pub use substeps::{emitter_speed, likely_cause, split_step, SubSteps};

/// A 3D smoke simulation: density at cell centres, velocity on cell faces, pressure at centres.
/// A clone carries on exactly as the original would (the benchmarks step copies of one
/// developed state).
#[derive(Clone)]
pub struct Solver {
    grid: Grid,
    params: FluidParams,
    boundaries: Boundaries,
    emitters: Vec<Emitter>,
    obstacles: Vec<Obstacle>,
    /// The obstacles resolved (meshes read, moving meshes voxelised in their own frame).
    bodies: Vec<Body>,
    /// The emitters resolved, where one is more than a plain sphere or box (else `None`).
    emitter_bodies: Vec<Option<Body>>,
    solids: Solids,
    /// Per-cell diagonal of the pressure operator when there are solid cells, else empty.
    pressure_diag: Vec<f32>,
    density: Vec<f32>,
    density_tmp: Vec<f32>,
    temperature: Vec<f32>,
    /// `false` while the whole temperature field is at ambient (its advection is skipped).
    temperature_active: bool,
    /// Scratch for MacCormack's intermediate field (allocated on first use).
    mac_tmp: Vec<f32>,
    /// Scratch for the advected temperature and its MacCormack intermediate (allocated once
    /// the temperature varies).
    temperature_tmp: Vec<f32>,
    mac_tmp2: Vec<f32>,
    /// How fuel burns.
    fire: FireParams,
    /// Fuel and flame per cell: empty until an emitter (or `fuel_mut`) brings fuel or flame,
    /// then carried and burned every sub-step.
    fuel: Vec<f32>,
    flame: Vec<f32>,
    /// `true` once fuel or flame exists (the two fields are then allocated).
    fire_active: bool,
    /// The iteration caps the step's budget set for the running sub-step (`None` outside
    /// a step: the parameters' own).
    caps: Option<crate::sim::cost::Caps>,
    /// Scratch for the advected fuel and flame, and their MacCormack intermediates.
    fire_tmp: [Vec<f32>; 2],
    fire_mac: [Vec<f32>; 2],
    confinement: Confinement,
    vel: [Vec<f32>; 3],
    vel_tmp: [Vec<f32>; 3],
    /// MacCormack's scratch for each velocity component (φ̂, φ̃, clamping ranges), allocated
    /// while `velocity_advection` is MacCormack.
    vel_mac: [advect::MacScratch; 3],
    /// The cell-centred velocity that RK2 traces sample their midpoints from.
    vel_sampler: advect::VelSampler,
    pressure: Vec<f32>,
    /// The projection's right-hand side: one of the velocity advection's scratch buffers,
    /// idle while the projection runs, borrowed for it (empty outside `project`).
    rhs: Vec<f32>,
    pressure_solver: Box<dyn PressureSolver>,
    time: f64,
    steps: u64,
    stats: StepStats,
    /// Length of the sub-step being taken (dt outside a step).
    sub_dt: f32,
    /// Smoke that left through open faces in the current sub-step (Σ density, cell units).
    outflow: f64,
    /// The mass correction's factor in the current sub-step.
    mass_factor: f32,
    /// Cells the last scalar advection worked out (the rest held only outside air within
    /// their traces' reach; see `sim::active`).
    scalar_cells: usize,
    /// Each advected field's largest departure from its background the last scalar pass
    /// found (density, temperature, fuel, flame), for the next pass's cut-offs
    /// (`active::CUTOFF`); `None` after anything else wrote the field.
    scalar_maxima: [Option<f32>; 4],
    /// The field that held a non-finite value after the last step.
    non_finite: Option<&'static str>,
    /// What the last projection saw of the velocity and the pressure, while neither has
    /// changed since (cleared when a sub-step starts and by every method that writes either;
    /// not kept with obstacles, whose faces are zeroed after it): the scalar advection's
    /// reach, the sub-steps' lengths and the finite check take it instead of reading the
    /// arrays again.
    scan: Option<project::GradientScan>,
    /// The obstacles' poses (at the start and the end of the sub-step) the solids were last
    /// built for (moving obstacles).
    solids_key: Option<Vec<(crate::geometry::Pose, crate::geometry::Pose)>>,
    /// Σ density moving obstacles covered (and cleared) in the current sub-step, given back
    /// by the mass correction.
    swept: f64,
    /// Σ density after the sources of the current sub-step.
    before_advection: f64,
    /// Σ density before the sources of the current sub-step.
    before_sources: f64,
}

fn pressure_solver_for(m: PressureMethod) -> Box<dyn PressureSolver> {
    match m {
        PressureMethod::Multigrid => Box::new(Multigrid::default()),
        PressureMethod::RedBlackSor => Box::new(RedBlackSor::default()),
    }
}

impl Solver {
    /// A solver at rest (no density, no velocity) after validating every input.
    pub fn new(grid: Grid, params: FluidParams, boundaries: Boundaries) -> Result<Self, SimError> {
        grid.dims.validate()?;
        params.validate()?;
        let d = grid.dims;
        let n = d.cells();
        let faces = [d.faces(0).cells(), d.faces(1).cells(), d.faces(2).cells()];
        boundaries
            .validate()
            .map_err(|(face, m)| SimError::field(face, m))?;
        let ambient = params.ambient_temperature;
        let params_dt = params.dt;
        let what = format!("a {d} grid");
        let zeros = |m: usize| memory::try_filled(m, 0.0f32, &what);
        let [f0, f1, f2] = faces;
        let mut s = Self {
            grid,
            pressure_solver: pressure_solver_for(params.pressure_method),
            params,
            boundaries,
            emitters: Vec::new(),
            obstacles: Vec::new(),
            bodies: Vec::new(),
            emitter_bodies: Vec::new(),
            solids: Solids::default(),
            pressure_diag: Vec::new(),
            density: zeros(n)?,
            density_tmp: zeros(n)?,
            temperature: memory::try_filled(n, ambient, &what)?,
            temperature_active: false,
            mac_tmp: Vec::new(),
            temperature_tmp: Vec::new(),
            mac_tmp2: Vec::new(),
            fire: FireParams::default(),
            fuel: Vec::new(),
            flame: Vec::new(),
            fire_active: false,
            caps: None,
            fire_tmp: Default::default(),
            fire_mac: Default::default(),
            confinement: Confinement,
            vel: [zeros(f0)?, zeros(f1)?, zeros(f2)?],
            vel_tmp: [zeros(f0)?, zeros(f1)?, zeros(f2)?],
            vel_mac: Default::default(),
            vel_sampler: Default::default(),
            pressure: zeros(n)?,
            rhs: Vec::new(),
            time: 0.0,
            steps: 0,
            stats: StepStats::default(),
            sub_dt: params_dt,
            outflow: 0.0,
            mass_factor: 1.0,
            scalar_cells: 0,
            scalar_maxima: [None; 4],
            non_finite: None,
            scan: None,
            before_advection: 0.0,
            before_sources: 0.0,
            swept: 0.0,
            solids_key: None,
        };
        s.start_flow();
        Ok(s)
    }

    /// With an inflow face, the fluid starts moving at the inflow speed everywhere along that
    /// axis (a wind tunnel that is already running): uniform flow is divergence-free, so the
    /// first projections only have to bend it around obstacles.
    fn start_flow(&mut self) {
        for axis in 0..3 {
            for side in 0..2 {
                if let super::boundary::Face::Inflow(_) = self.boundaries.face(axis, side) {
                    if let Some(v) = self.boundaries.normal_velocity(axis, side) {
                        self.vel[axis].fill(v);
                        self.enforce_boundaries();
                        return;
                    }
                }
            }
        }
        self.enforce_boundaries();
    }

    /// A cubic grid of `n` cells per side in the unit domain with default parameters and
    /// boundaries (closed box, open top).
    pub fn cube(n: usize) -> Result<Self, SimError> {
        Self::new(
            Grid::unit(Dims::cube(n))?,
            FluidParams::default(),
            Boundaries::default(),
        )
    }

    /// Bytes of memory held by the solver's fields.
    pub fn memory_bytes(&self) -> usize {
        // density, its scratch, temperature, pressure (the projection's right-hand side
        // borrows idle velocity scratch)
        let floats = self.density.len() * 4
            + self.mac_tmp.len()
            + self.mac_tmp2.len()
            + self.temperature_tmp.len()
            + self.fuel.len()
            + self.flame.len()
            + self
                .fire_tmp
                .iter()
                .chain(&self.fire_mac)
                .map(Vec::len)
                .sum::<usize>()
            + self.pressure_diag.len()
            + self.vel.iter().map(Vec::len).sum::<usize>() * 2
            + self
                .vel_mac
                .iter()
                .map(|(a, r)| a.len() + 2 * r.len())
                .sum::<usize>();
        floats * std::mem::size_of::<f32>()
            + self.solids.mask.len()
            + self.vel_sampler.memory_bytes()
            + self.pressure_solver.memory_bytes()
    }

    /// Grid placement.
    pub fn grid(&self) -> &Grid {
        &self.grid
    }
    /// Cell counts.
    pub fn dims(&self) -> Dims {
        self.grid.dims
    }
    /// Current parameters.
    pub fn params(&self) -> &FluidParams {
        &self.params
    }
    /// Boundary types.
    pub fn boundaries(&self) -> &Boundaries {
        &self.boundaries
    }
    /// Emitters.
    pub fn emitters(&self) -> &[Emitter] {
        &self.emitters
    }
    /// Obstacles.
    pub fn obstacles(&self) -> &[Obstacle] {
        &self.obstacles
    }
    /// Per-cell solid flags (1 = solid), or `None` when no cell is solid.
    pub fn solid_mask(&self) -> Option<&[u8]> {
        (!self.solids.is_empty()).then_some(self.solids.mask.as_slice())
    }
    /// Number of solid cells.
    pub fn solid_cells(&self) -> usize {
        self.solids.cells.len()
    }
    /// Simulated time in seconds.
    pub fn time(&self) -> f64 {
        self.time
    }
    /// Number of steps taken since creation or the last reset.
    pub fn steps(&self) -> u64 {
        self.steps
    }
    /// Statistics of the last step.
    pub fn stats(&self) -> &StepStats {
        &self.stats
    }
    /// Name of the pressure solver in use.
    pub fn pressure_solver_name(&self) -> &'static str {
        self.pressure_solver.name()
    }

    /// Replaces the parameters after validating them; takes effect at the next step.
    pub fn set_params(&mut self, p: FluidParams) -> Result<(), SimError> {
        p.validate()?;
        self.scalar_maxima = [None; 4];
        if p.pressure_method != self.params.pressure_method {
            self.pressure_solver = pressure_solver_for(p.pressure_method);
        }
        if !self.temperature_active {
            self.temperature.fill(p.ambient_temperature);
        }
        self.sub_dt = p.dt;
        self.params = p;
        Ok(())
    }

    /// How fuel burns.
    pub fn fire(&self) -> &FireParams {
        &self.fire
    }

    /// Replaces the combustion parameters after validating them; takes effect at the next
    /// step.
    pub fn set_fire(&mut self, p: FireParams) -> Result<(), SimError> {
        p.validate()?;
        self.scalar_maxima = [None; 4];
        self.fire = p;
        Ok(())
    }

    /// Replaces the boundary types after validating them; takes effect at the next step.
    pub fn set_boundaries(&mut self, b: Boundaries) -> Result<(), SimError> {
        b.validate().map_err(|(face, m)| SimError::field(face, m))?;
        self.boundaries = b;
        self.update_pressure_diag();
        self.enforce_boundaries();
        Ok(())
    }

    /// Replaces the obstacles after validating them: rasterises them into solid cells, clears
    /// the smoke inside and stops the flow through their faces.
    pub fn set_obstacles(&mut self, obstacles: Vec<Obstacle>) -> Result<(), SimError> {
        let bodies = Self::resolve_bodies(&obstacles, self.grid.h)?;
        self.solids = Solids::build(&self.grid, &bodies, self.time, f64::from(self.params.dt));
        self.solids_key = None;
        self.bodies = bodies;
        self.obstacles = obstacles;
        self.scalar_maxima = [None; 4];
        self.update_pressure_diag();
        self.solids.fill_cells(&mut self.density, 0.0);
        self.solids
            .fill_cells(&mut self.temperature, self.params.ambient_temperature);
        self.solids.fill_cells(&mut self.pressure, 0.0);
        self.solids.fill_cells(&mut self.fuel, 0.0);
        self.solids.fill_cells(&mut self.flame, 0.0);
        self.enforce_boundaries();
        Ok(())
    }

    fn update_pressure_diag(&mut self) {
        self.pressure_diag = if self.solids.is_empty() {
            Vec::new()
        } else {
            self.solids.pressure_diag(self.grid.dims, &self.boundaries)
        };
    }

    /// Sets the normal velocity on walls (0), inflows (their speed) and solid faces (0).
    fn enforce_boundaries(&mut self) {
        self.scan = None;
        let d = self.grid.dims;
        let [u, v, w] = &mut self.vel;
        forces::enforce_walls(d, &self.boundaries, u, v, w);
        self.solids.set_faces([u, v, w]);
    }

    /// Adds an emitter after validating it.
    pub fn add_emitter(&mut self, e: Emitter) -> Result<(), SimError> {
        e.validate()?;
        let b = self.emitter_body(&e)?;
        self.scalar_maxima = [None; 4];
        self.emitters.push(e);
        self.emitter_bodies.push(b);
        Ok(())
    }

    /// Replaces all emitters after validating each.
    pub fn set_emitters(&mut self, es: Vec<Emitter>) -> Result<(), SimError> {
        let mut bodies = Vec::with_capacity(es.len());
        for e in &es {
            e.validate()?;
            bodies.push(self.emitter_body(e)?);
        }
        self.emitters = es;
        self.emitter_bodies = bodies;
        self.scalar_maxima = [None; 4];
        Ok(())
    }

    /// Cell-centred density, x-fastest (`nx·ny·nz`).
    pub fn density(&self) -> &[f32] {
        &self.density
    }
    /// Cell-centred temperature, x-fastest; ambient where nothing has heated the air.
    pub fn temperature(&self) -> &[f32] {
        &self.temperature
    }
    /// Mutable temperature, for setting up initial conditions. Keep it finite.
    pub fn temperature_mut(&mut self) -> &mut [f32] {
        self.temperature_active = true;
        self.scalar_maxima = [None; 4];
        &mut self.temperature
    }
    /// Cell-centred fuel, x-fastest; empty while nothing has brought fuel or flame.
    pub fn fuel(&self) -> &[f32] {
        &self.fuel
    }
    /// Cell-centred flame, x-fastest; empty while nothing has brought fuel or flame.
    pub fn flame(&self) -> &[f32] {
        &self.flame
    }
    /// Mutable fuel, for setting up initial conditions (allocates fuel and flame). Keep it
    /// finite and ≥ 0.
    pub fn fuel_mut(&mut self) -> &mut [f32] {
        self.activate_fire();
        self.scalar_maxima = [None; 4];
        &mut self.fuel
    }
    /// Mutable flame, for setting up initial conditions. Keep it finite and ≥ 0.
    pub fn flame_mut(&mut self) -> &mut [f32] {
        self.activate_fire();
        self.scalar_maxima = [None; 4];
        &mut self.flame
    }
    /// Allocates fuel and flame (zero) and starts carrying them and the temperature.
    pub(super) fn activate_fire(&mut self) {
        if !self.fire_active {
            let n = self.grid.dims.cells();
            self.fuel = vec![0.0; n];
            self.flame = vec![0.0; n];
            self.fire_active = true;
            self.temperature_active = true;
        }
    }
    /// Total vorticity magnitude Σ|∇×u|·h³ of the current velocity (domain-units³/s).
    pub fn total_vorticity(&self) -> f64 {
        vorticity::total_vorticity(self.velref(), self.grid.h)
    }
    /// Mutable density, for setting up initial conditions. Keep it finite and ≥ 0.
    pub fn density_mut(&mut self) -> &mut [f32] {
        self.scalar_maxima = [None; 4];
        &mut self.density
    }
    /// Face velocity normal to `axis` (0 → u on x-faces `(nx+1)·ny·nz`, 1 → v, 2 → w), in
    /// domain-units/s.
    pub fn velocity(&self, axis: usize) -> &[f32] {
        &self.vel[axis]
    }
    /// Mutable face velocities `[u, v, w]`, for setting up initial conditions.
    pub fn velocity_mut(&mut self) -> [&mut [f32]; 3] {
        self.scan = None;
        let [u, v, w] = &mut self.vel;
        [u.as_mut_slice(), v.as_mut_slice(), w.as_mut_slice()]
    }
    /// Replaces every field and the clock with `s` (lengths checked by the caller, see
    /// [`super::simulation::FieldState::check`]); the temperature counts as set, fuel and
    /// flame as burning where given.
    pub(crate) fn set_fields(&mut self, s: super::simulation::FieldState) {
        self.density = s.density;
        self.temperature = s.temperature;
        self.temperature_active = true;
        if !s.fuel.is_empty() || !s.flame.is_empty() {
            self.activate_fire();
            let n = self.grid.dims.cells();
            self.fuel = if s.fuel.is_empty() {
                vec![0.0; n]
            } else {
                s.fuel
            };
            self.flame = if s.flame.is_empty() {
                vec![0.0; n]
            } else {
                s.flame
            };
        }
        self.vel = s.velocity;
        self.pressure = s.pressure;
        self.time = s.time;
        self.steps = s.steps;
        self.scan = None;
        self.scalar_maxima = [None; 4];
    }

    /// Kinematic pressure at cell centres from the last projection, domain-units²/s².
    pub fn pressure(&self) -> &[f32] {
        &self.pressure
    }

    /// Velocity at the centre of cell (i, j, k): the mean of its two faces on each axis.
    pub fn velocity_at_cell(&self, i: usize, j: usize, k: usize) -> [f32; 3] {
        let d = self.grid.dims;
        let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
        [
            0.5 * (self.vel[0][du.idx(i, j, k)] + self.vel[0][du.idx(i + 1, j, k)]),
            0.5 * (self.vel[1][dv.idx(i, j, k)] + self.vel[1][dv.idx(i, j + 1, k)]),
            0.5 * (self.vel[2][dw.idx(i, j, k)] + self.vel[2][dw.idx(i, j, k + 1)]),
        ]
    }

    /// Velocity interpolated at a world position (clamped to the domain).
    pub fn velocity_at(&self, p: [f32; 3]) -> [f32; 3] {
        let x = self.to_index_space(p);
        self.velref().at(x)
    }

    fn velref(&self) -> VelocityRef<'_> {
        VelocityRef {
            dims: self.grid.dims,
            u: &self.vel[0],
            v: &self.vel[1],
            w: &self.vel[2],
        }
    }

    fn to_index_space(&self, p: [f32; 3]) -> [f32; 3] {
        let g = &self.grid;
        [0, 1, 2].map(|a| (p[a] - g.origin[a]) / g.h)
    }

    /// Clears all fields and the clock; keeps parameters and emitters.
    pub fn reset(&mut self) {
        self.scalar_maxima = [None; 4];
        self.density.fill(0.0);
        self.temperature.fill(self.params.ambient_temperature);
        self.temperature_active = false;
        self.fire_active = false;
        self.fuel = Vec::new();
        self.flame = Vec::new();
        for f in &mut self.vel {
            f.fill(0.0);
        }
        self.pressure.fill(0.0);
        self.scan = None;
        self.time = 0.0;
        self.steps = 0;
        self.stats = StepStats::default();
        if self.obstacles_move() {
            self.solids = Solids::build(&self.grid, &self.bodies, 0.0, f64::from(self.params.dt));
            self.solids_key = None;
            self.update_pressure_diag();
            self.solids
                .fill_cells(&mut self.temperature, self.params.ambient_temperature);
        }
        self.start_flow();
    }

    /// Projects the velocity onto divergence-free fields with the current pressure settings.
    /// Returns the solver's iterations and residual, and the max divergence before and after.
    pub fn project(&mut self) -> (SolveStats, f32, f32) {
        let d = self.grid.dims;
        let (h, dt) = (self.grid.h, self.sub_dt);
        let closed = !self.boundaries.any_open();
        let has_solids = !self.solids.is_empty();
        let vr = VelocityRef {
            dims: d,
            u: &self.vel[0],
            v: &self.vel[1],
            w: &self.vel[2],
        };
        self.rhs = std::mem::take(&mut self.vel_tmp[1]);
        self.rhs.resize(d.cells(), 0.0);
        let before = project::divergence_rhs(vr, h, dt, closed && !has_solids, &mut self.rhs);
        if self.fire_active && self.fire.expansion > 0.0 {
            self.add_expansion(closed && !has_solids);
        }
        if has_solids {
            // Solid cells have no equation; in a closed box the fluid cells' mean goes.
            self.solids.fill_cells(&mut self.rhs, 0.0);
            if closed {
                let fluid = (d.cells() - self.solids.cells.len()).max(1);
                let mean = (det_sum(&self.rhs) / fluid as f64) as f32;
                let mask = &self.solids.mask;
                self.rhs
                    .par_iter_mut()
                    .zip(mask.par_iter())
                    .for_each(|(r, &m)| {
                        if m == 0 {
                            *r -= mean
                        }
                    });
            }
        }
        if self.params.pressure_method == PressureMethod::Multigrid {
            self.size_scalar_scratch();
        }
        let st = project::pressure_stencil(d, &self.boundaries);
        let diag = has_solids.then_some(self.pressure_diag.as_slice());
        let settings = PressureSettings {
            tolerance: self.params.pressure_tolerance,
            max_iterations: self.caps().pressure,
            omega: self.params.sor_omega,
        };
        // The solver's work vectors are the scalar advection's scratch and one of the
        // velocity advection's, lent for the solve (idle at this point of the sub-step).
        let n = d.cells();
        let mut lent = [
            &mut self.density_tmp,
            &mut self.temperature_tmp,
            &mut self.mac_tmp,
            &mut self.mac_tmp2,
            &mut self.vel_tmp[0],
        ];
        for (mine, theirs) in lent.iter_mut().zip(self.pressure_solver.work_vectors()) {
            mine.resize(n, 0.0);
            *theirs = std::mem::take(*mine);
        }
        let s = self
            .pressure_solver
            .solve(&st, diag, &mut self.pressure, &self.rhs, &settings);
        for (mine, theirs) in lent.iter_mut().zip(self.pressure_solver.work_vectors()) {
            **mine = std::mem::take(theirs);
        }
        self.vel_tmp[0].resize(d.faces(0).cells(), 0.0);
        let [u, v, w] = &mut self.vel;
        let scan = project::subtract_gradient(d, &self.boundaries, &self.pressure, u, v, w, h, dt);
        self.scan = self.solids.is_empty().then_some(scan);
        self.solids.set_faces([u, v, w]);
        // The divergence left equals the Poisson residual (scaled back to 1/s).
        let rhs_max = s.rhs_max.unwrap_or_else(|| st.max_abs(&self.rhs));
        let after = s.relative_residual * rhs_max * dt / (h * h);
        self.vel_tmp[1] = std::mem::take(&mut self.rhs);
        self.vel_tmp[1].resize(d.faces(1).cells(), 0.0);
        (s, before, after)
    }

    /// Gives the scalar advection's scratch (density, temperature and the two MacCormack
    /// intermediates) one value a cell, whatever the scene advects: the confinement force and
    /// the pressure solver borrow them while they are idle.
    fn size_scalar_scratch(&mut self) {
        let n = self.grid.dims.cells();
        for b in [
            &mut self.density_tmp,
            &mut self.temperature_tmp,
            &mut self.mac_tmp,
            &mut self.mac_tmp2,
        ] {
            b.resize(n, 0.0);
        }
    }

    /// Per face of the component along `axis`: 1 where its value is held (faces touching an
    /// obstacle, and the faces on walls and inflows along `axis`), 0 elsewhere.
    fn fixed_face_mask(&self, axis: usize) -> Vec<u8> {
        let d = self.grid.dims;
        let fd = d.faces(axis);
        let mut mask = self.solids.face_mask(d, axis);
        let n = fd.as_array();
        let (b, c) = ((axis + 1) % 3, (axis + 2) % 3);
        for side in 0..2 {
            if !self.boundaries.face(axis, side).is_fixed() {
                continue;
            }
            let mut f = [0; 3];
            f[axis] = if side == 0 { 0 } else { n[axis] - 1 };
            for q in 0..n[c] {
                for p in 0..n[b] {
                    f[b] = p;
                    f[c] = q;
                    mask[fd.idx(f[0], f[1], f[2])] = 1;
                }
            }
        }
        mask
    }

    /// Where air comes from at each face for advection. For scalars (`velocity` false) open
    /// faces let ambient air in; for the velocity an open face is zero-gradient (a trace
    /// beyond it is clamped to the domain: the do-nothing outflow condition, pressure 0
    /// outside), so a flow keeps its momentum through it. Inflows let their own air in at
    /// their speed; walls nothing. See [`Exits`].
    fn exit_sides(&self, velocity: bool) -> [[Option<[f32; 3]>; 2]; 3] {
        let mut e = [[None; 2]; 3];
        for (a, sides) in e.iter_mut().enumerate() {
            for (side, x) in sides.iter_mut().enumerate() {
                *x = match self.boundaries.face(a, side) {
                    Face::Wall => None,
                    Face::Open if velocity => None,
                    Face::Open => Some([0.0; 3]),
                    Face::Inflow(_) => {
                        let mut v = [0.0; 3];
                        v[a] = self.boundaries.normal_velocity(a, side).unwrap_or(0.0);
                        Some(v)
                    }
                };
            }
        }
        e
    }
}
