//! The light cache: the smoke's optical depth towards the light, worked out once a volume
//! (and again when the light, the density scale, the shadow samples or the box change) at
//! the texels of a grid of at most [`LIGHT_MOST`] along each side, by the march the raymarch
//! took at every sample of smoke (`shaders/light_march.glsl`, in `shaders/light.comp`).
//! A sample of smoke then marches only the first [`NEAR_VOXELS`] towards the light
//! ([`NEAR_STEPS`] samples) and reads the rest from the cache with linear filtering: 7
//! fetches instead of `shadow_steps` (24 by default). What it changes in the picture is the
//! interpolation between texels' centres beyond that short march (`tests/light_cache.rs`
//! bounds it). Texels no sample of smoke can read (no brick within reach of them holds
//! anything, `occupancy.rs`) are not marched. On by default on a card, off on a software
//! renderer (`LightCache::on`); it needs compute shaders (OpenGL 4.3), and without
//! them the raymarch marches as before.

use super::occupancy::BRICK;
use super::RenderError;
use crate::sim::Dims;
use glium::backend::Facade;
use glium::program::ComputeShader;
use glium::texture::{MipmapsOption, Texture3d, UncompressedFloatFormat};
use glium::uniform;
use glium::uniforms::{ImageUnit, ImageUnitAccess, ImageUnitBehavior, ImageUnitFormat};

const LIGHT_MARCH: &str = include_str!("../../shaders/light_march.glsl");
const LIGHT_COMP: &str = include_str!("../../shaders/light.comp");

/// Texels along the longest side of the light cache at most: a grid up to this size gets a
/// texel a voxel, a larger one a texel every few (the shadows are soft at that scale).
pub const LIGHT_MOST: usize = 128;

/// Samples of smoke still march the first [`NEAR_VOXELS`] voxels towards the light (in
/// this many samples) and take the rest from the cache: the depth is steepest at a dense
/// smoke's lit face, where reading it from the cache at the sample was up to 20 levels off
/// (a block of density 1.5 lit from the side), against at most 6 so
/// (`tests/light_cache.rs`).
pub const NEAR_STEPS: u32 = 6;

/// How far samples of smoke march before reading the cache, in voxels (texels where the
/// cache has fewer texels than voxels).
pub const NEAR_VOXELS: f32 = 5.0;

/// Shadow samples from which the cache is used: with fewer, marching every sample costs
/// no more than the near march and a fetch.
pub const CACHE_FROM_STEPS: u32 = 12;

/// The shader's work group, along each axis (its `local_size`).
const GROUP: u32 = 4;

/// `src` with its `#include "light_march.glsl"` line replaced by that file.
pub(super) fn with_march(src: &str) -> String {
    src.replace("#include \"light_march.glsl\"", LIGHT_MARCH)
}

/// The light cache's texels along each axis for a `dims` volume.
pub fn light_dims(dims: Dims) -> Dims {
    let longest = dims.nx.max(dims.ny).max(dims.nz);
    let every = longest.div_ceil(LIGHT_MOST).max(1);
    Dims {
        nx: dims.nx.div_ceil(every),
        ny: dims.ny.div_ceil(every),
        nz: dims.nz.div_ceil(every),
    }
}

/// Voxels between two of the light cache's texels along the axis where they are furthest
/// apart, for a `dims` volume.
pub fn texel_spread(dims: Dims) -> f32 {
    let ld = light_dims(dims);
    [(dims.nx, ld.nx), (dims.ny, ld.ny), (dims.nz, ld.nz)]
        .iter()
        .map(|&(n, l)| n as f32 / l as f32)
        .fold(1.0f32, f32::max)
}

/// What the cache's values depend on: the volume (a new one each upload or set shown),
/// where its box is, and the settings the march reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct LightKey {
    pub volume: u64,
    pub dims: Dims,
    pub min: [f32; 3],
    pub max: [f32; 3],
    pub light_dir: [f32; 3],
    pub density_scale: f32,
    pub shadow_steps: u32,
    /// Texels far from every full brick left out.
    pub bricks: bool,
}

