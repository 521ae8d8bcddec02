//! The volume renderer: density in a reused `Texture3d`, raymarched by `shaders/volume.frag`
//! over a background gradient, with the domain's box outline.

use super::{program, RenderError};
use crate::camera::OrbitCamera;
pub use crate::render_settings::RenderSettings;
use crate::sim::Dims;
use glium::backend::Facade;
use glium::index::{NoIndices, PrimitiveType};
use glium::texture::pixel_buffer::PixelBuffer;
use glium::texture::{MipmapsOption, Texture2d, Texture3d, UncompressedFloatFormat};
use glium::uniforms::{MagnifySamplerFilter, MinifySamplerFilter, SamplerWrapFunction};
use glium::{
    implement_vertex, uniform, Blend, DrawParameters, Program, Rect, Surface, VertexBuffer,
};
use std::time::Instant;

const FULLSCREEN_VERT: &str = include_str!("../../shaders/fullscreen.vert");
const BACKGROUND_FRAG: &str = include_str!("../../shaders/background.frag");
const VOLUME_FRAG: &str = include_str!("../../shaders/volume.frag");
const LINE_VERT: &str = include_str!("../../shaders/line.vert");
const LINE_FRAG: &str = include_str!("../../shaders/line.frag");
const SLICE_PROBE_FRAG: &str = include_str!("../../shaders/slice_probe.frag");
const STREAM_VERT: &str = include_str!("../../shaders/stream.vert");
const STREAM_FRAG: &str = include_str!("../../shaders/stream.frag");

/// One end of a streamline segment: world position and colour.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct StreamVertex {
    /// World position.
    pub position: [f32; 3],
    /// Linear RGB in [0, 1].
    pub line_rgb: [f32; 3],
}
implement_vertex!(StreamVertex, position, line_rgb);

/// The slowest and fastest speed along `lines`.
pub fn speed_range(lines: &[crate::streamlines::Line]) -> (f32, f32) {
    lines
        .iter()
        .flat_map(|l| l.speed.iter().copied())
        .fold((f32::INFINITY, 0.0f32), |(a, b), s| (a.min(s), b.max(s)))
}

/// Segment pairs (for a lines list) of `lines`, coloured by `color(t)` with `t` the speed's
/// place in `range` (0 at the slowest, 1 at the fastest).
pub fn stream_vertices(
    lines: &[crate::streamlines::Line],
    range: (f32, f32),
    color: impl Fn(f32) -> [f32; 3],
) -> Vec<StreamVertex> {
    let (lo, hi) = range;
    let inv = if hi > lo { 1.0 / (hi - lo) } else { 0.0 };
    let mut out = Vec::new();
    for l in lines {
        for i in 1..l.points.len() {
            for j in [i - 1, i] {
                out.push(StreamVertex {
                    position: l.points[j],
                    line_rgb: color(((l.speed[j] - lo) * inv).clamp(0.0, 1.0)),
                });
            }
        }
    }
    out
}

#[derive(Copy, Clone)]
struct LineVertex {
    position: [f32; 3],
}
implement_vertex!(LineVertex, position);

