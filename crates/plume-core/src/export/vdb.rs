//! OpenVDB writer (file version 224, as OpenVDB 10 and Blender read it): fog-volume float
//! grids named as Blender's Principled Volume reads them (`density`, `temperature`, `flame`,
//! `fuel`) and a vec3 grid `velocity` in a sparse 5-4-3 tree, active-value masks with zlib
//! compression, optional half precision. Layout facts: `shared/notes/openvdb-layout.md`.
//!
//! Pitfalls that give wrong data without an error, handled here: root children are written
//! sorted by origin (x, then y, then z); children of internal nodes in ascending bit order,
//! where z varies fastest; leaf voxels z-fastest (Plume's grids are x-fastest).

use super::{ExportError, ExportOptions, Exporter};
use crate::frame::Frame;
use flate2::write::ZlibEncoder;
use flate2::Compression;
use std::collections::BTreeMap;
use std::io::Write;

/// Writer options.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VdbOptions {
    /// Store values as 16-bit floats.
    pub half: bool,
    /// Leaves whose values all have magnitude ≤ cutoff are left out (the tree stays sparse).
    pub cutoff: f32,
    /// Index of the grid's cell (0, 0, 0) in the VDB's index space (the transform compensates,
    /// so world positions do not change).
    pub index_offset: [i32; 3],
}

impl Default for VdbOptions {
    fn default() -> Self {
        Self {
            half: false,
            cutoff: 0.0,
            index_offset: [0; 3],
        }
    }
}

/// A value type a grid can hold.
trait Value: Copy {
    const TREE: &'static str;
    fn magnitude(&self) -> f32;
    fn is_background(&self) -> bool;
    fn put(&self, out: &mut Vec<u8>, half: bool);
    /// The background value, full precision.
    fn put_background(out: &mut Vec<u8>);
}

impl Value for f32 {
    const TREE: &'static str = "Tree_float_5_4_3";
    fn magnitude(&self) -> f32 {
        self.abs()
    }
    fn is_background(&self) -> bool {
        *self == 0.0
    }
    fn put(&self, out: &mut Vec<u8>, half: bool) {
        if half {
            out.extend_from_slice(&half::f16::from_f32(*self).to_le_bytes());
        } else {
            out.extend_from_slice(&self.to_le_bytes());
        }
    }
    fn put_background(out: &mut Vec<u8>) {
        out.extend_from_slice(&0f32.to_le_bytes());
    }
}

impl Value for [f32; 3] {
    const TREE: &'static str = "Tree_vec3s_5_4_3";
    fn magnitude(&self) -> f32 {
        self.iter().fold(0.0f32, |m, c| m.max(c.abs()))
    }
    fn is_background(&self) -> bool {
        self.iter().all(|c| *c == 0.0)
    }
    fn put(&self, out: &mut Vec<u8>, half: bool) {
        for c in self {
            c.put(out, half);
        }
    }
    fn put_background(out: &mut Vec<u8>) {
        for _ in 0..3 {
            f32::put_background(out);
        }
    }
}

fn put_u32(o: &mut Vec<u8>, v: u32) {
    o.extend_from_slice(&v.to_le_bytes());
}
fn put_i32(o: &mut Vec<u8>, v: i32) {
    o.extend_from_slice(&v.to_le_bytes());
}
fn put_i64(o: &mut Vec<u8>, v: i64) {
    o.extend_from_slice(&v.to_le_bytes());
}
fn put_str(o: &mut Vec<u8>, s: &str) {
    put_u32(o, s.len() as u32);
    o.extend_from_slice(s.as_bytes());
}
fn put_meta(o: &mut Vec<u8>, name: &str, ty: &str, value: &[u8]) {
    put_str(o, name);
    put_str(o, ty);
    put_u32(o, value.len() as u32);
    o.extend_from_slice(value);
}
/// A bit mask as little-endian u64 words.
fn put_mask(o: &mut Vec<u8>, bits: &[u64]) {
    for w in bits {
        o.extend_from_slice(&w.to_le_bytes());
    }
}

/// A values block with active-mask compression: metadata byte 0 (every inactive value is
/// the background), then the active values, zlib-compressed behind their byte count. With no
/// values, full precision still writes a zero count; OpenVDB's half writer writes nothing.
fn put_values(o: &mut Vec<u8>, raw: &[u8], half: bool) {
    o.push(0);
    if raw.is_empty() {
        if !half {
            put_i64(o, 0);
        }
        return;
    }
    let mut z = ZlibEncoder::new(Vec::with_capacity(raw.len() / 2), Compression::fast());
    // Writing to a Vec cannot fail.
    let _ = z.write_all(raw);
    let zipped = z.finish().unwrap_or_default();
    if zipped.is_empty() || zipped.len() >= raw.len() {
        // Negative count: stored uncompressed.
        put_i64(o, -(raw.len() as i64));
        o.extend_from_slice(raw);
    } else {
        put_i64(o, zipped.len() as i64);
        o.extend_from_slice(&zipped);
    }
}

