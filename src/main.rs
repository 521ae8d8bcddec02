//! The `plume` binary: parse the command line, dispatch, report errors.

use anyhow::{Context, Result};
use clap::Parser;
use plume::bench::{self, BenchConfig};
use plume::cli::{BenchArgs, Cli, Command, SimulateArgs};
use plume::scene::Scene;
use std::io::Write;

fn main() {
    let cli = Cli::parse();
    if let Err(e) = run(cli) {
        eprintln!("error: {e}");
        for cause in e.chain().skip(1) {
            eprintln!("  caused by: {cause}");
        }
        std::process::exit(1);
    }
}

fn run(cli: Cli) -> Result<()> {
    match cli
        .command
        .unwrap_or(Command::Simulate(SimulateArgs::default()))
    {
        Command::Simulate(a) => simulate(a),
        Command::Bench(a) => bench_cmd(a),
    }
}

fn scene_for(dims: Option<plume::sim::Dims>) -> Scene {
    let s = Scene::default_plume();
    match dims {
        Some(d) => s.with_dims(d),
        None => s,
    }
}

fn simulate(a: SimulateArgs) -> Result<()> {
    let scene = scene_for(a.grid.dims());
    let mut solver = scene.build().context("building the default scene")?;
    let d = solver.dims();
    println!(
        "scene '{}' on a {d} grid, dt = {:.4} s, pressure solver: {}",
        scene.name,
        solver.params().dt,
        solver.pressure_solver_name()
    );
    println!(
        "    time   steps   smoke amount   centroid height   pressure it   residual   ms/step"
    );
    let dt = solver.params().dt as f64;
    let total = (a.seconds / dt).ceil() as u64;
    let every = ((0.25 / dt).round() as u64).max(1);
    let mut out = std::io::stdout().lock();
    let mut ms = 0.0;
    for n in 1..=total {
        ms += solver.step().total_ms;
        if n % every == 0 || n == total {
            let st = solver.stats();
            let h = solver.density_centroid().map_or(f64::NAN, |c| c[1]);
            writeln!(
                out,
                "{:7.2}s {:7} {:14.5} {:17.3} {:13} {:10.1e} {:9.2}",
                solver.time(),
                solver.steps(),
                solver.total_density(),
                h,
                st.pressure_iterations,
                st.pressure_residual,
                ms / every as f64
            )?;
            ms = 0.0;
        }
    }
    Ok(())
}

fn bench_cmd(a: BenchArgs) -> Result<()> {
    if let Some(t) = a.threads {
        rayon::ThreadPoolBuilder::new()
            .num_threads(t as usize)
            .build_global()
            .context("setting up the worker threads")?;
    }
    let cfg = BenchConfig {
        scene: scene_for(a.grid.dims()),
        warmup: a.warmup as usize,
        steps: a.steps as usize,
        baseline: a.baseline,
        baseline_steps: 3,
    };
    let report = bench::run(&cfg).context("running the benchmark")?;
    if a.json {
        println!("{}", serde_json::to_string(&report)?);
    } else {
        print!("{}", report.to_text());
    }
    Ok(())
}
