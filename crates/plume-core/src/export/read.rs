//! Reads a run folder back: its `manifest.json` and any frame it lists, as the [`Frame`] that
//! was written (y up, on the grid the manifest names), whatever format holds it. What the
//! command line's `render --run`, the viewer's `--run` and Python's `plume.open_run` read.
//!
//! Only what Plume provably wrote is read: the files a Plume manifest lists, at the size it
//! recorded. A file changed since, cut short or missing is an error naming it, never a
//! misread frame.

use super::manifest::{FrameEntry, Manifest};
use super::{Fields, Format, Up};
use crate::frame::{emitter_marks, Frame};
use crate::sim::{Dims, Grid};
use std::path::{Path, PathBuf};

/// Why a run or one of its frames cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The folder holds no run of Plume's (no folder, no manifest, or one Plume cannot read).
    #[error("{} holds no Plume run: {why}", dir.display())]
    NotARun {
        /// The folder.
        dir: PathBuf,
        /// What is missing or wrong.
        why: String,
    },
    /// The folder holds another run than the one opened (`RunReader::refresh`).
    #[error(
        "the run in {} was replaced since it was opened (its manifest.json changed other \
         than by frames added): open it again",
        dir.display()
    )]
    Replaced {
        /// The folder.
        dir: PathBuf,
    },
    /// The run lists no such frame.
    #[error("the run in {} has no frame {frame}: {has}", dir.display())]
    NoSuchFrame {
        /// The folder.
        dir: PathBuf,
        /// The frame asked for.
        frame: i64,
        /// What it has.
        has: String,
    },
    /// A frame's file is missing, changed since Plume wrote it, or damaged.
    #[error("cannot read {}: {why}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        why: String,
    },
    /// Not enough memory for the frame's fields.
    #[error("not enough memory to read {what}")]
    Memory {
        /// What was being read.
        what: String,
    },
}

/// The formats a frame is read from, best first: `.npy` and `.vti` hold every cell exactly;
/// `.vdb` leaves out what its cutoff dropped, and may be half precision.
const READ_ORDER: [Format; 3] = [Format::Npy, Format::Vti, Format::Vdb];

/// A run folder opened for reading.
#[derive(Clone, Debug)]
pub struct RunReader {
    dir: PathBuf,
    manifest: Manifest,
    /// The format frames are read from.
    format: Format,
}

