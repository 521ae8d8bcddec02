//! Command-line definitions (clap). `main.rs` dispatches on them.

use crate::sim::{Dims, PressureMethod};
use clap::{Args, Parser, Subcommand};

/// Plume: a real-time 3D smoke simulator.
#[derive(Parser, Debug)]
#[command(
    name = "plume",
    version,
    about,
    long_about = None,
    args_conflicts_with_subcommands = true,
    allow_negative_numbers = true,
)]
pub struct Cli {
    /// What to do; without a command Plume opens the viewer (`view`), taking the view's
    /// options (`plume --scene jets` is `plume view --scene jets`).
    #[command(subcommand)]
    pub command: Option<Command>,
    /// The viewer's options when no command is given.
    #[command(
        flatten,
        next_help_heading = "Viewer options (plume without a command is plume view)"
    )]
    pub view: ViewArgs,
}

impl Cli {
    /// The command to run: the one given, or `view` with the options given without one.
    pub fn into_command(self) -> Command {
        self.command.unwrap_or(Command::View(self.view))
    }
}

/// Subcommands.
#[derive(Subcommand, Debug)]
pub enum Command {
    /// Open the interactive viewer (the default).
    #[command(allow_negative_numbers = true)]
    View(ViewArgs),
    /// Simulate headless and export volume frames (OpenVDB, VTK, NumPy).
    #[command(allow_negative_numbers = true)]
    Run(RunArgs),
    /// Simulate a scene headless and print its state as it develops.
    #[command(allow_negative_numbers = true)]
    Simulate(SimulateArgs),
    /// Measure the solver: ms per step overall and per stage.
    #[command(allow_negative_numbers = true)]
    Bench(BenchArgs),
    /// Simulate headless and write an image (PNG or JPEG) of what the viewer shows, a PNG
    /// sequence or an animated GIF (a flipbook).
    #[command(allow_negative_numbers = true)]
    Render(RenderArgs),
    /// Run variants of one scene (a wedge): each combination of the values given with --vary
    /// into its own run folder, listed in wedge.json, with a contact sheet of their last frames.
    #[command(allow_negative_numbers = true)]
    Wedge(WedgeArgs),
    /// Remove a run from its folder: the files its manifest lists (where they are still what
    /// Plume wrote) and the manifest, as --overwrite would; every other file stays.
    Free(FreeArgs),
}

/// `plume free`.
#[derive(Args, Debug, Clone)]
pub struct FreeArgs {
    /// The run's folder (one `plume run` wrote).
    #[arg(value_name = "DIR")]
    pub dir: std::path::PathBuf,
}

/// `plume wedge`.
#[derive(Args, Debug, Clone)]
pub struct WedgeArgs {
    /// The scene: a scene file (TOML) or a preset's name (as --scene).
    #[arg(value_name = "SCENE")]
    pub scene: Option<String>,
    /// A key of the scene and its values: KEY=a,b,c (a list) or KEY=from:to:count (count values
    /// from `from` to `to`, both included), e.g. fluid.vorticity=0,2,4 or
    /// emitter.0.temperature=1:3:5. Repeat it to vary several keys: every combination runs.
    #[arg(long, value_name = "KEY=VALUES", required = true, value_parser = crate::wedge::Vary::parse)]
    pub vary: Vec<crate::wedge::Vary>,
    /// Also a contact sheet every K frames (contact_NNNN.png) besides the last (contact.png).
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub sheet_every: Option<u32>,
    /// Everything `plume run` takes: each variant is such a run, into DIR/v0001, DIR/v0002, …
    #[command(flatten)]
    pub run: RunArgs,
}

