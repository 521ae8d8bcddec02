//! The window's frame clock for `view --json`: each frame's time from one redraw to the next,
//! split into what the window did in it (so a slow frame on a card says whether it waited
//! for the snapshot's textures, built the panels, drew the volume, or waited to present),
//! and the simulation's steps per second over the run.

use std::time::Instant;

/// What a frame's time went on, in the order a redraw does it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Part {
    /// Serving the solver's textures, taking the newest snapshot, showing or uploading its
    /// volume (where the window waits for its own earlier frames to finish on the card).
    Feed,
    /// Building the panels (egui) and acting on what they asked.
    Ui,
    /// Drawing the 3D view (the raymarch, with the wait for it to finish where it is timed).
    View,
    /// Painting the panels over it.
    Panels,
    /// Presenting the frame (the buffer swap).
    Present,
    /// Between redraws: the event loop, input, and whatever else the window waited for.
    Between,
}

impl Part {
    /// Every part, in [`Part`]'s order.
    pub const ALL: [Part; 6] = [
        Part::Feed,
        Part::Ui,
        Part::View,
        Part::Panels,
        Part::Present,
        Part::Between,
    ];

    /// The part's name in `--json`.
    pub fn name(self) -> &'static str {
        match self {
            Part::Feed => "feed",
            Part::Ui => "ui",
            Part::View => "view",
            Part::Panels => "panels",
            Part::Present => "present",
            Part::Between => "between",
        }
    }
}

/// Frames measured but left out of the statistics (start-up).
const WARM_UP_FRAMES: usize = 10;

/// Frame times, their parts, and the snapshots' steps seen.
pub struct FrameClock {
    /// When the running frame's last part ended.
    mark: Instant,
    /// When the running frame began (its redraw started), if one has.
    began: Option<Instant>,
    /// The running frame's milliseconds in each part.
    running: [f64; 6],
    /// Each finished frame's milliseconds in each part (they add up to the frame's time).
    parts: Vec<[f64; 6]>,
    /// The first snapshot's (step, time) seen and the newest, for steps per second.
    sim_span: Option<((u64, Instant), (u64, Instant))>,
}

impl Default for FrameClock {
    fn default() -> Self {
        FrameClock {
            mark: Instant::now(),
            began: None,
            running: [0.0; 6],
            parts: Vec::new(),
            sim_span: None,
        }
    }
}

impl FrameClock {
    /// A redraw starts at `now`: the frame before it (if one was drawn, `counted`) ends here,
    /// its last part spent between redraws. Returns the seconds since the last redraw began.
    pub fn start(&mut self, now: Instant, counted: bool) -> f32 {
        self.lap_at(Part::Between, now);
        let dt = self
            .began
            .map_or(0.0, |b| now.duration_since(b).as_secs_f32());
        if counted && self.began.is_some() {
            self.parts.push(self.running);
        }
        self.running = [0.0; 6];
        self.began = Some(now);
        dt
    }

    /// The time since the last part ended goes to `part`.
    pub fn lap(&mut self, part: Part) {
        self.lap_at(part, Instant::now());
    }

    fn lap_at(&mut self, part: Part, now: Instant) {
        self.running[part as usize] += now.saturating_duration_since(self.mark).as_secs_f64() * 1e3;
        self.mark = now;
    }

    /// The window took a snapshot of `step` at `now`.
    pub fn saw_step(&mut self, step: u64, now: Instant) {
        let seen = (step, now);
        self.sim_span = Some(match self.sim_span {
            Some((first, _)) => (first, seen),
            None => (seen, seen),
        });
    }

    /// The frames the statistics cover: after the first [`WARM_UP_FRAMES`] where there are
    /// more, else all.
    fn measured(&self) -> &[[f64; 6]] {
        if self.parts.len() > WARM_UP_FRAMES {
            &self.parts[WARM_UP_FRAMES..]
        } else {
            &self.parts
        }
    }

