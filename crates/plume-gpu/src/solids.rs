//! Obstacles on the card. Which cells are solid, which faces touch them and how the
//! extrapolations into them run are worked out on the CPU by plume-core's `Solids` (the
//! same cells and faces the CPU solver uses; for moving obstacles once a sub-step) and
//! uploaded as lists; the kernels apply them: solid cells filled, solid faces set to the
//! solid's velocity, the flow's values carried into the solids for the traces to read,
//! traces stopped at solid cells, and the pressure equation only in the fluid.

use glium::buffer::{Buffer, BufferMode, BufferType};
use glium::uniform;
use plume_core::geometry::Pose;
use plume_core::sim::body::Body;
use plume_core::sim::obstacles::{Average, Solids};
use plume_core::sim::{Obstacle, SimError, Solver, StepStats};

use crate::engine::Engine;
use crate::fields::Field;
use crate::kernels::run;
use crate::lists::{Averages, GpuSolids};

fn upload_u32(e: &Engine, v: &[u32]) -> Result<Buffer<[u32]>, String> {
    Buffer::new(
        &e.ctx,
        v,
        BufferType::ShaderStorageBuffer,
        BufferMode::Default,
    )
    .map_err(|x| format!("uploading obstacles: {x:?}"))
}

fn averages(e: &Engine, list: &[Average]) -> Result<Option<Averages>, String> {
    if list.is_empty() {
        return Ok(None);
    }
    let flat: Vec<u32> = list.iter().flatten().copied().collect();
    Ok(Some(Averages {
        entries: upload_u32(e, &flat)?,
        len: list.len(),
    }))
}

impl Engine {
    /// Whether any obstacle is in the grid.
    pub fn has_solids(&self) -> bool {
        self.obs.solids.is_some()
    }

    /// Whether an obstacle moves (the `obstacles` stage then runs).
    pub fn obstacles_move(&self) -> bool {
        self.obs.bodies.iter().any(Body::moves)
    }

    /// Puts `host` on the card (its lists and the one-bit-a-cell mask).
    fn install(&mut self, host: Solids) -> Result<(), String> {
        if host.is_empty() {
            self.obs.solids = None;
            self.solid_bits = upload_u32(self, &[0])?;
            self.rebuild_multigrid(None);
            return Ok(());
        }
        self.rebuild_multigrid(Some(&host.mask));
        let d = self.grid.dims;
        let mut bits = vec![0u32; d.cells().div_ceil(32)];
        for &c in &host.cells {
            bits[c as usize >> 5] |= 1 << (c & 31);
        }
        self.solid_bits = upload_u32(self, &bits)?;
        let cells: Vec<(u32, f32)> = host.cells.iter().map(|&c| (c, 0.0)).collect();
        let faces = [0, 1, 2].map(|a| {
            let v = &host.face_vel[a];
            host.faces[a]
                .iter()
                .enumerate()
                .map(|(i, &f)| (f, v.get(i).copied().unwrap_or(0.0)))
                .collect::<Vec<_>>()
        });
        let cover = plume_core::sim::cover::Cover { cells, faces };
        let up = self.upload(&cover)?;
        let [c, fu, fv, fw] = up.0;
        let border = averages(self, &host.border_averages(d))?;
        let layers = host.face_averages(d, 2);
        let mut face_layers: [Vec<Averages>; 3] = Default::default();
        for (a, ls) in layers.iter().enumerate() {
            for l in ls {
                if let Some(x) = averages(self, l)? {
                    face_layers[a].push(x);
                }
            }
        }
        self.obs.solids = Some(GpuSolids {
            host,
            cells: c,
            faces: [fu, fv, fw],
            border,
            face_layers,
        });
        Ok(())
    }

    /// Replaces the obstacles (as the CPU's `Solver::set_obstacles`): the smoke inside the
    /// new solids is cleared, the flow goes on around them.
    pub fn set_obstacles(&mut self, os: Vec<Obstacle>) -> Result<(), SimError> {
        // (the active region's cut-offs start again, as the CPU's)
        self.region.forget();
        let bodies = Solver::resolve_bodies(&os, self.grid.h)?;
        let host = Solids::build(&self.grid, &bodies, self.time, f64::from(self.params.dt));
        self.install(host).map_err(SimError::InvalidParameter)?;
        self.obs.list = os;
        self.obs.bodies = bodies;
        self.obs.key = None;
        let n = self.cells();
        self.fill_solid_cells(&self.f.density, 0.0);
        self.fill_solid_cells(&self.f.temperature, self.params.ambient_temperature);
        self.fill_solid_cells(&self.f.pressure, 0.0);
        for which in 0..2 {
            if let Some(f) = self.fire_field(which) {
                self.fill_solid_cells(f, 0.0);
            }
        }
        let _ = n;
        self.enforce_boundaries();
        Ok(())
    }

