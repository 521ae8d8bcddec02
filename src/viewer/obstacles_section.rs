//! The obstacles, in the side panel's "Emitters and obstacles" section: every obstacle with
//! its shape, position, rotation and scale (and radius or size), its key frames, a button to
//! remove it, and buttons to add a sphere, a box or a mesh read from a file by path. Valid
//! changes go to the simulation (the flow carries on around the new solids) and to the 3D
//! view; "Save current as…" writes them back.

use super::state::{obstacles_command, UiCommand, UiState};
use super::widgets::{optional, param_slider, vec3_edit};
use crate::geometry::{Key, Scale};
use crate::ranges::emitter as er;
use crate::sim::{Obstacle, ShapeKind};

/// The obstacles' part of the section.
pub fn obstacles(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    ui.separator();
    ui.strong("Obstacles");
    {
        let mut list = st.scene.obstacles.clone();
        let mut changed = false;
        let mut remove = None;
        for (i, o) in list.iter_mut().enumerate() {
            ui.push_id(("obstacle", i), |ui| {
                ui.group(|ui| {
                    ui.horizontal(|ui| {
                        ui.label(format!("Obstacle {}: {}", i + 1, kind_label(o)));
                        if ui.small_button("Remove").clicked() {
                            remove = Some(i);
                        }
                    });
                    changed |= obstacle_edit(ui, o);
                });
            });
        }
        if let Some(i) = remove {
            list.remove(i);
            changed = true;
        }
        let (lo, hi) = st.scene.bounds();
        let middle = [0, 1, 2].map(|a| 0.5 * (lo[a] + hi[a]));
        let side = (0..3).map(|a| hi[a] - lo[a]).fold(f32::INFINITY, f32::min);
        ui.horizontal(|ui| {
            if ui.button("Add sphere").clicked() {
                list.push(Obstacle::sphere(middle, 0.12 * side));
                changed = true;
            }
            if ui.button("Add box").clicked() {
                list.push(Obstacle::cuboid(middle, [0.2 * side; 3]));
                changed = true;
            }
        });
        ui.horizontal(|ui| {
            ui.label("mesh file");
            ui.add(
                egui::TextEdit::singleline(&mut st.mesh_path)
                    .hint_text("path/to/object.obj or .stl")
                    .desired_width(150.0),
            );
            let add = ui.add_enabled(!st.mesh_path.trim().is_empty(), egui::Button::new("Add"));
            if add.clicked() {
                list.push(mesh_at(st.mesh_path.trim(), middle, side));
                changed = true;
            }
        });
        if changed {
            match obstacles_command(&list, &st.scene) {
                Ok(c) => {
                    st.scene.obstacles = list;
                    st.message = None;
                    out.push(c);
                }
                Err(e) => st.message = Some(e),
            }
        }
    }
}

/// A mesh obstacle from `path`, centred in the domain and scaled to a third of its shortest
/// side (the mesh's own size read once to choose the scale).
pub fn mesh_at(path: &str, middle: [f32; 3], side: f32) -> Obstacle {
    let mut o = Obstacle::sphere(middle, 0.1);
    o.shape = ShapeKind::Mesh;
    o.radius = None;
    o.file = Some(path.to_string());
    if let Ok(m) = crate::geometry::mesh::load_cached(std::path::Path::new(path)) {
        let (a, b) = m.bounds();
        let ext = (0..3).map(|x| b[x] - a[x]).fold(0.0f32, f32::max);
        if ext > 0.0 {
            let s = side / 3.0 / ext;
            o.scale = Some(Scale::Uniform(s));
            // The mesh's middle at the domain's.
            o.center = [0, 1, 2].map(|x| middle[x] - s * 0.5 * (a[x] + b[x]));
        }
    }
    o
}

fn kind_label(o: &Obstacle) -> String {
    match o.shape {
        ShapeKind::Sphere => "sphere".into(),
        ShapeKind::Box => "box".into(),
        ShapeKind::Mesh => {
            let f = o.file.as_deref().unwrap_or("?");
            let name = std::path::Path::new(f)
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_else(|| f.to_string());
            format!("mesh {name}")
        }
    }
}

