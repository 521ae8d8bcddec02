//! A sub-step as a flat list of named stages (after Jet's `GridFluidSolver3`): one loop runs
//! them in order, skips those whose parameter turns them off, and times each. A new stage is
//! a method here and a row in [`STAGES`].

use super::*;

/// One stage of a sub-step.
pub(super) struct Stage {
    /// The name timings and `plume bench` report it under.
    pub name: &'static str,
    /// Whether it runs with the current parameters (a zero coefficient skips it).
    pub active: fn(&Solver) -> bool,
    /// The work: the sub-step's length is `Solver::sub_dt`.
    pub run: fn(&mut Solver, &mut StepStats),
}

fn always(_: &Solver) -> bool {
    true
}

/// The stages of one sub-step, in order: moving obstacles → sources → advect velocity → buoyancy → vorticity
/// confinement → viscosity → speed limit → project → advect density and temperature (with
/// the mass correction, and fuel and flame while anything burns) → combustion → diffuse density.
pub(super) const STAGES: [Stage; 11] = [
    Stage {
        name: "obstacles",
        active: Solver::obstacles_move,
        run: Solver::stage_obstacles,
    },
    Stage {
        name: "sources",
        active: always,
        run: Solver::stage_sources,
    },
    Stage {
        name: "advect_velocity",
        active: always,
        run: Solver::stage_advect_velocity,
    },
    Stage {
        name: "forces",
        active: always,
        run: Solver::stage_forces,
    },
    Stage {
        name: "vorticity",
        active: |s| s.params.vorticity > 0.0,
        run: Solver::stage_vorticity,
    },
    Stage {
        name: "viscosity",
        active: |s| s.params.viscosity > 0.0,
        run: Solver::stage_viscosity,
    },
    Stage {
        name: "speed_limit",
        active: always,
        run: |s, st| st.speed_limited += s.limit_speed(),
    },
    Stage {
        name: "project",
        active: always,
        run: Solver::stage_project,
    },
    Stage {
        name: "advect_density",
        active: always,
        run: Solver::stage_advect_scalars,
    },
    Stage {
        name: "combustion",
        active: |s| s.fire_active,
        run: Solver::stage_combustion,
    },
    Stage {
        name: "diffuse_density",
        active: |s| s.params.diffusion > 0.0,
        run: Solver::stage_diffuse_density,
    },
];

impl Solver {
    /// One sub-step of length `dt`: every active stage of [`STAGES`] in order, each timed.
    pub fn substep(&mut self, dt: f32) -> StepStats {
        self.sub_dt = dt;
        // The stages before the projection change the velocity.
        self.scan = None;
        let mut stats = StepStats::default();
        for stage in &STAGES {
            if !(stage.active)(self) {
                continue;
            }
            let t = Instant::now();
            (stage.run)(self, &mut stats);
            stats.stages.push(StageTime {
                name: stage.name,
                ms: t.elapsed().as_secs_f64() * 1e3,
            });
        }
        stats.total_ms = stats.stages.iter().map(|s| s.ms).sum();
        self.time += f64::from(dt);
        stats
    }

    fn stage_sources(&mut self, _: &mut StepStats) {
        self.before_sources = det_sum(&self.density);
        self.apply_emitters();
    }

    fn stage_advect_velocity(&mut self, _: &mut StepStats) {
        let d = self.grid.dims;
        let b = self.boundaries;
        if !self.solids.is_empty() {
            // Advection reads velocities inside obstacles next to the fluid: give them the
            // fluid's (two layers), not the zeros the obstacle holds, which would drag the
            // flow along its surface. The solid faces are zeroed again afterwards.
            let [u, v, w] = &mut self.vel;
            self.solids.extrapolate_faces(d, [u, v, w], 2);
        }
        let vel_exits = Exits {
            sides: self.exit_sides(true),
            solid: (!self.solids.is_empty()).then_some(self.solids.mask.as_slice()),
        };
        let mac_vel = self.params.velocity_advection == Advection::MacCormack;
        if mac_vel && self.vel_mac[0].0.len() != self.vel[0].len() {
            for a in 0..3 {
                let m = self.vel[a].len();
                self.vel_mac[a] = (vec![0.0; m], vec![[0.0; 2]; m]);
            }
        } else if !mac_vel && !self.vel_mac[0].0.is_empty() {
            self.vel_mac = Default::default();
        }
        let fixed = [0, 1, 2].map(|a| [0, 1].map(|side| b.face(a, side).is_fixed()));
        {
            let [t0, t1, t2] = &mut self.vel_tmp;
            let [v0, v1, v2] = &self.vel;
            advect::advect_velocity(
                [t0, t1, t2],
                [v0, v1, v2],
                d,
                &mut self.vel_sampler,
                self.sub_dt / self.grid.h,
                fixed,
                &vel_exits,
                mac_vel.then_some(&mut self.vel_mac),
            );
        }
        std::mem::swap(&mut self.vel, &mut self.vel_tmp);
        self.enforce_boundaries();
    }

