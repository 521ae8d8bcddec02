//! The egui side panel: simulation, fluid, emitters, rendering, slice view and statistics.
//! Widgets edit a local copy of the settings; changes become commands for the simulation.

pub use super::overlay::{stats_lines, stats_overlay};
use super::scene_menu::SceneMenu;
use super::sim_thread::{RecordSpec, SimCommand, Snapshot};
use super::slice_view::{ColorMap, SliceAxis, SliceField};
use crate::camera::OrbitCamera;
use crate::export::{ExportOptions, Fields, Format};
use crate::render::RenderSettings;
use crate::scene::{CameraSpec, Scene};
use crate::sim::{Advection, Dims, Emitter, FluidParams, PressureMethod, Pulse, ShapeKind};

/// A logarithmic slider scale between `lo` and `hi` (both > 0); position 0 means exactly 0
/// when `zero` is allowed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LogScale {
    /// Smallest positive value.
    pub lo: f32,
    /// Largest value.
    pub hi: f32,
    /// Position 0 stands for the value 0.
    pub zero: bool,
}

/// Slider positions reserved for "zero" at the left end of a log slider that allows it.
const ZERO_BAND: f32 = 0.02;

impl LogScale {
    /// The value at slider position `t` in [0, 1].
    pub fn to_value(&self, t: f32) -> f32 {
        let t = t.clamp(0.0, 1.0);
        if self.zero {
            if t < ZERO_BAND {
                return 0.0;
            }
            let u = (t - ZERO_BAND) / (1.0 - ZERO_BAND);
            self.lo * (self.hi / self.lo).powf(u)
        } else {
            self.lo * (self.hi / self.lo).powf(t)
        }
    }

    /// The slider position showing `v` (values outside the range sit at the ends).
    pub fn to_position(&self, v: f32) -> f32 {
        if self.zero && v <= 0.0 {
            return 0.0;
        }
        let u = ((v.max(self.lo) / self.lo).ln() / (self.hi / self.lo).ln()).clamp(0.0, 1.0);
        if self.zero {
            ZERO_BAND + u * (1.0 - ZERO_BAND)
        } else {
            u
        }
    }
}

/// The grid sizes offered in the panel.
pub const GRID_SIZES: [usize; 8] = [32, 48, 64, 80, 96, 128, 160, 192];

/// Slice view settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SliceSettings {
    /// Shown or not.
    pub visible: bool,
    /// Normal axis.
    pub axis: SliceAxis,
    /// Position along the axis, 0..1.
    pub position: f32,
    /// Field.
    pub field: SliceField,
    /// Colour map.
    pub colormap: ColorMap,
    /// Velocity arrows over the slice.
    pub arrows: bool,
    /// Cells between arrows.
    pub arrow_stride: usize,
}

impl Default for SliceSettings {
    fn default() -> Self {
        Self {
            visible: false,
            axis: SliceAxis::Z,
            position: 0.5,
            field: SliceField::Density,
            colormap: ColorMap::Viridis,
            arrows: true,
            arrow_stride: 4,
        }
    }
}

impl SliceSettings {
    /// The plane index for a grid with `n` cells along the slice axis.
    pub fn index(&self, dims: Dims) -> usize {
        let n = dims.as_array()[self.axis.index()];
        ((self.position.clamp(0.0, 1.0) * n as f32) as usize).min(n - 1)
    }
}

/// Everything the panel edits.
#[derive(Clone, Debug)]
pub struct UiState {
    /// Simulation running.
    pub running: bool,
    /// Fluid parameters being edited (sent when valid).
    pub params: FluidParams,
    /// Emitters being edited.
    pub emitters: Vec<Emitter>,
    /// Grid size chosen (applied with a reset).
    pub grid_n: usize,
    /// Steps per frame.
    pub steps_per_frame: u32,
    /// Keep simulated time at wall-clock pace.
    pub real_time: bool,
    /// Rendering.
    pub render: RenderSettings,
    /// Light azimuth, degrees.
    pub light_azimuth: f32,
    /// Light elevation, degrees.
    pub light_elevation: f32,
    /// Slice view.
    pub slice: SliceSettings,
    /// Paint brush radius (domain units) and density per stroke event.
    pub brush_radius: f32,
    /// Density painted per event.
    pub brush_density: f32,
    /// Last message to show (errors, saved files).
    pub message: Option<String>,
    /// Export settings.
    pub export: ExportUi,
    /// The scene loaded (its grid, boundaries and obstacles; the panel edits the rest).
    pub scene: Scene,
    /// The Scene menu's dialogs.
    pub menu: SceneMenu,
    /// Show the statistics overlay over the 3D view (key I).
    pub show_stats: bool,
}