/// `plume render`.
#[derive(Args, Debug, Clone)]
pub struct RenderArgs {
    /// Grid size (default: the scene's, 64³).
    #[command(flatten)]
    pub grid: GridArgs,
    /// Solver steps to run before the (last) image.
    #[arg(long, default_value_t = 90, value_parser = clap::value_parser!(u32).range(0..=1_000_000))]
    pub steps: u32,
    /// Draw the frames a run folder holds (what `plume run`, the viewer's recording or Python
    /// wrote) instead of simulating: --frame N of them, or with --every K every K-th frame
    /// from the first. The scene, grid and camera are the run's.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["scene", "size", "dims", "pressure", "upres", "set", "steps"]
    )]
    pub run: Option<std::path::PathBuf>,
    /// With --run: the frame to draw, by its number (as its files and manifest.json number
    /// them, from 1); negative counts from the end (the default, -1, is the last).
    #[arg(
        long,
        value_name = "N",
        conflicts_with = "every",
        allow_negative_numbers = true
    )]
    pub frame: Option<i64>,
    /// Image width in pixels.
    #[arg(long, default_value_t = 1280, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub width: u32,
    /// Image height in pixels.
    #[arg(long, default_value_t = 720, value_parser = clap::value_parser!(u32).range(1..=16384))]
    pub height: u32,
    /// Camera as YAW,PITCH,DIST: degrees around the vertical axis, degrees of elevation, and
    /// distance from the domain's centre in domain units (default: framed, 30,20).
    #[arg(long, value_name = "YAW,PITCH,DIST", value_parser = parse_camera)]
    pub camera: Option<[f32; 3]>,
    /// Output image: .png, or .jpg/.jpeg (JPEG, quality 92); with --every, an animated .gif
    /// (a flipbook), or else the folder for the numbered PNG sequence.
    #[arg(long, value_name = "PATH")]
    pub out: std::path::PathBuf,
    /// Draw an image every K steps (with --run: every K-th frame of the run): frames of the
    /// --out flipbook (.gif), or frame_0001.png, … in the --out folder.
    #[arg(long, value_name = "K", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub every: Option<u32>,
    /// Frames per second the flipbook plays at (default: real time, each frame held for the
    /// simulated time between frames; GIF frames last at least 1/50 s).
    #[arg(long, value_name = "F", requires = "every", value_parser = parse_fps)]
    pub fps: Option<f64>,
    /// Extinction per unit density per domain unit.
    #[arg(long, value_parser = parse_density_scale)]
    pub density_scale: Option<f32>,
    /// Raymarch samples per voxel (1..=8).
    #[arg(long, value_parser = parse_quality)]
    pub quality: Option<f32>,
    /// Turn self-shadowing off.
    #[arg(long)]
    pub no_shadows: bool,
    /// Do not draw the domain's outline.
    #[arg(long)]
    pub no_outline: bool,
    /// Print one JSON object with timings (upload_ms, render_ms: medians per frame).
    #[arg(long)]
    pub json: bool,
    /// Draw streamlines of the velocity, seeded around the emitters, coloured by speed
    /// (Inferno from the slowest, dark, to the fastest, bright), dimmed by the smoke in front.
    #[arg(long)]
    pub streamlines: bool,
    /// How many streamlines (with --streamlines).
    #[arg(long, value_name = "N", default_value_t = 64, value_parser = clap::value_parser!(u32).range(1..=10_000))]
    pub streamline_count: u32,
    /// Longest streamline, domain units (with --streamlines).
    #[arg(long, value_name = "L", default_value_t = 1.5)]
    pub streamline_length: f32,
}

fn parse_camera(s: &str) -> Result<[f32; 3], String> {
    let parts: Vec<&str> = s.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(format!("expected YAW,PITCH,DIST, got '{s}'"));
    }
    let mut v = [0.0f32; 3];
    for (x, p) in v.iter_mut().zip(&parts) {
        *x = p.parse().map_err(|_| format!("'{p}' is not a number"))?;
        if !x.is_finite() {
            return Err(format!("'{p}' is not a finite number"));
        }
    }
    use crate::ranges::scene::{DISTANCE, PITCH};
    if !PITCH.contains(f64::from(v[1])) {
        return Err(format!(
            "pitch {} is outside {} degrees",
            v[1],
            PITCH.range_text()
        ));
    }
    if !DISTANCE.contains(f64::from(v[2])) {
        return Err(format!(
            "distance {} is outside {}",
            v[2],
            DISTANCE.range_text()
        ));
    }
    Ok(v)
}

fn parse_density_scale(s: &str) -> Result<f32, String> {
    crate::ranges::render::DENSITY_SCALE
        .parse(s)
        .map(|v| v as f32)
}

fn parse_fps(s: &str) -> Result<f64, String> {
    match s.parse::<f64>() {
        Ok(v) if (0.1..=50.0).contains(&v) => Ok(v),
        Ok(v) => Err(format!(
            "{v} frames per second is outside 0.1..=50 (GIF frames last 1/50 s at least)"
        )),
        Err(_) => Err(format!("'{s}' is not a number of frames per second")),
    }
}

fn parse_quality(s: &str) -> Result<f32, String> {
    crate::ranges::render::STEP_QUALITY
        .parse(s)
        .map(|v| v as f32)
}

