//! Export of volume frames to files other tools open: OpenVDB (Blender, Houdini), VTK XML
//! image data (ParaView) and NumPy arrays (Python). No GL in here.
//!
//! Every file is written atomically (`crate::atomic`): under a temporary name in the target
//! folder, renamed when complete, so a failed or interrupted write never leaves a broken file
//! under the final name.

pub mod axes;
pub mod exporter;
pub mod folder;
pub mod formats;
pub mod manifest;
pub mod npy;
pub mod read;
pub mod recorder;
pub mod replay;
pub mod run;
pub mod vdb;
pub mod vdb_read;
pub mod vti;
pub mod vtp;

pub use axes::Up;
pub use exporter::Exporter;
pub use formats::Format;

use crate::frame::{Frame, Select};
use crate::sim::Simulation;
use std::path::PathBuf;

/// Errors from exporting.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    /// A file could not be written.
    #[error(transparent)]
    Write(#[from] crate::atomic::WriteError),
    /// The output folder could not be created or is not writable.
    #[error("cannot use the output folder {}", path.display())]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// Bad export settings.
    #[error("invalid export setting: {0}")]
    Invalid(String),
    /// Another process holds the folder's lock.
    #[error(
        "{} is being written by {}; wait for it to finish or choose another folder",
        dir.display(),
        holder(*pid)
    )]
    Locked {
        /// The folder.
        dir: PathBuf,
        /// The process holding the lock, as its lock file says.
        pid: Option<u32>,
    },
    /// The folder holds another run's files.
    #[error(
        "{} already holds {found}: pass --overwrite to replace that run (only the files its \
         manifest lists are removed), --resume to continue it, or choose another folder",
        dir.display()
    )]
    FolderInUse {
        /// The folder.
        dir: PathBuf,
        /// What it holds.
        found: String,
    },
    /// The folder holds files named like frames but nothing proves Plume wrote them.
    #[error(
        "{} holds {found} but no manifest.json of Plume's that lists them, so Plume cannot \
         tell them from your own files and will not replace or remove them (--overwrite removes \
         only files a Plume manifest lists): choose another folder, or move those files away",
        dir.display()
    )]
    NotOurs {
        /// The folder.
        dir: PathBuf,
        /// What it holds.
        found: String,
    },
    /// Files the run would write are already there and not Plume's.
    #[error(
        "{} holds {} this run would write ({}) that no Plume manifest lists; Plume does not \
         replace files it cannot prove it wrote: move them away or choose another folder",
        dir.display(),
        if files.len() == 1 { "a file".to_string() } else { format!("{} files", files.len()) },
        shorten(files)
    )]
    NamesTaken {
        /// The folder.
        dir: PathBuf,
        /// The files.
        files: Vec<String>,
    },
    /// A frame could not be put in place (a write failed, or the run was stopped); its files
    /// were removed and the manifest lists the frames before it.
    #[error("frame {frame} was not written to {}: {}", dir.display(), held(*frame))]
    Frame {
        /// The folder.
        dir: PathBuf,
        /// The frame's number.
        frame: u32,
        /// Why.
        #[source]
        source: Box<ExportError>,
    },
    /// The run was asked to stop (a signal) while a frame was being written.
    #[error("stopped by a signal before the frame was complete; it was discarded")]
    Stopped,
    /// `--resume` was asked of a folder whose run differs from this one.
    #[error("cannot resume the run in {}: {why}", dir.display())]
    Incompatible {
        /// The folder.
        dir: PathBuf,
        /// What differs.
        why: String,
    },
}

/// Who holds a folder's lock, for [`ExportError::Locked`]: its process, or this one (another
/// writer in the same program, such as a second wedge started from the same Python session).
fn holder(pid: Option<u32>) -> String {
    match pid {
        None => "another plume (process id unknown)".to_string(),
        Some(p) if p == std::process::id() => format!("another writer in this process ({p})"),
        Some(p) => format!("another plume (process {p})"),
    }
}

/// Up to four names, then how many more.
fn shorten(files: &[String]) -> String {
    let mut s = files[..files.len().min(4)].join(", ");
    if files.len() > 4 {
        s.push_str(&format!(" and {} more", files.len() - 4));
    }
    s
}

/// What a folder holds after frame `frame` failed, for messages.
fn held(frame: u32) -> String {
    match frame {
        0 | 1 => "the folder holds no frame yet (manifest.json lists none; --resume starts \
                  over)"
            .into(),
        2 => "the folder holds frame 1 whole, as manifest.json lists (--resume continues from \
              there)"
            .into(),
        _ => format!(
            "the folder holds frames 1 to {} whole, as manifest.json lists (--resume continues \
             from there)",
            frame - 1
        ),
    }
}

