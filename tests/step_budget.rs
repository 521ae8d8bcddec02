//! A step's cost is bounded at allowed settings, and said before it starts (issue 47, item 2).
//!
//! Random scenes over every fluid setting's whole range (the range table's), with emitters
//! up to the fastest allowed, never make a step do more than 50 times the work of the
//! default scene's step on the same grid; work is counted in sweeps of the grid from what the
//! step did (sub-steps, pressure and diffusion iterations: `StepStats::work`, weighted as
//! `sim::cost` says), so the bound does not depend on the machine's speed. Before the budget,
//! a 32×20×32 scene of red-black SOR, 374 sub-steps and an emitter at 8000 units/s took
//! 25.6 s a step (about 20 000 default steps' work). Both backends run the issue's scene.
//! And `run`, `render`, `simulate` and `bench` say once, before the first step, when a scene
//! costs more than ten default steps, naming the setting that costs most.

mod common;

use common::Rng;
use plume::ranges::{self, Param, Scale};
use plume::scene::Scene;
use plume::sim::cost;
use plume::sim::{Dims, Simulation};
use std::process::Command;

/// A value of `p` drawn over its whole allowed range, ends included (as the scale a slider
/// uses: orders of magnitude for log ranges).
fn draw(r: &mut Rng, p: &Param) -> f64 {
    let (lo, hi) = (p.min, p.max);
    let x = if r.unit() < 0.15 {
        // The ends themselves, where allowed.
        if r.bool() && !p.max_open {
            hi
        } else if !p.min_open {
            lo
        } else {
            hi * 0.999
        }
    } else if p.scale == Scale::Log && lo > 0.0 {
        (lo.ln() + f64::from(r.unit()) * (hi.ln() - lo.ln())).exp()
    } else if p.scale == Scale::Log && lo >= 0.0 {
        // From zero: a tenth zero, the rest over the top six decades.
        if r.unit() < 0.1 {
            0.0
        } else {
            hi * 10f64.powf(-6.0 * f64::from(r.unit()))
        }
    } else {
        lo + f64::from(r.unit()) * (hi - lo)
    };
    let x = x.clamp(lo, hi);
    let x = if p.max_open && x >= hi { hi * 0.999 } else { x };
    let x = if p.min_open && x <= lo {
        lo + (hi - lo) * 1e-3
    } else {
        x
    };
    if p.integer {
        x.round().clamp(lo.max(1.0), hi)
    } else {
        x
    }
}

/// A random scene: every `[fluid]` number drawn over its range, both solvers and schemes,
/// one or two emitters up to 10 000 units/s, some of them burning.
fn random_scene(r: &mut Rng) -> String {
    let dims: Vec<usize> = (0..3).map(|_| r.usize(10, 24)).collect();
    // The longest side is 1: positions as fractions of each side.
    let longest = *dims.iter().max().expect("three") as f32;
    let ext: Vec<f32> = dims.iter().map(|&d| d as f32 / longest).collect();
    let mut s = format!(
        "name = \"random\"\n[grid]\ndims = [{}, {}, {}]\n[fluid]\n",
        dims[0], dims[1], dims[2]
    );
    for p in ranges::fluid::LIST {
        let v = draw(r, p);
        // Forces and temperatures of the upper decades mostly blow a scene up before its
        // cost shows (the finite check stops it); keep them where flows stay finite.
        let v = match p.key {
            "smoke_weight" | "buoyancy" => v.clamp(-50.0, 50.0),
            "vorticity" => v.min(10.0),
            _ => v,
        };
        if p.integer {
            s.push_str(&format!("{} = {}\n", p.key, v as u64));
        } else {
            s.push_str(&format!("{} = {v:e}\n", p.key));
        }
    }
    let pick = |r: &mut Rng, a: &[&str]| a[r.usize(0, a.len() - 1)].to_string();
    s.push_str(&format!(
        "pressure_method = \"{}\"\nadvection = \"{}\"\nvelocity_advection = \"{}\"\n",
        pick(r, &["multigrid", "red_black_sor"]),
        pick(r, &["semi_lagrangian", "maccormack"]),
        pick(r, &["semi_lagrangian", "maccormack"]),
    ));
    for _ in 0..r.usize(1, 2) {
        let v: Vec<f32> = (0..3)
            .map(|_| r.log_range(0.1, 1e4) * if r.bool() { -1.0 } else { 1.0 })
            .collect();
        s.push_str(&format!(
            "[[emitter]]\nshape = \"sphere\"\ncenter = [{}, {}, {}]\nradius = {}\n\
             density = 1.0\ntemperature = {}\nvelocity = [{}, {}, {}]\nfuel = {}\n",
            ext[0] * r.range(0.2, 0.8),
            ext[1] * r.range(0.2, 0.6),
            ext[2] * r.range(0.2, 0.8),
            r.log_range(0.05, 0.3),
            r.range(0.0, 5.0),
            v[0],
            v[1],
            v[2],
            if r.unit() < 0.3 { 1.0 } else { 0.0 }
        ));
    }
    s
}

