//! The GPU backend's pressure solve as the host drives it: batches of iterations between
//! read-backs, the CPU's order of conjugate gradients, and what a step waits for (on Mesa's
//! llvmpipe in CI; a test that cannot get an OpenGL context fails).

use plume::scene::Scene;
use plume::sim::Simulation;

mod common;
use common::gpu_solver as gpu;

#[test]
fn the_pressure_solve_gives_the_same_bits_in_batches_as_iteration_by_iteration() {
    // Hardware renderers run the iterations in batches between read-backs (the card decides
    // when to stop); llvmpipe reads back after each. Both must give the same fields.
    let scene = Scene::default_plume().with_resolution(20);
    let mut one = gpu(&scene);
    let mut batched = gpu(&scene);
    batched.set_batched_solve(true);
    for _ in 0..8 {
        let a = one.step().expect("step").pressure_iterations;
        let b = batched.step().expect("step").pressure_iterations;
        assert_eq!(a, b);
    }
    assert_eq!(one.state(), batched.state());
}

/// The CPU's order of conjugate gradients: the residual is checked after each update,
/// before it is preconditioned, so a solve of k iterations runs k V-cycles (the GPU ran
/// k + 1 before: one more after the last update, thrown away). Iteration by iteration the
/// V-cycles issued are the iterations, and both backends take the same iterations.
#[test]
fn a_solve_of_k_iterations_runs_k_v_cycles_as_the_cpus() {
    let mut closed = Scene::default_plume().with_resolution(20);
    closed.boundaries = plume::sim::Boundaries::closed();
    for scene in [Scene::default_plume().with_resolution(20), closed] {
        let mut cpu = scene.build_simulation().expect("cpu");
        let mut g = gpu(&scene);
        g.set_batched_solve(false);
        let mut iterations = 0u64;
        for step in 1..=8 {
            let before = g.v_cycles_issued();
            let it = g.step().expect("gpu step").pressure_iterations;
            let c = cpu.step().expect("cpu step").pressure_iterations;
            assert_eq!(it, c, "step {step}: GPU {it} iterations, CPU {c}");
            assert!(it > 0, "step {step}: nothing solved");
            assert_eq!(
                g.v_cycles_issued() - before,
                u64::from(it),
                "step {step}: V-cycles issued against {it} iterations"
            );
            iterations += u64::from(it);
        }
        assert!(iterations >= 8);
    }
}

/// A step waits for the card only where the host must decide: after each batch of the
/// pressure solve's iterations (one on llvmpipe, which reads after each) and once at the
/// end (the finite check, the step's books and its stage times read together). Its books,
/// kept on the card, say what the CPU's stats say: the smoke added, the outflow, the mass
/// correction, the faces the speed limit held.
#[test]
fn a_step_waits_for_the_card_only_for_the_solve_and_at_its_end() {
    let scene = Scene::default_plume().with_resolution(24);
    let mut cpu = scene.build_simulation().expect("cpu");
    for batched in [false, true] {
        let mut g = gpu(&scene);
        g.set_batched_solve(batched);
        let mut last_iterations = u32::MAX;
        for step in 1..=12 {
            let st = g.step().expect("gpu step").clone();
            let host = st.host.clone().expect("host stats");
            // In batches, a solve that takes no more iterations than the last (of at most
            // four) issues them all before it reads: one read-back, and one at the end.
            if batched && step > 1 && st.pressure_iterations <= last_iterations.min(4) {
                assert_eq!(
                    host.waits, 2,
                    "step {step}: {} iterations",
                    st.pressure_iterations
                );
            }
            last_iterations = st.pressure_iterations;
            // (the first step also reads the largest speed: no step has left it yet)
            let first = u32::from(step == 1);
            let solve_reads = first + if batched { 2 } else { st.pressure_iterations };
            println!(
                "batched {batched}, step {step}: {} waits, {} iterations",
                host.waits, st.pressure_iterations
            );
            assert!(
                host.waits <= solve_reads + 1 && host.waits <= 4 + first,
                "step {step}: {} waits, {} iterations",
                host.waits,
                st.pressure_iterations
            );
            if !batched {
                let c = cpu.step().expect("cpu step").clone();
                let close = |a: f64, b: f64| (a - b).abs() <= 1e-4 * a.abs().max(1e-12);
                assert!(
                    close(c.source_added, st.source_added),
                    "{} {}",
                    c.source_added,
                    st.source_added
                );
                assert!(close(c.outflow, st.outflow), "{} {}", c.outflow, st.outflow);
                assert!(
                    close(f64::from(c.mass_correction), f64::from(st.mass_correction)),
                    "{} {}",
                    c.mass_correction,
                    st.mass_correction
                );
                assert_eq!(c.speed_limited, st.speed_limited, "step {step}");
            }
        }
    }
}

