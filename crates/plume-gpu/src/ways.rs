//! How the GPU backend does a piece of work: the setters that fix a way of doing it (the
//! tuner's sites, the V-cycle's ways, the folds of one pass into another), each giving the
//! same results as the others, and the counts that show which ran.

use crate::{cost, kernels, tune, GpuSolver};

impl GpuSolver {
    /// Runs the pressure solve's iterations in batches between read-backs (`true`, the
    /// default on hardware renderers) or reads back after each (the default on software
    /// ones, where batches are slower). Either way the card decides when the solve has
    /// converged, so the results are the same.
    pub fn set_batched_solve(&mut self, on: bool) {
        self.call(move |e| e.software = !on);
    }

    /// Works the V-cycle's coarse levels of at most `cells` cells in one dispatch of one
    /// work group (0: none), instead of the renderer's default (1024 on a hardware one, none
    /// on a software one; `PLUME_GPU_FUSE_CELLS`). The same results either way.
    pub fn set_fused_cells(&mut self, cells: u32) {
        self.call(move |e| {
            e.fused_cells = cells;
            e.fix_v_cycle();
        });
    }

    /// How many V-cycles the pressure solves have issued so far (each batch's iterations
    /// issue one each, also past convergence, where they do nothing; iteration by
    /// iteration, see [`GpuSolver::set_batched_solve`], as many as the solves' iterations).
    pub fn v_cycles_issued(&self) -> u64 {
        self.call(|e| e.v_cycles.get())
    }

    /// How many dispatches of the V-cycle's coarsest sweeps or fused cycle have worked
    /// their levels in shared memory so far (see [`GpuSolver::set_levels_in_shared`]).
    pub fn shared_level_dispatches(&self) -> u64 {
        self.call(|e| e.shared_levels.get())
    }

    /// Runs the smoother's sweeps by tiles (`smooth.comp`: three sweeps in one pass, two in
    /// another, a third of the passes over each level) or one pass a sweep, instead of the
    /// default (the tuner's pick where it times; else by tiles on a software renderer and a
    /// pass a sweep on a card; `PLUME_GPU_TILED_SMOOTH` 0 or 1 fixes it). The same results
    /// either way.
    pub fn set_tiled_smoothing(&mut self, on: bool) {
        self.call(move |e| {
            e.tiled_smoothing = on;
            e.fix_v_cycle();
        });
    }

    /// Runs the V-cycle's passes a sweep (`mg.comp`'s ops 0 to 2 and 8, where the smoother does
    /// not go by tiles) four cells an invocation (`kernels::WIDE_CELLS`) or one,
    /// instead of the tuner's pick (`PLUME_GPU_CELLS_PER_INVOCATION` fixes it with the other
    /// kernels that can take several). The same results either way.
    pub fn set_wide_sweeps(&mut self, on: bool) {
        self.call(move |e| {
            e.sweep_cells = if on { kernels::WIDE_CELLS } else { 1 };
            e.fix_v_cycle();
        });
    }

    /// Runs the V-cycle's passes a sweep and its prolongation (where the smoother does not
    /// go by tiles) in rows of four cells an invocation, loaded and stored as `vec4`s
    /// (`mg_rows.comp`, on the levels whose cells along x are a multiple of four; one cell
    /// an invocation on the others), or as [`GpuSolver::set_wide_sweeps`] says, instead of
    /// the tuner's pick (`PLUME_GPU_SWEEP_ROWS` 0 or 1 fixes it). The same results either
    /// way.
    pub fn set_sweep_rows(&mut self, on: bool) {
        self.call(move |e| {
            e.sweep_rows = on;
            e.fix_v_cycle();
        });
    }

    /// Works out an iteration's A·p (and the new direction) in rows of four cells an
    /// invocation, loaded and stored as `vec4`s (`laplace_rows.comp`, where the grid's cells
    /// along x are a multiple of four; one cell an invocation elsewhere), or a cell an
    /// invocation, instead of the tuner's pick (`PLUME_GPU_LAPLACE_ROWS` 0 or 1 fixes it).
    /// The same results either way.
    pub fn set_laplace_rows(&mut self, on: bool) {
        self.call(move |e| e.tuner.fix(tune::Site::Laplace, usize::from(on)));
    }

    /// Subtracts the pressure gradient in rows of four cells an invocation, loaded and
    /// stored as `vec4`s (`gradient_rows.comp`, where the grid's cells along x are a
    /// multiple of four; one cell an invocation elsewhere), or a cell an invocation, instead
    /// of the tuner's pick (`PLUME_GPU_GRADIENT_ROWS` 0 or 1 fixes it). The same results
    /// either way.
    pub fn set_gradient_rows(&mut self, on: bool) {
        let way = if on { tune::ROWS_WAY } else { 0 };
        self.call(move |e| e.tuner.fix(tune::Site::Gradient, way));
    }

    /// Works out the projection's right-hand side (with the solve's starting residual where
    /// it goes in the same pass) in rows of four cells an invocation, the y and z faces, the
    /// warm start and the result loaded and stored as `vec4`s (`divergence_rows.comp`,
    /// where the grid's cells along x are a multiple of four; one cell an invocation
    /// elsewhere), or a cell an invocation, instead of the tuner's pick
    /// (`PLUME_GPU_DIVERGENCE_ROWS` 0 or 1 fixes it). The same results either way.
    pub fn set_divergence_rows(&mut self, on: bool) {
        self.call(move |e| e.tuner.fix(tune::Site::Divergence, usize::from(on)));
    }

    /// Works the V-cycle's first two sweeps in one pass where it goes a pass a sweep
    /// (`mg.comp`'s op 8), or in two (`PLUME_GPU_FIRST_SWEEPS_TOGETHER` sets the default,
    /// one). The same results either way.
    pub fn set_first_sweeps_together(&mut self, on: bool) {
        self.call(move |e| e.folds.first_sweeps_together = on);
    }

