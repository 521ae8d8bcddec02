//! The 3D view at a render scale: while the picture changes (the simulation runs, the camera
//! moves), the scene is drawn into an off-screen texture at a fraction of the view's size and
//! stretched onto it with linear filtering, the fraction chosen each frame so the 3D pass
//! stays within a time budget (as Blender's and EmberGen's viewports do); when nothing has
//! changes. On a GPU the automatic scale usually settles at 1 (and comes down again where a
//! full-resolution pass misses the budget); on a software renderer (llvmpipe) it is what
//! keeps the window responsive. Where even the smallest scale misses the budget (dense
//! smoke that fills the box costs many samples and shadow samples a pixel), the automatic
//! mode also takes fewer samples along each ray and towards the light (the *effort*, down to
//! [`MIN_EFFORT`]), and gives them back before it raises the scale again.

use crate::render::RenderError;
use glium::backend::Facade;
use glium::framebuffer::SimpleFrameBuffer;
use glium::texture::{MipmapsOption, Texture2d, UncompressedFloatFormat};
use glium::uniforms::MagnifySamplerFilter;
use glium::{BlitTarget, Rect, Surface};
use plume_core::render_settings::RenderSettings;
use std::time::{Duration, Instant};

/// How the 3D view's resolution is chosen.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub enum ScaleMode {
    /// Adapted every frame to keep the 3D pass within [`BUDGET_MS`]; full resolution once
    /// the picture rests.
    #[default]
    Auto,
    /// This fraction of the view's pixels along each side, in (0, 1].
    Fixed(f32),
}

impl ScaleMode {
    /// Parses `auto` or a fraction in [0.1, 1].
    pub fn parse(s: &str) -> Result<ScaleMode, String> {
        if s.trim().eq_ignore_ascii_case("auto") {
            return Ok(ScaleMode::Auto);
        }
        match s.trim().parse::<f32>() {
            Ok(f) if (MIN_SCALE..=1.0).contains(&f) => Ok(ScaleMode::Fixed(f)),
            _ => Err(format!(
                "'{s}' is not a render scale: give auto or a fraction from {MIN_SCALE} to 1"
            )),
        }
    }
}

/// The time the automatic scale gives the 3D pass, ms (a 30 frames/s window leaves the rest
/// for the panels and the slice view).
pub const BUDGET_MS: f64 = 6.0;
/// The smallest scale the automatic mode goes to.
pub const MIN_SCALE: f32 = 0.1;
/// The smallest effort (fraction of the ray and shadow samples) the automatic mode goes to.
pub const MIN_EFFORT: f32 = 0.25;
/// How long the picture must stay unchanged before it is drawn at full resolution.
pub const REST: Duration = Duration::from_millis(300);

/// Everything the 3D picture depends on; when it is unchanged the picture is too.
#[derive(Clone, Debug, PartialEq)]
pub struct ViewKey {
    /// The snapshot shown.
    pub serial: u64,
    /// The camera's view-projection matrix.
    pub view_proj: [[f32; 4]; 4],
    /// The view's viewport in the window.
    pub viewport: (u32, u32, u32, u32),
    /// The render settings, streamline and slice state, as text (cheap to compare, and
    /// complete: every field takes part).
    pub settings: String,
}

/// The scaled 3D view's state.
pub struct ScaledView {
    /// The mode the user chose.
    pub mode: ScaleMode,
    /// The scale of the last frame drawn (1 when it was the full-resolution picture).
    pub scale: f32,
    /// The automatic mode's current scale.
    auto_scale: f32,
    /// The automatic mode's current effort (see [`with_effort`]).
    auto_effort: f32,
    /// The effort of the last frame drawn (1 at full quality).
    pub effort: f32,
    /// The low-resolution target.
    low: Option<Texture2d>,
    /// The full-resolution picture and what it shows.
    full: Option<(Texture2d, ViewKey)>,
    /// The key of the last frame and since when it has not changed.
    last: Option<(ViewKey, Instant)>,
    /// Milliseconds the last 3D pass took.
    pub pass_ms: f64,
}

impl ScaledView {
    /// A view in `mode`.
    pub fn new(mode: ScaleMode) -> Self {
        Self {
            mode,
            scale: 1.0,
            auto_scale: 0.5,
            auto_effort: 1.0,
            effort: 1.0,
            low: None,
            full: None,
            last: None,
            pass_ms: 0.0,
        }
    }

