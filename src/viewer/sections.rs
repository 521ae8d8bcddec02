//! The side panel's sections: Simulation, Fluid, Emitters, Rendering, Export, Slice view and
//! Controls. Each edits the [`UiState`] (the scene in place) and pushes commands.

use super::sim_thread::{SimCommand, Snapshot};
use super::slice_view::{ColorMap, SliceAxis, SliceField};
use super::state::{emitters_command, light_dir, params_command, UiCommand, UiState, GRID_SIZES};
use super::widgets::{optional, param_drag, param_slider, rgb_edit, vec3_edit};
use crate::export::{Fields, Format, Up};
use crate::ranges::{emitter as er, fluid as fr, render as rr};
use crate::sim::{Advection, Emitter, PressureMethod, Pulse, ShapeKind};

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
                    // No heading: the window's title and the menu bar name Plume and the
                    // scene, and the room goes to the Fire section's header.
                    if let Some(m) = &st.message {
                        ui.colored_label(egui::Color32::from_rgb(240, 200, 120), m);
                    }
                    if let Some(e) = snap.and_then(|s| s.error.as_ref()) {
                        ui.colored_label(egui::Color32::from_rgb(255, 120, 120), e);
                    }
                    // A run played back: its frames, not what makes them.
                    match snap.and_then(|s| s.playback.map(|p| (s, p))) {
                        Some((s, at)) => super::run_section::run(ui, st, s, at, &mut out),
                        None => {
                            simulation(ui, st, &mut out);
                            fluid(ui, st, &mut out);
                            super::fire_section::fire(ui, st, &mut out);
                            super::detail_section::detail(ui, st, &mut out);
                            emitters(ui, st, &mut out);
                        }
                    }
                    rendering(ui, st, &mut out);
                    export_section(ui, st, snap, &mut out);
                    slice(ui, st);
                    statistics(ui, st);
                    controls(ui);
                });
            overflow = scroll.content_size.y - scroll.inner_rect.height();
        });
    SidePanelOutput {
        commands: out,
        overflow,
    }
}

