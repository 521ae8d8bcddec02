//! Runs the solver on its own thread so the window stays responsive however long a step
//! takes. The UI sends commands; the thread publishes snapshots of the newest finished step.

use super::gpu_feed::Volume;
use crate::export::recorder::{Recorder, RecorderStatus};
use crate::export::replay::Replay;
use crate::export::run::Existing;
use crate::export::{self, ExportOptions};
use crate::frame::{Frame, Select};
use crate::render::exchange::VolumeExchange;
use crate::render::share::ShareGroup;
use crate::scene::Scene;
use crate::sim::{Dims, Emitter, FireParams, FluidParams, Simulation, StepStats};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// What the UI asks of the simulation. Each reaches the solver before its next step.
#[derive(Clone, Debug, PartialEq)]
pub enum SimCommand {
    /// Run continuously or pause.
    SetRunning(bool),
    /// Take one step (while paused).
    StepOnce,
    /// Clear the fields; with dimensions, rebuild the grid at that size.
    Reset(Option<Dims>),
    /// New fluid parameters (already validated by the UI; refused ones are reported).
    SetParams(FluidParams),
    /// New combustion parameters (validated by the UI; refused ones are reported).
    SetFire(FireParams),
    /// Replace the emitters.
    SetEmitters(Vec<Emitter>),
    /// Replace the obstacles (the flow carries on around the new ones).
    SetObstacles(Vec<crate::sim::Obstacle>),
    /// Replace the whole scene (grid, physics, boundaries, emitters, obstacles) and start over.
    LoadScene(Box<Scene>),
    /// Switch the up-resolution pass on or off, or change it (the coarse simulation keeps
    /// running; the fine fields start from it, interpolated).
    SetDetail(crate::sim::detail::DetailParams),
    /// Steps per published frame.
    SetStepsPerFrame(u32),
    /// Keep simulated time from running ahead of the wall clock.
    SetRealTime(bool),
    /// Inject smoke and push the fluid at a world position (mouse painting).
    Paint {
        /// World position.
        center: [f32; 3],
        /// Radius, domain units.
        radius: f32,
        /// Density added per cell.
        density: f32,
        /// Velocity added, domain-units/s.
        velocity: [f32; 3],
    },
    /// Write the current state once (into the folder, with the options).
    ExportFrame(RecordSpec),
    /// Write every `every`-th step from now on, or stop recording.
    SetRecording(Option<RecordSpec>),
    /// Run on another solver backend; the fields, the clock and the settings carry over and
    /// the smoke keeps moving.
    SetBackend(crate::backend::Backend),
    /// The fields the window's panels show (the slice view, the streamlines): what a frame
    /// carries while the GPU solver feeds the 3D view directly.
    SetFrameNeeds(Select),
    /// Show the frame at this index of the run played back (nothing while simulating).
    Seek(usize),
    /// Stop the thread.
    Quit,
}

/// Recording settings.
#[derive(Clone, Debug, PartialEq)]
pub struct RecordSpec {
    /// Output folder.
    pub dir: std::path::PathBuf,
    /// Formats, fields, precision, prefix, steps between frames.
    pub opts: ExportOptions,
    /// What to do when the folder holds an earlier run.
    pub existing: Existing,
}

/// What the viewer draws after a step: the simulation's frame of every field, and the
/// thread's state around it.
#[derive(Clone, Debug)]
pub struct Snapshot {
    /// Every field of the newest step (grid, step count and time included).
    pub frame: Frame,
    /// Name of the scene being simulated.
    pub scene_name: String,
    /// Statistics of the last step.
    pub stats: StepStats,
    /// Σ density·h³.
    pub total_density: f64,
    /// Whether the simulation is running.
    pub running: bool,
    /// Counter that increases with every published snapshot.
    pub serial: u64,
    /// The last error (a refused parameter change), if any.
    pub error: Option<String>,
    /// Recording in progress.
    pub recording: bool,
    /// The background writer's progress.
    pub recorder: RecorderStatus,
    /// Which solver backend runs the simulation, and why (one line).
    pub backend: String,
    /// Where the 3D view's volume comes from: the frame, or textures the GPU solver wrote.
    pub volume: super::gpu_feed::Volume,
    /// What the GPU solver has read back from the card so far (`None` on the CPU).
    pub transfers: Option<plume_gpu::Transfers>,
    /// While a run folder is played back: the index of the frame shown, and how many the
    /// run lists.
    pub playback: Option<(usize, usize)>,
}

