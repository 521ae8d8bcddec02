//! Scenes: a grid, fluid parameters, boundaries, emitters, obstacles, a camera and render
//! settings, read from and written to TOML files. The presets in `scenes/` are embedded in
//! the binary; `plume` is the default scene.

use crate::camera::OrbitCamera;
use crate::ranges::scene as ranges;
use crate::render_settings::{RenderSettings, MAX_OBSTACLES};
use crate::sim::grid::{MAX_AXIS_CELLS, MAX_TOTAL_CELLS};
use crate::sim::{
    Boundaries, Dims, Emitter, FireParams, FluidParams, Grid, Obstacle, SimError, Solver,
};
use std::fmt;

pub mod keys;
mod lint;
mod notes;
use std::path::Path;

/// The presets shipped with Plume: name and TOML text (the files in `scenes/`).
pub const PRESETS: [(&str, &str); 8] = [
    ("plume", include_str!("../../../scenes/plume.toml")),
    (
        "wind_tunnel",
        include_str!("../../../scenes/wind_tunnel.toml"),
    ),
    ("jets", include_str!("../../../scenes/jets.toml")),
    (
        "vortex_ring",
        include_str!("../../../scenes/vortex_ring.toml"),
    ),
    ("campfire", include_str!("../../../scenes/campfire.toml")),
    ("explosion", include_str!("../../../scenes/explosion.toml")),
    ("paddle", include_str!("../../../scenes/paddle.toml")),
    ("chimney", include_str!("../../../scenes/chimney.toml")),
];

/// Largest scene file read, in bytes.
pub const MAX_SCENE_BYTES: u64 = 1 << 20;

/// Grid placement of a scene.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GridSpec {
    /// Cells along x, y, z; each 3..=1024, at most `sim::grid::MAX_TOTAL_CELLS` in all.
    pub dims: [usize; 3],
    /// Length of the domain's largest side in domain units. Default 1; allowed (0, 10000].
    #[serde(default = "one")]
    pub size: f32,
    /// World position of the domain's minimum corner. Default [0, 0, 0].
    #[serde(default)]
    pub origin: [f32; 3],
}

fn one() -> f32 {
    1.0
}

/// Where the camera starts.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct CameraSpec {
    /// Degrees around the vertical axis, seen from +z. Default 30.
    pub yaw: f32,
    /// Degrees of elevation; allowed [−89, 89]. Default 20.
    pub pitch: f32,
    /// Distance from the target in domain units, allowed (0, 1000]; unset: fit the domain.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub distance: Option<f32>,
    /// Point looked at; unset: the domain's centre.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target: Option<[f32; 3]>,
}

impl Default for CameraSpec {
    fn default() -> Self {
        Self {
            yaw: 30.0,
            pitch: 20.0,
            distance: None,
            target: None,
        }
    }
}

impl CameraSpec {
    /// The orbit camera for a domain `[min, max]` and a view of `aspect` = width / height.
    pub fn camera(&self, min: [f32; 3], max: [f32; 3], aspect: f32) -> OrbitCamera {
        let mut c = OrbitCamera::from_degrees([0.0; 3], self.yaw, self.pitch, 1.0);
        c.frame(min, max, aspect);
        if let Some(t) = self.target {
            c.target = t.into();
        }
        if let Some(d) = self.distance {
            c.set_distance(d);
        }
        c
    }
}

/// A complete simulation set-up, as in a scene file.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Short name.
    pub name: String,
    /// One line about what the scene shows.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub description: String,
    /// Grid dimensions and placement.
    pub grid: GridSpec,
    /// Fluid and numerical parameters.
    #[serde(default)]
    pub fluid: FluidParams,
    /// How fuel burns (`[fire]`); only emitters with `fuel` or `flame` make fire.
    #[serde(default)]
    pub fire: FireParams,
    /// Boundary type of each face.
    #[serde(default)]
    pub boundaries: Boundaries,
    /// Smoke sources (`[[emitter]]` tables).
    #[serde(default, rename = "emitter")]
    pub emitters: Vec<Emitter>,
    /// Solid obstacles (`[[obstacle]]` tables).
    #[serde(default, rename = "obstacle")]
    pub obstacles: Vec<Obstacle>,
    /// Initial camera.
    #[serde(default)]
    pub camera: CameraSpec,
    /// Rendering settings.
    #[serde(default)]
    pub render: RenderSettings,
    /// The up-resolution pass (`[detail]`): off unless the scene or `--upres` turns it on.
    #[serde(default, skip_serializing_if = "detail_is_default")]
    pub detail: crate::sim::detail::DetailParams,
}

