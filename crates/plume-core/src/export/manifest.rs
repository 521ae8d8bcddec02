//! `manifest.json`: what a folder of exported frames holds, for scripts and importers.

use super::{ExportOptions, Format};
use crate::frame::Frame;
use crate::scene::Scene;

fn is_zero(v: &u32) -> bool {
    *v == 0
}

/// Version of the manifest's layout.
pub const FORMAT_VERSION: u32 = 1;

/// One exported frame.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FrameEntry {
    /// Frame number, from 1.
    pub frame: u32,
    /// Solver step after which it was written.
    pub step: u64,
    /// Simulated time, s.
    pub time: f64,
    /// Files, relative to the folder.
    pub files: Vec<String>,
    /// The size in bytes of each file when Plume wrote it, in the order of `files` (empty
    /// in manifests written before this was recorded). `--overwrite` and `--resume` delete
    /// a listed file only while it is still a regular file of that size ([`Manifest::ours`]).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<u64>,
}

impl FrameEntry {
    /// The entry for frame number `frame` holding `f` in `files`.
    pub fn of(frame: u32, f: &Frame, files: Vec<String>) -> Self {
        Self {
            frame,
            step: f.step,
            time: f.time,
            files,
            sizes: Vec::new(),
        }
    }
}

/// The manifest.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Manifest {
    /// Layout version.
    pub format_version: u32,
    /// Program that wrote it.
    pub generator: String,
    /// Grid dimensions `[nx, ny, nz]` of the frames (y up; see `up` for the files): the
    /// simulation's, or its fine grid's with the up-resolution pass (`upres`).
    pub dims: [usize; 3],
    /// Grid dimensions of the frames as the files hold them: `dims` with `up = "y"`,
    /// `[nx, nz, ny]` with `up = "z"` (a `.npy` scalar field's shape is this reversed).
    #[serde(default)]
    pub file_dims: [usize; 3],
    /// Voxel size, domain units.
    pub voxel_size: f32,
    /// World position of the domain's minimum corner (cell (0,0,0) is centred half a voxel in).
    pub origin: [f32; 3],
    /// Time step, s.
    pub dt: f32,
    /// Formats written.
    pub formats: Vec<Format>,
    /// Fields written.
    pub fields: Vec<String>,
    /// `.vdb` values in half precision.
    pub half: bool,
    /// Array layout of the `.npy` files.
    pub npy_layout: String,
    /// File name prefix of the frames.
    #[serde(default)]
    pub prefix: String,
    /// Solver steps between frames (0 in manifests written before this was recorded).
    #[serde(default)]
    pub every: u32,
    /// The files' up axis: `"y"` as simulated, or `"z"` (each frame turned (x, y, z) ↦
    /// (x, −z, y) for Blender; the files' grids are then nx × nz × ny).
    #[serde(default)]
    pub up: super::Up,
    /// The up-resolution factor the frames were written at (0: the simulation's own grid;
    /// `dims` and `voxel_size` are then the fine grid's, the scene's grid the coarse one).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub upres: u32,
    /// The solver backend that simulated the frames: "cpu" or "gpu" (empty in manifests
    /// written before this was recorded).
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub backend: String,
    /// The scene (grid, parameters, boundaries, emitters).
    pub scene: Scene,
    /// Frames written so far.
    pub frames: Vec<FrameEntry>,
    /// The frame being put in place: its files are listed here before the first of them is
    /// renamed into the folder, so every file Plume puts there is listed by the manifest
    /// first (a run killed mid-frame leaves files `--resume` and `--overwrite` can prove are
    /// Plume's). Absent between frames.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pending: Option<FrameEntry>,
}

impl Manifest {
    /// An empty manifest for frames of `scene`'s grid, written with `opts`.
    pub fn new(scene: &Scene, opts: &ExportOptions) -> Self {
        // With the up-resolution pass the frames are on the fine grid.
        let coarse = scene.grid_placement();
        let grid = match scene.detail.enabled {
            true => scene.detail.fine_grid(&coarse).unwrap_or(coarse),
            false => coarse,
        };
        Self {
            format_version: FORMAT_VERSION,
            generator: format!("plume {}", env!("CARGO_PKG_VERSION")),
            dims: grid.dims.as_array(),
            file_dims: {
                let [x, y, z] = grid.dims.as_array();
                match opts.up {
                    super::Up::Y => [x, y, z],
                    super::Up::Z => [x, z, y],
                }
            },
            voxel_size: grid.h,
            origin: grid.origin,
            dt: scene.fluid.dt,
            formats: opts.formats.clone(),
            fields: opts.fields.names().into_iter().map(String::from).collect(),
            half: opts.half,
            npy_layout: "float32, C order: scalar fields (nz, ny, nx), velocity (nz, ny, nx, 3), \
                         of the grid as written"
                .into(),
            prefix: opts.prefix.clone(),
            every: opts.every,
            up: opts.up,
            upres: if scene.detail.enabled {
                scene.detail.factor
            } else {
                0
            },
            backend: String::new(),
            scene: scene.clone(),
            frames: Vec::new(),
            pending: None,
        }
    }

    /// Whether a program calling itself Plume wrote it.
    pub fn is_plumes(&self) -> bool {
        self.generator.starts_with("plume ")
    }

    /// Every file the manifest lists (its frames' and the pending frame's), as plain names
    /// inside the folder; a listed name with a path in it is left out (not ours to touch).
    pub fn listed_files(&self) -> Vec<&str> {
        self.frames
            .iter()
            .chain(&self.pending)
            .flat_map(|e| e.files.iter().map(String::as_str))
            .filter(|f| std::path::Path::new(f).file_name().is_some_and(|n| n == *f))
            .collect()
    }

    /// Records a written frame, its files of `sizes` bytes.
    pub fn push(&mut self, frame: u32, f: &Frame, files: Vec<String>, sizes: Vec<u64>) {
        let mut e = FrameEntry::of(frame, f, files);
        e.sizes = sizes;
        self.frames.push(e);
    }

    /// The listed files ([`Manifest::listed_files`]) that are still what Plume wrote, so
    /// `--overwrite` and `--resume` may delete them: a regular file (not a link) in `dir`
    /// of the size the entry recorded. An entry whose sizes do not match its files one for
    /// one (a manifest written before sizes were recorded, or edited by hand) proves only
    /// the names Plume gives frame files (`plume_0001.vdb`, …); anything else it lists is
    /// left alone.
    pub fn ours(&self, dir: &std::path::Path) -> Vec<&str> {
        let plain = |f: &str| std::path::Path::new(f).file_name().is_some_and(|n| n == f);
        self.frames
            .iter()
            .chain(&self.pending)
            .flat_map(|e| {
                let sized = e.sizes.len() == e.files.len();
                e.files.iter().enumerate().filter_map(move |(i, f)| {
                    let m = std::fs::symlink_metadata(dir.join(f)).ok()?;
                    let ok = plain(f)
                        && m.file_type().is_file()
                        && if sized {
                            m.len() == e.sizes[i]
                        } else {
                            super::formats::frame_number(f).is_some()
                        };
                    ok.then_some(f.as_str())
                })
            })
            .collect()
    }

    /// Writes `manifest.json` into `dir` (atomically).
    pub fn save(&self, dir: &std::path::Path) -> Result<(), super::ExportError> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|e| super::ExportError::Invalid(e.to_string()))?;
        crate::atomic::write_atomic(&dir.join("manifest.json"), |w| w.write_all(text.as_bytes()))?;
        Ok(())
    }
}