/// The Export section's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportUi {
    /// Output folder.
    pub dir: String,
    /// File name prefix.
    pub prefix: String,
    /// Write OpenVDB.
    pub vdb: bool,
    /// Write VTK image data.
    pub vti: bool,
    /// Write NumPy arrays.
    pub npy: bool,
    /// Include density.
    pub density: bool,
    /// Include velocity.
    pub velocity: bool,
    /// Half-precision VDB values.
    pub half: bool,
    /// Record every K-th step.
    pub every: u32,
}

impl Default for ExportUi {
    fn default() -> Self {
        Self {
            dir: "plume-export".into(),
            prefix: "plume".into(),
            vdb: true,
            vti: false,
            npy: false,
            density: true,
            velocity: true,
            half: false,
            every: 2,
        }
    }
}

impl ExportUi {
    /// The export options these settings describe, validated.
    pub fn options(&self) -> Result<ExportOptions, String> {
        let mut formats = Vec::new();
        for (on, f) in [
            (self.vdb, Format::Vdb),
            (self.vti, Format::Vti),
            (self.npy, Format::Npy),
        ] {
            if on {
                formats.push(f);
            }
        }
        let o = ExportOptions {
            formats,
            fields: Fields {
                density: self.density,
                velocity: self.velocity,
            },
            half: self.half,
            prefix: self.prefix.trim().to_string(),
            ..ExportOptions::default()
        };
        o.validate().map_err(|e| e.to_string())?;
        if self.dir.trim().is_empty() {
            return Err("choose an output folder".into());
        }
        Ok(o)
    }
}

impl UiState {
    /// State matching a scene's settings.
    pub fn new(scene: &Scene, running: bool) -> Self {
        let mut s = Self {
            running,
            params: FluidParams::default(),
            emitters: Vec::new(),
            grid_n: 0,
            steps_per_frame: 1,
            real_time: true,
            render: RenderSettings::default(),
            light_azimuth: 0.0,
            light_elevation: 0.0,
            slice: SliceSettings::default(),
            brush_radius: 0.05,
            brush_density: 0.5,
            message: None,
            export: ExportUi::default(),
            scene: scene.clone(),
            menu: SceneMenu::default(),
            show_stats: true,
        };
        s.set_scene(scene);
        s
    }

    /// Takes over a newly loaded scene's settings; the slice, export and brush settings stay.
    pub fn set_scene(&mut self, scene: &Scene) {
        self.scene = scene.clone();
        self.params = scene.fluid.clone();
        self.emitters = scene.emitters.clone();
        self.grid_n = *scene.grid.dims.iter().max().unwrap_or(&64);
        self.render = scene.render.clone();
        let [x, y, z] = self.render.light_unit();
        self.light_elevation = y.clamp(-1.0, 1.0).asin().to_degrees();
        self.light_azimuth = x.atan2(z).to_degrees().rem_euclid(360.0);
        self.message = None;
    }

    /// The scene as it is now: the loaded one with the edited parameters, emitters, render
    /// settings and the camera's current view. "Save current as…" writes this.
    pub fn current_scene(&self, camera: &OrbitCamera) -> Scene {
        let mut s = self.scene.clone();
        s.fluid = self.params.clone();
        s.emitters = self.emitters.clone();
        s.render = self.render.clone();
        s.camera = CameraSpec {
            yaw: camera.yaw.to_degrees(),
            pitch: camera.pitch.to_degrees(),
            distance: Some(camera.distance),
            target: Some([camera.target.x, camera.target.y, camera.target.z]),
        };
        s
    }
}

/// Unit light direction from azimuth and elevation in degrees.
pub fn light_dir(azimuth: f32, elevation: f32) -> [f32; 3] {
    let (a, e) = (azimuth.to_radians(), elevation.to_radians());
    [e.cos() * a.sin(), e.sin(), e.cos() * a.cos()]
}

/// Something the panel asks the viewer to do.
#[derive(Clone, Debug, PartialEq)]
pub enum UiCommand {
    /// Forward to the simulation thread.
    Sim(SimCommand),
    /// Frame the volume.
    FrameVolume,
    /// Save a screenshot.
    Screenshot,
    /// Replace the scene (a preset or an opened file).
    LoadScene(Box<Scene>),
    /// Write the current scene to this file.
    SaveScene(std::path::PathBuf),
}

/// Validates edited parameters; returns the command to send or the error to show.
pub fn params_command(p: &FluidParams) -> Result<SimCommand, String> {
    p.validate()
        .map(|_| SimCommand::SetParams(p.clone()))
        .map_err(|e| e.to_string())
}

