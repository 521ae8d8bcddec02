//! The projection on the card: the right-hand side, conjugate gradients preconditioned with
//! a multigrid V-cycle (`multigrid.rs`; the diagonal, Jacobi, where its levels do not fit)
//! to the CPU's stopping rule (max|residual| ≤ tolerance·max|rhs|, checked after each
//! update, before the residual is preconditioned), and the gradient subtracted from the
//! faces. Each iteration finishes its dot products and decides whether to stop on the card
//! (`cg_figures.glsl`): in the last work group of the kernel before each figure
//! (`last_group.glsl`), or in a dispatch of one work group of its own (`cg_scalars.comp`).

use glium::uniform;
use plume_core::sim::StepStats;

use crate::engine::{Engine, Site};
use crate::fields::Bound;
use crate::kernels::{groups_of, run, ROW_CELLS};

/// A solve whose last took at most this many iterations issues that many before its first
/// read-back: a wait a solve where the count holds (the default scene's 2 a sub-step at 128³
/// and 256³, 3 or 4 at 512³), where three quarters of it waited twice. A solve that needs
/// fewer this time issues an iteration or so that only launches and returns.
const WHOLE_BATCH: u32 = 4;

impl Engine {
    pub(crate) fn stage_project(&mut self, stats: &mut StepStats) {
        let d = self.grid.dims;
        let n = d.cells();
        let (h, dt) = (self.grid.h, self.sub_dt);
        // The speed limit's stage, where it ran just before, is done here (see
        // `stage_speed_limit`).
        let limiting = u32::from(std::mem::take(&mut self.limit_pending));
        let limit = self.speed_limit();
        let closed = !self.boundaries.any_open();
        let solids = self.has_solids();
        let expanding = self.fire_active && self.fire.expansion > 0.0 && self.f.fuel.is_some();
        // Where nothing changes the right-hand side after this pass (an open domain, no
        // obstacles, no expansion), the pass works out the solve's starting residual too
        // (`divergence.comp`'s RESIDUAL): its work groups' maxima are the solve's start.
        let fused = self.folds.residual_in_divergence && !closed && !solids && !expanding;
        // Where the gradient's pass will leave the faces' maxima (`RegionState::faces_top`),
        // this pass also clears the scalars' region's figures for the advection after it.
        let keeps_faces = self.folds.faces_from_gradient && !solids;
        let (_, out_at) = self.region.maxima_at();
        let (lo, hi) = self.open_flags();
        // (and its last work group finishes the solve's start, op 0: `last_group.glsl`)
        let finish = fused && self.folds.scalars_in_last_group;
        let f = &self.f;
        // (in rows of four cells where the tuner or a setter says and the grid's cells along
        // x are a multiple of four; a cell an invocation elsewhere)
        let whole_rows = d.nx.is_multiple_of(ROW_CELLS as usize);
        let groups = self.tuned(Site::Divergence, true, |way| {
            let rows = way == 1 && whole_rows;
            let kernel = match (rows, fused) {
                (true, true) => &self.k.divergence_rows_residual,
                (true, false) => &self.k.divergence_rows,
                (false, true) => &self.k.divergence_residual,
                (false, false) => &self.k.divergence,
            };
            let items = if rows { n / ROW_CELLS as usize } else { n };
            let bound = |field| Bound { field, vec4: rows };
            run(
                kernel,
                self.dims(),
                items,
                uniform! {
                    U: &f.vel[0],
                    V: bound(&f.vel[1]),
                    W: bound(&f.vel[2]),
                    Rhs: bound(&f.r),
                    Counter: &f.counter,
                    Largest: &f.largest,
                    Active: &f.active,
                    X: bound(&f.pressure),
                    PartialMax: &f.partial_max,
                    Scalars: &f.scalars,
                    Done: &f.done,
                    finish: u32::from(finish),
                    tol: self.params.pressure_tolerance,
                    scale: -h / dt,
                    limiting: limiting,
                    limit: limit,
                    residual: u32::from(fused),
                    clear_region: u32::from(keeps_faces),
                    out_at: out_at,
                    open_lo: lo,
                    open_hi: hi,
                    // (the RESIDUAL variant's stencil: it runs only without obstacles)
                    Solid: &self.solid_bits,
                    solids: 0u32,
                },
            );
            // (the work groups whose partial maxima the RESIDUAL variant wrote)
            groups_of(items, kernel.wg)
        });
        let started = fused.then_some(Started {
            groups,
            finished: finish,
        });
        if closed && !solids {
            self.remove_mean();
        }
        if let (true, Some(fu)) = (expanding, &self.f.fuel) {
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
            // Solid cells have no equation; in a closed box the fluid cells' mean goes. Their
            // pressure is 0, as the CPU's (a cell a moving solid took keeps none).
            self.fill_solid_cells(&self.f.r, 0.0);
            self.fill_solid_cells(&self.f.pressure, 0.0);
            if closed {
                self.remove_mean();
            }
        }
        let (iterations, initial, relative, bmax) = self.solve(started);
        let (lo, hi) = self.open_flags();
        let f = &self.f;
        // (in rows of four cells only where the grid's rows are whole, as the divergence)
        self.tuned(Site::Gradient, true, |way| {
            let rows = way == crate::tune::ROWS_WAY && whole_rows;
            let (k, items) = match way {
                1 => (&self.k.gradient_wide, n),
                _ if rows => (&self.k.gradient_rows, n / ROW_CELLS as usize),
                _ => (&self.k.gradient, n),
            };
            let bound = |field| Bound { field, vec4: rows };
            run(
                k,
                self.dims(),
                items,
                uniform! {
                    Pressure: bound(&f.pressure),
                    U: &f.vel[0],
                    V: bound(&f.vel[1]),
                    W: bound(&f.vel[2]),
                    Active: &f.active,
                    k: dt / h,
                    open_lo: lo,
                    open_hi: hi,
                },
            )
        });
        self.set_solid_faces();
        // The divergence before and after, 1/s, from the right-hand side's scale −h/dt.
        let to_div = dt / (h * h);
        stats.pressure_iterations = iterations;
        stats.pressure_residual = relative;
        stats.pressure_initial_residual = initial;
        stats.divergence_before = bmax * to_div;
        stats.divergence_after = relative * bmax * to_div;
        // The largest speed changed: the gradient's pass left each axis' largest |face| and
        // the pressure's largest |value| on the card (but for obstacles, whose faces were set
        // after it), for the scalars' region, the next sub-step's length and the step's
        // finite check.
        self.faces_changed();
        self.region.faces_top = keeps_faces;
    }

