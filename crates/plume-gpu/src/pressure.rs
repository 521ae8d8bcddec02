//! The projection on the card: the right-hand side, conjugate gradients preconditioned with
//! a multigrid V-cycle (`multigrid.rs`; the diagonal, Jacobi, where its levels do not fit)
//! to the CPU's stopping rule (max|residual| ≤ tolerance·max|rhs|), and the gradient
//! subtracted from the faces. Each iteration finishes its dot products and decides whether
//! to stop on the card (`cg_scalars.comp`).

use glium::uniform;
use plume_core::sim::StepStats;

use crate::engine::Engine;
use crate::kernels::run;

impl Engine {
    pub(crate) fn stage_project(&mut self, stats: &mut StepStats) {
        let d = self.grid.dims;
        let n = d.cells();
        let (h, dt) = (self.grid.h, self.sub_dt);
        let f = &self.f;
        run(
            &self.k.divergence,
            self.dims(),
            n,
            uniform! { U: &f.vel[0], V: &f.vel[1], W: &f.vel[2], Rhs: &f.r, scale: -h / dt },
        );
        let closed = !self.boundaries.any_open();
        let solids = self.has_solids();
        if closed && !solids {
            self.remove_mean();
        }
        if let (true, Some(fu)) = (self.fire_active && self.fire.expansion > 0.0, &self.f.fuel) {
            // Gas expansion: ∇·u = expansion × (fuel burned per second) where it burns.
            run(
                &self.k.expansion,
                self.dims(),
                n,
                uniform! {
                    Fuel: fu,
                    Temperature: &self.f.temperature,
                    Rhs: &self.f.r,
                    k: h * h / dt * self.fire.expansion,
                    ignition: self.fire.ignition,
                    burn_rate: self.fire.burn_rate,
                },
            );
            if closed && !solids {
                self.remove_mean();
            }
        }
        if solids {
            // Solid cells have no equation; in a closed box the fluid cells' mean goes.
            self.fill_solid_cells(&self.f.r, 0.0);
            if closed {
                self.remove_mean();
            }
        }
        let f = &self.f;
        let bmax = self
            .reduce(0, &f.r, &f.r, n, true)
            .map_or(0.0, |r| r.max_abs());
        let (iterations, initial, relative) = if bmax > 0.0 && bmax.is_finite() {
            self.solve(bmax)
        } else {
            // Nothing to solve (or nothing finite to solve for): no pressure.
            self.fill(&self.f.pressure, n, 0.0);
            (0, 0.0, 0.0)
        };
        let (lo, hi) = self.open_flags();
        let f = &self.f;
        for a in 0..3 {
            run(
                &self.k.gradient,
                self.dims(),
                d.faces(a).cells(),
                uniform! {
                    Pressure: &f.pressure,
                    Face: &f.vel[a],
                    axis: a as u32,
                    k: dt / h,
                    open_ends: [lo[a], hi[a]],
                },
            );
        }
        self.set_solid_faces();
        // The divergence before and after, 1/s, from the right-hand side's scale −h/dt.
        let to_div = dt / (h * h);
        stats.pressure_iterations = iterations;
        stats.pressure_residual = relative;
        stats.pressure_initial_residual = initial;
        stats.divergence_before = bmax * to_div;
        stats.divergence_after = relative * bmax * to_div;
        self.vmax = Some(self.max_speed());
    }

    /// Takes the fluid cells' mean out of the right-hand side (a closed box: the singular
    /// Neumann problem is solvable once it is out; solid cells hold 0 and keep it).
    fn remove_mean(&self) {
        let n = self.cells();
        let f = &self.f;
        let fluid = n - self.obs.solids.as_ref().map_or(0, |s| s.host.cells.len());
        let sum = self.reduce(0, &f.r, &f.r, n, true).map_or(0.0, |r| r.sum);
        let mean = (sum / fluid.max(1) as f64) as f32;
        run(
            &self.k.add_constant,
            self.dims(),
            n,
            uniform! {
                Field: &f.r,
                add: -mean,
                mul: 1.0f32,
                fluid_only: 1u32,
                Solid: &self.solid_bits,
                solids: self.solids_flag(),
            },
        );
    }