/// In a step the speed limit's faces are held by the projection's divergence pass (the
/// speed limit's stage leaves them to it): a flow with faces far over the limit loses the
/// same faces on both backends, and the step ends near the CPU's velocities (a flow this
/// wild parts the two solves' stopping points: 0.5% of the largest speed, as before the
/// limit moved into the projection).
#[test]
fn the_projection_holds_the_speed_limits_faces_as_the_cpu() {
    let scene = Scene::default_plume().with_resolution(16);
    let mut cpu = scene.build_simulation().expect("cpu");
    for _ in 0..3 {
        cpu.step().expect("cpu step");
    }
    let mut st = cpu.state();
    common::wild_faces(&mut st);
    cpu.set_state(st.clone()).expect("state");
    let mut g = gpu(&scene);
    g.set_state(st).expect("state");
    let c = cpu.step().expect("cpu step").clone();
    let s = g.step().expect("gpu step").clone();
    assert!(c.speed_limited > 0, "the CPU held no face");
    assert_eq!(c.speed_limited, s.speed_limited);
    let (cs, gs) = (cpu.state(), g.state());
    for a in 0..3 {
        let (x, y) = (&cs.velocity[a], &gs.velocity[a]);
        let top = x.iter().fold(0.0f32, |m, v| m.max(v.abs()));
        let diff = x
            .iter()
            .zip(y)
            .fold(0.0f32, |m, (p, q)| m.max((p - q).abs()));
        assert!(diff <= 1e-2 * top, "axis {a}: {diff} against {top}");
    }
}

/// The finite check reduces every field in one dispatch, a row of work groups a field: each
/// field's Σ and largest |value| are its own (random fields, every one different; the fire's
/// too), and a NaN is found in the field that holds it.
#[test]
fn the_finite_check_reduces_each_field_in_its_own_row() {
    let scene = Scene::preset("campfire")
        .expect("campfire")
        .with_resolution(12);
    let mut g = gpu(&scene);
    g.step().expect("a step lights the fire");
    let mut st = g.state();
    let mut seed = 7u32;
    let mut fill = |v: &mut Vec<f32>, scale: f32| {
        for x in v.iter_mut() {
            seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
            *x = scale * ((seed >> 8) as f32 / (1u32 << 24) as f32 - 0.25);
        }
    };
    fill(&mut st.density, 1.0);
    fill(&mut st.temperature, 2.0);
    for (a, v) in st.velocity.iter_mut().enumerate() {
        fill(v, 3.0 + a as f32);
    }
    fill(&mut st.pressure, 7.0);
    assert!(!st.fuel.is_empty() && !st.flame.is_empty(), "no fire");
    fill(&mut st.fuel, 5.0);
    fill(&mut st.flame, 6.0);
    g.set_state(st.clone()).expect("state");
    let figures = g.field_figures();
    let mut want: Vec<(&str, &Vec<f32>)> = vec![("density", &st.density)];
    want.push(("temperature", &st.temperature));
    want.push(("fuel", &st.fuel));
    want.push(("flame", &st.flame));
    for v in &st.velocity {
        want.push(("velocity", v));
    }
    want.push(("pressure", &st.pressure));
    assert_eq!(
        figures.iter().map(|f| f.0).collect::<Vec<_>>(),
        want.iter().map(|w| w.0).collect::<Vec<_>>()
    );
    for ((name, sum, max), (_, v)) in figures.iter().zip(&want) {
        let s: f64 = v.iter().map(|&x| f64::from(x)).sum();
        let m = v.iter().fold(0.0f32, |m, x| m.max(x.abs()));
        assert!(
            (sum - s).abs() <= 1e-9 * s.abs().max(1.0),
            "{name}: Σ {sum} against {s}"
        );
        assert_eq!(*max, m, "{name}: largest |value|");
    }
    // A NaN in the flame alone (the fourth row) is the flame's.
    let mut poisoned = st;
    poisoned.flame[3] = f32::NAN;
    g.set_state(poisoned).expect("state");
    let figures = g.field_figures();
    let bad: Vec<&str> = figures
        .iter()
        .filter(|f| f.2.is_nan())
        .map(|f| f.0)
        .collect();
    assert_eq!(bad, ["flame"]);
}

