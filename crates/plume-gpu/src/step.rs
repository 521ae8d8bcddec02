//! The step on the card: CFL sub-steps chosen from the largest speed (a reduction), the
//! stages in the CPU solver's order, and the finite check (reductions).

use plume_core::sim::cost::Caps;
use plume_core::sim::solver::{emitter_speed, speed_limit, split_step, SubSteps};
use plume_core::sim::{StageTime, StepStats};
use std::time::Instant;

use crate::engine::{Engine, Reduced};
use crate::fields::Field;

/// A stage's work.
pub(crate) type StageFn = fn(&mut Engine, &mut StepStats);
/// A stage: its name (the CPU solver's), whether it runs now, its work.
pub(crate) type Stage = (&'static str, fn(&Engine) -> bool, StageFn);

impl SubSteps for Engine {
    fn fastest(&mut self) -> f32 {
        crate::cost::enter("substeps");
        self.top_speed().max(self.emitter_speed())
    }
    fn sub_step(&mut self, dt: f32, caps: Caps) -> StepStats {
        self.caps = Some(caps);
        let st = self.substep(dt);
        self.caps = None;
        st
    }
}

impl Engine {
    /// The running sub-step's iteration caps: the step budget's, or the parameters' own.
    pub(crate) fn caps(&self) -> Caps {
        self.caps.unwrap_or_else(|| Caps::of(&self.params))
    }

    /// One step of `params.dt`, in as many sub-steps as `max_cfl` needs (as the CPU's
    /// `Solver::step`), then the finite check.
    ///
    /// It waits for the card where the host must decide: the pressure solve's end (a
    /// sub-step's iterations), a later sub-step's length (the largest speed), and once at
    /// the end, the finite check's read-back, after which the step's books and stage
    /// times are read from a card with nothing left to do.
    pub fn step(&mut self) {
        let before = crate::cost::now();
        crate::cost::take_stage_bytes();
        self.kernel_clock.start();
        self.tuner.start_step();
        self.open_books();
        self.clock.clear();
        let (p, grid) = (self.params.clone(), self.grid);
        let mut total = split_step(self, &p, &grid, self.fire_active);
        self.sub_dt = self.params.dt;
        self.steps += 1;
        crate::cost::enter("finite_check");
        let timer = self.raw.has_timer();
        let ms = if timer {
            let start = self.raw.timestamp();
            self.clock.push(("", start));
            self.non_finite = self.first_non_finite();
            0.0
        } else {
            self.timed(|e| e.non_finite = e.first_non_finite())
        };
        total.stages.push(StageTime {
            name: "finite_check",
            ms,
        });
        if timer {
            self.read_clock(&mut total);
        }
        let books = self.read_books();
        // (after the step's last read-back: the tuner's timestamps are there)
        self.tuner.harvest();
        total.scalar_active = self.region_share();
        let cell = f64::from(self.grid.h).powi(3);
        total.source_added = books.source_added * cell;
        total.outflow = books.outflow * cell;
        total.fuel_burned = books.fuel_burned * cell;
        total.mass_correction = books.mass_correction;
        total.speed_limited = books.speed_limited;
        total.total_ms = total.stages.iter().map(|s| s.ms).sum();
        let cost = crate::cost::now().since(before);
        total.host = Some(plume_core::sim::HostStats {
            dispatches: cost.dispatches as u32,
            waits: cost.waits as u32,
            issue_ms: cost.issue_ns as f64 / 1e6,
            stage_bytes: crate::cost::take_stage_bytes(),
            kernels: self.kernel_clock.finish(),
            tuning: self.tuner.report(),
        });
        crate::cost::enter("");
        self.stats = total;
    }

    /// The first field holding a non-finite value, in the CPU's order: every field reduced,
    /// then one read-back. Where the faces' and the pressure's largest |values| are known
    /// from the last projection's gradient pass (nothing has changed the faces since), only
    /// the scalars are reduced.
    fn first_non_finite(&mut self) -> Option<&'static str> {
        let spans = self.reduce_checked(!self.region.faces_top);
        if self.raw.has_timer() {
            // The check's work ends here; its read-back then waits for everything before.
            let end = self.raw.timestamp();
            self.clock.push(("finite_check", end));
        }
        let figures = self.read_checked(spans);
        figures
            .into_iter()
            .find(|(_, r)| !r.finite())
            .map(|(name, _)| name)
    }

    /// The fields the finite check reads, in the CPU's order, with their lengths.
    fn checked_fields(&self) -> Vec<(&'static str, &Field, usize)> {
        let d = self.grid.dims;
        let n = d.cells();
        let f = &self.f;
        let mut fields: Vec<(&'static str, &Field, usize)> = vec![("density", &f.density, n)];
        if self.temp_active {
            fields.push(("temperature", &f.temperature, n));
        }
        for (i, name) in ["fuel", "flame"].into_iter().enumerate() {
            if let Some(x) = self.fire_field(i) {
                fields.push((name, x, n));
            }
        }
        for a in 0..3 {
            fields.push(("velocity", &f.vel[a], d.faces(a).cells()));
        }
        fields.push(("pressure", &f.pressure, n));
        fields
    }

    /// The finite check's reductions (eight fields at most: one dispatch, one read-back); of
    /// the scalars alone unless `all`.
    fn reduce_checked(&self, all: bool) -> (Vec<&'static str>, Vec<std::ops::Range<usize>>) {
        let mut fields = self.checked_fields();
        if !all {
            fields.retain(|f| !matches!(f.0, "velocity" | "pressure"));
        }
        let all: Vec<(&Field, usize)> = fields.iter().map(|&(_, f, n)| (f, n)).collect();
        (
            fields.iter().map(|x| x.0).collect(),
            self.reduce_side_by_side(&all),
        )
    }

    /// Reads the finite check's reductions back: each field's Σ and largest |value|. The
    /// faces' largest |value| is kept as the next sub-step's largest speed (NaN counts as
    /// 0 there: the check reports it).
    fn read_checked(
        &mut self,
        (names, spans): (Vec<&'static str>, Vec<std::ops::Range<usize>>),
    ) -> Vec<(&'static str, Reduced)> {
        let mut reduced = self.read_spans(spans);
        let mut names = names;
        // (the pressure, always checked, was not reduced: the scalars alone were)
        if !names.contains(&"pressure") {
            // The rest from the gradient's pass, in the same order: each axis' faces, then the
            // pressure (read after the wait above: the card has nothing left to do).
            let maxima = self.gradient_maxima();
            for (name, bits) in ["velocity", "velocity", "velocity", "pressure"]
                .into_iter()
                .zip(maxima)
            {
                names.push(name);
                reduced.push(Reduced::largest_only(bits));
            }
        }
        self.vmax = Some(
            names
                .iter()
                .zip(&reduced)
                .filter(|(name, _)| **name == "velocity")
                .map(|(_, r)| r.speed())
                .fold(0.0, f32::max),
        );
        names.into_iter().zip(reduced).collect()
    }

    /// Each field the finite check reads, in its order, with its Σ and largest |value| as
    /// the check finds them (the velocity's three face arrays one by one).
    pub fn field_figures(&mut self) -> Vec<(&'static str, f64, f32)> {
        let spans = self.reduce_checked(true);
        self.read_checked(spans)
            .into_iter()
            .map(|(name, r)| (name, r.sum, r.max_abs()))
            .collect()
    }

    /// The fastest face velocity: from the step's finite check, or the maxima the last
    /// projection's gradient pass left, where nothing changed the faces since; else a
    /// reduction of the faces.
    fn top_speed(&mut self) -> f32 {
        if let Some(v) = self.vmax {
            if v.is_finite() {
                return v;
            }
        }
        let v = if self.region.faces_top {
            self.gradient_top_speed()
        } else {
            self.max_speed()
        };
        self.vmax = Some(v);
        v
    }

    /// The largest |face velocity| from each axis' maximum that the projection's gradient
    /// pass merged (one read-back, no pass over the faces); an axis holding a NaN or an
    /// infinity counts as 0, as in [`Engine::max_speed`].
    fn gradient_top_speed(&self) -> f32 {
        self.count_small(crate::fields::ACTIVE_WORDS * 4);
        self.gradient_maxima()[..3]
            .iter()
            .map(|&bits| Reduced::largest_only(bits).speed())
            .fold(0.0, f32::max)
    }

    /// Each axis' largest |face velocity| and the pressure's largest |value| (a float's bits)
    /// as the last projection's gradient pass merged them.
    fn gradient_maxima(&self) -> [u32; 4] {
        let words = self.f.active.read().unwrap_or_default();
        [8, 9, 10, 13].map(|i| words.get(i).copied().unwrap_or(u32::MAX))
    }

    /// [`Engine::gradient_maxima`] where they are still the fields' (no stage has changed the
    /// faces since the projection), else `None`.
    pub fn projection_maxima(&self) -> Option<[u32; 4]> {
        self.region.faces_top.then(|| self.gradient_maxima())
    }

    /// The largest |face velocity|; NaN counts as 0 here (the finite check reports it).
    pub fn max_speed(&self) -> f32 {
        let d = self.grid.dims;
        let faces: Vec<(&Field, usize)> = (0..3)
            .map(|a| (&self.f.vel[a], d.faces(a).cells()))
            .collect();
        self.reduce_all(&faces)
            .into_iter()
            .map(|r| r.speed())
            .fold(0.0, f32::max)
    }

    /// The largest velocity component an active emitter sets, within the speed limit.
    /// Moving obstacles count with the speed their faces had in the last sub-step.
    fn emitter_speed(&self) -> f32 {
        let faces = self.obs.solids.as_ref().map(|s| &s.host.face_vel);
        emitter_speed(&self.emitters, self.time, faces, self.speed_limit())
    }

    /// `max_cfl·cap·h/dt` (the CPU's `speed_limit`), domain-units/s.
    pub fn speed_limit(&self) -> f32 {
        speed_limit(&self.params, &self.grid)
    }

    /// The stages of a sub-step in the CPU solver's order, each with whether it runs with
    /// the current parameters (asked when its turn comes: the sources may light a fire).
    pub(crate) fn stages() -> [Stage; 11] {
        [
            ("obstacles", |e| e.obstacles_move(), Engine::stage_obstacles),
            ("sources", |_| true, Engine::stage_sources),
            ("advect_velocity", |_| true, Engine::stage_advect_velocity),
            ("forces", |_| true, Engine::stage_forces),
            (
                "vorticity",
                |e| e.params.vorticity > 0.0,
                Engine::stage_vorticity,
            ),
            (
                "viscosity",
                |e| e.params.viscosity > 0.0,
                Engine::stage_viscosity,
            ),
            ("speed_limit", |_| true, Engine::stage_speed_limit),
            ("project", |_| true, Engine::stage_project),
            ("advect_density", |_| true, Engine::stage_advect_scalars),
            ("combustion", |e| e.fire_active, Engine::stage_combustion),
            (
                "diffuse_density",
                |e| e.params.diffusion > 0.0,
                Engine::stage_diffuse_density,
            ),
        ]
    }

    /// Before stage `name`: what is known of the faces is forgotten unless the stage leaves
    /// them as they were (the scalars' stages).
    pub(crate) fn stage_may_move_faces(&mut self, name: &str) {
        if !matches!(name, "advect_density" | "combustion" | "diffuse_density") {
            self.faces_changed();
        }
    }

    /// Milliseconds the card spent on `f`'s work: between two timestamp queries, from the
    /// end of the work before it to the end of its own (so waits for the CPU inside it
    /// count, as they do in a step); on the CPU's clock with a `glFinish` after it where the
    /// driver has no timer queries.
    fn timed(&mut self, f: impl FnOnce(&mut Engine)) -> f64 {
        if !self.raw.has_timer() {
            let t = Instant::now();
            f(self);
            crate::cost::wait();
            self.ctx.finish();
            return t.elapsed().as_secs_f64() * 1e3;
        }
        self.raw.timestamp();
        f(self);
        self.raw.timestamp();
        match self.raw.timestamps()[..] {
            [a, b] => b.saturating_sub(a) as f64 / 1e6,
            _ => 0.0,
        }
    }

    /// One sub-step: the CPU solver's stages that this backend runs, in its order, each
    /// timed on the card's clock (timestamp queries, read at the end of the step: until
    /// then its stages' times are 0).
    fn substep(&mut self, dt: f32) -> StepStats {
        self.sub_dt = dt;
        let mut stats = StepStats::default();
        let timer = self.raw.has_timer();
        if timer {
            let start = self.raw.timestamp();
            self.clock.push(("", start));
        }
        self.in_substep = true;
        for (name, on, f) in Engine::stages() {
            if !on(self) {
                continue;
            }
            self.stage_may_move_faces(name);
            crate::cost::enter(name);
            let ms = if timer {
                f(self, &mut stats);
                let end = self.raw.timestamp();
                self.clock.push((name, end));
                0.0
            } else {
                self.timed(|e| f(e, &mut stats))
            };
            stats.stages.push(StageTime { name, ms });
        }
        self.in_substep = false;
        self.hold_pending_limit();
        stats.total_ms = stats.stages.iter().map(|s| s.ms).sum();
        self.time += f64::from(dt);
        stats
    }

    /// The step's stage times from its timestamps (each stage from the one before it; a
    /// sub-step's first from its start, marked with no name), summed by stage into
    /// `total`'s.
    fn read_clock(&mut self, total: &mut StepStats) {
        let ns = self.raw.timestamps();
        let marks = std::mem::take(&mut self.clock);
        for (i, &(name, at)) in marks.iter().enumerate() {
            let (Some(at), Some(prev)) = (at, i.checked_sub(1).and_then(|p| marks[p].1)) else {
                continue;
            };
            if name.is_empty() {
                continue;
            }
            let ms = ns
                .get(at)
                .zip(ns.get(prev))
                .map_or(0.0, |(b, a)| b.saturating_sub(*a) as f64 / 1e6);
            if let Some(s) = total.stages.iter_mut().find(|s| s.name == name) {
                s.ms += ms;
            }
        }
    }
}
