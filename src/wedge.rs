//! Wedges: variants of one scene, each a value (or a combination) of the keys a user varies,
//! each run into its own run folder `DIR/v0001/` with its `scene.toml`, listed in
//! `DIR/wedge.json`, and shown side by side on a contact sheet. `plume wedge` runs the
//! variants one after another; Python's `plume.wedge` runs the same variants, here or on a
//! Dask cluster, through the same functions, so the folder it leaves is the same.

use crate::backend::Backend;
use crate::batch::{self, Halt, Watch};
use crate::export::folder;
use crate::export::run::{Existing, RunWriter};
use crate::export::{ExportError, ExportOptions};
use crate::render::offscreen::Image;
use crate::scene::{keys, Scene};
use crate::sim::Simulation;
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};
use toml::Value;

/// The most variants one wedge may have.
pub const MAX_VARIANTS: usize = 10_000;

/// The file listing a wedge's variants.
pub const INDEX: &str = "wedge.json";

/// One varied key and its values.
#[derive(Clone, Debug, PartialEq)]
pub struct Vary {
    /// The dotted key (`fluid.vorticity`, `emitter.0.temperature`).
    pub key: String,
    /// Its values, in order.
    pub values: Vec<Value>,
}

impl Vary {
    /// `KEY=a,b,c` (a list) or `KEY=a:b:n` (`n` values from `a` to `b`, both included).
    pub fn parse(s: &str) -> Result<Self, String> {
        let (key, values) = s
            .split_once('=')
            .ok_or_else(|| format!("'{s}': write KEY=a,b,c or KEY=from:to:count"))?;
        let key = key.trim().to_string();
        if key.is_empty() {
            return Err(format!("'{s}': no key before '='"));
        }
        let parts: Vec<&str> = values.split(':').collect();
        let values = match parts.as_slice() {
            [a, b, n] => {
                let num = |t: &str| {
                    t.trim()
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .ok_or_else(|| format!("'{s}': '{t}' is not a number"))
                };
                let (a, b) = (num(a)?, num(b)?);
                let n: usize = n
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| (1..=MAX_VARIANTS).contains(n))
                    .ok_or_else(|| {
                        format!(
                            "'{s}': the count '{n}' is not a whole number from 1 to {MAX_VARIANTS}"
                        )
                    })?;
                (0..n)
                    .map(|i| match n {
                        1 => Value::Float(a),
                        _ => Value::Float(a + (b - a) * i as f64 / (n - 1) as f64),
                    })
                    .collect()
            }
            [list] => list.split(',').map(keys::value_of_text).collect(),
            _ => return Err(format!("'{s}': a range is from:to:count, three numbers")),
        };
        Ok(Self { key, values })
    }
}

/// One variant: its number (from 1), folder name, values and scene.
#[derive(Clone, Debug)]
pub struct Variant {
    /// 1, 2, …
    pub index: usize,
    /// `v0001`, …
    pub folder: String,
    /// Each varied key and its value here.
    pub values: Vec<(String, Value)>,
    /// The scene with those values.
    pub scene: Scene,
}

/// The variants of `base`: the product of the values, the last key varying fastest. Every
/// value of every key is checked against `base` first (as a scene file holding it would be),
/// so nothing runs when one is refused.
pub fn plan(base: &Scene, vary: &[Vary]) -> Result<Vec<Variant>, String> {
    if vary.is_empty() {
        return Err("a wedge varies at least one key (--vary KEY=a,b,c)".into());
    }
    for (i, v) in vary.iter().enumerate() {
        if vary[..i].iter().any(|w| w.key == v.key) {
            return Err(format!("{} is varied twice", v.key));
        }
        for x in &v.values {
            keys::set(base, &v.key, x.clone())
                .map_err(|e| format!("--vary {}={}: {e}", v.key, text(x)))?;
        }
    }
    let count = vary
        .iter()
        .try_fold(1usize, |n, v| n.checked_mul(v.values.len()))
        .filter(|n| *n <= MAX_VARIANTS)
        .ok_or_else(|| format!("a wedge has at most {MAX_VARIANTS} variants"))?;
    let mut out = Vec::with_capacity(count);
    for n in 0..count {
        let mut rest = n;
        let mut picked = vec![];
        for v in vary.iter().rev() {
            picked.push((v.key.clone(), v.values[rest % v.values.len()].clone()));
            rest /= v.values.len();
        }
        picked.reverse();
        let mut scene = base.clone();
        for (k, x) in &picked {
            scene = keys::set(&scene, k, x.clone())
                .map_err(|e| format!("variant {}: {k}={}: {e}", n + 1, text(x)))?;
        }
        out.push(Variant {
            index: n + 1,
            folder: format!("v{:04}", n + 1),
            values: picked,
            scene,
        });
    }
    Ok(out)
}