/// Scene and grid size options shared by the commands.
#[derive(Args, Debug, Clone, Default)]
pub struct GridArgs {
    /// Scene file (TOML), or the name of a preset (the help lists them from
    /// `scene::PRESETS`).
    #[arg(long, value_name = "FILE", help = scene_help())]
    pub scene: Option<String>,
    /// N cells along the scene's longest axis, the others scaled to keep its proportions
    /// (3..=1024).
    #[arg(long, value_name = "N", conflicts_with = "dims", value_parser = parse_size)]
    pub size: Option<usize>,
    /// Grid dimensions as X,Y,Z (each 3..=1024), replacing the scene's.
    #[arg(long, value_name = "X,Y,Z", value_parser = parse_dims)]
    pub dims: Option<Dims>,
    /// Pressure solver, replacing the scene's: multigrid (multigrid-preconditioned conjugate
    /// gradients, the default) or red_black_sor.
    #[arg(long, value_name = "SOLVER", value_parser = parse_pressure)]
    pub pressure: Option<PressureMethod>,
    /// Detail beyond the grid: smoke (and fire) on a grid N times finer (2, 3 or 4), carried
    /// by the flow plus turbulent noise; the scene's [detail] settings, switched on.
    #[arg(long, value_name = "N", value_parser = parse_upres)]
    pub upres: Option<u32>,
    /// A key of the scene and its value, as a scene file writes it (e.g. fluid.max_cfl=4,
    /// fluid.advection=maccormack, emitter.0.center=[0.5,0.2,0.5]), replacing the scene's;
    /// checked as a scene file holding it is. Repeat it for several keys; applied in order,
    /// before --size, --dims, --pressure and --upres.
    #[arg(long = "set", value_name = "KEY=VALUE", value_parser = parse_set)]
    pub set: Vec<(String, String)>,
    /// Solver backend: cpu; gpu (OpenGL 4.3 compute shaders, any renderer, llvmpipe too; in
    /// the viewer the fields never leave the card: the 3D view draws them); or auto (the default): the GPU where the OpenGL renderer is a
    /// hardware one with compute shaders, the scene uses nothing it lacks, a short start-up
    /// check against the CPU passes and the card holds the grid, else the CPU. Which, and
    /// why, is printed.
    #[arg(long, value_name = "cpu|gpu|auto", default_value = "auto", value_parser = crate::backend::Backend::parse)]
    pub backend: crate::backend::Backend,
}

/// The `--scene` help: every preset, from `scene::PRESETS`.
/// The `--render-scale` help, with the 3D pass's budget from `view3d::BUDGET_MS`.
fn render_scale_help() -> String {
    format!(
        "Resolution of the 3D view: auto (a fraction of the window chosen every frame so the \
         3D pass takes about {} ms, full resolution once the picture rests: what keeps a \
         software-rendered window fluid) or a fixed fraction from 0.1 to 1",
        crate::viewer::view3d::BUDGET_MS
    )
}

fn scene_help() -> String {
    let names: Vec<String> = crate::scene::PRESETS
        .iter()
        .map(|(name, _)| match *name {
            "plume" => "plume (the default)".to_string(),
            other => other.to_string(),
        })
        .collect();
    format!(
        "Scene file (TOML), or the name of a preset: {}",
        names.join(", ")
    )
}

fn parse_set(s: &str) -> Result<(String, String), String> {
    match s.split_once('=') {
        Some((k, v)) if !k.trim().is_empty() => Ok((k.trim().to_string(), v.trim().to_string())),
        _ => Err(format!(
            "'{s}': write KEY=VALUE, a scene key and its value (e.g. fluid.max_cfl=4)"
        )),
    }
}

fn parse_upres(s: &str) -> Result<u32, String> {
    let v = crate::ranges::detail::FACTOR.parse(s)?;
    Ok(v as u32)
}

fn parse_pressure(s: &str) -> Result<PressureMethod, String> {
    match s {
        "multigrid" | "mg" | "mgpcg" => Ok(PressureMethod::Multigrid),
        "red_black_sor" | "sor" | "rbsor" => Ok(PressureMethod::RedBlackSor),
        _ => Err(format!(
            "unknown pressure solver '{s}': use multigrid or red_black_sor"
        )),
    }
}