/// Draws density volumes. Owns the GL programs and the 3D texture, which is reused between
/// uploads of the same dimensions.
pub struct VolumeRenderer {
    volume: Program,
    background: Program,
    lines: Program,
    pub(super) probe: Program,
    stream: Program,
    pub(super) texture: Option<(Texture3d, Dims)>,
    staging: Option<PixelBuffer<f32>>,
    /// The sets of textures the GPU solver writes (see `render::exchange`): density and,
    /// where something burns, temperature with flame. Made here, owned here.
    pub(super) sets: Vec<(Texture3d, Option<Texture3d>)>,
    /// The set drawn instead of the uploaded textures, while the GPU solver feeds the view.
    pub(super) shown: Option<(usize, Dims)>,
    /// The obstacles as triangles, drawn into a hit buffer the volume and streamline passes
    /// read.
    pub(super) solids: super::solids::SolidPass,
    /// Temperature and flame (RG32F) while the frame holds flame, and the flame as one soft
    /// light for the smoke around it.
    pub(super) heat: Option<HeatTexture>,
    pub(super) fire: Option<FlameLight>,
    /// The blackbody emission table (N × 1 RGB32F) and its values for the CPU side.
    blackbody: Texture2d,
    blackbody_values: Vec<[f32; 3]>,
    /// Milliseconds of the last upload (buffer write and texture transfer).
    pub last_upload_ms: f64,
    /// Textures filled from the CPU since the renderer was made (a frame's density and its
    /// heat count one each); drawing the GPU solver's shared sets adds none.
    pub uploads: u64,
    /// Which bricks of the volume drawn hold anything to see (empty-space skipping).
    pub(super) occupancy: super::occupancy::Occupancy,
    /// The smoke's optical depth towards the light, worked out once a volume and light.
    pub(super) light: std::cell::RefCell<super::light::LightCache>,
    /// Counts the volumes drawn (each upload, each set shown): the light cache's key.
    pub(super) volume_generation: u64,
}

/// Temperature and flame on the GPU: the RG32F texture, its dimensions, and the staging
/// buffer it is refilled through.
type HeatTexture = (Texture3d, Dims, PixelBuffer<(f32, f32)>);

/// The flame summarised as one soft light: where it is, how much light (linear RGB, per unit
/// of `flame_intensity`) and how spread out.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FlameLight {
    /// Emission-weighted centre, world.
    pub center: [f32; 3],
    /// Σ emission × cell volume (linear RGB).
    pub power: [f32; 3],
    /// Emission-weighted mean squared distance from the centre plus one voxel², world units².
    pub spread2: f32,
}

/// An empty float 3D texture of `dims` cells (`what` names it in an error).
pub(super) fn texture_3d(
    facade: &impl Facade,
    format: UncompressedFloatFormat,
    dims: Dims,
    what: &str,
) -> Result<Texture3d, RenderError> {
    Texture3d::empty_with_format(
        facade,
        format,
        MipmapsOption::NoMipmap,
        dims.nx as u32,
        dims.ny as u32,
        dims.nz as u32,
    )
    .map_err(|e| RenderError::resource(format!("{what} {dims}"), e))
}

/// Copies a filled pixel buffer into the whole of a 3D texture and waits for the transfer.
fn fill_3d<P: glium::texture::PixelValue>(
    facade: &impl Facade,
    tex: &Texture3d,
    staging: &PixelBuffer<P>,
    dims: Dims,
) {
    tex.main_level().raw_upload_from_pixel_buffer(
        staging.as_slice(),
        0..dims.nx as u32,
        0..dims.ny as u32,
        0..dims.nz as u32,
    );
    facade.get_context().finish();
}

/// The flame light of a frame's temperature and flame, or `None` when nothing glows.
pub fn flame_light(
    grid: &crate::sim::Grid,
    temperature: &[f32],
    flame: &[f32],
    table: &[[f32; 3]],
    kelvin_per_unit: f32,
) -> Option<FlameLight> {
    let d = grid.dims;
    let mut sums = [0.0f64; 8];
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let c = d.idx(i, j, k);
                let f = flame[c];
                if f <= 0.0 {
                    continue;
                }
                let e = crate::blackbody::lookup(table, temperature[c] * kelvin_per_unit);
                let w = f64::from(f * crate::blackbody::luminance(e));
                if w <= 0.0 {
                    continue;
                }
                let p = grid.cell_center(i, j, k);
                for a in 0..3 {
                    sums[a] += f64::from(f * e[a]);
                    sums[4 + a] += w * f64::from(p[a]);
                }
                sums[3] += w;
                sums[7] += w * p.iter().map(|x| f64::from(x * x)).sum::<f64>();
            }
        }
    }
    FlameLight::from_sums(&sums, grid.h)
}