/// The vorticity's curl and confinement in one pass by tiles (`vorticity.comp`: ω in shared
/// memory, the faces written to the other set of arrays and swapped in) give the bits of the
/// two passes (`curl.comp` storing ω, then `confine.comp`): the stage alone on random flow,
/// over grids whose sides are not multiples of the tile's 8, and whole steps of scenes with
/// obstacles and fire.
#[test]
fn the_vorticity_by_tiles_gives_the_two_passes_bits() {
    let mut rng = common::Rng::new(7);
    let scenes = [
        Scene::default_plume().with_resolution(21),
        Scene::preset("wind_tunnel")
            .expect("wind_tunnel")
            .with_resolution(19),
        Scene::preset("campfire")
            .expect("campfire")
            .with_resolution(13),
    ];
    for scene in scenes {
        assert!(scene.fluid.vorticity > 0.0, "{}", scene.name);
        let mut two = gpu(&scene);
        two.set_tiled_vorticity(false);
        let mut tiled = gpu(&scene);
        tiled.set_tiled_vorticity(true);
        // The stage alone, from the same random flow.
        let mut st = two.state();
        for v in &mut st.velocity {
            for x in v.iter_mut() {
                *x = rng.range(-0.5, 0.5);
            }
        }
        let dt = scene.fluid.dt;
        let mut after = Vec::new();
        for g in [&mut two, &mut tiled] {
            g.set_state(st.clone()).expect("random flow");
            assert!(g.run_stage("vorticity", dt), "{}", scene.name);
            after.push(g.state());
        }
        let moved = after[0]
            .velocity
            .iter()
            .zip(&st.velocity)
            .flat_map(|(a, b)| a.iter().zip(b))
            .filter(|(a, b)| a != b)
            .count();
        let faces: usize = st.velocity.iter().map(Vec::len).sum();
        println!(
            "{}: the confinement moved {moved} of {faces} faces",
            scene.name
        );
        assert!(moved > faces / 2, "{}: {moved} of {faces}", scene.name);
        assert!(
            after[0] == after[1],
            "{}: the stage alone: {}",
            scene.name,
            differences(&after[0].velocity, &after[1].velocity)
        );
        // Whole steps (the faces swapped in, then the other stages on them).
        for g in [&mut two, &mut tiled] {
            g.reset();
            for _ in 0..6 {
                g.step().expect("step");
            }
        }
        let (a, b) = (two.state(), tiled.state());
        assert!(
            a == b,
            "{}: after 6 steps: velocity {}; density {}",
            scene.name,
            differences(&a.velocity, &b.velocity),
            differences(
                std::slice::from_ref(&a.density),
                std::slice::from_ref(&b.density)
            )
        );
    }
}

