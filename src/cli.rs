//! Command-line definitions (clap). `main.rs` dispatches on them.

use crate::sim::Dims;
use clap::{Args, Parser, Subcommand};

/// Plume: a real-time 3D smoke simulator.
#[derive(Parser, Debug)]
#[command(name = "plume", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command Plume runs the default scene (`simulate`).
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Simulate the default scene headless and print its state as it develops.
    Simulate(SimulateArgs),
    /// Measure the solver: ms per step overall and per stage.
    Bench(BenchArgs),
}

/// Grid size options shared by the commands.
#[derive(Args, Debug, Clone)]
pub struct GridArgs {
    /// Cubic grid of N cells per side (3..=1024).
    #[arg(long, value_name = "N", conflicts_with = "dims", value_parser = parse_size)]
    pub size: Option<usize>,
    /// Grid dimensions as X,Y,Z (each 3..=1024).
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dims)]
    pub dims: Option<Dims>,
}

impl GridArgs {
    /// The requested dimensions, if any.
    pub fn dims(&self) -> Option<Dims> {
        self.dims.or(self.size.map(Dims::cube))
    }
}

/// `plume simulate`.
#[derive(Args, Debug, Clone)]
pub struct SimulateArgs {
    /// Grid size.
    #[command(flatten)]
    pub grid: GridArgs,
    /// Simulated seconds to run.
    #[arg(long, default_value_t = 4.0, value_parser = parse_seconds)]
    pub seconds: f64,
}

impl Default for SimulateArgs {
    fn default() -> Self {
        Self {
            grid: GridArgs {
                size: None,
                dims: None,
            },
            seconds: 4.0,
        }
    }
}

/// `plume bench`.
#[derive(Args, Debug, Clone)]
pub struct BenchArgs {
    /// Grid size (default 64³).
    #[command(flatten)]
    pub grid: GridArgs,
    /// Steps measured.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(1..=100000))]
    pub steps: u32,
    /// Steps run before measuring, so the plume has developed.
    #[arg(long, default_value_t = 30, value_parser = clap::value_parser!(u32).range(0..=100000))]
    pub warmup: u32,
    /// Also time a serial port of the article's FluidCubeStep at 4 and 20 iterations.
    #[arg(long)]
    pub baseline: bool,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Worker threads (default: one per core).
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=1024))]
    pub threads: Option<u32>,
}

fn parse_size(s: &str) -> Result<usize, String> {
    let n: usize = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    Dims::cube(n).validate().map_err(|e| e.to_string())?;
    Ok(n)
}

/// Parses `X,Y,Z` into validated dimensions.
pub fn parse_dims(s: &str) -> Result<Dims, String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("expected three numbers X,Y,Z, got '{s}'"));
    }
    let mut n = [0usize; 3];
    for (v, p) in n.iter_mut().zip(&parts) {
        *v = p
            .parse()
            .map_err(|_| format!("'{p}' is not a whole number"))?;
    }
    let d = Dims::new(n[0], n[1], n[2]);
    d.validate().map_err(|e| e.to_string())?;
    Ok(d)
}

fn parse_seconds(s: &str) -> Result<f64, String> {
    let v: f64 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a number"))?;
    if v.is_finite() && v > 0.0 && v <= 1.0e6 {
        Ok(v)
    } else {
        Err(format!(
            "{v} is outside the allowed range (0, 1000000] seconds"
        ))
    }
}