impl FlameLight {
    /// The light of the flame's sums over cells of flame f > 0 — Σ f·e (rgb), Σ w, Σ w·p
    /// (xyz), Σ w·|p|², with e the emission, w = f·luminance(e) and p the cell's centre — on a
    /// grid of voxel size `h`; `None` when nothing glows. The GPU solver sums the same on
    /// the card.
    pub fn from_sums(sums: &[f64; 8], h: f32) -> Option<FlameLight> {
        let w_sum = sums[3];
        if w_sum.is_nan() || w_sum <= 0.0 {
            return None;
        }
        let center = [sums[4], sums[5], sums[6]].map(|m| m / w_sum);
        let var = (sums[7] / w_sum - center.iter().map(|c| c * c).sum::<f64>()).max(0.0);
        let vol = f64::from(h).powi(3);
        Some(FlameLight {
            center: center.map(|c| c as f32),
            power: [sums[0], sums[1], sums[2]].map(|p| (p * vol) as f32),
            spread2: (var + f64::from(h * h)) as f32,
        })
    }
}

/// Where the volume sits in the world: its box.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct VolumeBox {
    /// Minimum corner.
    pub min: [f32; 3],
    /// Maximum corner.
    pub max: [f32; 3],
    /// Voxel size (the raymarch step is derived from it).
    pub h: f32,
}

impl VolumeBox {
    /// The box of a simulation grid.
    pub fn of_grid(g: &crate::sim::Grid) -> Self {
        let e = g.extent();
        Self {
            min: g.origin,
            max: [0, 1, 2].map(|a| g.origin[a] + e[a]),
            h: g.h,
        }
    }
}

impl VolumeRenderer {
    /// Compiles the shaders.
    pub fn new(facade: &impl Facade) -> Result<Self, RenderError> {
        if let Some(problem) = crate::environment_problem() {
            return Err(RenderError::Environment(problem));
        }
        let table = crate::blackbody::table();
        let r = Self {
            volume: program(
                facade,
                "volume",
                FULLSCREEN_VERT,
                &super::light::with_march(VOLUME_FRAG),
            )?,
            background: program(facade, "background", FULLSCREEN_VERT, BACKGROUND_FRAG)?,
            lines: program(facade, "outline", LINE_VERT, LINE_FRAG)?,
            probe: program(facade, "slice probe", FULLSCREEN_VERT, SLICE_PROBE_FRAG)?,
            stream: program(facade, "streamlines", STREAM_VERT, STREAM_FRAG)?,
            texture: None,
            staging: None,
            sets: Vec::new(),
            shown: None,
            solids: super::solids::SolidPass::new(facade)?,
            heat: None,
            fire: None,
            blackbody: Texture2d::with_format(
                facade,
                vec![table.iter().map(|&[r, g, b]| (r, g, b)).collect::<Vec<_>>()],
                UncompressedFloatFormat::F32F32F32,
                MipmapsOption::NoMipmap,
            )
            .map_err(|e| RenderError::resource("blackbody table", e))?,
            blackbody_values: table,
            last_upload_ms: 0.0,
            uploads: 0,
            occupancy: super::occupancy::Occupancy::new(facade),
            light: std::cell::RefCell::new(super::light::LightCache::new(facade)),
            volume_generation: 0,
        };
        Ok(r)
    }

    /// Sets the solid obstacles drawn with the volume (at most [`super::MAX_OBSTACLES`]):
    /// spheres, boxes and meshes, turned and scaled, standing where their key frames put them
    /// at the time of the last frame uploaded ([`VolumeRenderer::set_time`]).
    pub fn set_obstacles(
        &mut self,
        facade: &impl Facade,
        obstacles: &[crate::sim::Obstacle],
    ) -> Result<(), RenderError> {
        self.solids.set_obstacles(facade, obstacles)
    }

    /// Places moving obstacles where they are at simulated time `t` (set by
    /// [`VolumeRenderer::upload_frame`] from the frame's time).
    pub fn set_time(&mut self, t: f64) {
        self.solids.time = t;
    }