/// How many values of `a` and `b` (arrays alike in shape) differ, the largest difference
/// and the first where they do: what a failure of bit-for-bit agreement says of its cause
/// (a few values or every one, an ulp or more).
fn differences(a: &[Vec<f32>], b: &[Vec<f32>]) -> String {
    let mut count = 0;
    let mut largest = 0.0f32;
    let mut first = None;
    for (k, (x, y)) in a.iter().zip(b).enumerate() {
        for (i, (p, q)) in x.iter().zip(y).enumerate() {
            if p.to_bits() != q.to_bits() {
                count += 1;
                largest = largest.max((p - q).abs());
                first.get_or_insert((k, i, *p, *q));
            }
        }
    }
    let total: usize = a.iter().map(Vec::len).sum();
    format!("{count} of {total} values differ, by at most {largest:e}, first {first:?}")
}

/// The solve's starting residual worked out in the divergence's pass (`divergence.comp`'s
/// RESIDUAL: r = b − A·x written in b's place, the maxima of |b| and |r| from its work
/// groups) gives the bits of the passes it replaces (a reduction of b, then the residual's
/// Laplacian), with the same figures a step, in two dispatches fewer a solve: an open top
/// (the default plume, its speed limit's clamps in the same pass) and three open sides
/// (the jets).
#[test]
fn the_starting_residual_in_the_divergences_pass_gives_the_same_bits() {
    let scenes = [
        Scene::default_plume().with_resolution(20),
        Scene::preset("jets").expect("jets").with_resolution(17),
    ];
    for scene in scenes {
        let mut apart = gpu(&scene);
        apart.set_residual_in_divergence(false);
        let mut fused = gpu(&scene);
        for step in 1..=8 {
            let a = apart.step().expect("step").clone();
            let f = fused.step().expect("step").clone();
            let name = &scene.name;
            assert!(a.pressure_iterations > 0, "{name}, step {step}: a solve");
            assert_eq!(
                (
                    a.pressure_iterations,
                    a.pressure_initial_residual,
                    a.pressure_residual,
                    a.divergence_before
                ),
                (
                    f.pressure_iterations,
                    f.pressure_initial_residual,
                    f.pressure_residual,
                    f.divergence_before
                ),
                "{name}, step {step}: the solve's figures"
            );
            let (ha, hf) = (a.host.expect("host"), f.host.expect("host"));
            // (a sub-step's solve each: the same sub-steps both ways, the states being equal)
            assert!(
                hf.dispatches + 2 <= ha.dispatches,
                "{name}, step {step}: {} dispatches against {}",
                hf.dispatches,
                ha.dispatches
            );
            assert!(
                apart.state() == fused.state(),
                "{name}, step {step}: the fields"
            );
        }
    }
}

