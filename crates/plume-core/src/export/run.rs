//! One run's output: frames written into a folder, one after another, with `manifest.json`
//! rewritten after each so it always lists what is complete. Both `plume run` and the
//! viewer's recorder write through this.

use super::manifest::Manifest;
use super::{write_frame, ExportError, ExportOptions};
use crate::frame::Frame;
use crate::scene::Scene;
use std::path::{Path, PathBuf};

/// Writes numbered frames and the manifest into one folder.
pub struct RunWriter {
    dir: PathBuf,
    opts: ExportOptions,
    manifest: Manifest,
    next: u32,
}

impl RunWriter {
    /// A writer into `dir` whose first frame is numbered `first` (from 1).
    pub fn new(dir: &Path, scene: &Scene, opts: &ExportOptions, first: u32) -> Self {
        Self {
            dir: dir.to_path_buf(),
            opts: opts.clone(),
            manifest: Manifest::new(scene, opts),
            next: first.max(1),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The options frames are written with.
    pub fn options(&self) -> &ExportOptions {
        &self.opts
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
