//! Which solver backend runs a scene: the CPU solver (plume-core) or the GPU solver
//! (plume-gpu, OpenGL compute shaders on a headless context of its own), chosen with
//! `--backend cpu|gpu|auto` and in the viewer's Simulation section.

use crate::render::share::ShareGroup;
use crate::scene::Scene;
use crate::sim::{SimError, Simulation};
use plume_gpu::GpuSolver;

/// A backend choice as the command line and the panel spell it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Backend {
    /// The GPU where it is a hardware one with compute shaders and passes the start-up
    /// check; the CPU otherwise.
    #[default]
    Auto,
    /// The CPU solver.
    Cpu,
    /// The GPU solver, on any OpenGL 4.3 renderer (llvmpipe too).
    Gpu,
}

impl Backend {
    /// Parses `cpu`, `gpu` or `auto`.
    pub fn parse(s: &str) -> Result<Self, String> {
        match s.trim().to_ascii_lowercase().as_str() {
            "auto" => Ok(Backend::Auto),
            "cpu" => Ok(Backend::Cpu),
            "gpu" => Ok(Backend::Gpu),
            other => Err(format!("unknown backend {other:?}: use cpu, gpu or auto")),
        }
    }

    /// The name as typed.
    pub fn name(self) -> &'static str {
        match self {
            Backend::Auto => "auto",
            Backend::Cpu => "cpu",
            Backend::Gpu => "gpu",
        }
    }
}

/// The GPU solver for `scene` on a headless OpenGL context of its own.
pub fn gpu(scene: &Scene) -> Result<GpuSolver, SimError> {
    gpu_in(scene, None)
}

/// The GPU solver for `scene` on a context of `share`'s group (the viewer's window: its
/// renderer then draws the solver's textures), or a headless one of its own.
pub fn gpu_in(scene: &Scene, share: Option<&ShareGroup>) -> Result<GpuSolver, SimError> {
    let make: plume_gpu::ContextMaker = match share {
        // Where no context can join the group: say why, and run on one of its own (the
        // solver works; the view reads its fields back instead).
        Some(g) => {
            let g = g.clone();
            Box::new(move || {
                g.make().or_else(|e| {
                    eprintln!("note: {e}; the 3D view reads the GPU solver's fields back");
                    crate::render::context::headless_gl().map_err(|e| e.to_string())
                })
            })
        }
        None => Box::new(|| crate::render::context::headless_gl().map_err(|e| e.to_string())),
    };
    GpuSolver::from_scene(scene, make)
}

/// Bytes of the machine's memory simulating `scene` on the backend `choice` takes: the CPU
/// solver's fields at their peak; for the GPU what stays in the machine's memory: the
/// up-resolution pass where the scene has one, and a frame read back of every field (36
/// bytes a cell); for `auto` the larger of the two, since it may run on either (so it
/// refuses nothing `--backend cpu` runs, and accepts nothing the CPU could not hold should
/// it pick the CPU).
pub fn host_memory(scene: &Scene, choice: Backend) -> u64 {
    let dims = scene.dims();
    let gpu = || {
        let fire = scene.emitters.iter().any(crate::sim::Emitter::burns);
        36 * dims.cells() as u64 + scene.detail.memory_bytes(dims, fire)
    };
    match choice {
        Backend::Cpu => scene.memory_peak(dims),
        Backend::Gpu => gpu(),
        Backend::Auto => scene.memory_peak(dims).max(gpu()),
    }
}

/// A simulation built for a scene, with which backend runs it and why.
pub struct Built {
    /// The simulation (the up-resolution pass layered on top where the scene asks).
    pub sim: Box<dyn Simulation>,
    /// "cpu" or "gpu".
    pub backend: &'static str,
    /// One line: which backend and why (for `auto`, what decided it).
    pub why: String,
}

/// Builds `scene` on the backend `choice` names (see [`Backend`]).
pub fn build(scene: &Scene, choice: Backend) -> Result<Built, SimError> {
    build_in(scene, choice, None)
}

