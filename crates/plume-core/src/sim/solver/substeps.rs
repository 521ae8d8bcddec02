//! The step as adaptive sub-steps (CFL control), the speed limit and the finite check.

use super::*;
use crate::sim::cost::{self, Caps};
use crate::sim::pressure::operator::max_abs_lanes;

impl Solver {
    /// Advances the simulation by one time step `dt`, in as many sub-steps as `max_cfl`
    /// needs: before each, the sub-step's length is chosen from the fastest face velocity
    /// (`max_cfl·h/|u|max`, at least `dt/cap` for the sub-step cap of
    /// [`cost::substep_cap`], the last two split what is left
    /// evenly so no sliver remains). Each sub-step runs the stages of [`Solver::substep`].
    /// Afterwards every field is checked for non-finite values ([`Solver::try_step`] turns
    /// that into an error).
    pub fn step(&mut self) -> &StepStats {
        // The whole step runs on a worker of the thread pool: its parallel passes (a few
        // dozen, several per stage) then fork from a worker instead of each waking the pool
        // from outside and putting the calling thread to sleep until it is done.
        rayon::scope(|_| self.step_here());
        &self.stats
    }

    fn step_here(&mut self) {
        // What the last projection saw is kept until something changes the velocity or the
        // pressure (`Solver::scan`: every method that writes them drops it), so the first
        // sub-step's length takes the fastest face from it too.
        // The advection passes' sampler window covers the midpoints of traces at max_cfl.
        self.vel_sampler
            .set_halo(advect::halo_for_cfl(self.params.max_cfl));
        let (p, grid) = (self.params.clone(), self.grid);
        let mut total = split_step(self, &p, &grid, self.fire_active);
        self.sub_dt = self.params.dt;
        self.steps += 1;
        let t = Instant::now();
        self.non_finite = self.first_non_finite();
        total.stages.push(StageTime {
            name: "finite_check",
            ms: t.elapsed().as_secs_f64() * 1e3,
        });
        total.total_ms = total.stages.iter().map(|s| s.ms).sum();
        self.stats = total;
    }

    /// [`Solver::step`], then an error naming the step, the field and the likely cause if any
    /// field holds a non-finite value. The fields are left as they are (for inspection); a
    /// caller should stop, not write them.
    pub fn try_step(&mut self) -> Result<&StepStats, SimError> {
        self.step();
        match self.non_finite {
            None => Ok(&self.stats),
            Some(field) => Err(SimError::NonFinite {
                step: self.steps,
                time: self.time,
                field,
                cause: self.likely_cause(),
            }),
        }
    }

