//! Empty-space skipping for the raymarch: a coarse grid that says which bricks of
//! [`BRICK`]³ voxels hold anything a sample could see (`shaders/occupancy.comp`, worked out
//! on the card from the textures drawn, whether uploaded or written by the GPU solver), so
//! that `shaders/volume.frag` steps over the empty ones a brick at a time instead of a
//! sample at a time. The samples it steps over are exactly those that would have added
//! nothing, and the ones it takes are the same, so the picture is the same to the bit (a
//! test compares both). It needs compute shaders (OpenGL 4.3); without them, or where its
//! texture cannot be made, the raymarch takes every sample as before.

use super::RenderError;
use crate::sim::Dims;
use glium::backend::Facade;
use glium::program::ComputeShader;
use glium::texture::{MipmapsOption, Texture3d, UncompressedFloatFormat};
use glium::uniform;
use glium::uniforms::{ImageUnit, ImageUnitAccess, ImageUnitBehavior, ImageUnitFormat};

const OCCUPANCY_COMP: &str = include_str!("../../shaders/occupancy.comp");

/// Voxels along each side of a brick. Smaller bricks hug the smoke closer, larger ones step
/// further at a time: of 4, 8 and 16 timed on llvmpipe, 8 was the fastest at 64³ and
/// within 6% of 16 at 128³ (docs/rendering.md).
pub const BRICK: usize = 8;

/// The shader's work group, along each axis (its `local_size`).
const GROUP: u32 = 4;

/// Bricks along each axis of a `dims` volume.
pub fn bricks(dims: Dims) -> Dims {
    Dims {
        nx: dims.nx.div_ceil(BRICK),
        ny: dims.ny.div_ceil(BRICK),
        nz: dims.nz.div_ceil(BRICK),
    }
}

/// The renderer's brick grid and the program that fills it.
pub(super) struct Occupancy {
    /// `None` where the context has no compute shaders (or the program did not compile).
    shader: Option<ComputeShader>,
    /// The bricks' texture (R32F) and the volume's dimensions it was made for.
    grid: Option<(Texture3d, Dims)>,
    /// Where the grid holds the bricks of the volume drawn now: with the flame counted or
    /// not.
    filled_with_fire: Option<bool>,
    /// Skipping switched on (the default; `PLUME_RENDER_SKIP_EMPTY=0` or
    /// [`super::VolumeRenderer::set_empty_skipping`] switch it off).
    pub on: bool,
}

impl Occupancy {
    pub(super) fn new(facade: &impl Facade) -> Self {
        let supported = ComputeShader::is_supported(facade.get_context());
        Self {
            shader: supported
                .then(|| ComputeShader::from_source(facade, OCCUPANCY_COMP).ok())
                .flatten(),
            grid: None,
            filled_with_fire: None,
            on: plume_core::environment::switch_set("PLUME_RENDER_SKIP_EMPTY").unwrap_or(true),
        }
    }

    /// The volume drawn changed: until [`Occupancy::fill`] runs, nothing is skipped.
    pub(super) fn stale(&mut self) {
        self.filled_with_fire = None;
    }

    /// Works out the bricks of the `dims` volume in `density` (and, with `heat`, its
    /// flame). Where it cannot (no compute shaders, no memory for the grid) the grid stays
    /// stale and the raymarch takes every sample.
    pub(super) fn fill(
        &mut self,
        facade: &impl Facade,
        density: &Texture3d,
        heat: Option<&Texture3d>,
        dims: Dims,
    ) -> Result<(), RenderError> {
        self.filled_with_fire = None;
        let Some(shader) = &self.shader else {
            return Ok(());
        };
        if !self.on {
            return Ok(());
        }
        if self.grid.as_ref().map(|g| g.1) != Some(dims) {
            self.grid = None;
            let b = bricks(dims);
            let tex = Texture3d::empty_with_format(
                facade,
                UncompressedFloatFormat::F32,
                MipmapsOption::NoMipmap,
                b.nx as u32,
                b.ny as u32,
                b.nz as u32,
            )
            .map_err(|e| RenderError::resource(format!("brick grid {b}"), e))?;
            self.grid = Some((tex, dims));
        }
        let Some((grid, _)) = &self.grid else {
            return Ok(());
        };
        // (described by hand, as the GPU solver's: glium's `image_unit` asks the driver for
        // the texture's format first)
        let mut behavior = ImageUnitBehavior::default();
        behavior.access = ImageUnitAccess::Write;
        behavior.format = ImageUnitFormat::R32F;
        let b = bricks(dims);
        shader.execute(
            uniform! {
                density: super::nearest(density),
                heat: super::nearest(heat.unwrap_or(density)),
                fire: heat.is_some(),
                brick: BRICK as i32,
                occupancy: ImageUnit(grid, behavior),
            },
            (b.nx as u32).div_ceil(GROUP),
            (b.ny as u32).div_ceil(GROUP),
            (b.nz as u32).div_ceil(GROUP),
        );
        self.filled_with_fire = Some(heat.is_some());
        Ok(())
    }

    /// The bricks for a draw of a `dims` volume with the flame drawn or not (`fire`), where
    /// the grid holds them; `None`: take every sample.
    pub(super) fn for_draw(&self, dims: Dims, fire: bool) -> Option<&Texture3d> {
        let (grid, made_for) = self.grid.as_ref()?;
        // (a grid filled without the flame would skip bricks where only flame is)
        let fits = self.on && *made_for == dims && self.filled_with_fire == Some(fire);
        fits.then_some(grid)
    }

    /// The grid and its bricks along each axis, where it holds the volume drawn now (for
    /// tests: 1 where something can be seen).
    pub(super) fn filled(&self) -> Option<(&Texture3d, Dims)> {
        self.filled_with_fire?;
        self.grid.as_ref().map(|(g, d)| (g, bricks(*d)))
    }
}
