//! NumPy `.npy` (format 1.0): little-endian float32, C order.

use super::{ExportError, ExportOptions, Exporter};
use crate::frame::Frame;
use std::io::Write;

/// The header for a float32 array of `shape`, padded so the data starts on a 64-byte boundary.
pub fn header(shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape_txt = if shape.len() == 1 {
        format!("({},)", dims[0])
    } else {
        format!("({})", dims.join(", "))
    };
    let mut dict = format!("{{'descr': '<f4', 'fortran_order': False, 'shape': {shape_txt}, }}");
    // magic (6) + version (2) + length (2) + dict + '\n' must be a multiple of 64.
    let total = 10 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - total % 64) % 64));
    dict.push('\n');
    let mut h = Vec::with_capacity(10 + dict.len());
    h.extend_from_slice(b"\x93NUMPY");
    h.extend_from_slice(&[1, 0]);
    h.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    h.extend_from_slice(dict.as_bytes());
    h
}

/// Writes a float32 array of `shape` (C order: the last axis varies fastest).
pub fn write_f32(w: &mut dyn Write, shape: &[usize], data: &[f32]) -> std::io::Result<()> {
    let n: usize = shape.iter().product();
    if n != data.len() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            format!("shape {shape:?} needs {n} values, got {}", data.len()),
        ));
    }
    w.write_all(&header(shape))?;
    let mut buf = Vec::with_capacity(1 << 16);
    for chunk in data.chunks(1 << 14) {
        buf.clear();
        for v in chunk {
            buf.extend_from_slice(&v.to_le_bytes());
        }
        w.write_all(&buf)?;
    }
    Ok(())
}

/// Reads a float32 array of exactly `shape` back from `.npy` bytes (what [`write_f32`] writes,
/// or NumPy's `np.save` of a little-endian float32 C-order array). Err says what differs.
pub fn read_f32(bytes: &[u8], shape: &[usize]) -> Result<Vec<f32>, String> {
    if bytes.len() < 10 || &bytes[..6] != b"\x93NUMPY" {
        return Err("it is not a NumPy .npy file".into());
    }
    let (len, start) = match bytes[6] {
        1 => (u16::from_le_bytes([bytes[8], bytes[9]]) as usize, 10),
        2 | 3 if bytes.len() >= 12 => (
            u32::from_le_bytes([bytes[8], bytes[9], bytes[10], bytes[11]]) as usize,
            12,
        ),
        v => return Err(format!("its .npy version {v} is not one NumPy writes")),
    };
    let Some(dict) = bytes.get(start..start + len) else {
        return Err("it ends inside its header".into());
    };
    let dict = String::from_utf8_lossy(dict);
    let field = |key: &str| {
        let at = dict.find(&format!("'{key}':"))? + key.len() + 3;
        Some(dict[at..].trim_start().to_string())
    };
    if !field("descr").is_some_and(|d| d.starts_with("'<f4'")) {
        return Err("its values are not little-endian float32".into());
    }
    if !field("fortran_order").is_some_and(|d| d.starts_with("False")) {
        return Err("it is in Fortran order, not C order".into());
    }
    let got: Option<Vec<usize>> = field("shape").and_then(|s| {
        let inner = s.strip_prefix('(')?.split(')').next()?.to_string();
        inner
            .split(',')
            .map(str::trim)
            .filter(|p| !p.is_empty())
            .map(|p| p.parse().ok())
            .collect()
    });
    match got {
        Some(got) if got == shape => {}
        Some(got) => return Err(format!("its shape is {got:?}, not the run's {shape:?}")),
        None => return Err("its header has no shape".into()),
    }
    let n: usize = shape.iter().product();
    let data = &bytes[start + len..];
    if data.len() != 4 * n {
        return Err(format!(
            "it holds {} bytes of values where {shape:?} float32 take {}",
            data.len(),
            4 * n
        ));
    }
    let mut out = Vec::new();
    out.try_reserve_exact(n)
        .map_err(|_| format!("not enough memory for {n} values"))?;
    out.extend(
        data.chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
    );
    Ok(out)
}

/// The `.npy` exporter: one file per field and frame, `<prefix>_<field>_<n>.npy`, float32 in C
/// order: scalars (density, temperature, flame, fuel) `(nz, ny, nx)`, velocity `(nz, ny, nx, 3)`.
pub struct NpyExporter;

impl Exporter for NpyExporter {
    fn ext(&self) -> &'static str {
        "npy"
    }
    fn about(&self) -> &'static str {
        "NumPy arrays, one file per field"
    }
    fn file_names(&self, opts: &ExportOptions, n: u32) -> Vec<String> {
        opts.fields
            .names()
            .into_iter()
            .map(|field| format!("{}_{field}_{n:04}.npy", opts.prefix))
            .collect()
    }
    fn write(
        &self,
        stage: &mut crate::atomic::Staging,
        n: u32,
        frame: &Frame,
        opts: &ExportOptions,
    ) -> Result<Vec<String>, ExportError> {
        let d = frame.grid.dims;
        let shape = [d.nz, d.ny, d.nx];
        let mut written = Vec::new();
        for (field, data) in frame.scalars() {
            let name = format!("{}_{field}_{n:04}.npy", opts.prefix);
            stage.stage(&name, |w| write_f32(w, &shape, data))?;
            written.push(name);
        }
        if let Some(v) = &frame.velocity {
            let name = format!("{}_velocity_{n:04}.npy", opts.prefix);
            let flat: &[f32] = v.as_flattened();
            stage.stage(&name, |w| {
                write_f32(w, &[shape[0], shape[1], shape[2], 3], flat)
            })?;
            written.push(name);
        }
        Ok(written)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_back_what_it_writes_and_refuses_the_rest() {
        let data: Vec<f32> = (0..60).map(|i| i as f32 * 0.5).collect();
        let mut file = Vec::new();
        super::write_f32(&mut file, &[3, 4, 5], &data).expect("written");
        assert_eq!(super::read_f32(&file, &[3, 4, 5]), Ok(data));
        let e = super::read_f32(&file, &[3, 4, 6]).expect_err("other shape");
        assert!(
            e.contains("its shape is [3, 4, 5], not the run's [3, 4, 6]"),
            "{e}"
        );
        for cut in 0..file.len() {
            assert!(
                super::read_f32(&file[..cut], &[3, 4, 5]).is_err(),
                "cut at {cut}"
            );
        }
        let f64s = String::from_utf8_lossy(&file)
            .replace("<f4", "<f8")
            .into_bytes();
        assert!(super::read_f32(&f64s, &[3, 4, 5]).is_err());
    }
}