/// The solver backend: choosing another moves the running simulation to it (fields, clock
/// and settings carry over); the statistics overlay names the one that runs and why.
fn backend(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    use crate::backend::Backend;
    let before = st.backend;
    egui::ComboBox::from_id_salt("solver backend")
        .selected_text(format!("solver: {}", st.backend.name()))
        .show_ui(ui, |ui| {
            for b in [Backend::Auto, Backend::Cpu, Backend::Gpu] {
                ui.selectable_value(&mut st.backend, b, b.name());
            }
        })
        .response
        .on_hover_text(
            "cpu; gpu (OpenGL compute shaders); auto: the GPU where the renderer is a \
             hardware one that passes a start-up check, else the CPU. The smoke carries over.",
        );
    if st.backend != before {
        out.push(UiCommand::Sim(SimCommand::SetBackend(st.backend)));
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
                backend(ui, st, out);
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
            let p = &mut st.scene.fluid;
            changed |= param_slider(ui, &fr::DT, "dt", &mut p.dt).changed();
            changed |= param_slider(
                ui,
                &fr::PRESSURE_TOLERANCE,
                "pressure tolerance",
                &mut p.pressure_tolerance,
            )
            .changed();
            changed |= param_slider(
                ui,
                &fr::PRESSURE_MAX_ITERATIONS,
                "pressure iteration cap",
                &mut p.pressure_max_iterations,
            )
            .changed();
            changed |= param_slider(ui, &fr::MAX_CFL, "max CFL", &mut p.max_cfl)
                .on_hover_text(
                    "cells the flow may move per sub-step; a step takes as many sub-steps as \
                     that needs",
                )
                .changed();
            changed |= param_slider(ui, &fr::MAX_SUBSTEPS, "most sub-steps", &mut p.max_substeps)
                .changed();
            if changed {
                push_params(st, out);
            }
            // The scene's step cost where it is more than ten default steps (the same
            // estimate `run`, `render` and `bench` print).
            if let Some(note) = st.scene.cost_note() {
                ui.colored_label(ui.visuals().warn_fg_color, note);
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
    match params_command(&st.scene.fluid) {
        Ok(c) => {
            st.message = None;
            out.push(UiCommand::Sim(c));
        }
        Err(e) => st.message = Some(e),
    }
}

fn fluid(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    // Open unless the scene burns: then the Fire section opens in its place, so the panel
    // still fits 1280×800 with the slice view's section open.
    let burns = st.scene.emitters.iter().any(|e| e.burns());
    egui::CollapsingHeader::new("Fluid")
        .id_salt(("fluid", burns))
        .default_open(!burns)
        .show(ui, |ui| {
            let mut changed = false;
            let p = &mut st.scene.fluid;
            for (param, label, v) in [
                (&fr::DIFFUSION, "diffusion", &mut p.diffusion),
                (&fr::VISCOSITY, "viscosity", &mut p.viscosity),
                (&fr::FADE, "fade", &mut p.fade),
                (&fr::SMOKE_WEIGHT, "smoke weight α", &mut p.smoke_weight),
                (&fr::BUOYANCY, "buoyancy β", &mut p.buoyancy),
                (
                    &fr::AMBIENT_TEMPERATURE,
                    "ambient temperature",
                    &mut p.ambient_temperature,
                ),
                (&fr::COOLING, "cooling", &mut p.cooling),
                (&fr::VORTICITY, "vorticity confinement ε", &mut p.vorticity),
            ] {
                changed |= param_slider(ui, param, label, v).changed();
            }
            ui.horizontal(|ui| {
                ui.label("advection: smoke");
                for (id, field) in [
                    ("adv-smoke", &mut st.scene.fluid.advection),
                    ("adv-velocity", &mut st.scene.fluid.velocity_advection),
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
                .selected_text(pressure_label(st.scene.fluid.pressure_method))
                .show_ui(ui, |ui| {
                    for m in [PressureMethod::Multigrid, PressureMethod::RedBlackSor] {
                        changed |= ui
                            .selectable_value(
                                &mut st.scene.fluid.pressure_method,
                                m,
                                pressure_label(m),
                            )
                            .changed();
                    }
                });
            if st.scene.fluid.pressure_method == PressureMethod::RedBlackSor {
                changed |= param_slider(
                    ui,
                    &fr::SOR_OMEGA,
                    "SOR over-relaxation ω",
                    &mut st.scene.fluid.sor_omega,
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
                    ShapeKind::Mesh => {}
                }
                changed = true;
            }
        }
    });
    ui.horizontal(|ui| {
        ui.label("centre");
        changed |= vec3_edit(ui, &mut e.center, 0.005, &er::CENTER);
    });
    if let Some(r) = e.radius.as_mut() {
        changed |= param_slider(ui, &er::RADIUS, "radius", r).changed();
    }
    if let Some(sz) = e.size.as_mut() {
        ui.horizontal(|ui| {
            ui.label("size");
            changed |= vec3_edit(ui, sz, 0.005, &er::SIZE);
        });
    }
    changed |= param_slider(ui, &er::DENSITY, "density (/s)", &mut e.density).changed();
    changed |= param_slider(ui, &er::FUEL, "fuel (/s)", &mut e.fuel).changed();
    changed |= param_slider(ui, &er::FLAME, "flame (/s)", &mut e.flame).changed();
    changed |= optional(ui, "temperature", &mut e.temperature, 1.0, |ui, t| {
        param_drag(ui, &er::TEMPERATURE, t, 0.02)
    });
    changed |= optional(
        ui,
        "velocity",
        &mut e.velocity,
        [0.0, 0.25, 0.0],
        |ui, v| vec3_edit(ui, v, 0.01, &er::VELOCITY),
    );
    ui.horizontal(|ui| {
        ui.label("active from");
        changed |= ui
            .add(
                egui::DragValue::new(&mut e.start)
                    .speed(0.05)
                    .range(er::START.min..=er::START.max)
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
                        .range(er::PERIOD.slider_range().0..=er::PERIOD.max)
                        .prefix("every ")
                        .suffix(" s"),
                )
                .changed();
            let b = ui
                .add(
                    egui::DragValue::new(&mut p.duty)
                        .speed(0.01)
                        .range(er::DUTY.slider_range().0..=er::DUTY.max)
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
    egui::CollapsingHeader::new("Emitters and obstacles")
        .default_open(false)
        .show(ui, |ui| {
            let mut changed = false;
            let mut remove = None;
            for (i, e) in st.scene.emitters.iter_mut().enumerate() {
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
                st.scene.emitters.remove(i);
                changed = true;
            }
            if ui.button("Add emitter").clicked() {
                let (lo, hi) = st.scene.bounds();
                st.scene.emitters.push(Emitter {
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
                match emitters_command(&st.scene.emitters) {
                    Ok(c) => out.push(UiCommand::Sim(c)),
                    Err(e) => st.message = Some(e),
                }
            }
            super::obstacles_section::obstacles(ui, st, out);
        });
}

fn rendering(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    egui::CollapsingHeader::new("Rendering")
        .default_open(false)
        .show(ui, |ui| {
            let r = &mut st.scene.render;
            param_slider(
                ui,
                &rr::DENSITY_SCALE,
                "density scale",
                &mut r.density_scale,
            );
            param_slider(
                ui,
                &rr::STEP_QUALITY,
                "samples per voxel",
                &mut r.step_quality,
            );
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
            param_slider(ui, &rr::SHADOW_STEPS, "shadow samples", &mut r.shadow_steps);
            param_slider(ui, &rr::AMBIENT, "ambient", &mut r.ambient);
            param_slider(
                ui,
                &rr::ANISOTROPY,
                "scattering anisotropy g",
                &mut r.anisotropy,
            )
            .on_hover_text("Henyey–Greenstein: > 0 bright rims when looking towards the light");
            param_slider(ui, &rr::EXPOSURE, "exposure", &mut r.exposure);
            ui.checkbox(&mut r.tone_map, "filmic tone map (ACES)");
            rgb_edit(ui, "smoke colour", &mut r.smoke_color);
            rgb_edit(ui, "light colour", &mut r.light_color);
            rgb_edit(ui, "background top", &mut r.background_top);
            rgb_edit(ui, "background bottom", &mut r.background_bottom);
            ui.checkbox(&mut r.outline, "box outline");
            ui.checkbox(&mut r.jitter, "jitter (hide banding)");
            let sl = &mut st.streams;
            ui.horizontal(|ui| {
                ui.checkbox(&mut sl.visible, "streamlines (L)");
                if sl.visible {
                    ui.checkbox(&mut sl.seed_plane, "also from the slice plane");
                }
            });
            if sl.visible {
                ui.add(
                    egui::Slider::new(&mut sl.count, 1..=400)
                        .logarithmic(true)
                        .text("streamlines"),
                );
                ui.add(
                    egui::Slider::new(&mut sl.length, 0.05..=5.0)
                        .logarithmic(true)
                        .text("streamline length (u)"),
                );
            }
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
                for f in Format::all() {
                    let mut on = e.formats.contains(&f);
                    if ui
                        .checkbox(&mut on, f.ext())
                        .on_hover_text(f.exporter().about())
                        .changed()
                    {
                        e.formats.retain(|x| *x != f);
                        if on {
                            e.formats.push(f);
                        }
                    }
                }
            });
            ui.horizontal_wrapped(|ui| {
                for name in Fields::NAMES {
                    let mut on = e.fields.has(name);
                    if ui.checkbox(&mut on, name).changed() {
                        e.fields.set(name, on);
                    }
                }
            });
            ui.horizontal(|ui| {
                ui.checkbox(&mut e.half, "half precision (VDB)");
                ui.label("up:");
                ui.radio_value(&mut e.up, Up::Y, "y")
                    .on_hover_text("as simulated (Houdini, ParaView)");
                ui.radio_value(&mut e.up, Up::Z, "z")
                    .on_hover_text("turned for Blender: the smoke rises along Z");
            });
            ui.add(egui::Slider::new(&mut e.every, 1..=100).text("record every K steps"));
            ui.checkbox(&mut e.overwrite, "replace a run already in the folder");
            let recording = snap.is_some_and(|s| s.recording);
            ui.horizontal(|ui| {
                if ui.button("Export this frame").clicked() {
                    match e.spec() {
                        Ok(spec) => out.push(UiCommand::Sim(SimCommand::ExportFrame(spec))),
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
                        match e.spec() {
                            Ok(spec) => {
                                out.push(UiCommand::Sim(SimCommand::SetRecording(Some(spec))))
                            }
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
            ui.horizontal(|ui| {
                egui::ComboBox::from_id_salt("slice-field")
                    .selected_text(s.field.label())
                    .width(100.0)
                    .show_ui(ui, |ui| {
                        for f in SliceField::ALL {
                            if ui.selectable_value(&mut s.field, f, f.label()).changed() {
                                s.colormap = f.fitting_map();
                            }
                        }
                    });
                egui::ComboBox::from_id_salt("slice-colours")
                    .selected_text(format!("{:?}", s.colormap))
                    .width(80.0)
                    .show_ui(ui, |ui| {
                        for m in ColorMap::ALL {
                            ui.selectable_value(&mut s.colormap, m, format!("{m:?}"));
                        }
                    });
                ui.label("field, colours");
            });
            ui.horizontal(|ui| {
                ui.checkbox(&mut s.arrows, "velocity arrows");
                ui.checkbox(&mut s.streamlines, "streamlines");
            });
            // Each control shows while what it sets is on.
            if s.arrows {
                ui.add(
                    egui::Slider::new(&mut s.arrow_stride, 1..=16).text("arrow spacing (cells)"),
                );
            }
            if s.streamlines {
                ui.add(
                    egui::Slider::new(&mut s.stream_spacing, 1..=16)
                        .text("streamline spacing (cells)"),
                );
                ui.add(
                    egui::Slider::new(&mut s.stream_length, 2.0..=200.0)
                        .logarithmic(true)
                        .text("streamline length (cells)"),
                );
            }
        });
}

fn statistics(ui: &mut egui::Ui, st: &mut UiState) {
    egui::CollapsingHeader::new("Statistics")
        .default_open(false)
        .show(ui, |ui| {
            let mut w = st.history.window;
            if ui
                .add(
                    egui::Slider::new(&mut w, 1.0..=120.0)
                        .logarithmic(true)
                        .text("last seconds (simulated)"),
                )
                .changed()
            {
                st.history.set_window(w);
            }
            let h = &st.history;
            if h.samples().len() < 2 {
                ui.weak("the plots fill as the simulation runs");
                return;
            }
            super::plots::stages(ui, h);
            super::plots::line(
                ui,
                h,
                "pressure iterations",
                |s| f64::from(s.iterations),
                false,
            );
            super::plots::line(ui, h, "pressure residual", |s| f64::from(s.residual), true);
            super::plots::line(ui, h, "total smoke (Σρh³)", |s| s.smoke, false);
            super::plots::line(ui, h, "largest CFL", |s| f64::from(s.cfl), false);
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
    ("L", "streamlines in the 3D view on/off"),
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
    fn the_controls_list_names_every_key() {
        let text: String = CONTROLS.iter().map(|(k, v)| format!("{k} {v} ")).collect();
        for k in [
            "Space",
            "N",
            "R",
            "S",
            "F12",
            "L",
            "Ctrl+left",
            "wheel",
            "double-click",
        ] {
            assert!(text.contains(k), "{k} missing");
        }
    }
}