    /// Works the V-cycle's coarsest sweeps and fused cycle (`mg.comp`'s ops 6 and 7) with
    /// their levels in the work group's shared memory where they fit, or in the buffer
    /// (`PLUME_GPU_SHARED_LEVELS` sets the default, shared memory). The same results
    /// either way.
    pub fn set_levels_in_shared(&mut self, on: bool) {
        self.call(move |e| e.folds.levels_in_shared = on);
    }

    /// Works out the vorticity's curl and confinement in one pass by tiles
    /// (`vorticity.comp`: ω kept in shared memory, the faces read once and written once) or
    /// in two (the curl's four fields stored, then the confinement), instead of the default
    /// (on a card two passes, untimed; on a software renderer the tuner's pick, tiles where
    /// it does not time; `PLUME_GPU_TILED_VORTICITY` 0 or 1 fixes it). The same results
    /// either way on Mesa; NVIDIA's driver rounds the two differently.
    pub fn set_tiled_vorticity(&mut self, on: bool) {
        self.call(move |e| e.tuner.fix(tune::Site::Vorticity, usize::from(!on)));
    }

    /// Works out the pressure solve's starting residual in the divergence's pass where
    /// nothing changes the right-hand side between them (an open domain, no obstacles, no
    /// gas expansion: `divergence.comp`'s RESIDUAL, two dispatches fewer), or always in a
    /// pass of its own after a reduction of the right-hand side. The same results either
    /// way (the default: in the divergence's pass).
    pub fn set_residual_in_divergence(&mut self, on: bool) {
        self.call(move |e| e.folds.residual_in_divergence = on);
    }

    /// Takes each axis' largest |face velocity| from the projection's gradient pass, where
    /// nothing has changed the faces since (the scalars' region reads no faces, the next
    /// sub-step's length no reduction of them), or always from the faces. The same results
    /// either way (the default: from the gradient's pass).
    pub fn set_faces_from_gradient(&mut self, on: bool) {
        self.call(move |e| e.folds.faces_from_gradient = on);
    }

    /// Adds the forces' smoke weight and buoyancy in the velocity's advection as it writes
    /// the faces, in a step where no obstacle's faces are set between the two stages (the
    /// forces' stage then runs no pass), or always in the forces' own pass. The same results
    /// either way (the default: in the advection).
    pub fn set_buoyancy_in_advection(&mut self, on: bool) {
        self.call(move |e| e.folds.buoyancy_in_advection = on);
    }

    /// Finishes the pressure solve's figures (its dot products, α, β, the stopping rule) in
    /// the last work group of the kernel before each, or in a dispatch of one work group of
    /// their own. The same results either way (the default: in the last work group, unless
    /// `PLUME_GPU_LAST_GROUP=0`, which compiles the kernels without that code: then they
    /// stay in dispatches of their own, whatever `on` says).
    pub fn set_scalars_in_last_group(&mut self, on: bool) {
        let on = on && kernels::finish_in_last_group();
        self.call(move |e| e.folds.scalars_in_last_group = on);
    }

    /// Cells an invocation of the kernels that can take several (the conjugate gradients'
    /// updates, the pressure gradient's subtraction, the cell-centred velocity, the
    /// velocity's advection a face an invocation): 1, or 4
    /// (`kernels::WIDE_CELLS`), each a whole dispatch's invocations past the last and all
    /// loaded before the first is stored; any other count is taken as 1. The same results
    /// either way (the default: the tuner's pick for each kernel, one cell where it does not
    /// time, unless `PLUME_GPU_CELLS_PER_INVOCATION` is 1 or 4; see
    /// [`GpuSolver::set_tuning`]).
    pub fn set_cells_per_invocation(&mut self, cells: u32) {
        let way = usize::from(cells == kernels::WIDE_CELLS);
        self.call(move |e| {
            for site in tune::CELL_SITES {
                e.tuner.fix(site, way);
            }
        });
    }

    /// Times the ways of doing a piece of work that give the same bits (above: the cells an
    /// invocation of four kernels, the vorticity's passes, the V-cycle's smoother and fused
    /// levels) on the card during the first steps and keeps the fastest of each (on), or
    /// runs the defaults (off), but where a setter above or the environment fixed the way. The default: on a hardware renderer
    /// (`PLUME_GPU_TUNE=0` or `1` says otherwise). Returns whether the driver can time (timer
    /// queries). The same results either way; a step's `host.tuning` shows where it stands.
    pub fn set_tuning(&mut self, on: bool) -> bool {
        self.call(move |e| e.tuner.set_on(on))
    }

    /// Where the tuner stands (see [`GpuSolver::set_tuning`]): each choice, its ways' best
    /// times on the card and the way taken.
    pub fn tuning(&self) -> Vec<plume_core::sim::TunedChoice> {
        self.call(|e| e.tuner.report())
    }

    /// Invocations the per-item kernels have launched so far (their work groups times the
    /// groups' size): what taking several cells an invocation saves.
    pub fn invocations_launched(&self) -> u64 {
        self.call(|_| cost::invocations())
    }

    /// Keeps a step's books (the smoke before the sources and before advection, the
    /// outflow, the mass correction) in the last work group of the reduction each follows,
    /// or in a dispatch of its own. The same results either way (the default: in the last
    /// work group, unless `PLUME_GPU_LAST_GROUP=0`, which compiles the kernels without that
    /// code: then they stay in dispatches of their own, whatever `on` says).
    pub fn set_books_in_last_group(&mut self, on: bool) {
        let on = on && kernels::finish_in_last_group();
        self.call(move |e| e.folds.books_in_last_group = on);
    }
}
