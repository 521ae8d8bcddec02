//! The stages of a sub-step on the card, each the counterpart of the CPU solver's stage of
//! the same name (`plume_core::sim::solver::stages`).

use glium::uniform;
use plume_core::sim::cover;
use plume_core::sim::{Advection, Face, StepStats};

use crate::engine::{Engine, Site};
use crate::kernels::{run, tile_count, TILE, TILE_WG};

impl Engine {
    /// For each axis: whether each end lets outside air in, and that air's velocity along
    /// the axis (for the velocity, only inflows do; for scalars, open faces too).
    fn exits(&self, velocity: bool) -> ([u32; 3], [u32; 3], [f32; 3], [f32; 3]) {
        let b = &self.boundaries;
        let lets_in = |a: usize, s: usize| match b.face(a, s) {
            Face::Wall => 0,
            Face::Open => u32::from(!velocity),
            Face::Inflow(_) => 1,
        };
        let air = |a: usize, s: usize| match b.face(a, s) {
            Face::Inflow(_) => b.normal_velocity(a, s).unwrap_or(0.0),
            _ => 0.0,
        };
        (
            [0, 1, 2].map(|a| lets_in(a, 0)),
            [0, 1, 2].map(|a| lets_in(a, 1)),
            [0, 1, 2].map(|a| air(a, 0)),
            [0, 1, 2].map(|a| air(a, 1)),
        )
    }

    /// The cell-centred velocity into `cell_vel`.
    pub(crate) fn cell_velocity(&self) {
        let f = &self.f;
        self.tuned(Site::CellVelocity, true, |way| {
            run(
                [&self.k.cell_velocity, &self.k.cell_velocity_wide][way],
                self.dims(),
                self.cells(),
                uniform! { U: &f.vel[0], V: &f.vel[1], W: &f.vel[2], CellVel: f.cell_vel_bound() },
            )
        });
    }

    pub(crate) fn stage_sources(&mut self, _: &mut StepStats) {
        self.book_before_sources();
        let dt = self.sub_dt;
        let t = self.time;
        let lim = self.speed_limit();
        if self.emitters.iter().any(|e| e.burns() && e.active_at(t)) {
            self.activate_fire();
        }
        for i in 0..self.emitters.len() {
            let e = &self.emitters[i];
            if !e.active_at(t) {
                continue;
            }
            let moving = match &self.bodies[i] {
                Some(b) => match self.upload(&cover::body_cover(&self.grid, b, t)) {
                    Ok(c) => Some(c),
                    Err(_) => continue,
                },
                None => None,
            };
            let Some(c) = moving.as_ref().or(self.covers[i].as_ref()) else {
                continue;
            };
            let e = &self.emitters[i];
            // (every field it feeds in one dispatch: `emit.rs`)
            self.emit(c, e, dt, lim);
            if e.temperature.is_some() {
                self.temp_active = true;
            }
        }
        if self.has_solids() {
            self.fill_solid_cells(&self.f.density, 0.0);
            self.fill_solid_cells(&self.f.temperature, self.params.ambient_temperature);
            for which in 0..2 {
                if let Some(f) = self.fire_field(which) {
                    self.fill_solid_cells(f, 0.0);
                }
            }
        }
        self.enforce_boundaries();
    }