/// A value as a label shows it (`2`, `1.5`, `maccormack`).
pub fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Float(f) => {
            let short = format!("{}", *f as f32);
            match short.parse::<f64>() {
                Ok(x) if (x - f).abs() <= 1e-9 * f.abs().max(1.0) => short,
                _ => f.to_string(),
            }
        }
        other => other.to_string(),
    }
}

/// Where a variant stands.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Not started.
    Pending,
    /// Being run (a wedge that stopped while one ran lists it so).
    Running,
    /// Every frame written.
    Done,
    /// Stopped by an error of its own (its message is listed).
    Failed,
    /// Stopped by a signal; `--resume` continues it.
    Interrupted,
}

/// Keys and values in the order the wedge varies them, written as a JSON object.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Values(pub Vec<(String, serde_json::Value)>);

impl Serialize for Values {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

impl<'de> Deserialize<'de> for Values {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> serde::de::Visitor<'de> for V {
            type Value = Values;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("an object of keys and values")
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut a: A) -> Result<Values, A::Error> {
                let mut out = vec![];
                while let Some(kv) = a.next_entry()? {
                    out.push(kv);
                }
                Ok(Values(out))
            }
        }
        d.deserialize_map(V)
    }
}

/// A variant as `wedge.json` lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Entry {
    /// 1, 2, …
    pub index: usize,
    /// Its run folder, relative to the wedge's.
    pub folder: String,
    /// The varied keys and their values, in the order they were given.
    pub values: Values,
    /// Where it stands.
    pub state: State,
    /// Complete frames in its folder.
    pub frames: u32,
    /// Why it failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// `wedge.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Index {
    /// Always "plume wedge".
    pub kind: String,
    /// The base scene's name.
    pub scene: String,
    /// Frames per variant.
    pub frames: u32,
    /// Steps between frames.
    pub every: u32,
    /// The varied keys and their values, as given.
    pub vary: Vec<(String, Vec<serde_json::Value>)>,
    /// Every variant.
    pub variants: Vec<Entry>,
}

fn json(v: &Value) -> serde_json::Value {
    serde_json::to_value(v).unwrap_or(serde_json::Value::Null)
}

impl Index {
    /// The index of a wedge about to run: every variant pending.
    pub fn new(base: &Scene, vary: &[Vary], variants: &[Variant], frames: u32, every: u32) -> Self {
        Self {
            kind: "plume wedge".into(),
            scene: base.name.clone(),
            frames,
            every,
            vary: vary
                .iter()
                .map(|v| (v.key.clone(), v.values.iter().map(json).collect()))
                .collect(),
            variants: variants
                .iter()
                .map(|v| Entry {
                    index: v.index,
                    folder: v.folder.clone(),
                    values: Values(v.values.iter().map(|(k, x)| (k.clone(), json(x))).collect()),
                    state: State::Pending,
                    frames: 0,
                    message: None,
                })
                .collect(),
        }
    }

