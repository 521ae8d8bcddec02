//! The side panel's Run section while a run folder is played back (`plume view --run`):
//! where in the run the view is, play and pause, the frames either side, and a slider over
//! all of them.

use super::sim_thread::{SimCommand, Snapshot};
use super::state::{UiCommand, UiState};

/// Draws the section for `snap`, the frame at `index` of the run's `count`.
pub fn run(
    ui: &mut egui::Ui,
    st: &mut UiState,
    snap: &Snapshot,
    (index, count): (usize, usize),
    out: &mut Vec<UiCommand>,
) {
    let seek = |st: &mut UiState, out: &mut Vec<UiCommand>, i: usize| {
        st.running = false;
        out.push(UiCommand::Sim(SimCommand::SetRunning(false)));
        out.push(UiCommand::Sim(SimCommand::Seek(i)));
    };
    egui::CollapsingHeader::new("Run")
        .default_open(true)
        .show(ui, |ui| {
            ui.label(format!(
                "frame {} of {count}: step {}, t = {:.2} s",
                index + 1,
                snap.frame.step,
                snap.frame.time
            ));
            ui.horizontal(|ui| {
                let label = if st.running { "⏸ Pause" } else { "▶ Play" };
                if ui.button(label).clicked() {
                    st.running = !st.running;
                    out.push(UiCommand::Sim(SimCommand::SetRunning(st.running)));
                }
                if ui.button("⏮ First").clicked() {
                    seek(st, out, 0);
                }
                if ui.button("◀ Previous").clicked() {
                    seek(st, out, (index + count - 1) % count);
                }
                if ui.button("Next ▶").clicked() {
                    seek(st, out, (index + 1) % count);
                }
            });
            let mut shown = index + 1;
            if ui
                .add(egui::Slider::new(&mut shown, 1..=count).text("frame"))
                .changed()
            {
                seek(st, out, shown - 1);
            }
            if ui
                .checkbox(&mut st.real_time, "real-time pace")
                .on_hover_text(
                    "play at the pace the frames were simulated, else as fast as they read",
                )
                .changed()
            {
                out.push(UiCommand::Sim(SimCommand::SetRealTime(st.real_time)));
            }
            ui.label("A scene opened from the Scene menu is simulated as usual.");
        });
}
