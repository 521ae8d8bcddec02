//! The window, its event loop and one frame: newest snapshot → texture, egui panels, 3D view,
//! slice view.

use super::frame_clock::{FrameClock, Part};
use super::input::{self, Action, Button, DragMode, KeyName};
use super::sections;
use super::sim_thread::{SimCommand, SimThread, Snapshot};
use super::state::{FrameStats, UiCommand, UiState};
use super::ViewerError;
use super::{gpu_view, overlay};
use crate::camera::OrbitCamera;
use crate::render::volume::{box_edges, speed_range, stream_vertices, StreamVertex, VolumeBox};
use crate::render::window::{self, WindowError};
use crate::render::{Offscreen, RenderError, VolumeRenderer};
use crate::scene::Scene;
use glium::glutin::surface::WindowSurface;
use glium::{Rect, Surface};
use std::path::PathBuf;
use std::time::Instant;
use winit::application::ApplicationHandler;
use winit::event::{ElementState, MouseButton, MouseScrollDelta, WindowEvent};
use winit::event_loop::{ActiveEventLoop, EventLoop, EventLoopProxy};
use winit::keyboard::{Key, ModifiersState, NamedKey};
use winit::window::{Window, WindowId};

/// How the viewer starts.
#[derive(Clone, Debug)]
pub struct ViewOptions {
    /// Scene to run.
    pub scene: Scene,
    /// Exit after this many frames (for documentation and tests).
    pub frames: Option<u64>,
    /// Write what the window shows after the last frame to this PNG.
    pub screenshot: Option<PathBuf>,
    /// Start with the slice view on.
    pub slice: bool,
    /// Start with streamlines on (3D view and slice).
    pub streamlines: bool,
    /// Start paused.
    pub paused: bool,
    /// Initial window size in logical pixels.
    pub size: (u32, u32),
    /// Start recording frames into this folder (the Export section's defaults: OpenVDB,
    /// density and velocity, every 2nd step).
    pub record: Option<PathBuf>,
    /// With `record`: replace an earlier run in that folder instead of refusing it.
    pub overwrite: bool,
    /// Print frame-time statistics as JSON on exit (with `frames`).
    pub json: bool,
    /// How the 3D view's resolution is chosen.
    pub render_scale: super::view3d::ScaleMode,
    /// The solver backend to start on (`--backend`).
    pub backend: crate::backend::Backend,
    /// Play back the run in this folder instead of simulating (`--run`; `scene` is its).
    pub run: Option<PathBuf>,
}

#[derive(Debug)]
enum UserEvent {
    NewSnapshot,
    /// A signal asked the viewer to close.
    Stop,
}

/// Opens the window and runs until it is closed (or `frames` have been drawn).
pub fn run(opts: ViewOptions) -> Result<(), ViewerError> {
    if !window::display_named(|v| std::env::var_os(v)) {
        return Err(ViewerError::NoDisplay);
    }
    let event_loop = EventLoop::<UserEvent>::with_user_event()
        .build()
        .map_err(WindowError::from)?;
    let proxy = event_loop.create_proxy();
    // Ctrl-C, SIGTERM and SIGHUP close the window as its close button does.
    let stop = proxy.clone();
    crate::signals::watch(move || drop(stop.send_event(UserEvent::Stop)))
        .map_err(ViewerError::Signals)?;
    let mut app = App {
        opts,
        proxy,
        state: None,
        error: None,
    };
    event_loop.run_app(&mut app).map_err(WindowError::from)?;
    if let Some(e) = app.error {
        return Err(e);
    }
    if app.opts.json {
        if let Some(s) = &app.state {
            println!("{}", s.timing_json());
        }
    }
    // `--record`: a recording that failed (now or while the last frames were written) makes
    // the run fail too.
    if app.opts.record.is_some() {
        if let Some(s) = app.state.take() {
            let seen = s.record_error.clone();
            if let Some(e) = s.sim.finish().or(seen) {
                return Err(ViewerError::Recording(e));
            }
        }
    }
    drop(app);
    if crate::signals::stopped() {
        return Err(ViewerError::Stopped(crate::signals::last_name()));
    }
    Ok(())
}