    pub(crate) fn stage_advect_velocity(&mut self, _: &mut StepStats) {
        // Traces read velocities inside obstacles next to the fluid: give them the fluid's
        // (two layers), not the solid's, which would drag the flow along its surface. The
        // solid faces are set again afterwards.
        self.extrapolate_faces();
        self.cell_velocity();
        let (lo, hi, air_lo, air_hi) = self.exits(true);
        let d = self.grid.dims;
        let kt = -self.sub_dt / self.grid.h;
        let mac = self.params.velocity_advection == Advection::MacCormack;
        if mac && self.f.face_scratch.is_none() {
            let most = (0..3).map(|a| d.faces(a).cells()).max().unwrap_or(1);
            match crate::fields::floats(&self.ctx, most) {
                Ok(b) => self.f.face_scratch = Some(b),
                Err(_) => return,
            }
        }
        let (fixed_lo, fixed_hi) = self.fixed_flags();
        let (speed_lo, speed_hi) = self.fixed_speeds();
        // In a step, and where no obstacle's faces are set between the two stages, the
        // forces' buoyancy is added as the y-faces are written (the forces' stage is next).
        let lift = self
            .buoyancy_terms()
            .filter(|_| self.folds.buoyancy_in_advection && self.in_substep && !self.has_solids());
        let (alpha, beta, ambient, with_t) = lift.unwrap_or_default();
        let f = &self.f;
        // Semi-Lagrangian: one pass of all three axes into vel_tmp. MacCormack: an axis at a
        // time, φ̂ into the scratch, then the last step from it into vel_tmp.
        let (axes, passes): (Vec<[u32; 2]>, &[(u32, bool)]) = if mac {
            ((0..3).map(|a| [a, a]).collect(), &[(1, true), (2, false)])
        } else {
            (vec![[0, 2]], &[(0, false)])
        };
        // (one way for the stage's dispatches, timed together: MacCormack's two phases
        // differ in cost)
        self.tuned(Site::AdvectFaces, true, |way| {
            for [first, last] in axes {
                let scratch = f
                    .face_scratch
                    .as_ref()
                    .unwrap_or(&f.vel_tmp[first as usize]);
                let items: usize = (first..=last).map(|a| d.faces(a as usize).cells()).sum();
                for &(phase, to_scratch) in passes {
                    // Each axis' faces go to its vel_tmp, or the scratch for φ̂.
                    let out = |a: usize| {
                        if to_scratch && a == first as usize {
                            scratch
                        } else {
                            &f.vel_tmp[a]
                        }
                    };
                    run(
                        if phase == 2 {
                            [
                                &self.k.advect_faces_finish,
                                &self.k.advect_faces_finish_wide,
                            ][way]
                        } else {
                            [&self.k.advect_faces, &self.k.advect_faces_wide][way]
                        },
                        self.dims(),
                        items,
                        uniform! {
                            U: &f.vel[0],
                            V: &f.vel[1],
                            W: &f.vel[2],
                            CellVel: f.cell_vel_bound(),
                            Hat: scratch,
                            Out0: out(0),
                            Out1: out(1),
                            Out2: out(2),
                            first_axis: first,
                            last_axis: last,
                            phase: phase,
                            kt: kt,
                            air_in_lo: lo,
                            air_in_hi: hi,
                            air_lo: air_lo,
                            air_hi: air_hi,
                            fixed_lo: fixed_lo,
                            fixed_hi: fixed_hi,
                            speed_lo: speed_lo,
                            speed_hi: speed_hi,
                            Solid: &self.solid_bits,
                            solids: self.solids_flag(),
                            buoyant: u32::from(lift.is_some() && first <= 1 && 1 <= last),
                            Density: &f.density,
                            Temperature: &f.temperature,
                            alpha: alpha,
                            beta: beta,
                            ambient: ambient,
                            dt: self.sub_dt,
                            with_temperature: with_t,
                        },
                    );
                }
            }
        });
        self.buoyancy_done = lift.is_some();
        std::mem::swap(&mut self.f.vel, &mut self.f.vel_tmp);
        // (the walls' and inflows' faces are set: advect_faces.comp wrote them)
        self.boundaries_set();
    }

    /// The forces' smoke weight and buoyancy, where they act: α, β, the ambient
    /// temperature and whether the temperature counts (`buoyancy.glsl`'s uniforms).
    fn buoyancy_terms(&self) -> Option<(f32, f32, f32, u32)> {
        let p = &self.params;
        let with_t = self.temp_active && p.buoyancy != 0.0;
        (p.smoke_weight != 0.0 || with_t).then_some((
            p.smoke_weight,
            p.buoyancy,
            p.ambient_temperature,
            u32::from(with_t),
        ))
    }

