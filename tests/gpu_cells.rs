//! The GPU backend's kernels that can take four cells an invocation (`cells.glsl`'s `PER`:
//! the conjugate gradients' updates, the pressure gradient, the cell-centred velocity, the
//! velocity's advection, four faces, the V-cycle's passes a sweep) or a row of four cells as
//! `vec4`s (the V-cycle's passes and transfers, the Laplacian, the gradient, the divergence)
//! give the bits of one cell an invocation, and the V-cycle's first two sweeps in one pass
//! those of two (on Mesa's llvmpipe in CI; a test that cannot get an OpenGL context fails).
//! On a card `scripts/gpu-check` checks the same (`PLUME_GPU_CELLS_PER_INVOCATION=4`, the
//! `PLUME_GPU_*_ROWS` switches).

use plume::scene::Scene;
use plume::sim::Simulation;

mod common;
use common::gpu_solver as gpu;

/// A step of `one` and of `four` (the same scene, one cell an invocation and four): the
/// same solve's figures and dispatches; returns `one`'s step and the invocations each
/// launched in it.
fn step_alike(
    one: &mut plume_gpu::GpuSolver,
    four: &mut plume_gpu::GpuSolver,
    what: &str,
) -> (plume::sim::StepStats, u64, u64) {
    let (i1, i4) = (one.invocations_launched(), four.invocations_launched());
    let a = one.step().expect("step").clone();
    let b = four.step().expect("step").clone();
    assert!(a.pressure_iterations > 0, "{what}: a solve");
    assert_eq!(
        (
            a.pressure_iterations,
            a.pressure_initial_residual,
            a.pressure_residual
        ),
        (
            b.pressure_iterations,
            b.pressure_initial_residual,
            b.pressure_residual
        ),
        "{what}: the solve's figures"
    );
    assert_eq!(
        a.host.as_ref().expect("host").dispatches,
        b.host.as_ref().expect("host").dispatches,
        "{what}: the dispatches"
    );
    let i1 = one.invocations_launched() - i1;
    (a, i1, four.invocations_launched() - i4)
}

/// The V-cycle's passes a sweep four cells an invocation (`mg.comp`'s ops 0 to 2 with `PER`
/// 4, `set_wide_sweeps`) give the bits of one cell an invocation, and so of the smoother by
/// tiles: on grids whose cells the invocations do not divide, with obstacles (the levels'
/// masks), a closed box and three open sides; step by step, the solve's figures and the
/// fields. The same dispatches, and fewer invocations launched.
#[test]
fn the_v_cycles_sweeps_four_cells_an_invocation_give_the_same_bits() {
    let mut closed = Scene::default_plume().with_resolution(20);
    closed.boundaries = plume::sim::Boundaries::closed();
    let cases = [
        ("plume", Scene::default_plume().with_resolution(19)),
        ("closed box", closed),
        (
            "jets",
            Scene::preset("jets").expect("jets").with_resolution(17),
        ),
        (
            "campfire",
            Scene::preset("campfire")
                .expect("campfire")
                .with_resolution(18),
        ),
    ];
    for (name, scene) in cases {
        let mut tiles = gpu(&scene);
        tiles.set_tiled_smoothing(true);
        let mut one = gpu(&scene);
        one.set_tiled_smoothing(false);
        one.set_wide_sweeps(false);
        let mut four = gpu(&scene);
        four.set_tiled_smoothing(false);
        four.set_wide_sweeps(true);
        for step in 1..=5 {
            tiles.step().expect("step");
            let (a, i1, i4) = step_alike(&mut one, &mut four, &format!("{name}, step {step}"));
            // Each V-cycle passes over the finest level six times (the first two sweeps
            // in one, four more and the residual), each pass three quarters of its
            // invocations fewer.
            let cells = scene.grid.dims.iter().product::<usize>() as u64;
            let passes = 6 * u64::from(a.pressure_iterations);
            assert!(
                i4 + passes * cells / 2 <= i1,
                "{name}, step {step}: {i4} invocations against {i1}"
            );
            assert!(
                one.state() == four.state(),
                "{name}, step {step}: the fields"
            );
            assert!(
                one.state() == tiles.state(),
                "{name}, step {step}: the fields against the smoother by tiles"
            );
        }
    }
}