/// Handle to the simulation thread.
pub struct SimThread {
    tx: Sender<SimCommand>,
    latest: Arc<Mutex<Option<Snapshot>>>,
    /// The hand-over of the volume's textures with the window (where it shares a group).
    exchange: Option<Arc<VolumeExchange>>,
    handle: Option<JoinHandle<()>>,
}

struct Worker {
    solver: Box<dyn Simulation>,
    scene: Scene,
    /// The backend asked for, and the line saying which runs and why.
    backend: crate::backend::Backend,
    backend_line: String,
    running: bool,
    steps_per_frame: u32,
    real_time: bool,
    serial: u64,
    error: Option<String>,
    recorder: Option<Recorder>,
    recording: Option<RecordSpec>,
    last_status: Option<RecorderStatus>,
    /// The window's share group and the hand-over of textures with it: the GPU solver runs
    /// in that group and writes the 3D view's volume on the card.
    share: Option<(ShareGroup, Arc<VolumeExchange>)>,
    /// What frames carry while the volume is shared (the panels' needs).
    needs: Select,
    /// The last snapshot could not name a fresh volume (no set free): publish again.
    volume_pending: bool,
}

impl Worker {
    /// The run being played back, if the thread plays one.
    fn replay(&mut self) -> Option<&mut Replay> {
        self.solver.as_any_mut()?.downcast_mut::<Replay>()
    }

    /// Builds `scene` on the backend asked for; keeps the line saying which.
    fn build(&mut self, scene: &Scene) -> Result<Box<dyn Simulation>, crate::sim::SimError> {
        let b = crate::backend::build_in(scene, self.backend, self.share.as_ref().map(|s| &s.0))?;
        self.backend_line = b.why;
        Ok(b.sim)
    }

    /// Moves the simulation to backend `b`: built for the current settings, handed the
    /// fields and the clock.
    fn switch_backend(&mut self, b: crate::backend::Backend) {
        if self.replay().is_some() {
            self.error = Some(
                "a run played back has no solver backend; load a scene (Scene menu) to \
                 simulate"
                    .into(),
            );
            return;
        }
        let mut scene = self.scene.clone();
        scene.fluid = self.solver.params().clone();
        scene.fire = self.solver.fire().clone();
        scene.emitters = self.solver.emitters().to_vec();
        scene.obstacles = self.solver.obstacles().to_vec();
        let old = std::mem::replace(&mut self.backend, b);
        let line = self.backend_line.clone();
        let moved = self.build(&scene).and_then(|mut sim| {
            sim.set_state(self.solver.state())?;
            Ok(sim)
        });
        match moved {
            Ok(sim) => {
                self.solver = sim;
                self.error = None;
            }
            Err(e) => {
                self.backend = old;
                self.backend_line = line;
                self.error = Some(format!("backend {} refused: {e}", b.name()));
            }
        }
    }

    fn export_now(&mut self, spec: &RecordSpec) {
        let Some(rec) = &self.recorder else {
            self.error = Some("the export writer thread is not running".into());
            return;
        };
        rec.clear_error();
        Self::submit(rec, self.solver.as_ref(), &self.scene, spec);
    }

    /// Captures the state as `spec` asks and queues it on `rec` (blocking while the queue
    /// is full: the simulation waits rather than dropping a frame); false once it failed.
    fn submit(rec: &Recorder, sim: &dyn Simulation, scene: &Scene, spec: &RecordSpec) -> bool {
        let frame = export::capture(sim, &spec.opts);
        let (dir, opts, existing) = (&spec.dir, &spec.opts, spec.existing);
        rec.submit_from(frame, dir, opts, scene, existing, sim.backend())
    }

    /// After a step: queue a frame when recording asks for one; stop recording on failure.
    /// One step; when a field stops being finite the simulation pauses with the error shown
    /// (and that step is neither recorded nor exported). Returns whether it succeeded.
    fn advance(&mut self) -> bool {
        match self.solver.step() {
            Ok(_) => {
                self.after_step();
                true
            }
            Err(e) => {
                self.running = false;
                self.error = Some(format!("{e}. Paused: change that parameter, then Reset."));
                false
            }
        }
    }