/// Sort key of a leaf: root-child origin, level-1 position, leaf position — each (x, y, z),
/// so lexicographic order is OpenVDB's write order.
type LeafKey = [i32; 9];

/// The level-1 nodes of one root child, each with its leaves, in write order.
type Level1s<'a, V> = BTreeMap<[i32; 3], Vec<&'a Leaf<V>>>;

struct Leaf<V> {
    origin: [i32; 3],
    mask: [u64; 8],
    values: Vec<V>,
}

fn leaves<V: Value>(frame: &Frame, data: &[V], o: &VdbOptions) -> BTreeMap<LeafKey, Leaf<V>> {
    let d = frame.grid.dims;
    let off = o.index_offset;
    let mut out = BTreeMap::new();
    let lo = |a: usize| (off[a]).div_euclid(8) * 8;
    let hi = |a: usize, n: usize| (off[a] + n as i32 - 1).div_euclid(8) * 8;
    let n = d.as_array();
    let mut ox = lo(0);
    while ox <= hi(0, n[0]) {
        let mut oy = lo(1);
        while oy <= hi(1, n[1]) {
            let mut oz = lo(2);
            while oz <= hi(2, n[2]) {
                let origin = [ox, oy, oz];
                let mut values = Vec::new();
                let mut mask = [0u64; 8];
                let mut keep = false;
                // Voxel order inside a leaf: offset = x·64 + y·8 + z (z fastest).
                for lx in 0..8 {
                    for ly in 0..8 {
                        for lz in 0..8 {
                            let g = [ox + lx, oy + ly, oz + lz];
                            let c = [0, 1, 2].map(|a| g[a] - off[a]);
                            if (0..3).any(|a| c[a] < 0 || c[a] >= n[a] as i32) {
                                continue;
                            }
                            let v = data[d.idx(c[0] as usize, c[1] as usize, c[2] as usize)];
                            if v.magnitude() > o.cutoff {
                                keep = true;
                            }
                            if !v.is_background() {
                                let bit = (lx * 64 + ly * 8 + lz) as usize;
                                mask[bit / 64] |= 1 << (bit % 64);
                                values.push(v);
                            }
                        }
                    }
                }
                if keep {
                    let root = origin.map(|c| c.div_euclid(4096) * 4096);
                    let l1 = [0, 1, 2].map(|a| (origin[a] - root[a]) >> 7);
                    let lf = [0, 1, 2].map(|a| (origin[a] - root[a] - (l1[a] << 7)) >> 3);
                    let key = [
                        root[0], root[1], root[2], l1[0], l1[1], l1[2], lf[0], lf[1], lf[2],
                    ];
                    out.insert(
                        key,
                        Leaf {
                            origin,
                            mask,
                            values,
                        },
                    );
                }
                oz += 8;
            }
            oy += 8;
        }
        ox += 8;
    }
    out
}