/// Which fields go into the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fields {
    /// The density grid.
    pub density: bool,
    /// The temperature grid (the scene's units: thousands of kelvin as Blender reads them).
    #[serde(default)]
    pub temperature: bool,
    /// The flame grid.
    #[serde(default)]
    pub flame: bool,
    /// The fuel grid.
    #[serde(default)]
    pub fuel: bool,
    /// The velocity grid (sampled at cell centres).
    pub velocity: bool,
    /// Where the solver put the obstacles: 1 in a solid cell, 0 elsewhere, as a grid named
    /// `collision` (`--fields …,solid` or `collision`).
    #[serde(default)]
    pub collision: bool,
}

impl Default for Fields {
    fn default() -> Self {
        Self {
            density: true,
            temperature: false,
            flame: false,
            fuel: false,
            velocity: true,
            collision: false,
        }
    }
}

impl Fields {
    /// Every field's name as `--fields` spells it, in the order files hold them.
    pub const NAMES: [&'static str; 6] = [
        "density",
        "temperature",
        "flame",
        "fuel",
        "collision",
        "velocity",
    ];

    /// No field.
    pub const NONE: Fields = Fields {
        density: false,
        temperature: false,
        flame: false,
        fuel: false,
        velocity: false,
        collision: false,
    };

    fn flag(&mut self, name: &str) -> Option<&mut bool> {
        Some(match name {
            "density" => &mut self.density,
            "temperature" => &mut self.temperature,
            "flame" => &mut self.flame,
            "fuel" => &mut self.fuel,
            "velocity" => &mut self.velocity,
            "collision" | "solid" => &mut self.collision,
            _ => return None,
        })
    }

    /// Whether the field called `name` is selected.
    pub fn has(&self, name: &str) -> bool {
        let mut f = *self;
        f.flag(name).is_some_and(|b| *b)
    }

    /// Selects or drops the field called `name` (one of [`Fields::NAMES`]).
    pub fn set(&mut self, name: &str, on: bool) {
        if let Some(b) = self.flag(name) {
            *b = on;
        }
    }

    /// Whether any field is selected.
    pub fn any(&self) -> bool {
        Self::NAMES.iter().any(|n| self.has(n))
    }

    /// Parses a comma-separated list such as `density,temperature,flame`.
    pub fn parse_list(s: &str) -> Result<Fields, String> {
        let mut f = Fields::NONE;
        let choose = Self::NAMES.join(", ");
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match f.flag(&part.to_ascii_lowercase()) {
                Some(b) => *b = true,
                None => return Err(format!("unknown field '{part}' (choose from {choose})")),
            }
        }
        if !f.any() {
            return Err(format!("no field given (choose from {choose})"));
        }
        Ok(f)
    }

    /// Names of the selected fields.
    pub fn names(&self) -> Vec<&'static str> {
        Self::NAMES
            .iter()
            .copied()
            .filter(|n| self.has(n))
            .collect()
    }

    /// Floats per cell the selected fields hold.
    pub fn floats_per_cell(&self) -> u64 {
        self.names()
            .iter()
            .map(|n| if *n == "velocity" { 3 } else { 1 })
            .sum()
    }
}

/// Memory writing one frame of a `dims` grid with `opts` takes at most: the captured frame
/// and one encoded file of it held whole (a `.vdb` is built in memory before it is written).
pub fn estimate_bytes(dims: crate::sim::Dims, opts: &ExportOptions) -> u64 {
    let n = dims.cells() as u64;
    2 * 4 * n * opts.fields.floats_per_cell() + (1 << 20)
}

/// Copies what `opts` writes out of a simulation: the selected fields and, for `.vtp`, the
/// streamlines (traced through the velocity, which is then dropped unless selected).
pub fn capture(sim: &dyn Simulation, opts: &ExportOptions) -> Frame {
    let lines = opts.formats.contains(&Format::Vtp);
    let mut select: Select = opts.fields.into();
    if lines {
        select.velocity = true;
        select.solid = true;
    }
    let mut f = sim.frame(select);
    if opts.fields.collision {
        let n = f.grid.dims.cells();
        f.collision = Some(match &f.solid {
            Some(m) => m.iter().map(|&x| f32::from(u8::from(x != 0))).collect(),
            None => vec![0.0; n],
        });
    }
    if lines {
        f.streamlines = Some(crate::streamlines::around_emitters(
            &f,
            opts.streamline_count,
            opts.streamline_length,
        ));
        if !opts.fields.velocity {
            f.velocity = None;
        }
        f.solid = None;
    }
    match opts.up {
        Up::Y => f,
        Up::Z => axes::turn_z_up(&f),
    }
}