    fn after_step(&mut self) {
        let Some(spec) = &self.recording else { return };
        let Some(rec) = &self.recorder else { return };
        if rec.failed() {
            self.recording = None;
            return;
        }
        let due = (self.solver.steps()).is_multiple_of(spec.opts.every.max(1) as u64);
        if due && !Self::submit(rec, self.solver.as_ref(), &self.scene, spec) {
            self.recording = None;
        }
    }

    /// Applies `c`; returns whether the window should see a new snapshot at once (also when
    /// `c` was refused: the message shows even while paused).
    fn apply(&mut self, c: SimCommand) -> bool {
        let before = self.error.clone();
        self.apply_command(c) || self.error != before
    }

    fn apply_command(&mut self, c: SimCommand) -> bool {
        match c {
            SimCommand::SetRunning(r) => self.running = r,
            SimCommand::StepOnce => {
                self.running = false;
                self.advance();
                return true;
            }
            SimCommand::ExportFrame(spec) => {
                self.export_now(&spec);
                return true;
            }
            SimCommand::SetRecording(spec) => {
                if let (Some(_), Some(rec)) = (&spec, &self.recorder) {
                    rec.clear_error();
                }
                if spec.is_some() && self.recorder.is_none() {
                    self.error = Some("the export writer thread is not running".into());
                } else {
                    self.recording = spec;
                }
                return true;
            }
            SimCommand::Reset(dims) => {
                if let Some(d) = dims {
                    let mut scene = self.scene.clone().with_dims(d);
                    scene.fluid = self.solver.params().clone();
                    scene.fire = self.solver.fire().clone();
                    scene.emitters = self.solver.emitters().to_vec();
                    match self.build(&scene) {
                        Ok(s) => {
                            self.solver = s;
                            self.scene = scene;
                        }
                        Err(e) => self.error = Some(format!("grid {d} refused: {e}")),
                    }
                } else {
                    self.solver.reset();
                }
                return true;
            }
            SimCommand::SetParams(p) => {
                if let Err(e) = self.solver.set_params(p) {
                    self.error = Some(e.to_string());
                }
            }
            SimCommand::SetFire(p) => {
                if let Err(e) = self.solver.set_fire(p) {
                    self.error = Some(e.to_string());
                }
            }
            SimCommand::SetEmitters(es) => {
                if let Err(e) = self.solver.set_emitters(es) {
                    self.error = Some(e.to_string());
                }
            }
            SimCommand::SetObstacles(os) => {
                if let Err(e) = self.solver.set_obstacles(os) {
                    self.error = Some(e.to_string());
                }
            }
            SimCommand::LoadScene(scene) => {
                match self.build(&scene) {
                    Ok(s) => {
                        self.solver = s;
                        self.scene = *scene;
                        self.error = None;
                    }
                    Err(e) => self.error = Some(format!("scene '{}' refused: {e}", scene.name)),
                }
                return true;
            }
            SimCommand::SetDetail(_) if self.replay().is_some() => {
                self.error = Some(
                    "detail cannot be added to a run played back: `plume run --upres N` \
                     writes a run with it"
                        .into(),
                );
                return true;
            }
            SimCommand::Seek(i) => {
                if let Some(r) = self.replay() {
                    let e = r.seek(i).err();
                    self.error = e.map(|e| e.to_string());
                }
                return true;
            }
            SimCommand::SetDetail(p) => {
                // Take the simulation out (a 3³ stand-in holds its place for the moment),
                // strip any pass, and layer the new one on the same coarse state.
                let stand_in = crate::scene::Scene::default_plume()
                    .with_resolution(3)
                    .build_simulation();
                // Settings the pass would refuse leave the simulation as it is.
                if p.enabled {
                    if let Err(e) = p.validate().and_then(|()| p.fine_grid(self.solver.grid())) {
                        self.error = Some(format!("detail refused: {e}"));
                        return true;
                    }
                }
                if let Ok(stand_in) = stand_in {
                    let coarse = std::mem::replace(&mut self.solver, stand_in).into_coarse();
                    self.solver = if p.enabled {
                        match crate::sim::detail::Detailed::new(coarse, p) {
                            Ok(d) => {
                                self.error = None;
                                Box::new(d)
                            }
                            Err(e) => {
                                self.error = Some(format!("detail refused: {e}"));
                                // `coarse` was moved into the failed attempt: rebuild from the
                                // scene as a last resort.
                                match self.scene.clone().build_simulation() {
                                    Ok(s) => s,
                                    Err(e) => {
                                        self.error = Some(e.to_string());
                                        return true;
                                    }
                                }
                            }
                        }
                    } else {
                        coarse
                    };
                    self.scene.detail = p;
                }
                return true;
            }
            SimCommand::SetBackend(b) => {
                self.switch_backend(b);
                return true;
            }
            SimCommand::SetStepsPerFrame(n) => self.steps_per_frame = n.clamp(1, 100),
            SimCommand::SetRealTime(r) => self.real_time = r,
            SimCommand::Paint {
                center,
                radius,
                density,
                velocity,
            } => {
                if let Err(e) = self.solver.paint(center, radius, density, velocity) {
                    self.error = Some(e.to_string());
                }
                return true;
            }
            SimCommand::SetFrameNeeds(n) => {
                let was = self.needs;
                self.needs = n;
                return was != n;
            }
            SimCommand::Quit => {}
        }
        false
    }