    /// Reads `dir/wedge.json`; `None` where there is none.
    pub fn load(dir: &Path) -> Result<Option<Self>, String> {
        let path = dir.join(INDEX);
        match std::fs::read_to_string(&path) {
            Ok(t) => serde_json::from_str(&t)
                .map(Some)
                .map_err(|e| format!("{}: not a wedge's index: {e}", path.display())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(format!("cannot read {}: {e}", path.display())),
        }
    }

    /// Writes `dir/wedge.json` whole (beside it, then renamed).
    pub fn save(&self, dir: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self).map_err(|e| e.to_string())? + "\n";
        crate::atomic::write_atomic(&dir.join(INDEX), |w| w.write_all(text.as_bytes()))
            .map_err(|e| e.to_string())
    }
}

/// How each variant is run and written.
#[derive(Clone, Debug)]
pub struct Job {
    /// The wedge's folder.
    pub out: PathBuf,
    /// Frames per variant.
    pub frames: u32,
    /// Formats, fields, steps between frames and file rules.
    pub opts: ExportOptions,
    /// The solver backend.
    pub backend: Backend,
    /// Thumbnails (for contact sheets) every K frames as well as of the last.
    pub sheet_every: Option<u32>,
    /// What to do with a variant's folder that holds a run.
    pub existing: Existing,
}

/// Thumbnail size of one variant on a contact sheet.
pub const THUMB: (u32, u32) = (240, 180);

/// The thumbnail of frame `n` in a variant's folder.
pub fn thumb_name(n: u32) -> String {
    format!("thumb_{n:04}.png")
}

/// Holds a wedge's folder for the one driver that runs it (`plume wedge`, `plume.wedge`):
/// creates it, takes its lock (a second driver is refused with the first one's process id),
/// and removes the temporaries a driver killed mid-write left of the wedge's own files
/// ([`is_wedge_file`]). Each variant's folder has a lock of its own, taken by its run.
pub fn hold(out: &Path) -> Result<folder::FolderLock, ExportError> {
    folder::prepare_folder(out)?;
    let lock = folder::FolderLock::acquire(out)?;
    folder::remove_stale_temporaries_of(out, &is_wedge_file)?;
    Ok(lock)
}

/// Whether `name` is a file the wedge's driver writes into its folder: the index or a contact
/// sheet (`contact.png`, `contact_NNNN.png`).
pub fn is_wedge_file(name: &str) -> bool {
    name == INDEX || name == "contact.png" || numbered_png(name, "contact_")
}

/// Whether `name` is `<prefix><frame>.png` with a frame number of 4 digits or more.
fn numbered_png(name: &str, prefix: &str) -> bool {
    name.strip_prefix(prefix)
        .and_then(|r| r.strip_suffix(".png"))
        .is_some_and(|d| d.len() >= 4 && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Whether `name` is a file a variant writes into its run folder beside the run writer's:
/// `scene.toml` or a thumbnail ([`thumb_name`]).
pub fn is_variant_file(name: &str) -> bool {
    name == "scene.toml" || numbered_png(name, "thumb_")
}

/// How a variant ended.
#[derive(Debug)]
pub enum Ended {
    /// Every frame written.
    Done,
    /// Stopped by a signal with this many frames complete.
    Interrupted(u32),
    /// Failed with this message (the folder is left as `plume run` leaves it).
    Failed(String),
}

/// Writes thumbnails while a variant runs, and hears stops.
struct VariantWatch<'a> {
    inner: &'a mut dyn Watch,
    shots: Vec<(u32, Image)>,
    job: &'a Job,
    scene: &'a Scene,
    thumbs: Option<Thumbs>,
    error: Option<String>,
}

impl Watch for VariantWatch<'_> {
    fn stop(&mut self) -> bool {
        self.inner.stop()
    }
    fn frame(&mut self, n: u32, time: f64) {
        self.inner.frame(n, time);
    }
    fn frame_sim(&mut self, n: u32, sim: &dyn Simulation) {
        let want =
            n == self.job.frames || self.job.sheet_every.is_some_and(|k| n.is_multiple_of(k));
        if !want || self.error.is_some() {
            return;
        }
        // One context and renderer for all of a variant's thumbnails.
        if self.thumbs.is_none() {
            match Thumbs::new() {
                Ok(t) => self.thumbs = Some(t),
                Err(e) => return self.error = Some(e),
            }
        }
        if let Some(t) = self.thumbs.as_mut() {
            match t.draw(self.scene, sim) {
                Ok(img) => self.shots.push((n, img)),
                Err(e) => self.error = Some(e),
            }
        }
    }
}

