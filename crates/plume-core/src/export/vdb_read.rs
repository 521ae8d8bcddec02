//! Reads back the `.vdb` files Plume's writer ([`super::vdb`]) makes: their float and vec3
//! grids, full or half precision, into dense arrays. It reads that layout and only that one
//! (a 5-4-3 tree of leaves with active-mask zlib values, no tiles); a file from another
//! program is refused with a message saying so, never misread.

/// One grid of a file, dense over `dims` (x-fastest), `components` floats a cell (1 or 3);
/// cells outside every written leaf hold 0, the grid's background.
#[derive(Clone, Debug, PartialEq)]
pub struct DenseGrid {
    /// The grid's name (`density`, `velocity`, …).
    pub name: String,
    /// Floats a cell.
    pub components: usize,
    /// The values, `components` per cell, x-fastest.
    pub values: Vec<f32>,
}

/// A cursor over the file's bytes; every read names what it wanted when the file ends early.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl<'a> Bytes<'a> {
    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.data.len());
        let Some(end) = end else {
            return Err(format!("the file ends inside {what} (at byte {})", self.at));
        };
        let s = &self.data[self.at..end];
        self.at = end;
        Ok(s)
    }
    fn u8(&mut self, what: &str) -> Result<u8, String> {
        Ok(self.take(1, what)?[0])
    }
    fn u32(&mut self, what: &str) -> Result<u32, String> {
        let b = self.take(4, what)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }
    fn i32(&mut self, what: &str) -> Result<i32, String> {
        Ok(self.u32(what)? as i32)
    }
    fn i64(&mut self, what: &str) -> Result<i64, String> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(i64::from_le_bytes(a))
    }
    fn string(&mut self, what: &str) -> Result<String, String> {
        let n = self.u32(what)? as usize;
        let b = self.take(n, what)?;
        Ok(String::from_utf8_lossy(b).into_owned())
    }
    fn mask(&mut self, words: usize, what: &str) -> Result<Vec<u64>, String> {
        let b = self.take(8 * words, what)?;
        Ok(b.chunks_exact(8)
            .map(|w| {
                let mut a = [0u8; 8];
                a.copy_from_slice(w);
                u64::from_le_bytes(a)
            })
            .collect())
    }
    /// Name → value pairs of a metadata block.
    fn metadata(&mut self, what: &str) -> Result<Vec<(String, Vec<u8>)>, String> {
        let n = self.u32(what)?;
        let mut out = Vec::new();
        for _ in 0..n {
            let name = self.string(what)?;
            let _ty = self.string(what)?;
            let len = self.u32(what)? as usize;
            out.push((name, self.take(len, what)?.to_vec()));
        }
        Ok(out)
    }
}

/// The set bits of a mask, ascending.
fn bits(mask: &[u64]) -> impl Iterator<Item = usize> + '_ {
    mask.iter().enumerate().flat_map(|(w, &word)| {
        let mut left = word;
        std::iter::from_fn(move || {
            (left != 0).then(|| {
                let b = left.trailing_zeros() as usize;
                left &= left - 1;
                64 * w + b
            })
        })
    })
}

/// A node's values block, located but not yet inflated.
enum Block<'a> {
    /// Stored as they are.
    Raw(&'a [u8]),
    /// zlib-compressed.
    Zipped(&'a [u8]),
}

impl Block<'_> {
    /// The block's `want` bytes, inflating with `z` (reset first) where it is compressed.
    fn bytes(
        &self,
        z: &mut flate2::Decompress,
        want: usize,
        what: &str,
    ) -> Result<Vec<u8>, String> {
        match self {
            Block::Raw(b) => Ok(b.to_vec()),
            Block::Zipped(b) => {
                z.reset(true);
                let mut raw = Vec::with_capacity(want);
                let status = z
                    .decompress_vec(b, &mut raw, flate2::FlushDecompress::Finish)
                    .map_err(|e| format!("{what} does not inflate ({e})"))?;
                if raw.len() != want || status != flate2::Status::StreamEnd {
                    return Err(format!(
                        "{what} inflates to {}{} bytes where its mask asks {want}",
                        raw.len(),
                        if status == flate2::Status::StreamEnd {
                            ""
                        } else {
                            " or more"
                        }
                    ));
                }
                Ok(raw)
            }
        }
    }
}

