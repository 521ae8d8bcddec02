//! The statistics overlay in the corner of the 3D view: frame and solver figures, every
//! stage's time, sub-steps and CFL, kept in sight whatever the side panel shows.

use super::sim_thread::Snapshot;
use super::state::FrameStats;

/// The statistics as lines of text: frame timings, grid and time, every stage's
/// milliseconds, the pressure solve, divergence and the amount of smoke.
pub fn stats_lines(snap: Option<&Snapshot>, fs: FrameStats) -> Vec<String> {
    let mut v = vec![
        format!(
            "{:.1} frames/s, upload {:.2} ms, draw {:.2} ms",
            fs.fps, fs.upload_ms, fs.render_ms
        ),
        if fs.render_effort > 0.0 && fs.render_effort < 1.0 {
            format!(
                "3D view at {:.0}%, {:.0}% of the samples ({:.1} ms)",
                fs.render_scale * 100.0,
                fs.render_effort * 100.0,
                fs.pass_ms
            )
        } else {
            format!(
                "3D view at {:.0}% ({:.1} ms)",
                fs.render_scale * 100.0,
                fs.pass_ms
            )
        },
    ];
    let Some(s) = snap else {
        v.push("waiting for the simulation…".into());
        return v;
    };
    v.push(s.backend.clone());
    v.push(format!(
        "grid {}, t = {:.2} s, step {}, {}",
        s.frame.grid.dims,
        s.frame.time,
        s.frame.step,
        if s.running { "running" } else { "paused" }
    ));
    if let Some((i, n)) = s.playback {
        // A run played back: no solver, so no step's figures; what reading a frame costs.
        v.push(format!(
            "frame {} of {n} read in {:.2} ms",
            i + 1,
            s.stats.total_ms
        ));
        v.push(format!("smoke {:.4e}", s.total_density));
        return v;
    }
    v.push(format!(
        "step {:8.2} ms, {} sub-step{}, CFL {:.2}",
        s.stats.total_ms,
        s.stats.substeps,
        if s.stats.substeps == 1 { "" } else { "s" },
        s.stats.cfl
    ));
    for stage in &s.stats.stages {
        v.push(format!("  {:<16}{:7.2} ms", stage.name, stage.ms));
    }
    v.push(format!(
        "pressure {} it, residual {:.1e}",
        s.stats.pressure_iterations, s.stats.pressure_residual
    ));
    v.push(format!(
        "max div {:.1e} → {:.1e} 1/s",
        s.stats.divergence_before, s.stats.divergence_after
    ));
    v.push(format!(
        "smoke {:.4e}, out through open faces {:.1e}/step",
        s.total_density, s.stats.outflow
    ));
    if let Some(t) = s.stats.host.as_ref().and_then(|h| tuning_line(&h.tuning)) {
        v.push(t);
    }
    v
}

/// The GPU backend's tuner in one line (`plume_gpu::GpuSolver::set_tuning`): how many
/// choices it is still timing on the card, then the ways it took that are not the
/// default; `None` where it does not tune (the CPU, llvmpipe, every choice set from outside).
pub fn tuning_line(choices: &[crate::sim::TunedChoice]) -> Option<String> {
    let tuned: Vec<_> = choices.iter().filter(|c| !c.fixed).collect();
    if !tuned.iter().any(|c| c.timed()) {
        return None;
    }
    let timing = tuned.iter().filter(|c| c.picked.is_none()).count();
    if timing > 0 {
        return Some(format!(
            "tuner: timing {timing} of {} choices on the card",
            tuned.len()
        ));
    }
    let off: Vec<String> = tuned
        .iter()
        .filter_map(|c| match c.picked {
            Some(i) if i > 0 => Some(format!("{} {}", c.site, c.ways[i].name)),
            _ => None,
        })
        .collect();
    Some(if off.is_empty() {
        "tuner: the default ways are the fastest on this card".into()
    } else {
        format!("tuner: {}", off.join("; "))
    })
}

/// Draws the statistics in a translucent box in the top-left corner of the 3D view `view`
/// (as Blender's and EmberGen's viewports do), so they are visible whatever the panel shows.
/// It takes no input: drags over it still orbit. Returns the box's rectangle.
pub fn stats_overlay(
    ctx: &egui::Context,
    view: egui::Rect,
    snap: Option<&Snapshot>,
    fs: FrameStats,
) -> egui::Rect {
    let lines = stats_lines(snap, fs);
    egui::Area::new(egui::Id::new("stats-overlay"))
        .fixed_pos(view.min + egui::vec2(8.0, 8.0))
        .order(egui::Order::Foreground)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(egui::Color32::from_black_alpha(150))
                .corner_radius(4.0)
                .inner_margin(6.0)
                .show(ui, |ui| {
                    for l in &lines {
                        let text = egui::RichText::new(l)
                            .monospace()
                            .size(11.0)
                            .color(egui::Color32::from_gray(225));
                        ui.add(egui::Label::new(text).wrap_mode(egui::TextWrapMode::Extend));
                    }
                    ui.label(
                        egui::RichText::new("I hides this")
                            .size(10.0)
                            .color(egui::Color32::from_gray(150)),
                    );
                });
        })
        .response
        .rect
}

/// A notice across the bottom of the 3D view (a failed recording): where the user is looking,
/// not only in a collapsed section of the panel.
pub fn notice(ctx: &egui::Context, view: egui::Rect, text: &str) {
    egui::Area::new(egui::Id::new("notice"))
        .fixed_pos(view.center_bottom() - egui::vec2(0.0, 12.0))
        .pivot(egui::Align2::CENTER_BOTTOM)
        .interactable(false)
        .show(ctx, |ui| {
            egui::Frame::new()
                .fill(egui::Color32::from_rgba_unmultiplied(120, 20, 20, 230))
                .inner_margin(egui::Margin::symmetric(10, 6))
                .corner_radius(4.0)
                .show(ui, |ui| {
                    ui.set_max_width(view.width() * 0.8);
                    ui.colored_label(egui::Color32::WHITE, text);
                });
        });
}
