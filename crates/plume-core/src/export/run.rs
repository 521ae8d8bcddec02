//! One run's output: frames written into a folder, one after another, with `manifest.json`
//! rewritten after each so it always lists exactly the complete frames on disk. Both
//! `plume run` and the viewer's recorder write through this.
//!
//! A run owns its folder: it holds the folder's lock while it writes (a second writer is
//! refused, naming the process), removes the temporaries an interrupted writer left, and
//! refuses a folder that holds another run's manifest or frames unless told to replace that
//! run ([`Existing::Overwrite`]: exactly its files are removed first) or to continue it
//! ([`Existing::Resume`]: the same scene, grid and export options, checked against the
//! manifest; frames it lists whose files are all present are kept, later ones removed).

use super::folder::{self, FolderLock, Found};
use super::manifest::Manifest;
use super::{write_frame, ExportError, ExportOptions};
use crate::frame::Frame;
use crate::scene::Scene;
use std::path::{Path, PathBuf};

/// What to do when the folder already holds a run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Existing {
    /// Refuse, naming what is there.
    #[default]
    Refuse,
    /// Remove that run's files, then start at frame 1.
    Overwrite,
    /// Continue it after its last complete frame.
    Resume,
}

/// Where a run starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Start {
    /// Complete frames already in the folder (0 for a new run).
    pub frames: u32,
    /// The solver step the last of them was written after (0 for a new run).
    pub step: u64,
    /// Stale temporaries removed.
    pub temporaries_removed: usize,
}

/// Writes numbered frames and the manifest into one folder, holding its lock.
#[derive(Debug)]
pub struct RunWriter {
    dir: PathBuf,
    opts: ExportOptions,
    manifest: Manifest,
    next: u32,
    _lock: FolderLock,
}

impl RunWriter {
    /// Opens `dir` for a run of `scene` written with `opts`: creates and locks it, removes
    /// stale temporaries, and deals with an earlier run as `existing` says.
    pub fn create(
        dir: &Path,
        scene: &Scene,
        opts: &ExportOptions,
        existing: Existing,
    ) -> Result<(Self, Start), ExportError> {
        folder::prepare_folder(dir)?;
        let lock = FolderLock::acquire(dir)?;
        let temporaries_removed = folder::remove_stale_temporaries(dir)?.len();
        let found = folder::scan(dir)?;
        let mut manifest = Manifest::new(scene, opts);
        let mut start = Start {
            temporaries_removed,
            ..Start::default()
        };
        if !found.is_empty() {
            match existing {
                Existing::Refuse => {
                    return Err(ExportError::FolderInUse {
                        dir: dir.to_path_buf(),
                        found: found.describe(),
                    })
                }
                Existing::Overwrite => folder::remove_run(dir, &found)?,
                Existing::Resume => {
                    let old = resumable(dir, &found, &manifest)?;
                    let (frames, step) = keep_complete(dir, &found, old, &mut manifest)?;
                    start.frames = frames;
                    start.step = step;
                }
            }
        }
        Ok((
            Self {
                dir: dir.to_path_buf(),
                opts: opts.clone(),
                manifest,
                next: start.frames + 1,
                _lock: lock,
            },
            start,
        ))
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The options frames are written with.
    pub fn options(&self) -> &ExportOptions {
        &self.opts
    }

    /// Frames the manifest lists.
    pub fn frames(&self) -> u32 {
        self.next - 1
    }

    /// Writes the next frame and the updated manifest; returns its number and files. On
    /// error the number is not used up and the manifest on disk still lists only complete
    /// frames.
    pub fn write(&mut self, frame: &Frame) -> Result<(u32, Vec<String>), ExportError> {
        let n = self.next;
        let files = write_frame(&self.dir, n, frame, &self.opts)?;
        self.manifest.push(n, frame, files.clone());
        if let Err(e) = self.manifest.save(&self.dir) {
            self.manifest.frames.pop();
            return Err(e);
        }
        self.next += 1;
        Ok((n, files))
    }
}

/// The earlier run's manifest, if this run may continue it.
fn resumable(dir: &Path, found: &Found, new: &Manifest) -> Result<Manifest, ExportError> {
    let bad = |why: String| ExportError::Incompatible {
        dir: dir.to_path_buf(),
        why,
    };
    let old = match &found.manifest {
        Some(Ok(m)) => m.clone(),
        Some(Err(e)) => return Err(bad(format!("its manifest.json cannot be read ({e})"))),
        None => {
            return Err(bad(
                "it holds frame files but no manifest.json to say what they are".into(),
            ))
        }
    };
    if old.dims != new.dims {
        return Err(bad(format!(
            "its grid is {}×{}×{}, this run's {}×{}×{}",
            old.dims[0], old.dims[1], old.dims[2], new.dims[0], new.dims[1], new.dims[2]
        )));
    }
    if old.scene != new.scene {
        return Err(bad(format!(
            "it was made from scene '{}' with other settings (same file and flags needed)",
            old.scene.name
        )));
    }
    if old.formats != new.formats || old.fields != new.fields || old.half != new.half {
        return Err(bad(format!(
            "it was written as {} with {}{}, this run asks for {} with {}{}",
            names(&old.formats),
            old.fields.join(","),
            if old.half { " (half)" } else { "" },
            names(&new.formats),
            new.fields.join(","),
            if new.half { " (half)" } else { "" },
        )));
    }
    if old.every != new.every || old.prefix != new.prefix {
        return Err(bad(format!(
            "it wrote every {} step(s) as '{}_…', this run every {} as '{}_…'",
            old.every, old.prefix, new.every, new.prefix
        )));
    }
    if old.up != new.up {
        return Err(bad(format!(
            "it was written {}-up, this run asks for {}-up",
            old.up.name(),
            new.up.name()
        )));
    }
    Ok(old)
}

fn names(f: &[super::Format]) -> String {
    f.iter().map(|f| f.ext()).collect::<Vec<_>>().join(",")
}

/// Keeps the leading frames of `old` whose files are all present (numbered 1, 2, … without a
/// gap), removes every other frame file, and makes `manifest` list the kept ones. Returns
/// their count and the step of the last.
fn keep_complete(
    dir: &Path,
    found: &Found,
    old: Manifest,
    manifest: &mut Manifest,
) -> Result<(u32, u64), ExportError> {
    let mut kept = Vec::new();
    for (i, e) in old.frames.into_iter().enumerate() {
        let complete = e.frame as usize == i + 1 && e.files.iter().all(|f| dir.join(f).is_file());
        if !complete {
            break;
        }
        kept.push(e);
    }
    let keep: std::collections::HashSet<&str> = kept
        .iter()
        .flat_map(|e| e.files.iter().map(String::as_str))
        .collect();
    for f in &found.frames {
        if !keep.contains(f.as_str()) {
            std::fs::remove_file(dir.join(f)).map_err(|source| ExportError::Folder {
                path: dir.join(f),
                source,
            })?;
        }
    }
    let frames = kept.len() as u32;
    let step = kept.last().map_or(0, |e| e.step);
    manifest.frames = kept;
    manifest.save(dir)?;
    Ok((frames, step))
}
