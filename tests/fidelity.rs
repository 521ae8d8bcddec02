//! Smoke that behaves (issue 13): outside air through open and inflow faces, no forces on
//! boundary faces, second-order traces, CFL sub-steps, mass, never NaN, and the default scene
//! staying a plume.

mod common;

use common::{all_finite, Rng};
use plume::scene::Scene;
use plume::sim::advect::{rk2, VelSampler, VelocityRef};
use plume::sim::{Advection, Boundaries, Dims, Emitter, Face, FluidParams, Grid, Solver};

fn quiet() -> FluidParams {
    FluidParams {
        buoyancy: 0.0,
        smoke_weight: 0.0,
        fade: 0.0,
        cooling: 0.0,
        ..FluidParams::default()
    }
}

fn solver(dims: Dims, p: FluidParams, b: Boundaries) -> Solver {
    Solver::new(Grid::unit(dims).expect("grid"), p, b).expect("solver")
}

/// A column of air moving down at 1 unit/s through a box whose top lets air in (open, or an
/// inflow) and whose bottom is open, filled with smoke and heat at the start: what enters
/// through the top must be clean ambient air, so after the air has crossed the box twice
/// nothing is left. (Before, traces leaving through the top were clamped to the top row,
/// which kept its smoke for ever and fed it back in.)
#[test]
fn air_entering_through_open_and_inflow_faces_is_clean_ambient_air() {
    for (top, scheme) in [
        (Face::Open, Advection::SemiLagrangian),
        (Face::Open, Advection::MacCormack),
        (Face::Inflow(1.0), Advection::SemiLagrangian),
        (Face::Inflow(1.0), Advection::MacCormack),
    ] {
        let b = Boundaries {
            y_max: top,
            y_min: Face::Open,
            ..Boundaries::closed()
        };
        let p = FluidParams {
            advection: scheme,
            ambient_temperature: 0.25,
            ..quiet()
        };
        let mut s = solver(Dims::new(8, 16, 8), p, b);
        s.density_mut().fill(1.0);
        s.temperature_mut().fill(2.0);
        {
            let [_, v, _] = s.velocity_mut();
            v.fill(-1.0);
        }
        s.set_boundaries(b).expect("boundaries");
        let m0 = s.total_density();
        for _ in 0..120 {
            s.step();
        }
        let left = s.total_density() / m0;
        let tmax = s.temperature().iter().fold(f32::MIN, |m, &t| m.max(t));
        assert!(
            left < 1e-3,
            "{top:?} {scheme:?}: {left} of the smoke is still there"
        );
        assert!(
            (tmax - 0.25).abs() < 1e-3,
            "{top:?} {scheme:?}: temperature {tmax} instead of ambient 0.25"
        );
        let speed = s
            .velocity(1)
            .iter()
            .fold(0.0f32, |m, &x| m.max((x + 1.0).abs()));
        assert!(
            speed < 1e-2,
            "{top:?}: the column no longer moves at 1 ({speed})"
        );
    }
}

/// With the source switched off and fade 0, smoke in a box with an open top can only leave:
/// the total never grows, and the cells under the open top do not become a reservoir.
#[test]
fn with_the_source_off_smoke_only_ever_leaves() {
    let mut scene = Scene::default_plume().with_resolution(24);
    scene.fluid.fade = 0.0;
    for e in &mut scene.emitters {
        e.end = Some(2.0);
    }
    let mut s = scene.build().expect("scene");
    for _ in 0..120 {
        s.step();
    }
    let mut last = s.total_density();
    let peak = last;
    for step in 0..600 {
        s.step();
        let now = s.total_density();
        assert!(
            now <= last * (1.0 + 1e-6),
            "step {step}: total grew from {last} to {now} with no source"
        );
        last = now;
    }
    assert!(
        last < peak,
        "nothing left through the open top ({last} of {peak})"
    );
}

