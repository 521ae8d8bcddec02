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

/// The temporaries being written right now, so that a process ending abruptly (an
/// allocation failure aborts it) can still remove them: [`remove_live_temporaries`] is safe to
/// call from a signal handler. A fixed set of slots holding leaked C strings, claimed and
/// released with atomic swaps: no lock, no allocation on the handler's side.
pub mod live {
    use std::path::Path;
    use std::sync::atomic::{AtomicPtr, Ordering};

    const SLOTS: usize = 64;
    #[allow(clippy::declare_interior_mutable_const)]
    const EMPTY: AtomicPtr<std::ffi::c_char> = AtomicPtr::new(std::ptr::null_mut());
    static LIVE: [AtomicPtr<std::ffi::c_char>; SLOTS] = [EMPTY; SLOTS];

    /// A registered temporary; dropping it unregisters it (whatever became of the file).
    #[derive(Debug)]
    pub struct Guard(Option<usize>);

    /// Registers `path` as a temporary being written (best effort: when every slot is taken
    /// it is not registered).
    pub fn register(path: &Path) -> Guard {
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            let Ok(c) = std::ffi::CString::new(path.as_os_str().as_bytes()) else {
                return Guard(None);
            };
            let raw = c.into_raw();
            for (i, slot) in LIVE.iter().enumerate() {
                if slot
                    .compare_exchange(
                        std::ptr::null_mut(),
                        raw,
                        Ordering::SeqCst,
                        Ordering::SeqCst,
                    )
                    .is_ok()
                {
                    return Guard(Some(i));
                }
            }
            // SAFETY: `raw` came from CString::into_raw just above and was not shared.
            drop(unsafe { std::ffi::CString::from_raw(raw) });
        }
        #[cfg(not(unix))]
        let _ = path;
        Guard(None)
    }

    impl Drop for Guard {
        fn drop(&mut self) {
            if let Some(i) = self.0 {
                let raw = LIVE[i].swap(std::ptr::null_mut(), Ordering::SeqCst);
                if !raw.is_null() {
                    // SAFETY: only `register` stores into the slots, always from into_raw;
                    // the swap took it out, so it is freed once.
                    drop(unsafe { std::ffi::CString::from_raw(raw) });
                }
            }
        }
    }

    /// Removes every registered temporary from the disk. Async-signal-safe: atomic loads and
    /// `unlink` only (the strings stay allocated; the process is ending).
    pub fn remove_live_temporaries() {
        #[cfg(unix)]
        for slot in &LIVE {
            let raw = slot.load(Ordering::SeqCst);
            if !raw.is_null() {
                // SAFETY: a NUL-terminated string owned by the slot, never freed while there.
                unsafe { libc::unlink(raw) };
            }
        }
    }
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

/// The temporary to write `path` through, its folder created where missing; refuses a path
/// with no file name.
fn prepare(path: &Path) -> std::io::Result<PathBuf> {
    if path.file_name().is_none() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "no file name",
        ));
    }
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir)?;
    }
    Ok(temp_name(path))
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
    let tmp = prepare(path).map_err(err)?;
    let _live = live::register(&tmp);
    let result = write_temporary(&tmp, fill).and_then(|()| std::fs::rename(&tmp, path));
    if let Err(e) = result {
        let _ = std::fs::remove_file(&tmp);
        return Err(err(e));
    }
    Ok(())
}

/// A file written a piece at a time (a flipbook's frames as they come) into a temporary in
/// its folder, renamed over its name by [`Streamed::commit`] once complete and synced. The
/// temporary is registered (a signal removes it) and removed when this is dropped
/// uncommitted: nothing ever appears under the name half written.
#[derive(Debug)]
pub struct Streamed {
    path: PathBuf,
    tmp: PathBuf,
    writer: Option<BufWriter<std::fs::File>>,
    _live: live::Guard,
}

impl Streamed {
    /// Starts writing `path`: refuses a name that is a folder, creates a missing folder,
    /// and opens the temporary.
    pub fn create(path: &Path) -> Result<Self, WriteError> {
        let err = |source: std::io::Error| WriteError {
            path: path.to_path_buf(),
            source,
        };
        if path.file_name().is_none() || path.is_dir() {
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "the name is a folder, not a file",
            )));
        }
        let tmp = prepare(path).map_err(err)?;
        let live = live::register(&tmp);
        let file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(err)?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            writer: Some(BufWriter::with_capacity(1 << 20, file)),
            _live: live,
        })
    }

    /// The final name.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Syncs the temporary and renames it over the name; returns the file's size.
    pub fn commit(mut self) -> Result<u64, WriteError> {
        let err = |source: std::io::Error| WriteError {
            path: self.path.clone(),
            source,
        };
        let Some(w) = self.writer.take() else {
            return Err(err(std::io::Error::other("already committed")));
        };
        let file = w.into_inner().map_err(|e| err(e.into_error()))?;
        file.sync_all().map_err(err)?;
        let size = file.metadata().map_err(err)?.len();
        drop(file);
        std::fs::rename(&self.tmp, &self.path).map_err(err)?;
        Ok(size)
    }
}

impl Write for Streamed {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        match self.writer.as_mut() {
            Some(w) => w.write(buf),
            None => Err(std::io::Error::other("already committed")),
        }
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.writer.as_mut().map_or(Ok(()), |w| w.flush())
    }
}

impl Drop for Streamed {
    fn drop(&mut self) {
        if self.writer.take().is_some() {
            let _ = std::fs::remove_file(&self.tmp);
        }
    }
}