    /// Draws the 3D view into `viewport` of `target`: `scene(surface, viewport, effort)` draws
    /// the picture at whatever size it is given, taking `effort` of the usual samples (see
    /// [`with_effort`]). Returns the scale used.
    pub fn draw<F: Facade, S: Surface>(
        &mut self,
        facade: &F,
        target: &mut S,
        viewport: Rect,
        key: ViewKey,
        mut scene: impl FnMut(&mut SimpleFrameBuffer<'_>, Rect, f32) -> Result<(), RenderError>,
    ) -> Result<f32, RenderError> {
        let now = Instant::now();
        let resting = match &self.last {
            Some((k, since)) if *k == key => now.duration_since(*since) >= REST,
            _ => {
                self.last = Some((key.clone(), now));
                false
            }
        };
        let (w, h) = (viewport.width, viewport.height);
        if w == 0 || h == 0 {
            return Ok(self.scale);
        }
        let scale = match self.mode {
            ScaleMode::Fixed(f) => f,
            ScaleMode::Auto if resting => 1.0,
            ScaleMode::Auto => self.auto_scale,
        };
        if scale >= 1.0 {
            // Full resolution: drawn once into the kept picture, then shown from it.
            if self.full.as_ref().is_none_or(|(_, k)| *k != key) {
                let tex = texture(facade, w, h)?;
                {
                    let mut fb = framebuffer(facade, &tex)?;
                    let t = Instant::now();
                    scene(&mut fb, rect(w, h), 1.0)?;
                    facade.get_context().finish();
                    self.pass_ms = t.elapsed().as_secs_f64() * 1e3;
                }
                self.full = Some((tex, key));
                // The automatic scale at 1 while the picture changes: it comes down again
                // where a full pass misses the budget (the smoke grew, the card got busier).
                // Without this it stayed at 1 once it got there: on an H200 at 256³ the 3D
                // pass took 19 ms a frame at 100% against the budget's 6.
                if !resting {
                    self.adapt();
                }
            }
            if let Some((tex, _)) = &self.full {
                blit(facade, tex, target, viewport)?;
            }
            self.scale = 1.0;
            self.effort = 1.0;
            return Ok(1.0);
        }
        let (lw, lh) = (
            ((w as f32 * scale).round() as u32).max(1),
            ((h as f32 * scale).round() as u32).max(1),
        );
        if self
            .low
            .as_ref()
            .is_none_or(|t| t.width() != lw || t.height() != lh)
        {
            self.low = Some(texture(facade, lw, lh)?);
        }
        let Some(low) = &self.low else {
            return Err(RenderError::resource_msg("low-resolution target missing"));
        };
        let effort = match self.mode {
            ScaleMode::Auto => self.auto_effort,
            ScaleMode::Fixed(_) => 1.0,
        };
        {
            let mut fb = framebuffer(facade, low)?;
            let t = Instant::now();
            scene(&mut fb, rect(lw, lh), effort)?;
            facade.get_context().finish();
            self.pass_ms = t.elapsed().as_secs_f64() * 1e3;
        }
        blit(facade, low, target, viewport)?;
        self.adapt();
        self.scale = scale;
        self.effort = effort;
        Ok(scale)
    }

    /// The automatic mode's next scale and effort after a pass drawn while the picture
    /// changes, from the time it took.
    fn adapt(&mut self) {
        if self.mode == ScaleMode::Auto {
            (self.auto_scale, self.auto_effort) =
                next_levels(self.auto_scale, self.auto_effort, self.pass_ms);
        }
    }
}

/// The automatic scale's next value: the pass time goes with the pixel count (scale²), so
/// the scale that would meet the budget is s·√(budget/ms); move a third of the way there.
pub fn next_scale(s: f32, pass_ms: f64) -> f32 {
    if pass_ms.is_nan() || pass_ms <= 0.0 {
        return s;
    }
    let ideal = s * (BUDGET_MS / pass_ms).sqrt() as f32;
    (s + (ideal - s) / 3.0).clamp(MIN_SCALE, 1.0)
}

/// The automatic mode's next (scale, effort): over the budget, the scale comes down first and
/// the effort only once the scale is at [`MIN_SCALE`]; under it, the effort goes back up to 1
/// first and the scale only then. The effort moves as the scale does, a third of the way to
/// where the pass would meet the budget (its cost goes roughly with effort², samples along
/// the ray times samples towards the light).
pub fn next_levels(scale: f32, effort: f32, pass_ms: f64) -> (f32, f32) {
    if pass_ms.is_nan() || pass_ms <= 0.0 {
        return (scale, effort);
    }
    let over = pass_ms > BUDGET_MS;
    if (over && scale > MIN_SCALE) || (!over && effort >= 1.0) {
        return (next_scale(scale, pass_ms), effort);
    }
    let ideal = effort * (BUDGET_MS / pass_ms).sqrt() as f32;
    (
        scale,
        (effort + (ideal - effort) / 3.0).clamp(MIN_EFFORT, 1.0),
    )
}

/// `settings` with `effort` (in [[`MIN_EFFORT`], 1]) of the samples along each ray and towards
/// the light, within the settings' own ranges (at least one sample per voxel, the least
/// `ranges` allows) and at least four samples towards the light.
pub fn with_effort(settings: &RenderSettings, effort: f32) -> RenderSettings {
    use plume_core::ranges::render as r;
    let mut s = settings.clone();
    if effort < 1.0 {
        s.step_quality = (s.step_quality * effort).max(r::STEP_QUALITY.min as f32);
        s.shadow_steps = ((s.shadow_steps as f32 * effort).round() as u32).max(4);
    }
    s
}

fn rect(width: u32, height: u32) -> Rect {
    Rect {
        left: 0,
        bottom: 0,
        width,
        height,
    }
}

fn texture<F: Facade>(facade: &F, w: u32, h: u32) -> Result<Texture2d, RenderError> {
    Texture2d::empty_with_format(
        facade,
        UncompressedFloatFormat::U8U8U8U8,
        MipmapsOption::NoMipmap,
        w,
        h,
    )
    .map_err(|e| RenderError::resource(format!("3D view target {w}×{h}"), e))
}

fn framebuffer<'a, F: Facade>(
    facade: &F,
    tex: &'a Texture2d,
) -> Result<SimpleFrameBuffer<'a>, RenderError> {
    SimpleFrameBuffer::new(facade, tex)
        .map_err(|e| RenderError::resource("framebuffer of the 3D view", e))
}