/// The headless renderer that draws a variant's thumbnails.
pub struct Thumbs {
    ctx: std::rc::Rc<glium::backend::Context>,
    renderer: crate::render::VolumeRenderer,
}

impl Thumbs {
    /// A headless context and a renderer on it.
    pub fn new() -> Result<Self, String> {
        let ctx = crate::render::context::headless().map_err(|e| e.to_string())?;
        let renderer = crate::render::VolumeRenderer::new(&ctx).map_err(|e| e.to_string())?;
        Ok(Self { ctx, renderer })
    }

    /// The scene's view of `sim`'s smoke, `THUMB` pixels.
    pub fn draw(&mut self, scene: &Scene, sim: &dyn Simulation) -> Result<Image, String> {
        let frame = sim.frame(crate::frame::Select {
            density: true,
            temperature: true,
            flame: true,
            ..Default::default()
        });
        let camera = scene.camera(THUMB.0 as f32 / THUMB.1 as f32);
        crate::render::offscreen::snapshot(
            &self.ctx,
            &mut self.renderer,
            &frame,
            &scene.obstacles,
            &scene.render,
            &camera,
            THUMB.0,
            THUMB.1,
        )
        .map_err(|e| e.to_string())
    }
}

/// Runs one variant into `job.out/variant.folder`: a run folder as `plume run` writes it, with
/// the variant's `scene.toml` and thumbnails for the contact sheet. A variant whose folder
/// already holds all its frames (and thumbnails) is left as it is.
pub fn run_variant(job: &Job, v: &Variant, watch: &mut dyn Watch) -> Ended {
    let dir = job.out.join(&v.folder);
    let built = match crate::backend::build(&v.scene, job.backend) {
        Ok(b) => b,
        Err(e) => return Ended::Failed(format!("building the scene: {e}")),
    };
    let mut sim = built.sim;
    let (mut writer, start) = match RunWriter::create_from(
        &dir,
        &v.scene,
        &job.opts,
        job.existing,
        Some(job.frames),
        built.backend,
    ) {
        Ok(w) => w,
        Err(e) => return Ended::Failed(e.to_string()),
    };
    // Holding the folder's lock (in `writer`): what a writer killed mid-write of the
    // variant's own files left behind goes, as the run writer's temporaries did.
    if let Err(e) = folder::remove_stale_temporaries_of(&dir, &is_variant_file) {
        return Ended::Failed(e.to_string());
    }
    let toml = match v.scene.to_toml() {
        Ok(t) => t,
        Err(e) => return Ended::Failed(e.to_string()),
    };
    if let Err(e) =
        crate::atomic::write_atomic(&dir.join("scene.toml"), |w| w.write_all(toml.as_bytes()))
    {
        return Ended::Failed(e.to_string());
    }
    let has_thumb = dir.join(thumb_name(job.frames)).is_file();
    if start.frames >= job.frames && has_thumb {
        return Ended::Done;
    }
    let mut w = VariantWatch {
        inner: watch,
        shots: vec![],
        job,
        scene: &v.scene,
        thumbs: None,
        error: None,
    };
    let frames = job.frames;
    let ran = match start.frames >= frames {
        // Every frame written but no thumbnail (stopped between the two): re-simulate to the
        // last frame and draw it.
        true => {
            for _ in 0..start.step {
                if let Err(e) = sim.step() {
                    return Ended::Failed(e.to_string());
                }
            }
            w.frame_sim(job.frames, sim.as_ref());
            Ok(())
        }
        false => batch::drive(sim.as_mut(), &mut writer, &job.opts, start, frames, &mut w),
    };
    for (n, img) in &w.shots {
        let png = match img.to_png() {
            Ok(p) => p,
            Err(e) => return Ended::Failed(e),
        };
        if let Err(e) =
            crate::atomic::write_atomic(&dir.join(thumb_name(*n)), |f| f.write_all(&png))
        {
            return Ended::Failed(e.to_string());
        }
    }
    if let Some(e) = w.error {
        return Ended::Failed(format!("drawing its thumbnail: {e}"));
    }
    match ran {
        Ok(()) => Ended::Done,
        Err(Halt::Interrupted { held }) => Ended::Interrupted(held),
        Err(Halt::Resimulating(e)) => Ended::Failed(format!("{}: {e}", batch::RESIMULATING)),
        Err(Halt::Step { frame, source }) => {
            Ended::Failed(format!("{}: {source}", batch::step_failed(frame)))
        }
        Err(Halt::Write(e)) => Ended::Failed(e.to_string()),
    }
}