    pub(crate) fn stage_forces(&mut self, _: &mut StepStats) {
        // (in a step the velocity's advection may have added it as it wrote the faces)
        if std::mem::take(&mut self.buoyancy_done) {
            return;
        }
        let Some((alpha, beta, ambient, with_t)) = self.buoyancy_terms() else {
            return;
        };
        let d = self.grid.dims;
        let items = d.nx * d.ny.saturating_sub(1) * d.nz;
        run(
            &self.k.buoyancy,
            self.dims(),
            items,
            uniform! {
                Density: &self.f.density,
                Temperature: &self.f.temperature,
                V: &self.f.vel[1],
                alpha: alpha,
                beta: beta,
                ambient: ambient,
                dt: self.sub_dt,
                with_temperature: with_t,
            },
        );
        self.faces_changed();
    }

    /// The vorticity confinement, in the way the tuner picks (`tune.rs`) or that is fixed
    /// (`kernels::tiled_vorticity`): by tiles, or in two passes. The same results either way
    /// on Mesa; not on NVIDIA's driver, where it is not tuned.
    pub(crate) fn stage_vorticity(&mut self, _: &mut StepStats) {
        let (way, t) = self.tuner.begin(Site::Vorticity, true);
        if way == 0 {
            self.vorticity_by_tiles();
        } else {
            self.vorticity_in_two_passes();
        }
        self.tuner.end(t);
    }

    /// One pass by tiles into the other set of face arrays, swapped in (with the walls' and
    /// inflows' faces set).
    fn vorticity_by_tiles(&mut self) {
        let f = &self.f;
        let dims = self.dims();
        let (fixed_lo, fixed_hi) = self.fixed_flags();
        let (speed_lo, speed_hi) = self.fixed_speeds();
        run(
            &self.k.vorticity,
            dims,
            (tile_count(dims) * TILE_WG) as usize,
            uniform! {
                U: &f.vel[0],
                V: &f.vel[1],
                W: &f.vel[2],
                OutU: &f.vel_tmp[0],
                OutV: &f.vel_tmp[1],
                OutW: &f.vel_tmp[2],
                inv_h: 1.0 / self.grid.h,
                scale: self.params.vorticity * self.grid.h,
                dt: self.sub_dt,
                tiles: dims.map(|v| v.div_ceil(TILE)),
                fixed_lo: fixed_lo,
                fixed_hi: fixed_hi,
                speed_lo: speed_lo,
                speed_hi: speed_hi,
            },
        );
        std::mem::swap(&mut self.f.vel, &mut self.f.vel_tmp);
        self.boundaries_set();
    }

    /// The curl's four fields stored, then the confinement, then the boundary pass.
    fn vorticity_in_two_passes(&mut self) {
        let f = &self.f;
        let n = self.cells();
        run(
            &self.k.curl,
            self.dims(),
            n,
            uniform! {
                U: &f.vel[0],
                V: &f.vel[1],
                W: &f.vel[2],
                OmegaX: &f.r,
                OmegaY: &f.p,
                OmegaZ: &f.q,
                Magnitude: &f.vel_tmp[0],
                inv_h: 1.0 / self.grid.h,
            },
        );
        run(
            &self.k.confine,
            self.dims(),
            n,
            uniform! {
                OmegaX: &f.r,
                OmegaY: &f.p,
                OmegaZ: &f.q,
                Magnitude: &f.vel_tmp[0],
                U: &f.vel[0],
                V: &f.vel[1],
                W: &f.vel[2],
                scale: self.params.vorticity * self.grid.h,
                dt: self.sub_dt,
            },
        );
        self.enforce_boundaries();
    }

    /// Holds every face velocity within the limit, counting those held in the step's books
    /// (the projection that follows works out the largest speed again). In a sub-step the
    /// projection comes next, and its divergence pass holds the faces as it reads them (the
    /// same values: clamping rounds nothing), which saves a pass over every face; where no
    /// projection follows, [`Engine::hold_pending_limit`] does it here.
    pub(crate) fn stage_speed_limit(&mut self, _: &mut StepStats) {
        self.limit_pending = true;
    }

