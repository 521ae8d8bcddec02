//! The GPU solver's side of feeding the 3D view without a read-back: after a step the
//! solver's kernels write the volume into a set of the window's textures
//! (`render::exchange`), the snapshot names the set, and the window draws it (`gpu_view`).
//! The frame then carries only what the panels ask for (the slice view, the streamlines).

use crate::frame::Select;
use crate::render::exchange::{VolumeExchange, Want};
use crate::render::volume::FlameLight;
use crate::render::volume::VolumeRenderer;
use crate::sim::{Dims, Emitter, Simulation};
use glium::backend::Facade;
use plume_gpu::GpuSolver;

/// Where a snapshot's 3D volume comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Volume {
    /// The frame's fields (uploaded by the window).
    Frame,
    /// A set of shared textures the GPU solver wrote.
    Shared {
        /// Which set.
        set: usize,
        /// The grid it was written for.
        dims: Dims,
        /// The flame's light, summed on the card.
        fire: Option<FlameLight>,
    },
    /// No set was free: the window keeps drawing the last one (a newer follows).
    Unchanged,
}

/// The GPU solver under `sim` when its context is in the share group `group` (the
/// window's), `None` for any other simulation (the CPU's, the up-resolution pass's).
pub fn shared_solver(sim: &dyn Simulation, group: u64) -> Option<&GpuSolver> {
    let g = sim.as_any()?.downcast_ref::<GpuSolver>()?;
    (g.info().share_group == Some(group)).then_some(g)
}

/// What a frame needs to carry while the volume is shared: `needs` (the panels' choice),
/// fuel and flame only where something burns.
pub fn frame_select(sim: &dyn Simulation, needs: Select) -> Select {
    let burns = sim.emitters().iter().any(Emitter::burns);
    Select {
        fuel: needs.fuel && burns,
        flame: needs.flame && burns,
        ..needs
    }
}

/// Writes `gpu`'s volume into a free set of `x` on the card; [`Volume::Unchanged`] while
/// the window has none free (or has not made them yet), `None` where writing failed (the
/// frame then carries the fields instead).
pub fn publish(gpu: &GpuSolver, x: &VolumeExchange) -> Option<Volume> {
    let grid = *gpu.grid();
    let want = Want {
        dims: grid.dims,
        heat: gpu.emitters().iter().any(Emitter::burns),
    };
    let Some((set, textures, kelvin)) = x.take_free(want) else {
        // No set free: wait for one; none to be had: the fields go in the frame.
        return (!x.refused(want)).then_some(Volume::Unchanged);
    };
    // SAFETY: the window's renderer made these textures in the solver's share group
    // (`shared_solver` checked the group) as `GL_R32F`/`GL_RG32F` 3D textures of the grid's
    // size (`Want`), and keeps them until the exchange frees them; the set is `Writing`
    // until `written` below, so it is neither drawn nor remade meanwhile.
    let done = unsafe { gpu.publish(textures, kelvin) };
    x.written(set, done.is_ok());
    let sums = done.ok()?;
    Some(Volume::Shared {
        set,
        dims: grid.dims,
        fire: sums.and_then(|s| FlameLight::from_sums(&s, grid.h)),
    })
}

/// For a command that draws on one thread (`plume render`): writes the GPU solver's
/// volume into the renderer's own textures (made on the first call) and draws those from
/// now on. `false` where `sim` is not a GPU solver of `group`, or the textures cannot be
/// had: the caller then uploads a frame.
pub fn draw_from_card(
    r: &mut VolumeRenderer,
    facade: &impl Facade,
    x: &VolumeExchange,
    sim: &dyn Simulation,
    group: u64,
    time: f64,
) -> bool {
    let Some(g) = shared_solver(sim, group) else {
        return false;
    };
    // The first call asks for the textures, which the renderer then makes.
    for _ in 0..2 {
        match publish(g, x) {
            Some(Volume::Shared { set, dims, fire }) => {
                x.show(set);
                r.show_set(facade, x, set, dims, fire, time);
                return true;
            }
            Some(Volume::Unchanged) => {
                if let Err(e) = r.serve(facade, x) {
                    eprintln!("note: {e}; the GPU solver's fields are read back to draw them");
                    return false;
                }
            }
            _ => return false,
        }
    }
    false
}

/// What the window's panels need in each frame while the 3D view draws shared textures:
/// every field for the slice view (it shows any of them, with arrows), the velocity for
/// the streamlines, nothing else.
pub fn panel_needs(slice_visible: bool, streamlines_visible: bool) -> Select {
    if slice_visible {
        Select::ALL
    } else {
        Select {
            velocity: streamlines_visible,
            solid: true,
            ..Select::default()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_panels_ask_only_for_what_they_show() {
        let none = panel_needs(false, false);
        assert!(!none.density && !none.velocity && !none.pressure && !none.temperature);
        assert!(panel_needs(false, true).velocity);
        assert!(!panel_needs(false, true).density);
        assert_eq!(panel_needs(true, false), Select::ALL);
    }
}