/// The issue's scene, on `dims`: red-black SOR to 1e-7 with the most iterations allowed,
/// the most sub-steps allowed and an emitter at 8000 units/s.
fn issue_scene(dims: [usize; 3]) -> Scene {
    let text = format!(
        "name = \"dear\"\n[grid]\ndims = [{}, {}, {}]\n[fluid]\nmax_substeps = 100\n\
         pressure_method = \"red_black_sor\"\npressure_tolerance = 1e-7\n\
         pressure_max_iterations = 10000\n[[emitter]]\nshape = \"sphere\"\n\
         center = [0.5, 0.3, 0.5]\nradius = 0.1\ndensity = 1.0\nvelocity = [8000.0, 0.0, 0.0]\n",
        dims[0], dims[1], dims[2]
    );
    Scene::from_toml(&text, None).expect("the issue's scene is in range")
}

/// The work of each of `n` steps (until a non-finite field stops the run), and whether the
/// budget cut any.
fn works(sim: &mut dyn Simulation, n: usize) -> (Vec<f64>, bool) {
    let mut out = Vec::new();
    let mut limited = false;
    for _ in 0..n {
        let Ok(st) = sim.step() else { break };
        assert!(st.work > 0.0, "a step reports its work");
        out.push(st.work);
        limited |= st.budget_limited;
    }
    (out, limited)
}

/// The default scene's mean work a step on `dims`, after it has developed a little.
fn default_work(build: &dyn Fn(&Scene) -> Box<dyn Simulation>, dims: Dims) -> f64 {
    let scene = Scene::default_plume().with_dims(dims);
    let mut sim = build(&scene);
    let (w, _) = works(sim.as_mut(), 8);
    let tail = &w[3..];
    tail.iter().sum::<f64>() / tail.len() as f64
}

fn cpu(scene: &Scene) -> Box<dyn Simulation> {
    Box::new(scene.build().expect("cpu"))
}

fn gpu(scene: &Scene) -> Box<dyn Simulation> {
    Box::new(plume::backend::gpu(scene).unwrap_or_else(|e| {
        panic!("no GPU solver: {e}. The GPU tests need Mesa's EGL and llvmpipe (GL 4.5).")
    }))
}

#[test]
fn random_in_range_scenes_cost_at_most_fifty_default_steps() {
    let mut worst = 0.0f64;
    let mut limited_scenes = 0;
    for seed in 0..40u64 {
        let (scene, text) = if seed == 0 {
            (issue_scene([32, 20, 32]), "the issue's scene".to_string())
        } else {
            let text = random_scene(&mut Rng::new(seed));
            let scene = Scene::from_toml(&text, None)
                .unwrap_or_else(|e| panic!("seed {seed}: drawn within the ranges: {e}\n{text}"));
            (scene, text)
        };
        let base = default_work(&cpu, scene.dims());
        let mut sim = cpu(&scene);
        let (w, limited) = works(sim.as_mut(), 3);
        limited_scenes += usize::from(limited);
        for (i, x) in w.iter().enumerate() {
            worst = worst.max(x / base);
            assert!(
                *x <= 50.0 * base,
                "seed {seed}, step {}: {x:.0} sweeps, {:.1} times the default scene's \
                 {base:.0}\n{text}",
                i + 1,
                x / base
            );
        }
    }
    eprintln!("worst step: {worst:.1} default steps; {limited_scenes} scenes budget-limited");
    // The draws reach the dear corner of the ranges, where the budget binds.
    assert!(
        worst > 20.0 && limited_scenes >= 2,
        "the random scenes never came near the bound (worst {worst:.1}, {limited_scenes} \
         limited): the test would not see it broken"
    );
}

/// A scene dear on both backends (the GPU solves the pressure with multigrid whatever the
/// scene asks): strong viscosity and diffusion to a tight tolerance with the most
/// iterations allowed, the most sub-steps and an emitter at 8000 units/s.
fn viscous_scene(dims: [usize; 3]) -> Scene {
    let text = format!(
        "name = \"viscous\"\n[grid]\ndims = [{}, {}, {}]\n[fluid]\nmax_substeps = 100\n\
         viscosity = 1.0\ndiffusion = 1.0\ndiffusion_tolerance = 1e-7\n\
         diffusion_max_iterations = 1000\npressure_tolerance = 1e-7\n[[emitter]]\n\
         shape = \"sphere\"\ncenter = [0.5, 0.3, 0.5]\nradius = 0.1\ndensity = 1.0\n\
         velocity = [8000.0, 0.0, 0.0]\n",
        dims[0], dims[1], dims[2]
    );
    Scene::from_toml(&text, None).expect("the viscous scene is in range")
}

