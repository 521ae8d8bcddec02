//! What a step's sub-steps buy: shorter ones come nearer the solution of many (the measured
//! trade-off is in docs/performance.md, "Fewer sub-steps").

use plume::scene::Scene;
use plume::sim::Solver;

fn l2(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// The velocity's three components end to end, and the density.
fn fields(s: &Solver) -> (Vec<f32>, Vec<f32>) {
    let u = (0..3).flat_map(|a| s.velocity(a).to_vec()).collect();
    (u, s.density().to_vec())
}

/// The velocity and density after `steps` steps of `dt` from `start` with sub-steps of at
/// most `max_cfl` cells, and the sub-steps they took.
fn run(start: &Solver, dt: f32, max_cfl: f32, steps: usize) -> (Vec<f32>, Vec<f32>, u32) {
    let mut s = start.clone();
    let mut p = s.params().clone();
    p.dt = dt;
    p.max_cfl = max_cfl;
    p.max_substeps = 100;
    s.set_params(p).expect("params in range");
    let subs = (0..steps).map(|_| s.step().substeps).sum();
    let (u, d) = fields(&s);
    (u, d, subs)
}

/// From one developed state of the default scene, steps four times the default's length
/// (so that the flow crosses several cells a step) split at `max_cfl` 4, 2, 1 and 0.5: each
/// halving of the sub-steps' length takes the fields nearer those of sub-steps of a quarter
/// cell, by about half (the stages follow each other within a sub-step: first order in time).
/// A sub-step that did not advance the whole model by its own length (the forces, the
/// projection or the advection taking the step's dt) would break the sequence.
#[test]
fn shorter_sub_steps_leave_a_smaller_splitting_error() {
    let mut start = Scene::default_plume()
        .with_resolution(40)
        .build()
        .expect("the default scene");
    for _ in 0..90 {
        start.step();
    }
    let dt = 4.0 / 60.0;
    let (u_ref, d_ref, subs_ref) = run(&start, dt, 0.25, 2);
    let (u0, d0) = fields(&start);
    let (du, dd) = (l2(&u_ref, &u0), l2(&d_ref, &d0));
    assert!(du > 0.0 && dd > 0.0, "nothing moved");
    let mut seen: Vec<(f32, u32, f64, f64)> = Vec::new();
    for max_cfl in [4.0f32, 2.0, 1.0, 0.5] {
        let (u, d, subs) = run(&start, dt, max_cfl, 2);
        let (eu, ed) = (l2(&u, &u_ref) / du, l2(&d, &d_ref) / dd);
        assert!(
            subs < subs_ref,
            "max_cfl {max_cfl}: {subs} sub-steps, {seen:?}"
        );
        if let Some(&(_, psubs, pu, pd)) = seen.last() {
            assert!(
                subs > psubs,
                "more sub-steps at a smaller max_cfl: {seen:?}"
            );
            assert!(eu < 0.9 * pu, "velocity: {seen:?}, then {eu}");
            assert!(ed < 0.9 * pd, "density: {seen:?}, then {ed}");
        }
        seen.push((max_cfl, subs, eu, ed));
    }
    // First order: the error times the sub-steps stays within a factor of two of the
    // longest sub-steps' (it would fall faster at second order, and not at all where a
    // sub-step's length did not reach some stage).
    let (_, s0, u0e, d0e) = seen[0];
    for &(_, subs, eu, ed) in &seen[1..] {
        let k = f64::from(subs) / f64::from(s0);
        for (e, e0) in [(eu, u0e), (ed, d0e)] {
            assert!((0.5..=2.0).contains(&(e * k / e0)), "{seen:?}");
        }
    }
    eprintln!("(max_cfl, sub-steps, velocity error, density error): {seen:?}");
    // The longest sub-steps leave an error one can see, the shortest one much smaller.
    assert!(seen[0].2 > 0.05 && seen[3].2 < 0.05, "{seen:?}");
}
