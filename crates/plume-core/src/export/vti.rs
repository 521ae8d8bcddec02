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

/// The value of each base64 character; 255 for any other byte.
const B64_VALUE: [u8; 256] = {
    let mut t = [255u8; 256];
    let mut i = 0;
    while i < 64 {
        t[B64[i] as usize] = i as u8;
        i += 1;
    }
    t
};

/// Decodes whole groups of four base64 characters into `out`; false on any other byte.
fn unbase64_groups(text: &[u8], out: &mut Vec<u8>) -> bool {
    out.reserve(text.len() / 4 * 3);
    for g in text.chunks_exact(4) {
        let v = [0, 1, 2, 3].map(|i| B64_VALUE[g[i] as usize]);
        if v.contains(&255) {
            return false;
        }
        let n =
            u32::from(v[0]) << 18 | u32::from(v[1]) << 12 | u32::from(v[2]) << 6 | u32::from(v[3]);
        out.extend_from_slice(&[(n >> 16) as u8, (n >> 8) as u8, n as u8]);
    }
    true
}

/// Decodes standard base64 (padding optional, whitespace skipped); `None` on a stray byte.
/// A long run of plain groups (what [`base64`] writes) is decoded in parallel.
pub fn unbase64(text: &[u8]) -> Option<Vec<u8>> {
    use rayon::prelude::*;
    let body = text.trim_ascii();
    let plain = body.len() - body.iter().rev().take_while(|&&c| c == b'=').count();
    let whole = plain / 4 * 4;
    const CHUNK: usize = 4 << 16;
    let pieces: Option<Vec<Vec<u8>>> = body[..whole]
        .par_chunks(CHUNK)
        .map(|c| {
            let mut v = Vec::new();
            unbase64_groups(c, &mut v).then_some(v)
        })
        .collect();
    if let Some(pieces) = pieces {
        let mut out = pieces.concat();
        let tail = &body[whole..plain];
        let v: Vec<u32> = tail
            .iter()
            .map(|&c| u32::from(B64_VALUE[c as usize]))
            .collect();
        if v.contains(&255) {
            return None;
        }
        match v.len() {
            0 => {}
            2 => out.push((v[0] << 2 | v[1] >> 4) as u8),
            3 => out
                .extend_from_slice(&[(v[0] << 2 | v[1] >> 4) as u8, (v[1] << 4 | v[2] >> 2) as u8]),
            _ => return None,
        }
        return Some(out);
    }
    // With whitespace or padding inside: a character at a time.
    let mut out = Vec::with_capacity(text.len() / 4 * 3);
    let (mut acc, mut n) = (0u32, 0);
    for &c in text {
        let v = match c {
            b'=' | b' ' | b'\n' | b'\r' | b'\t' => continue,
            _ => B64_VALUE[c as usize],
        };
        if v == 255 {
            return None;
        }
        acc = acc << 6 | u32::from(v);
        n += 1;
        if n == 4 {
            out.extend_from_slice(&[(acc >> 16) as u8, (acc >> 8) as u8, acc as u8]);
            (acc, n) = (0, 0);
        }
    }
    match n {
        2 => out.push((acc >> 4) as u8),
        3 => out.extend_from_slice(&[(acc >> 10) as u8, (acc >> 2) as u8]),
        _ => {}
    }
    Some(out)
}

/// Reads the cell-data array `name` of `components` floats a cell over `cells` cells back
/// from a `.vti` file [`write`] wrote. Err says what is missing or wrong.
pub fn read_array(
    file: &[u8],
    name: &str,
    components: usize,
    cells: usize,
) -> Result<Vec<f32>, String> {
    let text = String::from_utf8_lossy(file);
    let tag = format!(r#"Name="{name}""#);
    let Some(at) = text.find(&tag) else {
        return Err(format!("it has no array '{name}'"));
    };
    let cut = || format!("its array '{name}' is cut short");
    let open = &text[text[..at].rfind('<').ok_or_else(cut)?..];
    let head = &open[..open.find('>').ok_or_else(cut)?];
    if !head.starts_with("<DataArray")
        || !head.contains(r#"type="Float32""#)
        || !head.contains(&format!(r#"NumberOfComponents="{components}""#))
        || !head.contains(r#"format="binary""#)
    {
        return Err(format!(
            "its array '{name}' is not {components} binary Float32 a cell as Plume writes it"
        ));
    }
    let body = &open[head.len() + 1..];
    let end = body.find("</DataArray>").ok_or_else(cut)?;
    let Some(bytes) = unbase64(&body.as_bytes()[..end]) else {
        return Err(format!("its array '{name}' is not valid base64"));
    };
    let want = 4 * components * cells;
    if bytes.len() != 8 + want
        || u64::from_le_bytes(bytes[..8].try_into().unwrap_or([0; 8])) != want as u64
    {
        return Err(format!(
            "its array '{name}' holds {} bytes where the run's grid takes {want}",
            bytes.len().saturating_sub(8)
        ));
    }
    Ok(bytes[8..]
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect())
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
        super::exporter::write_single(stage, opts, n, self.ext(), |w| write(w, frame))
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_base64_decodes_in_pieces_as_a_whole() {
        let data: Vec<u8> = (0..1_000_003u32).map(|i| (i * 7919 % 251) as u8).collect();
        assert_eq!(super::unbase64(super::base64(&data).as_bytes()), Some(data));
        assert_eq!(super::unbase64(b"Zm9v!mFy"), None);
    }

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
            assert_eq!(
                super::unbase64(enc.as_bytes()).as_deref(),
                Some(plain.as_bytes())
            );
        }
    }

    #[test]
    fn a_garbled_vti_gives_an_error_never_a_panic() {
        let f = crate::frame::Frame {
            density: Some(vec![0.5; 24]),
            ..crate::frame::Frame::empty(
                crate::sim::Grid {
                    dims: crate::sim::Dims::new(2, 3, 4),
                    h: 0.1,
                    origin: [0.0; 3],
                },
                0,
                0.0,
            )
        };
        let mut file = Vec::new();
        super::write(&mut file, &f).expect("written");
        assert_eq!(
            super::read_array(&file, "density", 1, 24),
            Ok(vec![0.5; 24])
        );
        assert!(super::read_array(&file, "velocity", 3, 24).is_err());
        assert!(super::read_array(&file, "density", 1, 25).is_err());
        for cut in 0..file.len() {
            let _ = super::read_array(&file[..cut], "density", 1, 24);
        }
        let mut odd = "é Name=\"density\" >".as_bytes().to_vec();
        odd.extend_from_slice(&file);
        assert!(super::read_array(&odd[..20], "density", 1, 24).is_err());
    }
}
