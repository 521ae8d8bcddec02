//! Live plots of the solver in the panel's Statistics section: the last N seconds of
//! simulated time of step time by stage (stacked), pressure iterations and residual, total
//! smoke and the largest CFL number. Hand-drawn with egui's painter: a handful of polylines
//! and filled strips need no plotting crate, and none then has to follow egui's releases.

use crate::sim::StepStats;
use std::collections::VecDeque;

/// One step's figures.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// Simulated time after the step, s.
    pub time: f64,
    /// Milliseconds per stage, in the step's order.
    pub stages: Vec<(&'static str, f64)>,
    /// Pressure iterations.
    pub iterations: u32,
    /// Relative residual the pressure solve reached.
    pub residual: f32,
    /// Total smoke, Σ density·h³.
    pub smoke: f64,
    /// Largest CFL number of the step's sub-steps.
    pub cfl: f32,
}

impl Sample {
    /// The figures of a step that ended at `time` with `smoke` in the box.
    pub fn of(stats: &StepStats, time: f64, smoke: f64) -> Self {
        Self {
            time,
            stages: stats.stages.iter().map(|s| (s.name, s.ms)).collect(),
            iterations: stats.pressure_iterations,
            residual: stats.pressure_residual,
            smoke,
            cfl: stats.cfl,
        }
    }
}

/// The samples of the last `window` seconds of simulated time. It moves only when the
/// simulation does (paused, nothing is added); a reset (time going back) starts it afresh.
#[derive(Clone, Debug)]
pub struct History {
    /// Seconds of simulated time kept.
    pub window: f64,
    samples: VecDeque<Sample>,
}

impl Default for History {
    fn default() -> Self {
        Self::new(10.0)
    }
}

impl History {
    /// Empty, keeping `window` seconds.
    pub fn new(window: f64) -> Self {
        Self {
            window,
            samples: VecDeque::new(),
        }
    }

    /// Adds a sample (ignored when its time equals the newest one's: the same step again)
    /// and drops those older than `window` before it.
    pub fn push(&mut self, s: Sample) {
        match self.samples.back() {
            Some(last) if s.time == last.time => return,
            Some(last) if s.time < last.time => self.samples.clear(),
            _ => {}
        }
        let t = s.time;
        self.samples.push_back(s);
        self.trim(t);
    }

    /// Drops samples older than `window` before `now`.
    fn trim(&mut self, now: f64) {
        while self
            .samples
            .front()
            .is_some_and(|f| f.time < now - self.window)
        {
            self.samples.pop_front();
        }
    }