fn detail_is_default(d: &crate::sim::detail::DetailParams) -> bool {
    *d == crate::sim::detail::DetailParams::default()
}

/// A scene that could not be read, with where the problem is.
#[derive(Debug, Clone, PartialEq)]
pub struct SceneError {
    /// The file, when the scene came from one.
    pub file: Option<String>,
    /// 1-based line of the offending key or value, when known.
    pub line: Option<usize>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.file, self.line) {
            (Some(file), Some(l)) => write!(f, "{file}:{l}: {}", self.message),
            (Some(file), None) => write!(f, "{file}: {}", self.message),
            (None, Some(l)) => write!(f, "line {l}: {}", self.message),
            (None, None) => write!(f, "{}", self.message),
        }
    }
}

impl std::error::Error for SceneError {}

/// One step of a path into the document: a key or an array index.
#[derive(Clone, Debug, PartialEq)]
enum Seg {
    Key(String),
    Index(usize),
}

fn key(s: &str) -> Seg {
    Seg::Key(s.to_string())
}

/// A validation failure: where in the document and what.
struct Invalid {
    path: Vec<Seg>,
    message: String,
}

impl Invalid {
    fn at(path: Vec<Seg>, message: impl Into<String>) -> Self {
        Self {
            path,
            message: message.into(),
        }
    }
}

