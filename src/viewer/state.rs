//! What the viewer's panels edit and ask for: the UI state (the scene itself, edited in
//! place, plus view-only settings), the commands the panels produce, and the validation that
//! turns edits into simulation commands. No drawing here.

use super::sim_thread::{RecordSpec, SimCommand};
use super::slice_view::SliceSettings;
use crate::camera::OrbitCamera;
use crate::export::run::Existing;
use crate::export::{ExportOptions, Fields, Format, Up};
use crate::scene::{CameraSpec, Scene};
use crate::sim::{Emitter, FluidParams};

/// The grid sizes offered in the panel.
pub const GRID_SIZES: [usize; 8] = [32, 48, 64, 80, 96, 128, 160, 192];

/// Streamlines in the 3D view.
#[derive(Clone, Debug, PartialEq)]
pub struct StreamSettings {
    /// Drawn or not (key L).
    pub visible: bool,
    /// Seeds around the emitters.
    pub count: usize,
    /// Longest line, domain units.
    pub length: f32,
    /// Also seed a lattice on the slice plane (where the slice view's position puts it).
    pub seed_plane: bool,
}

impl Default for StreamSettings {
    fn default() -> Self {
        Self {
            visible: false,
            count: 48,
            length: 1.0,
            seed_plane: false,
        }
    }
}

impl StreamSettings {
    /// The seeds for `frame`: around its emitters, and on the slice plane when asked.
    pub fn seeds(&self, frame: &crate::frame::Frame, slice: &SliceSettings) -> Vec<[f32; 3]> {
        use crate::streamlines::{seeds_around, seeds_on_plane};
        let mut s = seeds_around(&frame.emitters, self.count);
        if self.seed_plane {
            let n = (self.count as f32).sqrt().ceil() as usize;
            s.extend(seeds_on_plane(
                &frame.grid,
                slice.axis.index(),
                slice.position,
                n,
            ));
        }
        s
    }
}

/// Everything the panel edits.
#[derive(Clone, Debug)]
pub struct UiState {
    /// Simulation running.
    pub running: bool,
    /// The solver backend chosen.
    pub backend: crate::backend::Backend,
    /// Grid size chosen (applied with a reset).
    pub grid_n: usize,
    /// Steps per frame.
    pub steps_per_frame: u32,
    /// Keep simulated time at wall-clock pace.
    pub real_time: bool,
    /// Light azimuth, degrees.
    pub light_azimuth: f32,
    /// Light elevation, degrees.
    pub light_elevation: f32,
    /// Slice view.
    pub slice: SliceSettings,
    /// Paint brush radius (domain units) and density per stroke event.
    pub brush_radius: f32,
    /// Density painted per event.
    pub brush_density: f32,
    /// Last message to show (errors, saved files).
    pub message: Option<String>,
    /// Export settings.
    pub export: ExportUi,
    /// The scene being shown, edited in place: the panel's sliders write its fluid
    /// parameters, emitters and render settings directly (valid changes are sent to the
    /// simulation), so "Save current as…" writes exactly what the panel shows.
    pub scene: Scene,
    /// The Scene menu's dialogs.
    pub menu: SceneMenu,
    /// Show the statistics overlay over the 3D view (key I).
    pub show_stats: bool,
    /// Streamlines in the 3D view.
    pub streams: StreamSettings,
    /// The solver's recent figures for the live plots.
    pub history: super::plots::History,
    /// The mesh file the Obstacles section adds next (a path being typed).
    pub mesh_path: String,
}

/// The Export section's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct ExportUi {
    /// Output folder.
    pub dir: String,
    /// File name prefix.
    pub prefix: String,
    /// The formats to write, in the registry's order.
    pub formats: Vec<Format>,
    /// The fields to write.
    pub fields: Fields,
    /// The written volume's up axis.
    pub up: Up,
    /// Half-precision VDB values.
    pub half: bool,
    /// Record every K-th step.
    pub every: u32,
    /// Replace an earlier run found in the folder (otherwise it is refused).
    pub overwrite: bool,
}

impl Default for ExportUi {
    fn default() -> Self {
        Self {
            dir: "plume-export".into(),
            prefix: "plume".into(),
            formats: vec![Format::Vdb],
            fields: Fields::default(),
            up: Up::Y,
            half: false,
            every: 2,
            overwrite: false,
        }
    }
}

impl ExportUi {
    /// What to write where: the folder, the validated options, and what to do with an
    /// earlier run in the folder.
    pub fn spec(&self) -> Result<RecordSpec, String> {
        Ok(RecordSpec {
            opts: self.options()?,
            dir: self.dir.trim().into(),
            existing: if self.overwrite {
                Existing::Overwrite
            } else {
                Existing::Refuse
            },
        })
    }