/// Buoyancy and confinement act on interior faces only: the open top's faces are set by the
/// projection, not pushed by forces (which kept feeding downdrafts through the top).
#[test]
fn no_body_force_acts_on_boundary_faces() {
    let d = Dims::new(6, 5, 4);
    let density = vec![1.0; d.cells()];
    let temperature = vec![3.0; d.cells()];
    let dv = d.faces(1);
    let mut v = vec![0.0; dv.cells()];
    plume::sim::forces::buoyancy(d, &density, Some(&temperature), &mut v, 0.1, 1.5, 0.0, 0.1);
    for k in 0..d.nz {
        for i in 0..d.nx {
            assert_eq!(v[dv.idx(i, 0, k)], 0.0);
            assert_eq!(v[dv.idx(i, d.ny, k)], 0.0);
            assert!((v[dv.idx(i, 2, k)] - 0.1 * (1.5 * 3.0 - 0.1)).abs() < 1e-6);
        }
    }
}

/// Face velocities of the solid-body rotation u = ω × (x − c) about z (a linear field, which
/// trilinear interpolation reproduces exactly).
fn rotation(d: Dims, omega: f32) -> [Vec<f32>; 3] {
    let c = [d.nx as f32 * 0.5, d.ny as f32 * 0.5];
    let mut u = vec![0.0; d.faces(0).cells()];
    let mut v = vec![0.0; d.faces(1).cells()];
    let w = vec![0.0; d.faces(2).cells()];
    let (du, dv) = (d.faces(0), d.faces(1));
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..=d.nx {
                // x-face i at x = i, y at cell centre j + 0.5 (cell-index space).
                u[du.idx(i, j, k)] = -omega * (j as f32 + 0.5 - c[1]);
            }
        }
        for j in 0..=d.ny {
            for i in 0..d.nx {
                v[dv.idx(i, j, k)] = omega * (i as f32 + 0.5 - c[0]);
            }
        }
    }
    [u, v, w]
}

/// The traces are second order: in a solid-body rotation a trace of angle θ = ω·dt stays on
/// its circle to O(θ³) (a first-order Euler trace drifts outward by r·θ²/2) and lands at the
/// rotated point.
#[test]
fn traces_are_second_order_in_a_solid_body_rotation() {
    let d = Dims::new(40, 40, 3);
    let omega = 1.0;
    let [u, v, w] = rotation(d, omega);
    let vs = VelSampler::new(VelocityRef {
        dims: d,
        u: &u,
        v: &v,
        w: &w,
    });
    // Cell-array coordinates: cell i's centre at i, the rotation's centre at 19.5.
    let c = 19.5f32;
    let r = 10.0f32;
    for theta in [0.05f32, 0.1, 0.2] {
        let p = [c + r, c, 1.0];
        let u0 = vs.at_cell_coords(p);
        let end = rk2(&vs, p, u0, -theta / omega);
        let want = [c + r * theta.cos(), c - r * theta.sin()];
        let err = ((end[0] - want[0]).powi(2) + (end[1] - want[1]).powi(2)).sqrt();
        let euler_drift = r * theta * theta / 2.0;
        assert!(
            err < 0.2 * euler_drift && err < 0.25 * r * theta.powi(3) + 1e-4,
            "θ = {theta}: RK2 misses by {err} (Euler would drift {euler_drift})"
        );
    }
}

/// A fast flow is split into sub-steps so no sub-step moves it more than max_cfl cells;
/// the step reports how many it took and the CFL reached.
#[test]
fn fast_flow_takes_sub_steps_that_keep_the_cfl_number() {
    let b = Boundaries {
        x_min: Face::Inflow(5.0),
        x_max: Face::Open,
        ..Boundaries::closed()
    };
    for max_cfl in [0.5f32, 1.0, 2.0] {
        let p = FluidParams { max_cfl, ..quiet() };
        let mut s = solver(Dims::new(32, 16, 16), p, b);
        let st = s.step().clone();
        // 5 units/s for 1/60 s on cells of 1/32: 2.67 cells in all.
        let need = (5.0f32 / 60.0 * 32.0 / max_cfl).ceil() as u32;
        assert!(st.substeps >= need, "max_cfl {max_cfl}: {st:?}");
        assert!(st.substeps <= need + 1, "max_cfl {max_cfl}: {st:?}");
        assert!(
            st.cfl <= max_cfl * 1.0001,
            "max_cfl {max_cfl}: CFL {}",
            st.cfl
        );
        assert!(st.cfl > 0.5 * max_cfl, "max_cfl {max_cfl}: CFL {}", st.cfl);
        assert!((s.time() - 1.0 / 60.0).abs() < 1e-6, "{}", s.time());
        assert_eq!(s.steps(), 1);
    }
    // A quiet flow needs one.
    let mut s = solver(Dims::cube(16), quiet(), Boundaries::default());
    assert_eq!(s.step().substeps, 1);
}