    /// Dimensions of the texture currently drawn, if any.
    pub fn texture_dims(&self) -> Option<Dims> {
        self.density_texture().map(|t| t.1)
    }

    /// The density texture drawn: the shown shared set's, or the uploaded one.
    pub(super) fn density_texture(&self) -> Option<(&Texture3d, Dims)> {
        match self.shown {
            Some((i, d)) => self.sets.get(i).map(|s| (&s.0, d)),
            None => self.texture.as_ref().map(|(t, d)| (t, *d)),
        }
    }

    /// The temperature-and-flame texture drawn, if any.
    pub(super) fn heat_texture(&self) -> Option<&Texture3d> {
        match self.shown {
            Some((i, _)) => self.sets.get(i).and_then(|s| s.1.as_ref()),
            None => self.heat.as_ref().map(|h| &h.0),
        }
    }

    /// Uploads a density grid (x-fastest, `dims.cells()` values) into the 3D texture,
    /// re-creating the texture only when the dimensions change. Returns the milliseconds taken
    /// (including the wait for the transfer to finish).
    pub fn upload(
        &mut self,
        facade: &impl Facade,
        density: &[f32],
        dims: Dims,
    ) -> Result<f64, RenderError> {
        self.upload_density(facade, density, dims)?;
        self.refresh_bricks(facade);
        Ok(self.last_upload_ms)
    }

    /// [`VolumeRenderer::upload`] without working out the bricks.
    fn upload_density(
        &mut self,
        facade: &impl Facade,
        density: &[f32],
        dims: Dims,
    ) -> Result<f64, RenderError> {
        if density.len() != dims.cells() {
            return Err(RenderError::resource_msg(format!(
                "density has {} values, a {dims} grid needs {}",
                density.len(),
                dims.cells()
            )));
        }
        let t = Instant::now();
        self.shown = None;
        self.uploads += 1;
        if self.texture.as_ref().map(|t| t.1) != Some(dims) {
            let tex = texture_3d(facade, UncompressedFloatFormat::F32, dims, "3D texture")?;
            self.texture = Some((tex, dims));
            self.staging = Some(PixelBuffer::new_empty(facade, dims.cells()));
        }
        let (Some((tex, _)), Some(staging)) = (&self.texture, &self.staging) else {
            return Err(RenderError::resource_msg("texture missing after creation"));
        };
        staging.write(density);
        fill_3d(facade, tex, staging, dims);
        self.last_upload_ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(self.last_upload_ms)
    }

    /// Uploads what the volume pass draws of a frame: the density and, where the frame holds
    /// flame, temperature and flame (one RG32F texture) with the flame light they cast. A frame
    /// without flame (or with none above zero) turns the fire off. Returns the milliseconds
    /// taken.
    pub fn upload_frame(
        &mut self,
        facade: &impl Facade,
        frame: &crate::frame::Frame,
        kelvin_per_unit: f32,
    ) -> Result<f64, RenderError> {
        let dims = frame.grid.dims;
        let t = Instant::now();
        self.solids.time = frame.time;
        self.upload_density(facade, frame.density(), dims)?;
        self.fire = None;
        if let (Some(temp), Some(flame)) = (&frame.temperature, &frame.flame) {
            if flame.len() == dims.cells() && temp.len() == dims.cells() {
                self.fire = flame_light(
                    &frame.grid,
                    temp,
                    flame,
                    &self.blackbody_values,
                    kelvin_per_unit,
                );
            }
            if self.fire.is_some() {
                self.upload_heat(facade, temp, flame, dims)?;
            }
        }
        self.refresh_bricks(facade);
        self.last_upload_ms = t.elapsed().as_secs_f64() * 1e3;
        Ok(self.last_upload_ms)
    }