/// As [`build`], the GPU solver (where it runs) on a context of `share`'s group.
pub fn build_in(
    scene: &Scene,
    choice: Backend,
    share: Option<&ShareGroup>,
) -> Result<Built, SimError> {
    let (coarse, backend, why): (Box<dyn Simulation>, _, _) = match choice {
        Backend::Cpu => (
            Box::new(scene.build()?),
            "cpu",
            "backend: cpu (asked for)".to_string(),
        ),
        Backend::Gpu => {
            let g = gpu_in(scene, share).map_err(|e| match e {
                SimError::Gpu(why) => {
                    SimError::Gpu(format!("{why}; --backend cpu (or auto) runs on the CPU"))
                }
                e => e,
            })?;
            let why = format!("backend: gpu (asked for) on {}", g.info().renderer);
            (Box::new(g), "gpu", why)
        }
        Backend::Auto => match auto_choice(scene) {
            Ok(renderer) => auto_on_the_card(scene, &renderer, gpu_in(scene, share))?,
            Err(reason) => (
                Box::new(scene.build()?),
                "cpu",
                format!("backend: cpu (auto: {reason})"),
            ),
        },
    };
    let sim = if scene.detail.enabled {
        Box::new(crate::sim::detail::Detailed::new(coarse, scene.detail)?) as Box<dyn Simulation>
    } else {
        coarse
    };
    Ok(Built { sim, backend, why })
}

/// `auto`'s backend once its probe took the card (`renderer`): the GPU solver `gpu` built for
/// the whole of `scene`, or, where the card cannot run it (its memory, a buffer larger than
/// the driver takes, anything else the solver refused on it), the CPU with that reason: the
/// probe's grid is 16³, the scene's may be more than the card holds.
fn auto_on_the_card(
    scene: &Scene,
    renderer: &str,
    gpu: Result<GpuSolver, SimError>,
) -> Result<(Box<dyn Simulation>, &'static str, String), SimError> {
    Ok(match gpu {
        Ok(g) => {
            let why = format!(
                "backend: gpu (auto: {renderer} runs compute shaders and matched the CPU at \
                 start-up)"
            );
            (Box::new(g), "gpu", why)
        }
        Err(e) => {
            // (the figures without the advice to choose a smaller grid: this one runs)
            let e = match e {
                SimError::Memory {
                    what,
                    need,
                    available,
                    limit,
                } => crate::sim::solver::memory::shortfall(&what, need, available, limit),
                e => e.to_string(),
            };
            let why = format!("backend: cpu (auto: the GPU cannot run this grid: {e})");
            (Box::new(scene.build()?), "cpu", why)
        }
    })
}

/// Whether `auto` takes the GPU for `scene`: `Ok(renderer)` where the OpenGL renderer is a
/// hardware one with compute shaders and a short run of the scene on a 16³ grid matches the
/// CPU backend's; otherwise why not.
///
/// From the `plume` binary the probe runs in a child process of its own ([`probe_child`]):
/// an OpenGL driver maps its libraries and starts threads that stay in a process after its
/// context is gone, and under an address-space limit (`ulimit -v`) that would leave a run
/// on the CPU less room than `--backend cpu` has. Elsewhere (the tests, a library user) it
/// runs here.
pub fn auto_choice(scene: &Scene) -> Result<String, String> {
    match probe_in_child(scene) {
        Some(answer) => answer,
        None => auto_choice_here(scene),
    }
}

/// [`auto_choice`] in this process.
pub fn auto_choice_here(scene: &Scene) -> Result<String, String> {
    let small = scene.clone().with_resolution(16);
    let g = gpu(&small).map_err(|e| match e {
        SimError::Gpu(why) => format!("no usable GPU: {why}"),
        e => format!("no usable GPU: {e}"),
    })?;
    let info = g.info().clone();
    if info.software {
        return Err(format!(
            "the OpenGL renderer is {}, a software rasteriser: the CPU backend is faster",
            info.renderer
        ));
    }
    startup_check(&small, Box::new(g))?;
    Ok(info.renderer)
}

/// The variable that makes `plume` the probe's child: it reads a scene (TOML) on standard
/// input, runs [`auto_choice_here`] and answers on standard output.
const PROBE_VAR: &str = "PLUME_AUTO_PROBE";