    /// The export options these settings describe, validated.
    pub fn options(&self) -> Result<ExportOptions, String> {
        let o = ExportOptions {
            formats: Format::all().filter(|f| self.formats.contains(f)).collect(),
            fields: self.fields,
            up: self.up,
            half: self.half,
            prefix: self.prefix.trim().to_string(),
            every: self.every.max(1),
            ..ExportOptions::default()
        };
        o.validate().map_err(|e| crate::report(&e))?;
        if self.dir.trim().is_empty() {
            return Err("choose an output folder".into());
        }
        Ok(o)
    }
}

impl UiState {
    /// State matching a scene's settings.
    pub fn new(scene: &Scene, running: bool) -> Self {
        let mut s = Self {
            running,
            backend: crate::backend::Backend::default(),
            grid_n: 0,
            steps_per_frame: 1,
            real_time: true,
            light_azimuth: 0.0,
            light_elevation: 0.0,
            slice: SliceSettings::default(),
            brush_radius: 0.05,
            brush_density: 0.5,
            message: None,
            export: ExportUi::default(),
            scene: scene.clone(),
            menu: SceneMenu::default(),
            show_stats: true,
            streams: StreamSettings::default(),
            history: super::plots::History::default(),
            mesh_path: String::new(),
        };
        s.set_scene(scene);
        s
    }

    /// Takes over a newly loaded scene's settings; the slice, export and brush settings stay.
    pub fn set_scene(&mut self, scene: &Scene) {
        self.scene = scene.clone();
        self.grid_n = *scene.grid.dims.iter().max().unwrap_or(&64);
        let [x, y, z] = self.scene.render.light_unit();
        self.light_elevation = y.clamp(-1.0, 1.0).asin().to_degrees();
        self.light_azimuth = x.atan2(z).to_degrees().rem_euclid(360.0);
        self.message = None;
    }

    /// The scene as it is now, with the camera's current view. "Save current as…" writes
    /// this.
    pub fn current_scene(&self, camera: &OrbitCamera) -> Scene {
        let mut s = self.scene.clone();
        s.camera = CameraSpec {
            yaw: camera.yaw.to_degrees(),
            pitch: camera.pitch.to_degrees(),
            distance: Some(camera.distance),
            target: Some([camera.target.x, camera.target.y, camera.target.z]),
        };
        s
    }
}

/// Unit light direction from azimuth and elevation in degrees.
pub fn light_dir(azimuth: f32, elevation: f32) -> [f32; 3] {
    let (a, e) = (azimuth.to_radians(), elevation.to_radians());
    [e.cos() * a.sin(), e.sin(), e.cos() * a.cos()]
}

/// Which dialog is showing.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Dialog {
    /// None.
    #[default]
    Closed,
    /// Open a scene file.
    Open,
    /// Save the current scene.
    Save,
}

/// State of the Scene menu's dialogs.
#[derive(Clone, Debug, Default)]
pub struct SceneMenu {
    /// Which dialog is open.
    pub dialog: Dialog,
    /// The path being edited.
    pub path: String,
    /// The last error of the dialog.
    pub error: Option<String>,
    /// Saving over an existing file was confirmed.
    pub overwrite: bool,
}

/// Something the panel asks the viewer to do.
#[derive(Clone, Debug, PartialEq)]
pub enum UiCommand {
    /// Forward to the simulation thread.
    Sim(SimCommand),
    /// Frame the volume.
    FrameVolume,
    /// Save a screenshot.
    Screenshot,
    /// Replace the scene (a preset or an opened file).
    LoadScene(Box<Scene>),
    /// Write the current scene to this file.
    SaveScene(std::path::PathBuf),
    /// Replace the obstacles (drawn and simulated); validated already.
    SetObstacles(Vec<crate::sim::Obstacle>),
}

/// Validates edited parameters; returns the command to send or the error to show.
pub fn params_command(p: &FluidParams) -> Result<SimCommand, String> {
    p.validate()
        .map(|_| SimCommand::SetParams(p.clone()))
        .map_err(|e| e.to_string())
}

/// Validates edited emitters.
pub fn emitters_command(es: &[Emitter]) -> Result<SimCommand, String> {
    for (i, e) in es.iter().enumerate() {
        e.validate()
            .map_err(|err| format!("emitter {}: {err}", i + 1))?;
    }
    Ok(SimCommand::SetEmitters(es.to_vec()))
}