    fn upload_heat(
        &mut self,
        facade: &impl Facade,
        temperature: &[f32],
        flame: &[f32],
        dims: Dims,
    ) -> Result<(), RenderError> {
        if self.heat.as_ref().map(|h| h.1) != Some(dims) {
            let tex = texture_3d(
                facade,
                UncompressedFloatFormat::F32F32,
                dims,
                "3D heat texture",
            )?;
            // The staging buffer is kept with the texture and refilled, as the density's is.
            self.heat = Some((tex, dims, PixelBuffer::new_empty(facade, dims.cells())));
        }
        let Some((tex, _, staging)) = &self.heat else {
            return Err(RenderError::resource_msg(
                "heat texture missing after creation",
            ));
        };
        self.uploads += 1;
        let pairs: Vec<(f32, f32)> = temperature
            .iter()
            .zip(flame)
            .map(|(&t, &f)| (t, f.max(0.0)))
            .collect();
        staging.write(&pairs);
        fill_3d(facade, tex, staging, dims);
        Ok(())
    }

    /// The flame light of the last upload, `None` when nothing glows.
    pub fn flame_light(&self) -> Option<FlameLight> {
        self.fire
    }

    /// Draws background, outline and volume into `viewport` of `surface`.
    pub fn draw<S: Surface>(
        &self,
        facade: &impl Facade,
        surface: &mut S,
        viewport: Rect,
        camera: &OrbitCamera,
        bx: &VolumeBox,
        settings: &RenderSettings,
    ) -> Result<(), RenderError> {
        settings.validate()?;
        if viewport.width == 0 || viewport.height == 0 {
            return Ok(());
        }
        let aspect = viewport.width as f32 / viewport.height as f32;
        let vp = camera.view_projection(aspect);
        let inv = vp.try_inverse().ok_or_else(|| RenderError::Draw {
            what: "the camera matrix is singular".into(),
            source: None,
        })?;
        let vorigin = [viewport.left as f32, viewport.bottom as f32];
        let vsize = [viewport.width as f32, viewport.height as f32];
        let tri = || glium::vertex::EmptyVertexAttributes { len: 3 };
        let tris = NoIndices(PrimitiveType::TrianglesList);
        let plain = DrawParameters {
            viewport: Some(viewport),
            ..Default::default()
        };
        surface
            .draw(
                tri(),
                tris,
                &self.background,
                &uniform! {
                    viewport_origin: vorigin,
                    viewport_size: vsize,
                    bg_bottom: settings.background_bottom,
                    bg_top: settings.background_top,
                },
                &plain,
            )
            .map_err(|e| RenderError::draw("the background", e))?;
        if settings.outline {
            self.draw_lines(
                facade,
                surface,
                viewport,
                camera,
                &box_edges(bx.min, bx.max),
                settings.outline_color,
            )?;
        }
        let Some((tex, dims)) = self.density_texture() else {
            return Ok(());
        };
        let inv_m: [[f32; 4]; 4] = inv.into();
        let eye = camera.eye();
        let step = bx.h / settings.step_quality;
        let diag = (0..3)
            .map(|a| (bx.max[a] - bx.min[a]).powi(2))
            .sum::<f32>()
            .sqrt();
        let max_steps = ((diag / step).ceil() as i32 + 2).max(1);
        let sampler = super::linear(tex);
        let fire = self.fire.filter(|_| self.heat_texture().is_some());
        // (every sample, where the bricks are not worked out: bound to the density only
        // so that the sampler has a texture)
        let bricks = self.occupancy.for_draw(dims, fire.is_some());
        let occupancy = super::nearest(bricks.unwrap_or(tex));
        // The smoke's light from the cache (worked out now where the volume, its box or the
        // light changed since the last draw), else marched at every sample.
        let mut cache = self.light.borrow_mut();
        let key = super::light::LightKey {
            volume: self.volume_generation,
            dims,
            min: bx.min,
            max: bx.max,
            light_dir: settings.light_unit(),
            density_scale: settings.density_scale,
            shadow_steps: settings.shadow_steps,
            bricks: bricks.is_some(),
        };
        let wanted = settings.shadows && settings.shadow_steps >= super::light::CACHE_FROM_STEPS;
        let light = cache.prepare(facade, wanted, key, tex, bricks);
        // (how far a sample of smoke marches before reading the cache: NEAR_VOXELS texels'
        // spacing in the texture's voxels, which light.comp's reach counts in)
        let voxel = [
            (bx.max[0] - bx.min[0]) / dims.nx as f32,
            (bx.max[1] - bx.min[1]) / dims.ny as f32,
            (bx.max[2] - bx.min[2]) / dims.nz as f32,
        ]
        .into_iter()
        .fold(f32::INFINITY, f32::min);
        let near = super::light::NEAR_VOXELS * super::light::texel_spread(dims) * voxel;
        let heat_tex = match (self.heat_texture(), fire) {
            (Some(h), Some(_)) => h,
            _ => tex,
        };
        let heat = super::linear(heat_tex);
        let bb = self
            .blackbody
            .sampled()
            .magnify_filter(MagnifySamplerFilter::Linear)
            .minify_filter(MinifySamplerFilter::Linear)
            .wrap_function(SamplerWrapFunction::Clamp);
        let fl = fire.unwrap_or(FlameLight {
            center: [0.0; 3],
            power: [0.0; 3],
            spread2: 1.0,
        });
        let fl_scale = settings.flame_intensity * settings.flame_light;
        let lin = RenderSettings::linear;
        let (kmin, kmax) = crate::blackbody::TABLE_KELVIN;
        self.solids.with_hits(facade, viewport, camera, |hits| {
            surface
                .draw(
                    tri(),
                    tris,
                    &self.volume,
                    &uniform! {
                        density: sampler,
                        fire: fire.is_some(),
                        heat: heat,
                        blackbody: bb,
                        bb_range: [kmin, kmax],
                        kelvin_per_unit: settings.kelvin_per_unit,
                        flame_intensity: settings.flame_intensity,
                        flame_light_pos: fl.center,
                        flame_light_rgb: fl.power.map(|p| p * fl_scale),
                        flame_light_r2: fl.spread2,
                        phase_g: settings.anisotropy,
                        exposure: settings.exposure.exp2(),
                        tone_map: settings.tone_map,
                        bg_bottom: settings.background_bottom,
                        bg_top: settings.background_top,
                        inv_view_proj: inv_m,
                        eye: [eye.x, eye.y, eye.z],
                        box_min: bx.min,
                        box_max: bx.max,
                        viewport_origin: vorigin,
                        viewport_size: vsize,
                        step_len: step,
                        density_scale: settings.density_scale,
                        light_dir: settings.light_unit(),
                        light_color: lin(settings.light_color),
                        ambient: settings.ambient,
                        smoke_color: lin(settings.smoke_color),
                        shadows: settings.shadows,
                        shadow_steps: settings.shadow_steps as i32,
                        jitter: settings.jitter,
                        max_steps: max_steps,
                        solid_hits: hits,
                        obstacle_color: lin(settings.obstacle_color),
                        occupancy: occupancy,
                        skip_empty: bricks.is_some(),
                        light_cached: light.is_some(),
                        near: near,
                        near_steps: super::light::NEAR_STEPS as i32,
                        light: super::linear(light.unwrap_or(tex)),
                        brick: super::occupancy::BRICK as i32,
                    },
                    &premultiplied(viewport),
                )
                .map_err(|e| RenderError::draw("the volume", e))
        })
    }

