//! The physics every solver backend must show, from one harness: each check runs against
//! the CPU solver and the GPU solver (OpenGL compute on Mesa's llvmpipe in CI) alike.

use plume::scene::Scene;
use plume::sim::{Advection, Face, SimError, Simulation};
use plume_core::frame::Select;

/// A backend as the harness drives it.
struct Backend {
    name: &'static str,
    build: fn(&Scene) -> Box<dyn Simulation>,
    /// Builds `scene` with a NaN in the density of one cell.
    poisoned: fn(&Scene) -> Box<dyn Simulation>,
}

fn cpu(scene: &Scene) -> Box<dyn Simulation> {
    Box::new(scene.build().expect("cpu"))
}

fn gpu(scene: &Scene) -> Box<dyn Simulation> {
    Box::new(plume::backend::gpu(scene).unwrap_or_else(|e| {
        panic!("no GPU solver: {e}. The GPU tests need Mesa's EGL and llvmpipe (GL 4.5).")
    }))
}

const BACKENDS: [Backend; 2] = [
    Backend {
        name: "cpu",
        build: cpu,
        poisoned: |scene| {
            let mut s = scene.build().expect("cpu");
            s.density_mut()[5] = f32::NAN;
            Box::new(s)
        },
    },
    Backend {
        name: "gpu",
        build: gpu,
        poisoned: |scene| {
            let mut g = plume::backend::gpu(scene).expect("gpu");
            let mut st = g.state();
            st.density[5] = f32::NAN;
            g.set_state(st).expect("load");
            Box::new(g)
        },
    },
];

fn closed(mut s: Scene) -> Scene {
    for a in 0..3 {
        for side in 0..2 {
            *s.boundaries.face_mut(a, side) = Face::Wall;
        }
    }
    s
}

fn density(sim: &dyn Simulation) -> Vec<f32> {
    sim.frame(Select {
        density: true,
        ..Default::default()
    })
    .density
    .unwrap_or_default()
}

#[test]
fn a_closed_box_keeps_its_smoke_within_2_percent() {
    for b in &BACKENDS {
        let mut scene = closed(Scene::default_plume().with_resolution(24));
        scene.emitters.clear();
        scene.fluid.fade = 0.0;
        let mut sim = (b.build)(&scene);
        sim.paint([0.5, 0.3, 0.5], 0.15, 1.0, [0.0, 0.5, 0.0])
            .expect("paint");
        let m0 = sim.total_density();
        assert!(m0 > 0.0);
        for _ in 0..90 {
            sim.step().expect("step");
        }
        let m1 = sim.total_density();
        let change = (m1 - m0) / m0;
        println!(
            "{}: closed box {m0:.6} -> {m1:.6} ({:+.3}%)",
            b.name,
            100.0 * change
        );
        assert!(
            change.abs() <= 0.02,
            "{}: the smoke changed by {change}",
            b.name
        );
    }
}

#[test]
fn clean_air_enters_through_inflow_and_open_faces() {
    for b in &BACKENDS {
        let mut scene = Scene::default_plume().with_resolution(20);
        scene.emitters.clear();
        scene.boundaries.x_min = Face::Inflow(0.6);
        scene.boundaries.x_max = Face::Open;
        scene.boundaries.y_max = Face::Open;
        let mut sim = (b.build)(&scene);
        sim.paint([0.35, 0.5, 0.5], 0.15, 1.0, [0.0; 3])
            .expect("paint");
        let m0 = sim.total_density();
        for _ in 0..60 {
            sim.step().expect("step");
        }
        let rho = density(sim.as_ref());
        let d = scene.dims();
        let top = rho.iter().fold(0.0f32, |m, x| m.max(*x));
        // The column of cells at the inflow holds only the clean air that came in.
        let inflow = (0..d.nz)
            .flat_map(|k| (0..d.ny).map(move |j| d.idx(0, j, k)))
            .fold(0.0f32, |m, c| m.max(rho[c]));
        let m1 = sim.total_density();
        println!(
            "{}: smoke {m0:.5} -> {m1:.5}, at the inflow {inflow:e} (largest {top:e})",
            b.name
        );
        assert!(
            inflow <= 1e-3 * top,
            "{}: smoke at the inflow {inflow}",
            b.name
        );
        assert!(
            m1 < 0.8 * m0,
            "{}: the smoke did not leave: {m0} -> {m1}",
            b.name
        );
    }
}