    /// Solves A·p = rhs from the last pressure; returns the iterations, the starting guess's
    /// relative residual and the one reached. The iterations run in batches without waiting
    /// for the card: each decides there whether the residual is small enough (after that,
    /// the remaining iterations of its batch change nothing), and only the solve's figures
    /// are read back after a batch. The first batch is three quarters of what the last solve
    /// took, the next ones an eighth: a few read-backs a solve, and at most an eighth more
    /// iterations than needed (those change nothing). On a software renderer every batch is
    /// one iteration.
    fn solve(&mut self, bmax: f32) -> (u32, f32, f32) {
        let n = self.cells();
        let tol = self.params.pressure_tolerance;
        let max_it = self.caps().pressure;
        let (lo, hi) = self.open_flags();
        let f = &self.f;
        let dims = self.dims();
        let solids = self.solids_flag();
        let target = tol * bmax;
        let mg = self.mg.as_ref();
        let precond = u32::from(mg.is_some());
        // z = M·r: the V-cycle into q (then ρ = r·q), or the diagonal worked out inline
        // (ρ = Σ r²/diagonal).
        let rz = || match mg {
            Some(m) => {
                self.precondition(m);
                self.reduce(1, &f.r, &f.q, n, false);
            }
            None => {
                self.reduce(2, &f.r, &f.r, n, false);
            }
        };
        let laplace = |x: &crate::fields::Field, out: &crate::fields::Field, residual: u32| {
            run(
                &self.k.laplace,
                dims,
                n,
                uniform! {
                    X: x,
                    B: &f.r,
                    Out: out,
                    residual: residual,
                    open_lo: lo,
                    open_hi: hi,
                    Solid: &self.solid_bits,
                    solids: solids,
                },
            );
        };
        let scalars = |op: u32, groups: u32| {
            run(
                &self.k.cg_scalars,
                dims,
                1,
                uniform! {
                    PartialSum: &f.partial_sum,
                    PartialMax: &f.partial_max,
                    Scalars: &f.scalars,
                    op: op,
                    groups: groups,
                    target: target,
                },
            );
        };
        let step = |phase: u32| {
            run(
                &self.k.cg_step,
                dims,
                n,
                uniform! {
                    X: &f.pressure,
                    R: &f.r,
                    P: &f.p,
                    Q: &f.q,
                    Scalars: &f.scalars,
                    phase: phase,
                    precond: precond,
                    open_lo: lo,
                    open_hi: hi,
                    Solid: &self.solid_bits,
                    solids: solids,
                },
            );
        };
        // r = b − A·x (b is in r: each cell reads its own before writing it); ρ = r·z;
        // p = z.
        laplace(&f.pressure, &f.r, 1);
        let trace = std::env::var_os("PLUME_GPU_TRACE").is_some();
        if trace {
            let r0 = self
                .reduce(0, &f.r, &f.r, n, true)
                .map_or(f32::NAN, |r| r.max_abs());
            eprintln!("trace: solve: max|b| {bmax:e}, max|b - A·x| {r0:e}, target {target:e}");
        }
        rz();
        scalars(0, self.last_groups.get());
        step(1);
        if trace {
            let s = self.read_scalars();
            eprintln!(
                "trace: after op 0 (groups {}): scalars {s:?}",
                self.last_groups.get()
            );
        }
        let mut issued = 0u32;
        // A software renderer (llvmpipe) runs queued dispatches no faster than waited-for
        // ones (measured: batches took 1.5 times as long), so it reads after each iteration.
        let last = if self.software {
            4
        } else {
            self.last_pressure_iterations
        };
        let mut batch = (last * 3 / 4).clamp(1, max_it);
        let figures = loop {
            let read = self.read_scalars();
            if read[4] != 0.0 || issued >= max_it {
                break read;
            }
            for _ in 0..batch.min(max_it - issued) {
                // q = A·p; α = ρ / p·q; x += α·p; r −= α·q; ρ' = r·z; β = ρ'/ρ; p = z + β·p.
                laplace(&f.p, &f.q, 0);
                self.reduce(1, &f.p, &f.q, n, false);
                scalars(1, self.last_groups.get());
                step(0);
                rz();
                scalars(2, self.last_groups.get());
                step(1);
                issued += 1;
            }
            batch = (last / 8).max(1);
        };
        if std::env::var_os("PLUME_GPU_TRACE").is_some() {
            eprintln!("trace: solve done after {issued} issued: scalars {figures:?}");
        }
        let it = if figures[4] != 0.0 {
            figures[5]
        } else {
            figures[7]
        } as u32;
        self.last_pressure_iterations = it.max(1);
        (it, (figures[8] as f32) / bmax, (figures[6] as f32) / bmax)
    }

    /// The conjugate gradients' figures (see `cg_scalars.comp`).
    fn read_scalars(&self) -> [f64; 9] {
        self.count_small(9 * 8);
        let v = self.f.scalars.read().unwrap_or_default();
        let mut out = [0.0; 9];
        for (o, x) in out.iter_mut().zip(v) {
            *o = x;
        }
        out
    }
}