struct App {
    opts: ViewOptions,
    proxy: EventLoopProxy<UserEvent>,
    state: Option<Running>,
    error: Option<ViewerError>,
}

struct Running {
    window: Window,
    display: glium::Display<WindowSurface>,
    egui: egui_glium::EguiGlium,
    renderer: VolumeRenderer,
    camera: OrbitCamera,
    sim: SimThread,
    snapshot: Option<Snapshot>,
    uploaded: u64,
    ui: UiState,
    cursor: Option<(f32, f32)>,
    drag: Option<(DragMode, (f32, f32), Instant)>,
    modifiers: ModifiersState,
    last_click: Option<(Instant, (f32, f32))>,
    /// The 3D view's rectangle in physical pixels, top-left origin: x, y, w, h.
    view_px: [f32; 4],
    frames: u64,
    /// Frame times and their parts, and the steps seen, for `--json`.
    clock: FrameClock,
    stats: FrameStats,
    slice_tex: Option<egui::TextureHandle>,
    screenshot_next: Option<PathBuf>,
    framed: bool,
    /// The recording's last failure, once reported on stderr and shown over the view.
    record_error: Option<String>,
    /// Streamline segments of the shown frame, and what they were traced for (snapshot
    /// serial and settings): recomputed only when either changes.
    streams: (Vec<StreamVertex>, Option<(u64, StreamKey)>),
    /// The 3D view at its render scale (taken out while it draws).
    view: Option<super::view3d::ScaledView>,
    /// While a run is played back: the frame shown last, and how many frames were shown.
    played: (Option<usize>, u64),
}

/// What streamlines depend on besides the frame.
#[derive(Clone, Debug, PartialEq)]
struct StreamKey {
    settings: super::state::StreamSettings,
    slice: (usize, f32),
    colormap: super::slice_view::ColorMap,
}

impl App {
    fn start(&mut self, el: &ActiveEventLoop) -> Result<Running, ViewerError> {
        let (window, display, share) = window::create(el, "Plume", self.opts.size)?;
        let egui = egui_glium::EguiGlium::new(egui::ViewportId::ROOT, &display, &window, el);
        let mut renderer = VolumeRenderer::new(&display)?;
        renderer.set_obstacles(&display, &self.opts.scene.obstacles)?;
        let proxy = self.proxy.clone();
        let scene = self.opts.scene.clone();
        let running = !self.opts.paused;
        let wake = move || drop(proxy.send_event(UserEvent::NewSnapshot));
        let sim = match &self.opts.run {
            Some(dir) => SimThread::spawn_run(dir, running, Some(share), wake)?,
            None => SimThread::spawn_shared(
                scene.clone(),
                self.opts.backend,
                running,
                Some(share),
                wake,
            )?,
        };
        let mut ui = UiState::new(&scene, running);
        ui.backend = self.opts.backend;
        ui.slice.visible = self.opts.slice;
        ui.streams.visible = self.opts.streamlines;
        ui.slice.streamlines = self.opts.streamlines;
        if let Some(dir) = &self.opts.record {
            ui.export.dir = dir.display().to_string();
            ui.export.overwrite = self.opts.overwrite;
            let spec = ui.export.spec().map_err(ViewerError::Recording)?;
            sim.send(SimCommand::SetRecording(Some(spec)));
        }
        Ok(Running {
            window,
            display,
            egui,
            renderer,
            camera: OrbitCamera::default(),
            sim,
            snapshot: None,
            uploaded: 0,
            ui,
            cursor: None,
            drag: None,
            modifiers: ModifiersState::empty(),
            last_click: None,
            view_px: [0.0; 4],
            frames: 0,
            clock: FrameClock::default(),
            stats: FrameStats::default(),
            slice_tex: None,
            screenshot_next: None,
            framed: false,
            record_error: None,
            streams: (Vec::new(), None),
            view: Some(super::view3d::ScaledView::new(self.opts.render_scale)),
            played: (None, 0),
        })
    }
}