    /// The field that holds a non-finite value after the last step, if any.
    pub fn non_finite_field(&self) -> Option<&'static str> {
        self.non_finite
    }

    pub(super) fn first_non_finite(&self) -> Option<&'static str> {
        // Velocity and pressure as the last projection saw them, where it did.
        let scan = self.scan.as_ref();
        // A chunk is tested whole, without stopping at its first bad value: the test is then
        // a vectorised bit-or (all exponent bits set: infinite or NaN).
        let bad = |f: &[f32]| {
            f.par_chunks(4096).any(|c| {
                c.iter().fold(0u32, |a, x| {
                    a | u32::from(x.to_bits() & 0x7f80_0000 == 0x7f80_0000)
                }) != 0
            })
        };
        if bad(&self.density) {
            Some("density")
        } else if self.temperature_active && bad(&self.temperature) {
            Some("temperature")
        } else if bad(&self.fuel) {
            Some("fuel")
        } else if bad(&self.flame) {
            Some("flame")
        } else if scan.map_or_else(|| self.vel.iter().any(|v| bad(v)), |s| !s.velocity_finite()) {
            Some("velocity")
        } else if scan.map_or_else(|| bad(&self.pressure), |s| !s.pressure_finite()) {
            Some("pressure")
        } else {
            None
        }
    }

    /// The parameter most likely to have made a field non-finite, with its value.
    pub(super) fn likely_cause(&self) -> String {
        likely_cause(&self.params)
    }

    /// The largest velocity component an emitter on at the current time sets
    /// (domain-units/s, within the speed limit as the sources apply it; 0 without such
    /// emitters).
    /// Moving obstacles count with the speed their faces had in the last sub-step.
    pub(super) fn emitter_speed(&self) -> f32 {
        let faces = Some(&self.solids.face_vel);
        emitter_speed(&self.emitters, self.time, faces, self.speed_limit())
    }

    /// The fastest flow the sub-steps can carry, `max_cfl·cap·h/dt` ([`cost::speed_limit`])
    /// (domain-units/s): the speed limit holds the faces within it, and emitters set at most
    /// this, so no sub-step's traces go further than `max_cfl` cells.
    pub(super) fn speed_limit(&self) -> f32 {
        cost::speed_limit(&self.params, &self.grid)
    }

    /// [`Solver::max_speed`], from what the last projection saw where it saw it and every
    /// value was finite.
    fn top_speed(&self) -> f32 {
        match self.scan {
            Some(s) if s.velocity_finite() => s.vmax().into_iter().fold(0.0, f32::max),
            _ => self.max_speed(),
        }
    }

    /// The largest |face velocity| (domain-units/s); NaN counts as 0 here (the finite check
    /// after the step reports it).
    pub(super) fn max_speed(&self) -> f32 {
        self.vel
            .iter()
            .map(|v| {
                v.par_chunks(4096)
                    .map(|c| max_abs_lanes(c).0)
                    .reduce(|| 0.0, f32::max)
            })
            .fold(0.0, f32::max)
    }

    /// Holds every face velocity within ±`max_cfl·cap·h/dt` ([`cost::speed_limit`]), the fastest flow the
    /// sub-steps can carry (far beyond any flow a scene sets up: 128 domain-units/s at the
    /// defaults on a 64³ grid). Without it, parameters at the ends of their ranges (vorticity
    /// confinement ε = 100 feeds swirls e^(ε·t)) could grow the velocity without bound.
    /// Returns how many faces it held back.
    pub(super) fn limit_speed(&mut self) -> u64 {
        let lim = self.speed_limit();
        self.vel
            .iter_mut()
            .map(|v| {
                v.par_chunks_mut(4096)
                    .map(|c| {
                        // Counted first without writing (it vectorises): a chunk within the
                        // limit, nearly always all of them, is left as it is, unwritten.
                        let n = c.iter().map(|x| u32::from(x.abs() > lim)).sum::<u32>();
                        if n > 0 {
                            // Selects, not branches (it vectorises); NaN stays as it is.
                            for x in c {
                                let y = if *x < -lim { -lim } else { *x };
                                *x = if y > lim { lim } else { y };
                            }
                        }
                        u64::from(n)
                    })
                    .sum::<u64>()
            })
            .sum()
    }
}

/// A backend's side of [`split_step`].
pub trait SubSteps {
    /// The fastest velocity the next sub-step starts with (domain-units/s): the faces', and
    /// what active emitters and moving solids are about to set.
    fn fastest(&mut self) -> f32;
    /// Runs one sub-step of length `dt`, its solves within `caps`.
    fn sub_step(&mut self, dt: f32, caps: Caps) -> StepStats;
}

