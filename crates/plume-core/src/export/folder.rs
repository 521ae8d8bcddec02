//! The output folder of a run.

use super::ExportError;
use crate::atomic::temp_name;
use std::path::Path;

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
