//! Small egui widgets the panel sections share. Sliders for a parameter take its range and
//! scale from `crate::ranges`, so a slider spans exactly what validation allows and never
//! clamps a value a scene file may hold.

use crate::ranges::{Param, Scale};

/// A slider over `p`'s whole allowed range (logarithmic where the table says so), labelled
/// `label` and the unit. Returns whether the value changed.
pub fn param_slider<N: egui::emath::Numeric>(
    ui: &mut egui::Ui,
    p: &Param,
    label: &str,
    v: &mut N,
) -> egui::Response {
    let (lo, hi) = p.slider_range();
    let text = if p.unit.is_empty() {
        label.to_string()
    } else {
        format!("{label} ({})", p.unit)
    };
    let mut s = egui::Slider::from_get_set(lo..=hi, |set| {
        if let Some(x) = set {
            *v = N::from_f64(x);
        }
        v.to_f64()
    })
    .text(text);
    if p.scale == Scale::Log {
        s = s
            .logarithmic(true)
            .smallest_positive(p.log_floor())
            .custom_formatter(|x, _| short(x));
    }
    if p.integer {
        s = s.integer();
    }
    ui.add(s)
}

/// A number field over `p`'s allowed range with a drag `speed`.
pub fn param_drag(ui: &mut egui::Ui, p: &Param, v: &mut f32, speed: f64) -> bool {
    let (lo, hi) = p.slider_range();
    ui.add(egui::DragValue::new(v).speed(speed).range(lo..=hi))
        .changed()
}

/// An optional value with a checkbox: unchecked is `None`, checking sets `default`.
pub fn optional<T: Copy>(
    ui: &mut egui::Ui,
    label: &str,
    v: &mut Option<T>,
    default: T,
    edit: impl FnOnce(&mut egui::Ui, &mut T) -> bool,
) -> bool {
    let mut changed = false;
    ui.horizontal(|ui| {
        let mut on = v.is_some();
        if ui.checkbox(&mut on, label).changed() {
            *v = on.then_some(default);
            changed = true;
        }
        if let Some(x) = v.as_mut() {
            changed |= edit(ui, x);
        }
    });
    changed
}

/// Three number fields, each over `p`'s allowed range.
pub fn vec3_edit(ui: &mut egui::Ui, v: &mut [f32; 3], speed: f64, p: &Param) -> bool {
    let mut changed = false;
    for c in v.iter_mut() {
        changed |= param_drag(ui, p, c, speed);
    }
    changed
}

/// A colour button with a label.
pub fn rgb_edit(ui: &mut egui::Ui, label: &str, c: &mut [f32; 3]) {
    ui.horizontal(|ui| {
        ui.color_edit_button_rgb(c);
        ui.label(label);
    });
}

/// A number in at most four significant digits: `0`, `0.05`, `1.5`, `200`, `1.00e-5`.
pub fn short(x: f64) -> String {
    let a = x.abs();
    if a == 0.0 {
        "0".into()
    } else if !(1e-3..1e5).contains(&a) {
        format!("{x:.2e}")
    } else {
        let digits = (3 - a.log10().floor() as i32).clamp(0, 6) as usize;
        let s = format!("{x:.digits$}");
        if s.contains('.') {
            s.trim_end_matches('0').trim_end_matches('.').to_string()
        } else {
            s
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn short_numbers_keep_four_significant_digits() {
        use super::short;
        assert_eq!(short(0.0), "0");
        assert_eq!(short(0.05), "0.05");
        assert_eq!(short(1.5), "1.5");
        assert_eq!(short(200.0), "200");
        assert_eq!(short(1.0 / 60.0), "0.01667");
        assert_eq!(short(1e-5), "1.00e-5");
        assert_eq!(short(-700.0), "-700");
    }
}