/// Runs [`auto_choice_here`] in a child `plume` and returns its answer; `None` where this
/// process is not the `plume` binary (a test, a library user) or the scene cannot be written
/// as TOML. A child that fails to start, dies or gives no answer within a minute is a GPU
/// that cannot be used, with that reason.
fn probe_in_child(scene: &Scene) -> Option<Result<String, String>> {
    use std::io::{Read, Write};
    use std::process::{Command, Stdio};
    let exe = std::env::current_exe().ok()?;
    if exe.file_stem().and_then(|s| s.to_str()) != Some("plume") {
        return None;
    }
    let text = scene.to_toml().ok()?;
    let no_gpu = |why: String| Some(Err(format!("no usable GPU: {why}")));
    let mut child = match Command::new(&exe)
        .env(PROBE_VAR, "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return no_gpu(format!("the probe could not start: {e}")),
    };
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(text.as_bytes());
    }
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let status = loop {
        match child.try_wait() {
            Ok(Some(st)) => break st,
            Ok(None) if std::time::Instant::now() < deadline => {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return no_gpu("the probe gave no answer within a minute".into());
            }
        }
    };
    let mut out = String::new();
    if let Some(mut o) = child.stdout.take() {
        let _ = o.read_to_string(&mut out);
    }
    let line = out.lines().last().unwrap_or("");
    if let Some(renderer) = line.strip_prefix("gpu ") {
        Some(Ok(renderer.to_string()))
    } else if let Some(why) = line.strip_prefix("cpu ") {
        Some(Err(why.to_string()))
    } else {
        no_gpu(format!(
            "the probe stopped ({status}) before answering, perhaps for want of memory"
        ))
    }
}

/// The probe's child (see [`auto_choice`]): where `PLUME_AUTO_PROBE` is set, reads the scene
/// on standard input, answers `gpu RENDERER` or `cpu REASON` on standard output and returns
/// the exit status; `None` in any other process (it goes on as `plume`).
pub fn probe_child() -> Option<i32> {
    use std::io::Read;
    std::env::var_os(PROBE_VAR)?;
    let mut text = String::new();
    if std::io::stdin().read_to_string(&mut text).is_err() {
        println!("cpu the probe could not read its scene");
        return Some(0);
    }
    let answer = match Scene::from_toml(&text, None) {
        Ok(scene) => auto_choice_here(&scene),
        Err(e) => Err(format!("the probe could not read its scene: {e}")),
    };
    match answer {
        Ok(renderer) => println!("gpu {renderer}"),
        Err(why) => println!("cpu {}", why.replace('\n', " ")),
    }
    Some(0)
}

/// Steps `scene` (small) five times on the CPU and on `gpu` and compares the smoke: the
/// largest difference must stay within 1% of the largest density.
pub fn startup_check(scene: &Scene, mut gpu: Box<dyn Simulation>) -> Result<(), String> {
    let mut cpu = scene.build().map_err(|e| e.to_string())?;
    for _ in 0..5 {
        cpu.try_step().map_err(|e| e.to_string())?;
        gpu.step()
            .map_err(|e| format!("the GPU's start-up check failed: {e}"))?;
    }
    let sel = crate::frame::Select {
        density: true,
        ..Default::default()
    };
    let a = Simulation::frame(&cpu, sel).density.unwrap_or_default();
    let b = gpu.frame(sel).density.unwrap_or_default();
    let top = a.iter().fold(0.0f32, |m, x| m.max(x.abs()));
    let diff = a
        .iter()
        .zip(&b)
        .fold(0.0f32, |m, (x, y)| m.max((x - y).abs()));
    if a.len() == b.len() && diff <= 0.01 * top + 1e-6 {
        Ok(())
    } else {
        Err(format!(
            "the GPU's start-up check differed from the CPU's by {diff:.2e} (largest density \
             {top:.2e})"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_runs_on_the_cpu_where_the_card_cannot_hold_the_grid() {
        let scene = Scene::default_plume().with_resolution(12);
        let card = "NVIDIA GeForce RTX 3050 Laptop GPU/PCIe/SSE2";
        // (what `GpuSolver::new` says of a grid beyond the card's free memory)
        let refusal = plume_gpu::fits(
            8 << 30,
            Some(3 << 30),
            &format!("a 512x512x512 grid on the graphics card ({card})"),
        )
        .expect_err("refused");
        let (mut sim, backend, why) =
            auto_on_the_card(&scene, card, Err(refusal)).expect("the CPU runs it");
        assert_eq!(backend, "cpu");
        assert!(
            why.starts_with("backend: cpu (auto: the GPU cannot run this grid: ")
                && why.contains(card)
                && !why.contains("choose a smaller grid")
                && why.contains("8.0 GiB")
                && why.contains("3.0 GiB"),
            "{why}"
        );
        sim.step().expect("a step on the CPU");
        assert_eq!(sim.backend(), "cpu");
        // A scene the CPU cannot run either is refused as the CPU refuses it.
        let mut bad = scene.clone();
        bad.fluid.dt = -1.0;
        let e = auto_on_the_card(&bad, card, Err(SimError::Gpu("x".into())))
            .err()
            .expect("refused");
        assert_eq!(
            e.to_string(),
            bad.build().err().expect("refused").to_string()
        );
    }
}