/// Validates edited emitters.
pub fn emitters_command(es: &[Emitter]) -> Result<SimCommand, String> {
    for (i, e) in es.iter().enumerate() {
        e.validate()
            .map_err(|err| format!("emitter {}: {err}", i + 1))?;
    }
    Ok(SimCommand::SetEmitters(es.to_vec()))
}

/// Frame timings the panel shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// Frames per second of the window.
    pub fps: f32,
    /// Last texture upload, ms.
    pub upload_ms: f64,
    /// Last 3D draw, ms.
    pub render_ms: f64,
}

fn log_slider(ui: &mut egui::Ui, label: &str, v: &mut f32, scale: LogScale, unit: &str) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let mut t = scale.to_position(*v);
        let r = ui.add(
            egui::Slider::new(&mut t, 0.0..=1.0)
                .show_value(false)
                .text(label),
        );
        if r.changed() {
            *v = scale.to_value(t);
            changed = true;
        }
        let lo = if scale.zero { 0.0 } else { scale.lo };
        let r = ui.add(
            egui::DragValue::new(v)
                .range(lo..=scale.hi)
                .speed(0.0)
                .custom_formatter(|x, _| format!("{x:.3e}"))
                .suffix(unit),
        );
        changed |= r.changed();
    });
    changed
}

/// What drawing the side panel produced.
pub struct SidePanelOutput {
    /// Commands for the simulation and the viewer.
    pub commands: Vec<UiCommand>,
    /// How far the panel's content reaches past its visible height, in points (≤ 0 when it
    /// fits; otherwise the always-visible scroll bar reaches the rest).
    pub overflow: f32,
}

/// Draws the side panel. The scroll bar is always drawn, so a panel taller than the window
/// shows at once that there is more below.
pub fn side_panel(
    ctx: &egui::Context,
    st: &mut UiState,
    snap: Option<&Snapshot>,
) -> SidePanelOutput {
    let mut out = Vec::new();
    let mut overflow = 0.0;
    egui::SidePanel::left("controls")
        .resizable(true)
        .default_width(300.0)
        .show(ctx, |ui| {
            // egui's default floating scroll bar is invisible until hovered; a solid one
            // shows at once that the panel goes on below.
            ui.style_mut().spacing.scroll = egui::style::ScrollStyle::solid();
            let scroll = egui::ScrollArea::vertical()
                .scroll_bar_visibility(egui::scroll_area::ScrollBarVisibility::AlwaysVisible)
                .show(ui, |ui| {
                    ui.heading("Plume");
                    if let Some(m) = &st.message {
                        ui.colored_label(egui::Color32::from_rgb(240, 200, 120), m);
                    }
                    if let Some(e) = snap.and_then(|s| s.error.as_ref()) {
                        ui.colored_label(egui::Color32::from_rgb(255, 120, 120), e);
                    }
                    simulation(ui, st, &mut out);
                    fluid(ui, st, &mut out);
                    emitters(ui, st, &mut out);
                    rendering(ui, st, &mut out);
                    export_section(ui, st, snap, &mut out);
                    slice(ui, st);
                    controls(ui);
                });
            overflow = scroll.content_size.y - scroll.inner_rect.height();
        });
    SidePanelOutput {
        commands: out,
        overflow,
    }
}

fn simulation(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    egui::CollapsingHeader::new("Simulation")
        .default_open(true)
        .show(ui, |ui| {
            ui.horizontal(|ui| {
                let label = if st.running { "⏸ Pause" } else { "▶ Run" };
                if ui.button(label).clicked() {
                    st.running = !st.running;
                    out.push(UiCommand::Sim(SimCommand::SetRunning(st.running)));
                }
                if ui.button("Step").clicked() {
                    st.running = false;
                    out.push(UiCommand::Sim(SimCommand::StepOnce));
                }
                if ui.button("Reset").clicked() {
                    out.push(UiCommand::Sim(SimCommand::Reset(None)));
                }
            });
            ui.horizontal(|ui| {
                egui::ComboBox::from_label("grid (longest side)")
                    .selected_text(format!("{}", st.grid_n))
                    .show_ui(ui, |ui| {
                        for n in GRID_SIZES {
                            ui.selectable_value(&mut st.grid_n, n, format!("{n}"));
                        }
                    });
                if ui.button("Apply (reset)").clicked() {
                    let d = st.scene.clone().with_resolution(st.grid_n).dims();
                    st.scene.grid.dims = d.as_array();
                    out.push(UiCommand::Sim(SimCommand::Reset(Some(d))));
                }
            });
            let mut changed = false;
            changed |= log_slider(
                ui,
                "dt",
                &mut st.params.dt,
                LogScale {
                    lo: 1e-3,
                    hi: 1.0,
                    zero: false,
                },
                " s",
            );
            changed |= log_slider(
                ui,
                "pressure tolerance",
                &mut st.params.pressure_tolerance,
                LogScale {
                    lo: 1e-7,
                    hi: 0.5,
                    zero: false,
                },
                "",
            );
            changed |= ui
                .add(
                    egui::Slider::new(&mut st.params.pressure_max_iterations, 1..=2000)
                        .logarithmic(true)
                        .text("pressure iteration cap"),
                )
                .changed();
            ui.horizontal(|ui| {
                changed |= ui
                    .add(
                        egui::Slider::new(&mut st.params.max_cfl, 0.25..=16.0)
                            .logarithmic(true)
                            .text("max CFL"),
                    )
                    .on_hover_text("cells the flow may move per sub-step; a step takes as many sub-steps as that needs")
                    .changed();
                changed |= ui
                    .add(
                        egui::DragValue::new(&mut st.params.max_substeps)
                            .range(1..=1000)
                            .prefix("≤ ")
                            .suffix(" sub-steps"),
                    )
                    .changed();
            });
            if changed {
                push_params(st, out);
            }
            if ui
                .add(egui::Slider::new(&mut st.steps_per_frame, 1..=10).text("steps per frame"))
                .changed()
            {
                out.push(UiCommand::Sim(SimCommand::SetStepsPerFrame(
                    st.steps_per_frame,
                )));
            }
            ui.horizontal(|ui| {
                if ui.checkbox(&mut st.real_time, "real-time pace").changed() {
                    out.push(UiCommand::Sim(SimCommand::SetRealTime(st.real_time)));
                }
                ui.checkbox(&mut st.show_stats, "statistics (I)");
            });
        });
}