fn blit<F: Facade, S: Surface>(
    facade: &F,
    tex: &Texture2d,
    target: &S,
    viewport: Rect,
) -> Result<(), RenderError> {
    let fb = framebuffer(facade, tex)?;
    fb.blit_color(
        &rect(tex.width(), tex.height()),
        target,
        &BlitTarget {
            left: viewport.left,
            bottom: viewport.bottom,
            width: viewport.width as i32,
            height: viewport.height as i32,
        },
        MagnifySamplerFilter::Linear,
    );
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_automatic_scale_moves_towards_the_budget_and_stays_in_range() {
        // Too slow: smaller; too fast: larger; on budget: unchanged.
        assert!(next_scale(0.5, 4.0 * BUDGET_MS) < 0.5);
        assert!(next_scale(0.5, BUDGET_MS / 4.0) > 0.5);
        assert!((next_scale(0.5, BUDGET_MS) - 0.5).abs() < 1e-6);
        assert_eq!(next_scale(0.12, 1e6), MIN_SCALE);
        assert_eq!(next_scale(0.95, 0.001), 1.0);
        assert_eq!(next_scale(0.4, f64::NAN), 0.4);
        // Repeated, with a cost ∝ s², it settles where the pass meets the budget.
        let mut s = 1.0f32;
        for _ in 0..60 {
            let ms = 400.0 * f64::from(s * s);
            s = next_scale(s, ms);
        }
        let ms = 400.0 * f64::from(s * s);
        assert!((ms - BUDGET_MS).abs() < 0.5, "{s} → {ms} ms");
    }

    #[test]
    fn the_effort_drops_only_at_the_smallest_scale_and_returns_before_the_scale_grows() {
        // Over budget above the smallest scale: the scale drops, the effort stays.
        let (s, e) = next_levels(0.5, 1.0, 4.0 * BUDGET_MS);
        assert!(s < 0.5 && e == 1.0, "{s} {e}");
        // At the smallest scale and still over budget: the effort drops.
        let (s, e) = next_levels(MIN_SCALE, 1.0, 4.0 * BUDGET_MS);
        assert!(s == MIN_SCALE && e < 1.0, "{s} {e}");
        // Far over budget: never below the floor.
        let (_, e) = next_levels(MIN_SCALE, MIN_EFFORT, 1e6);
        assert_eq!(e, MIN_EFFORT);
        // Under budget with reduced effort: the effort rises first, the scale waits.
        let (s, e) = next_levels(MIN_SCALE, 0.5, BUDGET_MS / 4.0);
        assert!(s == MIN_SCALE && e > 0.5, "{s} {e}");
        // At full effort under budget: the scale rises.
        let (s, e) = next_levels(MIN_SCALE, 1.0, BUDGET_MS / 4.0);
        assert!(s > MIN_SCALE && e == 1.0, "{s} {e}");
        assert_eq!(next_levels(0.3, 0.7, f64::NAN), (0.3, 0.7));
        // A cost ∝ scale²·effort² far over budget at the smallest scale settles on budget.
        let (mut s, mut e) = (1.0f32, 1.0f32);
        let cost = |s: f32, e: f32| 3000.0 * f64::from(s * s * e * e);
        for _ in 0..80 {
            (s, e) = next_levels(s, e, cost(s, e));
        }
        assert_eq!(s, MIN_SCALE);
        assert!(
            (cost(s, e) - BUDGET_MS).abs() < 0.5,
            "{s} {e} → {} ms",
            cost(s, e)
        );
    }

    #[test]
    fn effort_takes_samples_away_within_floors() {
        let base = RenderSettings::default();
        assert_eq!(with_effort(&base, 1.0), base);
        let half = with_effort(&base, 0.5);
        assert!(half.step_quality < base.step_quality);
        assert!(half.shadow_steps < base.shadow_steps && half.shadow_steps >= 4);
        let least = with_effort(&base, MIN_EFFORT);
        // Still settings the renderer accepts.
        least.validate().expect("within the ranges");
        assert_eq!(least.density_scale, base.density_scale);
    }

    /// The automatic scale comes down from 1 where a full-resolution pass misses the budget
    /// while the picture changes, and stays at 1 where it meets it (real OpenGL).
    #[test]
    fn the_automatic_scale_leaves_full_resolution_when_a_pass_is_too_slow() {
        let ctx = crate::render::context::headless().expect("a headless OpenGL context");
        let viewport = rect(64, 48);
        let key = |serial| ViewKey {
            serial,
            view_proj: [[0.0; 4]; 4],
            viewport: (0, 0, 64, 48),
            settings: String::new(),
        };
        for (pass_ms, leaves) in [(3.0 * BUDGET_MS, true), (0.0, false)] {
            let mut view = ScaledView::new(ScaleMode::Auto);
            view.auto_scale = 1.0;
            let target = Texture2d::empty(&ctx, 64, 48).expect("a target");
            let mut scales = Vec::new();
            for serial in 0..4 {
                let mut fb = SimpleFrameBuffer::new(&ctx, &target).expect("a framebuffer");
                let s = view
                    .draw(&ctx, &mut fb, viewport, key(serial), |surface, _, _| {
                        surface.clear_color(0.0, 0.0, 0.0, 1.0);
                        std::thread::sleep(Duration::from_secs_f64(pass_ms / 1e3));
                        Ok(())
                    })
                    .expect("drawn");
                scales.push(s);
            }
            assert_eq!(scales[0], 1.0, "{scales:?}");
            if leaves {
                assert!(scales[1] < 1.0 && scales[3] < scales[1], "{scales:?}");
            } else {
                assert_eq!(scales, [1.0; 4]);
            }
        }
    }

    #[test]
    fn scale_modes_parse() {
        assert_eq!(ScaleMode::parse("auto"), Ok(ScaleMode::Auto));
        assert_eq!(ScaleMode::parse("0.5"), Ok(ScaleMode::Fixed(0.5)));
        assert_eq!(ScaleMode::parse("1"), Ok(ScaleMode::Fixed(1.0)));
        for bad in ["0", "1.5", "-1", "half", "NaN"] {
            assert!(ScaleMode::parse(bad).is_err(), "{bad}");
        }
    }
}
