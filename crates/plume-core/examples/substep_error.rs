//! What a step's sub-stepping costs in accuracy: from one developed state of a scene, a few
//! steps at each `max_cfl`, each set's fields against those of the smallest (the most
//! sub-steps), on the CPU backend.
//!
//! `cargo run --release -p plume-core --example substep_error -- [N] [WARM] [STEPS] [CFLS] [SCENE]`
//! (defaults: 128, 120 warm-up steps at the scene's own `max_cfl`, then 6 steps, the limits
//! 0.25,0.5,1,2,3,4,6, the default scene). Prints, for each limit, the sub-steps a step took,
//! the CPU's ms a step, and the L2 difference from the reference of the velocity (against
//! the velocity's change over those steps, and against the velocity) and of the density
//! (against its change). docs/performance.md ("Fewer sub-steps") has what it gave.

use plume_core::scene::Scene;
use std::time::Instant;

fn l2(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| f64::from(x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn l2_of(fields: &[Vec<f32>; 3], other: &[Vec<f32>; 3]) -> f64 {
    (0..3)
        .map(|a| l2(&fields[a], &other[a]).powi(2))
        .sum::<f64>()
        .sqrt()
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let arg = |i: usize| args.get(i).map(String::as_str);
    let n: usize = arg(1).and_then(|s| s.parse().ok()).unwrap_or(128);
    let warm: usize = arg(2).and_then(|s| s.parse().ok()).unwrap_or(120);
    let steps: usize = arg(3).and_then(|s| s.parse().ok()).unwrap_or(6);
    let limits: Vec<f32> = arg(4)
        .map(|s| s.split(',').filter_map(|x| x.trim().parse().ok()).collect())
        .unwrap_or_else(|| vec![0.25, 0.5, 1.0, 2.0, 3.0, 4.0, 6.0]);
    let scene = match arg(5) {
        Some(name) => Scene::resolve(name).unwrap_or_else(|e| panic!("{name}: {e}")),
        None => Scene::default_plume(),
    };
    assert!(!limits.is_empty(), "no max_cfl to try");
    let mut start = scene
        .with_resolution(n)
        .build()
        .unwrap_or_else(|e| panic!("{e}"));
    let t = Instant::now();
    for _ in 0..warm {
        start.step();
    }
    eprintln!("{warm} warm-up steps in {:.1} s", t.elapsed().as_secs_f64());
    let velocity = |s: &plume_core::sim::Solver| -> [Vec<f32>; 3] {
        [0, 1, 2].map(|a| s.velocity(a).to_vec())
    };
    let (u0, d0) = (velocity(&start), start.density().to_vec());
    let mut runs = Vec::new();
    for &limit in &limits {
        let mut s = start.clone();
        let mut p = s.params().clone();
        p.max_cfl = limit;
        p.max_substeps = 100;
        s.set_params(p)
            .unwrap_or_else(|e| panic!("max_cfl {limit}: {e}"));
        let t = Instant::now();
        let subs: u32 = (0..steps).map(|_| s.step().substeps).sum();
        let ms = t.elapsed().as_secs_f64() * 1e3 / steps as f64;
        runs.push((limit, subs, ms, velocity(&s), s.density().to_vec()));
    }
    let (_, _, _, u_ref, d_ref) = &runs[0];
    let zero = [0, 1, 2].map(|a| vec![0.0; u_ref[a].len()]);
    let (du, dd, un) = (l2_of(u_ref, &u0), l2(d_ref, &d0), l2_of(u_ref, &zero));
    println!(
        "{n}³, {warm} warm-up steps, then {steps}: |u| {un:.4e}, its change {du:.4e}, the \
         density's change {dd:.4e}; against max_cfl {}",
        runs[0].0
    );
    println!("max_cfl  sub-steps/step  ms/step  |Δu|/|u change|  |Δu|/|u|  |Δd|/|d change|");
    for (limit, subs, ms, u, d) in &runs {
        let eu = l2_of(u, u_ref);
        println!(
            "{limit:7} {:15.2} {ms:8.1} {:16.4} {:9.5} {:16.4}",
            f64::from(*subs) / steps as f64,
            eu / du,
            eu / un,
            l2(d, d_ref) / dd
        );
    }
}