fn path_text(path: &[Seg]) -> String {
    let mut s = String::new();
    for p in path {
        match p {
            Seg::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Seg::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

fn line_of(text: &str, offset: usize) -> usize {
    text[..offset.min(text.len())].matches('\n').count() + 1
}

/// Byte offset of the deepest node of `path` present in the document.
fn locate(text: &str, path: &[Seg]) -> Option<usize> {
    use toml::de::{DeTable, DeValue};
    let doc = DeTable::parse(text).ok()?;
    let mut best = None;
    let mut table: Option<&DeTable<'_>> = Some(doc.get_ref());
    let mut value: Option<&DeValue<'_>> = None;
    for seg in path {
        match seg {
            Seg::Key(k) => {
                let Some(t) = table.or_else(|| value.and_then(|v| v.as_table())) else {
                    return best;
                };
                let Some((kk, v)) = t.get_key_value(k.as_str()) else {
                    return best;
                };
                best = Some(kk.span().start);
                value = Some(v.get_ref());
                table = None;
            }
            Seg::Index(i) => {
                let Some(item) = value.and_then(|v| v.as_array()).and_then(|a| a.get(*i)) else {
                    return best;
                };
                best = Some(item.span().start);
                value = Some(item.get_ref());
                table = None;
            }
        }
    }
    best
}

impl Default for Scene {
    fn default() -> Self {
        Self::default_plume()
    }
}

fn field_error(prefix: Vec<Seg>, e: SimError) -> Invalid {
    let what = path_text(&prefix);
    match e {
        SimError::Field { field, message } => {
            let mut p = prefix;
            // `key[1].time` → key, [1], time
            for part in field.split('.') {
                match part.split_once('[') {
                    Some((k, rest)) => {
                        p.push(key(k));
                        if let Ok(n) = rest.trim_end_matches(']').parse() {
                            p.push(Seg::Index(n));
                        }
                    }
                    None => p.push(key(part)),
                }
            }
            Invalid::at(
                p,
                if what.is_empty() {
                    message
                } else {
                    format!("{what}: {message}")
                },
            )
        }
        other => Invalid::at(prefix, format!("{what}: {other}")),
    }
}

impl Scene {
    /// The default scene: warm smoke rising from a floor emitter in a box with an open top.
    pub fn default_plume() -> Self {
        Self::preset("plume").expect("the embedded plume preset is valid")
    }

    /// One of the embedded presets by name.
    pub fn preset(name: &str) -> Option<Self> {
        let (_, text) = PRESETS.iter().find(|(n, _)| *n == name)?;
        let file = format!("preset {name}");
        Some(
            Self::from_toml(text, Some(&file))
                .unwrap_or_else(|e| panic!("embedded preset does not load: {e}")),
        )
    }

    /// Names of the presets.
    pub fn preset_names() -> Vec<&'static str> {
        PRESETS.iter().map(|(n, _)| *n).collect()
    }

    /// A scene from a command-line argument: a file path, or a preset name when no such file
    /// exists.
    pub fn resolve(arg: &str) -> Result<Self, SceneError> {
        let p = Path::new(arg);
        if !p.exists() {
            if let Some(s) = Self::preset(arg) {
                return Ok(s);
            }
            return Err(SceneError {
                file: Some(arg.to_string()),
                line: None,
                message: format!(
                    "no such file, and no preset of that name (presets: {})",
                    Self::preset_names().join(", ")
                ),
            });
        }
        Self::load(p)
    }

    /// Reads and validates a scene file (a plain file, or a link to one; FIFOs, sockets and
    /// devices are refused at once).
    pub fn load(path: &Path) -> Result<Self, SceneError> {
        let file = path.display().to_string();
        let err = |message: String| SceneError {
            file: Some(file.clone()),
            line: None,
            message,
        };
        let meta = std::fs::metadata(path).map_err(|e| err(format!("cannot read: {e}")))?;
        if meta.is_dir() {
            return Err(err("is a folder, not a scene file".into()));
        }
        if !meta.is_file() {
            // A FIFO would block the open until a writer came, a device may never end.
            return Err(err(format!(
                "is {}, not a scene file (give the path of a .toml file)",
                special_kind(&meta)
            )));
        }
        if meta.len() > MAX_SCENE_BYTES {
            return Err(err(format!(
                "is {} bytes; scene files are at most {MAX_SCENE_BYTES} bytes",
                meta.len()
            )));
        }
        // Read at most one byte past the cap whatever the file is: a device or pipe
        // (`/dev/zero`, `/dev/urandom`, a FIFO) reports no length but may never end.
        let mut bytes = Vec::new();
        std::fs::File::open(path)
            .and_then(|f| {
                std::io::Read::read_to_end(
                    &mut std::io::Read::take(f, MAX_SCENE_BYTES + 1),
                    &mut bytes,
                )
            })
            .map_err(|e| err(format!("cannot read: {e}")))?;
        if bytes.len() as u64 > MAX_SCENE_BYTES {
            return Err(err(format!(
                "is longer than {MAX_SCENE_BYTES} bytes (the most a scene file may hold)"
            )));
        }
        let text = String::from_utf8(bytes).map_err(|e| {
            err(format!(
                "is not UTF-8 text (byte {})",
                e.utf8_error().valid_up_to()
            ))
        })?;
        Self::from_toml(&text, Some(&file))
    }

    /// Parses and validates scene TOML; `file` names the source in messages.
    pub fn from_toml(text: &str, file: Option<&str>) -> Result<Self, SceneError> {
        if let Some(l) = lint::check(text) {
            return Err(SceneError {
                file: file.map(str::to_string),
                line: Some(line_of(text, l.offset)),
                message: l.message,
            });
        }
        let mut scene: Scene = toml::from_str(text).map_err(|e| SceneError {
            file: file.map(str::to_string),
            line: e.span().map(|s| line_of(text, s.start)),
            message: e.message().trim().to_string(),
        })?;
        scene.resolve_mesh_paths(file);
        scene.validate_inner().map_err(|inv| SceneError {
            file: file.map(str::to_string),
            line: locate(text, &inv.path).map(|o| line_of(text, o)),
            message: inv.message,
        })?;
        Ok(scene)
    }

    /// Makes every mesh `file` usable from anywhere: a relative path is taken from the scene
    /// file's folder (`source`), or, in a built-in preset, names a mesh that ships inside
    /// Plume (`builtin:…`).
    fn resolve_mesh_paths(&mut self, source: Option<&str>) {
        let preset = source.is_some_and(|f| f.starts_with("preset "));
        let base = source
            .filter(|_| !preset)
            .and_then(|f| Path::new(f).parent())
            .map(Path::to_path_buf);
        let files = self
            .obstacles
            .iter_mut()
            .map(|o| &mut o.file)
            .chain(self.emitters.iter_mut().map(|e| &mut e.file));
        for f in files.flatten() {
            if f.starts_with("builtin:") || Path::new(f.as_str()).is_absolute() {
                continue;
            }
            if preset {
                *f = format!("builtin:{f}");
            } else if let Some(b) = &base {
                if !b.as_os_str().is_empty() {
                    *f = b.join(&*f).to_string_lossy().into_owned();
                }
            }
        }
    }

    /// The scene as TOML that [`Scene::from_toml`] reads back to an equal scene.
    pub fn to_toml(&self) -> Result<String, SceneError> {
        let body = toml::to_string(self).map_err(|e| SceneError {
            file: None,
            line: None,
            message: format!("cannot write the scene as TOML: {e}"),
        })?;
        Ok(format!(
            "# Plume scene (see docs/scene-files.md for every key).\n{body}"
        ))
    }

    /// Writes the scene as TOML, atomically (a complete file or none).
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        let text = self.to_toml()?;
        crate::atomic::write_atomic(path, |w| w.write_all(text.as_bytes())).map_err(|e| {
            SceneError {
                file: Some(path.display().to_string()),
                line: None,
                message: format!("cannot write: {}", e.source),
            }
        })
    }

    /// Checks everything a solver or renderer would reject, with messages that name the key.
    pub fn validate(&self) -> Result<(), SceneError> {
        self.validate_inner().map_err(|inv| SceneError {
            file: None,
            line: None,
            message: inv.message,
        })
    }

    fn validate_inner(&self) -> Result<(), Invalid> {
        if self.name.trim().is_empty() || self.name.len() > 200 {
            return Err(Invalid::at(
                vec![key("name")],
                "name must have 1 to 200 characters",
            ));
        }
        let gp = || vec![key("grid"), key("dims")];
        let [nx, ny, nz] = self.grid.dims;
        for (a, n) in self.grid.dims.iter().enumerate() {
            if !(3..=MAX_AXIS_CELLS).contains(n) {
                return Err(Invalid::at(
                    gp(),
                    format!(
                        "grid.dims[{a}] = {n} is outside the allowed range [3, {MAX_AXIS_CELLS}]"
                    ),
                ));
            }
        }
        let cells = (nx as u128) * (ny as u128) * (nz as u128);
        if cells > MAX_TOTAL_CELLS as u128 {
            let need = self.memory_estimate(Dims::new(nx, ny, nz));
            return Err(Invalid::at(
                gp(),
                format!(
                    "grid.dims = {nx}×{ny}×{nz} is {cells} cells (the solver would need about \
                     {}); the limit is {MAX_TOTAL_CELLS} cells",
                    crate::sim::solver::memory::human(need)
                ),
            ));
        }
        let size = self.grid.size;
        if !ranges::GRID_SIZE.contains(f64::from(size)) {
            return Err(Invalid::at(
                vec![key("grid"), key("size")],
                ranges::GRID_SIZE.out_of_range("grid.size", size),
            ));
        }
        if !self
            .grid
            .origin
            .iter()
            .all(|v| v.is_finite() && v.abs() <= 1e6)
        {
            return Err(Invalid::at(
                vec![key("grid"), key("origin")],
                format!(
                    "grid.origin = {:?} must be finite within ±1000000",
                    self.grid.origin
                ),
            ));
        }
        self.fluid
            .validate()
            .map_err(|e| field_error(vec![key("fluid")], e))?;
        self.fire
            .validate()
            .map_err(|e| field_error(vec![key("fire")], e))?;
        if let Err((face, m)) = self.boundaries.validate() {
            return Err(Invalid::at(
                vec![key("boundaries"), key(face)],
                format!("boundaries.{m}"),
            ));
        }
        let (lo, hi) = self.bounds();
        let inside = |c: [f32; 3]| (0..3).all(|a| c[a] >= lo[a] && c[a] <= hi[a]);
        let domain = format!(
            "the domain [{}, {}, {}] to [{}, {}, {}]",
            lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
        );
        let place = |what: &str, i: usize, body: &crate::sim::body::Body, center: [f32; 3]| {
            let pre = vec![key(what), Seg::Index(i)];
            if body.plain_shape().is_some()
                || !matches!(body.form, crate::sim::body::Form::Mesh { .. })
            {
                if !inside(center) {
                    let mut p = pre;
                    p.push(key("center"));
                    return Err(Invalid::at(
                        p,
                        format!("{what}[{i}].center = {center:?} lies outside {domain}"),
                    ));
                }
                return Ok(());
            }
            let (blo, bhi) = body.bounds_over_motion();
            if (0..3).any(|a| bhi[a] < lo[a] || blo[a] > hi[a]) {
                let mut p = pre;
                p.push(key("file"));
                return Err(Invalid::at(
                    p,
                    format!(
                        "{what}[{i}]: the mesh, placed and scaled, spans {blo:?} to {bhi:?}, \
                         wholly outside {domain} (set `position` and `scale`)"
                    ),
                ));
            }
            Ok(())
        };
        for (i, e) in self.emitters.iter().enumerate() {
            let pre = vec![key("emitter"), Seg::Index(i)];
            e.validate().map_err(|err| field_error(pre.clone(), err))?;
            let body = e.body().map_err(|err| field_error(pre.clone(), err))?;
            place("emitter", i, &body, e.center)?;
        }
        for (i, o) in self.obstacles.iter().enumerate() {
            let pre = vec![key("obstacle"), Seg::Index(i)];
            let body = o.body().map_err(|err| field_error(pre.clone(), err))?;
            place("obstacle", i, &body, o.center)?;
        }
        if self.obstacles.len() > MAX_OBSTACLES {
            return Err(Invalid::at(
                vec![key("obstacle")],
                format!(
                    "{} obstacles; at most {} are allowed",
                    self.obstacles.len(),
                    MAX_OBSTACLES
                ),
            ));
        }
        let c = &self.camera;
        if !(c.yaw.is_finite()) {
            return Err(Invalid::at(
                vec![key("camera"), key("yaw")],
                "camera.yaw must be a finite number of degrees",
            ));
        }
        if !ranges::PITCH.contains(f64::from(c.pitch)) {
            return Err(Invalid::at(
                vec![key("camera"), key("pitch")],
                ranges::PITCH.out_of_range("camera.pitch", c.pitch),
            ));
        }
        if let Some(d) = c.distance {
            if !ranges::DISTANCE.contains(f64::from(d)) {
                return Err(Invalid::at(
                    vec![key("camera"), key("distance")],
                    ranges::DISTANCE.out_of_range("camera.distance", d),
                ));
            }
        }
        if let Some(t) = c.target {
            if !t.iter().all(|v| v.is_finite() && v.abs() <= 1e6) {
                return Err(Invalid::at(
                    vec![key("camera"), key("target")],
                    format!("camera.target = {t:?} must be finite within ±1000000"),
                ));
            }
        }
        self.render
            .validate()
            .map_err(|e| field_error(vec![key("render")], e))?;
        if self.detail.enabled {
            self.detail
                .validate()
                .and_then(|()| self.detail.fine_grid(&self.grid_placement()).map(|_| ()))
                .map_err(|e| field_error(vec![key("detail")], e))?;
        } else {
            self.detail
                .validate()
                .map_err(|e| field_error(vec![key("detail")], e))?;
        }
        Ok(())
    }

    /// Cell counts.
    pub fn dims(&self) -> Dims {
        let [x, y, z] = self.grid.dims;
        Dims::new(x, y, z)
    }

    /// Where the grid lies: cell counts, voxel size (the largest side over its cell count) and
    /// the minimum corner, as [`Scene::build`] places it.
    pub fn grid_placement(&self) -> Grid {
        let dims = self.dims();
        let nmax = dims.nx.max(dims.ny).max(dims.nz).max(1);
        Grid {
            dims,
            h: self.grid.size / nmax as f32,
            origin: self.grid.origin,
        }
    }

    /// The domain's minimum and maximum corners in world coordinates.
    pub fn bounds(&self) -> ([f32; 3], [f32; 3]) {
        let n = self.grid.dims;
        let m = *n.iter().max().unwrap_or(&1) as f32;
        let h = self.grid.size / m;
        let o = self.grid.origin;
        (o, [0, 1, 2].map(|a| o[a] + n[a] as f32 * h))
    }

    /// The same scene on a different grid (domain and physics unchanged: the domain's largest
    /// side keeps its length).
    pub fn with_dims(mut self, dims: Dims) -> Self {
        self.grid.dims = dims.as_array();
        self
    }

    /// The same scene with `n` cells along its longest axis and the other axes scaled to keep
    /// the domain's proportions (at least 3 cells each).
    pub fn with_resolution(self, n: usize) -> Self {
        let d = self.grid.dims;
        let m = *d.iter().max().unwrap_or(&1) as f64;
        let scaled = d.map(|v| ((v as f64 * n as f64 / m).round() as usize).max(3));
        self.with_dims(Dims::new(scaled[0], scaled[1], scaled[2]))
    }

    /// The initial camera for a view of `aspect` = width / height.
    pub fn camera(&self, aspect: f32) -> OrbitCamera {
        let (lo, hi) = self.bounds();
        self.camera.camera(lo, hi, aspect)
    }

    /// Builds the scene's simulation on the default backend (the CPU solver), validating
    /// everything.
    pub fn build_simulation(&self) -> Result<Box<dyn crate::sim::Simulation>, SimError> {
        let coarse: Box<dyn crate::sim::Simulation> = Box::new(self.build()?);
        if !self.detail.enabled {
            return Ok(coarse);
        }
        Ok(Box::new(crate::sim::detail::Detailed::new(
            coarse,
            self.detail,
        )?))
    }

    /// Bytes the CPU solver holds for this scene on a `dims` grid once every stage has run
    /// (see [`crate::sim::solver::memory::estimate_bytes`]).
    pub fn memory_estimate(&self, dims: Dims) -> u64 {
        crate::sim::solver::memory::estimate_bytes(
            dims,
            &self.fluid,
            !self.obstacles.is_empty(),
            self.emitters.iter().any(|e| e.temperature.is_some()),
            self.emitters.iter().any(Emitter::burns),
        )
    }

    /// [`Scene::memory_estimate`] plus what the solver takes for a moment while it builds
    /// its pressure solver's hierarchy (the first step): what must be free to run the scene.
    pub fn memory_peak(&self, dims: Dims) -> u64 {
        let build = match self.fluid.pressure_method {
            crate::sim::PressureMethod::Multigrid => {
                crate::sim::pressure::multigrid::build_peak_bytes(dims.as_array())
            }
            crate::sim::PressureMethod::RedBlackSor => 0,
        };
        let fire = self.emitters.iter().any(Emitter::burns);
        self.memory_estimate(dims) + build + self.detail.memory_bytes(dims, fire)
    }

    /// Builds a CPU solver for the scene, validating everything.
    pub fn build(&self) -> Result<Solver, SimError> {
        let need = self.memory_peak(self.dims());
        crate::sim::solver::memory::check(need, &format!("a {} grid", self.dims()))?;
        let grid = Grid::new(self.dims(), self.grid.size, self.grid.origin)?;
        let mut s = Solver::new(grid, self.fluid.clone(), self.boundaries)?;
        s.set_fire(self.fire.clone())?;
        s.set_emitters(self.emitters.clone())?;
        s.set_obstacles(self.obstacles.clone())?;
        Ok(s)
    }
}

/// What kind of special file `meta` describes, for messages.
fn special_kind(meta: &std::fs::Metadata) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO (named pipe)";
        }
        if t.is_socket() {
            return "a socket";
        }
        if t.is_char_device() || t.is_block_device() {
            return "a device";
        }
    }
    let _ = meta;
    "a special file"
}
