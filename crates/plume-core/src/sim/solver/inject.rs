//! What emitters and the user add: smoke, heat and velocity splatted onto the grid.

use super::*;
use crate::sim::cover::{covered_by, splat_range};

impl Solver {
    /// Adds `amount` to the density of one cell (negative removes smoke, never below 0).
    pub fn add_density(&mut self, cell: [usize; 3], amount: f32) -> Result<(), SimError> {
        check_amount(amount)?;
        self.scalar_maxima = [None; 4];
        let d = self.grid.dims;
        let [i, j, k] = cell;
        if i >= d.nx || j >= d.ny || k >= d.nz {
            return Err(SimError::InvalidParameter(format!(
                "cell {cell:?} is outside the {d} grid"
            )));
        }
        let c = d.idx(i, j, k);
        if !self.solids.is_solid(c) {
            self.density[c] = (self.density[c] + amount).max(0.0);
        }
        Ok(())
    }

    /// Adds `amount` of density to every cell within `radius` of the world position `center`
    /// (weighted by how much of the cell the sphere covers).
    pub fn add_density_at(
        &mut self,
        center: [f32; 3],
        radius: f32,
        amount: f32,
    ) -> Result<(), SimError> {
        check_amount(amount)?;
        check_sphere(center, radius)?;
        let shape = self.index_shape(&Shape::Sphere { center, radius });
        let d = self.grid.dims;
        splat(&mut self.density, d, CENTER, &shape, |e, c| {
            *e = (*e + c * amount).max(0.0)
        });
        self.solids.fill_cells(&mut self.density, 0.0);
        Ok(())
    }

    /// Adds a velocity (domain-units/s) to the faces around cell (i, j, k).
    pub fn add_velocity(&mut self, cell: [usize; 3], vel: [f32; 3]) -> Result<(), SimError> {
        self.scan = None;
        let d = self.grid.dims;
        let [i, j, k] = cell;
        if i >= d.nx || j >= d.ny || k >= d.nz {
            return Err(SimError::InvalidParameter(format!(
                "cell {cell:?} is outside the {d} grid"
            )));
        }
        check_velocity(vel)?;
        let c = self.grid.cell_center(i, j, k);
        self.add_velocity_at(c, 0.5 * self.grid.h, vel)
    }

    /// Adds a velocity (domain-units/s) to every face within `radius` of `center`, weighted by
    /// coverage.
    pub fn add_velocity_at(
        &mut self,
        center: [f32; 3],
        radius: f32,
        vel: [f32; 3],
    ) -> Result<(), SimError> {
        check_velocity(vel)?;
        check_sphere(center, radius)?;
        let shape = self.index_shape(&Shape::Sphere { center, radius });
        let g = self.grid;
        for (a, f) in self.vel.iter_mut().enumerate() {
            let va = vel[a];
            splat(
                f,
                g.dims.faces(a),
                advect::face_stagger(a),
                &shape,
                |e, c| *e += c * va,
            );
        }
        self.enforce_boundaries();
        Ok(())
    }