/// dt up to 1 s with strong vorticity confinement stays finite (before: 1,427 NaN cells by
/// frame 40 at dt = 1 with ε = 6 or 10, and at dt = 0.033 with ε = 100).
#[test]
fn large_steps_and_strong_confinement_stay_finite() {
    for (dt, eps) in [(1.0f32, 6.0f32), (1.0, 10.0), (0.033, 100.0), (1.0, 100.0)] {
        let mut scene = Scene::default_plume().with_resolution(16);
        scene.fluid.dt = dt;
        scene.fluid.vorticity = eps;
        let mut s = scene.build().expect("scene");
        for frame in 0..40 {
            let st = s
                .try_step()
                .unwrap_or_else(|e| panic!("dt {dt} ε {eps}: {e}"))
                .clone();
            assert!(st.substeps >= 1 && st.cfl.is_finite(), "{st:?}");
            assert!(all_finite(&s), "dt {dt} ε {eps}: frame {frame} not finite");
        }
    }
}

/// In a closed box with no source and fade 0 the amount of smoke stays within 2% over 10 s
/// with either scheme (before: +12% semi-Lagrangian, +117% MacCormack over 14 s).
#[test]
fn a_closed_box_keeps_its_smoke() {
    for scheme in [Advection::SemiLagrangian, Advection::MacCormack] {
        let mut scene = Scene::default_plume().with_resolution(24);
        scene.boundaries = Boundaries::closed();
        scene.fluid.fade = 0.0;
        scene.fluid.advection = scheme;
        for e in &mut scene.emitters {
            e.end = Some(3.0);
        }
        let mut s = scene.build().expect("scene");
        for _ in 0..180 {
            s.step();
        }
        let m0 = s.total_density();
        let mut lo = m0;
        let mut hi = m0;
        for _ in 0..600 {
            s.step();
            lo = lo.min(s.total_density());
            hi = hi.max(s.total_density());
        }
        assert!(
            hi <= 1.02 * m0 && lo >= 0.98 * m0,
            "{scheme:?}: total in [{lo}, {hi}] from {m0}"
        );
        assert!(all_finite(&s));
    }
}

/// The correction takes back only advection's error: an emitter still adds exactly its
/// rate·dt per step (a closed box, nothing else moving the total).
#[test]
fn the_mass_correction_keeps_what_sources_add() {
    let mut s = solver(Dims::cube(16), quiet(), Boundaries::closed());
    s.add_emitter(Emitter::sphere([0.5, 0.5, 0.5], 0.2, 3.0))
        .expect("emitter");
    let mut last = s.total_density();
    for _ in 0..30 {
        let st = s.step().clone();
        let now = s.total_density();
        assert!(st.source_added > 0.0);
        assert!(
            ((now - last) - st.source_added).abs() <= 1e-4 * st.source_added,
            "added {} but the total moved by {}",
            st.source_added,
            now - last
        );
        last = now;
    }
}

/// The default scene stays a plume: over its 60th second of simulated time at most a
/// quarter of the cells hold density above 0.01 (the mean of one sample a second over the
/// last ten: the plume puffs, and one frame's figure moves by ±5 points), and the total never
/// exceeds what the emitter added minus what fade took (before: 96% of the box smoky by 20 s
/// at 64³; an opaque cube by 12 s at 32³). The jets collide into a sheet that spreads across
/// the box, so for them the test asks only that the box does not fill (at most 60%, before
/// 100%) and the same bound on the total.
#[test]
fn the_default_scene_stays_a_plume_for_a_minute() {
    for (name, limit) in [("plume", 0.25), ("jets", 0.6)] {
        let scene = Scene::resolve(name).expect("preset").with_resolution(32);
        let mut s = scene.build().expect("scene");
        let dt = f64::from(s.params().dt);
        let fade = (-f64::from(s.params().fade) * dt).exp();
        let mut budget = s.total_density();
        let steps = (60.0 / dt).round() as usize;
        let per_second = (1.0 / dt).round() as usize;
        let mut smoky = Vec::new();
        for step in 1..=steps {
            let st = s.try_step().expect("finite").clone();
            budget = budget * fade + st.source_added;
            let now = s.total_density();
            assert!(
                now <= budget * 1.0001 + 1e-9,
                "{name} step {step}: {now} held, but only {budget} was added minus fade"
            );
            if step + 10 * per_second > steps && step % per_second == 0 {
                smoky.push(s.fraction_above(0.01));
            }
        }
        assert_eq!(smoky.len(), 10);
        let mean = smoky.iter().sum::<f64>() / smoky.len() as f64;
        assert!(
            mean <= limit,
            "{name}: {:.0}% of the cells smoky over the last 10 s ({smoky:?})",
            100.0 * mean
        );
        assert!(s.total_density() > 0.0);
    }
}

