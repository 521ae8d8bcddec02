//! Export of volume frames to files other tools open: OpenVDB (Blender, Houdini), VTK XML
//! image data (ParaView) and NumPy arrays (Python). No GL in here.
//!
//! Every file is written atomically (`writer.rs`): under a temporary name in the target
//! folder, renamed when complete, so a failed or interrupted write never leaves a broken file
//! under the final name.

pub mod folder;
pub mod manifest;
pub mod npy;
pub mod recorder;
pub mod vdb;
pub mod vti;

use crate::sim::{Dims, Solver};
use rayon::prelude::*;
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
}

/// A file format.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Format {
    /// OpenVDB `.vdb`.
    Vdb,
    /// VTK XML image data `.vti`.
    Vti,
    /// NumPy `.npy` (one file per field).
    Npy,
}

impl Format {
    /// All formats.
    pub const ALL: [Format; 3] = [Format::Vdb, Format::Vti, Format::Npy];
    /// File extension.
    pub fn ext(self) -> &'static str {
        match self {
            Format::Vdb => "vdb",
            Format::Vti => "vti",
            Format::Npy => "npy",
        }
    }
    /// Parses a comma-separated list like `vdb,vti`.
    pub fn parse_list(s: &str) -> Result<Vec<Format>, String> {
        let mut out = Vec::new();
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let f = match part.to_ascii_lowercase().as_str() {
                "vdb" => Format::Vdb,
                "vti" => Format::Vti,
                "npy" => Format::Npy,
                _ => {
                    return Err(format!(
                        "unknown format '{part}' (choose from vdb, vti, npy)"
                    ))
                }
            };
            if !out.contains(&f) {
                out.push(f);
            }
        }
        if out.is_empty() {
            return Err("no format given (choose from vdb, vti, npy)".into());
        }
        Ok(out)
    }
}

/// Which fields go into the files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Fields {
    /// The density grid.
    pub density: bool,
    /// The velocity grid (sampled at cell centres).
    pub velocity: bool,
}

impl Default for Fields {
    fn default() -> Self {
        Self {
            density: true,
            velocity: true,
        }
    }
}

impl Fields {
    /// Parses `density,velocity`.
    pub fn parse_list(s: &str) -> Result<Fields, String> {
        let mut f = Fields {
            density: false,
            velocity: false,
        };
        for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            match part.to_ascii_lowercase().as_str() {
                "density" => f.density = true,
                "velocity" => f.velocity = true,
                _ => {
                    return Err(format!(
                        "unknown field '{part}' (choose from density, velocity)"
                    ))
                }
            }
        }
        if !(f.density || f.velocity) {
            return Err("no field given (choose from density, velocity)".into());
        }
        Ok(f)
    }

    /// Names of the selected fields.
    pub fn names(&self) -> Vec<&'static str> {
        let mut v = Vec::new();
        if self.density {
            v.push("density");
        }
        if self.velocity {
            v.push("velocity");
        }
        v
    }
}

/// One frame's data, owned, ready to write (also what the viewer's writer thread receives).
#[derive(Clone, Debug)]
pub struct VolumeFrame {
    /// Cell counts.
    pub dims: Dims,
    /// Voxel size.
    pub h: f32,
    /// World position of the domain's minimum corner.
    pub origin: [f32; 3],
    /// Density at cell centres (x-fastest), if exported.
    pub density: Option<Vec<f32>>,
    /// Velocity at cell centres (x-fastest), if exported.
    pub velocity: Option<Vec<[f32; 3]>>,
    /// Solver step count.
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
}

impl VolumeFrame {
    /// Copies the selected fields out of a solver.
    pub fn capture(s: &Solver, fields: Fields) -> Self {
        let g = s.grid();
        Self {
            dims: g.dims,
            h: g.h,
            origin: g.origin,
            density: fields.density.then(|| s.density().to_vec()),
            velocity: fields.velocity.then(|| cell_velocities(s)),
            step: s.steps(),
            time: s.time(),
        }
    }
}

/// Velocity at every cell centre (mean of the two faces on each axis), x-fastest.
pub fn cell_velocities(s: &Solver) -> Vec<[f32; 3]> {
    let d = s.dims();
    let mut out = vec![[0.0f32; 3]; d.cells()];
    out.par_chunks_mut(d.nx * d.ny)
        .enumerate()
        .for_each(|(k, plane)| {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    plane[i + d.nx * j] = s.velocity_at_cell(i, j, k);
                }
            }
        });
    out
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
}

impl Default for ExportOptions {
    fn default() -> Self {
        Self {
            formats: vec![Format::Vdb],
            fields: Fields::default(),
            half: false,
            prefix: "plume".into(),
            cutoff: 1e-6,
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
        if !(self.fields.density || self.fields.velocity) {
            return Err(ExportError::Invalid("no field selected".into()));
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
        let mut v = Vec::new();
        for f in &self.formats {
            match f {
                Format::Npy => {
                    for field in self.fields.names() {
                        v.push(format!("{}_{field}_{n:04}.npy", self.prefix));
                    }
                }
                _ => v.push(format!("{}_{n:04}.{}", self.prefix, f.ext())),
            }
        }
        v
    }
}

/// Writes frame `n` in every selected format into `dir`; returns the file names written.
pub fn write_frame(
    dir: &std::path::Path,
    n: u32,
    frame: &VolumeFrame,
    opts: &ExportOptions,
) -> Result<Vec<String>, ExportError> {
    let mut written = Vec::new();
    for f in &opts.formats {
        match f {
            Format::Vdb => {
                let name = format!("{}_{n:04}.vdb", opts.prefix);
                let vo = vdb::VdbOptions {
                    half: opts.half,
                    cutoff: opts.cutoff,
                    index_offset: [0; 3],
                };
                let bytes = vdb::encode(frame, &vo);
                crate::atomic::write_atomic(&dir.join(&name), |w| {
                    std::io::Write::write_all(w, &bytes)
                })?;
                written.push(name);
            }
            Format::Vti => {
                let name = format!("{}_{n:04}.vti", opts.prefix);
                crate::atomic::write_atomic(&dir.join(&name), |w| vti::write(w, frame))?;
                written.push(name);
            }
            Format::Npy => {
                let shape = [frame.dims.nz, frame.dims.ny, frame.dims.nx];
                if let Some(d) = &frame.density {
                    let name = format!("{}_density_{n:04}.npy", opts.prefix);
                    crate::atomic::write_atomic(&dir.join(&name), |w| {
                        npy::write_f32(w, &shape, d)
                    })?;
                    written.push(name);
                }
                if let Some(v) = &frame.velocity {
                    let name = format!("{}_velocity_{n:04}.npy", opts.prefix);
                    let flat: &[f32] = v.as_flattened();
                    crate::atomic::write_atomic(&dir.join(&name), |w| {
                        npy::write_f32(w, &[shape[0], shape[1], shape[2], 3], flat)
                    })?;
                    written.push(name);
                }
            }
        }
    }
    Ok(written)
}