impl ApplicationHandler<UserEvent> for App {
    fn resumed(&mut self, el: &ActiveEventLoop) {
        if self.state.is_some() {
            return;
        }
        match self.start(el) {
            Ok(s) => {
                s.window.request_redraw();
                self.state = Some(s);
            }
            Err(e) => {
                self.error = Some(e);
                el.exit();
            }
        }
    }

    fn user_event(&mut self, el: &ActiveEventLoop, e: UserEvent) {
        match e {
            UserEvent::Stop => el.exit(),
            UserEvent::NewSnapshot => {
                if let Some(s) = &self.state {
                    s.window.request_redraw();
                }
            }
        }
    }

    fn window_event(&mut self, el: &ActiveEventLoop, _id: WindowId, event: WindowEvent) {
        let Some(s) = self.state.as_mut() else {
            return;
        };
        let response = s.egui.on_event(&s.window, &event);
        match &event {
            WindowEvent::CloseRequested => {
                el.exit();
                return;
            }
            WindowEvent::Resized(size) => {
                // A minimised window has zero size: keep the old surface until it comes back.
                if size.width > 0 && size.height > 0 {
                    s.display.resize((size.width, size.height));
                }
                s.window.request_redraw();
            }
            WindowEvent::RedrawRequested => {
                let last = self.opts.frames.is_some_and(|n| s.frames + 1 >= n);
                let capture = if last {
                    self.opts.screenshot.clone()
                } else {
                    None
                };
                match s.redraw(capture) {
                    Ok(done) => {
                        if done || last {
                            el.exit();
                        }
                    }
                    Err(e) => {
                        self.error = Some(e.into());
                        el.exit();
                    }
                }
                if self.opts.frames.is_some() {
                    s.window.request_redraw();
                }
                return;
            }
            _ => {}
        }
        if !response.consumed {
            s.input(&event);
        }
        if response.repaint {
            s.window.request_redraw();
        }
    }
}

fn key_name(k: &Key) -> KeyName<'_> {
    match k {
        Key::Named(NamedKey::Space) => KeyName::Space,
        Key::Named(NamedKey::F12) => KeyName::F12,
        Key::Character(c) => KeyName::Char(c.as_str()),
        _ => KeyName::Other,
    }
}

impl Running {
    fn in_view(&self, p: (f32, f32)) -> bool {
        let [x, y, w, h] = self.view_px;
        p.0 >= x && p.0 < x + w && p.1 >= y && p.1 < y + h
    }

    fn volume_box(&self) -> Option<VolumeBox> {
        self.snapshot
            .as_ref()
            .map(|s| VolumeBox::of_grid(&s.frame.grid))
    }

    fn frame_volume(&mut self) {
        if let Some(bx) = self.volume_box() {
            let aspect = self.view_px[2] / self.view_px[3].max(1.0);
            self.camera
                .frame(bx.min, bx.max, if aspect > 0.0 { aspect } else { 1.0 });
        }
    }

    /// Switches to another scene: the simulation starts over on it, the panel takes over its
    /// settings and the camera its view.
    fn load_scene(&mut self, scene: Scene) {
        if let Err(e) = self.renderer.set_obstacles(&self.display, &scene.obstacles) {
            self.ui.message = Some(crate::report(&e));
            return;
        }
        self.ui.set_scene(&scene);
        let mut msg = format!("loaded scene '{}'", scene.name);
        for n in scene.notes() {
            msg.push_str(&format!("; note: {n}"));
        }
        self.ui.message = Some(msg);
        self.sim.send(SimCommand::LoadScene(Box::new(scene)));
        // Frame with the new scene's camera once its first snapshot has arrived.
        self.snapshot = None;
        self.framed = false;
        self.window.request_redraw();
    }