    /// The speed limit's passes, where its stage ran and no projection has held the faces
    /// since.
    pub(crate) fn hold_pending_limit(&mut self) {
        if !std::mem::take(&mut self.limit_pending) {
            return;
        }
        let d = self.grid.dims;
        let lim = self.speed_limit();
        for a in 0..3 {
            run(
                &self.k.limit,
                self.dims(),
                d.faces(a).cells(),
                uniform! { Face: &self.f.vel[a], Counter: &self.f.counter, limit: lim },
            );
        }
    }

    pub(crate) fn stage_advect_scalars(&mut self, stats: &mut StepStats) {
        let (h, dt) = (self.grid.h, self.sub_dt);
        let k_dt = dt / h;
        let p = &self.params;
        let mac = p.advection == Advection::MacCormack;
        let amb = p.ambient_temperature;
        let fade = (-p.fade * dt).exp();
        let cool = (-p.cooling * dt).exp();
        self.book_before_advection(k_dt);
        let swept = std::mem::take(&mut self.obs.swept);
        if self.has_solids() {
            // Advection reads next to the solids from their border cells: the fluid's values.
            self.extrapolate_cells(&self.f.density);
            if self.temp_active {
                self.extrapolate_cells(&self.f.temperature);
            }
            for which in 0..2 {
                if let Some(f) = self.fire_field(which) {
                    self.extrapolate_cells(f);
                }
            }
        }
        // Only the cells within the traces' reach of anything but outside air (`region.rs`).
        let region = self.scalar_region(k_dt);
        // With few cells to trace, they take the cell-centred velocity from the faces (the
        // same values) and no pass stores it for every cell.
        let from_faces =
            region.is_some() && self.region.last_share < crate::lists::TRACE_FROM_FACES_BELOW;
        if !from_faces {
            self.cell_velocity();
        }
        let (lo, hi, _, _) = self.exits(false);
        let fields = if self.temp_active { 2u32 } else { 1 };
        let scale = [fade, cool];
        let offset = [0.0, (1.0 - cool) * amb];
        let outside = [0.0, amb];
        self.advect_pair(
            mac,
            fields,
            [scale[0], scale[1]],
            offset,
            outside,
            k_dt,
            (lo, hi),
            (region, from_faces),
        );
        std::mem::swap(&mut self.f.density, &mut self.f.r);
        if self.temp_active {
            std::mem::swap(&mut self.f.temperature, &mut self.f.p);
        }
        if self.fire_active {
            // Fuel and flame: carried unchanged, 0 in the outside air.
            if let (Some(fu), Some(fl)) = (self.f.fuel.take(), self.f.flame.take()) {
                let (fu, fl) = (
                    std::mem::replace(&mut self.f.density, fu),
                    std::mem::replace(&mut self.f.temperature, fl),
                );
                self.advect_pair(
                    mac,
                    2,
                    [1.0, 1.0],
                    [0.0; 2],
                    [0.0; 2],
                    k_dt,
                    (lo, hi),
                    (region, from_faces),
                );
                let fuel = std::mem::replace(&mut self.f.density, fu);
                let flame = std::mem::replace(&mut self.f.temperature, fl);
                self.f.fuel = Some(std::mem::replace(&mut self.f.r, fuel));
                self.f.flame = Some(std::mem::replace(&mut self.f.p, flame));
            }
        }
        if self.has_solids() {
            if self.temp_active {
                self.fill_solid_cells(&self.f.temperature, amb);
            }
            for which in 0..2 {
                if let Some(f) = self.fire_field(which) {
                    self.fill_solid_cells(f, 0.0);
                }
            }
            self.fill_solid_cells(&self.f.density, 0.0);
        }
        // The mass correction (as the CPU's `correct_mass`), on the card.
        self.correct_mass(&self.f.density, fade, swept, region);
        stats.scalar_active = 1.0;
    }