#[test]
fn a_dear_scene_is_held_to_the_budget_on_both_backends() {
    let scene = viscous_scene([16, 10, 16]);
    for (name, build) in [
        ("cpu", &cpu as &dyn Fn(&Scene) -> Box<dyn Simulation>),
        ("gpu", &gpu),
    ] {
        let base = default_work(build, scene.dims());
        let mut sim = build(&scene);
        let (w, limited) = works(sim.as_mut(), 3);
        eprintln!("{name}: default {base:.0} sweeps, the scene's {w:?}");
        assert_eq!(w.len(), 3, "{name}: the steps stay finite");
        assert!(limited, "{name}: the budget cut the diffusion solves short");
        for x in &w {
            assert!(
                *x <= 50.0 * base && *x > 10.0 * base,
                "{name}: {x:.0} sweeps against the default's {base:.0}"
            );
        }
        // The sub-step cap scales with the grid: 16 cells / max_cfl 2.
        assert_eq!(sim.step().expect("finite").substeps, 8, "{name}");
    }
}

#[test]
fn the_estimate_names_what_costs_most() {
    let dear = issue_scene([32, 20, 32]);
    let note = dear
        .cost_note()
        .expect("the issue's scene is above ten default steps");
    assert!(
        note.contains("sub-steps") && note.contains("8000"),
        "{note}"
    );
    let mut sor = Scene::default_plume().with_dims(Dims::new(128, 128, 128));
    sor.fluid.pressure_method = plume::sim::PressureMethod::RedBlackSor;
    sor.fluid.pressure_tolerance = 1e-6;
    sor.fluid.pressure_max_iterations = 10_000;
    let note = sor.cost_note().expect("SOR at 1e-6 on 128³");
    assert!(note.contains("red_black_sor"), "{note}");
    let mut visc = Scene::default_plume();
    visc.fluid.viscosity = 0.5;
    visc.fluid.diffusion_max_iterations = 1000;
    let note = visc.cost_note().expect("strong viscosity");
    assert!(note.contains("viscosity = 0.5"), "{note}");
    for name in Scene::preset_names() {
        let s = Scene::preset(name).expect("preset");
        assert_eq!(
            s.cost_note(),
            None,
            "{name}: a preset costs no more than ten steps"
        );
        let e = cost::estimate(&s.fluid, &s.grid_placement(), 0.0, false);
        assert!(e.times_default < cost::NOTE_ABOVE, "{name}: {e:?}");
    }
}

#[test]
fn each_command_says_once_before_the_first_step_what_a_dear_scene_costs() {
    let dir = std::env::temp_dir().join(format!("plume-step-budget-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let scene = dir.join("dear.toml");
    let mut s = issue_scene([16, 10, 16]);
    s.name = "dear".into();
    s.save(&scene).expect("save");
    let scene = scene.to_str().expect("utf-8").to_string();
    for cmd in ["run", "render", "simulate", "bench"] {
        for (which, dear) in [(scene.as_str(), true), ("plume", false)] {
            let target = dir.join(format!("{cmd}-{dear}"));
            let target = target.to_str().expect("utf-8");
            let png = format!("{target}.png");
            let args: Vec<&str> = match cmd {
                "run" => vec!["run", "--frames", "1", "--out", target],
                "render" => vec![
                    "render", "--steps", "1", "--width", "32", "--height", "24", "--out", &png,
                ],
                "simulate" => vec!["simulate", "--seconds", "0.02"],
                _ => vec!["bench", "--steps", "1", "--warmup", "0"],
            };
            let o = Command::new(env!("CARGO_BIN_EXE_plume"))
                .args(&args)
                .args(["--backend", "cpu", "--scene", which])
                .output()
                .expect("run plume");
            let err = String::from_utf8_lossy(&o.stderr);
            assert!(o.status.success(), "{args:?} {which}: {err}");
            let notes = err.matches("times the default scene's").count();
            if dear {
                assert_eq!(notes, 1, "{cmd}: said once\n{err}");
                assert!(
                    err.contains("red_black_sor"),
                    "{cmd}: names the cause\n{err}"
                );
                let first = err.lines().next().unwrap_or("");
                assert!(
                    first.contains("times the default"),
                    "{cmd}: said first\n{err}"
                );
            } else {
                assert_eq!(notes, 0, "{cmd}: the default scene is not dear\n{err}");
            }
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_work_is_what_the_step_did() {
    // One sub-step, two multigrid iterations: the default scene's step by the weights.
    let scene = Scene::default_plume().with_resolution(24);
    let mut s = scene.build().expect("cpu");
    let mut last = None;
    for _ in 0..10 {
        last = Some(s.step().clone());
    }
    let st = last.expect("stepped");
    let p = &scene.fluid;
    let expect = cost::sub_step_base(p, false) * f64::from(st.substeps)
        + cost::pressure_iteration(p) * f64::from(st.pressure_iterations);
    assert!(
        (st.work - expect).abs() < 1e-9,
        "{} against {expect}",
        st.work
    );
    assert!(
        (st.work / cost::default_step() - 1.0).abs() < 0.6,
        "the default scene's step is about one default step: {} sweeps",
        st.work
    );
}