/// A node's values block as Plume writes it: metadata byte 0, then (full precision, or any
/// values) a byte count, negative for raw bytes, and the bytes, `want` of them once inflated.
fn block<'a>(b: &mut Bytes<'a>, half: bool, want: usize, what: &str) -> Result<Block<'a>, String> {
    let meta = b.u8(what)?;
    if meta != 0 {
        return Err(format!(
            "{what} uses value compression {meta}, which Plume does not write"
        ));
    }
    if want == 0 && half {
        return Ok(Block::Raw(&[]));
    }
    let count = b.i64(what)?;
    if count == 0 && want == 0 {
        return Ok(Block::Raw(&[]));
    }
    if count < 0 {
        let n = count.unsigned_abs() as usize;
        if n != want {
            return Err(format!("{what} holds {n} bytes where its mask asks {want}"));
        }
        return Ok(Block::Raw(b.take(n, what)?));
    }
    Ok(Block::Zipped(b.take(count as usize, what)?))
}

/// Reads the grids of a Plume `.vdb` file that `want` picks by name into arrays over `dims`
/// (the file's grid, cell (0, 0, 0) at index (0, 0, 0)); the others are skipped. Err names
/// what is wrong with the file.
pub fn decode(
    data: &[u8],
    dims: [usize; 3],
    want: &dyn Fn(&str) -> bool,
) -> Result<Vec<DenseGrid>, String> {
    let mut b = Bytes { data, at: 0 };
    if b.i64("the header")? != 0x5644_4220 {
        return Err("it is not an OpenVDB file (no VDB magic number)".into());
    }
    let version = b.u32("the header")?;
    b.take(8, "the header")?;
    if b.u8("the header")? != 1 {
        return Err("its grids have no offsets (not a file Plume wrote)".into());
    }
    b.take(36, "the header")?;
    let meta = b.metadata("the file's metadata")?;
    let creator = meta
        .iter()
        .find(|(n, _)| n == "creator")
        .map(|(_, v)| String::from_utf8_lossy(v).into_owned())
        .unwrap_or_default();
    if version != 224 || !creator.starts_with("Plume") {
        return Err(format!(
            "it was written by {} (file version {version}), not by Plume; Plume reads back \
             the .vdb files it wrote itself",
            if creator.is_empty() {
                "another program"
            } else {
                &creator
            }
        ));
    }
    let n = b.u32("the grid count")? as usize;
    let cells = dims[0] * dims[1] * dims[2];
    let mut grids = Vec::new();
    for _ in 0..n {
        if let Some(g) = grid(&mut b, dims, cells, want)? {
            grids.push(g);
        }
    }
    Ok(grids)
}