fn push_params(st: &mut UiState, out: &mut Vec<UiCommand>) {
    match params_command(&st.params) {
        Ok(c) => {
            st.message = None;
            out.push(UiCommand::Sim(c));
        }
        Err(e) => st.message = Some(e),
    }
}

fn fluid(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    egui::CollapsingHeader::new("Fluid")
        .default_open(true)
        .show(ui, |ui| {
            let mut changed = false;
            let coef = LogScale {
                lo: 1e-7,
                hi: 1e-1,
                zero: true,
            };
            changed |= log_slider(ui, "diffusion", &mut st.params.diffusion, coef, " u²/s");
            changed |= log_slider(ui, "viscosity", &mut st.params.viscosity, coef, " u²/s");
            changed |= ui
                .add(egui::Slider::new(&mut st.params.fade, 0.0..=5.0).text("fade (1/s)"))
                .changed();
            changed |= ui
                .add(
                    egui::Slider::new(&mut st.params.smoke_weight, -5.0..=5.0)
                        .text("smoke weight α (u/s² per density)"),
                )
                .changed();
            changed |= ui
                .add(
                    egui::Slider::new(&mut st.params.buoyancy, -10.0..=10.0)
                        .text("buoyancy β (u/s² per degree)"),
                )
                .changed();
            changed |= ui
                .add(
                    egui::Slider::new(&mut st.params.ambient_temperature, -10.0..=10.0)
                        .text("ambient temperature"),
                )
                .changed();
            changed |= ui
                .add(egui::Slider::new(&mut st.params.cooling, 0.0..=10.0).text("cooling (1/s)"))
                .changed();
            changed |= ui
                .add(
                    egui::Slider::new(&mut st.params.vorticity, 0.0..=20.0)
                        .text("vorticity confinement ε"),
                )
                .changed();
            ui.horizontal(|ui| {
                ui.label("advection: smoke");
                for (id, field) in [
                    ("adv-smoke", &mut st.params.advection),
                    ("adv-velocity", &mut st.params.velocity_advection),
                ] {
                    if id == "adv-velocity" {
                        ui.label("velocity");
                    }
                    egui::ComboBox::from_id_salt(id)
                        .selected_text(advection_label(*field))
                        .width(110.0)
                        .show_ui(ui, |ui| {
                            for a in [Advection::SemiLagrangian, Advection::MacCormack] {
                                changed |=
                                    ui.selectable_value(field, a, advection_label(a)).changed();
                            }
                        });
                }
            });
            egui::ComboBox::from_label("pressure solver")
                .selected_text(pressure_label(st.params.pressure_method))
                .show_ui(ui, |ui| {
                    for m in [PressureMethod::Multigrid, PressureMethod::RedBlackSor] {
                        changed |= ui
                            .selectable_value(&mut st.params.pressure_method, m, pressure_label(m))
                            .changed();
                    }
                });
            if st.params.pressure_method == PressureMethod::RedBlackSor {
                changed |= ui
                    .add(
                        egui::Slider::new(&mut st.params.sor_omega, 1.0..=1.99)
                            .text("SOR over-relaxation ω"),
                    )
                    .changed();
            }
            if changed {
                push_params(st, out);
            }
            ui.add(egui::Slider::new(&mut st.brush_radius, 0.01..=0.3).text("brush radius"));
            ui.add(egui::Slider::new(&mut st.brush_density, 0.0..=5.0).text("brush density"));
        });
}