impl RunReader {
    /// Opens the run in `dir`: reads and checks its manifest (no frame is read yet).
    pub fn open(dir: &Path) -> Result<Self, ReadError> {
        let not = |why: String| ReadError::NotARun {
            dir: dir.to_path_buf(),
            why,
        };
        if !dir.is_dir() {
            return Err(not(match dir.exists() {
                true => "it is not a folder".into(),
                false => "there is no such folder".into(),
            }));
        }
        let path = dir.join("manifest.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(not("there is no manifest.json in it".into()))
            }
            Err(e) => return Err(not(format!("its manifest.json cannot be read ({e})"))),
        };
        let manifest: Manifest = serde_json::from_str(&text)
            .map_err(|e| not(format!("its manifest.json does not read as Plume's ({e})")))?;
        if !manifest.is_plumes() {
            return Err(not(format!(
                "its manifest.json was written by '{}', not by Plume",
                manifest.generator
            )));
        }
        if manifest.format_version > super::manifest::FORMAT_VERSION {
            return Err(not(format!(
                "its manifest.json is of layout {}, newer than this Plume reads ({}): \
                 update Plume",
                manifest.format_version,
                super::manifest::FORMAT_VERSION
            )));
        }
        let d = manifest.dims;
        let sane = d.iter().all(|&n| (1..=1 << 14).contains(&n))
            && d.iter().map(|&n| n as u64).product::<u64>() <= 1 << 32
            && manifest.voxel_size.is_finite()
            && manifest.voxel_size > 0.0
            && manifest.origin.iter().all(|c| c.is_finite());
        if !sane {
            return Err(not(format!(
                "its manifest.json names an impossible grid ({d:?} cells of {} units at {:?})",
                manifest.voxel_size, manifest.origin
            )));
        }
        let Some(format) = READ_ORDER
            .into_iter()
            .find(|f| manifest.formats.contains(f))
        else {
            return Err(not(
                "its frames are streamlines only (.vtp), which hold no volume".into(),
            ));
        };
        Ok(Self {
            dir: dir.to_path_buf(),
            manifest,
            format,
        })
    }

    /// Reads the manifest again, for a run still being written: the frames listed since it
    /// was opened (or last refreshed) join it; returns how many. Where the folder now holds
    /// another run (its grid, formats, fields or prefix changed, or a frame it listed is
    /// gone or different: an `--overwrite` since) it is refused and this reader stays as
    /// it was.
    pub fn refresh(&mut self) -> Result<usize, ReadError> {
        let now = Self::open(&self.dir)?;
        let (was, is) = (&self.manifest, &now.manifest);
        let kept =
            is.frames.len() >= was.frames.len() && is.frames[..was.frames.len()] == was.frames[..];
        let same = was.dims == is.dims
            && was.formats == is.formats
            && was.fields == is.fields
            && was.prefix == is.prefix
            && was.half == is.half
            && was.up == is.up;
        if !(kept && same) {
            return Err(ReadError::Replaced {
                dir: self.dir.clone(),
            });
        }
        let added = is.frames.len() - was.frames.len();
        *self = now;
        Ok(added)
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The manifest: the scene, the grid, the formats and fields, the frames listed.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// The format frames are read from (`.npy`, else `.vti`, else `.vdb`).
    pub fn format(&self) -> Format {
        self.format
    }

    /// The frames listed, in order.
    pub fn frames(&self) -> &[FrameEntry] {
        &self.manifest.frames
    }

    /// The fields the run wrote.
    pub fn fields(&self) -> Fields {
        let mut f = Fields::NONE;
        for n in &self.manifest.fields {
            f.set(n, true);
        }
        f
    }

    /// The grid of the frames as simulated (y up).
    pub fn grid(&self) -> Grid {
        let [nx, ny, nz] = self.manifest.dims;
        Grid {
            dims: Dims::new(nx, ny, nz),
            h: self.manifest.voxel_size,
            origin: self.manifest.origin,
        }
    }

    /// The index into [`RunReader::frames`] of frame number `frame` (as files and the
    /// manifest number them, from 1); a negative number counts from the end (−1 the last).
    pub fn index_of(&self, frame: i64) -> Result<usize, ReadError> {
        let frames = &self.manifest.frames;
        let found = match frame < 0 {
            true => frames.len().checked_sub(frame.unsigned_abs() as usize),
            false => frames.iter().position(|e| i64::from(e.frame) == frame),
        };
        found.ok_or_else(|| ReadError::NoSuchFrame {
            dir: self.dir.clone(),
            frame,
            has: match (frames.first(), frames.last()) {
                (Some(a), Some(b)) => format!(
                    "it lists {} frame{}, numbered {} to {}",
                    frames.len(),
                    if frames.len() == 1 { "" } else { "s" },
                    a.frame,
                    b.frame
                ),
                _ => "it lists no frame yet".into(),
            },
        })
    }

    /// Reads the frame at `index` of [`RunReader::frames`]: of `want`'s fields those the run
    /// wrote (the others are `None`), turned back to y up, on [`RunReader::grid`]; the
    /// collision field also gives the frame's solid cells.
    pub fn read(&self, index: usize, want: Fields) -> Result<Frame, ReadError> {
        let entry = self
            .manifest
            .frames
            .get(index)
            .ok_or_else(|| ReadError::NoSuchFrame {
                dir: self.dir.clone(),
                frame: index as i64 + 1,
                has: format!("it lists {} frames", self.manifest.frames.len()),
            })?;
        let grid = self.grid();
        // The grid as the files hold it.
        let file_grid = match self.manifest.up {
            Up::Y => grid,
            Up::Z => super::axes::z_up_grid(grid),
        };
        let mut f = Frame::empty(file_grid, entry.step, entry.time);
        let have = self.fields();
        let names: Vec<&str> = Fields::NAMES
            .into_iter()
            .filter(|n| want.has(n) && have.has(n))
            .collect();
        let cells = file_grid.dims.cells();
        // A .vti or .vdb file holds every field: read (and decode) it once.
        let whole = match (self.format, names.first()) {
            (Format::Vti | Format::Vdb, Some(first)) => {
                let name = self.name(entry, first);
                Some((self.file(entry, &name)?, self.dir.join(name)))
            }
            _ => None,
        };
        let mut grids = match (&whole, self.format) {
            (Some((bytes, path)), Format::Vdb) => {
                super::vdb_read::decode(bytes, file_grid.dims.as_array(), &|g| names.contains(&g))
                    .map_err(|why| ReadError::File {
                    path: path.clone(),
                    why,
                })?
            }
            _ => Vec::new(),
        };
        let mut read = |name: &str, components: usize| -> Result<Vec<f32>, ReadError> {
            let v = match (&whole, self.format) {
                (Some((bytes, path)), Format::Vti) => {
                    super::vti::read_array(bytes, name, components, cells).map_err(|why| {
                        ReadError::File {
                            path: path.clone(),
                            why,
                        }
                    })
                }
                (Some((_, path)), Format::Vdb) => {
                    let bad = |why: String| ReadError::File {
                        path: path.clone(),
                        why,
                    };
                    match grids.iter().position(|g| g.name == name) {
                        Some(i) if grids[i].components == components => {
                            Ok(grids.swap_remove(i).values)
                        }
                        Some(i) => Err(bad(format!(
                            "its grid '{name}' has {} components, not {components}",
                            grids[i].components
                        ))),
                        None => Err(bad(format!("it has no grid '{name}'"))),
                    }
                }
                _ => self.npy(entry, name, components, file_grid.dims),
            }?;
            // Plume never writes a value that is not finite (a step that makes one fails).
            match v.iter().position(|x| !x.is_finite()) {
                None => Ok(v),
                Some(at) => Err(ReadError::File {
                    path: self.dir.join(self.name(entry, name)),
                    why: format!(
                        "its {name} holds {} at cell {}: it is damaged (Plume writes only \
                         finite values)",
                        v[at],
                        at / components
                    ),
                }),
            }
        };
        for name in names {
            if name == "velocity" {
                let v = read(name, 3)?;
                f.velocity = Some(v.chunks_exact(3).map(|c| [c[0], c[1], c[2]]).collect());
                continue;
            }
            let v = Some(read(name, 1)?);
            match name {
                "density" => f.density = v,
                "temperature" => f.temperature = v,
                "flame" => f.flame = v,
                "fuel" => f.fuel = v,
                _ => f.collision = v,
            }
        }
        f.solid = f
            .collision
            .as_ref()
            .map(|c| c.iter().map(|&x| u8::from(x > 0.5)).collect());
        let mut f = match self.manifest.up {
            Up::Y => f,
            Up::Z => super::axes::turn_y_up(&f),
        };
        f.grid = grid;
        f.emitters = emitter_marks(&self.manifest.scene.emitters);
        Ok(f)
    }

    /// The bytes of the file of `entry` called `name`, checked against the manifest.
    fn file(&self, entry: &FrameEntry, name: &str) -> Result<Vec<u8>, ReadError> {
        let path = self.dir.join(name);
        let bad = |why: String| ReadError::File {
            path: path.clone(),
            why,
        };
        let Some(i) = entry.files.iter().position(|f| f == name) else {
            return Err(bad(format!(
                "the manifest does not list it for frame {}",
                entry.frame
            )));
        };
        let meta = match std::fs::symlink_metadata(&path) {
            Ok(m) => m,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(bad("it is missing (the manifest lists it)".into()))
            }
            Err(e) => return Err(bad(e.to_string())),
        };
        if !meta.file_type().is_file() {
            return Err(bad("it is not a regular file".into()));
        }
        if let Some(&size) = entry
            .sizes
            .get(i)
            .filter(|_| entry.sizes.len() == entry.files.len())
        {
            if meta.len() != size {
                return Err(bad(format!(
                    "it has changed since Plume wrote it ({} bytes, written as {size})",
                    meta.len()
                )));
            }
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(meta.len() as usize)
            .map_err(|_| ReadError::Memory {
                what: path.display().to_string(),
            })?;
        use std::io::Read;
        std::fs::File::open(&path)
            .and_then(|mut f| f.read_to_end(&mut bytes))
            .map_err(|e| bad(e.to_string()))?;
        Ok(bytes)
    }

    /// The file of `entry` holding `field` in the format read: the name the exporter gives it.
    fn name(&self, entry: &FrameEntry, field: &str) -> String {
        let p = &self.manifest.prefix;
        let opts = super::ExportOptions {
            formats: vec![self.format],
            fields: self.fields(),
            prefix: if p.is_empty() {
                "plume".into()
            } else {
                p.clone()
            },
            ..super::ExportOptions::default()
        };
        let names = self.format.exporter().file_names(&opts, entry.frame);
        match self.format {
            // A file a field, in the order of the fields' names.
            Format::Npy => opts
                .fields
                .names()
                .into_iter()
                .zip(names)
                .find(|(f, _)| *f == field)
                .map(|(_, n)| n)
                .unwrap_or_default(),
            _ => names.into_iter().next().unwrap_or_default(),
        }
    }

    fn npy(
        &self,
        e: &FrameEntry,
        field: &str,
        comp: usize,
        d: Dims,
    ) -> Result<Vec<f32>, ReadError> {
        let name = self.name(e, field);
        let bytes = self.file(e, &name)?;
        let mut shape = vec![d.nz, d.ny, d.nx];
        if comp == 3 {
            shape.push(3);
        }
        super::npy::read_f32(&bytes, &shape).map_err(|why| ReadError::File {
            path: self.dir.join(&name),
            why,
        })
    }
}
