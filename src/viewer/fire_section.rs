//! The side panel's Fire section: the `[fire]` table's sliders, sent to the simulation as
//! they change.

use super::sim_thread::SimCommand;
use super::state::{UiCommand, UiState};
use super::widgets::param_slider;
use crate::ranges::{fire as r, render as rr};

/// Draws the Fire section (collapsed unless the scene burns something).
pub fn fire(ui: &mut egui::Ui, st: &mut UiState, out: &mut Vec<UiCommand>) {
    let burns = st.scene.emitters.iter().any(|e| e.burns());
    egui::CollapsingHeader::new("Fire")
        .id_salt(("fire", burns))
        .default_open(burns)
        .show(ui, |ui| {
            if !burns {
                ui.label("No emitter brings fuel: give one a fuel rate (Emitters) to light it.");
            }
            let mut changed = false;
            let p = &mut st.scene.fire;
            for (param, label, v) in [
                (&r::IGNITION, "ignition temperature", &mut p.ignition),
                (&r::BURN_RATE, "burn rate", &mut p.burn_rate),
                (&r::HEAT, "heat released", &mut p.heat),
                (&r::FLAME, "flame produced", &mut p.flame),
                (&r::FLAME_DECAY, "flame decay", &mut p.flame_decay),
                (&r::SMOKE, "smoke produced", &mut p.smoke),
                (&r::EXPANSION, "gas expansion", &mut p.expansion),
            ] {
                changed |= param_slider(ui, param, label, v).changed();
            }
            ui.label(
                egui::RichText::new(
                    "Temperatures in thousands of kelvin, as Blender reads them (1.5 = 1500 K).",
                )
                .small(),
            );
            ui.label("Glow");
            let rs = &mut st.scene.render;
            param_slider(
                ui,
                &rr::FLAME_INTENSITY,
                "flame brightness",
                &mut rs.flame_intensity,
            )
            .on_hover_text("light a flame of 1 at 1500 K emits per unit length");
            param_slider(
                ui,
                &rr::FLAME_LIGHT,
                "flame lights the smoke",
                &mut rs.flame_light,
            );
            param_slider(
                ui,
                &rr::KELVIN_PER_UNIT,
                "kelvin per degree",
                &mut rs.kelvin_per_unit,
            );
            if changed {
                match st.scene.fire.validate() {
                    Ok(()) => {
                        st.message = None;
                        out.push(UiCommand::Sim(SimCommand::SetFire(st.scene.fire.clone())));
                    }
                    Err(e) => st.message = Some(e.to_string()),
                }
            }
        });
}