fn pressure_label(m: PressureMethod) -> &'static str {
    match m {
        PressureMethod::Multigrid => "multigrid PCG",
        PressureMethod::RedBlackSor => "red-black SOR",
    }
}

fn advection_label(a: Advection) -> &'static str {
    match a {
        Advection::SemiLagrangian => "semi-Lagrangian",
        Advection::MacCormack => "MacCormack",
    }
}

/// An optional value with a checkbox: unchecked is `None`, checking sets `default`.
fn optional<T: Copy>(
    ui: &mut egui::Ui,
    label: &str,
    v: &mut Option<T>,
    default: T,
    edit: impl FnOnce(&mut egui::Ui, &mut T) -> bool,
) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let mut on = v.is_some();
        if ui.checkbox(&mut on, label).changed() {
            *v = on.then_some(default);
            changed = true;
        }
        if let Some(x) = v.as_mut() {
            changed |= edit(ui, x);
        }
    });
    changed
}

fn vec3_edit(ui: &mut egui::Ui, v: &mut [f32; 3], speed: f32, lo: f32, hi: f32) -> bool {
    let mut changed = false;
    for c in v.iter_mut() {
        changed |= ui
            .add(egui::DragValue::new(c).speed(speed).range(lo..=hi))
            .changed();
    }
    changed
}

fn emitter_edit(ui: &mut egui::Ui, e: &mut Emitter) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label("shape");
        for (k, name) in [(ShapeKind::Sphere, "sphere"), (ShapeKind::Box, "box")] {
            if ui.selectable_label(e.shape == k, name).clicked() && e.shape != k {
                e.shape = k;
                let ext = e.radius.map(|r| 2.0 * r).unwrap_or(0.12);
                match k {
                    ShapeKind::Sphere => {
                        e.radius = Some(e.size.map(|s| 0.5 * s[0]).unwrap_or(0.06));
                        e.size = None;
                    }
                    ShapeKind::Box => {
                        e.size = Some([ext; 3]);
                        e.radius = None;
                    }
                }
                changed = true;
            }
        }
    });
    ui.horizontal(|ui| {
        ui.label("centre");
        changed |= vec3_edit(ui, &mut e.center, 0.005, -10.0, 10.0);
    });
    if let Some(r) = e.radius.as_mut() {
        changed |= ui
            .add(egui::Slider::new(r, 0.005..=0.5).text("radius"))
            .changed();
    }
    if let Some(sz) = e.size.as_mut() {
        ui.horizontal(|ui| {
            ui.label("size");
            changed |= vec3_edit(ui, sz, 0.005, 0.005, 20.0);
        });
    }
    changed |= ui
        .add(
            egui::Slider::new(&mut e.density, 0.0..=100.0)
                .logarithmic(true)
                .text("density (/s)"),
        )
        .changed();
    changed |= optional(ui, "temperature", &mut e.temperature, 1.0, |ui, t| {
        ui.add(egui::DragValue::new(t).speed(0.02).range(-100.0..=100.0))
            .changed()
    });
    changed |= optional(
        ui,
        "velocity",
        &mut e.velocity,
        [0.0, 0.25, 0.0],
        |ui, v| vec3_edit(ui, v, 0.01, -100.0, 100.0),
    );
    ui.horizontal(|ui| {
        ui.label("active from");
        changed |= ui
            .add(
                egui::DragValue::new(&mut e.start)
                    .speed(0.05)
                    .range(0.0..=1e6)
                    .suffix(" s"),
            )
            .changed();
    });
    let start = e.start;
    changed |= optional(ui, "until", &mut e.end, start + 1.0, |ui, t| {
        ui.add(
            egui::DragValue::new(t)
                .speed(0.05)
                .range(start + 0.01..=1e6)
                .suffix(" s"),
        )
        .changed()
    });
    changed |= optional(
        ui,
        "pulse",
        &mut e.pulse,
        Pulse {
            period: 1.0,
            duty: 0.5,
        },
        |ui, p| {
            let a = ui
                .add(
                    egui::DragValue::new(&mut p.period)
                        .speed(0.05)
                        .range(0.01..=1e6)
                        .prefix("every ")
                        .suffix(" s"),
                )
                .changed();
            let b = ui
                .add(
                    egui::DragValue::new(&mut p.duty)
                        .speed(0.01)
                        .range(0.01..=1.0)
                        .prefix("on ")
                        .custom_formatter(|x, _| format!("{:.0}%", x * 100.0)),
                )
                .changed();
            a | b
        },
    );
    changed
}