/// 200 random parameter sets drawn over every documented range (dt to 1 s, confinement to
/// 100, forces to ±1000, both schemes, both pressure solvers, any CFL limit and sub-step cap,
/// inflows, domains from 0.01 to 100 units, emitters up to 10⁶/s and 10⁴ units/s): fields
/// stay finite and density non-negative.
#[test]
fn two_hundred_random_parameter_sets_across_the_documented_ranges_stay_finite() {
    let mut r = Rng::new(1313);
    for case in 0..200 {
        let dims = Dims::new(r.usize(3, 10), r.usize(3, 10), r.usize(3, 10));
        let face = |r: &mut Rng| match r.usize(0, 3) {
            0 | 1 => Face::Wall,
            2 => Face::Open,
            _ => Face::Inflow(r.log_range(1e-3, 1000.0)),
        };
        let mut b = Boundaries {
            x_min: face(&mut r),
            x_max: face(&mut r),
            y_min: face(&mut r),
            y_max: face(&mut r),
            z_min: face(&mut r),
            z_max: face(&mut r),
        };
        if b.validate().is_err() {
            b.y_max = Face::Open;
        }
        let zero_or = |r: &mut Rng, lo: f32, hi: f32| {
            if r.unit() < 0.3 {
                0.0
            } else {
                r.log_range(lo, hi)
            }
        };
        let p = FluidParams {
            dt: if r.unit() < 0.3 {
                1.0
            } else {
                r.log_range(1e-4, 1.0)
            },
            max_cfl: r.log_range(0.25, 16.0),
            max_substeps: r.log_range(1.0, 100.0) as u32,
            diffusion: zero_or(&mut r, 1e-6, 1.0),
            viscosity: zero_or(&mut r, 1e-6, 1.0),
            fade: zero_or(&mut r, 1e-3, 1000.0),
            smoke_weight: r.range(-1000.0, 1000.0),
            buoyancy: r.range(-1000.0, 1000.0),
            ambient_temperature: r.range(-1e4, 1e4),
            cooling: zero_or(&mut r, 1e-3, 1000.0),
            vorticity: if r.unit() < 0.3 {
                100.0
            } else {
                r.range(0.0, 100.0)
            },
            advection: if r.bool() {
                Advection::MacCormack
            } else {
                Advection::SemiLagrangian
            },
            velocity_advection: if r.bool() {
                Advection::MacCormack
            } else {
                Advection::SemiLagrangian
            },
            pressure_method: if r.bool() {
                plume::sim::PressureMethod::Multigrid
            } else {
                plume::sim::PressureMethod::RedBlackSor
            },
            pressure_tolerance: r.log_range(1e-7, 0.5),
            pressure_max_iterations: r.usize(1, 300) as u32,
            sor_omega: r.range(1.0, 1.99),
            diffusion_tolerance: r.log_range(1e-7, 0.5),
            diffusion_max_iterations: r.usize(1, 60) as u32,
        };
        // Any domain size and placement: the parameters are physical, the grid anything.
        let size = r.log_range(0.01, 100.0);
        let grid = Grid::new(dims, size, [r.range(-5.0, 5.0), 0.0, 0.0]).expect("grid");
        let mut s = Solver::new(grid, p.clone(), b).expect("valid parameters");
        let ext = grid.extent();
        for _ in 0..r.usize(1, 3) {
            let big = r.unit() < 0.3;
            let v = |r: &mut Rng| {
                if big {
                    r.range(-1e4, 1e4)
                } else {
                    r.range(-5.0, 5.0)
                }
            };
            let e = Emitter {
                center: [0, 1, 2].map(|a| grid.origin[a] + r.range(-0.2, 1.2) * ext[a]),
                radius: Some(r.log_range(1e-3, 10.0)),
                density: if big { 1e6 } else { r.log_range(1e-3, 1e3) },
                temperature: r.bool().then(|| r.range(-1e4, 1e4)),
                velocity: r.bool().then(|| [v(&mut r), v(&mut r), v(&mut r)]),
                ..Emitter::default()
            };
            s.add_emitter(e).expect("valid emitter");
        }
        for step in 0..30 {
            if let Err(e) = s.try_step() {
                panic!("case {case} step {step}: {e}; dims {dims}, size {size}, {p:?}, {b:?}");
            }
            assert!(
                all_finite(&s) && s.temperature().iter().all(|t| t.is_finite()),
                "case {case} step {step}: dims {dims}, {p:?}, {b:?}"
            );
        }
    }
}

