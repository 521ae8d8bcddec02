//! Atomic file writes: a temporary file in the target folder, renamed over the final name
//! only when everything was written and synced.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static COUNTER: AtomicU64 = AtomicU64::new(0);

/// A file could not be written; nothing was left under its name.
#[derive(Debug, thiserror::Error)]
#[error("cannot write {}", path.display())]
pub struct WriteError {
    /// The final file name.
    pub path: PathBuf,
    /// The cause.
    #[source]
    pub source: std::io::Error,
}

/// The temporary name used while writing `path`.
pub(crate) fn temp_name(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    path.with_file_name(format!(".{name}.{}-{n}.tmp", std::process::id()))
}

/// Writes `path` through `fill`. A missing folder is created. On any error — including one
/// returned by `fill` — the temporary file is removed and nothing appears under `path`.
pub fn write_atomic(
    path: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<(), WriteError> {
    let err = |source: std::io::Error| WriteError {
        path: path.to_path_buf(),
        source,
    };
    if path.file_name().is_none() {
        return Err(err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no file name",
        )));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(err)?;
    }
    let tmp = temp_name(path);
    let result = (|| {
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)?;
        let mut w = BufWriter::with_capacity(1 << 20, file);
        fill(&mut w)?;
        let file = w.into_inner().map_err(|e| e.into_error())?;
        file.sync_all()?;
        drop(file);
        std::fs::rename(&tmp, path)
    })();
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(tag: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("plume-writer-{tag}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        d
    }

    #[test]
    fn a_failed_write_leaves_nothing_behind() {
        let dir = scratch("fail");
        let path = dir.join("frame_0001.vdb");
        let r = write_atomic(&path, |w| {
            w.write_all(&[7u8; 3_000_000])?;
            Err(std::io::Error::other("disk full (simulated)"))
        });
        let e = crate::report(&r.expect_err("must fail"));
        assert!(
            e.contains("frame_0001.vdb") && e.contains("disk full"),
            "{e}"
        );
        let left: Vec<_> = std::fs::read_dir(&dir).expect("dir").collect();
        assert!(left.is_empty(), "left behind: {left:?}");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn a_failed_rewrite_keeps_the_old_file() {
        let dir = scratch("keep");
        let path = dir.join("a.npy");
        write_atomic(&path, |w| w.write_all(b"old")).expect("first write");
        let _ = write_atomic(&path, |w| {
            w.write_all(b"new but broken")?;
            Err(std::io::Error::other("interrupted"))
        });
        assert_eq!(std::fs::read(&path).expect("still there"), b"old");
        assert_eq!(std::fs::read_dir(&dir).expect("dir").count(), 1);
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn missing_folders_are_created_and_files_complete() {
        let dir = scratch("mk");
        let path = dir.join("x").join("y").join("b.vti");
        write_atomic(&path, |w| w.write_all(b"hello")).expect("write");
        assert_eq!(std::fs::read(&path).expect("read"), b"hello");
        std::fs::remove_dir_all(&dir).ok();
    }

    #[test]
    fn an_unusable_folder_is_reported() {
        let dir = scratch("bad");
        std::fs::create_dir_all(&dir).expect("dir");
        let file = dir.join("plain-file");
        std::fs::write(&file, b"x").expect("file");
        let e = crate::export::folder::prepare_folder(&file.join("sub")).expect_err("under a file");
        assert!(e.to_string().contains("plain-file"), "{e}");
        let e = write_atomic(&file.join("c.vdb"), |w| w.write_all(b"x")).expect_err("under a file");
        assert!(e.to_string().contains("c.vdb"), "{e}");
        std::fs::remove_dir_all(&dir).ok();
    }
}
