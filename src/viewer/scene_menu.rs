//! The Scene menu: presets, "Open…" and "Save current as…", with small in-window file dialogs
//! (a path field and the scene files of its folder).

use super::state::{Dialog, UiCommand, UiState};
use crate::scene::Scene;
use std::path::{Path, PathBuf};

/// The `.toml` files in the folder of `path` (or in `path` itself when it is a folder),
/// sorted by name.
pub fn scene_files(path: &str) -> Vec<PathBuf> {
    let p = Path::new(path);
    let dir = if p.is_dir() {
        p.to_path_buf()
    } else {
        match p.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        }
    };
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.filter_map(Result::ok)
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|x| x == "toml") && p.is_file())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Reads a scene file for the Open dialog: the scene, or the message to show.
pub fn open_scene(path: &str) -> Result<Scene, String> {
    let p = path.trim();
    if p.is_empty() {
        return Err("enter the path of a scene file".into());
    }
    Scene::load(Path::new(p)).map_err(|e| crate::report(&e))
}

/// Where "Save" may write: refuses an empty path, a folder, and an existing file unless
/// overwriting was confirmed. Adds `.toml` when the name has no extension.
pub fn save_target(path: &str, overwrite: bool) -> Result<PathBuf, String> {
    let p = path.trim();
    if p.is_empty() {
        return Err("enter a file name".into());
    }
    let mut pb = PathBuf::from(p);
    if pb.is_dir() {
        return Err(format!("{} is a folder", pb.display()));
    }
    if pb.extension().is_none() {
        pb.set_extension("toml");
    }
    if pb.exists() && !overwrite {
        return Err(format!(
            "{} exists: tick \"overwrite\" to replace it",
            pb.display()
        ));
    }
    Ok(pb)
}

/// The menu bar at the top of the window.
pub fn menu_bar(ctx: &egui::Context, st: &mut UiState, out: &mut Vec<UiCommand>) {
    egui::TopBottomPanel::top("menu").show(ctx, |ui| {
        egui::MenuBar::new().ui(ui, |ui| {
            ui.menu_button("Scene", |ui| {
                ui.label("Presets");
                for name in Scene::preset_names() {
                    if ui.button(name).clicked() {
                        if let Some(s) = Scene::preset(name) {
                            out.push(UiCommand::LoadScene(Box::new(s)));
                        }
                        ui.close();
                    }
                }
                ui.separator();
                if ui.button("Open…").clicked() {
                    st.menu.dialog = Dialog::Open;
                    st.menu.error = None;
                    if st.menu.path.is_empty() {
                        st.menu.path = "scenes/".into();
                    }
                    ui.close();
                }
                if ui.button("Save current as…").clicked() {
                    st.menu.dialog = Dialog::Save;
                    st.menu.error = None;
                    st.menu.overwrite = false;
                    st.menu.path = format!("{}.toml", st.scene.name);
                    ui.close();
                }
            });
            ui.separator();
            ui.label(format!("scene: {}", st.scene.name));
            if !st.scene.description.is_empty() {
                ui.weak(&st.scene.description);
            }
        });
    });
    dialogs(ctx, st, out);
}

fn dialogs(ctx: &egui::Context, st: &mut UiState, out: &mut Vec<UiCommand>) {
    let title = match st.menu.dialog {
        Dialog::Closed => return,
        Dialog::Open => "Open scene",
        Dialog::Save => "Save current scene as",
    };
    let mut open = true;
    let mut close = false;
    egui::Window::new(title)
        .collapsible(false)
        .resizable(true)
        .open(&mut open)
        .show(ctx, |ui| {
            ui.horizontal(|ui| {
                ui.label("file");
                ui.add(egui::TextEdit::singleline(&mut st.menu.path).desired_width(320.0));
            });
            let files = scene_files(&st.menu.path);
            egui::ScrollArea::vertical()
                .max_height(160.0)
                .show(ui, |ui| {
                    if files.is_empty() {
                        ui.weak("no .toml files in this folder");
                    }
                    for f in files {
                        let label = f.display().to_string();
                        if ui.selectable_label(st.menu.path == label, &label).clicked() {
                            st.menu.path = label;
                        }
                    }
                });
            if st.menu.dialog == Dialog::Save {
                ui.checkbox(&mut st.menu.overwrite, "overwrite an existing file");
            }
            if let Some(e) = &st.menu.error {
                ui.colored_label(egui::Color32::from_rgb(255, 120, 120), e);
            }
            ui.horizontal(|ui| {
                let action = if st.menu.dialog == Dialog::Open {
                    "Open"
                } else {
                    "Save"
                };
                if ui.button(action).clicked() {
                    let r = if st.menu.dialog == Dialog::Open {
                        open_scene(&st.menu.path)
                            .map(|s| out.push(UiCommand::LoadScene(Box::new(s))))
                    } else {
                        save_target(&st.menu.path, st.menu.overwrite)
                            .map(|p| out.push(UiCommand::SaveScene(p)))
                    };
                    match r {
                        Ok(()) => close = true,
                        Err(e) => st.menu.error = Some(e),
                    }
                }
                if ui.button("Cancel").clicked() {
                    close = true;
                }
            });
        });
    if close || !open {
        st.menu.dialog = Dialog::Closed;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn save_target_adds_the_extension_and_guards_existing_files() {
        let dir = std::env::temp_dir().join(format!("plume-menu-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("temp dir");
        let name = dir.join("mine");
        let p = save_target(&name.display().to_string(), false).expect("new file is fine");
        assert_eq!(p, dir.join("mine.toml"));
        std::fs::write(&p, "x").expect("write");
        let e = save_target(&p.display().to_string(), false).expect_err("exists");
        assert!(e.contains("overwrite"), "{e}");
        assert!(save_target(&p.display().to_string(), true).is_ok());
        assert!(save_target(&dir.display().to_string(), true)
            .expect_err("folder")
            .contains("folder"));
        assert!(save_target("  ", false).is_err());
        let files = scene_files(&dir.display().to_string());
        assert_eq!(files, vec![p.clone()]);
        let e = open_scene(&p.display().to_string()).expect_err("not a scene");
        assert!(e.contains("mine.toml"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
