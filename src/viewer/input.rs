//! Mouse and keyboard → viewer actions. Pure functions, so the mapping is tested without a
//! window.

use crate::camera::OrbitCamera;
use crate::render::volume::VolumeBox;

/// A keyboard command.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Action {
    /// Space: pause or resume the simulation.
    TogglePause,
    /// N: one step while paused.
    StepOnce,
    /// R: reset the simulation.
    Reset,
    /// S: show or hide the slice view.
    ToggleSlice,
    /// I: show or hide the statistics overlay.
    ToggleStats,
    /// L: show or hide the streamlines in the 3D view.
    ToggleStreamlines,
    /// F (or double-click): frame the volume.
    FrameVolume,
    /// F12: save a screenshot.
    Screenshot,
}

/// The keys, named as winit's logical keys name them: single characters or named keys.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum KeyName<'a> {
    /// A character key.
    Char(&'a str),
    /// The space bar.
    Space,
    /// F12.
    F12,
    /// Anything else.
    Other,
}

/// The action bound to a key, if any. Keys with Ctrl or Alt held are left to the system.
pub fn key_action(key: KeyName<'_>, ctrl_or_alt: bool) -> Option<Action> {
    if ctrl_or_alt {
        return None;
    }
    match key {
        KeyName::Space => Some(Action::TogglePause),
        KeyName::F12 => Some(Action::Screenshot),
        KeyName::Char(c) => match c.to_ascii_lowercase().as_str() {
            "n" => Some(Action::StepOnce),
            "r" => Some(Action::Reset),
            "s" => Some(Action::ToggleSlice),
            "i" => Some(Action::ToggleStats),
            "l" => Some(Action::ToggleStreamlines),
            "f" => Some(Action::FrameVolume),
            _ => None,
        },
        KeyName::Other => None,
    }
}

/// Mouse buttons.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Button {
    /// Left button.
    Left,
    /// Right button.
    Right,
    /// Middle button.
    Middle,
}

/// What a drag does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DragMode {
    /// Rotate around the target.
    Orbit,
    /// Move the target in the view plane.
    Pan,
    /// Inject smoke and velocity where the mouse ray meets the volume.
    Paint,
}

/// The drag started by pressing `button` with the given modifiers.
pub fn drag_mode(button: Button, shift: bool, ctrl: bool) -> DragMode {
    match (button, shift, ctrl) {
        (Button::Left, _, true) => DragMode::Paint,
        (Button::Left, true, false) => DragMode::Pan,
        (Button::Left, false, false) => DragMode::Orbit,
        (Button::Right | Button::Middle, _, _) => DragMode::Pan,
    }
}

/// Radians of orbit per pixel of drag.
pub const ORBIT_RAD_PER_PIXEL: f32 = 0.008;

/// Applies a drag of (dx, dy) pixels in a viewport `height` pixels high to the camera.
pub fn apply_drag(camera: &mut OrbitCamera, mode: DragMode, dx: f32, dy: f32, height: f32) {
    match mode {
        // Dragging right turns the scene right (camera moves left); dragging down looks from
        // higher up.
        DragMode::Orbit => camera.orbit(-dx * ORBIT_RAD_PER_PIXEL, dy * ORBIT_RAD_PER_PIXEL),
        // The scene follows the mouse: half a viewport height is 1.0 in pan units.
        DragMode::Pan => camera.pan(-2.0 * dx / height.max(1.0), 2.0 * dy / height.max(1.0)),
        DragMode::Paint => {}
    }
}

/// Zoom amount for a wheel movement of `lines` notches (positive = away from the user = in).
pub fn wheel_zoom(lines: f32) -> f32 {
    0.12 * lines
}

/// Where the ray through pixel (x, y) of a `w`×`h` viewport meets the volume: the middle of
/// its path through the box, or `None` when it misses the box.
pub fn paint_point(
    camera: &OrbitCamera,
    x: f32,
    y: f32,
    w: u32,
    h: u32,
    bx: &VolumeBox,
) -> Option<[f32; 3]> {
    let ray = camera.ray(x, y, w, h);
    let (t0, t1) = ray.hit_box(bx.min, bx.max)?;
    let p = ray.at(0.5 * (t0 + t1));
    Some([p.x, p.y, p.z])
}

