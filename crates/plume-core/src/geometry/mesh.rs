//! Triangle meshes from Wavefront OBJ (read by `tobj`) and STL, ASCII or binary (read by
//! `stl_io`), with every problem a user can cause named with the file and, for the text
//! formats, the line: a missing file, a truncated binary STL, an OBJ face that refers to a
//! vertex that does not exist, NaN or huge coordinates, too many triangles.

use rayon::prelude::*;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Seek};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Most triangles a mesh may have (a few million is what a detailed exported object has;
/// more would take seconds to voxelise and hundreds of megabytes to hold).
pub const MAX_TRIANGLES: usize = 4_000_000;
/// Largest absolute vertex coordinate accepted, in the file's own units.
pub const MAX_COORD: f32 = 1e6;

/// An indexed triangle mesh in its file's own coordinates.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mesh {
    /// Vertex positions.
    pub vertices: Vec<[f32; 3]>,
    /// Triangles as three indices into `vertices`.
    pub triangles: Vec<[u32; 3]>,
    /// Edges not shared by exactly two triangles (0 for a closed mesh), counted by
    /// [`Mesh::load`].
    pub open_edges: usize,
}

/// Why a mesh file could not be read. The message names the file (and the line in a text
/// format).
#[derive(Debug, thiserror::Error)]
#[error("{}{}: {message}", path.display(), line.map(|l| format!(", line {l}")).unwrap_or_default())]
pub struct MeshError {
    /// The file.
    pub path: PathBuf,
    /// The 1-based line, for text formats where one is to blame.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

fn err(path: &Path, line: Option<usize>, message: impl Into<String>) -> MeshError {
    MeshError {
        path: path.to_path_buf(),
        line,
        message: message.into(),
    }
}

impl Mesh {
    /// Reads an OBJ or STL file (chosen by its extension, `.obj` or `.stl`). A path
    /// `builtin:NAME` names a mesh that ships inside Plume (see [`BUILTIN`]).
    pub fn load(path: &Path) -> Result<Mesh, MeshError> {
        let ext = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let text = path.to_string_lossy();
        let owned;
        let bytes: &[u8] = if let Some(name) = text.strip_prefix("builtin:") {
            BUILTIN
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, b)| *b)
                .ok_or_else(|| {
                    let names: Vec<_> = BUILTIN.iter().map(|(n, _)| *n).collect();
                    err(
                        path,
                        None,
                        format!(
                            "no built-in mesh of that name (there are: {})",
                            names.join(", ")
                        ),
                    )
                })?
        } else {
            owned = read_capped(path)?;
            &owned
        };
        let mesh = match ext.as_deref() {
            Some("obj") => read_obj(path, bytes)?,
            Some("stl") => read_stl(path, bytes)?,
            _ => {
                return Err(err(
                    path,
                    None,
                    "unknown mesh format: the file must end in .obj (Wavefront OBJ) or .stl",
                ))
            }
        };
        mesh.check(path)?;
        let mut mesh = mesh;
        mesh.open_edges = mesh.count_open_edges();
        Ok(mesh)
    }

    /// Checks coordinates, indices and size (for meshes built in code as for read ones).
    pub fn check(&self, path: &Path) -> Result<(), MeshError> {
        if self.triangles.is_empty() {
            return Err(err(path, None, "the mesh has no triangles"));
        }
        if self.triangles.len() > MAX_TRIANGLES {
            return Err(err(
                path,
                None,
                format!(
                    "the mesh has {} triangles; at most {MAX_TRIANGLES} are allowed (decimate it first)",
                    self.triangles.len()
                ),
            ));
        }
        if let Some((i, v)) = self
            .vertices
            .iter()
            .enumerate()
            .find(|(_, v)| !v.iter().all(|c| c.is_finite() && c.abs() <= MAX_COORD))
        {
            return Err(err(
                path,
                None,
                format!(
                    "vertex {} is {v:?}: coordinates must be finite and within ±{MAX_COORD}",
                    i + 1
                ),
            ));
        }
        let n = self.vertices.len() as u32;
        if let Some(t) = self.triangles.iter().find(|t| t.iter().any(|&i| i >= n)) {
            return Err(err(
                path,
                None,
                format!("a triangle refers to vertex {t:?} of {n}"),
            ));
        }
        Ok(())
    }

    /// Axis-aligned bounds (min, max) of the vertices that triangles use.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let mut lo = [f32::INFINITY; 3];
        let mut hi = [f32::NEG_INFINITY; 3];
        for v in &self.vertices {
            for a in 0..3 {
                lo[a] = lo[a].min(v[a]);
                hi[a] = hi[a].max(v[a]);
            }
        }
        (lo, hi)
    }

    /// Edges used by exactly one triangle, or by more than two (0 for a closed mesh).
    pub fn count_open_edges(&self) -> usize {
        // Every edge as (smaller index, larger index), sorted: an edge shared by an even number
        // of triangles is closed.
        let mut edges: Vec<u64> = self
            .triangles
            .par_iter()
            .flat_map_iter(|t| {
                (0..3).map(move |e| {
                    let (a, b) = (t[e], t[(e + 1) % 3]);
                    (u64::from(a.min(b)) << 32) | u64::from(a.max(b))
                })
            })
            .collect();
        edges.par_sort_unstable();
        edges
            .chunk_by(|a, b| a == b)
            .filter(|run| run.len() % 2 == 1)
            .count()
    }

    /// The triangles with their corners, in `f64` (what the voxeliser works in).
    pub fn corners(&self) -> impl Iterator<Item = [[f64; 3]; 3]> + '_ {
        self.triangles.iter().map(|t| {
            t.map(|i| {
                let v = self.vertices[i as usize];
                [v[0] as f64, v[1] as f64, v[2] as f64]
            })
        })
    }
}