    /// Changes the window (dropping what falls out of it).
    pub fn set_window(&mut self, window: f64) {
        self.window = window;
        if let Some(t) = self.samples.back().map(|s| s.time) {
            self.trim(t);
        }
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> &VecDeque<Sample> {
        &self.samples
    }
}

/// Distinct colours for stages, by position.
const PALETTE: [egui::Color32; 10] = [
    egui::Color32::from_rgb(86, 180, 233),
    egui::Color32::from_rgb(230, 159, 0),
    egui::Color32::from_rgb(0, 158, 115),
    egui::Color32::from_rgb(240, 228, 66),
    egui::Color32::from_rgb(0, 114, 178),
    egui::Color32::from_rgb(213, 94, 0),
    egui::Color32::from_rgb(204, 121, 167),
    egui::Color32::from_rgb(160, 160, 160),
    egui::Color32::from_rgb(120, 200, 120),
    egui::Color32::from_rgb(200, 120, 120),
];

fn frame(ui: &mut egui::Ui, title: &str, top: &str) -> egui::Rect {
    ui.horizontal(|ui| {
        ui.label(title);
        ui.with_layout(egui::Layout::right_to_left(egui::Align::Center), |ui| {
            ui.weak(top);
        });
    });
    let w = ui.available_width().max(60.0);
    let (rect, _) = ui.allocate_exact_size(egui::vec2(w, 56.0), egui::Sense::hover());
    ui.painter()
        .rect_filled(rect, 2.0, egui::Color32::from_black_alpha(90));
    rect
}

fn x_of(rect: egui::Rect, h: &History, t: f64) -> f32 {
    let now = h.samples.back().map_or(0.0, |s| s.time);
    rect.left() + rect.width() * (1.0 - ((now - t) / h.window) as f32).clamp(0.0, 1.0)
}

/// Step time by stage, stacked, with a legend.
pub fn stages(ui: &mut egui::Ui, h: &History) {
    let names: Vec<&'static str> = h
        .samples
        .back()
        .map(|s| s.stages.iter().map(|(n, _)| *n).collect())
        .unwrap_or_default();
    let total = |s: &Sample| s.stages.iter().map(|(_, ms)| ms).sum::<f64>();
    let top = h.samples.iter().map(total).fold(0.0f64, f64::max).max(1e-3);
    let rect = frame(ui, "step time by stage", &format!("{top:.1} ms"));
    let painter = ui.painter_at(rect);
    let y_of = |ms: f64| rect.bottom() - rect.height() * (ms / top) as f32;
    // Per sample, once: its x and the heights where each stage's band starts and ends.
    let columns: Vec<(f32, Vec<f32>)> = h
        .samples
        .iter()
        .map(|s| {
            let mut sum = 0.0;
            let mut ys = vec![y_of(0.0)];
            for n in &names {
                sum += s.stages.iter().find(|(m, _)| m == n).map_or(0.0, |x| x.1);
                ys.push(y_of(sum));
            }
            (x_of(rect, h, s.time), ys)
        })
        .collect();
    for k in 0..names.len() {
        let color = PALETTE[k % PALETTE.len()];
        for pair in columns.windows(2) {
            let ((xa, a), (xb, b)) = (&pair[0], &pair[1]);
            let pts = vec![
                egui::pos2(*xa, a[k]),
                egui::pos2(*xb, b[k]),
                egui::pos2(*xb, b[k + 1]),
                egui::pos2(*xa, a[k + 1]),
            ];
            painter.add(egui::Shape::convex_polygon(pts, color, egui::Stroke::NONE));
        }
    }
    ui.horizontal_wrapped(|ui| {
        for (k, name) in names.iter().enumerate() {
            ui.colored_label(PALETTE[k % PALETTE.len()], format!("■ {name}"));
        }
    });
}

/// One value over time as a line, scaled to its largest (or, `log`, by decades).
pub fn line(
    ui: &mut egui::Ui,
    h: &History,
    title: &str,
    value: impl Fn(&Sample) -> f64,
    log: bool,
) {
    let vals: Vec<(f64, f64)> = h.samples.iter().map(|s| (s.time, value(s))).collect();
    let f = |v: f64| if log { v.max(1e-12).log10() } else { v };
    let (lo, hi) = vals
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), (_, v)| {
            (a.min(f(*v)), b.max(f(*v)))
        });
    let (lo, hi) = if log {
        (lo.floor(), hi.ceil().max(lo.floor() + 1.0))
    } else {
        (lo.min(0.0), hi.max(lo.min(0.0) + 1e-12))
    };
    let last = vals.last().map_or(0.0, |v| v.1);
    let top = if log {
        format!("now {last:.1e}, 1e{lo:.0} to 1e{hi:.0}")
    } else {
        format!("now {last:.3}, max {hi:.3}")
    };
    let rect = frame(ui, title, &top);
    let y_of = |v: f64| rect.bottom() - rect.height() * ((f(v) - lo) / (hi - lo)) as f32;
    let pts: Vec<egui::Pos2> = vals
        .iter()
        .filter(|(_, v)| v.is_finite())
        .map(|(t, v)| egui::pos2(x_of(rect, h, *t), y_of(*v)))
        .collect();
    ui.painter_at(rect).add(egui::Shape::line(
        pts,
        egui::Stroke::new(1.5, egui::Color32::from_rgb(120, 190, 255)),
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(t: f64) -> Sample {
        Sample {
            time: t,
            stages: vec![("project", 1.0)],
            iterations: 2,
            residual: 1e-4,
            smoke: t,
            cfl: 0.5,
        }
    }

    #[test]
    fn the_history_holds_exactly_the_last_window_of_simulated_time() {
        let mut h = History::new(2.0);
        for n in 1..=600 {
            h.push(at(n as f64 / 60.0));
        }
        let s = h.samples();
        let now = 10.0;
        assert!((s.back().expect("samples").time - now).abs() < 1e-12);
        // Every sample within [now − 2, now] is kept and none older.
        assert!(s.iter().all(|x| x.time >= now - 2.0 - 1e-12));
        assert_eq!(
            s.len(),
            121,
            "2 s at 60 samples a second, both ends included"
        );
        // The same step again (paused: the snapshot repeats) adds nothing.
        h.push(at(now));
        assert_eq!(h.samples().len(), 121);
        // Narrowing the window drops what falls out of it.
        h.set_window(0.5);
        assert_eq!(h.samples().len(), 31);
        // A reset (time going back) starts afresh.
        h.push(at(0.1));
        assert_eq!(h.samples().len(), 1);
    }
}