    fn stage_forces(&mut self, _: &mut StepStats) {
        let p = &self.params;
        forces::buoyancy(
            self.grid.dims,
            &self.density,
            self.temperature_active
                .then_some(self.temperature.as_slice()),
            &mut self.vel[1],
            p.smoke_weight,
            p.buoyancy,
            p.ambient_temperature,
            self.sub_dt,
        );
    }

    fn stage_vorticity(&mut self, _: &mut StepStats) {
        let [u, v, w] = &mut self.vel;
        self.confinement.apply(
            self.grid.dims,
            self.grid.h,
            self.params.vorticity,
            self.sub_dt,
            [u, v, w],
        );
        self.enforce_boundaries();
    }

    fn stage_viscosity(&mut self, stats: &mut StepStats) {
        let d = self.grid.dims;
        let b = self.boundaries;
        let a = diffuse::coupling(self.params.viscosity, self.sub_dt, self.grid.h);
        let cap = self.caps().diffusion;
        for axis in 0..3 {
            let s = if self.solids.is_empty() {
                diffuse::diffuse_component(
                    axis,
                    &mut self.vel[axis],
                    &mut self.vel_tmp[axis],
                    d,
                    &b,
                    a,
                    self.params.diffusion_tolerance,
                    cap,
                )
            } else {
                // Faces on obstacles hold 0 and faces on walls and inflows their normal
                // velocity; their neighbours see those values (no slip at obstacles).
                let mask = self.fixed_face_mask(axis);
                diffuse::diffuse_masked(
                    &mut self.vel[axis],
                    &mut self.vel_tmp[axis],
                    d.faces(axis).as_array(),
                    &mask,
                    diffuse::Masked::Fixed,
                    a,
                    self.params.diffusion_tolerance,
                    cap,
                )
            };
            stats.viscosity_iterations += s.iterations;
        }
        self.enforce_boundaries();
    }

    fn stage_project(&mut self, stats: &mut StepStats) {
        let (ps, before, after) = self.project();
        stats.pressure_iterations = ps.iterations;
        stats.pressure_residual = ps.relative_residual;
        stats.pressure_initial_residual = ps.initial_residual;
        stats.divergence_before = before;
        stats.divergence_after = after;
    }

    fn stage_advect_scalars(&mut self, stats: &mut StepStats) {
        self.advect_scalars(self.exit_sides(false));
        let cell = f64::from(self.grid.h).powi(3);
        stats.outflow = self.outflow * cell;
        stats.source_added = (self.before_advection - self.before_sources) * cell;
        stats.mass_correction = self.mass_factor;
        stats.scalar_active = self.scalar_cells as f32 / self.grid.dims.cells() as f32;
    }

    fn stage_diffuse_density(&mut self, stats: &mut StepStats) {
        let d = self.grid.dims;
        let a = diffuse::coupling(self.params.diffusion, self.sub_dt, self.grid.h);
        let cap = self.caps().diffusion;
        let s = if self.solids.is_empty() {
            diffuse::diffuse_scalar(
                &mut self.density,
                &mut self.density_tmp,
                d,
                a,
                self.params.diffusion_tolerance,
                cap,
            )
        } else {
            // No smoke diffuses into an obstacle (where it would be deleted).
            diffuse::diffuse_masked(
                &mut self.density,
                &mut self.density_tmp,
                d.as_array(),
                &self.solids.mask,
                diffuse::Masked::ZeroFlux,
                a,
                self.params.diffusion_tolerance,
                cap,
            )
        };
        self.solids.fill_cells(&mut self.density, 0.0);
        stats.diffusion_iterations = s.iterations;
    }
}

impl Solver {
    /// The running sub-step's iteration caps: the budget's, or the parameters' own.
    pub(crate) fn caps(&self) -> crate::sim::cost::Caps {
        self.caps
            .unwrap_or_else(|| crate::sim::cost::Caps::of(&self.params))
    }

    /// Runs the one stage of [`STAGES`] called `name` as a sub-step of length `dt` would
    /// (whether or not its parameter turns it on), without moving the clock; `false` where
    /// no stage has that name. For comparing backends stage by stage.
    pub fn run_stage(&mut self, name: &str, dt: f32) -> bool {
        let Some(stage) = STAGES.iter().find(|s| s.name == name) else {
            return false;
        };
        self.sub_dt = dt;
        self.scan = None;
        let mut stats = StepStats::default();
        (stage.run)(self, &mut stats);
        self.sub_dt = self.params.dt;
        true
    }
}
