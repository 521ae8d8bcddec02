//! The side panel's Detail section: the up-resolution pass (`[detail]`) switched on and off
//! and tuned while the smoke keeps moving (the coarse simulation is not reset).

use super::sim_thread::SimCommand;
use super::state::{UiCommand, UiState};
use super::widgets::param_slider;
use crate::ranges::detail as r;

/// Draws the Detail section (open when the scene turns the pass on).
pub fn detail(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    let on = st.scene.detail.enabled;
    egui::CollapsingHeader::new("Detail")
        .id_salt("detail")
        .default_open(on)
        .show(ui, |ui| {
            let p = &mut st.scene.detail;
            let mut changed = ui
                .checkbox(&mut p.enabled, "fine detail (noise up-resolution)")
                .on_hover_text(
                    "Smoke and fire on a grid 2–4 times finer, carried by the flow plus \
                     turbulent noise. The 3D view, the slice view and exports show it.",
                )
                .changed();
            ui.horizontal(|ui| {
                ui.label("factor");
                for n in 2..=4u32 {
                    changed |= ui
                        .selectable_value(&mut p.factor, n, format!("×{n}"))
                        .changed();
                }
            });
            changed |= param_slider(ui, &r::STRENGTH, "strength", &mut p.strength).changed();
            changed |=
                param_slider(ui, &r::NOISE_SCALE, "noise scale", &mut p.noise_scale).changed();
            changed |= param_slider(ui, &r::REGENERATE, "regenerate", &mut p.regenerate).changed();
            if p.enabled {
                ui.label(
                    "The fine grid shows density, temperature and flame; the slice view's \
                     velocity, pressure and divergence wait until detail is off.",
                );
            }
            if changed {
                out.push(UiCommand::Sim(SimCommand::SetDetail(*p)));
            }
        });
}
