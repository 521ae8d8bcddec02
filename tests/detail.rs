//! Detail beyond the grid (issue 38): the up-resolution pass judged by numbers —
//! consistency with the coarse solver, energy above the coarse grid's Nyquist wavenumber,
//! coherence between frames, determinism, finiteness, and the coarse solver untouched.

mod common;

use common::Rng;
use plume::frame::Select;
use plume::scene::Scene;
use plume::sim::detail::{downsample, upsample, DetailParams, Detailed};
use plume::sim::{Dims, Simulation};

fn scene(size: usize) -> Scene {
    Scene::default_plume().with_resolution(size)
}

fn detailed(size: usize, params: DetailParams) -> Detailed {
    let coarse = scene(size).build_simulation().expect("builds");
    Detailed::new(coarse, params).expect("the pass")
}

fn on(factor: u32, strength: f32) -> DetailParams {
    DetailParams {
        enabled: true,
        factor,
        strength,
        ..DetailParams::default()
    }
}

fn run(sim: &mut Detailed, steps: usize) {
    for _ in 0..steps {
        sim.step().expect("step");
    }
}

/// Σ (f − up(down(f)))²: the energy above the coarse grid's Nyquist wavenumber.
fn high_band(f: &[f32], d: Dims, n: usize) -> f64 {
    let back = upsample(&downsample(f, d, n), d, n);
    f.iter()
        .zip(&back)
        .map(|(a, b)| f64::from(a - b).powi(2))
        .sum()
}

fn coarse_density(sim: &Detailed) -> Vec<f32> {
    sim.coarse()
        .frame(Select {
            density: true,
            ..Select::default()
        })
        .density
        .expect("density")
}

fn fine_density(sim: &Detailed) -> Vec<f32> {
    sim.detail()
        .field("density")
        .expect("fine density")
        .to_vec()
}

fn l2(a: &[f32]) -> f64 {
    a.iter().map(|x| f64::from(*x).powi(2)).sum::<f64>().sqrt()
}

fn correlation(a: &[f32], b: &[f32]) -> f64 {
    let n = a.len() as f64;
    let ma = a.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    let mb = b.iter().map(|&x| f64::from(x)).sum::<f64>() / n;
    let (mut ab, mut aa, mut bb) = (0.0, 0.0, 0.0);
    for (x, y) in a.iter().zip(b) {
        let (x, y) = (f64::from(*x) - ma, f64::from(*y) - mb);
        ab += x * y;
        aa += x * x;
        bb += y * y;
    }
    ab / (aa * bb).sqrt().max(1e-300)
}

/// The fine density less the coarse one interpolated: the detail alone.
fn detail_part(sim: &Detailed, n: usize) -> Vec<f32> {
    let d = sim.coarse().grid().dims;
    let up = upsample(&coarse_density(sim), d, n);
    fine_density(sim)
        .iter()
        .zip(&up)
        .map(|(f, u)| f - u)
        .collect()
}

#[test]
fn off_the_coarse_solver_is_untouched_bit_for_bit() {
    // Off: the scene builds the plain solver, the same bits as before the pass existed.
    let s = scene(24);
    assert!(!s.detail.enabled);
    let mut plain = s.build().expect("solver");
    let mut built = s.build_simulation().expect("simulation");
    for _ in 0..30 {
        plain.try_step().expect("step");
        built.step().expect("step");
    }
    let a = plain.density().to_vec();
    let b = built.frame(Select::ALL).density.expect("density");
    assert_eq!(a, b);
    // On: the coarse simulation underneath still steps to the same bits.
    let mut sim = detailed(24, on(2, 24.0));
    run(&mut sim, 30);
    assert_eq!(coarse_density(&sim), a);
}

