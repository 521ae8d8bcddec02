//! How the volume is drawn, as plain data: the scene file's `[render]` table. The renderer
//! (in the `plume` crate) reads it; nothing here knows about OpenGL.

use crate::sim::SimError;

/// Most obstacles a scene may have (the renderer shades each analytically).
pub const MAX_OBSTACLES: usize = 16;

/// How the volume is shaded. Colours are sRGB-encoded RGB in [0, 1] (as a colour picker shows
/// them); the shader converts them to linear light, lights, scatters and emits in linear
/// light, then applies the exposure and the tone map and writes sRGB.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RenderSettings {
    /// Extinction per unit density per domain unit. Default 40; allowed [0, 1e6]. The ranges
    /// of this struct's fields are in [`crate::ranges::render`].
    pub density_scale: f32,
    /// Samples per voxel along a ray (the step is h / quality). Default 1.5; allowed [1, 8].
    pub step_quality: f32,
    /// Direction towards the light (normalised when used). Default (0.4, 1, 0.3).
    pub light_dir: [f32; 3],
    /// Light colour × intensity. Default (1, 0.97, 0.92).
    pub light_color: [f32; 3],
    /// Self-shadowing by a march towards the light. Default on.
    pub shadows: bool,
    /// Samples of that march. Default 24; allowed 1..=256.
    pub shadow_steps: u32,
    /// Ambient light. Default 0.25; allowed [0, 10].
    pub ambient: f32,
    /// Albedo of the smoke. Default (0.92, 0.92, 0.95).
    pub smoke_color: [f32; 3],
    /// Background at the bottom of the view. Default dark blue-grey.
    pub background_bottom: [f32; 3],
    /// Background at the top of the view.
    pub background_top: [f32; 3],
    /// Draw the domain's outline. Default on.
    pub outline: bool,
    /// Outline colour and opacity.
    pub outline_color: [f32; 4],
    /// Per-pixel jitter of the first sample, to hide banding. Default on.
    pub jitter: bool,
    /// Colour of solid obstacles. Default warm grey.
    pub obstacle_color: [f32; 3],
    /// Henyey–Greenstein anisotropy g of the smoke's scattering: 0 scatters evenly, > 0
    /// forward (bright rims when looking towards the light), < 0 backward. Default 0.3;
    /// allowed [−0.95, 0.95].
    pub anisotropy: f32,
    /// Exposure in stops (each +1 doubles the light before the tone map). Default 0; allowed
    /// [−10, 10].
    pub exposure: f32,
    /// Filmic (ACES-fitted) tone map from linear light to the screen; off clips at 1. Default
    /// on.
    pub tone_map: bool,
    /// Light a flame of 1 at the reference 1500 K emits per domain unit of ray (its colour and
    /// the T⁴ brightness come from the blackbody table). Default 12; allowed [0, 10000].
    pub flame_intensity: f32,
    /// How strongly the flame lights the smoke around it (0: only the light and ambient do).
    /// Default 1; allowed [0, 100].
    pub flame_light: f32,
    /// Kelvin per unit of the scene's temperature (1000: a temperature of 1.5 glows as 1500 K,
    /// as Blender's Principled Volume reads the grid at its default Temperature of 1000 K).
    /// Default 1000; allowed [1, 100000].
    pub kelvin_per_unit: f32,
}

impl Default for RenderSettings {
    fn default() -> Self {
        Self {
            density_scale: 40.0,
            step_quality: 1.5,
            light_dir: [0.4, 1.0, 0.3],
            light_color: [1.0, 0.97, 0.92],
            shadows: true,
            shadow_steps: 24,
            ambient: 0.25,
            smoke_color: [0.92, 0.92, 0.95],
            background_bottom: [0.06, 0.07, 0.09],
            background_top: [0.22, 0.25, 0.31],
            outline: true,
            outline_color: [0.8, 0.85, 0.9, 0.45],
            jitter: true,
            obstacle_color: [0.62, 0.58, 0.52],
            anisotropy: 0.3,
            exposure: 0.0,
            tone_map: true,
            flame_intensity: 12.0,
            flame_light: 1.0,
            kelvin_per_unit: 1000.0,
        }
    }
}

impl RenderSettings {
    /// Checks every field against its range in [`crate::ranges::render`]; the error names
    /// the key.
    pub fn validate(&self) -> Result<(), SimError> {
        use crate::ranges::render as r;
        r::DENSITY_SCALE.check(self.density_scale)?;
        r::STEP_QUALITY.check(self.step_quality)?;
        if !self.light_dir.iter().all(|x| x.is_finite()) || self.light_dir.iter().all(|x| *x == 0.0)
        {
            return Err(SimError::field(
                "light_dir",
                format!("light_dir {:?} must be finite and non-zero", self.light_dir),
            ));
        }
        r::SHADOW_STEPS.check_count(self.shadow_steps)?;
        r::AMBIENT.check(self.ambient)?;
        r::ANISOTROPY.check(self.anisotropy)?;
        r::EXPOSURE.check(self.exposure)?;
        r::FLAME_INTENSITY.check(self.flame_intensity)?;
        r::FLAME_LIGHT.check(self.flame_light)?;
        r::KELVIN_PER_UNIT.check(self.kelvin_per_unit)?;
        for (name, c) in [
            ("light_color", &self.light_color[..]),
            ("smoke_color", &self.smoke_color[..]),
            ("background_bottom", &self.background_bottom[..]),
            ("background_top", &self.background_top[..]),
            ("outline_color", &self.outline_color[..]),
            ("obstacle_color", &self.obstacle_color[..]),
        ] {
            if !c.iter().all(|&x| r::COLOR.contains(f64::from(x))) {
                return Err(SimError::field(
                    name,
                    format!(
                        "{name} {c:?} must have components in {}",
                        r::COLOR.range_text()
                    ),
                ));
            }
        }
        Ok(())
    }

    /// sRGB-encoded colour → linear light.
    pub fn linear(c: [f32; 3]) -> [f32; 3] {
        c.map(srgb_to_linear)
    }

    /// Unit vector towards the light.
    pub fn light_unit(&self) -> [f32; 3] {
        let [x, y, z] = self.light_dir;
        let n = (x * x + y * y + z * z).sqrt();
        [x / n, y / n, z / n]
    }
}

/// The sRGB transfer function's inverse: an encoded component in [0, 1] → linear light.
pub fn srgb_to_linear(c: f32) -> f32 {
    if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }
}
