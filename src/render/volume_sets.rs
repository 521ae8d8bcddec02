//! The volume renderer's side of the hand-over with the GPU solver (`render::exchange`):
//! it makes the sets of textures the solver asks for and draws the set a snapshot names,
//! with nothing uploaded.

use super::exchange::{VolumeExchange, Want, SETS};
use super::volume::{texture_3d, FlameLight, VolumeRenderer};
use super::RenderError;
use crate::sim::Dims;
use glium::backend::Facade;
use glium::texture::UncompressedFloatFormat;
use glium::GlObject;

impl VolumeRenderer {
    /// Makes the sets of textures the solver asks for through `x`, when it asks for new
    /// ones (a new grid, or fire where there was none), and offers them.
    pub fn serve(&mut self, facade: &impl Facade, x: &VolumeExchange) -> Result<(), RenderError> {
        let Some(want) = x.wanted() else {
            return Ok(());
        };
        let dims = want.dims;
        // The set drawn goes with the others (OpenGL keeps it until the last draw of it).
        self.shown = None;
        self.sets.clear();
        self.occupancy.stale();
        let made = self.make_sets(facade, want);
        if let Err(e) = made {
            self.sets.clear();
            x.refuse(want);
            return Err(e);
        }
        // Made before the solver's context writes them.
        facade.get_context().finish();
        x.offer(
            want,
            self.sets
                .iter()
                .map(|(d, h)| plume_gpu::VolumeTextures {
                    dims,
                    density: d.get_id(),
                    heat: h.as_ref().map(GlObject::get_id),
                })
                .collect(),
        );
        Ok(())
    }

    fn make_sets(&mut self, facade: &impl Facade, want: Want) -> Result<(), RenderError> {
        let Want { dims, heat } = want;
        for _ in 0..SETS {
            let d = texture_3d(
                facade,
                UncompressedFloatFormat::F32,
                dims,
                "shared 3D texture",
            )?;
            let h = if heat {
                Some(texture_3d(
                    facade,
                    UncompressedFloatFormat::F32F32,
                    dims,
                    "shared 3D heat texture",
                )?)
            } else {
                None
            };
            self.sets.push((d, h));
        }
        Ok(())
    }

    /// Draws set `i` (the solver wrote it for a `dims` grid at simulated time `time`, with
    /// the flame's light `fire`) from now on. The set drawn before was retired by the
    /// snapshot's hand-over: once every frame that drew it has finished, it is free again.
    pub fn show_set(
        &mut self,
        facade: &impl Facade,
        x: &VolumeExchange,
        i: usize,
        dims: Dims,
        fire: Option<FlameLight>,
        time: f64,
    ) {
        if i >= self.sets.len() {
            return;
        }
        facade.get_context().finish();
        x.retired_finished();
        self.shown = Some((i, dims));
        self.fire = fire;
        self.solids.time = time;
        self.refresh_bricks(facade);
    }

    /// Whether the view draws a set the GPU solver wrote (not an uploaded texture).
    pub fn draws_shared(&self) -> bool {
        self.shown.is_some()
    }
}