fn emitters(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    egui::CollapsingHeader::new("Emitters")
        .default_open(false)
        .show(ui, |ui| {
            let mut changed = false;
            let mut remove = None;
            for (i, e) in st.emitters.iter_mut().enumerate() {
                ui.push_id(i, |ui| {
                    ui.group(|ui| {
                        ui.horizontal(|ui| {
                            ui.label(format!("Emitter {}", i + 1));
                            if ui.small_button("Remove").clicked() {
                                remove = Some(i);
                            }
                        });
                        changed |= emitter_edit(ui, e);
                    });
                });
            }
            if let Some(i) = remove {
                st.emitters.remove(i);
                changed = true;
            }
            if ui.button("Add emitter").clicked() {
                let (lo, hi) = st.scene.bounds();
                st.emitters.push(Emitter {
                    center: [
                        0.5 * (lo[0] + hi[0]),
                        lo[1] + 0.15 * (hi[1] - lo[1]),
                        0.5 * (lo[2] + hi[2]),
                    ],
                    ..Emitter::default()
                });
                changed = true;
            }
            if changed {
                match emitters_command(&st.emitters) {
                    Ok(c) => out.push(UiCommand::Sim(c)),
                    Err(e) => st.message = Some(e),
                }
            }
        });
}

fn rgb_edit(ui: &mut egui::Ui, label: &str, c: &mut [f32; 3]) {
    ui.horizontal(|ui| {
        ui.color_edit_button_rgb(c);
        ui.label(label);
    });
}

fn rendering(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    egui::CollapsingHeader::new("Rendering")
        .default_open(false)
        .show(ui, |ui| {
            let r = &mut st.render;
            log_slider(
                ui,
                "density scale",
                &mut r.density_scale,
                LogScale {
                    lo: 0.1,
                    hi: 1000.0,
                    zero: false,
                },
                "",
            );
            ui.add(egui::Slider::new(&mut r.step_quality, 1.0..=4.0).text("samples per voxel"));
            let mut moved = ui
                .add(
                    egui::Slider::new(&mut st.light_azimuth, -180.0..=180.0)
                        .text("light azimuth °"),
                )
                .changed();
            moved |= ui
                .add(
                    egui::Slider::new(&mut st.light_elevation, -89.0..=89.0)
                        .text("light elevation °"),
                )
                .changed();
            if moved {
                r.light_dir = light_dir(st.light_azimuth, st.light_elevation);
            }
            ui.checkbox(&mut r.shadows, "self-shadowing");
            ui.add(egui::Slider::new(&mut r.shadow_steps, 4..=64).text("shadow samples"));
            ui.add(egui::Slider::new(&mut r.ambient, 0.0..=1.0).text("ambient"));
            rgb_edit(ui, "smoke colour", &mut r.smoke_color);
            rgb_edit(ui, "light colour", &mut r.light_color);
            rgb_edit(ui, "background top", &mut r.background_top);
            rgb_edit(ui, "background bottom", &mut r.background_bottom);
            ui.checkbox(&mut r.outline, "box outline");
            ui.checkbox(&mut r.jitter, "jitter (hide banding)");
            ui.horizontal(|ui| {
                if ui.button("Frame volume (F)").clicked() {
                    out.push(UiCommand::FrameVolume);
                }
                if ui.button("Screenshot (F12)").clicked() {
                    out.push(UiCommand::Screenshot);
                }
            });
        });
}