/// The next grid, or `None` (skipped to its end) where `want` does not pick it.
fn grid(
    b: &mut Bytes<'_>,
    dims: [usize; 3],
    cells: usize,
    want: &dyn Fn(&str) -> bool,
) -> Result<Option<DenseGrid>, String> {
    let name = b.string("a grid's name")?;
    let what = format!("grid '{name}'");
    let ty = b.string(&what)?;
    let (components, half) = match ty.as_str() {
        "Tree_float_5_4_3" => (1, false),
        "Tree_float_5_4_3_HalfFloat" => (1, true),
        "Tree_vec3s_5_4_3" => (3, false),
        "Tree_vec3s_5_4_3_HalfFloat" => (3, true),
        _ => return Err(format!("{what} is a {ty}, which Plume does not write")),
    };
    b.string(&what)?;
    let end = b.mask(3, &what)?[2] as usize;
    if !want(&name) {
        if end < b.at || end > b.data.len() {
            return Err(format!("{what} ends outside the file"));
        }
        b.at = end;
        return Ok(None);
    }
    if b.u32(&what)? != 3 {
        return Err(format!("{what} is not compressed as Plume writes it"));
    }
    b.metadata(&what)?;
    if b.string(&what)? != "UniformScaleTranslateMap" {
        return Err(format!("{what} has a transform Plume does not write"));
    }
    b.take(18 * 8, &what)?;
    if b.i32(&what)? != 1 {
        return Err(format!("{what} has a buffer count Plume does not write"));
    }
    b.take(4 * components, &what)?;
    if b.u32(&what)? != 0 {
        return Err(format!("{what} has tiles, which Plume does not write"));
    }
    // Topology: the leaves' origins, in write order.
    let mut origins = Vec::new();
    let roots = b.u32(&what)?;
    for _ in 0..roots {
        let root = [b.i32(&what)?, b.i32(&what)?, b.i32(&what)?];
        let l1s = b.mask(512, &what)?;
        b.mask(512, &what)?;
        block(b, half, 0, &what)?;
        for l1 in bits(&l1s).collect::<Vec<_>>() {
            let p1 = [l1 >> 10, (l1 >> 5) & 31, l1 & 31].map(|c| (c as i32) << 7);
            let leaves = b.mask(64, &what)?;
            b.mask(64, &what)?;
            block(b, half, 0, &what)?;
            for lf in bits(&leaves) {
                let p = [lf >> 8, (lf >> 4) & 15, lf & 15].map(|c| (c as i32) << 3);
                origins.push([0, 1, 2].map(|a| root[a] + p1[a] + p[a]));
                b.mask(8, &what)?;
            }
        }
    }
    // The leaves' blocks, found in order (each names its length), then inflated and
    // decoded in parallel: a 128³ frame's velocity is thousands of zlib blocks.
    let size = if half { 2 } else { 4 };
    let mut blocks = Vec::with_capacity(origins.len());
    for o in origins {
        let mask = b.mask(8, &what)?;
        let active: Vec<u16> = bits(&mask).map(|i| i as u16).collect();
        let want = active.len() * components * size;
        blocks.push((o, active, block(b, half, want, &what)?));
    }
    use rayon::prelude::*;
    let decoded: Vec<Vec<f32>> = blocks
        .par_iter()
        .map_init(
            || flate2::Decompress::new(true),
            |z, (_, active, blk)| {
                let want = active.len() * components * size;
                let raw = blk.bytes(z, want, &what)?;
                Ok(match half {
                    true => raw
                        .chunks_exact(2)
                        .map(|c| half::f16::from_le_bytes([c[0], c[1]]).to_f32())
                        .collect(),
                    false => raw
                        .chunks_exact(4)
                        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                        .collect(),
                })
            },
        )
        .collect::<Result<_, String>>()?;
    let mut out = Vec::new();
    out.try_reserve_exact(cells * components)
        .map_err(|_| format!("not enough memory for {what} ({cells} cells)"))?;
    out.resize(cells * components, 0.0f32);
    let n = dims.map(|d| d as i64);
    for ((o, active, _), values) in blocks.iter().zip(decoded) {
        let o = o.map(i64::from);
        // A leaf wholly inside the grid needs no check a voxel (most do).
        let inside = (0..3).all(|a| o[a] >= 0 && o[a] + 8 <= n[a]);
        for (k, &bit) in active.iter().enumerate() {
            let bit = i64::from(bit);
            let c = [o[0] + (bit >> 6), o[1] + ((bit >> 3) & 7), o[2] + (bit & 7)];
            if !inside && (0..3).any(|a| c[a] < 0 || c[a] >= n[a]) {
                return Err(format!(
                    "{what} has a voxel at {c:?}, outside the run's {}×{}×{} grid",
                    dims[0], dims[1], dims[2]
                ));
            }
            let cell = (c[0] + n[0] * (c[1] + n[1] * c[2])) as usize;
            out[cell * components..(cell + 1) * components]
                .copy_from_slice(&values[k * components..(k + 1) * components]);
        }
    }
    if b.at != end {
        return Err(format!("{what} does not end where its offset says"));
    }
    Ok(Some(DenseGrid {
        name,
        components,
        values: out,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::export::vdb::{encode, VdbOptions};
    use crate::frame::Frame;
    use crate::sim::{Dims, Grid};

    fn frame() -> Frame {
        let d = Dims::new(21, 9, 13);
        let g = Grid::new(d, 0.1, [0.0, 0.5, -1.0]).expect("grid");
        let mut f = Frame::empty(g, 3, 0.05);
        f.density = Some(
            (0..d.cells())
                .map(|c| if c % 7 < 3 { 0.0 } else { c as f32 * 1e-3 })
                .collect(),
        );
        f.velocity = Some(
            (0..d.cells())
                .map(|c| [c as f32 * 0.5, -1.0, if c % 5 == 0 { 0.0 } else { 2.0 }])
                .collect(),
        );
        f
    }

    #[test]
    fn reads_back_what_the_writer_wrote_full_and_half() {
        let f = frame();
        let dims = f.grid.dims.as_array();
        for half in [false, true] {
            let opts = VdbOptions {
                half,
                cutoff: 0.0,
                ..VdbOptions::default()
            };
            let grids = decode(&encode(&f, &opts), dims, &|_| true).expect("decode");
            assert_eq!(grids.len(), 2);
            assert_eq!(
                (grids[0].name.as_str(), grids[0].components),
                ("density", 1)
            );
            assert_eq!(
                (grids[1].name.as_str(), grids[1].components),
                ("velocity", 3)
            );
            let want_v: &[f32] = f.velocity.as_ref().expect("v").as_flattened();
            for (got, want) in [(&grids[0].values, f.density()), (&grids[1].values, want_v)] {
                for (g, w) in got.iter().zip(want) {
                    let tol = if half { 1e-3 * w.abs().max(1.0) } else { 0.0 };
                    assert!((g - w).abs() <= tol, "{g} vs {w} (half {half})");
                }
            }
        }
    }

    #[test]
    fn a_damaged_or_foreign_file_is_refused_with_a_reason() {
        let f = frame();
        let dims = f.grid.dims.as_array();
        let bytes = encode(&f, &VdbOptions::default());
        let cut = decode(&bytes[..bytes.len() - 10], dims, &|_| true).expect_err("cut short");
        assert!(cut.contains("ends inside grid 'velocity'"), "{cut}");
        let mut other = bytes.clone();
        let at = other
            .windows(5)
            .position(|w| w == b"Plume")
            .expect("creator");
        other[at..at + 5].copy_from_slice(b"Xlume");
        let e = decode(&other, dims, &|_| true).expect_err("foreign");
        assert!(e.contains("not by Plume"), "{e}");
        let e = decode(&bytes, [8, 8, 8], &|_| true).expect_err("smaller grid");
        assert!(e.contains("outside the run's 8×8×8 grid"), "{e}");
        assert!(decode(b"not a vdb at all", dims, &|_| true)
            .expect_err("text")
            .contains("not an OpenVDB file"));
    }

    #[test]
    fn garbled_files_give_errors_or_values_never_a_panic() {
        let f = frame();
        let dims = f.grid.dims.as_array();
        for half in [false, true] {
            let opts = VdbOptions {
                half,
                ..VdbOptions::default()
            };
            let bytes = encode(&f, &opts);
            let mut seed = 0x9e37_79b9_7f4a_7c15u64;
            let mut next = || {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                seed
            };
            for _ in 0..400 {
                let mut b = bytes.clone();
                for _ in 0..1 + next() % 4 {
                    let at = (next() % b.len() as u64) as usize;
                    b[at] = next() as u8;
                }
                let cut = (next() % (b.len() as u64 + 1)) as usize;
                let _ = decode(&b, dims, &|_| true);
                let _ = decode(&b[..cut], dims, &|_| true);
            }
        }
    }
}