/// The conjugate gradients' updates, the pressure gradient's subtraction, the
/// cell-centred velocity and the velocity's advection four cells (faces) an invocation
/// (`cg_step.comp`, `gradient.comp`, `cell_velocity.comp` and `advect_faces.comp` with `PER`
/// 4, `set_cells_per_invocation`) give the bits of one an invocation: the gradient pass's
/// maxima, the solve's figures and the fields step by step, on grids whose cells the
/// invocations do not divide (the last ones' later cells fall past the end), a closed box
/// (the mean put back), a 72×32×64 plume, batches, and MacCormack's velocity advection
/// through inflow and open faces (its two phases). The same dispatches, and fewer
/// invocations launched.
#[test]
fn the_updates_gradient_and_cell_velocity_four_cells_an_invocation_give_the_same_bits() {
    let mut closed = Scene::default_plume().with_resolution(20);
    closed.boundaries = plume::sim::Boundaries::closed();
    type Setup = fn(&mut plume_gpu::GpuSolver);
    let mut tunnel = Scene::preset("wind_tunnel")
        .expect("wind_tunnel")
        .with_resolution(18);
    tunnel.fluid.velocity_advection = plume::sim::Advection::MacCormack;
    let cases: [(&str, Scene, Setup); 5] = [
        ("plume", Scene::default_plume().with_resolution(19), |_| {}),
        ("closed box", closed, |_| {}),
        (
            "plume, 72×32×64",
            Scene::default_plume().with_dims(plume::sim::Dims::new(72, 32, 64)),
            |_| {},
        ),
        (
            "jets, batched",
            Scene::preset("jets").expect("jets").with_resolution(17),
            |g| g.set_batched_solve(true),
        ),
        ("wind tunnel, MacCormack", tunnel, |_| {}),
    ];
    for (name, scene, setup) in cases {
        let mut one = gpu(&scene);
        setup(&mut one);
        let mut four = gpu(&scene);
        setup(&mut four);
        four.set_cells_per_invocation(4);
        for step in 1..=6 {
            let (a, i1, i4) = step_alike(&mut one, &mut four, &format!("{name}, step {step}"));
            // Each update, gradient and cell velocity launches about three quarters of its
            // invocations fewer (the last two at least once a sub-step).
            let cells = scene.grid.dims.iter().product::<usize>() as u64;
            let wide = u64::from(a.pressure_iterations) + 2 * u64::from(a.substeps);
            assert!(
                i4 + wide * cells / 2 <= i1,
                "{name}, step {step}: {i4} invocations against {i1}"
            );
            assert_eq!(
                one.projection_maxima(),
                four.projection_maxima(),
                "{name}, step {step}: the gradient pass's maxima"
            );
            assert!(
                one.state() == four.state(),
                "{name}, step {step}: the fields"
            );
        }
    }
}

