//! The slice view's panel: the selected plane as an image with its legend, axis labels, the
//! value under the cursor, velocity arrows and streamlines.

use super::sim_thread::Snapshot;
use super::slice_view;
use super::state::UiState;

const AXIS_NAMES: [&str; 3] = ["x", "y", "z"];

/// The slice view: the selected plane as an image with a legend, axis labels, the value under
/// the cursor and velocity arrows.
pub fn show(
    ctx: &egui::Context,
    ui_state: &UiState,
    snap: Option<&Snapshot>,
    tex: &mut Option<egui::TextureHandle>,
) {
    egui::SidePanel::right("slice")
        .resizable(true)
        .default_width(340.0)
        .show(ctx, |ui| {
            let Some(snap) = snap else {
                ui.label("waiting for the simulation…");
                return;
            };
            let s = &ui_state.slice;
            let f = &snap.frame;
            let dims = f.grid.dims;
            let index = s.index(dims);
            let slice = slice_view::extract(f, s.axis, index, s.field);
            let range = slice_view::value_range(&slice, s.field.signed());
            let px = slice_view::colorize(&slice, range, s.colormap);
            let bytes: Vec<u8> = px.iter().flatten().copied().collect();
            let image =
                egui::ColorImage::from_rgba_unmultiplied([slice.width, slice.height], &bytes);
            let handle = tex.get_or_insert_with(|| {
                ctx.load_texture("slice", image.clone(), egui::TextureOptions::NEAREST)
            });
            handle.set(image, egui::TextureOptions::NEAREST);
            let (ha, va) = s.axis.image_axes();
            // One line however narrow the panel (cut with … and whole on hover): the title
            // wrapped over two at the default window.
            let title = format!(
                "{}, {} = {} of {}",
                s.field.label(),
                AXIS_NAMES[s.axis.index()],
                index,
                dims.as_array()[s.axis.index()]
            );
            ui.add(
                egui::Label::new(egui::RichText::new(&title).strong().size(16.0))
                    .wrap_mode(egui::TextWrapMode::Truncate),
            )
            .on_hover_text(&title);
            let avail = ui.available_width().max(50.0) - 24.0;
            let aspect = slice.height as f32 / slice.width as f32;
            let size = egui::vec2(avail, avail * aspect)
                .min(egui::vec2(avail, ui.available_height() * 0.7));
            let size = egui::vec2(size.y / aspect, size.y).min(size);
            let resp = ui
                .horizontal(|ui| {
                    ui.label(format!("{} ^", AXIS_NAMES[va]));
                    ui.add(egui::Image::new((handle.id(), size)).sense(egui::Sense::hover()))
                })
                .inner;
            ui.vertical_centered(|ui| ui.label(format!("{} ->", AXIS_NAMES[ha])));
            let rect = resp.rect;
            let cell_w = rect.width() / slice.width as f32;
            let cell_h = rect.height() / slice.height as f32;
            if s.arrows {
                let arrows = slice_view::arrows(f, s.axis, index, s.arrow_stride);
                let vmax = arrows
                    .iter()
                    .map(|a| a[2].hypot(a[3]))
                    .fold(0.0f32, f32::max);
                if vmax > 0.0 {
                    let len = s.arrow_stride as f32 * cell_w * 0.9 / vmax;
                    let painter = ui.painter_at(rect);
                    for a in arrows {
                        let origin =
                            egui::pos2(rect.min.x + a[0] * cell_w, rect.min.y + a[1] * cell_h);
                        let vec = egui::vec2(a[2] * len, -a[3] * len);
                        painter.arrow(origin, vec, egui::Stroke::new(1.0, egui::Color32::WHITE));
                    }
                }
            }
            let mut stream_max = None;
            if s.streamlines {
                let lines =
                    slice_view::streamlines(f, s.axis, index, s.stream_spacing, s.stream_length);
                let vmax = lines
                    .iter()
                    .flat_map(|(_, sp)| sp.iter().copied())
                    .fold(0.0f32, f32::max);
                if vmax > 0.0 {
                    let painter = ui.painter_at(rect);
                    let to_screen = |p: [f32; 2]| {
                        egui::pos2(rect.min.x + p[0] * cell_w, rect.min.y + p[1] * cell_h)
                    };
                    for (pts, speed) in &lines {
                        for (seg, sp) in pts.windows(2).zip(speed) {
                            let [r, g, b] = s.colormap.color(sp / vmax);
                            painter.line_segment(
                                [to_screen(seg[0]), to_screen(seg[1])],
                                egui::Stroke::new(1.5, egui::Color32::from_rgb(r, g, b)),
                            );
                        }
                    }
                    stream_max = Some(vmax);
                }
            }
            if let Some(p) = resp.hover_pos() {
                let x = (((p.x - rect.min.x) / cell_w) as usize).min(slice.width - 1);
                let y = (((p.y - rect.min.y) / cell_h) as usize).min(slice.height - 1);
                let c = slice.cell(s.axis, index, x, y);
                ui.label(format!(
                    "cell ({}, {}, {}): {:.4e}",
                    c[0],
                    c[1],
                    c[2],
                    slice.at(x, y)
                ));
            } else {
                ui.label("hover the slice to read values");
            }
            // Legend: the colour map across the value range.
            let (bar, _) = ui.allocate_exact_size(egui::vec2(avail, 14.0), egui::Sense::hover());
            let painter = ui.painter_at(bar);
            let n = 64;
            for i in 0..n {
                let t0 = i as f32 / n as f32;
                let [r, g, b] = s.colormap.color(t0 + 0.5 / n as f32);
                let x0 = bar.min.x + t0 * bar.width();
                let x1 = bar.min.x + (i + 1) as f32 / n as f32 * bar.width();
                painter.rect_filled(
                    egui::Rect::from_min_max(egui::pos2(x0, bar.min.y), egui::pos2(x1, bar.max.y)),
                    0.0,
                    egui::Color32::from_rgb(r, g, b),
                );
            }
            ui.horizontal(|ui| {
                ui.label(format!("{:.3e}", range.0));
                ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
                    ui.label(format!("{:.3e}", range.1));
                });
            });
            if let Some(vmax) = stream_max {
                // The streamlines use the same colours for in-plane speed.
                ui.label(format!(
                    "streamlines: in-plane speed 0 (left end) to {vmax:.3e} u/s (right end)"
                ));
            }
        });
}