impl GridArgs {
    /// The scene the options ask for, on the grid they ask for.
    pub fn scene(&self) -> Result<crate::scene::Scene, crate::scene::SceneError> {
        let mut s = match &self.scene {
            Some(arg) => crate::scene::Scene::resolve(arg)?,
            None => crate::scene::Scene::default_plume(),
        };
        for (key, value) in &self.set {
            s = crate::scene::keys::set(&s, key, crate::scene::keys::value_of_text(value))
                .map_err(|e| crate::scene::SceneError {
                    file: None,
                    line: None,
                    message: format!("--set {key}={value}: {e}"),
                })?;
        }
        let s = match (self.dims, self.size) {
            (Some(d), _) => s.with_dims(d),
            (None, Some(n)) => s.with_resolution(n),
            (None, None) => s,
        };
        let mut s = s;
        if let Some(m) = self.pressure {
            s.fluid.pressure_method = m;
        }
        if let Some(n) = self.upres {
            s.detail.enabled = true;
            s.detail.factor = n;
        }
        // A resized grid can break the cell limit; say so before anything is built.
        s.validate()?;
        // Told once, when the scene is read (a mesh that is not closed).
        for n in s.notes() {
            eprintln!("note: {n}");
        }
        Ok(s)
    }
}

/// `plume view`.
#[derive(Args, Debug, Clone, Default)]
pub struct ViewArgs {
    /// Grid size (default: the scene's, 64³).
    #[command(flatten)]
    pub grid: GridArgs,
    /// Play back the frames a run folder holds (what `plume run`, a recording or Python
    /// wrote), one a step, the first again after the last (a run still being written is
    /// followed), with a slider to pick one; the
    /// 3D view, slice view, streamlines and export work on them as on a simulation. A scene
    /// opened from the Scene menu is simulated as usual.
    #[arg(
        long,
        value_name = "DIR",
        conflicts_with_all = ["scene", "size", "dims", "pressure", "upres", "set", "record"]
    )]
    pub run: Option<std::path::PathBuf>,
    /// Run this many frames, then exit (for screenshots and tests).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..=10_000_000))]
    pub frames: Option<u64>,
    /// After the last frame (see --frames), write what the window shows to this image (.png,
    /// or .jpg/.jpeg).
    #[arg(long, value_name = "IMAGE", requires = "frames")]
    pub screenshot: Option<std::path::PathBuf>,
    /// Start with the slice view on.
    #[arg(long)]
    pub slice: bool,
    /// Start with streamlines on, in the 3D view and over the slice (key L toggles them).
    #[arg(long)]
    pub streamlines: bool,
    /// Start paused.
    #[arg(long)]
    pub paused: bool,
    /// Window size in logical pixels, WxH.
    #[arg(long, value_name = "WxH", default_value = "1280x800", value_parser = parse_window)]
    pub window: (u32, u32),
    /// Start recording OpenVDB frames (density and velocity, every 2nd step) into this folder.
    #[arg(long, value_name = "DIR")]
    pub record: Option<std::path::PathBuf>,
    /// With --record: replace an earlier run in that folder instead of refusing it.
    #[arg(long, requires = "record")]
    pub overwrite: bool,
    /// With --frames: print one JSON object with the frame times (median, 95th percentile,
    /// mean, the first 10 frames left out as warm-up), the mean frame's parts (feed, ui,
    /// view, panels, present, between) and the simulation's steps per second.
    #[arg(long, requires = "frames")]
    pub json: bool,
    /// Resolution of the 3D view: auto (a fraction of the window chosen every frame so the 3D
    /// pass takes about `view3d::BUDGET_MS`, full resolution once the picture rests) or a
    /// fixed fraction from 0.1 to 1 (the help text is `render_scale_help`).
    #[arg(long, value_name = "auto|F", default_value = "auto", help = render_scale_help(), value_parser = crate::viewer::view3d::ScaleMode::parse)]
    pub render_scale: crate::viewer::view3d::ScaleMode,
}

fn parse_window(s: &str) -> Result<(u32, u32), String> {
    let (w, h) = s
        .split_once(['x', 'X'])
        .ok_or_else(|| format!("expected WIDTHxHEIGHT, got '{s}'"))?;
    let p = |v: &str| -> Result<u32, String> {
        let n: u32 = v
            .trim()
            .parse()
            .map_err(|_| format!("'{v}' is not a whole number"))?;
        if (200..=16384).contains(&n) {
            Ok(n)
        } else {
            Err(format!("{n} is outside 200..=16384 pixels"))
        }
    };
    Ok((p(w)?, p(h)?))
}