    fn snapshot(&mut self) -> Snapshot {
        self.serial += 1;
        let s = &self.solver;
        let gpu = self
            .share
            .as_ref()
            .and_then(|(g, x)| Some((super::gpu_feed::shared_solver(s.as_ref(), g.id())?, x)));
        let shared = gpu.and_then(|(g, x)| Some((g, super::gpu_feed::publish(g, x)?)));
        self.volume_pending = matches!(shared, Some((_, Volume::Unchanged)));
        let (volume, select) = match shared {
            Some((_, v)) => (
                v,
                Some(super::gpu_feed::frame_select(s.as_ref(), self.needs)),
            ),
            None => (Volume::Frame, None),
        };
        Snapshot {
            volume,
            frame: s.frame(select.unwrap_or_else(|| {
                // Fuel and flame only where something burns (they are zero elsewhere).
                let burns = s.emitters().iter().any(Emitter::burns);
                if self.scene.detail.enabled {
                    // On the fine grid, only what the 3D view and the slice view's scalar
                    // fields need: velocity, pressure and divergence there would be 4 to 64
                    // times the memory for interpolated copies of the coarse fields.
                    Select {
                        density: true,
                        temperature: true,
                        fuel: burns,
                        flame: burns,
                        solid: true,
                        ..Select::default()
                    }
                } else {
                    Select {
                        fuel: burns,
                        flame: burns,
                        ..Select::ALL
                    }
                }
            })),
            // After the frame: its read-backs count.
            transfers: shared.map(|(g, _)| g.transfers()),
            playback: s
                .as_any()
                .and_then(|a| a.downcast_ref::<Replay>())
                .map(Replay::position),
            scene_name: self.scene.name.clone(),
            backend: self.backend_line.clone(),
            stats: s.stats().clone(),
            total_density: s.total_density(),
            running: self.running,
            serial: self.serial,
            error: self.error.clone(),
            recording: self.recording.is_some(),
            recorder: self
                .recorder
                .as_ref()
                .map(Recorder::status)
                .unwrap_or_default(),
        }
    }
}

impl SimThread {
    /// Builds the scene's solver and starts the thread; `wake` is called after every
    /// published snapshot (the viewer uses it to request a redraw).
    pub fn spawn(
        scene: Scene,
        backend: crate::backend::Backend,
        running: bool,
        wake: impl Fn() + Send + 'static,
    ) -> Result<Self, crate::sim::SimError> {
        Self::spawn_shared(scene, backend, running, None, wake)
    }

    /// As [`SimThread::spawn`], the GPU solver (where it runs) in `share`'s group, the
    /// window's: it then writes the 3D view's volume into the window's textures on the card
    /// ([`SimThread::exchange`]).
    pub fn spawn_shared(
        scene: Scene,
        backend: crate::backend::Backend,
        running: bool,
        share: Option<ShareGroup>,
        wake: impl Fn() + Send + 'static,
    ) -> Result<Self, crate::sim::SimError> {
        let built = crate::backend::build_in(&scene, backend, share.as_ref())?;
        // As every command does: which backend runs, and why.
        eprintln!("{}", built.why);
        Self::start(built.sim, built.why, scene, backend, running, share, wake)
    }