    fn act(&mut self, a: Action) {
        match a {
            Action::TogglePause => {
                self.ui.running = !self.ui.running;
                self.sim.send(SimCommand::SetRunning(self.ui.running));
            }
            Action::StepOnce => {
                self.ui.running = false;
                self.sim.send(SimCommand::StepOnce);
            }
            Action::Reset => {
                self.sim.send(SimCommand::Reset(None));
            }
            Action::ToggleSlice => self.ui.slice.visible = !self.ui.slice.visible,
            Action::ToggleStats => self.ui.show_stats = !self.ui.show_stats,
            Action::ToggleStreamlines => self.ui.streams.visible = !self.ui.streams.visible,
            Action::FrameVolume => self.frame_volume(),
            Action::Screenshot => self.screenshot_next = Some(next_screenshot_path()),
        }
        self.window.request_redraw();
    }

    fn input(&mut self, event: &WindowEvent) {
        let wants_keys = self.egui.egui_ctx().wants_keyboard_input();
        match event {
            WindowEvent::ModifiersChanged(m) => self.modifiers = m.state(),
            WindowEvent::KeyboardInput { event, .. }
                if event.state == ElementState::Pressed && !wants_keys =>
            {
                let ctrl_alt = self.modifiers.control_key() || self.modifiers.alt_key();
                if let Some(a) = input::key_action(key_name(&event.logical_key), ctrl_alt) {
                    if !(event.repeat && a != Action::StepOnce) {
                        self.act(a);
                    }
                }
            }
            WindowEvent::CursorMoved { position, .. } => {
                let p = (position.x as f32, position.y as f32);
                let prev = self.cursor.replace(p);
                if let (Some((mode, last, t)), Some(_)) = (self.drag, prev) {
                    let (dx, dy) = (p.0 - last.0, p.1 - last.1);
                    match mode {
                        DragMode::Paint => self.paint(p, dx, dy, t.elapsed().as_secs_f32()),
                        m => input::apply_drag(&mut self.camera, m, dx, dy, self.view_px[3]),
                    }
                    self.drag = Some((mode, p, Instant::now()));
                    self.window.request_redraw();
                }
            }
            WindowEvent::MouseInput { state, button, .. } => {
                let b = match button {
                    MouseButton::Left => Button::Left,
                    MouseButton::Right => Button::Right,
                    MouseButton::Middle => Button::Middle,
                    _ => return,
                };
                match state {
                    ElementState::Pressed => {
                        let Some(p) = self.cursor else { return };
                        if !self.in_view(p) {
                            return;
                        }
                        if b == Button::Left {
                            let double = self.last_click.is_some_and(|(t, q)| {
                                t.elapsed().as_millis() < 350
                                    && (q.0 - p.0).abs() < 5.0
                                    && (q.1 - p.1).abs() < 5.0
                            });
                            self.last_click = Some((Instant::now(), p));
                            if double {
                                self.act(Action::FrameVolume);
                                return;
                            }
                        }
                        let mode = input::drag_mode(
                            b,
                            self.modifiers.shift_key(),
                            self.modifiers.control_key(),
                        );
                        self.drag = Some((mode, p, Instant::now()));
                        if mode == DragMode::Paint {
                            self.paint(p, 0.0, 0.0, 1.0);
                        }
                    }
                    ElementState::Released => self.drag = None,
                }
            }
            WindowEvent::MouseWheel { delta, .. }
                if self.cursor.is_some_and(|p| self.in_view(p)) =>
            {
                let lines = match delta {
                    MouseScrollDelta::LineDelta(_, y) => *y,
                    MouseScrollDelta::PixelDelta(p) => p.y as f32 / 40.0,
                };
                self.camera.zoom(input::wheel_zoom(lines));
                self.window.request_redraw();
            }
            _ => {}
        }
    }

    fn paint(&mut self, p: (f32, f32), dx: f32, dy: f32, dt: f32) {
        let Some(bx) = self.volume_box() else { return };
        let [vx, vy, vw, vh] = self.view_px;
        let Some(center) =
            input::paint_point(&self.camera, p.0 - vx, p.1 - vy, vw as u32, vh as u32, &bx)
        else {
            return;
        };
        let velocity = input::stroke_velocity(&self.camera, dx, dy, vh, dt, 5.0);
        self.sim.send(SimCommand::Paint {
            center,
            radius: self.ui.brush_radius,
            density: self.ui.brush_density,
            velocity,
        });
    }