fn export_section(
    ui: &mut egui::Ui,
    st: &mut UiState,
    snap: Option<&Snapshot>,
    out: &mut Vec<UiCommand>,
) {
    egui::CollapsingHeader::new("Export")
        .default_open(false)
        .show(ui, |ui| {
            let e = &mut st.export;
            ui.horizontal(|ui| {
                ui.label("folder");
                ui.text_edit_singleline(&mut e.dir);
            });
            ui.horizontal(|ui| {
                ui.label("prefix");
                ui.text_edit_singleline(&mut e.prefix);
            });
            ui.horizontal(|ui| {
                ui.checkbox(&mut e.vdb, "OpenVDB");
                ui.checkbox(&mut e.vti, "VTK");
                ui.checkbox(&mut e.npy, "NumPy");
            });
            ui.horizontal(|ui| {
                ui.checkbox(&mut e.density, "density");
                ui.checkbox(&mut e.velocity, "velocity");
                ui.checkbox(&mut e.half, "half precision (VDB)");
            });
            ui.add(egui::Slider::new(&mut e.every, 1..=100).text("record every K steps"));
            let recording = snap.is_some_and(|s| s.recording);
            ui.horizontal(|ui| {
                if ui.button("Export this frame").clicked() {
                    match e.options() {
                        Ok(o) => out.push(UiCommand::Sim(SimCommand::ExportFrame(
                            e.dir.trim().into(),
                            o,
                        ))),
                        Err(m) => st.message = Some(m),
                    }
                }
                let label = if recording {
                    "⏹ Stop recording"
                } else {
                    "⏺ Record"
                };
                if ui.button(label).clicked() {
                    if recording {
                        out.push(UiCommand::Sim(SimCommand::SetRecording(None)));
                    } else {
                        match e.options() {
                            Ok(o) => out.push(UiCommand::Sim(SimCommand::SetRecording(Some(
                                RecordSpec {
                                    dir: e.dir.trim().into(),
                                    opts: o,
                                    every: e.every,
                                },
                            )))),
                            Err(m) => st.message = Some(m),
                        }
                    }
                }
            });
            if let Some(s) = snap {
                let r = &s.recorder;
                ui.label(format!(
                    "{} frames written, {} queued{}",
                    r.written,
                    r.queued,
                    if recording { ", recording" } else { "" }
                ));
                if let Some(f) = &r.last_file {
                    ui.label(format!("last: {f}"));
                }
                if let Some(err) = &r.last_error {
                    ui.colored_label(
                        egui::Color32::from_rgb(255, 120, 120),
                        format!("export stopped: {err}"),
                    );
                }
            }
        });
}

fn slice(ui: &mut egui::Ui, st: &mut UiState) {
    egui::CollapsingHeader::new("Slice view")
        .default_open(true)
        .show(ui, |ui| {
            let s = &mut st.slice;
            ui.checkbox(&mut s.visible, "show slice view (S)");
            ui.horizontal(|ui| {
                ui.label("axis");
                ui.radio_value(&mut s.axis, SliceAxis::X, "X");
                ui.radio_value(&mut s.axis, SliceAxis::Y, "Y");
                ui.radio_value(&mut s.axis, SliceAxis::Z, "Z");
            });
            ui.add(egui::Slider::new(&mut s.position, 0.0..=1.0).text("position"));
            egui::ComboBox::from_label("field")
                .selected_text(s.field.label())
                .show_ui(ui, |ui| {
                    for f in [
                        SliceField::Density,
                        SliceField::Temperature,
                        SliceField::Speed,
                        SliceField::Pressure,
                        SliceField::Divergence,
                    ] {
                        ui.selectable_value(&mut s.field, f, f.label());
                    }
                });
            egui::ComboBox::from_label("colour map")
                .selected_text(format!("{:?}", s.colormap))
                .show_ui(ui, |ui| {
                    for m in [
                        ColorMap::Viridis,
                        ColorMap::Inferno,
                        ColorMap::Grey,
                        ColorMap::CoolWarm,
                    ] {
                        ui.selectable_value(&mut s.colormap, m, format!("{m:?}"));
                    }
                });
            ui.checkbox(&mut s.arrows, "velocity arrows");
            ui.add(egui::Slider::new(&mut s.arrow_stride, 1..=16).text("arrow spacing (cells)"));
        });
}

/// The controls, as the panel lists them.
pub const CONTROLS: &[(&str, &str)] = &[
    ("left drag", "orbit"),
    ("right drag / Shift+left drag", "pan"),
    ("wheel", "zoom"),
    ("double-click / F", "frame the volume"),
    ("Ctrl+left drag", "paint smoke and push it"),
    ("Space", "pause / resume"),
    ("N", "one step while paused"),
    ("R", "reset"),
    ("S", "slice view on/off"),
    ("I", "statistics overlay on/off"),
    ("F12", "screenshot"),
];