    /// Rebuilds moving solids at time 0 (after a reset).
    pub fn restart_obstacles(&mut self) {
        if self.obstacles_move() {
            let host = Solids::build(&self.grid, &self.obs.bodies, 0.0, f64::from(self.params.dt));
            if self.install(host).is_ok() {
                self.obs.key = None;
                self.fill_solid_cells(&self.f.temperature, self.params.ambient_temperature);
            }
        }
    }

    /// Sets every solid cell of `field` to `value`.
    pub fn fill_solid_cells(&self, field: &Field, value: f32) {
        if let Some(s) = &self.obs.solids {
            self.apply(&s.cells, field, 3, value);
        }
    }

    /// Sets the faces touching solids to the solid's velocity (0 at rest).
    pub fn set_solid_faces(&self) {
        if let Some(s) = &self.obs.solids {
            for a in 0..3 {
                self.apply(&s.faces[a], &self.f.vel[a], 4, 0.0);
            }
        }
    }

    /// Carries the flow's face velocities two layers into the solids (for the traces).
    pub fn extrapolate_faces(&self) {
        let Some(s) = &self.obs.solids else { return };
        for a in 0..3 {
            for l in &s.face_layers[a] {
                self.run_averages(l, &self.f.vel[a]);
            }
        }
    }

    /// Carries a cell field into the solid cells that border the fluid.
    pub fn extrapolate_cells(&self, field: &Field) {
        if let Some(b) = self.obs.solids.as_ref().and_then(|s| s.border.as_ref()) {
            self.run_averages(b, field);
        }
    }

    fn run_averages(&self, l: &Averages, field: &Field) {
        run(
            &self.k.average,
            self.dims(),
            l.len,
            uniform! { Entries: &l.entries, Field: field },
        );
    }

    /// The `obstacles` stage (as the CPU's `stage_obstacles`): moving solids rebuilt for this
    /// sub-step; the smoke in cells they newly cover is taken out and given back through the
    /// mass correction.
    pub(crate) fn stage_obstacles(&mut self, stats: &mut StepStats) {
        let dt = f64::from(self.sub_dt);
        let key: Vec<(Pose, Pose)> = self
            .obs
            .bodies
            .iter()
            .map(|b| (b.pose_at(self.time), b.pose_at(self.time + dt)))
            .collect();
        let still = key.iter().all(|(a, b)| a == b);
        if still && self.obs.key.as_ref() == Some(&key) {
            return;
        }
        let new = Solids::build(&self.grid, &self.obs.bodies, self.time, dt);
        let newly: Vec<u32> = {
            let old = self.obs.solids.as_ref().map(|s| &s.host);
            new.cells
                .iter()
                .copied()
                .filter(|&c| !old.is_some_and(|o| o.is_solid(c as usize)))
                .collect()
        };
        let covered = self.sum_at(&self.f.density, &newly);
        stats.swept += covered * f64::from(self.grid.h).powi(3);
        self.obs.swept += covered;
        if self.install(new).is_err() {
            return;
        }
        self.obs.key = Some(key);
        self.fill_solid_cells(&self.f.density, 0.0);
        for which in 0..2 {
            if let Some(f) = self.fire_field(which) {
                self.fill_solid_cells(f, 0.0);
            }
        }
        self.fill_solid_cells(&self.f.temperature, self.params.ambient_temperature);
        self.fill_solid_cells(&self.f.pressure, 0.0);
        self.enforce_boundaries();
    }

    /// Σ of `field` at the listed cells.
    fn sum_at(&self, field: &Field, cells: &[u32]) -> f64 {
        if cells.is_empty() {
            return 0.0;
        }
        let Ok(index) = upload_u32(self, cells) else {
            return 0.0;
        };
        // The gathered values go into a scratch field idle at this point of the sub-step.
        run(
            &self.k.gather,
            self.dims(),
            cells.len(),
            uniform! { Index: &index, Field: field, Out: &self.f.r },
        );
        self.reduce(0, &self.f.r, cells.len(), true)
            .map_or(0.0, |r| r.sum)
    }
}