/// Checks every line of an OBJ file for what `tobj` would reject or accept wrongly, so the
/// message can name the line: vertices with fewer than three numbers or non-finite or huge
/// ones, faces with fewer than three corners or indices that refer to no vertex.
fn scan_obj(path: &Path, text: &str) -> Result<(), MeshError> {
    let mut verts: i64 = 0;
    for (n, line) in text.lines().enumerate() {
        let n = n + 1;
        let mut tok = line.split_whitespace();
        match tok.next() {
            Some("v") => {
                let nums: Vec<&str> = tok.take(3).collect();
                if nums.len() < 3 {
                    return Err(err(path, Some(n), "a vertex needs three coordinates"));
                }
                for s in nums {
                    let x: f32 = s.parse().map_err(|_| {
                        err(
                            path,
                            Some(n),
                            format!("vertex coordinate {s:?} is not a number"),
                        )
                    })?;
                    if !(x.is_finite() && x.abs() <= MAX_COORD) {
                        return Err(err(
                            path,
                            Some(n),
                            format!("vertex coordinate {s} must be finite and within ±{MAX_COORD}"),
                        ));
                    }
                }
                verts += 1;
            }
            Some("f") => {
                let corners: Vec<&str> = tok.collect();
                if corners.len() < 3 {
                    return Err(err(path, Some(n), "a face needs at least three corners"));
                }
                for c in corners {
                    let first = c.split('/').next().unwrap_or("");
                    let i: i64 = first.parse().map_err(|_| {
                        err(
                            path,
                            Some(n),
                            format!("face corner {c:?} is not a vertex index"),
                        )
                    })?;
                    let resolved = if i < 0 { verts + 1 + i } else { i };
                    if resolved < 1 || resolved > verts {
                        return Err(err(
                            path,
                            Some(n),
                            format!(
                                "the face refers to vertex {i}, but {verts} vertices are defined above it"
                            ),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn read_obj(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let line = bytes[..e.valid_up_to()]
            .iter()
            .filter(|&&b| b == b'\n')
            .count()
            + 1;
        err(
            path,
            Some(line),
            "not UTF-8 text (is it really an OBJ file?)",
        )
    })?;
    scan_obj(path, text)?;
    let opts = tobj::LoadOptions {
        triangulate: true,
        single_index: false,
        ignore_points: true,
        ignore_lines: true,
    };
    let (models, _) = tobj::load_obj_buf(&mut text.as_bytes(), &opts, |_| {
        Err(tobj::LoadError::GenericFailure)
    })
    .map_err(|e| err(path, None, format!("not a valid OBJ file ({e})")))?;
    let mut mesh = Mesh::default();
    for m in models {
        let base = mesh.vertices.len() as u32;
        let p = &m.mesh.positions;
        mesh.vertices
            .extend(p.chunks_exact(3).map(|c| [c[0], c[1], c[2]]));
        if mesh.triangles.len() + m.mesh.indices.len() / 3 > MAX_TRIANGLES {
            return Err(err(
                path,
                None,
                format!("the mesh has more than {MAX_TRIANGLES} triangles (decimate it first)"),
            ));
        }
        mesh.triangles.extend(
            m.mesh
                .indices
                .chunks_exact(3)
                .map(|t| [t[0] + base, t[1] + base, t[2] + base]),
        );
    }
    Ok(mesh)
}

/// The first line of an ASCII STL that is not one of its keywords, or a `vertex` line
/// without three finite numbers.
fn scan_ascii_stl(path: &Path, bytes: &[u8]) -> MeshError {
    for (n, line) in BufReader::new(bytes).lines().enumerate() {
        let Ok(line) = line else {
            return err(path, Some(n + 1), "not text");
        };
        let mut tok = line.split_whitespace();
        match tok.next() {
            None | Some("solid" | "facet" | "outer" | "endloop" | "endfacet" | "endsolid") => {}
            Some("vertex") => {
                let nums: Vec<f32> = tok.filter_map(|s| s.parse().ok()).collect();
                if nums.len() != 3 || !nums.iter().all(|x| x.is_finite() && x.abs() <= MAX_COORD) {
                    return err(
                        path,
                        Some(n + 1),
                        format!(
                            "`{}` needs three finite numbers within ±{MAX_COORD}",
                            line.trim()
                        ),
                    );
                }
            }
            Some(other) => {
                return err(
                    path,
                    Some(n + 1),
                    format!("unexpected `{other}` in an ASCII STL"),
                );
            }
        }
    }
    err(
        path,
        None,
        "the ASCII STL ends before its last facet is complete",
    )
}

fn read_stl(path: &Path, bytes: &[u8]) -> Result<Mesh, MeshError> {
    let len = bytes.len() as u64;
    let head = &bytes[..bytes.len().min(84)];
    let count = (head.len() == 84)
        .then(|| u32::from_le_bytes([head[80], head[81], head[82], head[83]]) as u64);
    let ascii = head.starts_with(b"solid") && count.is_none_or(|n| 84 + 50 * n != len);
    if !ascii {
        let Some(n) = count else {
            return Err(err(
                path,
                None,
                format!("truncated binary STL: {len} bytes, shorter than its 84-byte header"),
            ));
        };
        if n as usize > MAX_TRIANGLES {
            return Err(err(
                path,
                None,
                format!("the mesh has {n} triangles; at most {MAX_TRIANGLES} are allowed (decimate it first)"),
            ));
        }
        let need = 84 + 50 * n;
        if need != len {
            return Err(err(
                path,
                None,
                format!(
                    "truncated binary STL: its header says {n} triangles ({need} bytes), but the file has {len} bytes"
                ),
            ));
        }
    }
    let mut mesh = Mesh::default();
    let hint = if ascii {
        0
    } else {
        count.unwrap_or(0) as usize
    };
    let failed = stl_triangles(path, &mut std::io::Cursor::new(bytes), &mut mesh, hint)?;
    if failed {
        return Err(if ascii {
            scan_ascii_stl(path, bytes)
        } else {
            err(path, None, "not a valid binary STL")
        });
    }
    Ok(mesh)
}

/// Reads the triangles into `mesh`; `Ok(true)` when the reader failed part way.
/// `triangles`: how many the file holds, where its header says (0 where not known).
fn stl_triangles<R: Read + Seek>(
    path: &Path,
    reader: &mut R,
    mesh: &mut Mesh,
    triangles: usize,
) -> Result<bool, MeshError> {
    let Ok(tris) = stl_io::create_stl_reader(reader) else {
        return Ok(true);
    };
    // Corners as read; shared ones become one vertex below.
    let mut corners: Vec<[f32; 3]> = Vec::new();
    let no_memory = |corners: usize| {
        err(
            path,
            None,
            format!(
                "not enough memory to read the mesh ({} MiB for its {corners} corners)",
                (corners * 32) >> 20
            ),
        )
    };
    if corners.try_reserve_exact(3 * triangles).is_err() {
        return Err(no_memory(3 * triangles));
    }
    for t in tris {
        let Ok(t) = t else {
            return Ok(true);
        };
        if corners.len() / 3 >= MAX_TRIANGLES {
            return Err(err(
                path,
                None,
                format!("the mesh has more than {MAX_TRIANGLES} triangles (decimate it first)"),
            ));
        }
        corners.extend(t.vertices.map(|v| v.0));
    }
    // Equal corners (the same bits) are one vertex. Each corner as one 128-bit number, its
    // bits then its position, sorted in parallel: equal corners come together, each run in
    // the order read (rather than hashed one at a time: 12 million corners for 4 000 000
    // triangles took most of the seven seconds reading such a file took).
    let mut keyed: Vec<u128> = Vec::new();
    let mut id: Vec<u32> = Vec::new();
    if keyed.try_reserve_exact(corners.len()).is_err()
        || id.try_reserve_exact(corners.len()).is_err()
    {
        return Err(no_memory(corners.len()));
    }
    corners
        .par_iter()
        .enumerate()
        .map(|(i, c)| {
            let [x, y, z] = c.map(f32::to_bits);
            (u128::from(x) << 96) | (u128::from(y) << 64) | (u128::from(z) << 32) | i as u128
        })
        .collect_into_vec(&mut keyed);
    keyed.par_sort_unstable();
    id.resize(corners.len(), 0);
    let mut last = None;
    for k in keyed {
        let (bits, i) = (k >> 32, (k & 0xffff_ffff) as usize);
        if last != Some(bits) {
            mesh.vertices.push(corners[i]);
            last = Some(bits);
        }
        id[i] = mesh.vertices.len() as u32 - 1;
    }
    mesh.triangles = id.chunks_exact(3).map(|t| [t[0], t[1], t[2]]).collect();
    Ok(false)
}

/// Largest mesh file read (a binary STL of [`MAX_TRIANGLES`] is 200 MB).
pub const MAX_FILE_BYTES: u64 = 400 << 20;

/// Meshes that ship inside Plume, for the presets: `builtin:NAME` in a scene file.
pub const BUILTIN: &[(&str, &[u8])] = &[(
    "meshes/chimney.obj",
    include_bytes!("../../../../scenes/meshes/chimney.obj"),
)];

fn read_capped(path: &Path) -> Result<Vec<u8>, MeshError> {
    let meta = std::fs::metadata(path).map_err(|e| {
        let what = if e.kind() == std::io::ErrorKind::NotFound {
            "no such file".to_string()
        } else {
            format!("cannot read it ({e})")
        };
        err(path, None, what)
    })?;
    if !meta.is_file() {
        return Err(err(path, None, "not a plain file"));
    }
    if meta.len() > MAX_FILE_BYTES {
        return Err(err(
            path,
            None,
            format!(
                "{} bytes; mesh files are at most {MAX_FILE_BYTES} bytes",
                meta.len()
            ),
        ));
    }
    let mut bytes = Vec::new();
    std::fs::File::open(path)
        .and_then(|f| f.take(MAX_FILE_BYTES + 1).read_to_end(&mut bytes))
        .map_err(|e| err(path, None, format!("cannot read it ({e})")))?;
    Ok(bytes)
}

/// Meshes read so far, by path, with the file's length and modification time: a scene that
/// names one file many times (or is rebuilt in the viewer) reads it once.
#[allow(clippy::type_complexity)]
static CACHE: Mutex<Option<HashMap<PathBuf, (u64, Option<std::time::SystemTime>, Arc<Mesh>)>>> =
    Mutex::new(None);

/// Reads a mesh, or hands out the copy read before when the file has not changed since.
pub fn load_cached(path: &Path) -> Result<Arc<Mesh>, MeshError> {
    let meta = std::fs::metadata(path).ok();
    let stamp = meta.as_ref().map(|m| (m.len(), m.modified().ok()));
    if let (Some((len, time)), Ok(cache)) = (stamp, CACHE.lock()) {
        if let Some((l, t, m)) = cache.as_ref().and_then(|c| c.get(path)) {
            if *l == len && *t == time {
                return Ok(m.clone());
            }
        }
    }
    let mesh = Arc::new(Mesh::load(path)?);
    if let (Some((len, time)), Ok(mut cache)) = (stamp, CACHE.lock()) {
        cache
            .get_or_insert_with(HashMap::new)
            .insert(path.to_path_buf(), (len, time, mesh.clone()));
    }
    Ok(mesh)
}
