//! The renderer's side of its two raymarch aids: the brick grid of empty space
//! (`occupancy.rs`), worked out again for each volume drawn, and the light cache
//! (`light.rs`); their switches; and the textures read back texel by texel (a slice of the
//! volume, the bricks), for tests and for checking an upload.

use super::volume::VolumeRenderer;
use super::RenderError;
use crate::sim::Dims;
use glium::backend::Facade;
use glium::index::{NoIndices, PrimitiveType};
use glium::texture::{MipmapsOption, Texture3d, UncompressedFloatFormat};
use glium::{uniform, Rect, Surface};

impl VolumeRenderer {
    /// Works out which bricks of the volume drawn now hold anything to see (with the flame
    /// where it is drawn), for the raymarch to step over the others. Where it cannot, the
    /// raymarch takes every sample: slower, the same picture.
    pub(super) fn refresh_bricks(&mut self, facade: &impl Facade) {
        self.volume_generation += 1;
        let drawn = match self.shown {
            Some((i, d)) => self.sets.get(i).map(|s| (&s.0, s.1.as_ref(), d)),
            None => self
                .texture
                .as_ref()
                .map(|(t, d)| (t, self.heat.as_ref().map(|h| &h.0), *d)),
        };
        let Some((density, heat, dims)) = drawn else {
            self.occupancy.stale();
            return;
        };
        // (the draw shows the flame where the frame has a flame light and a heat texture)
        let heat = heat.filter(|_| self.fire.is_some());
        if self.occupancy.fill(facade, density, heat, dims).is_err() {
            self.occupancy.stale();
        }
    }

    /// Switches empty-space skipping on (the default where the context has compute
    /// shaders) or off: the same picture either way, off takes every sample.
    pub fn set_empty_skipping(&mut self, facade: &impl Facade, on: bool) {
        self.occupancy.on = on;
        self.refresh_bricks(facade);
    }

    /// Switches the light cache on (the default on a card with compute shaders) or off (the
    /// default on a software renderer: every sample of smoke marches towards the light, as
    /// the cache's texels do).
    pub fn set_light_cache(&mut self, on: bool) {
        self.light.get_mut().on = on;
    }

    /// The light cache's texels along each axis, where the last draw read one.
    pub fn light_cache_dims(&self) -> Option<Dims> {
        self.light.borrow().dims()
    }

    /// Whether the volume drawn now is drawn skipping its empty bricks.
    pub fn skips_empty(&self) -> bool {
        let fire = self.fire.is_some() && self.heat_texture().is_some();
        self.density_texture()
            .is_some_and(|(_, d)| self.occupancy.for_draw(d, fire).is_some())
    }

    /// The bricks' grid as the raymarch reads it (1: something to see in the brick, 0:
    /// nothing), x-fastest, and its bricks along each axis; `None` where nothing is skipped.
    pub fn read_bricks(
        &self,
        facade: &impl Facade,
    ) -> Result<Option<(Vec<f32>, Dims)>, RenderError> {
        let Some((grid, b)) = self.occupancy.filled() else {
            return Ok(None);
        };
        let mut all = Vec::with_capacity(b.cells());
        for z in 0..b.nz {
            all.extend(self.read_layer(facade, grid, b, z)?);
        }
        Ok(Some((all, b)))
    }

    /// Reads z-slice `z` back from the texture, texel by texel (x-fastest, nx·ny values).
    pub fn read_slice(&self, facade: &impl Facade, z: usize) -> Result<Vec<f32>, RenderError> {
        let Some((tex, dims)) = self.density_texture() else {
            return Err(RenderError::resource_msg("no volume uploaded"));
        };
        if z >= dims.nz {
            return Err(RenderError::resource_msg(format!(
                "slice {z} outside 0..{}",
                dims.nz
            )));
        }
        self.read_layer(facade, tex, dims, z)
    }

    /// Layer `z` of `tex` (a `dims` R32F texture), texel by texel, x-fastest.
    pub(super) fn read_layer(
        &self,
        facade: &impl Facade,
        tex: &Texture3d,
        dims: Dims,
        z: usize,
    ) -> Result<Vec<f32>, RenderError> {
        let (w, h) = (dims.nx as u32, dims.ny as u32);
        let target = glium::texture::Texture2d::empty_with_format(
            facade,
            UncompressedFloatFormat::F32F32F32F32,
            MipmapsOption::NoMipmap,
            w,
            h,
        )
        .map_err(|e| RenderError::resource("probe texture", e))?;
        let mut fb = glium::framebuffer::SimpleFrameBuffer::new(facade, &target)
            .map_err(|e| RenderError::resource("probe framebuffer", e))?;
        fb.draw(
            glium::vertex::EmptyVertexAttributes { len: 3 },
            NoIndices(PrimitiveType::TrianglesList),
            &self.probe,
            &uniform! {
                density: super::nearest(tex),
                slice: z as i32,
            },
            &Default::default(),
        )
        .map_err(|e| RenderError::draw("the slice probe", e))?;
        let image = target
            .main_level()
            .first_layer()
            .into_image(None)
            .ok_or_else(|| RenderError::resource_msg("probe texture has no image"))?;
        let rows: Vec<Vec<(f32, f32, f32, f32)>> = image.raw_read(&Rect {
            left: 0,
            bottom: 0,
            width: w,
            height: h,
        });
        // Rows come bottom (y = 0) first, which is the grid's order too.
        Ok(rows
            .into_iter()
            .flat_map(|r| r.into_iter().map(|p| p.0))
            .collect())
    }
}