/// The V-cycle's first two sweeps in one pass (`mg.comp`'s op 8,
/// `set_first_sweeps_together`: the first sweep's values worked out where the second reads
/// them) give the bits of two passes (ops 0 and 1), one cell an invocation and four: an
/// open top, a closed box, three open sides and obstacles (the levels' masks); step by step,
/// the solve's figures and the fields, with a pass fewer over each level a V-cycle sweeps.
#[test]
fn the_v_cycles_first_two_sweeps_in_one_pass_give_the_same_bits() {
    let mut closed = Scene::default_plume().with_resolution(20);
    closed.boundaries = plume::sim::Boundaries::closed();
    let cases = [
        ("plume", Scene::default_plume().with_resolution(19), false),
        ("closed box", closed, true),
        (
            "jets",
            Scene::preset("jets").expect("jets").with_resolution(17),
            false,
        ),
        (
            "chimney",
            Scene::preset("chimney")
                .expect("chimney")
                .with_resolution(18),
            true,
        ),
    ];
    for (name, scene, wide) in cases {
        let mut apart = gpu(&scene);
        let mut together = gpu(&scene);
        for (g, on) in [(&mut apart, false), (&mut together, true)] {
            g.set_tiled_smoothing(false);
            g.set_wide_sweeps(wide);
            g.set_first_sweeps_together(on);
        }
        for step in 1..=4 {
            let what = format!("{name}, step {step}");
            let (va, vt) = (apart.v_cycles_issued(), together.v_cycles_issued());
            let a = apart.step().expect("step").clone();
            let t = together.step().expect("step").clone();
            assert!(a.pressure_iterations > 0, "{what}: a solve");
            assert_eq!(
                (
                    a.pressure_iterations,
                    a.pressure_initial_residual,
                    a.pressure_residual
                ),
                (
                    t.pressure_iterations,
                    t.pressure_initial_residual,
                    t.pressure_residual
                ),
                "{what}: the solve's figures"
            );
            let v = apart.v_cycles_issued() - va;
            assert_eq!(v, together.v_cycles_issued() - vt, "{what}: V-cycles");
            // (llvmpipe fuses no level: every level but the coarsest goes a pass a sweep,
            // a pass fewer each)
            let (ha, ht) = (a.host.expect("host"), t.host.expect("host"));
            assert!(
                ht.dispatches + v as u32 <= ha.dispatches,
                "{what}: {} dispatches against {} in {v} V-cycles",
                ht.dispatches,
                ha.dispatches
            );
            assert!(apart.state() == together.state(), "{what}: the fields");
        }
    }
}

/// The V-cycle's passes a sweep and its transfers in rows of four cells an invocation,
/// loaded and stored as `vec4`s (`mg_rows.comp`, `set_sweep_rows`), give the bits of one
/// cell an invocation (`mg.comp`): on grids whose cells along x are a multiple of four (every level in rows
/// down to the coarsest) and grids where only some levels are (the others one cell an
/// invocation), an open top, a closed box, three open sides, obstacles (the levels' masks),
/// the first two sweeps in one pass and in two, and the solve in batches (its β finished by
/// the last work group of the last sweep, whose r·z partial sums the rows write in the same
/// tree); step by step the solve's figures and the fields. The same dispatches, and fewer
/// invocations where rows are whole; there every pass above the coarsest level in rows, the
/// restrictions too.
#[test]
fn the_v_cycles_sweeps_in_rows_of_four_give_the_same_bits() {
    let mut closed = Scene::default_plume().with_resolution(24);
    closed.boundaries = plume::sim::Boundaries::closed();
    let jets = Scene::preset("jets").expect("jets").with_resolution(16);
    let odd = Scene::default_plume().with_dims(plume::sim::Dims::new(30, 40, 30));
    let cases = [
        // (the scene, the first two sweeps together, the solve in batches)
        (
            "plume, 16×24×16",
            Scene::default_plume().with_dims(plume::sim::Dims::new(16, 24, 16)),
            true,
            false,
        ),
        ("closed box", closed, true, true),
        ("jets", jets, false, false),
        (
            "chimney",
            Scene::preset("chimney")
                .expect("chimney")
                .with_resolution(20),
            true,
            true,
        ),
        (
            "plume, 30×40×30: rows on its third level only",
            odd,
            true,
            false,
        ),
    ];
    for (name, scene, together, batched) in cases {
        let whole = scene.grid.dims[0] % 4 == 0;
        // (every level above the coarsest whole rows: the levels halve, rounded up, while
        // every side is over 4 cells, as `Multigrid` makes them)
        let mut level = scene.grid.dims;
        let mut all_levels = true;
        while level.iter().all(|&v| v > 4) {
            all_levels &= level[0] % 4 == 0;
            level = level.map(|v| v.div_ceil(2));
        }
        eprintln!("{name}: {:?}", scene.grid.dims);
        let mut one = gpu(&scene);
        let mut rows = gpu(&scene);
        for (g, on) in [(&mut one, false), (&mut rows, true)] {
            g.set_tiled_smoothing(false);
            g.set_sweep_rows(on);
            g.set_first_sweeps_together(together);
            g.set_batched_solve(batched);
            assert!(g.time_kernels(true), "{name}: the kernel clock");
        }
        for step in 1..=4 {
            let what = format!("{name}, step {step}");
            let (a, i1, ir) = step_alike(&mut one, &mut rows, &what);
            assert!(
                one.state() == rows.state(),
                "{what}: the fields ({} pressure iterations)",
                a.pressure_iterations
            );
            if all_levels {
                // (every level above the coarsest in rows, its restrictions too: `mg.comp`
                // a cell an invocation only for the coarsest level's sweeps, a dispatch a
                // V-cycle)
                let r = rows.stats().host.as_ref().expect("host");
                let one_cell: u32 = r
                    .kernels
                    .iter()
                    .filter(|k| k.kernel == "mg")
                    .map(|k| k.dispatches)
                    .sum();
                assert_eq!(
                    one_cell, a.pressure_iterations,
                    "{what}: passes of mg.comp a cell an invocation in rows"
                );
            }
            if whole {
                // (a pass over the finest level in rows launches a quarter of the
                // invocations: seven such passes a V-cycle, the prolongation's among them,
                // a V-cycle an iteration)
                let cells = scene.grid.dims.iter().product::<usize>() as u64;
                let passes = 7 * u64::from(a.pressure_iterations);
                assert!(
                    ir + passes * cells / 2 <= i1,
                    "{what}: {ir} invocations in rows against {i1}"
                );
            } else {
                assert!(ir < i1, "{what}: {ir} invocations against {i1}");
            }
        }
    }
}

