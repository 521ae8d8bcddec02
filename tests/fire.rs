//! Combustion judged by numbers: fuel decays at the burn rate (the analytic e^(−k·t) in a
//! closed box at rest), the heat released equals heat × fuel burned, flame decays at its rate,
//! nothing burns at or below ignition, gas expansion gives the divergence asked for, fuel and
//! flame ride the flow like smoke, and random settings stay finite and non-negative.

mod common;

use common::Rng;
use plume::scene::Scene;
use plume::sim::{Advection, Boundaries, Dims, Emitter, FireParams, FluidParams, Grid, Solver};

/// A closed 12³ box at rest with nothing pushing the air: no weight, no buoyancy, no fade, no
/// cooling, so only combustion changes the fields.
fn still_box(fire: FireParams) -> Solver {
    let p = FluidParams {
        smoke_weight: 0.0,
        buoyancy: 0.0,
        fade: 0.0,
        cooling: 0.0,
        ..FluidParams::default()
    };
    let mut s = Solver::new(
        Grid::unit(Dims::cube(12)).expect("ok"),
        p,
        Boundaries::closed(),
    )
    .expect("ok");
    s.set_fire(fire).expect("ok");
    s
}

fn mean(v: &[f32]) -> f64 {
    v.iter().map(|&x| f64::from(x)).sum::<f64>() / v.len() as f64
}

#[test]
fn fuel_burns_at_the_burn_rate_and_releases_heat_for_the_fuel_burned() {
    let fire = FireParams {
        burn_rate: 3.0,
        heat: 0.8,
        smoke: 0.5,
        ..FireParams::default()
    };
    let mut s = still_box(fire.clone());
    let (f0, t0) = (2.0f32, 2.0f32);
    s.fuel_mut().fill(f0);
    s.temperature_mut().fill(t0);
    let steps = 60; // one second
    let mut burned = 0.0;
    for _ in 0..steps {
        burned += s.try_step().expect("finite").fuel_burned;
    }
    let t = s.time();
    let want = f64::from(f0) * (-f64::from(fire.burn_rate) * t).exp();
    let fuel = mean(s.fuel());
    assert!(
        (fuel - want).abs() < 1e-4 * f64::from(f0),
        "fuel {fuel} after {t} s, analytic {want}"
    );
    // Every cell alike: the decay is the same everywhere.
    let (lo, hi) = s
        .fuel()
        .iter()
        .fold((f32::MAX, f32::MIN), |(a, b), &x| (a.min(x), b.max(x)));
    assert!(hi - lo < 1e-5, "{lo}..{hi}");
    // Heat released = heat × fuel burned, by the fields and by the step statistics.
    let fuel_gone = f64::from(f0) - fuel;
    let heat = mean(s.temperature()) - f64::from(t0);
    assert!(
        (heat - f64::from(fire.heat) * fuel_gone).abs() < 1e-4,
        "temperature rose {heat}, heat × burned = {}",
        f64::from(fire.heat) * fuel_gone
    );
    let volume = 1.0; // the unit box
    assert!(
        (burned - fuel_gone * volume).abs() < 1e-4,
        "statistics say {burned} burned, the field lost {fuel_gone}"
    );
    let smoke = mean(s.density());
    assert!((smoke - f64::from(fire.smoke) * fuel_gone).abs() < 1e-4);
}

#[test]
fn flame_decays_at_its_rate() {
    let fire = FireParams {
        flame_decay: 2.5,
        ..FireParams::default()
    };
    let mut s = still_box(fire.clone());
    s.flame_mut().fill(1.0);
    for _ in 0..90 {
        s.try_step().expect("finite");
    }
    let want = (-f64::from(fire.flame_decay) * s.time()).exp();
    let got = mean(s.flame());
    assert!((got - want).abs() < 1e-5, "flame {got}, analytic {want}");
}

