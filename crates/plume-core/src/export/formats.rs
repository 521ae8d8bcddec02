//! The registry of file formats. Adding a format means: its exporter in its own file (a type
//! implementing [`Exporter`], `exporter.rs`), a variant of [`Format`] and a row in
//! [`REGISTRY`] here.
//! Everything else — `--format` parsing and help, file naming, the manifest, the viewer's
//! Export checkboxes, writing — reads the registry.

use super::exporter::Exporter;

/// A file format, by name (the file extension; the manifest spells it the same way).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// OpenVDB `.vdb`.
    Vdb,
    /// VTK XML image data `.vti`.
    Vti,
    /// NumPy `.npy` (one file per field).
    Npy,
    /// VTK XML PolyData `.vtp`: the 3D streamlines.
    Vtp,
}

/// Whether `name` is a frame file: `<prefix>_<4 digits>.<ext>` or
/// `<prefix>_<field>_<4 digits>.<ext>` with a registered format's extension (the names
/// [`Exporter::file_names`] and [`write_single`](super::exporter::write_single) make).
/// Returns the frame number.
pub fn frame_number(name: &str) -> Option<u32> {
    let (stem, ext) = name.rsplit_once('.')?;
    if !Format::all().any(|f| f.ext() == ext) {
        return None;
    }
    let (head, digits) = stem.rsplit_once('_')?;
    if head.is_empty() || digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    digits.parse().ok()
}

/// Every format Plume writes, in the order help texts list them.
pub const REGISTRY: [(Format, &dyn Exporter); 4] = [
    (Format::Vdb, &super::vdb::VdbExporter),
    (Format::Vti, &super::vti::VtiExporter),
    (Format::Npy, &super::npy::NpyExporter),
    (Format::Vtp, &super::vtp::VtpExporter),
];

impl Format {
    /// All formats, in the registry's order.
    pub fn all() -> impl Iterator<Item = Format> {
        REGISTRY.iter().map(|(f, _)| *f)
    }

    /// The format's exporter.
    pub fn exporter(self) -> &'static dyn Exporter {
        REGISTRY
            .iter()
            .find(|(f, _)| *f == self)
            .map(|(_, e)| *e)
            .unwrap_or(REGISTRY[0].1)
    }

    /// File extension (and name).
    pub fn ext(self) -> &'static str {
        self.exporter().ext()
    }

    /// The names, comma-separated: `vdb, vti, npy`.
    pub fn names() -> String {
        Self::all().map(Format::ext).collect::<Vec<_>>().join(", ")
    }

    /// Parses a comma-separated list like `vdb,vti` (case-insensitive, repeats dropped).
    pub fn parse_list(s: &str) -> Result<Vec<Format>, String> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let Some(f) = Self::all().find(|f| f.ext().eq_ignore_ascii_case(part)) else {
                return Err(format!(
                    "unknown format '{part}' (choose from {})",
                    Self::names()
                ));
            };
            if !out.contains(&f) {
                out.push(f);
            }
        }
        if out.is_empty() {
            return Err(format!("no format given (choose from {})", Self::names()));
        }
        Ok(out)
    }
}

/// The `--format` help: every format with what it is.
pub fn help() -> String {
    let list: Vec<String> = REGISTRY
        .iter()
        .map(|(f, e)| format!("{} ({})", f.ext(), e.about()))
        .collect();
    format!("Formats, comma-separated: {}", list.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn frame_files_are_known_by_their_names() {
        assert_eq!(frame_number("plume_0007.vdb"), Some(7));
        assert_eq!(frame_number("plume_density_0012.npy"), Some(12));
        for not in ["plume_007.vdb", "plume_0007.png", "_0007.vdb", "notes.vdb"] {
            assert_eq!(frame_number(not), None, "{not}");
        }
    }
}