/// An iteration's A·p (and its new direction) in rows of four cells an invocation, loaded
/// and stored as `vec4`s (`laplace_rows.comp`, `set_laplace_rows`), gives the bits of one
/// cell an invocation (`laplace.comp`): with the V-cycle (the new direction in the pass)
/// and without it (a grid too flat for its levels: the plain A·p), an open top, a closed
/// box, three open sides, obstacles, the solve in batches (α finished by the last work
/// group from the rows' partial sums, written in the same tree) and a grid whose cells
/// along x are not a multiple of four (a cell an invocation there); step by step the
/// solve's figures and the fields. The same dispatches, and fewer invocations where the
/// rows are whole.
#[test]
fn the_laplacian_in_rows_of_four_gives_the_same_bits() {
    let flat = (
        "plume, 12×4×12: no V-cycle",
        Scene::default_plume().with_dims(plume::sim::Dims::new(12, 4, 12)),
    );
    for (name, scene) in rows_scenes().into_iter().chain([flat]) {
        // (the solve in batches in some)
        let batched = matches!(name, "closed box" | "jets" | "plume, 12×4×12: no V-cycle");
        let whole = scene.grid.dims[0] % 4 == 0;
        let mut one = gpu(&scene);
        let mut rows = gpu(&scene);
        for (g, on) in [(&mut one, false), (&mut rows, true)] {
            g.set_laplace_rows(on);
            g.set_batched_solve(batched);
        }
        for step in 1..=4 {
            let what = format!("{name}, step {step}");
            let (a, i1, ir) = step_alike(&mut one, &mut rows, &what);
            assert!(one.state() == rows.state(), "{what}: the fields");
            // (each iteration's pass in rows launches a quarter of the invocations, or,
            // where the rows are not whole, as many)
            let cells = scene.grid.dims.iter().product::<usize>() as u64;
            let fewer = u64::from(a.pressure_iterations) * cells / 2;
            if whole {
                assert!(ir + fewer <= i1, "{what}: {ir} invocations against {i1}");
            } else {
                assert_eq!(ir, i1, "{what}");
            }
        }
    }
}