    /// Advects `density` and (with `fields` 2) `temperature` into `r` and `p` (MacCormack's
    /// φ̂ in `q` and `vel_tmp[0]`), each as `scale·φ + offset` with `outside` beyond open faces;
    /// in the active region whose spans are at `region` (`None`: every cell), the traces
    /// reading the faces where `from_faces` (else the stored cell-centred velocity).
    #[allow(clippy::too_many_arguments)]
    fn advect_pair(
        &self,
        mac: bool,
        fields: u32,
        scale: [f32; 2],
        offset: [f32; 2],
        outside: [f32; 2],
        k_dt: f32,
        (lo, hi): ([u32; 3], [u32; 3]),
        (region, from_faces): (Option<u32>, bool),
    ) {
        let phases: &[u32] = if mac { &[1, 2] } else { &[0] };
        let f = &self.f;
        for &phase in phases {
            run(
                if from_faces {
                    &self.k.advect_cells_from_faces
                } else {
                    &self.k.advect_cells
                },
                self.dims(),
                self.cells(),
                uniform! {
                    CellVel: f.cell_vel_bound(),
                    Src0: &f.density,
                    Src1: &f.temperature,
                    Hat0: &f.q,
                    Hat1: &f.vel_tmp[0],
                    Dst0: &f.r,
                    Dst1: &f.p,
                    phase: phase,
                    fields: fields,
                    kt: k_dt,
                    scale: scale,
                    offset: offset,
                    outside: outside,
                    air_in_lo: lo,
                    air_in_hi: hi,
                    Solid: &self.solid_bits,
                    solids: self.solids_flag(),
                    Rows: &f.rows,
                    Active: &f.active,
                    region: u32::from(region.is_some()),
                    d_at: region.unwrap_or(0),
                    dense_from: crate::lists::dense_from(self.cells()),
                    FaceU: &f.vel[0],
                    FaceV: &f.vel[1],
                    FaceW: &f.vel[2],
                },
            );
        }
    }

    pub(crate) fn stage_combustion(&mut self, _: &mut StepStats) {
        let (Some(fu), Some(fl)) = (&self.f.fuel, &self.f.flame) else {
            return;
        };
        let p = &self.fire;
        let dt = self.sub_dt;
        let n = self.cells();
        run(
            &self.k.burn,
            self.dims(),
            n,
            uniform! {
                Density: &self.f.density,
                Temperature: &self.f.temperature,
                Fuel: fu,
                Flame: fl,
                Burned: &self.f.r,
                burned: 1.0 - (-p.burn_rate * dt).exp(),
                decay: (-p.flame_decay * dt).exp(),
                ignition: p.ignition,
                heat: p.heat,
                flame_per_fuel: p.flame,
                smoke: p.smoke,
            },
        );
        self.reduce(0, &self.f.r, n, false);
        self.book_burned(self.last_groups.get(), self.fire.smoke);
    }

    /// The smoke now (Σ density, its partial sums from 0 on, as `reduce_at(0, 0, density…)`
    /// gives them) and the smoke leaving through open faces in a sub-step of `k_dt` cells
    /// per unit velocity (Σ density, cell units; its partial sums after those), both in one
    /// dispatch: returns how many partial sums each has (`None` without open faces, and no
    /// dispatch). With a `book` its last work group keeps the books from both.
    pub(crate) fn outflow(&self, k_dt: f32, book: crate::ledger::Book) -> Option<u32> {
        if !self.boundaries.any_open() {
            return None;
        }
        let base2 = crate::kernels::reduce_groups(self.cells());
        let (lo, hi) = self.open_flags();
        let f = &self.f;
        let groups = crate::ledger::run_booked(
            &self.k.outflow,
            self.dims(),
            self.cells(),
            uniform! {
                U: &f.vel[0],
                V: &f.vel[1],
                W: &f.vel[2],
                Density: &f.density,
                PartialSum: &f.partial_sum,
                PartialMax: &f.partial_max,
                base: 0u32,
                base2: base2,
                open_lo: lo,
                open_hi: hi,
                kt: k_dt,
            },
            book,
            f,
        );
        debug_assert_eq!(groups, base2);
        Some(groups)
    }
}