#[test]
fn the_projection_leaves_the_divergence_its_tolerance_allows() {
    // The default scene (open top), and a closed box with a ball in it (the singular problem
    // with solid cells: the fluid cells' mean taken out).
    let mut closed_ball = closed(Scene::default_plume().with_resolution(24));
    closed_ball
        .obstacles
        .push(plume::sim::Obstacle::sphere([0.5, 0.45, 0.5], 0.15));
    for (b, scene) in BACKENDS.iter().flat_map(|b| {
        [
            (b, Scene::default_plume().with_resolution(24)),
            (b, closed_ball.clone()),
        ]
    }) {
        let mut sim = (b.build)(&scene);
        for _ in 0..10 {
            let st = sim.step().expect("step").clone();
            let f = sim.frame(Select {
                divergence: true,
                ..Default::default()
            });
            let div = f
                .divergence
                .unwrap_or_default()
                .iter()
                .fold(0.0f32, |m, x| m.max(x.abs()));
            // max|∇·u| after ≤ tolerance (1e-3) · max|∇·u| before, up to rounding.
            assert!(
                div <= 1.1e-3 * st.divergence_before + 1e-6,
                "{} ({}): divergence {div} after, {} before",
                b.name,
                if scene.obstacles.is_empty() {
                    "open top"
                } else {
                    "closed, ball"
                },
                st.divergence_before
            );
            assert!(st.pressure_residual <= 1e-3, "{}: {st:?}", b.name);
        }
    }
}

/// Deterministic values in [0, 1).
fn lcg(s: &mut u32) -> f32 {
    *s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
    (*s >> 8) as f32 / (1u32 << 24) as f32
}

#[test]
fn random_parameter_sets_stay_finite() {
    for b in &BACKENDS {
        let mut seed = 7u32;
        for set in 0..5 {
            let mut scene = Scene::default_plume().with_resolution(16);
            let p = &mut scene.fluid;
            p.dt = 0.005 + 0.1 * lcg(&mut seed);
            p.max_cfl = 0.5 + 6.0 * lcg(&mut seed);
            p.fade = 5.0 * lcg(&mut seed);
            p.smoke_weight = 40.0 * lcg(&mut seed) - 20.0;
            p.buoyancy = 60.0 * lcg(&mut seed) - 10.0;
            p.cooling = 3.0 * lcg(&mut seed);
            p.vorticity = 12.0 * lcg(&mut seed);
            p.viscosity = 0.01 * lcg(&mut seed);
            p.diffusion = 0.01 * lcg(&mut seed);
            let scheme = |x: f32| {
                if x < 0.5 {
                    Advection::SemiLagrangian
                } else {
                    Advection::MacCormack
                }
            };
            p.advection = scheme(lcg(&mut seed));
            p.velocity_advection = scheme(lcg(&mut seed));
            let mut sim = (b.build)(&scene);
            for _ in 0..8 {
                sim.step()
                    .unwrap_or_else(|e| panic!("{} set {set} ({:?}): {e}", b.name, scene.fluid));
            }
            let f = sim.frame(Select::ALL);
            let finite = |v: &Option<Vec<f32>>| v.iter().flatten().all(|x| x.is_finite());
            assert!(finite(&f.density) && finite(&f.temperature) && finite(&f.pressure));
            assert!(f.velocity.iter().flatten().flatten().all(|x| x.is_finite()));
        }
    }
}

#[test]
fn a_non_finite_field_is_reported_naming_it() {
    for b in &BACKENDS {
        let scene = Scene::default_plume().with_resolution(16);
        let mut sim = (b.poisoned)(&scene);
        match sim.step() {
            Err(SimError::NonFinite { step, field, .. }) => {
                assert_eq!((step, field), (1, "density"), "{}", b.name);
            }
            other => panic!("{}: a NaN in the density gave {other:?}", b.name),
        }
    }
}
