//! What a file format's writer is: the trait each format's exporter implements (its own file,
//! `vdb.rs`, `vti.rs`, ...) and the common case of writing one file a frame. The registry of
//! formats (`formats.rs`) lists the exporters.

use super::{ExportError, ExportOptions};
use crate::atomic::Staging;
use crate::frame::Frame;

/// Writes frames in one format.
pub trait Exporter: Sync {
    /// The file extension, also the format's name on the command line and in the manifest.
    fn ext(&self) -> &'static str;
    /// A few words for help texts: what the format is and who reads it.
    fn about(&self) -> &'static str;
    /// The files frame `n` (from 1) is written to, relative to the output folder.
    fn file_names(&self, opts: &ExportOptions, n: u32) -> Vec<String> {
        vec![format!("{}_{n:04}.{}", opts.prefix, self.ext())]
    }
    /// Stages frame `n`'s files in `stage` (temporaries in the output folder, renamed into
    /// place only when the whole frame is complete); returns their names.
    fn write(
        &self,
        stage: &mut Staging,
        n: u32,
        frame: &Frame,
        opts: &ExportOptions,
    ) -> Result<Vec<String>, ExportError>;
}

/// Stages frame `n` as the one file `<prefix>_<n:04>.<ext>` through `fill`; returns its name
/// (the common case of [`Exporter::write`]).
pub fn write_single(
    stage: &mut Staging,
    opts: &ExportOptions,
    n: u32,
    ext: &str,
    fill: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> Result<Vec<String>, ExportError> {
    let name = format!("{}_{n:04}.{ext}", opts.prefix);
    stage.stage(&name, fill)?;
    Ok(vec![name])
}