#[test]
fn nothing_burns_at_or_below_ignition() {
    let fire = FireParams::default();
    for t in [fire.ignition, fire.ignition - 0.3, -2.0] {
        let mut s = still_box(fire.clone());
        s.fuel_mut().fill(1.0);
        s.temperature_mut().fill(t);
        let mut burned = 0.0;
        for _ in 0..30 {
            burned += s.try_step().expect("finite").fuel_burned;
        }
        assert_eq!(burned, 0.0, "burned at T = {t}");
        assert!(s.fuel().iter().all(|&f| f == 1.0));
        assert!(s.flame().iter().all(|&f| f == 0.0));
        assert!(s.temperature().iter().all(|&x| x == t));
        assert!(s.density().iter().all(|&d| d == 0.0));
    }
}

#[test]
fn gas_expansion_gives_the_divergence_asked_for_where_fuel_burns() {
    let fire = FireParams {
        expansion: 0.2,
        burn_rate: 2.0,
        ..FireParams::default()
    };
    let mut p = FluidParams {
        smoke_weight: 0.0,
        buoyancy: 0.0,
        pressure_tolerance: 1e-6,
        ..FluidParams::default()
    };
    p.pressure_max_iterations = 500;
    let mut s = Solver::new(
        Grid::unit(Dims::cube(16)).expect("ok"),
        p,
        Boundaries::default(), // open top: the expanding gas has somewhere to go
    )
    .expect("ok");
    s.set_fire(fire.clone()).expect("ok");
    let d = s.dims();
    let hot = |i: usize, j: usize, k: usize| {
        (6..10).contains(&i) && (4..8).contains(&j) && (6..10).contains(&k)
    };
    let cells: Vec<usize> = (0..d.nz)
        .flat_map(|k| (0..d.ny).flat_map(move |j| (0..d.nx).map(move |i| (i, j, k))))
        .filter(|&(i, j, k)| hot(i, j, k))
        .map(|(i, j, k)| d.idx(i, j, k))
        .collect();
    for &c in &cells {
        s.fuel_mut()[c] = 1.5;
        s.temperature_mut()[c] = 2.0;
    }
    // The projection sees the fuel as it is now: ∇·u = expansion × k × fuel in burning cells.
    s.project();
    let f = plume::sim::Simulation::frame(&s, plume::frame::Select::ALL);
    let div = f.divergence.as_ref().expect("ok");
    let fuel = s.fuel();
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let c = d.idx(i, j, k);
                let want = if hot(i, j, k) {
                    fire.expansion * fire.burn_rate * fuel[c]
                } else {
                    0.0
                };
                assert!(
                    (div[c] - want).abs() < 1e-3 * 0.6,
                    "cell {:?}: ∇·u = {}, want {want}",
                    (i, j, k),
                    div[c]
                );
            }
        }
    }
}

#[test]
fn fuel_and_flame_ride_the_flow_like_smoke() {
    // The same blob in density, fuel and flame, below ignition and without decay or fade:
    // carried by the same swirl with the same scheme, the three stay the same shape.
    for adv in [Advection::SemiLagrangian, Advection::MacCormack] {
        let p = FluidParams {
            fade: 0.0,
            smoke_weight: 0.0,
            buoyancy: 0.0,
            advection: adv,
            ..FluidParams::default()
        };
        let mut s = Solver::new(
            Grid::unit(Dims::cube(20)).expect("ok"),
            p,
            Boundaries::closed(),
        )
        .expect("ok");
        s.set_fire(FireParams {
            flame_decay: 0.0,
            ignition: 100.0,
            ..FireParams::default()
        })
        .expect("ok");
        s.add_density_at([0.4, 0.5, 0.5], 0.15, 1.0).expect("ok");
        let blob = s.density().to_vec();
        s.fuel_mut().copy_from_slice(&blob);
        s.flame_mut().copy_from_slice(&blob);
        s.add_velocity_at([0.5, 0.5, 0.5], 0.3, [0.0, 0.8, 0.4])
            .expect("ok");
        for _ in 0..40 {
            s.try_step().expect("finite");
        }
        let norm = |v: &[f32]| {
            let t: f64 = v.iter().map(|&x| f64::from(x)).sum();
            v.iter().map(|&x| f64::from(x) / t).collect::<Vec<_>>()
        };
        let (d, fu, fl) = (norm(s.density()), norm(s.fuel()), norm(s.flame()));
        let peak = d.iter().cloned().fold(0.0, f64::max);
        let moved: f64 = d.iter().zip(&norm(&blob)).map(|(a, b)| (a - b).abs()).sum();
        assert!(moved > 0.2, "{adv:?}: the flow moved the blob ({moved})");
        for (name, f) in [("fuel", &fu), ("flame", &fl)] {
            let err = d
                .iter()
                .zip(f)
                .map(|(a, b)| (a - b).abs())
                .fold(0.0, f64::max);
            assert!(
                err < 0.02 * peak,
                "{adv:?}: {name} differs from density by {err}"
            );
        }
    }
}

