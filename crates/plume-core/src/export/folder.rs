//! The output folder of a run: created and probed, locked against a second writer, cleaned of
//! the temporaries an interrupted writer left, and checked for the files of an earlier run,
//! which a new run refuses to mix with (unless told to replace or continue it).

use super::formats::frame_number;
use super::manifest::Manifest;
use super::ExportError;
use crate::atomic::temp_name;
use std::fs::File;
use std::io::{Read, Seek, Write};
use std::path::{Path, PathBuf};

/// The lock file every writer holds an advisory lock on while it writes into a folder.
pub const LOCK_FILE: &str = ".plume.lock";

/// Creates `dir` if needed and checks that files can be created in it.
pub fn prepare_folder(dir: &Path) -> Result<(), ExportError> {
    let err = |source: std::io::Error| ExportError::Folder {
        path: dir.to_path_buf(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(err)?;
    if !dir.is_dir() {
        return Err(err(std::io::Error::new(
            std::io::ErrorKind::NotADirectory,
            "not a folder",
        )));
    }
    let probe = temp_name(&dir.join("probe"));
    std::fs::File::create(&probe).map_err(err)?;
    std::fs::remove_file(&probe).map_err(err)?;
    Ok(())
}

/// An exclusive advisory lock on a folder's [`LOCK_FILE`], held until dropped. The file holds
/// the holder's process id, so a refused writer can name it; it is removed when the lock is
/// released (a killed writer leaves it behind, unlocked, and the next writer reuses it).
#[derive(Debug)]
pub struct FolderLock {
    file: File,
    path: PathBuf,
}

impl FolderLock {
    /// Takes the lock without waiting; a folder another process is writing into is refused
    /// with that process's id.
    pub fn acquire(dir: &Path) -> Result<Self, ExportError> {
        // A holder removes the file as it lets go: a lock taken on a file that was removed
        // meanwhile guards nothing, so check that the name still leads to the locked file.
        for _ in 0..8 {
            if let Some(lock) = Self::try_once(dir)? {
                return Ok(lock);
            }
        }
        Err(ExportError::Locked {
            dir: dir.to_path_buf(),
            pid: None,
        })
    }

    fn try_once(dir: &Path) -> Result<Option<Self>, ExportError> {
        let path = dir.join(LOCK_FILE);
        let folder_err = |source: std::io::Error| ExportError::Folder {
            path: dir.to_path_buf(),
            source,
        };
        let mut file = open_lock_file(&path).map_err(folder_err)?;
        match file.try_lock() {
            Ok(()) => {}
            Err(std::fs::TryLockError::WouldBlock) => {
                let mut text = String::new();
                let _ = file.read_to_string(&mut text);
                return Err(ExportError::Locked {
                    dir: dir.to_path_buf(),
                    pid: text.trim().parse().ok(),
                });
            }
            Err(std::fs::TryLockError::Error(e)) => return Err(folder_err(e)),
        }
        if !same_file(&file, &path) {
            return Ok(None);
        }
        // Ours now: record who holds it.
        file.set_len(0).map_err(folder_err)?;
        file.rewind().map_err(folder_err)?;
        write!(file, "{}", std::process::id()).map_err(folder_err)?;
        file.flush().map_err(folder_err)?;
        Ok(Some(Self { file, path }))
    }
}

/// Opens (or creates) the lock file without following a link: a lock path that is a link,
/// not a plain file, or a file with other hard links is refused before anything is written,
/// so the lock never writes outside the folder.
fn open_lock_file(path: &Path) -> std::io::Result<File> {
    let refuse = |why: &str| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!(
                "{} {why}; Plume writes its lock only into a plain file of its own (remove it \
                 if it is not needed, or choose another folder)",
                path.display()
            ),
        )
    };
    if std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink()) {
        return Err(refuse("is a symbolic link"));
    }
    let mut o = std::fs::OpenOptions::new();
    o.read(true).write(true).create(true).truncate(false);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // No link followed, and no wait on a FIFO placed under the name.
        o.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = o.open(path).map_err(|e| {
        if e.raw_os_error() == Some(libc_eloop()) {
            refuse("is a symbolic link")
        } else {
            e
        }
    })?;
    let meta = file.metadata()?;
    if !meta.is_file() {
        return Err(refuse("is not a plain file"));
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        if meta.nlink() > 1 {
            return Err(refuse(&format!(
                "has {} hard links (it is also another file)",
                meta.nlink()
            )));
        }
    }
    Ok(file)
}