/// A trace never crosses an obstacle: cut at the first solid cell on its way, however thin
/// the obstacle and however long the trace.
#[test]
fn traces_stop_at_solid_cells() {
    use plume::sim::advect::stop_at_solid;
    let d = Dims::new(12, 4, 4);
    let mut mask = vec![0u8; d.cells()];
    for k in 0..4 {
        for j in 0..4 {
            mask[d.idx(5, j, k)] = 1; // a wall one cell thick at x = 5
        }
    }
    // From x = 8 back to x = 2: stops on the near side of the wall (its face at 5.5).
    let end = stop_at_solid(&mask, d, [8.0, 1.5, 1.5], [2.0, 1.5, 1.5]);
    assert!(end[0] >= 5.5 && end[0] <= 8.0, "{end:?}");
    // A trace that stays on one side is untouched.
    assert_eq!(
        stop_at_solid(&mask, d, [8.0, 1.0, 1.0], [6.2, 2.0, 1.0]),
        [6.2, 2.0, 1.0]
    );
    // Outside the grid is not solid.
    assert_eq!(
        stop_at_solid(&mask, d, [10.0, 1.0, 1.0], [13.0, 1.0, 1.0]),
        [13.0, 1.0, 1.0]
    );
}

/// A flow straight through a thin wall at 4 cells a step (as a fast flow past a thin plate
/// can be, locally): the traces behind the wall stop at it and read the clean air on their
/// own side, instead of jumping over it to the smoke on the other.
#[test]
fn advection_does_not_carry_smoke_through_a_thin_wall() {
    use plume::sim::advect::{advect_cells_n, Exits, Scalar};
    let d = Dims::new(16, 4, 4);
    let mut mask = vec![0u8; d.cells()];
    let mut rho = vec![0.0f32; d.cells()];
    for k in 0..4 {
        for j in 0..4 {
            mask[d.idx(6, j, k)] = 1;
            for i in 0..6 {
                rho[d.idx(i, j, k)] = 1.0;
            }
        }
    }
    let u = vec![1.0f32; d.faces(0).cells()];
    let v = vec![0.0f32; d.faces(1).cells()];
    let w = vec![0.0f32; d.faces(2).cells()];
    let vel = VelocityRef {
        dims: d,
        u: &u,
        v: &v,
        w: &w,
    };
    let f = Scalar {
        src: &rho,
        scale: 1.0,
        offset: 0.0,
        outside: 0.0,
    };
    let run = |solid: Option<&[u8]>| {
        let mut out = vec![0.0f32; d.cells()];
        let exits = Exits {
            solid,
            ..Exits::default()
        };
        let mut vs = plume::sim::advect::VelSampler::new(vel);
        advect_cells_n([&mut out[..]], [f], vel, &mut vs, 4.0, &exits, None);
        (8..12).map(|i| out[d.idx(i, 1, 1)]).sum::<f32>()
    };
    assert!(
        run(None) > 1.0,
        "the set-up must carry smoke across without the check"
    );
    assert_eq!(run(Some(&mask)), 0.0, "smoke jumped the wall");
}

