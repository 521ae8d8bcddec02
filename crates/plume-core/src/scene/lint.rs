//! Checks serde cannot make on a scene document: arrays of a fixed length given too many
//! elements (serde reads the first ones and ignores the rest) and numbers too large for the
//! 32-bit floats the scene holds (serde turns `1e300` into `inf`, which a later message would
//! show instead of what was written). Both are reported at the key's line, as written.

use toml::de::{DeTable, DeValue};

/// Keys whose value is an array of a fixed length, and that length.
const FIXED: [(&str, usize); 13] = [
    ("dims", 3),
    ("origin", 3),
    ("center", 3),
    ("size", 3),
    ("velocity", 3),
    ("target", 3),
    ("light_dir", 3),
    ("light_color", 3),
    ("smoke_color", 3),
    ("background_bottom", 3),
    ("background_top", 3),
    ("obstacle_color", 3),
    ("outline_color", 4),
];

/// A problem at a byte offset of the document.
pub struct Lint {
    /// Byte offset of the key (or value) in the text.
    pub offset: usize,
    /// The message.
    pub message: String,
}

/// The first problem in `text`, if any (a document that does not parse is left to serde,
/// whose message is better).
pub fn check(text: &str) -> Option<Lint> {
    let doc = DeTable::parse(text).ok()?;
    table(doc.get_ref(), "")
}

fn table(t: &DeTable<'_>, path: &str) -> Option<Lint> {
    for (k, v) in t.iter() {
        let name: &str = k.get_ref();
        let full = if path.is_empty() {
            name.to_string()
        } else {
            format!("{path}.{name}")
        };
        if let Some(l) = value(v.get_ref(), &full, name, k.span().start) {
            return Some(l);
        }
    }
    None
}

fn value(v: &DeValue<'_>, full: &str, key: &str, offset: usize) -> Option<Lint> {
    match v {
        DeValue::Float(f) => {
            let raw = f.as_str();
            let x: f64 = raw.replace('_', "").parse().ok()?;
            if x.is_finite() && x.abs() > f64::from(f32::MAX) {
                return Some(Lint {
                    offset,
                    message: format!(
                        "{full} = {raw} is too large: numbers in a scene are 32-bit floats, at \
                         most about 3.4e38 in size"
                    ),
                });
            }
            None
        }
        DeValue::Array(a) => {
            if let Some((_, n)) = FIXED.iter().find(|(k, _)| *k == key) {
                if a.len() > *n {
                    return Some(Lint {
                        offset,
                        message: format!("{full} has {} elements; it takes exactly {n}", a.len()),
                    });
                }
            }
            for (i, item) in a.iter().enumerate() {
                let inner = format!("{full}[{i}]");
                if let Some(l) = value(item.get_ref(), &inner, "", item.span().start) {
                    return Some(l);
                }
            }
            None
        }
        DeValue::Table(t) => table(t, full),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_arrays_and_huge_numbers_are_found_and_ordinary_ones_pass() {
        assert!(check("[grid]\ndims = [16, 16, 16]\n").is_none());
        let l = check("[grid]\ndims = [16, 16, 16, \"junk\", {a=1}]\n").expect("too long");
        assert_eq!(l.message, "grid.dims has 5 elements; it takes exactly 3");
        assert_eq!(&"[grid]\ndims"[l.offset..], "dims");
        let l = check("[[emitter]]\ncenter = [0.5, 0.5, 0.5, 0.5]\n").expect("4 > 3");
        assert!(
            l.message.starts_with("emitter[0].center has 4"),
            "{}",
            l.message
        );
        let l = check("[[emitter]]\ndensity = 1e300\n").expect("huge");
        assert!(
            l.message.contains("density = 1e300 is too large"),
            "{}",
            l.message
        );
        assert!(check("[render]\noutline_color = [1.0, 1.0, 1.0, 0.5]\n").is_none());
        assert!(check("[fluid]\nfade = 3.0e38\n").is_none());
    }
}