/// Frames complete in a variant's folder (its manifest's count; 0 without one).
pub fn frames_in(dir: &Path) -> u32 {
    match crate::export::folder::scan(dir).map(|f| f.manifest) {
        Ok(Some(Ok(m))) => m.frames.len() as u32,
        _ => 0,
    }
}

/// The contact sheet of frame `n` (the last where `None`): each variant's thumbnail in a
/// grid, labelled with its values; a variant without one shows its state. Written as
/// `contact.png` (`contact_NNNN.png` for frame `n`) in `out`; returns its path.
pub fn contact_sheet(out: &Path, index: &Index, n: Option<u32>) -> Result<PathBuf, String> {
    use crate::render::label;
    let count = index.variants.len().max(1);
    let cols = (count as f64).sqrt().ceil() as usize;
    let rows = count.div_ceil(cols);
    let scale = 1;
    let lines = index.vary.len() + 1;
    let label_h = lines as u32 * label::height(scale) + 4;
    let (cw, ch) = (THUMB.0 + 8, THUMB.1 + label_h + 8);
    let mut sheet = Image {
        width: cw * cols as u32,
        height: ch * rows as u32,
        rgba: vec![0; (cw * cols as u32 * ch * rows as u32 * 4) as usize],
    };
    for p in sheet.rgba.chunks_exact_mut(4) {
        p.copy_from_slice(&[24, 26, 30, 255]);
    }
    let frame = n.unwrap_or(index.frames);
    for (i, e) in index.variants.iter().enumerate() {
        let (x0, y0) = ((i % cols) as u32 * cw + 4, (i / cols) as u32 * ch + 4);
        let path = out.join(&e.folder).join(thumb_name(frame));
        match read_png(&path) {
            Ok(img) => blit(&mut sheet, &img, x0, y0),
            Err(_) => {
                let why = match e.state {
                    State::Failed => "failed",
                    State::Done => "no thumbnail",
                    _ => "not run",
                };
                label::draw(&mut sheet, why, x0 + 8, y0 + THUMB.1 / 2, 2, [220, 90, 80]);
            }
        }
        let mut y = y0 + THUMB.1 + 4;
        label::draw(&mut sheet, &e.folder, x0, y, scale, [150, 160, 175]);
        for (k, v) in &e.values.0 {
            y += label::height(scale);
            let v = match v {
                serde_json::Value::Number(x) => x
                    .as_f64()
                    .map_or_else(|| x.to_string(), |f| text(&Value::Float(f))),
                serde_json::Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            label::draw(
                &mut sheet,
                &format!("{k}={v}"),
                x0,
                y,
                scale,
                [235, 235, 240],
            );
        }
    }
    let name = match n {
        Some(k) => format!("contact_{k:04}.png"),
        None => "contact.png".to_string(),
    };
    let path = out.join(name);
    let png = sheet.to_png()?;
    crate::atomic::write_atomic(&path, |w| w.write_all(&png)).map_err(|e| e.to_string())?;
    Ok(path)
}

fn blit(dst: &mut Image, src: &Image, x0: u32, y0: u32) {
    for y in 0..src.height.min(dst.height.saturating_sub(y0)) {
        for x in 0..src.width.min(dst.width.saturating_sub(x0)) {
            let s = 4 * (y * src.width + x) as usize;
            let d = 4 * ((y0 + y) * dst.width + x0 + x) as usize;
            dst.rgba[d..d + 4].copy_from_slice(&src.rgba[s..s + 4]);
        }
    }
}

/// An 8-bit RGBA (or RGB) PNG.
pub fn read_png(path: &Path) -> Result<Image, String> {
    let file = std::fs::File::open(path).map_err(|e| e.to_string())?;
    let mut dec = png::Decoder::new(std::io::BufReader::new(file));
    dec.set_transformations(png::Transformations::EXPAND);
    let mut reader = dec.read_info().map_err(|e| e.to_string())?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf[..info.buffer_size()].to_vec(),
        png::ColorType::Rgb => buf[..info.buffer_size()]
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        other => return Err(format!("{}: {other:?} PNG", path.display())),
    };
    Ok(Image {
        width: info.width,
        height: info.height,
        rgba,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wedges_own_files_are_named_exactly() {
        for yes in [
            "wedge.json",
            "contact.png",
            "contact_0012.png",
            "contact_12345.png",
        ] {
            assert!(is_wedge_file(yes), "{yes}");
        }
        for no in [
            "contact_12.png",
            "contact.jpg",
            "contacts.png",
            "wedge.json~",
            "contact_.png",
        ] {
            assert!(!is_wedge_file(no), "{no}");
        }
    }

    #[test]
    fn a_variants_own_files_are_named_exactly() {
        for yes in ["scene.toml", &thumb_name(7), &thumb_name(12345)] {
            assert!(is_variant_file(yes), "{yes}");
        }
        for no in [
            "scene.toml~",
            "thumb_07.png",
            "thumb_0007.jpg",
            "thumb_abcd.png",
            "x.toml",
        ] {
            assert!(!is_variant_file(no), "{no}");
        }
    }

    #[test]
    fn values_are_lists_or_inclusive_ranges() {
        let v = Vary::parse("fluid.vorticity=0,2,4").expect("list");
        assert_eq!(
            v.values,
            vec![Value::Integer(0), Value::Integer(2), Value::Integer(4)]
        );
        let v = Vary::parse("emitter.0.temperature=1:3:5").expect("range");
        let xs: Vec<f64> = v.values.iter().filter_map(Value::as_float).collect();
        assert_eq!(xs, vec![1.0, 1.5, 2.0, 2.5, 3.0]);
        assert!(Vary::parse("fluid.vorticity").is_err());
        assert!(Vary::parse("fluid.vorticity=1:2:0").is_err());
        let base = Scene::preset("plume").expect("preset");
        let plan = plan(
            &base,
            &[
                Vary::parse("fluid.vorticity=0,2").expect("a"),
                Vary::parse("fluid.buoyancy=1,1.5,2").expect("b"),
            ],
        )
        .expect("plan");
        assert_eq!(plan.len(), 6);
        assert_eq!(plan[1].folder, "v0002");
        assert_eq!(
            (plan[1].scene.fluid.vorticity, plan[1].scene.fluid.buoyancy),
            (0.0, 1.5)
        );
        assert_eq!(plan[5].scene.fluid.vorticity, 2.0);
        let e = super::plan(&base, &[Vary::parse("fluid.vorticity=1,500").expect("c")])
            .expect_err("refused");
        assert!(
            e.contains("--vary fluid.vorticity=500") && e.contains("[0, 100]"),
            "{e}"
        );
        let e = super::plan(&base, &[Vary::parse("fluid.vorticty=1").expect("d")])
            .expect_err("unknown");
        assert!(e.contains("did you mean"), "{e}");
    }
}