/// World-space velocity of a paint stroke: a mouse movement of (dx, dy) pixels over `dt`
/// seconds, in a viewport `height` pixels high, mapped onto the view plane at the target's
/// distance and clamped to `max_speed`.
pub fn stroke_velocity(
    camera: &OrbitCamera,
    dx: f32,
    dy: f32,
    height: f32,
    dt: f32,
    max_speed: f32,
) -> [f32; 3] {
    let (right, up) = camera.basis();
    let world_per_pixel = 2.0 * camera.distance * (0.5 * camera.fov_y).tan() / height.max(1.0);
    let v = (right * dx - up * dy) * (world_per_pixel / dt.max(1e-3));
    let n = v.norm();
    let v = if n > max_speed {
        v * (max_speed / n)
    } else {
        v
    };
    [v.x, v.y, v.z]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::{Dims, Grid};

    #[test]
    fn keys_map_to_the_documented_actions() {
        assert_eq!(key_action(KeyName::Space, false), Some(Action::TogglePause));
        assert_eq!(
            key_action(KeyName::Char("n"), false),
            Some(Action::StepOnce)
        );
        assert_eq!(key_action(KeyName::Char("R"), false), Some(Action::Reset));
        assert_eq!(
            key_action(KeyName::Char("s"), false),
            Some(Action::ToggleSlice)
        );
        assert_eq!(
            key_action(KeyName::Char("f"), false),
            Some(Action::FrameVolume)
        );
        assert_eq!(key_action(KeyName::F12, false), Some(Action::Screenshot));
        assert_eq!(
            key_action(KeyName::Char("I"), false),
            Some(Action::ToggleStats)
        );
        assert_eq!(
            key_action(KeyName::Char("l"), false),
            Some(Action::ToggleStreamlines)
        );
        assert_eq!(
            key_action(KeyName::Char("s"), true),
            None,
            "Ctrl+S is not ours"
        );
        assert_eq!(key_action(KeyName::Char("q"), false), None);
        assert_eq!(key_action(KeyName::Other, false), None);
    }

    #[test]
    fn buttons_and_modifiers_choose_the_drag() {
        assert_eq!(drag_mode(Button::Left, false, false), DragMode::Orbit);
        assert_eq!(drag_mode(Button::Left, true, false), DragMode::Pan);
        assert_eq!(drag_mode(Button::Right, false, false), DragMode::Pan);
        assert_eq!(drag_mode(Button::Left, false, true), DragMode::Paint);
        assert_eq!(drag_mode(Button::Left, true, true), DragMode::Paint);
    }

    #[test]
    fn drags_orbit_and_pan_the_camera() {
        let mut c = OrbitCamera::default();
        let (yaw, pitch) = (c.yaw, c.pitch);
        apply_drag(&mut c, DragMode::Orbit, 10.0, 0.0, 500.0);
        assert!((c.yaw - (yaw - 10.0 * ORBIT_RAD_PER_PIXEL)).abs() < 1e-6);
        assert_eq!(c.pitch, pitch);
        apply_drag(&mut c, DragMode::Orbit, 0.0, 10.0, 500.0);
        assert!(c.pitch > pitch);
        let t = c.target;
        apply_drag(&mut c, DragMode::Pan, 50.0, 0.0, 500.0);
        let (right, _) = c.basis();
        assert!(
            (c.target - t).dot(&right) < 0.0,
            "dragging right moves the target left"
        );
        let before = c;
        apply_drag(&mut c, DragMode::Paint, 50.0, 50.0, 500.0);
        assert_eq!(c, before, "painting leaves the camera alone");
        assert!(wheel_zoom(1.0) > 0.0 && wheel_zoom(-1.0) < 0.0);
    }

    #[test]
    fn the_mouse_ray_paints_the_cell_under_the_cursor() {
        let grid = Grid::unit(Dims::new(32, 24, 16)).expect("grid");
        let bx = VolumeBox::of_grid(&grid);
        let mut cam = OrbitCamera::from_degrees([0.0; 3], 0.0, 0.0, 1.0);
        cam.frame(bx.min, bx.max, 4.0 / 3.0);
        // The centre pixel looks through the middle of the box.
        let p = paint_point(&cam, 200.0, 150.0, 400, 300, &bx).expect("hits");
        let cell = grid.cell_at(p).expect("inside");
        assert_eq!(cell, [16, 12, 8]);
        // A pixel to the right (camera on +z looking at −z): a cell at larger x.
        let p = paint_point(&cam, 260.0, 150.0, 400, 300, &bx).expect("hits");
        let c2 = grid.cell_at(p).expect("inside");
        assert!(c2[0] > 16 && c2[1] == 12, "{c2:?}");
        // A pixel above: larger y.
        let p = paint_point(&cam, 200.0, 100.0, 400, 300, &bx).expect("hits");
        assert!(grid.cell_at(p).expect("inside")[1] > 12);
        // The corner of the image misses the box.
        assert!(paint_point(&cam, 0.0, 0.0, 400, 300, &bx).is_none());
    }

    #[test]
    fn strokes_push_the_fluid_the_way_the_mouse_moves() {
        let cam = OrbitCamera::from_degrees([0.5; 3], 0.0, 0.0, 2.0);
        let v = stroke_velocity(&cam, 30.0, 0.0, 600.0, 0.016, 100.0);
        assert!(v[0] > 0.0 && v[1].abs() < 1e-6, "{v:?}");
        let v = stroke_velocity(&cam, 0.0, -30.0, 600.0, 0.016, 100.0);
        assert!(v[1] > 0.0, "moving the mouse up pushes up: {v:?}");
        let v = stroke_velocity(&cam, 1e5, 0.0, 600.0, 0.016, 3.0);
        let n = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        assert!((n - 3.0).abs() < 1e-4);
    }
}