    /// Draws one frame. Returns true when the window should close.
    fn redraw(&mut self, capture: Option<PathBuf>) -> Result<bool, RenderError> {
        let now = Instant::now();
        let dt = self.clock.start(now, self.frames > 0);
        if dt > 0.0 {
            self.stats.fps = if self.stats.fps == 0.0 {
                1.0 / dt
            } else {
                0.9 * self.stats.fps + 0.1 / dt
            };
        }
        gpu_view::serve(&mut self.renderer, &self.display, &self.sim, &self.ui)?;
        if let Some(snap) = self.sim.take_latest() {
            // The simulation pauses itself when a field blows up: show it paused.
            if !snap.running && snap.error.is_some() {
                self.ui.running = false;
            }
            if let Some(e) = &snap.recorder.last_error {
                if self.record_error.as_ref() != Some(e) {
                    eprintln!("error: recording stopped: {e}");
                    self.record_error = Some(e.clone());
                }
            } else if snap.recording {
                self.record_error = None;
            }
            // A run played back counts the frames it has shown (its step numbers go round).
            let counted = match snap.playback {
                Some((i, _)) => {
                    if self.played.0 != Some(i) {
                        self.played = (Some(i), self.played.1 + 1);
                    }
                    self.played.1
                }
                None => snap.frame.step,
            };
            self.clock.saw_step(counted, now);
            if snap.frame.step > 0 {
                self.ui.history.push(super::plots::Sample::of(
                    &snap.stats,
                    snap.frame.time,
                    snap.total_density,
                ));
            }
            self.snapshot = Some(snap);
        }
        self.update_streamlines();
        if let Some(snap) = &self.snapshot {
            if snap.serial != self.uploaded {
                let (r, k) = (&mut self.renderer, self.ui.scene.render.kelvin_per_unit);
                self.stats.upload_ms = gpu_view::show(r, &self.display, &self.sim, snap, k)?;
                self.uploaded = snap.serial;
            }
        }
        self.clock.lap(Part::Feed);
        // egui: panels first; what is left is the 3D view.
        let mut commands = Vec::new();
        let mut view_rect = egui::Rect::NOTHING;
        {
            let ui = &mut self.ui;
            let snap = self.snapshot.as_ref();
            let stats = self.stats;
            let tex = &mut self.slice_tex;
            let record_error = self.record_error.as_deref();
            self.egui.run(&self.window, |ctx| {
                super::scene_menu::menu_bar(ctx, ui, &mut commands);
                commands.extend(sections::side_panel(ctx, ui, snap).commands);
                if ui.slice.visible {
                    super::slice_panel::show(ctx, ui, snap, tex);
                }
                view_rect = ctx.available_rect();
                if ui.show_stats {
                    overlay::stats_overlay(ctx, view_rect, snap, stats);
                }
                if let Some(e) = record_error {
                    overlay::notice(ctx, view_rect, &format!("⚠ recording stopped: {e}"));
                }
            });
        }
        for c in commands {
            match c {
                UiCommand::Sim(c) => {
                    self.sim.send(c);
                }
                UiCommand::FrameVolume => self.frame_volume(),
                UiCommand::Screenshot => self.screenshot_next = Some(next_screenshot_path()),
                UiCommand::LoadScene(scene) => self.load_scene(*scene),
                UiCommand::SetObstacles(os) => {
                    match self.renderer.set_obstacles(&self.display, &os) {
                        Ok(()) => {
                            self.sim.send(SimCommand::SetObstacles(os));
                        }
                        Err(e) => self.ui.message = Some(crate::report(&e)),
                    }
                }
                UiCommand::SaveScene(path) => {
                    let scene = self.ui.current_scene(&self.camera);
                    self.ui.message = Some(match scene.save(&path) {
                        Ok(()) => format!("saved scene {}", path.display()),
                        Err(e) => crate::report(&e),
                    });
                }
            }
        }
        let size = self.window.inner_size();
        if size.width == 0 || size.height == 0 {
            return Ok(false);
        }
        let ppp = self.egui.egui_ctx().pixels_per_point();
        self.view_px = [
            view_rect.min.x * ppp,
            view_rect.min.y * ppp,
            (view_rect.width() * ppp).max(0.0),
            (view_rect.height() * ppp).max(0.0),
        ];
        if !self.framed && self.snapshot.is_some() && self.view_px[2] > 0.0 {
            let aspect = self.view_px[2] / self.view_px[3].max(1.0);
            self.camera = self.ui.scene.camera(aspect);
            self.framed = true;
        }
        self.clock.lap(Part::Ui);
        let mut frame = self.display.draw();
        let t = Instant::now();
        let result = match capture.or_else(|| self.screenshot_next.take()) {
            // A screenshot frame is drawn off-screen, read back, and then copied to the window:
            // the window's front buffer cannot be read reliably after a swap.
            Some(path) => self.draw_captured(&mut frame, size.width, size.height, &path),
            None => {
                frame.clear_color(0.05, 0.05, 0.06, 1.0);
                let view = self.draw_view(&mut frame, size.height);
                self.clock.lap(Part::View);
                view.map(|_| self.egui.paint(&self.display, &mut frame))
            }
        };
        self.stats.render_ms = t.elapsed().as_secs_f64() * 1e3;
        self.clock.lap(Part::Panels);
        let presented = frame.finish();
        self.clock.lap(Part::Present);
        presented.map_err(|e| RenderError::draw("presenting the frame", e))?;
        result?;
        self.frames += 1;
        Ok(false)
    }