    /// Plays back the run in `dir` (its frames in turn, the first again after the last);
    /// a scene loaded from the window's Scene menu is then simulated as usual.
    pub fn spawn_run(
        dir: &std::path::Path,
        running: bool,
        share: Option<ShareGroup>,
        wake: impl Fn() + Send + 'static,
    ) -> Result<Self, crate::sim::SimError> {
        let replay =
            Replay::open(dir).map_err(|e| crate::sim::SimError::Playback(e.to_string()))?;
        let r = replay.reader();
        // The overlay's line; the frame count goes on (a run being written is followed).
        let line = format!(
            "playing back {}: a {} grid, read from .{}",
            dir.display(),
            r.grid().dims,
            r.format().ext()
        );
        eprintln!("{line}, {} frames", r.frames().len());
        let scene = r.manifest().scene.clone();
        let backend = crate::backend::Backend::Auto;
        Self::start(Box::new(replay), line, scene, backend, running, share, wake)
    }

    /// Starts the thread on `solver`.
    fn start(
        solver: Box<dyn Simulation>,
        backend_line: String,
        scene: Scene,
        backend: crate::backend::Backend,
        running: bool,
        share: Option<ShareGroup>,
        wake: impl Fn() + Send + 'static,
    ) -> Result<Self, crate::sim::SimError> {
        let share = share.map(|g| (g, Arc::new(VolumeExchange::default())));
        let exchange = share.as_ref().map(|s| Arc::clone(&s.1));
        let (tx, rx) = mpsc::channel();
        let latest = Arc::new(Mutex::new(None));
        let mut worker = Worker {
            solver,
            scene,
            backend,
            backend_line,
            running,
            steps_per_frame: 1,
            real_time: true,
            serial: 0,
            error: None,
            recorder: None,
            recording: None,
            last_status: None,
            share,
            needs: Select::default(),
            volume_pending: false,
        };
        match Recorder::spawn() {
            Ok(r) => worker.recorder = Some(r),
            Err(e) => worker.error = Some(format!("cannot start the export writer: {e}")),
        }
        let out = Arc::clone(&latest);
        // Publishes a snapshot; unless forced, only once the window has taken the last one
        // (a snapshot of a fine grid is tens of megabytes to copy, and one the window never
        // draws is work taken from the solver). Returns whether it published.
        let publish = move |w: &mut Worker, force: bool| {
            if !force && out.lock().is_ok_and(|slot| slot.is_some()) {
                return false;
            }
            let snap = w.snapshot();
            if let Ok(mut slot) = out.lock() {
                // A snapshot the window never took frees the textures it named.
                if let (Some(Volume::Shared { set, .. }), Some((_, x))) =
                    (slot.as_ref().map(|s: &Snapshot| s.volume), &w.share)
                {
                    x.dropped(set);
                }
                *slot = Some(snap);
            }
            wake();
            true
        };
        let handle = std::thread::Builder::new()
            .name("plume-sim".into())
            .spawn(move || {
                // One core fewer than the machine has for the solver: the window's thread
                // and, without a GPU, Mesa's software rasteriser need one. Given every core,
                // the solver's workers and llvmpipe's threads thrash (1 frame/s at 64³ on 2
                // cores, half the time in the kernel); results are the same for any count.
                let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
                match rayon::ThreadPoolBuilder::new()
                    .num_threads(cores.saturating_sub(1).max(1))
                    .thread_name(|i| format!("plume-sim-{i}"))
                    .start_handler(|_| lower_priority())
                    .build()
                {
                    Ok(pool) => pool.install(|| run(&mut worker, rx, publish)),
                    Err(_) => run(&mut worker, rx, publish),
                }
            })
            .map_err(|e| {
                crate::sim::SimError::InvalidParameter(format!(
                    "cannot start the simulation thread: {e}"
                ))
            })?;
        Ok(Self {
            tx,
            latest,
            exchange,
            handle: Some(handle),
        })
    }

    /// Sends a command; returns false when the thread has stopped.
    pub fn send(&self, c: SimCommand) -> bool {
        self.tx.send(c).is_ok()
    }

    /// Stops the thread after every queued frame is written; returns the recorder's last
    /// error, if a write failed.
    pub fn finish(mut self) -> Option<String> {
        let _ = self.tx.send(SimCommand::Quit);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
        self.take_latest().and_then(|s| s.recorder.last_error)
    }

    /// Takes the newest snapshot if one was published since the last call. A snapshot
    /// naming shared textures hands them to the window (under the same lock the thread
    /// publishes with), and retires those it drew before.
    pub fn take_latest(&self) -> Option<Snapshot> {
        let mut slot = self.latest.lock().ok()?;
        let snap = slot.take()?;
        if let (Volume::Shared { set, .. }, Some(x)) = (snap.volume, &self.exchange) {
            x.show(set);
        }
        Some(snap)
    }

