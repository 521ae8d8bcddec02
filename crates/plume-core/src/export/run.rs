//! One run's output: frames written into a folder, one after another, with `manifest.json`
//! rewritten after each so it always lists exactly the complete frames on disk. Both
//! `plume run` and the viewer's recorder write through this.
//!
//! A run owns its folder: it holds the folder's lock while it writes (a second writer is
//! refused, naming the process), removes the temporaries an interrupted writer left, writes
//! its manifest before its first frame, and refuses a folder that holds another run unless
//! told to replace that run ([`Existing::Overwrite`]: exactly the files its manifest lists are
//! removed first) or to continue it ([`Existing::Resume`]: the same scene, grid and export
//! options, checked against the manifest; frames it lists whose files are all present are
//! kept, the files it lists for later ones removed). Plume removes and replaces only files a
//! Plume manifest lists: a folder with files named like frames and no manifest is refused
//! whatever the flags, and a frame never lands over a file that is already there.

use super::folder::{self, FolderLock, Found};
use super::manifest::{FrameEntry, Manifest};
use super::{stage_frame, ExportError, ExportOptions};
use crate::atomic::{Replace, Staging};
use crate::frame::Frame;
use crate::scene::Scene;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

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
    stop: Option<&'static AtomicBool>,
    _lock: FolderLock,
}

impl RunWriter {
    /// Opens `dir` for a run of `scene` written with `opts`: creates and locks it, removes
    /// stale temporaries, deals with an earlier run as `existing` says, and writes the new
    /// run's manifest before any frame (so the folder is provably the run's from the start).
    ///
    /// Files named like frames that no Plume manifest lists are never removed or replaced: a
    /// folder holding them without a manifest is refused whatever `existing` says.
    pub fn create(
        dir: &Path,
        scene: &Scene,
        opts: &ExportOptions,
        existing: Existing,
    ) -> Result<(Self, Start), ExportError> {
        Self::create_for(dir, scene, opts, existing, None)
    }

    /// [`RunWriter::create`] for a run that will write frames up to `last`: files already in
    /// the folder under names those frames take, and that no manifest lists (so they are not
    /// Plume's), are refused up front, before anything in the folder changes — not when the
    /// run reaches them.
    pub fn create_for(
        dir: &Path,
        scene: &Scene,
        opts: &ExportOptions,
        existing: Existing,
        last: Option<u32>,
    ) -> Result<(Self, Start), ExportError> {
        Self::create_from(dir, scene, opts, existing, last, "")
    }

    /// [`RunWriter::create_for`] naming the solver backend that makes the frames in the
    /// manifest from its first write (`""`: not recorded).
    pub fn create_from(
        dir: &Path,
        scene: &Scene,
        opts: &ExportOptions,
        existing: Existing,
        last: Option<u32>,
        backend: &str,
    ) -> Result<(Self, Start), ExportError> {
        folder::prepare_folder(dir)?;
        let lock = FolderLock::acquire(dir)?;
        let temporaries_removed = folder::remove_stale_temporaries(dir)?.len();
        let found = folder::scan(dir)?;
        let mut manifest = Manifest::new(scene, opts);
        manifest.backend = backend.to_string();
        let mut start = Start {
            temporaries_removed,
            ..Start::default()
        };
        let not_ours = || ExportError::NotOurs {
            dir: dir.to_path_buf(),
            found: found.describe(),
        };
        if let Some(last) = last {
            let taken: Vec<String> = found
                .unlisted()
                .into_iter()
                .filter(|f| {
                    super::formats::frame_number(f)
                        .is_some_and(|n| n >= 1 && n <= last && opts.file_names(n).contains(f))
                })
                .cloned()
                .collect();
            if !taken.is_empty() {
                return Err(ExportError::NamesTaken {
                    dir: dir.to_path_buf(),
                    files: taken,
                });
            }
        }
        match (&found.manifest, existing) {
            (None, _) if found.frames.is_empty() => manifest.save(dir)?,
            (None, _) => return Err(not_ours()),
            (Some(Ok(m)), _) if !m.is_plumes() => return Err(not_ours()),
            (Some(_), Existing::Refuse) => {
                return Err(ExportError::FolderInUse {
                    dir: dir.to_path_buf(),
                    found: found.describe(),
                })
            }
            (Some(Err(_)), Existing::Overwrite) => return Err(not_ours()),
            (Some(Ok(old)), Existing::Overwrite) => {
                folder::remove_run(dir, old)?;
                manifest.save(dir)?;
            }
            (Some(_), Existing::Resume) => {
                let old = resumable(dir, &found, &manifest)?;
                let (frames, step) = keep_complete(dir, old, &mut manifest)?;
                start.frames = frames;
                start.step = step;
            }
        }
        Ok((
            Self {
                dir: dir.to_path_buf(),
                opts: opts.clone(),
                manifest,
                next: start.frames + 1,
                stop: None,
                _lock: lock,
            },
            start,
        ))
    }