/// The scenes the passes in rows are checked on: every level's rows whole (the plume at
/// 16×24×16), a closed box, three open sides, obstacles, and a grid whose cells along x are
/// not a multiple of four (a cell an invocation there).
fn rows_scenes() -> Vec<(&'static str, Scene)> {
    let mut closed = Scene::default_plume().with_resolution(24);
    closed.boundaries = plume::sim::Boundaries::closed();
    vec![
        (
            "plume, 16×24×16",
            Scene::default_plume().with_dims(plume::sim::Dims::new(16, 24, 16)),
        ),
        ("closed box", closed),
        (
            "jets",
            Scene::preset("jets").expect("jets").with_resolution(16),
        ),
        (
            "chimney",
            Scene::preset("chimney")
                .expect("chimney")
                .with_resolution(20),
        ),
        (
            "plume, 30×40×30: a cell an invocation",
            Scene::default_plume().with_dims(plume::sim::Dims::new(30, 40, 30)),
        ),
    ]
}

/// Steps `one` (a pass `kernel` a cell an invocation) and `rows` (the same scene, the pass
/// in rows of four: `kernel`_rows) four times alike: the same solve's figures, dispatches,
/// fields and faces held; where the grid's cells along x are a multiple of four the pass's
/// kernel the one in rows and fewer invocations (a pass a sub-step, a quarter of them),
/// elsewhere the kernel a cell an invocation and as many. Returns the first step's figures.
fn pass_in_rows_alike(
    name: &str,
    scene: &Scene,
    one: &mut plume_gpu::GpuSolver,
    rows: &mut plume_gpu::GpuSolver,
    kernel: &str,
) -> plume::sim::StepStats {
    let whole = scene.grid.dims[0].is_multiple_of(4);
    let in_rows_kernel = format!("{kernel}_rows");
    let cells = scene.grid.dims.iter().product::<usize>() as u64;
    for g in [&mut *one, &mut *rows] {
        assert!(g.time_kernels(true), "{name}: the kernel clock");
    }
    let mut first = None;
    for step in 1..=4 {
        let what = format!("{name}, step {step}");
        let (a, i1, ir) = step_alike(one, rows, &what);
        assert!(one.state() == rows.state(), "{what}: the fields");
        assert_eq!(
            a.speed_limited,
            rows.stats().speed_limited,
            "{what}: the faces held"
        );
        let kernels = &rows.stats().host.as_ref().expect("host").kernels;
        let ran = |k: &str| kernels.iter().any(|t| t.kernel == k);
        if whole {
            assert!(
                ran(&in_rows_kernel) && !ran(kernel),
                "{what}: the pass in rows"
            );
            assert!(
                ir + cells / 2 <= i1,
                "{what}: {ir} invocations against {i1}"
            );
        } else {
            assert!(
                ran(kernel) && !ran(&in_rows_kernel),
                "{what}: a cell an invocation"
            );
            assert_eq!(ir, i1, "{what}");
        }
        first.get_or_insert(a);
    }
    first.expect("a step")
}

/// The pressure gradient's pass in rows of four cells an invocation, the pressure and the y
/// and z faces loaded and stored as `vec4`s (`gradient_rows.comp`, `set_gradient_rows`),
/// gives the bits of one cell an invocation (`gradient.comp`): the scenes of
/// [`rows_scenes`], every side open (the low and high faces of each axis against the
/// outside) and an inflow and an outflow with an obstacle; step by step the solve's figures
/// (the next sub-step's length and the scalars' region take the faces' largest magnitudes
/// the pass leaves) and the fields (see [`pass_in_rows_alike`]).
#[test]
fn the_gradient_in_rows_of_four_gives_the_same_bits() {
    use plume::sim::Face;
    let mut open = Scene::default_plume().with_dims(plume::sim::Dims::new(16, 20, 12));
    for axis in 0..3 {
        for side in 0..2 {
            *open.boundaries.face_mut(axis, side) = Face::Open;
        }
    }
    let tunnel = Scene::preset("wind_tunnel")
        .expect("wind tunnel")
        .with_resolution(16);
    let more = [("every side open", open), ("wind tunnel", tunnel)];
    for (name, scene) in rows_scenes().into_iter().chain(more) {
        let mut one = gpu(&scene);
        let mut rows = gpu(&scene);
        one.set_gradient_rows(false);
        rows.set_gradient_rows(true);
        pass_in_rows_alike(name, &scene, &mut one, &mut rows, "gradient");
    }
}