    /// The timing fields of `--json`: the measured frames, the median and 95th percentile
    /// frame and the mean, the mean milliseconds a frame in each part (they add up to the mean frame) and
    /// each part's median, and the simulation's steps per second.
    pub fn json(&self) -> serde_json::Map<String, serde_json::Value> {
        let frames = self.measured();
        let mut totals: Vec<f64> = frames.iter().map(|p| p.iter().sum()).collect();
        let (mut means, mut medians) = (serde_json::Map::new(), serde_json::Map::new());
        for part in Part::ALL {
            let mut ms: Vec<f64> = frames.iter().map(|p| p[part as usize]).collect();
            let mean = ms.iter().sum::<f64>() / ms.len().max(1) as f64;
            means.insert(part.name().into(), mean.into());
            medians.insert(part.name().into(), quantile(&mut ms, 0.5).into());
        }
        let steps_per_second = self.sim_span.map_or(0.0, |((s0, t0), (s1, t1))| {
            let secs = t1.duration_since(t0).as_secs_f64();
            if secs > 0.0 {
                s1.saturating_sub(s0) as f64 / secs
            } else {
                0.0
            }
        });
        let mut m = serde_json::Map::new();
        m.insert("measured_frames".into(), frames.len().into());
        let mean = totals.iter().sum::<f64>() / totals.len().max(1) as f64;
        m.insert("mean_frame_ms".into(), mean.into());
        m.insert("median_frame_ms".into(), quantile(&mut totals, 0.5).into());
        m.insert("p95_frame_ms".into(), quantile(&mut totals, 0.95).into());
        m.insert("frame_parts_mean_ms".into(), means.into());
        m.insert("frame_parts_median_ms".into(), medians.into());
        m.insert("steps_per_second".into(), steps_per_second.into());
        m
    }
}

/// The `q` quantile of `ms` (sorted here; the nearest rank), NaN when empty (`null` in JSON).
fn quantile(ms: &mut [f64], q: f64) -> f64 {
    ms.sort_by(f64::total_cmp);
    if ms.is_empty() {
        f64::NAN
    } else {
        ms[((ms.len() - 1) as f64 * q).round() as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    /// A frame's parts add up to the time from its redraw to the next, each lap lands in
    /// its own part, and the warm-up frames are left out.
    #[test]
    fn a_frames_parts_add_up_to_the_frame() {
        let mut c = FrameClock::default();
        let t0 = Instant::now();
        c.start(t0, false);
        for k in 0..(WARM_UP_FRAMES + 5) {
            c.lap_at(Part::Feed, t0 + Duration::from_millis(100 * k as u64 + 2));
            c.lap_at(Part::View, t0 + Duration::from_millis(100 * k as u64 + 9));
            c.lap_at(
                Part::Present,
                t0 + Duration::from_millis(100 * k as u64 + 30),
            );
            let dt = c.start(t0 + Duration::from_millis(100 * (k as u64 + 1)), true);
            assert!((dt - 0.1).abs() < 1e-6, "{dt}");
        }
        let j = c.json();
        assert_eq!(j["measured_frames"], 5);
        assert!((j["median_frame_ms"].as_f64().expect("a number") - 100.0).abs() < 1e-9);
        assert!((j["mean_frame_ms"].as_f64().expect("a number") - 100.0).abs() < 1e-9);
        let mean = |p: &str| j["frame_parts_mean_ms"][p].as_f64().expect("a number");
        for (p, want) in [
            ("feed", 2.0),
            ("ui", 0.0),
            ("view", 7.0),
            ("panels", 0.0),
            ("present", 21.0),
            ("between", 70.0),
        ] {
            assert!((mean(p) - want).abs() < 1e-9, "{p}: {}", mean(p));
        }
        assert!(
            (j["frame_parts_median_ms"]["present"]
                .as_f64()
                .expect("a number")
                - 21.0)
                .abs()
                < 1e-9
        );
    }

    /// Without frames the statistics are null, not a panic.
    #[test]
    fn no_frames_give_nulls() {
        let j = serde_json::Value::Object(FrameClock::default().json());
        assert!(j["median_frame_ms"].is_null(), "{j}");
        assert_eq!(j["steps_per_second"], 0.0);
    }
}