    /// A flag that, once set (by a signal handler), makes a frame being written be discarded
    /// with [`ExportError::Stopped`] instead of put in place.
    pub fn set_stop(&mut self, flag: &'static AtomicBool) {
        self.stop = Some(flag);
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

    /// Writes the next frame and the updated manifest; returns its number and files.
    ///
    /// A frame lands whole or not at all: its files are written as temporaries, listed in the
    /// manifest as pending, renamed into place (never over a file already there), then the
    /// manifest lists the frame. On any error the frame's temporaries and the files already
    /// renamed are removed, the number is not used up, and the manifest lists only complete
    /// frames; the error ([`ExportError::Frame`]) names the frame.
    pub fn write(&mut self, frame: &Frame) -> Result<(u32, Vec<String>), ExportError> {
        let n = self.next;
        let files = self.put(n, frame).map_err(|e| ExportError::Frame {
            dir: self.dir.clone(),
            frame: n,
            source: Box::new(e),
        })?;
        self.next += 1;
        Ok((n, files))
    }

    fn put(&mut self, n: u32, frame: &Frame) -> Result<Vec<String>, ExportError> {
        let mut stage = Staging::new(&self.dir);
        let names = stage_frame(&mut stage, n, frame, &self.opts)?;
        if self.stop.as_ref().is_some_and(|s| s.load(Ordering::SeqCst)) {
            return Err(ExportError::Stopped);
        }
        let sizes = stage.sizes();
        let mut pending = FrameEntry::of(n, frame, names);
        pending.sizes = sizes.clone();
        self.manifest.pending = Some(pending);
        if let Err(e) = self.manifest.save(&self.dir) {
            self.manifest.pending = None;
            return Err(e);
        }
        let placed = match stage.commit(Replace::No) {
            Ok(p) => p,
            Err(e) => {
                self.manifest.pending = None;
                let _ = self.manifest.save(&self.dir);
                return Err(e.into());
            }
        };
        self.manifest.pending = None;
        self.manifest.push(n, frame, placed.clone(), sizes);
        if let Err(e) = self.manifest.save(&self.dir) {
            self.manifest.frames.pop();
            for f in &placed {
                let _ = std::fs::remove_file(self.dir.join(f));
            }
            // Best effort: where even this fails, the manifest on disk still names the frame
            // as pending (its files gone), which --resume and --overwrite clear.
            let _ = self.manifest.save(&self.dir);
            return Err(e);
        }
        Ok(placed)
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
/// gap), removes the files `old` lists for every later frame and for the frame it was putting
/// in place (files it does not list stay, whatever their names), and makes `manifest` list
/// the kept frames. Returns their count and the step of the last.
fn keep_complete(
    dir: &Path,
    old: Manifest,
    manifest: &mut Manifest,
) -> Result<(u32, u64), ExportError> {
    // Only what is still Plume's own may go (see `Manifest::ours`).
    let listed: Vec<String> = old.ours(dir).into_iter().map(String::from).collect();
    let mut kept = Vec::new();
    for (i, e) in old.frames.into_iter().enumerate() {
        let complete = e.frame as usize == i + 1
            && e.files.iter().all(|f| {
                std::fs::symlink_metadata(dir.join(f)).is_ok_and(|m| m.file_type().is_file())
            });
        if !complete {
            break;
        }
        kept.push(e);
    }
    let keep: std::collections::HashSet<&str> = kept
        .iter()
        .flat_map(|e| e.files.iter().map(String::as_str))
        .collect();
    for f in listed.iter().filter(|f| !keep.contains(f.as_str())) {
        match std::fs::remove_file(dir.join(f)) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => {
                return Err(ExportError::Folder {
                    path: dir.join(f),
                    source,
                })
            }
        }
    }
    let frames = kept.len() as u32;
    let step = kept.last().map_or(0, |e| e.step);
    manifest.frames = kept;
    manifest.save(dir)?;
    Ok((frames, step))
}