fn controls(ui: &mut egui::Ui) {
    egui::CollapsingHeader::new("Controls")
        .default_open(false)
        .show(ui, |ui| {
            egui::Grid::new("controls-grid").show(ui, |ui| {
                for (k, v) in CONTROLS {
                    ui.label(*k);
                    ui.label(*v);
                    ui.end_row();
                }
            });
        });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_scale_round_trips_and_reserves_zero() {
        let s = LogScale {
            lo: 1e-7,
            hi: 1e-1,
            zero: true,
        };
        assert_eq!(s.to_value(0.0), 0.0);
        assert_eq!(s.to_position(0.0), 0.0);
        assert!((s.to_value(1.0) - 1e-1).abs() < 1e-7);
        for v in [1e-7f32, 3e-5, 1e-3, 0.05] {
            let back = s.to_value(s.to_position(v));
            assert!(((back - v) / v).abs() < 1e-4, "{v} -> {back}");
        }
        // Equal steps of the slider multiply the value by equal factors.
        let a = s.to_value(0.4) / s.to_value(0.3);
        let b = s.to_value(0.8) / s.to_value(0.7);
        assert!((a - b).abs() / a < 1e-4);
        let n = LogScale {
            lo: 1e-3,
            hi: 1.0,
            zero: false,
        };
        assert!((n.to_value(0.0) - 1e-3).abs() < 1e-9);
        assert!((n.to_value(0.5) - (1e-3f32).sqrt()).abs() < 1e-5);
        assert_eq!(n.to_position(5.0), 1.0);
    }

    #[test]
    fn edited_parameters_become_commands_only_when_valid() {
        let mut p = FluidParams {
            viscosity: 1e-3,
            ..FluidParams::default()
        };
        assert_eq!(params_command(&p), Ok(SimCommand::SetParams(p.clone())));
        p.dt = 0.0;
        let e = params_command(&p).expect_err("dt 0 must be refused");
        assert!(e.contains("dt"), "{e}");
        let es = vec![Emitter {
            radius: Some(-1.0),
            ..Emitter::default()
        }];
        assert!(emitters_command(&es)
            .expect_err("bad radius")
            .contains("emitter 1"));
    }

    #[test]
    fn the_current_scene_saves_what_was_edited_and_loads_back_equal() {
        let scene = Scene::preset("wind_tunnel").expect("preset");
        let mut st = UiState::new(&scene, true);
        assert_eq!(st.params, scene.fluid);
        assert_eq!(st.emitters, scene.emitters);
        st.params.vorticity = 2.5;
        st.emitters[0].density = 3.0;
        st.render.density_scale = 10.0;
        let cam = OrbitCamera::from_degrees([1.0, 0.5, 0.5], 40.0, 10.0, 3.0);
        let cur = st.current_scene(&cam);
        assert_eq!(cur.fluid.vorticity, 2.5);
        assert_eq!(cur.emitters[0].density, 3.0);
        assert_eq!(cur.render.density_scale, 10.0);
        assert_eq!(cur.obstacles, scene.obstacles);
        assert_eq!(cur.boundaries, scene.boundaries);
        assert!((cur.camera.yaw - 40.0).abs() < 1e-3);
        let text = cur.to_toml().expect("toml");
        let back = Scene::from_toml(&text, None).expect("loads back");
        assert_eq!(back, cur);
        // The camera it describes is the one that was saved.
        let c2 = back.camera(1.5);
        assert!((c2.distance - 3.0).abs() < 1e-4 && (c2.yaw - cam.yaw).abs() < 1e-4);
        // Loading another scene replaces the edits but keeps the slice settings.
        st.slice.visible = true;
        st.set_scene(&Scene::default_plume());
        assert_eq!(st.params, Scene::default_plume().fluid);
        assert!(st.slice.visible);
    }

    #[test]
    fn export_settings_become_validated_options() {
        let mut e = ExportUi::default();
        let o = e.options().expect("defaults are valid");
        assert_eq!(o.formats, vec![Format::Vdb]);
        assert!(o.fields.density && o.fields.velocity);
        e.vti = true;
        e.npy = true;
        e.half = true;
        let o = e.options().expect("valid");
        assert_eq!(o.formats, vec![Format::Vdb, Format::Vti, Format::Npy]);
        assert!(o.half);
        e.vdb = false;
        e.vti = false;
        e.npy = false;
        assert!(e.options().is_err(), "no format");
        e.npy = true;
        e.density = false;
        e.velocity = false;
        assert!(e.options().is_err(), "no field");
        e.density = true;
        e.prefix = "a/b".into();
        assert!(e.options().expect_err("bad prefix").contains("prefix"));
        e.prefix = "ok".into();
        e.dir = "  ".into();
        assert!(e.options().is_err(), "no folder");
    }

    #[test]
    fn slice_position_maps_to_a_plane_index() {
        let mut s = SliceSettings::default();
        let d = Dims::new(10, 20, 40);
        s.position = 0.5;
        assert_eq!(s.index(d), 20);
        s.position = 1.0;
        assert_eq!(s.index(d), 39);
        s.axis = SliceAxis::X;
        s.position = 0.0;
        assert_eq!(s.index(d), 0);
    }

    #[test]
    fn light_direction_is_a_unit_vector_pointing_up_at_positive_elevation() {
        let d = light_dir(30.0, 45.0);
        let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        assert!((n - 1.0).abs() < 1e-6 && d[1] > 0.0);
    }

    #[test]
    fn the_controls_list_names_every_key() {
        let text: String = CONTROLS.iter().map(|(k, v)| format!("{k} {v} ")).collect();
        for k in [
            "Space",
            "N",
            "R",
            "S",
            "F12",
            "Ctrl+left",
            "wheel",
            "double-click",
        ] {
            assert!(text.contains(k), "{k} missing");
        }
    }
}
