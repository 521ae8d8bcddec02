//! The GPU backend's tuner (`GpuSolver::set_tuning`): where a piece of a step can be done
//! two ways that give the same bits, the first steps time both on the card's clock and keep
//! the faster. On llvmpipe it is off unless asked for (its times say nothing of a card);
//! these tests ask for it (on Mesa's llvmpipe in CI; a test that cannot get an OpenGL
//! context fails).

use plume::scene::Scene;
use plume::sim::{Simulation, TunedChoice};

mod common;
use common::gpu_solver as gpu;

/// Times kept of each way before the tuner decides (`plume_gpu`'s `tune::SAMPLES`).
const SAMPLES: u32 = 4;

/// The way with the shortest best time, the first of them on a tie (the default first).
fn fastest(c: &TunedChoice) -> usize {
    let best = |i: usize| c.ways[i].best_us.expect("a time of each way");
    (1..c.ways.len()).fold(0, |m, i| if best(i) < best(m) { i } else { m })
}

/// Every way of each choice timed in turn (the V-cycle's five: tiles or a pass a sweep,
/// coarse levels fused or not, the passes a sweep one cell an invocation or four, switched
/// between solves), the fastest kept, and the fields
/// and the solve's figures those of the tuner off, step by step.
#[test]
fn the_tuner_times_every_way_keeps_the_fastest_and_changes_no_bit() {
    let mut closed = Scene::default_plume().with_resolution(18);
    closed.boundaries = plume::sim::Boundaries::closed();
    for (name, scene) in [
        ("plume", Scene::default_plume().with_resolution(21)),
        ("closed box", closed),
    ] {
        let mut plain = gpu(&scene);
        let mut tuned = gpu(&scene);
        assert!(tuned.set_tuning(true), "{name}: llvmpipe has timer queries");
        let sites: Vec<&str> = tuned.tuning().iter().map(|c| c.site).collect();
        assert_eq!(
            sites,
            [
                "cell_velocity",
                "gradient",
                "cg_step",
                "vorticity",
                "v_cycle",
                "advect_faces",
                "laplace",
                "divergence"
            ],
            "{name}"
        );
        let mut decided_at = None;
        let (mut more_dispatches, mut fewer_invocations) = (false, false);
        for step in 1..=60 {
            let (i0, j0) = (plain.invocations_launched(), tuned.invocations_launched());
            let a = plain.step().expect("step").clone();
            let b = tuned.step().expect("step").clone();
            let (ha, hb) = (a.host.expect("host"), b.host.expect("host"));
            // Where the vorticity went in two passes, the step issued more dispatches;
            // where a kernel took four cells an invocation, fewer invocations.
            more_dispatches |= hb.dispatches > ha.dispatches;
            fewer_invocations |=
                tuned.invocations_launched() - j0 < plain.invocations_launched() - i0;
            assert!(ha
                .tuning
                .iter()
                .all(|c| c.picked.is_none() && c.ways.iter().all(|w| w.samples == 0)));
            assert_eq!(
                (a.pressure_iterations, a.pressure_residual, a.substeps),
                (b.pressure_iterations, b.pressure_residual, b.substeps),
                "{name}, step {step}: the solve's figures"
            );
            assert!(
                plain.state() == tuned.state(),
                "{name}, step {step}: the fields"
            );
            assert_eq!(hb.tuning, tuned.tuning(), "{name}, step {step}");
            if decided_at.is_none() && hb.tuning.iter().all(|c| c.picked.is_some()) {
                decided_at = Some(step);
                for c in &hb.tuning {
                    assert!(!c.fixed, "{name}: {}", c.site);
                    assert!(c.ways.iter().all(|w| w.samples == SAMPLES), "{name}: {c:?}");
                    assert_eq!(c.picked, Some(fastest(c)), "{name}: {c:?}");
                }
            }
        }
        let at = decided_at.unwrap_or_else(|| panic!("{name}: still timing after 60 steps"));
        assert!(at >= 2 * SAMPLES as usize, "{name}: decided at step {at}");
        assert!(
            more_dispatches,
            "{name}: the vorticity never went in two passes"
        );
        assert!(
            fewer_invocations,
            "{name}: no kernel took four cells an invocation"
        );
        // Decided, it times no more: the times and picks stay as they were.
        let last = tuned.tuning();
        tuned.step().expect("step");
        assert_eq!(tuned.tuning(), last, "{name}");
    }
}

#[test]
fn a_way_set_from_outside_is_kept_and_not_timed() {
    let scene = Scene::default_plume().with_resolution(16);
    let mut g = gpu(&scene);
    assert!(g.set_tuning(true));
    g.set_cells_per_invocation(4);
    g.set_tiled_vorticity(false);
    g.set_tiled_smoothing(true);
    g.set_laplace_rows(true);
    g.set_divergence_rows(true);
    for _ in 0..12 {
        g.step().expect("step");
    }
    for c in g.tuning() {
        assert!(c.fixed, "{c:?}");
        assert!(
            c.ways.iter().all(|w| w.samples == 0 && w.best_us.is_none()),
            "{c:?}"
        );
        // Four cells (the second way) for the kernels, two passes for the vorticity, rows
        // for the Laplacian and the divergence; the V-cycle as its switches say (reported
        // as its first way).
        let way = if c.site == "v_cycle" { 0 } else { 1 };
        assert_eq!(c.picked, Some(way), "{c:?}");
    }
    // Off, the sites not set run their defaults and are not timed.
    let mut off = gpu(&scene);
    assert!(off.set_tuning(false));
    off.step().expect("step");
    assert!(off
        .tuning()
        .iter()
        .all(|c| c.picked.is_none() && c.ways.iter().all(|w| w.samples == 0)));
}

/// A solve that finds nothing to do (air at rest: no iteration) lets its V-cycle and update
/// return at once on the card: their times are dropped, not kept as the fastest.
#[test]
fn a_solve_with_nothing_to_do_gives_the_tuner_no_time() {
    let mut scene = Scene::default_plume().with_resolution(16);
    scene.emitters.clear();
    let mut g = gpu(&scene);
    assert!(g.set_tuning(true));
    for _ in 0..12 {
        let st = g.step().expect("step").clone();
        assert_eq!(st.pressure_iterations, 0, "nothing to solve");
    }
    for c in g.tuning() {
        let timed = c.ways.iter().any(|w| w.samples > 0);
        match c.site {
            // (a solve's first iteration, dropped where it did nothing)
            "v_cycle" | "cg_step" | "laplace" => assert!(!timed, "{c:?}"),
            // (the gradient's pass and the cell velocity do their work whatever the solve)
            "gradient" | "cell_velocity" | "advect_faces" => assert!(timed, "{c:?}"),
            _ => {}
        }
    }
}