fn libc_eloop() -> i32 {
    #[cfg(unix)]
    {
        libc::ELOOP
    }
    #[cfg(not(unix))]
    {
        -1
    }
}

/// Whether `path` still names the open `file`.
fn same_file(file: &File, path: &Path) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        match (file.metadata(), std::fs::metadata(path)) {
            (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
            _ => false,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = (file, path);
        true
    }
}

impl Drop for FolderLock {
    fn drop(&mut self) {
        // Remove the name while still holding the lock, then let go.
        let _ = std::fs::remove_file(&self.path);
        let _ = self.file.unlock();
    }
}

/// Whether `name` is a temporary of Plume's atomic writer for a file Plume writes into a run
/// folder: `.<file>.<pid>-<n>.tmp` where `<file>` is `manifest.json`, the folder probe or a
/// frame file (see [`frame_number`]).
pub fn is_temporary(name: &str) -> bool {
    temporary_of(name).is_some_and(is_run_file)
}

/// Whether `file` is one Plume's run writer writes into a run folder: `manifest.json`, the
/// folder probe or a frame file.
fn is_run_file(file: &str) -> bool {
    file == "manifest.json" || file == "probe" || frame_number(file).is_some()
}

/// The file a temporary of Plume's atomic writer stands for: `<file>` where `name` is
/// `.<file>.<pid>-<n>.tmp`; `None` for any other name.
pub fn temporary_of(name: &str) -> Option<&str> {
    let rest = name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (file, tag) = rest.rsplit_once('.')?;
    let (pid, n) = tag.split_once('-')?;
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (!file.is_empty() && digits(pid) && digits(n)).then_some(file)
}

/// What a folder holds of earlier runs.
#[derive(Debug, Default)]
pub struct Found {
    /// `manifest.json`, when there is one: `Ok` if it reads as a manifest.
    pub manifest: Option<Result<Manifest, String>>,
    /// Frame files (see [`frame_number`]), sorted.
    pub frames: Vec<String>,
}

impl Found {
    /// Nothing of an earlier run.
    pub fn is_empty(&self) -> bool {
        self.manifest.is_none() && self.frames.is_empty()
    }

    /// The frame files no readable manifest lists (all of them without one): files Plume
    /// cannot prove it wrote.
    pub fn unlisted(&self) -> Vec<&String> {
        let listed: Vec<&str> = match &self.manifest {
            Some(Ok(m)) => m.listed_files(),
            _ => Vec::new(),
        };
        self.frames
            .iter()
            .filter(|f| !listed.contains(&f.as_str()))
            .collect()
    }

    /// One line for messages: what was found.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match &self.manifest {
            Some(Ok(m)) => parts.push(format!(
                "manifest.json of scene '{}' on a {}×{}×{} grid listing {} frame{}",
                m.scene.name,
                m.dims[0],
                m.dims[1],
                m.dims[2],
                m.frames.len(),
                if m.frames.len() == 1 { "" } else { "s" }
            )),
            Some(Err(_)) => parts.push("a manifest.json Plume cannot read".into()),
            None => {}
        }
        // With a manifest, only the files it does not list are worth naming.
        let others = self.unlisted();
        if !others.is_empty() {
            const SHOWN: usize = 4;
            let mut names: Vec<&str> = others.iter().take(SHOWN).map(|f| f.as_str()).collect();
            let more = others.len().saturating_sub(SHOWN);
            let more = format!("and {more} more");
            if others.len() > SHOWN {
                names.push(&more);
            }
            parts.push(format!(
                "{} {}file{} named like frames ({})",
                others.len(),
                if self.manifest.is_some() {
                    "other "
                } else {
                    ""
                },
                if others.len() == 1 { "" } else { "s" },
                names.join(", ")
            ));
        }
        parts.join(" and ")
    }
}

fn entries(dir: &Path) -> Result<Vec<String>, ExportError> {
    let rd = std::fs::read_dir(dir).map_err(|source| ExportError::Folder {
        path: dir.to_path_buf(),
        source,
    })?;
    let mut names: Vec<String> = rd
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|e| e.file_name().into_string().ok())
        .collect();
    names.sort();
    Ok(names)
}