    /// Draws line segments (pairs of world points) over what is drawn, composited with
    /// premultiplied alpha.
    pub fn draw_lines<S: Surface>(
        &self,
        facade: &impl Facade,
        surface: &mut S,
        viewport: Rect,
        camera: &OrbitCamera,
        segments: &[[f32; 3]],
        color: [f32; 4],
    ) -> Result<(), RenderError> {
        if viewport.width == 0 || viewport.height == 0 || segments.len() < 2 {
            return Ok(());
        }
        let vp = camera.view_projection(viewport.width as f32 / viewport.height as f32);
        let m: [[f32; 4]; 4] = vp.into();
        let verts: Vec<LineVertex> = segments
            .iter()
            .map(|&position| LineVertex { position })
            .collect();
        let vb = VertexBuffer::new(facade, &verts)
            .map_err(|e| RenderError::resource("line vertices", e))?;
        surface
            .draw(
                &vb,
                NoIndices(PrimitiveType::LinesList),
                &self.lines,
                &uniform! { view_proj: m, line_color: color },
                &premultiplied(viewport),
            )
            .map_err(|e| RenderError::draw("lines", e))
    }

    /// Draws streamline segments (`stream_vertices`) over the volume already drawn: each
    /// fragment dimmed by the smoke between it and the eye and hidden behind obstacles.
    #[allow(clippy::too_many_arguments)]
    pub fn draw_streamlines<S: Surface>(
        &self,
        facade: &impl Facade,
        surface: &mut S,
        viewport: Rect,
        camera: &OrbitCamera,
        bx: &VolumeBox,
        settings: &RenderSettings,
        segments: &[StreamVertex],
    ) -> Result<(), RenderError> {
        if viewport.width == 0 || viewport.height == 0 || segments.len() < 2 {
            return Ok(());
        }
        let Some((tex, _)) = self.density_texture() else {
            return Ok(());
        };
        let vp = camera.view_projection(viewport.width as f32 / viewport.height as f32);
        let m: [[f32; 4]; 4] = vp.into();
        let vb = VertexBuffer::new(facade, segments)
            .map_err(|e| RenderError::resource("streamline vertices", e))?;
        let step = bx.h / settings.step_quality;
        let diag = (0..3)
            .map(|a| (bx.max[a] - bx.min[a]).powi(2))
            .sum::<f32>()
            .sqrt();
        let density = super::linear(tex);
        let mut params = premultiplied(viewport);
        params.line_width = Some(2.0);
        self.solids.with_hits(facade, viewport, camera, |hits| {
            surface
                .draw(
                    &vb,
                    NoIndices(PrimitiveType::LinesList),
                    &self.stream,
                    &uniform! {
                        view_proj: m,
                        density: density,
                        eye: {
                            let e = camera.eye();
                            [e.x, e.y, e.z]
                        },
                        box_min: bx.min,
                        box_max: bx.max,
                        step_len: step,
                        density_scale: settings.density_scale,
                        solid_hits: hits,
                        viewport_origin: [viewport.left as f32, viewport.bottom as f32],
                        max_steps: ((diag / step).ceil() as i32 + 2).max(1),
                    },
                    &params,
                )
                .map_err(|e| RenderError::draw("streamlines", e))
        })
    }
}

/// Blending for premultiplied colour: dst = src + (1 − src_alpha)·dst.
fn premultiplied(viewport: Rect) -> DrawParameters<'static> {
    let f = glium::BlendingFunction::Addition {
        source: glium::LinearBlendingFactor::One,
        destination: glium::LinearBlendingFactor::OneMinusSourceAlpha,
    };
    DrawParameters {
        viewport: Some(viewport),
        blend: Blend {
            color: f,
            alpha: f,
            constant_value: (0.0, 0.0, 0.0, 0.0),
        },
        line_width: Some(1.0),
        ..Default::default()
    }
}

/// The 12 edges of a box as 24 line end points.
pub fn box_edges(min: [f32; 3], max: [f32; 3]) -> Vec<[f32; 3]> {
    let corner = |i: usize| [0, 1, 2].map(|a| if i >> a & 1 == 1 { max[a] } else { min[a] });
    let mut v = Vec::with_capacity(24);
    for i in 0..8 {
        for a in 0..3 {
            if i >> a & 1 == 0 {
                v.push(corner(i));
                v.push(corner(i | 1 << a));
            }
        }
    }
    v
}