/// Validates edited obstacles (reading mesh files); returns the command or the error.
pub fn obstacles_command(os: &[crate::sim::Obstacle], scene: &Scene) -> Result<UiCommand, String> {
    let mut check = scene.clone();
    check.obstacles = os.to_vec();
    check.validate().map_err(|e| e.to_string())?;
    Ok(UiCommand::SetObstacles(os.to_vec()))
}

/// Frame timings the panel shows.
#[derive(Clone, Copy, Debug, Default)]
pub struct FrameStats {
    /// Frames per second of the window.
    pub fps: f32,
    /// Last texture upload, ms.
    pub upload_ms: f64,
    /// Last 3D draw, ms.
    pub render_ms: f64,
    /// The 3D view's render scale in the last frame (1: full resolution).
    pub render_scale: f32,
    /// The fraction of the usual ray samples the last frame took (1: all).
    pub render_effort: f32,
    /// The last 3D pass at that scale, ms.
    pub pass_ms: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn edited_parameters_become_commands_only_when_valid() {
        let mut p = FluidParams {
            viscosity: 1e-3,
            ..FluidParams::default()
        };
        assert_eq!(params_command(&p), Ok(SimCommand::SetParams(p.clone())));
        p.dt = 0.0;
        let e = params_command(&p).expect_err("dt 0 must be refused");
        assert!(e.contains("dt"), "{e}");
        let es = vec![Emitter {
            radius: Some(-1.0),
            ..Emitter::default()
        }];
        assert!(emitters_command(&es)
            .expect_err("bad radius")
            .contains("emitter 1"));
    }

    #[test]
    fn the_current_scene_saves_what_was_edited_and_loads_back_equal() {
        let scene = Scene::preset("wind_tunnel").expect("preset");
        let mut st = UiState::new(&scene, true);
        assert_eq!(st.scene, scene);
        st.scene.fluid.vorticity = 2.5;
        st.scene.emitters[0].density = 3.0;
        st.scene.render.density_scale = 10.0;
        let cam = OrbitCamera::from_degrees([1.0, 0.5, 0.5], 40.0, 10.0, 3.0);
        let cur = st.current_scene(&cam);
        assert_eq!(cur.fluid.vorticity, 2.5);
        assert_eq!(cur.emitters[0].density, 3.0);
        assert_eq!(cur.render.density_scale, 10.0);
        assert_eq!(cur.obstacles, scene.obstacles);
        assert_eq!(cur.boundaries, scene.boundaries);
        assert!((cur.camera.yaw - 40.0).abs() < 1e-3);
        let text = cur.to_toml().expect("toml");
        let back = Scene::from_toml(&text, None).expect("loads back");
        assert_eq!(back, cur);
        // The camera it describes is the one that was saved.
        let c2 = back.camera(1.5);
        assert!((c2.distance - 3.0).abs() < 1e-4 && (c2.yaw - cam.yaw).abs() < 1e-4);
        // Loading another scene replaces the edits but keeps the slice settings.
        st.slice.visible = true;
        st.set_scene(&Scene::default_plume());
        assert_eq!(st.scene.fluid, Scene::default_plume().fluid);
        assert!(st.slice.visible);
    }

    #[test]
    fn export_settings_become_validated_options() {
        let mut e = ExportUi::default();
        let o = e.options().expect("defaults are valid");
        assert_eq!(o.formats, vec![Format::Vdb]);
        assert!(o.fields.density && o.fields.velocity);
        e.formats = vec![Format::Npy, Format::Vti, Format::Vdb];
        e.half = true;
        let o = e.options().expect("valid");
        assert_eq!(
            o.formats,
            vec![Format::Vdb, Format::Vti, Format::Npy],
            "in the registry's order"
        );
        assert!(o.half);
        e.formats.clear();
        assert!(e.options().is_err(), "no format");
        e.formats = vec![Format::Npy];
        e.fields.density = false;
        e.fields.velocity = false;
        assert!(e.options().is_err(), "no field");
        e.fields.density = true;
        e.prefix = "a/b".into();
        assert!(e.options().expect_err("bad prefix").contains("prefix"));
        e.prefix = "ok".into();
        e.dir = "  ".into();
        assert!(e.options().is_err(), "no folder");
    }

    #[test]
    fn light_direction_is_a_unit_vector_pointing_up_at_positive_elevation() {
        let d = light_dir(30.0, 45.0);
        let n = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt();
        assert!((n - 1.0).abs() < 1e-6 && d[1] > 0.0);
    }
}