/// Removes the temporaries of Plume's atomic writer (and only those) that an interrupted
/// writer left in `dir`; returns their names. Call it holding the folder's lock, so none of
/// them belongs to a write in progress.
pub fn remove_stale_temporaries(dir: &Path) -> Result<Vec<String>, ExportError> {
    remove_stale_temporaries_of(dir, &|_| false)
}

/// [`remove_stale_temporaries`], also of the files `also` names: those a caller writes into
/// the run folder beside the run writer's (a wedge variant's `scene.toml` and thumbnails).
pub fn remove_stale_temporaries_of(
    dir: &Path,
    also: &dyn Fn(&str) -> bool,
) -> Result<Vec<String>, ExportError> {
    let mut removed = Vec::new();
    for name in entries(dir)? {
        let ours = temporary_of(&name).is_some_and(|f| is_run_file(f) || also(f));
        if ours && std::fs::remove_file(dir.join(&name)).is_ok() {
            removed.push(name);
        }
    }
    Ok(removed)
}

/// Scans `dir` for the manifest and frame files of an earlier run.
pub fn scan(dir: &Path) -> Result<Found, ExportError> {
    let mut found = Found::default();
    for name in entries(dir)? {
        if name == "manifest.json" {
            let text = std::fs::read_to_string(dir.join(&name)).map_err(|e| e.to_string());
            found.manifest = Some(
                text.and_then(|t| serde_json::from_str::<Manifest>(&t).map_err(|e| e.to_string())),
            );
        } else if frame_number(&name).is_some() {
            found.frames.push(name);
        }
    }
    Ok(found)
}

/// Removes an earlier run: the files its manifest lists (its frames and the frame it was
/// putting in place) that are still what Plume wrote there ([`Manifest::ours`]: a regular
/// file of the size recorded), and the manifest itself. Nothing else is touched, whatever
/// its name: a name that looks like a frame file is not proof that Plume wrote it, nor is a
/// name a hand-edited manifest lists.
pub fn remove_run(dir: &Path, manifest: &Manifest) -> Result<(), ExportError> {
    let files = manifest
        .ours(dir)
        .into_iter()
        .chain(["manifest.json"])
        .map(|f| dir.join(f));
    for f in files {
        match std::fs::remove_file(&f) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(source) => return Err(ExportError::Folder { path: f, source }),
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_temporaries_and_frames_are_recognised_exactly() {
        assert!(is_temporary(".plume_0034.vdb.1234-7.tmp"));
        assert!(is_temporary(".manifest.json.99-0.tmp"));
        assert!(is_temporary(".plume_density_0002.npy.5-1.tmp"));
        assert!(
            !is_temporary(".notes.txt.1234-7.tmp"),
            "not a name Plume writes"
        );
        for not in [
            "plume_0034.vdb.1234-7.tmp",
            ".plume_0034.vdb.tmp",
            ".notes.txt",
            ".x.12-a.tmp",
            "..12-3.tmp",
        ] {
            assert!(!is_temporary(not), "{not}");
        }
        assert_eq!(temporary_of(".scene.toml.18846-34.tmp"), Some("scene.toml"));
        assert_eq!(
            temporary_of(".thumb_0040.png.7-0.tmp"),
            Some("thumb_0040.png")
        );
        for not in [
            "..12-3.tmp",
            ".scene.toml.tmp",
            ".scene.toml.1-x.tmp",
            "scene.toml",
        ] {
            assert_eq!(temporary_of(not), None, "{not}");
        }
    }

    #[test]
    fn stale_temporaries_of_the_callers_files_go_and_no_other() {
        let dir = std::env::temp_dir().join(format!("plume-stale-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("dir");
        let names = [
            ".plume_0001.vdb.5-1.tmp",
            ".scene.toml.18846-34.tmp",
            ".notes.txt.5-2.tmp",
            "scene.toml",
        ];
        for n in names {
            std::fs::write(dir.join(n), b"x").expect("write");
        }
        let gone = remove_stale_temporaries(&dir).expect("sweep");
        assert_eq!(gone, [".plume_0001.vdb.5-1.tmp"]);
        let gone = remove_stale_temporaries_of(&dir, &|f| f == "scene.toml").expect("sweep");
        assert_eq!(gone, [".scene.toml.18846-34.tmp"]);
        let left = entries(&dir).expect("entries");
        assert_eq!(left, [".notes.txt.5-2.tmp", "scene.toml"]);
        std::fs::remove_dir_all(&dir).expect("clean");
    }
}