fn grid<V: Value>(o: &mut Vec<u8>, name: &str, frame: &Frame, data: &[V], opts: &VdbOptions) {
    let tree_type = if opts.half {
        format!("{}_HalfFloat", V::TREE)
    } else {
        V::TREE.to_string()
    };
    put_str(o, name);
    put_str(o, &tree_type);
    put_str(o, ""); // instance parent
    let offsets_at = o.len();
    put_i64(o, 0);
    put_i64(o, 0);
    put_i64(o, 0);
    let grid_start = o.len();
    put_u32(o, 3); // zip + active mask
                   // Grid metadata: Blender needs `name`; `class` makes it a fog volume.
    let mut meta = Vec::new();
    let mut count = 2;
    put_meta(&mut meta, "class", "string", b"fog volume");
    put_meta(&mut meta, "name", "string", name.as_bytes());
    if opts.half {
        put_meta(&mut meta, "is_saved_as_half_float", "bool", &[1]);
        count += 1;
    }
    put_u32(o, count);
    o.extend_from_slice(&meta);
    // Transform: index (i, j, k) sits at the centre of cell (i, j, k) − offset.
    let h = frame.grid.h as f64;
    put_str(o, "UniformScaleTranslateMap");
    let t =
        [0, 1, 2].map(|a| frame.grid.origin[a] as f64 + (0.5 - opts.index_offset[a] as f64) * h);
    for v in t
        .into_iter()
        .chain([h; 3])
        .chain([h; 3])
        .chain([1.0 / h; 3])
        .chain([1.0 / (h * h); 3])
        .chain([0.5 / h; 3])
    {
        o.extend_from_slice(&v.to_le_bytes());
    }
    let leaves = leaves(frame, data, opts);
    // Group: root children → level-1 nodes → leaves, all in write order.
    let mut roots: BTreeMap<[i32; 3], Level1s<'_, V>> = BTreeMap::new();
    for (k, leaf) in &leaves {
        roots
            .entry([k[0], k[1], k[2]])
            .or_default()
            .entry([k[3], k[4], k[5]])
            .or_default()
            .push(leaf);
    }
    // Topology.
    put_i32(o, 1); // buffer count
    V::put_background(o);
    put_u32(o, 0); // tiles
    put_u32(o, roots.len() as u32);
    for (root, l1s) in &roots {
        for c in root {
            put_i32(o, *c);
        }
        let mut child = vec![0u64; 32 * 32 * 32 / 64];
        for p in l1s.keys() {
            let bit = ((p[0] << 10) | (p[1] << 5) | p[2]) as usize;
            child[bit / 64] |= 1 << (bit % 64);
        }
        put_mask(o, &child);
        put_mask(o, &vec![0u64; child.len()]);
        put_values(o, &[], opts.half);
        for l1 in l1s.values() {
            let mut child = vec![0u64; 16 * 16 * 16 / 64];
            for leaf in l1 {
                let r = root;
                let lf = [0, 1, 2].map(|a| ((leaf.origin[a] - r[a]) >> 3) & 15);
                let bit = ((lf[0] << 8) | (lf[1] << 4) | lf[2]) as usize;
                child[bit / 64] |= 1 << (bit % 64);
            }
            put_mask(o, &child);
            put_mask(o, &vec![0u64; child.len()]);
            put_values(o, &[], opts.half);
            for leaf in l1 {
                put_mask(o, &leaf.mask);
            }
        }
    }
    // Leaf data, same order.
    let block = o.len();
    let mut raw = Vec::new();
    for leaf in leaves.values() {
        put_mask(o, &leaf.mask);
        raw.clear();
        for v in &leaf.values {
            v.put(&mut raw, opts.half);
        }
        put_values(o, &raw, opts.half);
    }
    let end = o.len();
    for (i, v) in [grid_start, block, end].into_iter().enumerate() {
        o[offsets_at + 8 * i..offsets_at + 8 * i + 8].copy_from_slice(&(v as i64).to_le_bytes());
    }
}

/// A UUID-shaped identifier for the header (time and process based; uniqueness is all
/// OpenVDB asks of it).
fn uuid() -> String {
    let t = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0);
    let x = t ^ ((std::process::id() as u128) << 64);
    let hex = format!("{x:032x}");
    format!(
        "{}-{}-{}-{}-{}",
        &hex[0..8],
        &hex[8..12],
        &hex[12..16],
        &hex[16..20],
        &hex[20..32]
    )
}

/// Encodes the frame's fields as a complete `.vdb` file.
pub fn encode(frame: &Frame, opts: &VdbOptions) -> Vec<u8> {
    let mut o = Vec::new();
    o.extend_from_slice(&0x5644_4220i64.to_le_bytes());
    put_u32(&mut o, 224);
    put_u32(&mut o, 10);
    put_u32(&mut o, 0);
    o.push(1); // grid offsets follow
    o.extend_from_slice(uuid().as_bytes());
    // File metadata.
    put_u32(&mut o, 1);
    put_meta(
        &mut o,
        "creator",
        "string",
        format!("Plume {}", env!("CARGO_PKG_VERSION")).as_bytes(),
    );
    let scalars = frame.scalars();
    let count = scalars.len() as u32 + frame.velocity.is_some() as u32;
    put_u32(&mut o, count);
    for (name, data) in scalars {
        grid(&mut o, name, frame, data, opts);
    }
    if let Some(v) = &frame.velocity {
        grid(&mut o, "velocity", frame, v, opts);
    }
    o
}

/// The `.vdb` exporter: one file a frame, a float grid per scalar field and a vec3 grid
/// `velocity`.
pub struct VdbExporter;

impl Exporter for VdbExporter {
    fn ext(&self) -> &'static str {
        "vdb"
    }
    fn about(&self) -> &'static str {
        "OpenVDB, for Blender and Houdini"
    }
    fn write(
        &self,
        stage: &mut crate::atomic::Staging,
        n: u32,
        frame: &Frame,
        opts: &ExportOptions,
    ) -> Result<Vec<String>, ExportError> {
        let vo = VdbOptions {
            half: opts.half,
            cutoff: opts.cutoff,
            index_offset: [0; 3],
        };
        let bytes = encode(frame, &vo);
        super::exporter::write_single(stage, opts, n, self.ext(), |w| w.write_all(&bytes))
    }
}
