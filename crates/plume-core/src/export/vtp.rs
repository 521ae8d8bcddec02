//! VTK XML PolyData (`.vtp`): the frame's 3D streamlines, seeded around the emitters, as
//! polylines with the speed at each point, for ParaView.

use super::{ExportError, ExportOptions, Exporter};
use crate::frame::Frame;
use crate::streamlines::Line;
use std::io::Write;

/// Writes `lines` as one PolyData piece (ASCII arrays: the files are small).
pub fn write(w: &mut dyn Write, lines: &[Line]) -> std::io::Result<()> {
    let points: usize = lines.iter().map(|l| l.points.len()).sum();
    writeln!(w, r#"<?xml version="1.0"?>"#)?;
    writeln!(
        w,
        r#"<VTKFile type="PolyData" version="1.0" byte_order="LittleEndian" header_type="UInt64">"#
    )?;
    writeln!(w, "  <PolyData>")?;
    writeln!(
        w,
        r#"    <Piece NumberOfPoints="{points}" NumberOfVerts="0" NumberOfLines="{}" NumberOfStrips="0" NumberOfPolys="0">"#,
        lines.len()
    )?;
    writeln!(w, r#"      <PointData Scalars="speed">"#)?;
    write!(
        w,
        r#"        <DataArray type="Float32" Name="speed" format="ascii">"#
    )?;
    for l in lines {
        for s in &l.speed {
            write!(w, " {s}")?;
        }
    }
    writeln!(w, " </DataArray>\n      </PointData>\n      <Points>")?;
    write!(
        w,
        r#"        <DataArray type="Float32" Name="points" NumberOfComponents="3" format="ascii">"#
    )?;
    for l in lines {
        for p in &l.points {
            write!(w, " {} {} {}", p[0], p[1], p[2])?;
        }
    }
    writeln!(w, " </DataArray>\n      </Points>\n      <Lines>")?;
    write!(
        w,
        r#"        <DataArray type="Int64" Name="connectivity" format="ascii">"#
    )?;
    for i in 0..points {
        write!(w, " {i}")?;
    }
    writeln!(w, " </DataArray>")?;
    write!(
        w,
        r#"        <DataArray type="Int64" Name="offsets" format="ascii">"#
    )?;
    let mut end = 0;
    for l in lines {
        end += l.points.len();
        write!(w, " {end}")?;
    }
    writeln!(
        w,
        " </DataArray>\n      </Lines>\n    </Piece>\n  </PolyData>\n</VTKFile>"
    )
}

/// The `.vtp` exporter: one file a frame holding its streamlines (see
/// [`ExportOptions::streamline_count`]).
pub struct VtpExporter;

impl Exporter for VtpExporter {
    fn ext(&self) -> &'static str {
        "vtp"
    }
    fn about(&self) -> &'static str {
        "VTK polylines of the 3D streamlines, for ParaView"
    }
    fn write(
        &self,
        stage: &mut crate::atomic::Staging,
        n: u32,
        frame: &Frame,
        opts: &ExportOptions,
    ) -> Result<Vec<String>, ExportError> {
        let lines = frame.streamlines.as_deref().unwrap_or(&[]);
        super::exporter::write_single(stage, opts, n, self.ext(), |w| write(w, lines))
    }
}
