//! The viewer's volume without leaving the card: the kernels write density (and temperature
//! and flame) into 3D textures the renderer's context made and shares with the solver's,
//! and sum the flame's light there; only those eight sums come back.

use glium::texture::UncompressedFloatFormat;
use glium::uniform;
use glium::uniforms::{ImageUnit, ImageUnitAccess, ImageUnitBehavior, ImageUnitFormat};

use crate::engine::Engine;
use crate::kernels::{run, REDUCE_GROUPS, REDUCE_WG};
use crate::VolumeTextures;

/// Sums of the flame's light a work group writes (see `shaders/sim/flame_light.comp`).
const FLAME_SUMS: u32 = 8;

impl Engine {
    /// See [`crate::GpuSolver::publish`].
    ///
    /// # Safety
    /// As [`crate::GpuSolver::publish`]'s.
    #[allow(unsafe_code)]
    pub unsafe fn publish(
        &mut self,
        t: VolumeTextures,
        kelvin_per_unit: f32,
    ) -> Result<Option<[f64; 8]>, String> {
        let dims = self.dims();
        if t.dims != self.grid.dims {
            return Err(format!(
                "the textures are {}, the grid {}",
                t.dims, self.grid.dims
            ));
        }
        // SAFETY: `GpuSolver::publish`'s caller promises live textures of these formats and
        // sizes in the solver's share group, held until the call returns.
        let density = unsafe {
            crate::raw::shared_texture_3d(&self.ctx, t.density, UncompressedFloatFormat::F32, dims)
        };
        // SAFETY: as above.
        let heat = t.heat.map(|id| unsafe {
            crate::raw::shared_texture_3d(&self.ctx, id, UncompressedFloatFormat::F32F32, dims)
        });
        let flame = self.fire_field(1);
        // The image units are described by hand: glium's `image_unit` asks the driver for
        // the texture's format first, a query that fails on some drivers for a texture
        // another context made (Mesa's llvmpipe under X11); the formats are the ones the
        // caller promised.
        let unit = |t, format| {
            let mut b = ImageUnitBehavior::default();
            b.access = ImageUnitAccess::Write;
            b.format = format;
            ImageUnit(t, b)
        };
        let density_image = unit(&density, ImageUnitFormat::R32F);
        // Without heat the kernel never stores to `heat_image`; it is bound to the density
        // texture only so that every uniform it declares is set.
        let heat_image = match &heat {
            Some(h) => unit(h, ImageUnitFormat::RG32F),
            None => unit(&density, ImageUnitFormat::R32F),
        };
        let with_heat = heat.is_some() && flame.is_some();
        run(
            &self.k.publish,
            dims,
            self.cells(),
            uniform! {
                Density: &self.f.density,
                Temperature: &self.f.temperature,
                Flame: flame.unwrap_or(&self.f.density),
                density_image: density_image,
                heat_image: heat_image,
                heat: u32::from(with_heat),
            },
        );
        let sums = match (with_heat, flame) {
            (true, Some(flame)) => Some(self.flame_sums(flame, kelvin_per_unit)),
            _ => None,
        };
        // The renderer's context samples the textures next: every store done and visible.
        self.raw.barrier();
        crate::cost::wait();
        self.ctx.finish();
        let mut n = self.transfers.get();
        n.publishes += 1;
        self.transfers.set(n);
        Ok(sums)
    }

    /// Σ f·e (rgb), Σ w, Σ w·position (xyz) and Σ w·|position|² over the cells of flame f > 0
    /// (see `shaders/sim/flame_light.comp`).
    fn flame_sums(&self, flame: &crate::fields::Field, kelvin_per_unit: f32) -> [f64; 8] {
        let n = self.cells();
        let groups = (n as u64)
            .div_ceil(u64::from(REDUCE_WG))
            .clamp(1, u64::from(REDUCE_GROUPS / FLAME_SUMS)) as u32;
        let (lo, hi) = plume_core::blackbody::TABLE_KELVIN;
        let g = &self.grid;
        let u = uniform! {
            Temperature: &self.f.temperature,
            Flame: flame,
            Table: &self.blackbody,
            PartialSum: &self.f.partial_sum,
            kelvin_per_unit: kelvin_per_unit,
            table_kelvin: [lo, hi],
            table_len: plume_core::blackbody::TABLE_LEN as u32,
            h: g.h,
            origin: g.origin,
            dims: self.dims(),
            count: n as u32,
        };
        let bytes = self.k.flame_light.bytes_of(n, self.dims(), &u);
        self.k
            .flame_light
            .dispatch(n, bytes, || self.k.flame_light.execute(u, groups, 1, 1));
        let len = (groups * FLAME_SUMS) as usize;
        let partials: Vec<f64> = self
            .f
            .partial_sum
            .slice(0..len)
            .map_or_else(Vec::new, |s| s.read().unwrap_or_default());
        self.count_small(len * 8);
        let mut sums = [0.0f64; 8];
        for group in partials.chunks_exact(FLAME_SUMS as usize) {
            for (s, v) in sums.iter_mut().zip(group) {
                *s += v;
            }
        }
        sums
    }
}