    fn draw_captured(
        &mut self,
        frame: &mut glium::Frame,
        width: u32,
        height: u32,
        path: &std::path::Path,
    ) -> Result<(), RenderError> {
        let target = Offscreen::new(&self.display, width, height)?;
        {
            let mut fb = target.framebuffer(&self.display)?;
            fb.clear_color(0.05, 0.05, 0.06, 1.0);
            self.draw_scene(&mut fb, height)?;
            self.egui.paint(&self.display, &mut fb);
        }
        target.copy_to(frame);
        let image = target.read();
        let saved = image.save(path);
        self.ui.message = Some(match &saved {
            Ok(()) => format!("saved {}", path.display()),
            Err(e) => crate::report(e),
        });
        saved
    }

    /// Frame-time statistics for `--json` (see [`FrameClock::json`]), with the window's size,
    /// the grid, and how the volume reached the view.
    fn timing_json(&self) -> String {
        let size = self.window.inner_size();
        let d = self.snapshot.as_ref().map(|s| s.frame.grid.dims.as_array());
        let mut m = self.clock.json();
        let more = serde_json::json!({
            "frames": self.frames,
            "window": [size.width, size.height],
            "dims": d,
            "texture_uploads": self.renderer.uploads,
            "draws_gpu_textures": self.renderer.draws_shared(),
            "skips_empty_bricks": self.renderer.skips_empty(),
            "light_cache": self.renderer.light_cache_dims().map(|d| d.as_array()),
            "gpu_field_reads": self.snapshot.as_ref().and_then(|s| s.transfers).map(|t| t.field_reads),
        });
        if let serde_json::Value::Object(more) = more {
            m.extend(more);
        }
        serde_json::Value::Object(m).to_string()
    }

