//! `PLUME_GPU_DUMP_PROGRAMS`: each kernel's program binary as the driver made it, and the
//! source it was given, left in a folder for `scripts/gpu-check` and
//! `tests/glsl_reference.rs` to read.

use glium::program::ComputeShader;

/// Leaves the driver's binary of `shader` (the kernel `name` compiled with `defines`) in
/// `dir` as `NAME[+DEFINE=VALUE…].bin`, and the source it was compiled from as `….comp`
/// (each written beside it and renamed). A diagnostic: where the driver gives no binary or
/// the folder cannot be written, says so on stderr and goes on.
pub(crate) fn dump_program(
    shader: &ComputeShader,
    dir: &std::path::Path,
    name: &str,
    defines: &str,
    src: &str,
) {
    let mut file = name.to_string();
    for d in defines.lines() {
        let mut w = d.split_whitespace().skip(1);
        match (w.next(), w.next()) {
            (Some(k), Some(v)) => file.push_str(&format!("+{k}={v}")),
            (Some(k), None) => file.push_str(&format!("+{k}")),
            _ => {}
        }
    }
    let leave = |ext: &str, bytes: &[u8]| {
        std::fs::create_dir_all(dir).map_err(|e| e.to_string())?;
        let tmp = dir.join(format!(".{file}.{ext}.tmp"));
        std::fs::write(&tmp, bytes).map_err(|e| e.to_string())?;
        std::fs::rename(&tmp, dir.join(format!("{file}.{ext}"))).map_err(|e| e.to_string())
    };
    let written = leave("comp", src.as_bytes()).and_then(|()| {
        let b = shader
            .get_binary()
            .map_err(|e| format!("no binary from the driver ({e:?})"))?;
        leave("bin", &b.content)
    });
    if let Err(e) = written {
        eprintln!("PLUME_GPU_DUMP_PROGRAMS: {file}: {e}");
    }
}
