//! The window's side of the 3D view fed by the GPU solver without a read-back (the solver's
//! side is `gpu_feed`): each frame it makes the textures the solver asks for and passes on
//! what the panels need; each snapshot it draws the set the solver wrote, or uploads the
//! frame's fields where the volume came that way.

use super::gpu_feed::{panel_needs, Volume};
use super::sim_thread::{SimCommand, SimThread, Snapshot};
use super::state::UiState;
use crate::render::volume::VolumeRenderer;
use crate::render::RenderError;
use glium::backend::Facade;

/// The window's side, each frame before it takes a snapshot: makes the sets of textures
/// the solver asks for, and passes on the kelvin scale of the flame's light and what the
/// panels need frames to carry.
pub fn serve(
    renderer: &mut VolumeRenderer,
    facade: &impl Facade,
    sim: &SimThread,
    ui: &UiState,
) -> Result<(), RenderError> {
    let Some(x) = sim.exchange() else {
        return Ok(());
    };
    if let Err(e) = renderer.serve(facade, x) {
        // Without the textures the frames carry the fields, and the view uploads them.
        eprintln!("note: {e}; the 3D view reads the GPU solver's fields back");
    }
    x.set_kelvin_per_unit(ui.scene.render.kelvin_per_unit);
    let needs = panel_needs(ui.slice.visible, ui.streams.visible);
    if x.set_needs(needs) {
        sim.send(SimCommand::SetFrameNeeds(needs));
    }
    Ok(())
}

/// The window's side: hands a new snapshot's volume to the renderer, uploading it only
/// where it comes as the frame's fields. Returns the milliseconds an upload took.
pub fn show(
    renderer: &mut VolumeRenderer,
    facade: &impl Facade,
    sim: &SimThread,
    snap: &Snapshot,
    kelvin_per_unit: f32,
) -> Result<f64, RenderError> {
    match (snap.volume, sim.exchange()) {
        (Volume::Shared { set, dims, fire }, Some(x)) => {
            renderer.show_set(facade, x, set, dims, fire, snap.frame.time);
            Ok(0.0)
        }
        (Volume::Frame, _) => renderer.upload_frame(facade, &snap.frame, kelvin_per_unit),
        _ => Ok(0.0),
    }
}