    /// Traces the 3D streamlines again when the frame or their settings changed.
    fn update_streamlines(&mut self) {
        let Some(snap) = &self.snapshot else { return };
        if !self.ui.streams.visible {
            return;
        }
        let key = StreamKey {
            settings: self.ui.streams.clone(),
            slice: (self.ui.slice.axis.index(), self.ui.slice.position),
            colormap: self.ui.slice.colormap,
        };
        if self.streams.1.as_ref() == Some(&(snap.serial, key.clone())) {
            return;
        }
        let f = &snap.frame;
        let seeds = self.ui.streams.seeds(f, &self.ui.slice);
        let t = crate::streamlines::Trace::for_grid(&f.grid, self.ui.streams.length);
        let lines = crate::streamlines::trace_all(f, &seeds, t);
        let map = key.colormap;
        let verts = stream_vertices(&lines, speed_range(&lines), |x| {
            map.color(x).map(|c| f32::from(c) / 255.0)
        });
        self.streams = (verts, Some((snap.serial, key)));
    }

    /// The 3D view's viewport in a window `height` pixels tall, `None` while it is empty.
    fn viewport(&self, height: u32) -> Option<Rect> {
        let [x, y, w, h] = self.view_px;
        (w >= 1.0 && h >= 1.0).then(|| Rect {
            left: x as u32,
            bottom: (height as f32 - (y + h)).max(0.0) as u32,
            width: w as u32,
            height: h as u32,
        })
    }

    /// The 3D view through its render scale (see `view3d`).
    fn draw_view(&mut self, frame: &mut glium::Frame, height: u32) -> Result<(), RenderError> {
        let Some(viewport) = self.viewport(height) else {
            return Ok(());
        };
        let Some(mut view) = self.view.take() else {
            return self.draw_scene(frame, height);
        };
        let aspect = viewport.width as f32 / viewport.height.max(1) as f32;
        let key = super::view3d::ViewKey {
            serial: self.snapshot.as_ref().map_or(0, |s| s.serial),
            view_proj: self.camera.view_projection(aspect).into(),
            viewport: (
                viewport.left,
                viewport.bottom,
                viewport.width,
                viewport.height,
            ),
            settings: format!(
                "{:?} {:?} {:?} {:?}",
                self.ui.scene.render,
                self.ui.streams,
                self.streams.1,
                (
                    self.ui.slice.visible,
                    self.ui.slice.axis,
                    self.ui.slice.position
                )
            ),
        };
        let display = self.display.clone();
        let result = view.draw(&display, frame, viewport, key, |fb, vp, effort| {
            self.draw_scene_in(fb, vp, effort)
        });
        self.stats.render_scale = view.scale;
        self.stats.render_effort = view.effort;
        self.stats.pass_ms = view.pass_ms;
        self.view = Some(view);
        result.map(|_| ())
    }

    fn draw_scene<S: Surface>(&self, target: &mut S, height: u32) -> Result<(), RenderError> {
        match self.viewport(height) {
            Some(viewport) => self.draw_scene_in(target, viewport, 1.0),
            None => Ok(()),
        }
    }

    fn draw_scene_in<S: Surface>(
        &self,
        target: &mut S,
        viewport: Rect,
        effort: f32,
    ) -> Result<(), RenderError> {
        let Some(bx) = self.volume_box() else {
            return Ok(());
        };
        let settings = super::view3d::with_effort(&self.ui.scene.render, effort);
        self.renderer.draw(
            &self.display,
            target,
            viewport,
            &self.camera,
            &bx,
            &settings,
        )?;
        if self.ui.streams.visible {
            self.renderer.draw_streamlines(
                &self.display,
                target,
                viewport,
                &self.camera,
                &bx,
                &self.ui.scene.render,
                &self.streams.0,
            )?;
        }
        if self.ui.slice.visible {
            if let Some(snap) = &self.snapshot {
                let quad = super::slice_view::outline(&bx, snap.frame.grid.dims, &self.ui.slice);
                self.renderer.draw_lines(
                    &self.display,
                    target,
                    viewport,
                    &self.camera,
                    &quad,
                    [1.0, 0.8, 0.2, 0.9],
                )?;
            }
        }
        let _ = box_edges;
        Ok(())
    }
}

fn next_screenshot_path() -> PathBuf {
    (1..10_000)
        .map(|n| PathBuf::from(format!("plume-screenshot-{n:03}.png")))
        .find(|p| !p.exists())
        .unwrap_or_else(|| PathBuf::from("plume-screenshot.png"))
}