    /// Takes the fluid cells' mean out of the right-hand side (a closed box: the singular
    /// Neumann problem is solvable once it is out; solid cells hold 0 and keep it).
    fn remove_mean(&self) {
        let n = self.cells();
        let f = &self.f;
        let fluid = n - self.obs.solids.as_ref().map_or(0, |s| s.host.cells.len());
        let sum = self.reduce(0, &f.r, n, true).map_or(0.0, |r| r.sum);
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

    /// Solves A·p = rhs (in `r`) from the last pressure; returns the iterations, the
    /// starting guess's relative residual, the one reached and max|rhs|. With `started`,
    /// `r` already holds the starting residual and the partial maxima of |rhs| and |r| are
    /// those of the divergence's pass, in that many work groups (`divergence.comp`'s
    /// RESIDUAL). Where max|rhs| is 0 or not finite there is nothing to solve and the
    /// pressure is 0. The CPU's order:
    /// the residual is checked after each update, before it is preconditioned, so a solve
    /// of k iterations runs k V-cycles (not k + 1). The iterations run in batches without
    /// waiting for the card: each decides there whether the residual is small enough (after
    /// that, the remaining iterations of its batch do nothing), and only the solve's figures
    /// are read back after a batch. The first batch is what the last solve took where that
    /// was at most [`WHOLE_BATCH`] iterations (one read-back a solve while the count holds),
    /// else three quarters of it; the next ones an eighth: a read-back or two a solve, and
    /// few iterations issued past the need (those do nothing but launch). On a software
    /// renderer every batch is one iteration.
    /// With `folds.scalars_in_last_group` the kernel before each of `cg_scalars.comp`'s ops
    /// finishes it in its last work group and that dispatch is not issued (`last_group.glsl`:
    /// the same figures); the closed domain's ops 3 and 4, and op 2 after a reduction, keep
    /// theirs.
    fn solve(&mut self, started: Option<Started>) -> (u32, f32, f32, f32) {
        let n = self.cells();
        let tol = self.params.pressure_tolerance;
        let max_it = self.caps().pressure;
        let (lo, hi) = self.open_flags();
        let f = &self.f;
        let dims = self.dims();
        let solids = self.solids_flag();
        let mg = self.mg.as_ref();
        let precond = u32::from(mg.is_some());
        let folded = self.folds.scalars_in_last_group;
        let finish = u32::from(folded);
        // z = M·r: the V-cycle into q (ρ = r·q: its partial sums from the last sweep), or
        // the diagonal worked out inline (ρ = Σ r²/diagonal). Returns whether the last sweep
        // finished op 2 (β) too.
        let rz = |timed: bool| match mg {
            Some(m) => {
                self.last_groups.set(self.precondition(m, folded, timed));
                folded
            }
            None => {
                self.reduce(2, &f.r, n, false);
                false
            }
        };
        // out = A·x (`residual` 0) or b − A·x (1); with `direction` (z, p') x is the last
        // direction and the pass works out and writes the new one, p' = z + β·p, as the
        // stencil reads it (`laplace.comp`'s DIRECTION variant; without it Z and PNew are
        // bound to arrays it does not declare). With `finish` its last work group finishes
        // op 1 (an iteration) or op 0 (the residual, from `fin_groups` partial maxima).
        // An iteration's pass goes in rows of four cells (`laplace_rows.comp`) where the
        // tuner (or a setter) says and the grid's cells along x are a multiple of four;
        // timed for the tuner where `timed`.
        let whole_rows = dims[0].is_multiple_of(ROW_CELLS);
        let laplace = |x: &crate::fields::Field,
                       out: &crate::fields::Field,
                       residual: u32,
                       direction: Option<(&crate::fields::Field, &crate::fields::Field)>,
                       fin_groups: u32,
                       timed: bool| {
            let (z, p_new) = direction.unwrap_or((x, out));
            let pass = |rows: bool| {
                let k = match (rows, direction.is_some(), residual == 1) {
                    (true, true, _) => &self.k.laplace_rows_direction,
                    (true, false, _) => &self.k.laplace_rows,
                    (false, true, _) => &self.k.laplace_direction,
                    (false, false, true) => &self.k.laplace_residual,
                    (false, false, false) => &self.k.laplace,
                };
                let bound = |field| Bound { field, vec4: rows };
                run(
                    k,
                    dims,
                    if rows { n / ROW_CELLS as usize } else { n },
                    uniform! {
                        X: bound(x),
                        B: &f.r,
                        Out: bound(out),
                        Z: bound(z),
                        PNew: bound(p_new),
                        Scalars: &f.scalars,
                        Largest: &f.largest,
                        PartialSum: &f.partial_sum,
                        PartialMax: &f.partial_max,
                        Done: &f.done,
                        finish: finish,
                        fin_groups: fin_groups,
                        tol: tol,
                        residual: residual,
                        direction: u32::from(direction.is_some()),
                        open_lo: lo,
                        open_hi: hi,
                        Solid: &self.solid_bits,
                        solids: solids,
                    },
                );
            };
            // (the residual, once a solve, a cell an invocation)
            if residual == 1 {
                pass(false);
            } else {
                self.tuned(Site::Laplace, timed, |way| pass(way == 1 && whole_rows));
            }
        };
        // With the V-cycle, an iteration's new search direction is worked out in the
        // Laplacian's pass (`laplace.comp`'s DIRECTION): the directions alternate between p
        // and the first of the spare face arrays (the stencil reads the last one while the
        // new one is written), and q goes to the second (z = M·r is in f.q). The spare
        // arrays hold nothing the step needs during the projection.
        let dirs = [&f.p, &f.vel_tmp[0]];
        let q_aside = &f.vel_tmp[1];
        let fluid = (n - self.obs.solids.as_ref().map_or(0, |s| s.host.cells.len())) as f32;
        // (op 6 reads no partial results and op 0 only max|rhs|'s: the residual's largest
        // |value| is merged into `largest` by the kernel that writes it)
        let scalars_from = |op: u32, groups: u32, residual_groups: u32| {
            run(
                &self.k.cg_scalars,
                dims,
                1,
                uniform! {
                    PartialSum: &f.partial_sum,
                    PartialMax: &f.partial_max,
                    Scalars: &f.scalars,
                    Largest: &f.largest,
                    op: op,
                    groups: groups,
                    residual_groups: residual_groups,
                    tol: tol,
                    fluid: fluid.max(1.0),
                },
            );
        };
        let scalars = |op: u32, groups: u32| scalars_from(op, groups, 0);
        // (timed for the tuner in a solve's first iteration only: a later one may find the
        // solve converged on the card and do nothing)
        let step = |phase: u32, p: &crate::fields::Field, q: &crate::fields::Field, timed| {
            self.tuned(Site::CgStep, timed, |way| {
                run(
                    [&self.k.cg_step, &self.k.cg_step_wide][way],
                    dims,
                    n,
                    uniform! {
                        X: &f.pressure,
                        R: &f.r,
                        P: p,
                        Q: q,
                        Scalars: &f.scalars,
                        Largest: &f.largest,
                        Done: &f.done,
                        finish: u32::from(phase == 0) * finish,
                        tol: tol,
                        phase: phase,
                        precond: precond,
                        open_lo: lo,
                        open_hi: hi,
                        Solid: &self.solid_bits,
                        solids: solids,
                    },
                )
            })
        };
        // In a closed domain z = M·r has no set mean and the solve would move the pressure's
        // by a constant each iteration: its Σ now, to put the mean back afterwards.
        let closed = !self.boundaries.any_open();
        if closed {
            self.reduce(0, &f.pressure, n, false);
            scalars(3, self.last_groups.get());
        }
        if let Some(s) = started {
            // (r = b − A·x and both maxima' partial results from the divergence's pass,
            // whose last work group may have finished op 0)
            if !s.finished {
                scalars_from(0, s.groups, s.groups);
            }
        } else {
            // max|rhs|'s partial results, for the stopping rule (op 0 keeps it on the card).
            self.reduce(0, &f.r, n, false);
            // r = b − A·x (b is in r: each cell reads its own before writing it; its largest
            // |value| merged where the divergence's pass set 0), checked.
            laplace(&f.pressure, &f.r, 1, None, self.last_groups.get(), false);
            if !folded {
                scalars(0, self.last_groups.get());
            }
        }
        let trace = plume_core::environment::value("PLUME_GPU_TRACE").is_some();
        if trace {
            eprintln!("trace: after op 0: scalars {:?}", self.read_scalars());
        }
        let mut issued = 0u32;
        // (the tuner's times of the first iteration are dropped where the card found
        // nothing to solve: its V-cycle and update then did nothing)
        let mark = self.tuner.mark();
        // A software renderer (llvmpipe) runs queued dispatches no faster than waited-for
        // ones (measured: batches took 1.5 times as long), so it reads after each iteration.
        let last = self.last_pressure_iterations;
        let mut batch = if self.software {
            1
        } else if last <= WHOLE_BATCH {
            last.clamp(1, max_it)
        } else {
            (last * 3 / 4).clamp(1, max_it)
        };
        let figures = loop {
            // (at least one iteration: its update sets x = 0 where there is nothing to solve)
            for _ in 0..batch.min(max_it - issued) {
                // z = M·r; ρ' = r·z; β = ρ'/ρ.
                if !rz(issued == 0) {
                    scalars(2, self.last_groups.get());
                }
                // p = z + β·p (p = z the first time); q = A·p (and p·q's partial sums, one a
                // work group); α = ρ / p·q; x += α·p; r −= α·q; the residual checked.
                let (p, q) = match mg {
                    Some(_) => {
                        // (the new direction inside the Laplacian's pass, into the other
                        // array of the two, q beside them: z is in f.q)
                        let (old, new) =
                            (dirs[issued as usize % 2], dirs[(issued as usize + 1) % 2]);
                        laplace(old, q_aside, 0, Some((&f.q, new)), 0, issued == 0);
                        (new, q_aside)
                    }
                    None => {
                        step(1, &f.p, &f.q, false);
                        laplace(&f.p, &f.q, 0, None, 0, issued == 0);
                        (&f.p, &f.q)
                    }
                };
                if !folded {
                    scalars(1, groups_of(n, self.k.laplace.wg));
                }
                step(0, p, q, issued == 0);
                if !folded {
                    scalars(6, 0);
                }
                issued += 1;
            }
            let read = self.read_scalars();
            if read[4] != 0.0 || issued >= max_it {
                break read;
            }
            batch = if self.software { 1 } else { (last / 8).max(1) };
        };
        if closed {
            self.reduce(0, &f.pressure, n, false);
            scalars(4, self.last_groups.get());
            step(2, &f.p, &f.q, false);
        }
        if trace {
            eprintln!("trace: solve done after {issued} issued: scalars {figures:?}");
        }
        let it = if figures[4] != 0.0 {
            figures[5]
        } else {
            figures[7]
        } as u32;
        self.last_pressure_iterations = it.max(1);
        if it == 0 {
            self.tuner
                .drop_since(mark, &[Site::VCycle, Site::CgStep, Site::Laplace]);
        }
        let bmax = f32::from_bits(figures[11] as u32);
        if !(bmax > 0.0 && bmax.is_finite()) {
            return (0, 0.0, 0.0, bmax);
        }
        (
            it,
            (figures[8] as f32) / bmax,
            (figures[6] as f32) / bmax,
            bmax,
        )
    }

    /// The conjugate gradients' figures (see `cg_scalars.comp`).
    fn read_scalars(&self) -> [f64; 12] {
        self.count_small(12 * 8);
        let v = self.f.scalars.read().unwrap_or_default();
        let mut out = [0.0; 12];
        for (o, x) in out.iter_mut().zip(v) {
            *o = x;
        }
        out
    }
}

/// How the divergence's pass (its RESIDUAL variant) started the solve: the work groups
/// whose partial maxima it wrote, and whether its last one finished op 0 itself.
#[derive(Clone, Copy)]
struct Started {
    groups: u32,
    finished: bool,
}