fn obstacle_edit(ui: &mut egui::Ui, o: &mut Obstacle) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        ui.label("position");
        changed |= vec3_edit(ui, &mut o.center, 0.005, &er::CENTER);
    });
    ui.horizontal(|ui| {
        ui.label("rotation (°)");
        changed |= rotation_edit(ui, &mut o.rotation);
    });
    ui.horizontal(|ui| {
        ui.label("scale");
        changed |= scale_edit(ui, &mut o.scale);
    });
    if let Some(r) = o.radius.as_mut() {
        changed |= param_slider(ui, &er::RADIUS, "radius", r).changed();
    }
    if let Some(sz) = o.size.as_mut() {
        ui.horizontal(|ui| {
            ui.label("size");
            changed |= vec3_edit(ui, sz, 0.005, &er::SIZE);
        });
    }
    changed |= keys_edit(ui, o);
    changed
}

/// Rotation in degrees, three drags over the range validation allows; all zero is `None`.
fn rotation_edit(ui: &mut egui::Ui, rot: &mut Option<[f32; 3]>) -> bool {
    let mut r = rot.unwrap_or([0.0; 3]);
    let mut turned = false;
    for c in &mut r {
        turned |= ui
            .add(
                egui::DragValue::new(c)
                    .speed(1.0)
                    .range(-1e6..=1e6)
                    .suffix("°"),
            )
            .changed();
    }
    if turned {
        *rot = (r != [0.0; 3]).then_some(r);
    }
    turned
}

/// Scale, three drags over the range validation allows; equal factors become one number,
/// all ones `None`.
fn scale_edit(ui: &mut egui::Ui, scale: &mut Option<Scale>) -> bool {
    let mut s = scale.map(Scale::axes).unwrap_or([1.0; 3]);
    let mut scaled = false;
    for c in &mut s {
        scaled |= ui
            .add(
                egui::DragValue::new(c)
                    .speed(0.01)
                    .range(1e-6..=crate::geometry::MAX_SCALE),
            )
            .changed();
    }
    if scaled {
        *scale = if s == [1.0; 3] {
            None
        } else if s[0] == s[1] && s[1] == s[2] {
            Some(Scale::Uniform(s[0]))
        } else {
            Some(Scale::Axes(s))
        };
    }
    scaled
}

/// The key frames: each with its time, and the position and rotation it sets (a key that
/// leaves one out keeps the obstacle's own), a button to remove it, one to add a key a second
/// after the last at the obstacle's own pose, and `loop` and `smooth`.
fn keys_edit(ui: &mut egui::Ui, o: &mut Obstacle) -> bool {
    let mut changed = false;
    let title = match o.keys.len() {
        0 => "key frames: none (stands still)".to_string(),
        1 => "key frames: 1 (add another to move)".to_string(),
        n => format!("key frames: {n}"),
    };
    let own = (o.center, o.rotation.unwrap_or([0.0; 3]));
    ui.collapsing(title, |ui| {
        let mut remove = None;
        for (k, key) in o.keys.iter_mut().enumerate() {
            ui.push_id(("key", k), |ui| {
                ui.horizontal(|ui| {
                    ui.label("at");
                    changed |= ui
                        .add(
                            egui::DragValue::new(&mut key.time)
                                .speed(0.05)
                                .range(0.0..=1e6)
                                .suffix(" s"),
                        )
                        .changed();
                    if ui.small_button("Remove").clicked() {
                        remove = Some(k);
                    }
                });
                changed |= optional(ui, "position", &mut key.position, own.0, |ui, p| {
                    vec3_edit(ui, p, 0.005, &er::CENTER)
                });
                ui.horizontal(|ui| {
                    ui.label("rotation (°)");
                    changed |= rotation_edit(ui, &mut key.rotation);
                });
            });
        }
        if let Some(k) = remove {
            o.keys.remove(k);
            changed = true;
        }
        if ui.button("Add key").clicked() {
            let time = o.keys.last().map_or(0.0, |k| k.time + 1.0);
            o.keys.push(Key {
                time,
                position: Some(own.0),
                rotation: Some(own.1),
                scale: None,
            });
            changed = true;
        }
        ui.horizontal(|ui| {
            changed |= ui.checkbox(&mut o.looped, "loop").changed();
            changed |= ui.checkbox(&mut o.smooth, "smooth").changed();
        });
    });
    changed
}