    /// The hand-over of the volume's textures with the window, where the thread shares the
    /// window's group.
    pub fn exchange(&self) -> Option<&Arc<VolumeExchange>> {
        self.exchange.as_ref()
    }
}

impl Drop for SimThread {
    fn drop(&mut self) {
        let _ = self.tx.send(SimCommand::Quit);
        if let Some(h) = self.handle.take() {
            let _ = h.join();
        }
    }
}

fn run(w: &mut Worker, rx: Receiver<SimCommand>, publish: impl Fn(&mut Worker, bool) -> bool) {
    publish(w, true);
    // Steps taken since the window's snapshot (published when it has taken the last).
    let mut stale = false;
    let mut clock = Instant::now();
    let mut sim_at_clock = w.solver.time();
    loop {
        // Commands first: each reaches the solver before its next step.
        let mut changed = false;
        let first = if w.running {
            match rx.try_recv() {
                Ok(c) => Some(c),
                Err(mpsc::TryRecvError::Empty) => None,
                Err(mpsc::TryRecvError::Disconnected) => return,
            }
        } else {
            match rx.recv_timeout(Duration::from_millis(100)) {
                Ok(c) => Some(c),
                Err(RecvTimeoutError::Timeout) => None,
                Err(RecvTimeoutError::Disconnected) => return,
            }
        };
        let mut next = first;
        // Of the frames a dragged slider asks for, only the last is read.
        let mut seek = None;
        while let Some(c) = next {
            if let SimCommand::Seek(i) = c {
                seek = Some(i);
                next = rx.try_recv().ok();
                continue;
            }
            if c == SimCommand::Quit {
                // Let queued frames reach the disk, and publish how that went.
                if let Some(rec) = &w.recorder {
                    rec.flush();
                }
                publish(w, true);
                return;
            }
            let was_running = w.running;
            changed |= w.apply(c);
            if w.running && !was_running {
                clock = Instant::now();
                sim_at_clock = w.solver.time();
            }
            next = rx.try_recv().ok();
        }
        if let Some(i) = seek {
            changed |= w.apply(SimCommand::Seek(i));
        }
        if w.running {
            for _ in 0..w.steps_per_frame {
                if !w.advance() {
                    break;
                }
            }
            stale = true;
            if w.real_time {
                // Do not let simulated time run ahead of the wall clock.
                let ahead = (w.solver.time() - sim_at_clock) - clock.elapsed().as_secs_f64();
                if ahead > 0.0 {
                    std::thread::sleep(Duration::from_secs_f64(ahead.min(0.5)));
                }
            }
        }
        // Background writes progress while paused: show them too.
        let status = w.recorder.as_ref().map(Recorder::status);
        if status != w.last_status {
            w.last_status = status;
            changed = true;
        }
        // A command or the writer's progress: at once; steps: when the window is ready.
        if (changed || stale || w.volume_pending) && publish(w, changed) {
            stale = false;
        }
    }
}

/// How much lower than the window's the solver's threads run (Linux nice levels). Without a
/// GPU, Mesa's rasteriser draws on the same cores: at equal priority the solver takes its
/// core and half of the other, and the window's frames wait. At +10 the window's threads
/// run whenever they are ready and the solver takes the rest (measured at 64³ on two cores:
/// median frame 30–31 → 24–26 ms, 26–27 → 21–23 steps a second). With a GPU the window
/// needs little of the processor, and the solver loses nothing.
pub const SIM_NICE: i32 = 10;

/// Lowers the calling thread's scheduling priority by [`SIM_NICE`] (to at most 19). Linux
/// only (elsewhere nothing); a refusal is ignored (the thread keeps its priority).
pub fn lower_priority() {
    #[cfg(target_os = "linux")]
    // SAFETY: getpriority and setpriority on the calling thread (who = 0 names the calling
    // thread on Linux) with plain values.
    unsafe {
        let now = libc::getpriority(libc::PRIO_PROCESS, 0);
        libc::setpriority(libc::PRIO_PROCESS, 0, (now + SIM_NICE).min(19));
    }
}

#[cfg(all(test, target_os = "linux"))]
#[path = "sim_thread_tests.rs"]
mod priority_tests;