/// Splits one step of `p.dt` into as many sub-steps as `p.max_cfl` needs on `grid` (both
/// backends): before each, the sub-step's length is chosen from the fastest velocity
/// (`max_cfl·h/|u|max`, at least `dt/cap` for the sub-step cap of [`cost::substep_cap`], the
/// last two split what is left evenly so no sliver remains), and its solves' iteration caps
/// from the step's budget ([`cost::Budget`]; `fire`: the fuel and flame are carried too).
/// Returns the sub-steps' statistics summed, with their count, the largest CFL number and the
/// step's work.
pub fn split_step(s: &mut impl SubSteps, p: &FluidParams, grid: &Grid, fire: bool) -> StepStats {
    let dt = f64::from(p.dt);
    let h = f64::from(grid.h);
    let mut budget = cost::Budget::new(p, grid.dims);
    let max_n = budget.substeps();
    let min_dt = dt / f64::from(max_n);
    let cfl = f64::from(p.max_cfl);
    let mut total = StepStats::default();
    let mut remaining = dt;
    let mut n = 0u32;
    while remaining > 1e-9 * dt {
        // The sources run first in the sub-step: the velocity they set counts too, or a fast
        // emitter's first sub-step would be as long as the step and its traces thousands of
        // cells long.
        let speed = f64::from(s.fastest());
        let mut sdt = if speed > 0.0 {
            cfl * h / speed
        } else {
            remaining
        };
        if sdt >= remaining || n + 1 >= max_n {
            sdt = remaining;
        } else if remaining < 2.0 * sdt {
            sdt = 0.5 * remaining;
        }
        let sdt = sdt.max(min_dt).min(remaining);
        let coming = (remaining / sdt).ceil().min(f64::from(max_n - n)) as u32;
        let caps = budget.caps(p, fire, coming);
        let st = s.sub_step(sdt as f32, caps);
        budget.spend(p, fire, caps, &st);
        total.absorb(&st);
        total.cfl = total.cfl.max((speed * sdt / h) as f32);
        remaining -= sdt;
        n += 1;
    }
    total.substeps = n;
    total.work = cost::step_work(p, fire, &total, n);
    total.budget_limited = budget.limited;
    total
}

impl SubSteps for Solver {
    fn fastest(&mut self) -> f32 {
        self.top_speed().max(self.emitter_speed())
    }
    fn sub_step(&mut self, dt: f32, caps: Caps) -> StepStats {
        self.caps = Some(caps);
        let st = self.substep(dt);
        self.caps = None;
        st
    }
}

/// The largest velocity component an emitter on at `time` sets, or a moving obstacle's
/// face had in the last sub-step (`face_vel`), within `limit`; 0 without either. Both
/// backends' CFL sub-steps count it.
pub fn emitter_speed(
    emitters: &[Emitter],
    time: f64,
    face_vel: Option<&[Vec<f32>; 3]>,
    limit: f32,
) -> f32 {
    let solid = face_vel
        .into_iter()
        .flatten()
        .flatten()
        .fold(0.0f32, |m, v| m.max(v.abs()));
    emitters
        .iter()
        .filter(|e| e.active_at(time))
        .filter_map(|e| e.velocity)
        .flat_map(|v| v.map(f32::abs))
        .fold(solid, f32::max)
        .min(limit)
}