/// Smoke on one side of a wall stays there, whatever the flow does on either side, and none
/// is lost into the wall: diffusion is zero-flux at obstacles.
#[test]
fn smoke_does_not_leak_through_or_into_an_obstacle() {
    use plume::sim::Obstacle;
    let d = Dims::new(24, 12, 12);
    let p = FluidParams {
        diffusion: 1e-2,
        dt: 0.05,
        max_cfl: 4.0,
        ..quiet()
    };
    let mut s = solver(d, p, Boundaries::closed());
    // A wall across the whole box at x = 0.5, two cells thick (h = 1/24), where a trace at
    // CFL 4 would otherwise jump across.
    s.set_obstacles(vec![Obstacle::cuboid([0.5, 0.25, 0.25], [0.06, 0.5, 0.5])])
        .expect("obstacle");
    // Smoke on the left, swirling fast on both sides.
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..10 {
                s.density_mut()[d.idx(i, j, k)] = 1.0;
            }
        }
    }
    let mut r = Rng::new(5);
    for f in s.velocity_mut() {
        for x in f.iter_mut() {
            *x = r.range(-3.0, 3.0);
        }
    }
    s.set_boundaries(Boundaries::closed()).expect("walls");
    s.project();
    let m0 = s.total_density();
    let solid = s.solid_mask().expect("solids").to_vec();
    let wall_x: Vec<usize> = (0..d.nx).filter(|&i| solid[d.idx(i, 6, 6)] != 0).collect();
    assert_eq!(wall_x, vec![11, 12]);
    let right = wall_x[wall_x.len() - 1] + 1;
    for _ in 0..40 {
        s.step();
    }
    let mut beyond = 0.0f32;
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in right..d.nx {
                beyond += s.density()[d.idx(i, j, k)];
            }
        }
    }
    assert_eq!(beyond, 0.0, "smoke crossed the wall");
    for (c, &m) in solid.iter().enumerate() {
        if m != 0 {
            assert_eq!(s.density()[c], 0.0);
        }
    }
    let m1 = s.total_density();
    assert!((m1 / m0 - 1.0).abs() < 0.02, "{m0} → {m1}");
}

/// Faces inside an obstacle take the fluid's velocity two layers deep before advection, so
/// the flow beside an obstacle is not dragged by the zeros it holds.
#[test]
fn velocity_is_extrapolated_two_layers_into_obstacles() {
    use plume::sim::obstacles::Solids;
    use plume::sim::Obstacle;
    let g = Grid::unit(Dims::cube(16)).expect("grid");
    let solids = Solids::build(
        &g,
        &[Obstacle::cuboid([0.5, 0.25, 0.5], [1.0, 0.5, 1.0])
            .body()
            .expect("body")],
        0.0,
        0.0,
    );
    // The lower half (y < 0.5, cells j < 8) is solid; the fluid above moves at u = 2.
    let d = g.dims;
    let mut u = vec![2.0f32; d.faces(0).cells()];
    let mut v = vec![0.0f32; d.faces(1).cells()];
    let mut w = vec![0.0f32; d.faces(2).cells()];
    solids.set_faces([&mut u, &mut v, &mut w]);
    let du = d.faces(0);
    assert_eq!(u[du.idx(8, 7, 8)], 0.0);
    solids.extrapolate_faces(d, [&mut u, &mut v, &mut w], 2);
    assert_eq!(u[du.idx(8, 7, 8)], 2.0, "first layer");
    assert_eq!(u[du.idx(8, 6, 8)], 2.0, "second layer");
    assert_eq!(u[du.idx(8, 5, 8)], 0.0, "third layer untouched");
}

/// MacCormack for the velocity keeps a swirl alive longer than semi-Lagrangian (less
/// numerical viscosity), stays finite and leaves the flow divergence-free.
#[test]
fn maccormack_velocity_keeps_more_of_a_swirl() {
    let d = Dims::new(32, 32, 4);
    let mut energy = Vec::new();
    for scheme in [Advection::SemiLagrangian, Advection::MacCormack] {
        let p = FluidParams {
            velocity_advection: scheme,
            dt: 0.02,
            vorticity: 0.0,
            ..quiet()
        };
        let mut s = solver(d, p, Boundaries::closed());
        // A swirl of radius ~0.25 about the box's centre axis (z).
        {
            let [u, v, _] = s.velocity_mut();
            let (du, dv) = (d.faces(0), d.faces(1));
            let h = 1.0 / 32.0;
            let swirl = |x: f32, y: f32| {
                let (dx, dy) = (x - 0.5, y - 0.5);
                let r2 = (dx * dx + dy * dy) / (0.15 * 0.15);
                let g = (-r2).exp();
                [-dy * g * 8.0, dx * g * 8.0]
            };
            for k in 0..d.nz {
                for j in 0..d.ny {
                    for i in 0..=d.nx {
                        u[du.idx(i, j, k)] = swirl(i as f32 * h, (j as f32 + 0.5) * h)[0];
                    }
                }
                for j in 0..=d.ny {
                    for i in 0..d.nx {
                        v[dv.idx(i, j, k)] = swirl((i as f32 + 0.5) * h, j as f32 * h)[1];
                    }
                }
            }
        }
        s.set_boundaries(Boundaries::closed()).expect("walls");
        s.project();
        let e0: f64 = (0..2)
            .flat_map(|a| s.velocity(a).iter())
            .map(|&x| f64::from(x * x))
            .sum();
        for _ in 0..60 {
            s.try_step().expect("finite");
        }
        let e1: f64 = (0..2)
            .flat_map(|a| s.velocity(a).iter())
            .map(|&x| f64::from(x * x))
            .sum();
        assert!(common::max_face_divergence(&s) < 1e-2, "{scheme:?}");
        energy.push(e1 / e0);
    }
    assert!(
        energy[1] > energy[0] * 1.05 && energy[1] <= 1.0,
        "kinetic energy kept: semi-Lagrangian {:.3}, MacCormack {:.3}",
        energy[0],
        energy[1]
    );
}