/// Each axis' largest |face velocity| and the pressure's largest |value| taken from the
/// projection's gradient pass (the scalars' region then reads no faces, a later sub-step's
/// length needs no reduction of them, and the step's finite check reduces only the scalars)
/// give the bits of reading the faces: a fast flow (several cells a step: sub-steps, and a
/// region's reach past the least), the default plume's open top. They are the fields'
/// largest |values|, a NaN included, and the finite check finds what it found before.
#[test]
fn the_faces_maxima_from_the_gradients_pass_give_the_same_bits() {
    let scene = Scene::default_plume().with_resolution(20);
    let mut cpu = scene.build_simulation().expect("cpu");
    for _ in 0..3 {
        cpu.step().expect("cpu step");
    }
    let mut st = cpu.state();
    // A turning about the box's vertical axis with a little noise: up to some six cells a
    // step at the sides (h = 1/20, dt = 1/60), little of it divergence the projection takes.
    let n = 20usize;
    let h = 1.0 / n as f32;
    let mut rng = common::Rng::new(11);
    for (a, v) in st.velocity.iter_mut().enumerate() {
        let (sx, sy) = (n + usize::from(a == 0), n + usize::from(a == 1));
        for (i, x) in v.iter_mut().enumerate() {
            let (fx, fz) = ((i % sx) as f32, (i / (sx * sy)) as f32);
            // (the face's x and z: on the face along its own axis, else the cell's centre)
            let px = if a == 0 { fx * h } else { (fx + 0.5) * h };
            let pz = if a == 2 { fz * h } else { (fz + 0.5) * h };
            let turn = match a {
                0 => -30.0 * (pz - 0.5),
                2 => 30.0 * (px - 0.5),
                _ => 0.0,
            };
            *x = turn + rng.range(-0.5, 0.5);
        }
    }
    let mut reading = gpu(&scene);
    reading.set_faces_from_gradient(false);
    let mut from_gradient = gpu(&scene);
    let mut substeps = 0;
    for g in [&mut reading, &mut from_gradient] {
        g.set_state(st.clone()).expect("state");
    }
    for step in 1..=4 {
        let a = reading.step().expect("step").clone();
        let b = from_gradient.step().expect("step").clone();
        substeps = substeps.max(a.substeps);
        assert_eq!(
            (a.substeps, a.scalar_active, a.pressure_iterations),
            (b.substeps, b.scalar_active, b.pressure_iterations),
            "step {step}: sub-steps, the region's share, iterations"
        );
        assert!(
            reading.state() == from_gradient.state(),
            "step {step}: the fields"
        );
    }
    assert!(substeps > 1, "the flow needed no sub-steps: {substeps}");
    // What the gradient's pass merged is each face array's and the pressure's largest
    // |value| (as bits, NaN above infinity), a NaN in the pressure included (the finite
    // check reads them); unknown after the faces change. (The calm plume: one sub-step, and
    // a solve from a NaN stops at once, leaving it in the pressure.)
    let largest = |v: &[f32]| v.iter().map(|x| x.to_bits() & 0x7fff_ffff).max();
    let mut calm = gpu(&scene);
    let mut calm_reading = gpu(&scene);
    calm_reading.set_faces_from_gradient(false);
    for poison in [false, true] {
        if poison {
            let mut st = calm.state();
            st.pressure[1234] = f32::NAN;
            calm.set_state(st.clone()).expect("state");
            calm_reading.set_state(st).expect("state");
            assert_eq!(calm.projection_maxima(), None, "after set_state");
        }
        // The step's finite check finds the same field either way (none, then one).
        let found = calm.step().err().map(|e| e.to_string());
        let found_reading = calm_reading.step().err().map(|e| e.to_string());
        assert_eq!(found, found_reading, "poison {poison}");
        assert_eq!(found.is_some(), poison, "{found:?}");
        let st = calm.state();
        let want = [
            largest(&st.velocity[0]),
            largest(&st.velocity[1]),
            largest(&st.velocity[2]),
            largest(&st.pressure),
        ]
        .map(|m| m.expect("values"));
        assert_eq!(calm.projection_maxima(), Some(want), "poison {poison}");
        assert_eq!(want[3] > 0x7f80_0000, poison, "{want:?}");
    }
    assert_eq!(
        reading.projection_maxima(),
        None,
        "not kept where not asked for"
    );
}

/// The forces' smoke weight and buoyancy added by the velocity's advection as it writes the
/// faces (`advect_faces.comp`'s `buoyant`, in a step) give the bits of the forces' own pass,
/// a dispatch fewer a sub-step: semi-Lagrangian and MacCormack velocity advection, and the
/// campfire (a fire's temperature, open sides).
#[test]
fn the_buoyancy_in_the_velocitys_advection_gives_the_same_bits() {
    let mut maccormack = Scene::default_plume().with_resolution(18);
    maccormack.fluid.velocity_advection = plume::sim::Advection::MacCormack;
    let scenes = [
        Scene::default_plume().with_resolution(20),
        maccormack,
        Scene::preset("campfire")
            .expect("campfire")
            .with_resolution(16),
    ];
    for scene in scenes {
        let mut apart = gpu(&scene);
        apart.set_buoyancy_in_advection(false);
        let mut folded = gpu(&scene);
        for step in 1..=6 {
            let a = apart.step().expect("step").clone();
            let f = folded.step().expect("step").clone();
            let (ha, hf) = (a.host.expect("host"), f.host.expect("host"));
            assert_eq!(a.substeps, f.substeps, "step {step}");
            assert_eq!(
                hf.dispatches + a.substeps,
                ha.dispatches,
                "{}, step {step}: a dispatch fewer a sub-step",
                scene.name
            );
            assert!(
                apart.state() == folded.state(),
                "{}, step {step}: the fields",
                scene.name
            );
        }
    }
}