/// The parameter of `p` most likely to have made a field non-finite, with its value (both
/// backends name it in `SimError::NonFinite`).
pub fn likely_cause(p: &FluidParams) -> String {
    if p.vorticity > 15.0 {
        format!(
            "vorticity = {} (above ~15 the flow turns chaotic; 3–10 is the useful range)",
            p.vorticity
        )
    } else if p.buoyancy.abs() > 100.0 || p.smoke_weight.abs() > 100.0 {
        format!(
            "buoyancy = {}, smoke_weight = {} (forces this strong outrun the grid)",
            p.buoyancy, p.smoke_weight
        )
    } else {
        format!(
            "dt = {} s with max_cfl = {} and max_substeps = {} (try a smaller dt)",
            p.dt, p.max_cfl, p.max_substeps
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::boundary::Boundaries;
    use crate::sim::grid::{Dims, Grid};

    /// What the last projection saw (`Solver::scan`) is still what the arrays hold when the
    /// step ends, so the finite check, the scalar advection's reach and the next sub-step's
    /// length may take it: every preset (fire among them; obstacles keep none), steps of
    /// several sub-steps included. And the top speed from it is `max_speed`'s.
    #[test]
    fn what_the_projection_saw_still_holds_when_the_step_ends() {
        let bits = |f: &[f32]| {
            f.iter()
                .map(|x| x.to_bits() & 0x7fff_ffff)
                .max()
                .unwrap_or(0)
        };
        let mut kept = 0;
        for name in crate::scene::Scene::preset_names() {
            let scene = crate::scene::Scene::preset(name).expect("preset");
            let mut s = scene.with_resolution(16).build().expect("builds");
            // Short enough sub-steps that some steps take several.
            s.params.max_cfl = 0.5;
            for step in 0..12 {
                s.step();
                let Some(scan) = s.scan else {
                    assert!(!s.solids.is_empty(), "{name}: no scan without obstacles");
                    continue;
                };
                kept += 1;
                let want = [0, 1, 2].map(|a| bits(&s.vel[a]));
                assert_eq!(scan.vel, want, "{name}, step {step}");
                assert_eq!(scan.pressure, bits(&s.pressure), "{name}, step {step}");
                assert_eq!(s.top_speed(), s.max_speed(), "{name}, step {step}");
            }
        }
        assert!(kept > 24, "{kept} steps kept a scan");
    }

    /// What the last projection saw is kept from one step to the next, so every method that
    /// writes the velocity or the pressure between steps must drop it: after each, the
    /// first sub-step's top speed is the arrays' own.
    #[test]
    fn writing_the_velocity_between_steps_drops_what_the_projection_saw() {
        let scene = crate::scene::Scene::preset("plume").expect("preset");
        let mut s = scene.with_resolution(16).build().expect("builds");
        let fast = 40.0 * s.top_speed().max(1.0);
        type Write = fn(&mut Solver, f32);
        let writes: [(&str, Write); 6] = [
            ("velocity_mut", |s, v| s.velocity_mut()[1][700] = v),
            ("add_velocity", |s, v| {
                s.add_velocity([3, 4, 5], [0.0, 0.0, v]).expect("inside")
            }),
            ("reset", |s, _| s.reset()),
            ("set_boundaries", |s, v| {
                let mut b = *s.boundaries();
                b.x_min = crate::sim::boundary::Face::Inflow(v);
                s.set_boundaries(b).expect("valid");
            }),
            ("set_obstacles", |s, _| {
                s.set_obstacles(Vec::new()).expect("none")
            }),
            ("project", |s, v| {
                s.velocity_mut()[0][300] = v;
                s.project();
            }),
        ];
        for (name, write) in writes {
            for _ in 0..3 {
                s.step();
            }
            assert!(
                s.scan.is_some(),
                "{name}: a step keeps what its projection saw"
            );
            write(&mut s, fast);
            assert_eq!(s.top_speed(), s.max_speed(), "{name}");
        }
    }

    /// The speed limit holds every face within ±max_cfl·cap·h/dt, counts the faces
    /// it held back, and leaves NaN and the faces within the limit as they were; the fastest
    /// speed skips NaN.
    #[test]
    fn the_speed_limit_clamps_and_counts_and_the_top_speed_skips_nan() {
        let grid = Grid::new(Dims::cube(9), 1.0, [0.0; 3]).expect("grid");
        let mut s =
            Solver::new(grid, FluidParams::default(), Boundaries::default()).expect("solver");
        let p = &s.params;
        let lim = cost::speed_limit(p, &s.grid);
        let before: Vec<Vec<f32>> = s
            .vel
            .iter_mut()
            .enumerate()
            .map(|(a, v)| {
                for (i, x) in v.iter_mut().enumerate() {
                    *x = ((i * 7 + a) % 23) as f32 * 0.1 * lim - 1.1 * lim;
                }
                v[5] = f32::NAN;
                v.clone()
            })
            .collect();
        let top = s.max_speed();
        let want_top = before.iter().flatten().filter(|x| !x.is_nan());
        assert_eq!(top, want_top.fold(0.0f32, |m, x| m.max(x.abs())));
        assert!(top > lim);
        let over = before.iter().flatten().filter(|x| x.abs() > lim).count();
        assert!(over > 10);
        assert_eq!(s.limit_speed(), over as u64);
        for (v, b) in s.vel.iter().zip(&before) {
            for (&x, &y) in v.iter().zip(b) {
                if y.is_nan() {
                    assert!(x.is_nan());
                } else {
                    assert_eq!(x, y.clamp(-lim, lim));
                }
            }
        }
        assert_eq!(s.limit_speed(), 0);
    }
}