#[test]
fn random_fire_settings_stay_finite_and_non_negative() {
    let mut rng = Rng::new(15);
    for case in 0..12 {
        let mut scene = Scene::preset("campfire").expect("ok").with_resolution(16);
        scene.fire = FireParams {
            ignition: rng.range(-1.0, 3.0),
            burn_rate: rng.log_range(0.01, 1000.0),
            heat: rng.log_range(0.01, 100.0),
            flame: rng.log_range(0.01, 100.0),
            flame_decay: rng.log_range(0.01, 1000.0),
            smoke: rng.log_range(0.01, 100.0),
            expansion: if rng.bool() {
                rng.log_range(0.01, 100.0)
            } else {
                0.0
            },
        };
        scene.emitters[0].fuel = rng.log_range(0.1, 1000.0);
        scene.fluid.advection = if rng.bool() {
            Advection::MacCormack
        } else {
            Advection::SemiLagrangian
        };
        let mut s = scene.build().expect("ok");
        for _ in 0..20 {
            if let Err(e) = s.try_step() {
                panic!("case {case} {:?}: {e}", scene.fire);
            }
        }
        for (name, f) in [
            ("density", s.density()),
            ("fuel", s.fuel()),
            ("flame", s.flame()),
        ] {
            assert!(
                f.iter().all(|x| x.is_finite() && *x >= 0.0),
                "case {case}: {name} {:?}",
                scene.fire
            );
        }
        assert!(s.temperature().iter().all(|x| x.is_finite()));
    }
}

#[test]
fn the_campfire_burns_and_its_heat_lifts_the_flames() {
    let scene = Scene::preset("campfire").expect("ok").with_resolution(32);
    let mut s = scene.build().expect("ok");
    let mut burned = 0.0;
    for _ in 0..90 {
        burned += s.try_step().expect("finite").fuel_burned;
    }
    assert!(burned > 0.0);
    // The fire is hotter than the embers that lit it: the heat released.
    let t_max = s.temperature().iter().cloned().fold(f32::MIN, f32::max);
    let ember = scene.emitters[0].temperature.expect("ok");
    assert!(t_max > ember + 0.1, "hottest {t_max}, embers {ember}");
    // Flame and smoke above the burner, rising: the flame's centre is above the emitter.
    let d = s.dims();
    let g = *s.grid();
    let (mut w, mut y) = (0.0f64, 0.0f64);
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let f = f64::from(s.flame()[d.idx(i, j, k)]);
                w += f;
                y += f * f64::from(g.cell_center(i, j, k)[1]);
            }
        }
    }
    assert!(w > 0.0);
    assert!(
        y / w > f64::from(scene.emitters[0].center[1]),
        "flame centre at y = {}",
        y / w
    );
    assert!(s.total_density() > 0.0);
}

#[test]
fn emitter_fuel_outside_its_range_is_refused_with_the_key() {
    let e = Emitter {
        fuel: -1.0,
        ..Emitter::default()
    };
    let err = e.validate().expect_err("refused").to_string();
    assert!(err.contains("fuel"), "{err}");
    let bad = FireParams {
        burn_rate: f32::NAN,
        ..FireParams::default()
    };
    let err = bad.validate().expect_err("refused").to_string();
    assert!(err.contains("burn_rate"), "{err}");
    let text = "name = \"x\"\n[grid]\ndims = [8, 8, 8]\n[fire]\nheat = -2\n";
    let err = Scene::from_toml(text, None)
        .expect_err("refused")
        .to_string();
    assert!(err.contains("heat") && err.contains("line 5"), "{err}");
}