/// Each solve checks its own starting residual: the residual's largest |value| starts from 0
/// (the divergence's pass sets it) before the first Laplacian merges into it. A solve cut
/// short after one iteration leaves a large residual behind; the next, from the same flow a
/// hundred thousand times weaker, must report its own starting residual, as the CPU does.
#[test]
fn each_solve_checks_its_own_starting_residual() {
    let mut scene = Scene::default_plume().with_resolution(16);
    scene.emitters.clear();
    scene.fluid.pressure_max_iterations = 1;
    let mut cpu = scene.build_simulation().expect("cpu");
    let mut g = gpu(&scene);
    let mut rng = common::Rng::new(3);
    let mut strong = g.state();
    for v in &mut strong.velocity {
        for x in v.iter_mut() {
            *x = rng.range(-0.5, 0.5);
        }
    }
    let mut weak = strong.clone();
    for v in &mut weak.velocity {
        for x in v.iter_mut() {
            *x *= 1e-5;
        }
    }
    for p in &mut weak.pressure {
        *p = 0.0;
    }
    for (state, label) in [(strong, "strong"), (weak, "weak")] {
        cpu.set_state(state.clone()).expect("cpu state");
        g.set_state(state).expect("gpu state");
        let a = cpu.step().expect("cpu step");
        let b = g.step().expect("gpu step");
        println!(
            "{label}: starting residual {:e} (CPU {:e}), divergence before {:e} (CPU {:e})",
            b.pressure_initial_residual,
            a.pressure_initial_residual,
            b.divergence_before,
            a.divergence_before
        );
        assert!(a.divergence_before > 0.0, "{label}: nothing to solve");
        let rel = (b.pressure_initial_residual - a.pressure_initial_residual).abs()
            / a.pressure_initial_residual.abs().max(1e-30);
        assert!(
            rel < 1e-2,
            "{label}: the GPU's starting residual is {rel:e} off the CPU's"
        );
    }
}

/// The solve's figures (its dot products, α, β, the stopping rule) finished by the last
/// work group of the kernel before each, not by a dispatch of one group of their own
/// (`last_group.glsl`), give the same bits: the default plume (the start finished by the
/// divergence's pass; at 72×32×64 too, more partial sums than lanes), a closed box (by the
/// residual's Laplacian, its mean's ops apart),
/// the V-cycle's levels fused, its sweeps a pass each (β by the last sweep's work groups,
/// `mg.comp`'s RZ_SUMS, as by the tiles'), and batches (a batch's iterations past the need
/// finish from what there is, as the dispatch did). A step issues a dispatch fewer a
/// sub-step and three an iteration.
#[test]
fn the_solves_figures_finished_in_the_last_work_group_give_the_same_bits() {
    let mut closed = Scene::default_plume().with_resolution(20);
    closed.boundaries = plume::sim::Boundaries::closed();
    type Setup = fn(&mut plume_gpu::GpuSolver);
    // (more work groups than the one group's REDUCE_WG lanes: each lane sums several)
    let wide = Scene::default_plume().with_dims(plume::sim::Dims::new(72, 32, 64));
    let cases: [(&str, Scene, Setup, u32); 6] = [
        (
            "plume",
            Scene::default_plume().with_resolution(20),
            |_| {},
            3,
        ),
        ("plume, 72×32×64", wide, |_| {}, 3),
        ("closed box", closed, |_| {}, 3),
        (
            "plume, levels fused",
            Scene::default_plume().with_resolution(20),
            |g| g.set_fused_cells(1024),
            3,
        ),
        (
            "plume, a pass a sweep",
            Scene::default_plume().with_resolution(20),
            |g| g.set_tiled_smoothing(false),
            3,
        ),
        (
            "jets, batched",
            Scene::preset("jets").expect("jets").with_resolution(17),
            |g| g.set_batched_solve(true),
            0,
        ),
    ];
    for (name, scene, setup, per_iteration) in cases {
        let mut apart = gpu(&scene);
        setup(&mut apart);
        apart.set_scalars_in_last_group(false);
        let mut folded = gpu(&scene);
        setup(&mut folded);
        for step in 1..=8 {
            let a = apart.step().expect("step").clone();
            let f = folded.step().expect("step").clone();
            assert!(a.pressure_iterations > 0, "{name}, step {step}: a solve");
            assert_eq!(
                (
                    a.substeps,
                    a.pressure_iterations,
                    a.pressure_initial_residual,
                    a.pressure_residual
                ),
                (
                    f.substeps,
                    f.pressure_iterations,
                    f.pressure_initial_residual,
                    f.pressure_residual
                ),
                "{name}, step {step}: the solve's figures"
            );
            let (ha, hf) = (a.host.expect("host"), f.host.expect("host"));
            if per_iteration > 0 {
                // (iteration by iteration: as many issued as taken, a sub-step here)
                assert_eq!(a.substeps, 1, "{name}, step {step}: one sub-step");
                assert_eq!(
                    ha.dispatches - hf.dispatches,
                    1 + per_iteration * a.pressure_iterations,
                    "{name}, step {step}: the dispatches saved"
                );
            } else {
                assert!(
                    hf.dispatches + 4 <= ha.dispatches,
                    "{name}, step {step}: {} dispatches against {}",
                    hf.dispatches,
                    ha.dispatches
                );
            }
            assert!(
                apart.state() == folded.state(),
                "{name}, step {step}: the fields"
            );
        }
    }
}