/// Bytes free for this user on the file system that holds `dir` (its nearest existing
/// ancestor); `None` where it cannot be asked.
pub fn free_bytes(dir: &Path) -> Option<u64> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        let mut d = dir;
        while !d.as_os_str().is_empty() && !d.exists() {
            d = d.parent()?;
        }
        let d = if d.as_os_str().is_empty() {
            Path::new(".")
        } else {
            d
        };
        let c = std::ffi::CString::new(d.as_os_str().as_bytes()).ok()?;
        // SAFETY: statvfs is plain old data; all zeros is a valid value of it.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `c` is a NUL-terminated path and `st` a valid place for the answer.
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return None;
        }
        Some(st.f_bavail as u64 * st.f_frsize as u64)
    }
    #[cfg(not(unix))]
    {
        let _ = dir;
        None
    }
}

/// Files written as temporaries in one folder and renamed into place together: nothing appears
/// under a final name until every file of the set is complete and synced, and a set that fails
/// anywhere (a write, a rename) leaves neither temporaries nor the files it had already
/// renamed. Dropping an uncommitted set removes its temporaries.
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    /// (temporary, final name, registration) of each staged file, in order.
    staged: Vec<(PathBuf, String, live::Guard)>,
}

/// Whether [`Staging::commit`] may replace a file already under a final name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Replace {
    /// Replace it (the old file is gone once the new one is in place).
    Yes,
    /// Refuse: a file already under a final name is not ours to replace. The whole set is
    /// then undone and the error is `AlreadyExists`.
    No,
}

impl Staging {
    /// The size in bytes of each staged file, in order (0 where it cannot be read).
    pub fn sizes(&self) -> Vec<u64> {
        self.staged
            .iter()
            .map(|(tmp, _, _)| std::fs::symlink_metadata(tmp).map_or(0, |m| m.len()))
            .collect()
    }

    /// An empty set of files for `dir` (which must exist).
    pub fn new(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            staged: Vec::new(),
        }
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The final names staged so far, in order.
    pub fn names(&self) -> Vec<String> {
        self.staged.iter().map(|(_, n, _)| n.clone()).collect()
    }

    /// Writes `name` (a plain file name in the folder) through `fill` into a new temporary,
    /// synced; nothing appears under `name` until [`Staging::commit`]. On error the temporary
    /// is removed (and the set stays as it was).
    pub fn stage(
        &mut self,
        name: &str,
        fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), WriteError> {
        let path = self.dir.join(name);
        let err = |source: std::io::Error| WriteError {
            path: path.clone(),
            source,
        };
        if Path::new(name).file_name().is_none_or(|n| n != name) {
            return Err(err(std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                "not a plain file name",
            )));
        }
        let tmp = temp_name(&path);
        let guard = live::register(&tmp);
        match write_temporary(&tmp, fill) {
            Ok(()) => {
                self.staged.push((tmp, name.to_string(), guard));
                Ok(())
            }
            Err(e) => {
                let _ = std::fs::remove_file(&tmp);
                Err(err(e))
            }
        }
    }

    /// Moves every staged file under its final name. When one cannot be placed, the files
    /// already placed are removed again and the remaining temporaries too: the folder is left
    /// as it was (less, with [`Replace::Yes`], the old files that were replaced). Returns the
    /// names placed.
    pub fn commit(mut self, replace: Replace) -> Result<Vec<String>, WriteError> {
        let staged = std::mem::take(&mut self.staged);
        let mut placed: Vec<PathBuf> = Vec::new();
        for (i, (tmp, name, _)) in staged.iter().enumerate() {
            let path = self.dir.join(name);
            if let Err(source) = place(tmp, &path, replace) {
                for p in &placed {
                    let _ = std::fs::remove_file(p);
                }
                for (t, _, _) in &staged[i..] {
                    let _ = std::fs::remove_file(t);
                }
                return Err(WriteError { path, source });
            }
            placed.push(path);
        }
        Ok(staged.into_iter().map(|(_, n, _)| n).collect())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        for (tmp, _, _) in &self.staged {
            let _ = std::fs::remove_file(tmp);
        }
    }
}

/// Creates `tmp` (never through an existing name or link), fills and syncs it.
fn write_temporary(
    tmp: &Path,
    fill: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(tmp)?;
    let mut w = BufWriter::with_capacity(1 << 20, file);
    fill(&mut w)?;
    let file = w.into_inner().map_err(|e| e.into_error())?;
    file.sync_all()
}

/// Moves `tmp` to `path`. Without replacing, a hard link makes the move atomic and refuses an
/// existing name (a file, a link, anything); where the file system has no hard links, the
/// name is checked and then renamed.
fn place(tmp: &Path, path: &Path, replace: Replace) -> std::io::Result<()> {
    if replace == Replace::Yes {
        return std::fs::rename(tmp, path);
    }
    let exists = || {
        std::io::Error::new(
            std::io::ErrorKind::AlreadyExists,
            "a file of that name is already there and this run did not write it; Plume \
             replaces only files it wrote (move it away or choose another folder)",
        )
    };
    match std::fs::hard_link(tmp, path) {
        Ok(()) => {
            let _ = std::fs::remove_file(tmp);
            Ok(())
        }
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Err(exists()),
        Err(_) => {
            if std::fs::symlink_metadata(path).is_ok() {
                return Err(exists());
            }
            std::fs::rename(tmp, path)
        }
    }
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