    /// Applies every emitter that is on at the current time: adds density, blends the
    /// temperature and velocity of the covered cells/faces towards the emitter's.
    pub(super) fn apply_emitters(&mut self) {
        let g = self.grid;
        let dt = self.sub_dt;
        let t = self.time;
        let lim = self.speed_limit();
        if self.emitters.iter().any(|e| e.burns() && e.active_at(t)) {
            self.activate_fire();
        }
        for (e, body) in self.emitters.iter().zip(&self.emitter_bodies) {
            if !e.active_at(t) {
                continue;
            }
            if let Some(b) = body {
                let pose = b.pose_at(t);
                let covered = |fd: Dims, st: [f32; 3]| covered_by(&g, fd, st, b, &pose);
                let blend =
                    |field: &mut [f32], fd: Dims, st, f: &(dyn Fn(&mut f32, f32) + Sync)| {
                        for (i, c) in covered(fd, st) {
                            f(&mut field[i], c);
                        }
                    };
                if e.density > 0.0 {
                    let add = e.density * dt;
                    blend(&mut self.density, g.dims, CENTER, &|v, c| *v += c * add);
                }
                for (rate, field) in [(e.fuel, &mut self.fuel), (e.flame, &mut self.flame)] {
                    let add = rate * dt;
                    if add > 0.0 {
                        blend(field, g.dims, CENTER, &|v, c| *v += c * add);
                    }
                }
                if let Some(te) = e.temperature {
                    self.temperature_active = true;
                    blend(&mut self.temperature, g.dims, CENTER, &|v, c| {
                        *v += c * (te - *v)
                    });
                }
                if let Some(ev) = e.velocity {
                    for (a, f) in self.vel.iter_mut().enumerate() {
                        let target = ev[a].clamp(-lim, lim);
                        let st = advect::face_stagger(a);
                        blend(f, g.dims.faces(a), st, &|v, c| *v += c * (target - *v));
                    }
                }
                continue;
            }
            let Ok(world) = e.shape() else { continue };
            let shape = index_shape(&g, &world);
            let add = e.density * dt;
            if add > 0.0 {
                splat(&mut self.density, g.dims, CENTER, &shape, |v, c| {
                    *v += c * add
                });
            }
            for (rate, field) in [(e.fuel, &mut self.fuel), (e.flame, &mut self.flame)] {
                let add = rate * dt;
                if add > 0.0 {
                    splat(field, g.dims, CENTER, &shape, |v, c| *v += c * add);
                }
            }
            if let Some(te) = e.temperature {
                self.temperature_active = true;
                splat(&mut self.temperature, g.dims, CENTER, &shape, |v, c| {
                    *v += c * (te - *v)
                });
            }
            if let Some(ev) = e.velocity {
                for (a, f) in self.vel.iter_mut().enumerate() {
                    // Within the speed limit: faster would only be cut back after the
                    // velocity's advection, whose traces it would make span the grid.
                    let target = ev[a].clamp(-lim, lim);
                    splat(
                        f,
                        g.dims.faces(a),
                        advect::face_stagger(a),
                        &shape,
                        |v, c| *v += c * (target - *v),
                    );
                }
            }
        }
        if !self.solids.is_empty() {
            self.solids.fill_cells(&mut self.density, 0.0);
            self.solids
                .fill_cells(&mut self.temperature, self.params.ambient_temperature);
            self.solids.fill_cells(&mut self.fuel, 0.0);
            self.solids.fill_cells(&mut self.flame, 0.0);
        }
        self.enforce_boundaries();
    }

    /// An emitter's body when it is more than a plain sphere or box (turned, scaled, moving,
    /// a mesh, or emitting from its surface), prepared for this grid.
    pub(super) fn emitter_body(&self, e: &Emitter) -> Result<Option<Body>, SimError> {
        crate::sim::cover::emitter_body(&self.grid, e)
    }

    pub(super) fn index_shape(&self, s: &Shape) -> Shape {
        index_shape(&self.grid, s)
    }
}

pub(super) use crate::sim::cover::index_shape;

pub(crate) fn check_amount(a: f32) -> Result<(), SimError> {
    if a.is_finite() && a.abs() <= 1e6 {
        Ok(())
    } else {
        Err(SimError::InvalidParameter(format!(
            "density amount {a} must be finite and within ±1000000"
        )))
    }
}

pub(crate) fn check_velocity(v: [f32; 3]) -> Result<(), SimError> {
    if v.iter().all(|c| c.is_finite() && c.abs() <= 1e4) {
        Ok(())
    } else {
        Err(SimError::InvalidParameter(format!(
            "velocity {v:?} must be finite with components within ±10000"
        )))
    }
}

pub(crate) fn check_sphere(c: [f32; 3], r: f32) -> Result<(), SimError> {
    if c.iter().all(|x| x.is_finite() && x.abs() <= 1e6) && r.is_finite() && r > 0.0 && r <= 10.0 {
        Ok(())
    } else {
        Err(SimError::InvalidParameter(format!(
            "sphere at {c:?} with radius {r} must be finite with radius in (0, 10]"
        )))
    }
}

/// Calls `f(value, coverage)` for every sample of a field (dimensions `fd`, stagger `st`)
/// that a shape given in cell-index space covers. Parallel over z-planes.
pub(super) fn splat(
    field: &mut [f32],
    fd: Dims,
    st: [f32; 3],
    shape: &Shape,
    f: impl Fn(&mut f32, f32) + Sync,
) {
    let Some([(i0, i1), (j0, j1), (k0, k1)]) = splat_range(fd, st, shape) else {
        return;
    };
    let plane = fd.nx * fd.ny;
    field[k0 * plane..k1 * plane]
        .par_chunks_mut(plane)
        .enumerate()
        .for_each(|(dk, pl)| {
            let z = (k0 + dk) as f32 + st[2];
            for j in j0..j1 {
                let y = j as f32 + st[1];
                for i in i0..i1 {
                    let c = shape.coverage([i as f32 + st[0], y, z], 1.0);
                    if c > 0.0 {
                        f(&mut pl[i + fd.nx * j], c);
                    }
                }
            }
        });
}
