//! Viscosity and density diffusion on the card: implicit solves by red-black Gauss-Seidel
//! (`diffuse.comp`), the CPU's `diffuse` solvers colour for colour, to the same relative
//! residual and iteration cap; the residual's largest value comes back after each sweep.

use glium::uniform;
use plume_core::sim::StepStats;

use crate::engine::Engine;
use crate::fields::Field;
use crate::kernels::run;

/// What one solve works on.
struct Solve<'a> {
    x: &'a Field,
    rhs: &'a Field,
    /// 0–2: that velocity component's faces; 3: cells.
    axis: u32,
    /// Its samples along x, y, z.
    adims: [u32; 3],
    a: f32,
}

impl Engine {
    pub(crate) fn stage_viscosity(&mut self, stats: &mut StepStats) {
        let d = self.grid.dims;
        let a = plume_core::sim::diffuse::coupling(self.params.viscosity, self.sub_dt, self.grid.h);
        for axis in 0..3 {
            let fd = d.faces(axis);
            let s = Solve {
                x: &self.f.vel[axis],
                rhs: &self.f.vel_tmp[axis],
                axis: axis as u32,
                adims: [fd.nx as u32, fd.ny as u32, fd.nz as u32],
                a,
            };
            stats.viscosity_iterations += self.diffuse(&s);
        }
        self.enforce_boundaries();
    }

    pub(crate) fn stage_diffuse_density(&mut self, stats: &mut StepStats) {
        let a = plume_core::sim::diffuse::coupling(self.params.diffusion, self.sub_dt, self.grid.h);
        let s = Solve {
            x: &self.f.density,
            rhs: &self.f.r,
            axis: 3,
            adims: self.dims(),
            a,
        };
        stats.diffusion_iterations = self.diffuse(&s);
        self.fill_solid_cells(&self.f.density, 0.0);
    }

    /// One implicit solve; returns its iterations.
    fn diffuse(&self, s: &Solve<'_>) -> u32 {
        let b = &self.boundaries;
        let masked: u32 = match (self.has_solids(), s.axis) {
            (false, _) => 0,
            (true, 3) => 1,
            (true, _) => 2,
        };
        let (fixed, speed) = if s.axis < 3 {
            let ax = s.axis as usize;
            (
                [0, 1].map(|side| u32::from(b.face(ax, side).is_fixed())),
                [0, 1].map(|side| b.normal_velocity(ax, side).unwrap_or(0.0)),
            )
        } else {
            ([0, 0], [0.0, 0.0])
        };
        let inv: [f32; 7] = std::array::from_fn(|n| {
            let d = 1.0 + s.a * n as f32;
            if d > 0.0 {
                1.0 / d
            } else {
                0.0
            }
        });
        let items = s.adims.iter().map(|&x| x as usize).product::<usize>();
        // The |residual| goes into the cell velocity's buffer, idle here (its 3 or 4
        // floats a cell hold any face array, at most 2 a cell).
        let out = &self.f.cell_vel;
        let pass = |phase: u32, color: u32| {
            run(
                &self.k.diffuse,
                self.dims(),
                items,
                uniform! {
                    X: s.x,
                    Rhs: s.rhs,
                    Out: out,
                    adims: s.adims,
                    axis: s.axis,
                    masked: masked,
                    fixed_ends: fixed,
                    end_speed: speed,
                    a: s.a,
                    omega: 1.0f32,
                    inv_lo: [inv[0], inv[1], inv[2], inv[3]],
                    inv_hi: [inv[4], inv[5], inv[6]],
                    phase: phase,
                    color: color,
                    Solid: &self.solid_bits,
                    solids: self.solids_flag(),
                },
            );
        };
        let largest = |phase: u32| {
            pass(phase, 0);
            self.reduce(0, out, items, true)
                .map_or(0.0, |r| r.max_abs())
        };
        pass(0, 0);
        let bnorm = largest(3);
        if bnorm == 0.0 || s.a == 0.0 {
            if masked == 0 && largest(2) > 0.0 {
                // The solution of A·x = 0 is x = 0.
                run(
                    &self.k.add_constant,
                    self.dims(),
                    items,
                    uniform! {
                        Field: s.x,
                        add: 0.0f32,
                        mul: 0.0f32,
                        fluid_only: 0u32,
                        Solid: &self.solid_bits,
                        solids: 0u32,
                    },
                );
            }
            return 0;
        }
        let tol = self.params.diffusion_tolerance;
        let max_it = self.caps().diffusion;
        let mut res = largest(2);
        let mut it = 0;
        while res > tol * bnorm && it < max_it {
            pass(1, 0);
            pass(1, 1);
            it += 1;
            res = largest(2);
        }
        it
    }
}