/// Should a field ever stop being finite, the step that did it says so: `try_step` returns
/// an error naming the step, the field and the likely parameter, and the stats flag it.
#[test]
fn a_non_finite_field_is_reported_by_the_step_that_made_it() {
    let mut scene = Scene::default_plume().with_resolution(12);
    scene.fluid.vorticity = 40.0;
    let mut s = scene.build().expect("scene");
    s.try_step().expect("a healthy first step");
    assert_eq!(s.non_finite_field(), None);
    // Poison one cell (nothing a user can do; the parameters are validated).
    s.density_mut()[100] = f32::NAN;
    let e = s.try_step().expect_err("the NaN is found");
    let msg = e.to_string();
    assert!(msg.contains("step 2"), "{msg}");
    assert!(msg.contains("density"), "{msg}");
    assert!(msg.contains("vorticity = 40"), "{msg}");
    assert_eq!(s.non_finite_field(), Some("density"));
    let mut s = solver(Dims::cube(8), quiet(), Boundaries::default());
    s.temperature_mut()[200] = f32::INFINITY;
    let e = s.try_step().expect_err("the infinity is found").to_string();
    assert!(e.contains("step 1") && e.contains("temperature"), "{e}");
    assert!(e.contains("dt = "), "{e}");
}

/// Streamlines of a real frame (issue 18): traced from seeds around the wind tunnel's
/// emitter, none enters the obstacle or leaves the domain, and each is at most the set
/// length.
#[test]
fn streamlines_of_the_wind_tunnel_stay_in_the_fluid() {
    use plume::frame::Select;
    use plume::sim::Simulation;
    use plume::streamlines::{seeds_around, trace_all, Trace};
    let scene = Scene::preset("wind_tunnel")
        .expect("preset")
        .with_resolution(48);
    let mut s = scene.build().expect("builds");
    for _ in 0..30 {
        s.try_step().expect("finite");
    }
    let f = Simulation::frame(&s, Select::ALL);
    let solid = f.solid.clone().expect("the wind tunnel has an obstacle");
    let (lo, hi) = scene.bounds();
    let t = Trace::for_grid(&f.grid, 1.5);
    let mut seeds = seeds_around(&f.emitters, 40);
    // And a column of seeds straight upstream of the sphere, which must bend around it.
    let c = scene.obstacles[0].center;
    seeds.extend((0..9).map(|i| [lo[0] + 0.05, c[1] - 0.08 + 0.02 * i as f32, c[2]]));
    let lines = trace_all(&f, &seeds, t);
    assert!(lines.len() > 20, "{} lines", lines.len());
    let d = f.grid.dims;
    for l in &lines {
        assert!(l.length() <= 1.5 + t.step, "{}", l.length());
        for p in &l.points {
            assert!(
                (0..3).all(|a| p[a] >= lo[a] && p[a] <= hi[a]),
                "{p:?} left the domain"
            );
            let cell = f.grid.cell_at(*p).expect("inside");
            assert_eq!(
                solid[d.idx(cell[0], cell[1], cell[2])],
                0,
                "{p:?} is inside the obstacle"
            );
        }
    }
}