/// The projection's right-hand side in rows of four cells an invocation, the y and z faces,
/// the warm start and the result loaded and stored as `vec4`s (`divergence_rows.comp`,
/// `set_divergence_rows`), gives the bits of one cell an invocation (`divergence.comp`):
/// the scenes of [`rows_scenes`] (the solve's starting residual in the same pass in an open
/// domain, not in a closed box or with obstacles), and faces far over the speed limit
/// everywhere (each held and written back by the cell that owns it, and counted); step by
/// step the solve's figures and the fields (see [`pass_in_rows_alike`]).
#[test]
fn the_divergence_in_rows_of_four_gives_the_same_bits() {
    let wild = (
        "plume, 16³, faces far over the speed limit",
        Scene::default_plume().with_resolution(16),
    );
    for (name, scene) in rows_scenes().into_iter().chain([wild]) {
        let mut one = gpu(&scene);
        let mut rows = gpu(&scene);
        one.set_divergence_rows(false);
        rows.set_divergence_rows(true);
        let wild = name.contains("speed limit");
        if wild {
            let mut st = one.state();
            common::wild_faces(&mut st);
            one.set_state(st.clone()).expect("state");
            rows.set_state(st).expect("state");
        }
        let first = pass_in_rows_alike(name, &scene, &mut one, &mut rows, "divergence");
        assert!(!wild || first.speed_limited > 0, "{name}: no face held");
    }
}

/// The V-cycle's coarsest sweeps and fused cycle (`mg.comp`'s ops 6 and 7) with their levels
/// in shared memory (`set_levels_in_shared`: copied in, worked, copied back by the one work
/// group) give the bits of the same ops in the buffer: the coarsest level alone and the
/// coarse levels fused, an open top, a closed box, three open sides, obstacles (the levels'
/// masks), the smoother a pass a sweep and by tiles; step by step the solve's figures and
/// the fields. In shared memory a V-cycle runs one dispatch of `mg.comp`'s part 6 in place
/// of its part 5, except where the levels do not fit (a grid whose coarsest is a thin
/// level: 24×3×24, four arrays of 1728 cells), which stays in the buffer.
#[test]
fn the_v_cycles_coarse_levels_in_shared_memory_give_the_same_bits() {
    let mut closed = Scene::default_plume().with_resolution(24);
    closed.boundaries = plume::sim::Boundaries::closed();
    let thin = Scene::default_plume().with_dims(plume::sim::Dims::new(96, 12, 96));
    let cases = [
        // (the scene, the most cells fused, by tiles, whether the levels fit)
        (
            "plume, fused",
            Scene::default_plume().with_resolution(40),
            1024,
            false,
            true,
        ),
        (
            "plume, the coarsest alone",
            Scene::default_plume().with_resolution(40),
            0,
            true,
            true,
        ),
        ("closed box, fused", closed, 1024, true, true),
        (
            "jets, fused",
            Scene::preset("jets").expect("jets").with_resolution(22),
            1024,
            false,
            true,
        ),
        (
            "chimney, the coarsest alone",
            Scene::preset("chimney")
                .expect("chimney")
                .with_resolution(20),
            0,
            false,
            true,
        ),
        ("thin, 96×12×96", thin, 0, false, false),
    ];
    for (name, scene, fused, tiled, fits) in cases {
        let mut buffer = gpu(&scene);
        let mut shared = gpu(&scene);
        for (g, on) in [(&mut buffer, false), (&mut shared, true)] {
            g.set_fused_cells(fused);
            g.set_tiled_smoothing(tiled);
            g.set_levels_in_shared(on);
        }
        assert_eq!(
            shared.fused_levels() >= 2,
            fused > 0,
            "{name}: levels fused"
        );
        for step in 1..=3 {
            let what = format!("{name}, step {step}");
            let v = shared.v_cycles_issued();
            let (db, ds) = (
                buffer.shared_level_dispatches(),
                shared.shared_level_dispatches(),
            );
            let (a, _, _) = step_alike(&mut buffer, &mut shared, &what);
            assert!(
                buffer.state() == shared.state(),
                "{what}: the fields ({} pressure iterations)",
                a.pressure_iterations
            );
            let v = shared.v_cycles_issued() - v;
            assert!(v > 0, "{what}: V-cycles");
            assert_eq!(
                buffer.shared_level_dispatches(),
                db,
                "{what}: in the buffer"
            );
            let want = if fits { v } else { 0 };
            assert_eq!(
                shared.shared_level_dispatches() - ds,
                want,
                "{what}: in shared memory, {v} V-cycles"
            );
        }
    }
}