impl From<Fields> for Select {
    fn from(f: Fields) -> Select {
        Select {
            density: f.density,
            temperature: f.temperature,
            flame: f.flame,
            fuel: f.fuel,
            velocity: f.velocity,
            solid: f.collision,
            ..Select::default()
        }
    }
}

/// Options shared by the writers.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportOptions {
    /// Formats to write.
    pub formats: Vec<Format>,
    /// Fields to write.
    pub fields: Fields,
    /// Half-precision values in `.vdb` files.
    pub half: bool,
    /// File name prefix.
    pub prefix: String,
    /// `.vdb`: leaves whose values all have magnitude ≤ cutoff are left out.
    pub cutoff: f32,
    /// Solver steps between frames (recorded in the manifest; `--resume` checks it).
    pub every: u32,
    /// `.vtp`: streamlines seeded around the emitters.
    pub streamline_count: usize,
    /// `.vtp`: their longest length, domain units.
    pub streamline_length: f32,
    /// The written volume's up axis: y as simulated, or z for Blender.
    pub up: Up,
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            formats: vec![Format::Vdb],
            fields: Fields::default(),
            half: false,
            prefix: "plume".into(),
            cutoff: 1e-6,
            every: 1,
            streamline_count: 64,
            streamline_length: 1.5,
            up: Up::Y,
        }
    }
}

impl ExportOptions {
    /// Checks the prefix (a plain file-name part) and the cutoff.
    pub fn validate(&self) -> Result<(), ExportError> {
        let p = &self.prefix;
        if p.is_empty()
            || p.len() > 100
            || !p
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        {
            return Err(ExportError::Invalid(format!(
                "prefix '{p}' must be 1 to 100 letters, digits, '_' or '-'"
            )));
        }
        if !(self.cutoff.is_finite() && self.cutoff >= 0.0) {
            return Err(ExportError::Invalid(format!(
                "cutoff {} must be finite and ≥ 0",
                self.cutoff
            )));
        }
        if self.formats.is_empty() {
            return Err(ExportError::Invalid("no format selected".into()));
        }
        if !self.fields.any() {
            return Err(ExportError::Invalid("no field selected".into()));
        }
        if self.streamline_count == 0
            || self.streamline_count > 100_000
            || !(self.streamline_length.is_finite()
                && self.streamline_length > 0.0
                && self.streamline_length <= 100.0)
        {
            return Err(ExportError::Invalid(format!(
                "streamlines: {} of length {} (allowed 1..=100000 lines of length (0, 100])",
                self.streamline_count, self.streamline_length
            )));
        }
        if self.half && !self.formats.contains(&Format::Vdb) {
            return Err(ExportError::Invalid(
                "half precision applies to .vdb files only (.vti and .npy are written as 32-bit \
                 floats): add vdb to the formats or drop --half"
                    .into(),
            ));
        }
        Ok(())
    }

    /// The files of frame `n` (numbered from 1), relative to the output folder.
    pub fn file_names(&self, n: u32) -> Vec<String> {
        self.formats
            .iter()
            .flat_map(|f| f.exporter().file_names(self, n))
            .collect()
    }
}

/// Stages frame `n` in every selected format; returns the file names (nothing is under them
/// until the staging is committed).
pub fn stage_frame(
    stage: &mut crate::atomic::Staging,
    n: u32,
    frame: &Frame,
    opts: &ExportOptions,
) -> Result<Vec<String>, ExportError> {
    let mut names = Vec::new();
    for f in &opts.formats {
        names.extend(f.exporter().write(stage, n, frame, opts)?);
    }
    Ok(names)
}

/// Writes frame `n` in every selected format into `dir` (created if missing), replacing files
/// of the same names; the frame's files appear together once all are complete, or none do.
/// Returns the file names written. (A run writes through [`run::RunWriter`], which never
/// replaces a file it did not write.)
pub fn write_frame(
    dir: &std::path::Path,
    n: u32,
    frame: &Frame,
    opts: &ExportOptions,
) -> Result<Vec<String>, ExportError> {
    folder::prepare_folder(dir)?;
    let mut stage = crate::atomic::Staging::new(dir);
    stage_frame(&mut stage, n, frame, opts)?;
    Ok(stage.commit(crate::atomic::Replace::Yes)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_locked_folder_names_who_holds_it() {
        let e = |pid| {
            ExportError::Locked {
                dir: PathBuf::from("out"),
                pid,
            }
            .to_string()
        };
        let me = std::process::id();
        assert!(e(Some(me)).contains(&format!("by another writer in this process ({me})")));
        assert!(e(Some(me + 1)).contains(&format!("by another plume (process {})", me + 1)));
        assert!(e(None).contains("by another plume (process id unknown)"));
    }
}
