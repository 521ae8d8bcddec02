//! [`Detailed`]: a simulation with the up-resolution pass layered on top of another.

use super::{coarse_pos, trilerp3, upsample, Detail, DetailParams};
use crate::frame::{per_cell, Frame, Select};
use crate::sim::{
    Emitter, FireParams, FluidParams, Grid, Obstacle, SimError, Simulation, StepStats,
};

/// A simulation with the up-resolution pass on top: steps the coarse one, then the pass, and
/// hands out frames on the fine grid (the detailed fields as they are, the others
/// interpolated). Everything else goes to the coarse simulation unchanged.
pub struct Detailed {
    inner: Box<dyn Simulation>,
    detail: Detail,
    fine_stats: StepStats,
}

impl Detailed {
    /// `inner` with the pass `params` on top.
    pub fn new(inner: Box<dyn Simulation>, params: DetailParams) -> Result<Self, SimError> {
        let fire = inner.emitters().iter().any(Emitter::burns);
        let detail = Detail::new(inner.grid(), params, fire)?;
        let mut d = Self {
            inner,
            detail,
            fine_stats: StepStats::default(),
        };
        let f = d.coarse_frame();
        d.detail.reset_from(&f);
        Ok(d)
    }

    /// The pass.
    pub fn detail(&self) -> &Detail {
        &self.detail
    }

    /// The coarse simulation underneath.
    pub fn coarse(&self) -> &dyn Simulation {
        self.inner.as_ref()
    }

    fn coarse_frame(&self) -> Frame {
        self.inner.frame(self.detail.select())
    }
}

impl Simulation for Detailed {
    fn backend(&self) -> &'static str {
        self.inner.backend()
    }
    fn into_coarse(self: Box<Self>) -> Box<dyn Simulation> {
        self.inner
    }
    fn grid(&self) -> &Grid {
        self.inner.grid()
    }
    fn memory_bytes(&self) -> usize {
        let fire = self.inner.emitters().iter().any(crate::sim::Emitter::burns);
        self.inner.memory_bytes()
            + self
                .detail
                .params()
                .memory_bytes(self.inner.grid().dims, fire) as usize
    }
    fn pressure_solver(&self) -> &'static str {
        self.inner.pressure_solver()
    }
    fn time_kernels(&mut self, on: bool) -> bool {
        self.inner.time_kernels(on)
    }
    fn params(&self) -> &FluidParams {
        self.inner.params()
    }
    fn set_params(&mut self, p: FluidParams) -> Result<(), SimError> {
        self.inner.set_params(p)
    }
    fn fire(&self) -> &FireParams {
        self.inner.fire()
    }
    fn set_fire(&mut self, p: FireParams) -> Result<(), SimError> {
        self.inner.set_fire(p)
    }
    fn emitters(&self) -> &[Emitter] {
        self.inner.emitters()
    }
    fn set_emitters(&mut self, es: Vec<Emitter>) -> Result<(), SimError> {
        self.inner.set_emitters(es)
    }
    fn obstacles(&self) -> &[Obstacle] {
        self.inner.obstacles()
    }
    fn set_obstacles(&mut self, os: Vec<Obstacle>) -> Result<(), SimError> {
        self.inner.set_obstacles(os)
    }
    fn step(&mut self) -> Result<&StepStats, SimError> {
        let dt = self.inner.params().dt;
        let mut stats = self.inner.step()?.clone();
        // The stage counts the copy of the coarse fields the pass reads, too.
        let t = std::time::Instant::now();
        let f = self.coarse_frame();
        self.detail.step(&f, dt);
        let ms = t.elapsed().as_secs_f64() * 1e3;
        stats
            .stages
            .push(crate::sim::StageTime { name: "detail", ms });
        stats.total_ms += ms;
        self.fine_stats = stats;
        Ok(&self.fine_stats)
    }
    fn stats(&self) -> &StepStats {
        &self.fine_stats
    }
    fn time(&self) -> f64 {
        self.inner.time()
    }
    fn steps(&self) -> u64 {
        self.inner.steps()
    }
    fn reset(&mut self) {
        self.inner.reset();
        let f = self.coarse_frame();
        self.detail.reset_from(&f);
    }
    fn paint(
        &mut self,
        center: [f32; 3],
        radius: f32,
        density: f32,
        velocity: [f32; 3],
    ) -> Result<(), SimError> {
        self.inner.paint(center, radius, density, velocity)
    }
    fn total_density(&self) -> f64 {
        self.inner.total_density()
    }
    fn state(&self) -> crate::sim::FieldState {
        self.inner.state()
    }
    fn set_state(&mut self, s: crate::sim::FieldState) -> Result<(), crate::sim::SimError> {
        self.inner.set_state(s)?;
        // The fine fields start again from the coarse ones.
        self.detail.reset_from(&self.coarse_frame());
        Ok(())
    }
    fn frame(&self, select: Select) -> Frame {
        let coarse = self.inner.frame(select);
        let n = self.detail.params.factor as usize;
        let d = self.inner.grid().dims;
        let up = |f: Option<Vec<f32>>| f.map(|v| upsample(&v, d, n));
        let fine_or_up = |name: &str, f: Option<Vec<f32>>| match self.detail.field(name) {
            Some(v) => f.map(|_| v.to_vec()),
            None => up(f),
        };
        let fine = &self.detail.fine;
        Frame {
            grid: self.detail.fine,
            step: coarse.step,
            time: coarse.time,
            density: fine_or_up("density", coarse.density),
            temperature: fine_or_up("temperature", coarse.temperature),
            flame: fine_or_up("flame", coarse.flame),
            fuel: up(coarse.fuel),
            velocity: coarse.velocity.map(|v| {
                per_cell(fine, |i, j, k| {
                    trilerp3(&v, d, [i, j, k].map(|x| coarse_pos(x, n)))
                })
            }),
            pressure: up(coarse.pressure),
            divergence: up(coarse.divergence),
            solid: coarse
                .solid
                .map(|s| per_cell(fine, |i, j, k| s[i / n + d.nx * (j / n + d.ny * (k / n))])),
            collision: None,
            emitters: coarse.emitters,
            streamlines: coarse.streamlines,
        }
    }
}