/// `plume run`.
#[derive(Args, Debug, Clone)]
pub struct RunArgs {
    /// Grid size (default: the scene's, 64³).
    #[command(flatten)]
    pub grid: GridArgs,
    /// Number of frames to write.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub frames: u32,
    /// Output folder (created if missing).
    #[arg(long, value_name = "DIR")]
    pub out: std::path::PathBuf,
    /// Output formats (the help lists them from the format registry).
    #[arg(long, default_value = "vdb", value_parser = parse_formats, help = crate::export::formats::help())]
    pub format: FormatList,
    /// Solver steps between frames.
    #[arg(long, value_name = "K", default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=1_000_000))]
    pub every: u32,
    /// Fields, comma-separated: density, temperature, flame, fuel, velocity, and solid (the
    /// obstacles' cells, 1 solid, 0 fluid, written as a grid named collision). VDB grids carry
    /// these names, as Blender's Principled Volume reads them.
    #[arg(long, default_value = "density,velocity", value_parser = crate::export::Fields::parse_list)]
    pub fields: crate::export::Fields,
    /// Up axis of the written volume: y as simulated (Houdini, ParaView) or z (Blender: each
    /// frame turned a quarter turn about x, so the smoke rises along Blender's Z).
    #[arg(long, default_value = "y", value_name = "y|z", value_parser = crate::export::Up::parse)]
    pub up: crate::export::Up,
    /// Half-precision (16-bit) values in the .vdb files; .vti and .npy stay 32-bit.
    #[arg(long)]
    pub half: bool,
    /// File name prefix: files are <prefix>_<frame:04>.<ext>.
    #[arg(long, default_value = "plume")]
    pub prefix: String,
    /// The folder holds an earlier run: remove that run's files (its manifest, the frames it
    /// lists, every frame file) and start at frame 1. Other files stay.
    #[arg(long, conflicts_with = "resume")]
    pub overwrite: bool,
    /// The folder holds an earlier run of the same scene, grid and export options: keep its
    /// complete frames and write the rest (re-simulating up to where it stopped).
    #[arg(long)]
    pub resume: bool,
}

impl RunArgs {
    /// What to do with an earlier run in the folder.
    pub fn existing(&self) -> crate::export::run::Existing {
        use crate::export::run::Existing;
        match (self.overwrite, self.resume) {
            (true, _) => Existing::Overwrite,
            (_, true) => Existing::Resume,
            _ => Existing::Refuse,
        }
    }
}

/// A comma-separated list of export formats.
#[derive(Clone, Debug, PartialEq)]
pub struct FormatList(pub Vec<crate::export::Format>);

fn parse_formats(s: &str) -> Result<FormatList, String> {
    crate::export::Format::parse_list(s).map(FormatList)
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
            grid: GridArgs::default(),
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
    /// Trace and sample one point at a time, and run the pressure solver's passes four
    /// lanes wide, even where the processor has AVX-512 or AVX2 (to see what the vector paths
    /// gain; the results are the same bits). The same as `--simd none`.
    #[arg(long, conflicts_with = "simd")]
    pub no_simd: bool,
    /// The widest vector instructions the passes may use: avx512 (the default: the widest
    /// the processor has), avx2 or none (to compare them on one machine; the results are the
    /// same bits).
    #[arg(long, value_enum)]
    pub simd: Option<SimdArg>,
    /// Advect the scalars in every cell, also where only outside air is within the traces'
    /// reach (to see what the active region gains; the results differ only by what lies
    /// below the region's cut-off, 10⁻³ of each field's largest value).
    #[arg(long)]
    pub dense: bool,
    /// Time every kernel on the card's clock (GPU backend: a timestamp after each dispatch)
    /// and report them by stage, kernel and size, beside each one's bandwidth floor: which
    /// kernels are furthest from what the card's memory allows.
    #[arg(long)]
    pub kernels: bool,
}

/// `--simd`'s values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum SimdArg {
    /// The widest the processor has (AVX-512, else AVX2, else none).
    Avx512,
    /// AVX2 at most.
    Avx2,
    /// None: one point at a time.
    None,
}

fn parse_size(s: &str) -> Result<usize, String> {
    let n: i128 = s
        .trim()
        .parse()
        .map_err(|_| format!("'{s}' is not a whole number"))?;
    if !(3..=crate::sim::grid::MAX_AXIS_CELLS as i128).contains(&n) {
        return Err(format!(
            "{n} is outside the allowed range 3..={}",
            crate::sim::grid::MAX_AXIS_CELLS
        ));
    }
    Ok(n as usize)
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