/// The cell velocity three floats a cell, the layout a grid takes where its `vec4`s would not
/// fit one buffer (512³: 2³¹ bytes, which llvmpipe refuses; `PLUME_GPU_CELL_VEL_FLOATS=1`
/// takes it on any grid), gives the bits of the `vec4`s: whole runs of scenes whose traces
/// read the stored cell velocity (the velocity's advection, semi-Lagrangian and MacCormack,
/// and the scalars' where they fill over half the grid), with fire. The byte model sees the
/// layout: 4 bytes a cell fewer in every pass that stores or reads it.
#[test]
fn the_cell_velocity_in_three_floats_a_cell_gives_the_bits_of_vec4s() {
    let dir = std::env::temp_dir().join(format!("plume_cell_vel_{}", std::process::id()));
    let plume = |floats: bool, args: &[&str]| {
        let mut c = std::process::Command::new(env!("CARGO_BIN_EXE_plume"));
        c.args(args).env_remove("PLUME_GPU_CELL_VEL_FLOATS");
        if floats {
            c.env("PLUME_GPU_CELL_VEL_FLOATS", "1");
        }
        let out = c.output().expect("plume runs");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "plume {args:?}: {err}");
        out.stdout
    };
    for scene in ["plume", "wind_tunnel", "jets", "campfire"] {
        let run = |floats: bool| {
            let out = dir.join(format!("{scene}_{floats}"));
            let out = out.to_str().expect("a path");
            let args = "run --backend gpu --size 24 --frames 2 --every 6 --format npy \
                        --fields density,velocity";
            let mut args: Vec<&str> = args.split_whitespace().collect();
            args.extend(["--scene", scene, "--out", out]);
            plume(floats, &args);
            let mut files: Vec<_> = std::fs::read_dir(out)
                .expect("the run's folder")
                .map(|e| e.expect("an entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "npy"))
                .collect();
            files.sort();
            assert_eq!(files.len(), 4, "{scene}: two frames of two fields");
            files
                .iter()
                .map(|p| std::fs::read(p).expect("a frame"))
                .collect::<Vec<_>>()
        };
        assert!(run(false) == run(true), "{scene}: the frames differ");
    }
    let _ = std::fs::remove_dir_all(&dir);
    let bytes = |floats: bool| {
        let args: Vec<&str> = "bench --backend gpu --size 16 --warmup 1 --steps 2 --json"
            .split(' ')
            .collect();
        let out = plume(floats, &args);
        let r: serde_json::Value = serde_json::from_slice(&out).expect("bench's JSON");
        r["bytes_per_step"].as_f64().expect("bytes_per_step")
    };
    let (vec4s, floats) = (bytes(false), bytes(true));
    assert!(
        floats < vec4s,
        "bytes a step: {floats} in floats, {vec4s} as vec4s"
    );
}