#[test]
fn the_fine_density_averages_back_to_the_coarse_one_and_keeps_the_smoke() {
    // After 2 s of the default scene at 32³: relative L2 of down(fine) − coarse, and the
    // totals.
    for factor in [2u32, 4] {
        let n = factor as usize;
        let mut sim = detailed(32, on(factor, 24.0));
        run(&mut sim, 120);
        let d = sim.coarse().grid().dims;
        let c = coarse_density(&sim);
        let fine = fine_density(&sim);
        let down = downsample(&fine, d, n);
        let diff: Vec<f32> = down.iter().zip(&c).map(|(a, b)| a - b).collect();
        let rel = l2(&diff) / l2(&c);
        let tc: f64 = c.iter().map(|&x| f64::from(x)).sum();
        let tf: f64 = fine.iter().map(|&x| f64::from(x)).sum::<f64>() / (n * n * n) as f64;
        eprintln!(
            "×{factor}: relative L2 {rel:.3}, total fine/coarse {:.4}",
            tf / tc
        );
        assert!(rel <= 0.15, "×{factor}: relative L2 {rel}");
        assert!(
            (tf / tc - 1.0).abs() <= 0.02,
            "×{factor}: totals {tf} / {tc}"
        );
    }
}

#[test]
fn detail_above_the_coarse_nyquist_is_several_times_the_interpolated_and_zero_without() {
    let n = 2;
    let mut ratios = Vec::new();
    for strength in [0.0f32, 24.0, 96.0] {
        let mut sim = detailed(32, on(2, strength));
        run(&mut sim, 120);
        let d = sim.coarse().grid().dims;
        let c = coarse_density(&sim);
        let ratio = high_band(&fine_density(&sim), d, n) / high_band(&upsample(&c, d, n), d, n);
        eprintln!("strength {strength}: high band / upsampled coarse's {ratio:.2}");
        ratios.push(ratio);
    }
    // Strength 0: the fine field is the coarse one interpolated, nothing added.
    assert!((ratios[0] - 1.0).abs() < 1e-6, "{ratios:?}");
    assert!(ratios[1] >= 3.0 && ratios[2] >= 3.0, "{ratios:?}");
}

#[test]
fn the_detail_moves_with_the_smoke_instead_of_being_redrawn() {
    // What the noise adds, isolated: the difference between two runs that differ only in
    // the noise's seed. Between consecutive frames (1/60 s, under a fine cell of motion) it
    // must stay nearly the same field, not be drawn anew.
    let n = 2;
    let mut a = detailed(32, on(2, 24.0));
    let mut b = detailed(
        32,
        DetailParams {
            seed: 99,
            ..on(2, 24.0)
        },
    );
    run(&mut a, 90);
    run(&mut b, 90);
    let noise = |a: &Detailed, b: &Detailed| -> Vec<f32> {
        detail_part(a, n)
            .iter()
            .zip(&detail_part(b, n))
            .map(|(x, y)| x - y)
            .collect()
    };
    let before = noise(&a, &b);
    run(&mut a, 1);
    run(&mut b, 1);
    let after = noise(&a, &b);
    let same = correlation(&before, &after);
    run(&mut a, 60);
    run(&mut b, 60);
    let later = correlation(&after, &noise(&a, &b));
    eprintln!("the noise's part: frame to frame {same:.3}, one second later {later:.3}");
    assert!(l2(&after) > 0.0, "the seeds must make a difference");
    assert!(same >= 0.9, "{same}");
    assert!(later < same, "{same} {later}");
}

