//! Blackbody emission for the fire shader: Planck's law integrated against the CIE 1931
//! colour-matching functions, converted to linear sRGB (Rec. 709 primaries, D65 white), the
//! colour normalised to unit luminance and scaled by the Stefan–Boltzmann law relative to a
//! reference temperature — the same split Cycles' Principled Volume makes (colour from the
//! spectrum, brightness ∝ T⁴). The renderer uploads [`table`] as a 1D texture; the flame's
//! emission is `flame_intensity × flame × emission(T)`.

/// Kelvin at which a flame of 1 emits `flame_intensity` (unit luminance).
pub const REFERENCE_KELVIN: f32 = 1500.0;
/// Range the table covers, kelvin. Below the first entry nothing glows (the Draper point,
/// where hot matter starts to glow visibly, is ~800 K); above the last the last entry holds.
pub const TABLE_KELVIN: (f32, f32) = (500.0, 12_000.0);
/// Entries in the table.
pub const TABLE_LEN: usize = 512;

/// One lobe of Wyman, Sloan and Shirley's (2013) piecewise-Gaussian fit to the CIE 1931 2°
/// observer: different widths left and right of the peak.
fn lobe(l: f64, mu: f64, s1: f64, s2: f64) -> f64 {
    let s = if l < mu { s1 } else { s2 };
    (-0.5 * ((l - mu) / s).powi(2)).exp()
}

/// CIE 1931 colour-matching functions x̄, ȳ, z̄ at wavelength `nm` (multi-lobe fit; within
/// about 1% of the tabulated functions over the visible range).
pub fn cie_xyz(nm: f64) -> [f64; 3] {
    [
        1.056 * lobe(nm, 599.8, 37.9, 31.0) + 0.362 * lobe(nm, 442.0, 16.0, 26.7)
            - 0.065 * lobe(nm, 501.1, 20.4, 26.2),
        0.821 * lobe(nm, 568.8, 46.9, 40.5) + 0.286 * lobe(nm, 530.9, 16.3, 31.1),
        1.217 * lobe(nm, 437.0, 11.8, 36.0) + 0.681 * lobe(nm, 459.0, 26.0, 13.8),
    ]
}

/// Planck's spectral radiance at `nm` and `kelvin`, up to a constant factor.
fn planck(nm: f64, kelvin: f64) -> f64 {
    const C2: f64 = 1.438_776_877e7; // hc/k in nm·K
    let x = C2 / (nm * kelvin);
    if x > 700.0 {
        return 0.0;
    }
    1.0 / (nm.powi(5) * x.exp_m1())
}

/// CIE XYZ of a blackbody at `kelvin`, normalised to Y = 1.
pub fn xyz(kelvin: f64) -> [f64; 3] {
    let mut s = [0.0f64; 3];
    let mut nm = 360.0;
    while nm <= 830.0 {
        let b = planck(nm, kelvin);
        let c = cie_xyz(nm);
        for a in 0..3 {
            s[a] += b * c[a];
        }
        nm += 1.0;
    }
    if s[1] <= 0.0 {
        return [0.0; 3];
    }
    [s[0] / s[1], 1.0, s[2] / s[1]]
}

/// Linear sRGB of a CIE XYZ colour (negative components, outside the gamut, clipped to 0).
pub fn xyz_to_linear_srgb([x, y, z]: [f64; 3]) -> [f32; 3] {
    [
        3.2406 * x - 1.5372 * y - 0.4986 * z,
        -0.9689 * x + 1.8758 * y + 0.0415 * z,
        0.0557 * x - 0.2040 * y + 1.0570 * z,
    ]
    .map(|c| c.max(0.0) as f32)
}

/// Colour of a blackbody at `kelvin` in linear sRGB at unit luminance.
pub fn color(kelvin: f32) -> [f32; 3] {
    xyz_to_linear_srgb(xyz(f64::from(kelvin.max(1.0))))
}

/// Emission of a unit flame at `kelvin`: [`color`] × (T / [`REFERENCE_KELVIN`])⁴, faded out
/// between 700 K and 1000 K (below that nothing visibly glows).
pub fn emission(kelvin: f32) -> [f32; 3] {
    let t = kelvin.max(0.0);
    let fade = ((t - 700.0) / 300.0).clamp(0.0, 1.0);
    let fade = fade * fade * (3.0 - 2.0 * fade);
    if fade == 0.0 {
        return [0.0; 3];
    }
    let scale = fade * (t / REFERENCE_KELVIN).powi(4);
    color(t).map(|c| c * scale)
}

/// [`emission`] at [`TABLE_LEN`] temperatures spread evenly over [`TABLE_KELVIN`].
pub fn table() -> Vec<[f32; 3]> {
    let (lo, hi) = TABLE_KELVIN;
    (0..TABLE_LEN)
        .map(|i| emission(lo + (hi - lo) * i as f32 / (TABLE_LEN - 1) as f32))
        .collect()
}

/// [`emission`] read from a [`table`] with linear interpolation, as the shader reads it (0
/// below the table's range, the last entry above).
pub fn lookup(table: &[[f32; 3]], kelvin: f32) -> [f32; 3] {
    let (lo, hi) = TABLE_KELVIN;
    if table.len() < 2 || kelvin.is_nan() || kelvin <= lo {
        return [0.0; 3];
    }
    let x = ((kelvin - lo) / (hi - lo)).min(1.0) * (table.len() - 1) as f32;
    let i = (x as usize).min(table.len() - 2);
    let f = x - i as f32;
    [0, 1, 2].map(|c| table[i][c] + f * (table[i + 1][c] - table[i][c]))
}

/// Luminance (Rec. 709) of a linear sRGB colour.
pub fn luminance(c: [f32; 3]) -> f32 {
    0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn d65_like_temperature_is_nearly_white_and_flames_are_orange() {
        // 6504 K is D65's correlated colour temperature: close to sRGB's white.
        let w = color(6504.0);
        for c in w {
            assert!((c - 1.0).abs() < 0.08, "{w:?}");
        }
        let f = color(1500.0);
        assert!(f[0] > f[1] && f[1] > f[2], "{f:?}");
        assert!(f[2] < 0.05 * f[0], "{f:?}");
        // Hotter is bluer: B/R grows with temperature.
        let mut last = 0.0;
        for t in [1000.0, 1500.0, 2500.0, 4000.0, 6500.0, 10000.0] {
            let c = color(t);
            let r = c[2] / c[0];
            assert!(r >= last, "{t} K: {c:?}");
            last = r;
        }
        assert!((luminance(color(3000.0)) - 1.0).abs() < 0.02);
    }

    #[test]
    fn emission_follows_stefan_boltzmann_and_vanishes_when_cold() {
        assert_eq!(emission(600.0), [0.0; 3]);
        let a = luminance(emission(1500.0));
        let b = luminance(emission(3000.0));
        assert!((a - 1.0).abs() < 0.02, "{a}");
        assert!((b / a - 16.0).abs() < 0.5, "{}", b / a);
        let t = table();
        assert_eq!(t.len(), TABLE_LEN);
        assert_eq!(t[0], [0.0; 3]);
        let (a, b) = (lookup(&t, 1800.0), emission(1800.0));
        for c in 0..3 {
            assert!((a[c] - b[c]).abs() < 0.01 * b[c].max(0.1), "{a:?} vs {b:?}");
        }
    }
}