/// The cache's texture and the program that fills it.
pub(super) struct LightCache {
    shader: Option<ComputeShader>,
    grid: Option<(Texture3d, Dims)>,
    key: Option<LightKey>,
    /// Whether the last draw read it.
    read: bool,
    /// On: by default on a card, off on a software renderer (llvmpipe), where working the
    /// cache out for a new volume took longer than it saved a draw at 128³ (the `raymarch`
    /// bench); `PLUME_RENDER_LIGHT_CACHE=0|1` or [`super::VolumeRenderer::set_light_cache`]
    /// say otherwise. Off, every sample of smoke marches.
    pub on: bool,
}

impl LightCache {
    pub(super) fn new(facade: &impl Facade) -> Self {
        let supported = ComputeShader::is_supported(facade.get_context());
        Self {
            shader: supported
                .then(|| ComputeShader::from_source(facade, &with_march(LIGHT_COMP)).ok())
                .flatten(),
            grid: None,
            key: None,
            read: false,
            on: plume_core::environment::switch_set("PLUME_RENDER_LIGHT_CACHE").unwrap_or_else(
                || !plume_gpu::is_software(facade.get_context().get_opengl_renderer_string()),
            ),
        }
    }

    /// For a draw with shadows (`wanted`): the cache holding `key`'s light, worked out from
    /// `density` (and `bricks`, the occupancy grid where the raymarch has one) where it does
    /// not yet; `None` where there is none to be had (switched off, no compute shaders, no
    /// memory): then march.
    pub(super) fn prepare(
        &mut self,
        facade: &impl Facade,
        wanted: bool,
        key: LightKey,
        density: &Texture3d,
        bricks: Option<&Texture3d>,
    ) -> Option<&Texture3d> {
        self.read = false;
        if !(self.on && wanted) {
            return None;
        }
        let shader = self.shader.as_ref()?;
        if self.key != Some(key) {
            self.key = None;
            let ld = light_dims(key.dims);
            if self.grid.as_ref().map(|g| g.1) != Some(ld) {
                self.grid = None;
                let tex = Texture3d::empty_with_format(
                    facade,
                    UncompressedFloatFormat::F32,
                    MipmapsOption::NoMipmap,
                    ld.nx as u32,
                    ld.ny as u32,
                    ld.nz as u32,
                )
                .map_err(|e| RenderError::resource(format!("light cache {ld}"), e))
                .ok()?;
                self.grid = Some((tex, ld));
            }
            let (grid, _) = self.grid.as_ref()?;
            // (described by hand, as the brick grid's)
            let mut behavior = ImageUnitBehavior::default();
            behavior.access = ImageUnitAccess::Write;
            behavior.format = ImageUnitFormat::R32F;
            // (a sample of smoke marches NEAR_VOXELS texels' spacings, then reads the texels
            // within one spacing of where it stopped)
            let reach = (NEAR_VOXELS + 1.0) * texel_spread(key.dims);
            let use_bricks = key.bricks && bricks.is_some();
            shader.execute(
                uniform! {
                    density: super::linear(density),
                    box_min: key.min,
                    box_max: key.max,
                    density_scale: key.density_scale,
                    light_dir: key.light_dir,
                    shadow_steps: key.shadow_steps as i32,
                    light: ImageUnit(grid, behavior),
                    use_bricks: use_bricks,
                    occupancy: super::nearest(bricks.unwrap_or(density)),
                    brick: BRICK as i32,
                    reach: reach,
                },
                (ld.nx as u32).div_ceil(GROUP),
                (ld.ny as u32).div_ceil(GROUP),
                (ld.nz as u32).div_ceil(GROUP),
            );
            self.key = Some(key);
        }
        self.read = true;
        self.grid.as_ref().map(|g| &g.0)
    }

    /// The texels along each axis of the cache the last draw read, if it read one.
    pub(super) fn dims(&self) -> Option<Dims> {
        self.key.filter(|_| self.read)?;
        self.grid.as_ref().map(|g| g.1)
    }
}