/// A step's books (the smoke before the sources and before advection, the outflow, the mass
/// correction) kept by the last work group of the reduction each follows, not by a dispatch
/// of `ledger.comp` (`reduce.glsl`'s `book`), give the same bits: the books and the fields,
/// an open top (the outflow's reduction with the smoke's), a closed box (the smoke's alone),
/// more work groups (72×32×64), a fire (its fuel's books stay apart) and a moving obstacle
/// (what it sweeps in). Three dispatches fewer a sub-step.
#[test]
fn the_books_kept_by_the_reductions_last_work_group_give_the_same_bits() {
    let mut closed = Scene::default_plume().with_resolution(20);
    closed.boundaries = plume::sim::Boundaries::closed();
    let scenes = [
        Scene::default_plume().with_resolution(20),
        closed,
        Scene::default_plume().with_dims(plume::sim::Dims::new(72, 32, 64)),
        Scene::preset("campfire")
            .expect("campfire")
            .with_resolution(16),
        Scene::preset("paddle").expect("paddle").with_resolution(16),
    ];
    for scene in scenes {
        let name = format!("{} {:?}", scene.name, scene.grid.dims);
        let mut apart = gpu(&scene);
        apart.set_books_in_last_group(false);
        let mut kept = gpu(&scene);
        let mut added = 0.0;
        for step in 1..=6 {
            let a = apart.step().expect("step").clone();
            let k = kept.step().expect("step").clone();
            added += a.source_added;
            let books = |s: &plume::sim::StepStats| {
                (
                    s.substeps,
                    s.source_added.to_bits(),
                    s.outflow.to_bits(),
                    s.mass_correction.to_bits(),
                    s.fuel_burned.to_bits(),
                    s.swept.to_bits(),
                )
            };
            assert_eq!(books(&a), books(&k), "{name}, step {step}: the books");
            let (ha, hk) = (a.host.expect("host"), k.host.expect("host"));
            assert_eq!(
                ha.dispatches - hk.dispatches,
                3 * a.substeps,
                "{name}, step {step}: the dispatches saved"
            );
            assert!(
                apart.state() == kept.state(),
                "{name}, step {step}: the fields"
            );
        }
        assert!(added > 0.0, "{name}: no smoke added");
    }
}
