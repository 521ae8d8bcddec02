//! VTK XML image data (`.vti`), as ParaView's `vtkXMLImageDataReader` reads it: cell data on a
//! grid whose points are the cell corners, so the extent is 0..n and the origin is the
//! domain's corner; inline base64 binary arrays with a UInt64 byte-count header.

use super::{ExportError, ExportOptions, Exporter};
use crate::frame::Frame;
use std::io::Write;

const B64: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// Standard base64 with padding.
pub fn base64(data: &[u8]) -> String {
    let mut s = String::with_capacity(data.len().div_ceil(3) * 4);
    for c in data.chunks(3) {
        let b = [c[0], *c.get(1).unwrap_or(&0), *c.get(2).unwrap_or(&0)];
        let n = (b[0] as u32) << 16 | (b[1] as u32) << 8 | b[2] as u32;
        s.push(B64[(n >> 18) as usize & 63] as char);
        s.push(B64[(n >> 12) as usize & 63] as char);
        s.push(if c.len() > 1 {
            B64[(n >> 6) as usize & 63] as char
        } else {
            '='
        });
        s.push(if c.len() > 2 {
            B64[n as usize & 63] as char
        } else {
            '='
        });
    }
    s
}

fn array(w: &mut dyn Write, name: &str, components: usize, values: &[f32]) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(8 + 4 * values.len());
    bytes.extend_from_slice(&((4 * values.len()) as u64).to_le_bytes());
    for v in values {
        bytes.extend_from_slice(&v.to_le_bytes());
    }
    writeln!(
        w,
        r#"        <DataArray type="Float32" Name="{name}" NumberOfComponents="{components}" format="binary">"#
    )?;
    w.write_all(base64(&bytes).as_bytes())?;
    writeln!(w, "\n        </DataArray>")
}

/// Writes the frame's fields as one `.vti` file.
pub fn write(w: &mut dyn Write, f: &Frame) -> std::io::Result<()> {
    let d = f.grid.dims;
    let extent = format!("0 {} 0 {} 0 {}", d.nx, d.ny, d.nz);
    writeln!(w, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        w,
        r#"<VTKFile type="ImageData" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(
        w,
        r#"  <ImageData WholeExtent="{extent}" Origin="{} {} {}" Spacing="{h} {h} {h}" Direction="1 0 0 0 1 0 0 0 1">"#,
        f.grid.origin[0],
        f.grid.origin[1],
        f.grid.origin[2],
        h = f.grid.h
    )?;
    writeln!(w, r#"    <Piece Extent="{extent}">"#)?;
    writeln!(w, "      <PointData>\n      </PointData>")?;
    let mut attrs = String::new();
    let scalars = f.scalars();
    if let Some((first, _)) = scalars.first() {
        attrs.push_str(&format!(r#" Scalars="{first}""#));
    }
    if f.velocity.is_some() {
        attrs.push_str(r#" Vectors="velocity""#);
    }
    writeln!(w, "      <CellData{attrs}>")?;
    for (name, data) in scalars {
        array(w, name, 1, data)?;
    }
    if let Some(v) = &f.velocity {
        array(w, "velocity", 3, v.as_flattened())?;
    }
    writeln!(
        w,
        "      </CellData>\n    </Piece>\n  </ImageData>\n</VTKFile>"
    )
}

/// The `.vti` exporter: one VTK XML image-data file a frame, the fields as cell data.
pub struct VtiExporter;

impl Exporter for VtiExporter {
    fn ext(&self) -> &'static str {
        "vti"
    }
    fn about(&self) -> &'static str {
        "VTK image data, for ParaView"
    }
    fn write(
        &self,
        stage: &mut crate::atomic::Staging,
        n: u32,
        frame: &Frame,
        opts: &ExportOptions,
    ) -> Result<Vec<String>, ExportError> {
        super::formats::write_single(stage, opts, n, self.ext(), |w| write(w, frame))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn base64_matches_the_rfc_examples() {
        for (plain, enc) in [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ] {
            assert_eq!(super::base64(plain.as_bytes()), enc);
        }
    }
}