#[test]
fn deterministic_for_a_seed_finite_and_non_negative_over_random_settings() {
    let mut a = detailed(16, on(3, 24.0));
    let mut b = detailed(16, on(3, 24.0));
    run(&mut a, 20);
    run(&mut b, 20);
    assert_eq!(fine_density(&a), fine_density(&b));
    let mut rng = Rng::new(38);
    for _ in 0..12 {
        let p = DetailParams {
            enabled: true,
            factor: 2 + (rng.next_u64() % 3) as u32,
            strength: rng.range(0.0, 200.0),
            noise_scale: rng.log_range(0.5, 16.0),
            regenerate: rng.log_range(0.05, 100.0),
            seed: rng.next_u64(),
        };
        p.validate().expect("a valid draw");
        let mut s = scene(12 + (rng.next_u64() % 8) as usize);
        s.fluid.vorticity = rng.range(0.0, 20.0);
        let mut sim = Detailed::new(s.build_simulation().expect("builds"), p).expect("pass");
        run(&mut sim, 15);
        let f = sim.frame(Select::ALL);
        let d = f.density.expect("density");
        assert_eq!(d.len(), f.grid.dims.cells());
        assert!(
            d.iter().all(|x| x.is_finite() && *x >= 0.0),
            "{p:?}: a value not finite or negative"
        );
    }
}

#[test]
fn frames_exports_and_limits_follow_the_fine_grid() {
    let mut s = scene(16);
    s.detail = on(3, 24.0);
    let mut sim = s.build_simulation().expect("builds");
    sim.step().expect("step");
    let f = sim.frame(Select::ALL);
    assert_eq!(f.grid.dims, Dims::new(48, 48, 48));
    assert!((f.grid.h - sim.grid().h / 3.0).abs() < 1e-7);
    assert_eq!(f.velocity.as_ref().map(Vec::len), Some(48 * 48 * 48));
    // A factor that would pass the grid limits is refused with the sizes.
    let mut big = scene(300);
    big.detail = on(4, 24.0);
    let e = big.validate().expect_err("too big").to_string();
    assert!(e.contains("1200") && e.contains("detail"), "{e}");
}

#[test]
fn the_viewer_switches_detail_on_and_off_without_resetting_the_smoke() {
    use plume::viewer::sim_thread::{SimCommand, SimThread, Snapshot};
    use std::time::{Duration, Instant};
    let mut s = Scene::default_plume();
    s.grid.dims = [12, 12, 12];
    let sim =
        SimThread::spawn(s, plume::backend::Backend::Cpu, true, || {}).expect("the thread starts");
    // The next snapshot that satisfies `ok`.
    let wait = |ok: &dyn Fn(&Snapshot) -> bool| -> Snapshot {
        let t = Instant::now();
        loop {
            if let Some(snap) = sim.take_latest() {
                if ok(&snap) {
                    return snap;
                }
            }
            assert!(t.elapsed() < Duration::from_secs(60), "no such snapshot");
            std::thread::sleep(Duration::from_millis(5));
        }
    };
    let coarse = wait(&|s| s.frame.step >= 10);
    assert_eq!(coarse.frame.grid.dims, Dims::new(12, 12, 12));
    assert!(sim.send(SimCommand::SetDetail(on(3, 24.0))));
    let fine = wait(&|s| s.frame.grid.dims == Dims::new(36, 36, 36));
    assert!(
        fine.frame.step >= coarse.frame.step,
        "the smoke was not reset"
    );
    let d = fine.frame.density.as_ref().expect("density");
    assert!(
        d.iter().any(|&x| x > 0.0),
        "the fine field starts from the smoke"
    );
    assert!(fine.stats.stages.iter().any(|s| s.name == "detail"));
    assert!(sim.send(SimCommand::SetDetail(DetailParams::default())));
    let back = wait(&|s| s.frame.grid.dims == Dims::new(12, 12, 12));
    assert!(back.frame.step >= fine.frame.step);
    // Settings the pass refuses leave the simulation as it was, with a message.
    assert!(sim.send(SimCommand::SetDetail(DetailParams {
        strength: -1.0,
        ..on(2, 24.0)
    })));
    let refused = wait(&|s| s.error.is_some());
    assert_eq!(refused.frame.grid.dims, Dims::new(12, 12, 12));
    assert!(refused
        .error
        .as_deref()
        .is_some_and(|e| e.contains("strength")));
    let _ = sim.finish();
}
