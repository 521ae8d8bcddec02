//! Orbit camera (no GL): a target, yaw/pitch around it, a distance and a field of view.
//! Produces view and projection matrices and the ray through any pixel.

use nalgebra::{Matrix4, Point3, Vector3, Vector4};

/// Highest pitch magnitude, radians (just short of straight up/down, so the view never flips).
pub const MAX_PITCH: f32 = 89.0 * std::f32::consts::PI / 180.0;
/// Closest zoom, domain units.
pub const MIN_DISTANCE: f32 = 0.01;
/// Farthest zoom, domain units.
pub const MAX_DISTANCE: f32 = 1000.0;

/// A camera orbiting a target point. y is up. Angles in radians.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Point looked at and orbited around.
    pub target: Point3<f32>,
    /// Rotation around the vertical axis; 0 looks along −z (camera on the +z side).
    pub yaw: f32,
    /// Elevation; positive looks down from above. Clamped to ±[`MAX_PITCH`].
    pub pitch: f32,
    /// Distance from the target, clamped to [[`MIN_DISTANCE`], [`MAX_DISTANCE`]].
    pub distance: f32,
    /// Vertical field of view.
    pub fov_y: f32,
}

/// A ray in world space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start (the eye).
    pub origin: Point3<f32>,
    /// Unit direction.
    pub dir: Vector3<f32>,
}

impl Ray {
    /// Distances along the ray where it enters and leaves the box, if it hits it
    /// (entry clamped to 0 when the origin is inside).
    pub fn hit_box(&self, min: [f32; 3], max: [f32; 3]) -> Option<(f32, f32)> {
        let mut t0 = 0.0f32;
        let mut t1 = f32::INFINITY;
        for a in 0..3 {
            let inv = 1.0 / self.dir[a];
            let mut ta = (min[a] - self.origin[a]) * inv;
            let mut tb = (max[a] - self.origin[a]) * inv;
            if ta > tb {
                std::mem::swap(&mut ta, &mut tb);
            }
            // NaN (ray parallel to a slab and on its plane) leaves the bounds unchanged.
            t0 = t0.max(ta);
            t1 = t1.min(tb);
        }
        (t0 <= t1).then_some((t0, t1))
    }

    /// Point at distance `t`.
    pub fn at(&self, t: f32) -> Point3<f32> {
        self.origin + self.dir * t
    }
}

impl Default for OrbitCamera {
    fn default() -> Self {
        Self {
            target: Point3::new(0.5, 0.5, 0.5),
            yaw: 30f32.to_radians(),
            pitch: 20f32.to_radians(),
            distance: 2.2,
            fov_y: 40f32.to_radians(),
        }
    }
}

impl OrbitCamera {
    /// A camera from yaw and pitch in degrees and a distance, looking at `target`.
    pub fn from_degrees(target: [f32; 3], yaw_deg: f32, pitch_deg: f32, distance: f32) -> Self {
        let mut c = Self {
            target: Point3::from(target),
            yaw: yaw_deg.to_radians(),
            pitch: 0.0,
            distance: 1.0,
            ..Self::default()
        };
        c.orbit(0.0, pitch_deg.to_radians());
        c.set_distance(distance);
        c
    }

    /// Unit vector from the target towards the eye.
    pub fn back(&self) -> Vector3<f32> {
        Vector3::new(
            self.pitch.cos() * self.yaw.sin(),
            self.pitch.sin(),
            self.pitch.cos() * self.yaw.cos(),
        )
    }

    /// Position of the eye.
    pub fn eye(&self) -> Point3<f32> {
        self.target + self.back() * self.distance
    }

    /// Unit vectors (right, up) of the view plane.
    pub fn basis(&self) -> (Vector3<f32>, Vector3<f32>) {
        let fwd = -self.back();
        let right = fwd.cross(&Vector3::y()).normalize();
        let up = right.cross(&fwd);
        (right, up)
    }

    /// Rotates around the target by `dyaw` and `dpitch` radians; pitch stays within ±89°.
    pub fn orbit(&mut self, dyaw: f32, dpitch: f32) {
        if dyaw.is_finite() {
            self.yaw = (self.yaw + dyaw).rem_euclid(std::f32::consts::TAU);
        }
        if dpitch.is_finite() {
            self.pitch = (self.pitch + dpitch).clamp(-MAX_PITCH, MAX_PITCH);
        }
    }

    /// Moves the target in the view plane by fractions of the view's half-height
    /// (`dx` right, `dy` up), so a drag across the screen moves the scene with the mouse.
    pub fn pan(&mut self, dx: f32, dy: f32) {
        if !(dx.is_finite() && dy.is_finite()) {
            return;
        }
        let (right, up) = self.basis();
        let half = self.distance * (0.5 * self.fov_y).tan();
        self.target += (right * dx + up * dy) * half;
    }

    /// Zooms exponentially: `amount` > 0 moves closer (distance × e^−amount).
    pub fn zoom(&mut self, amount: f32) {
        if amount.is_finite() {
            // An overflow to infinity clamps to the farthest zoom.
            self.set_distance((self.distance * (-amount).exp()).min(MAX_DISTANCE));
        }
    }

    /// Sets the distance, clamped to the allowed range.
    pub fn set_distance(&mut self, d: f32) {
        if d.is_finite() {
            self.distance = d.clamp(MIN_DISTANCE, MAX_DISTANCE);
        }
    }

    /// Aims at the centre of the box and backs off until the whole box fits the view.
    pub fn frame(&mut self, min: [f32; 3], max: [f32; 3], aspect: f32) {
        let c = Point3::new(
            0.5 * (min[0] + max[0]),
            0.5 * (min[1] + max[1]),
            0.5 * (min[2] + max[2]),
        );
        let r = 0.5 * ((0..3).map(|a| (max[a] - min[a]).powi(2)).sum::<f32>()).sqrt();
        let half_v = 0.5 * self.fov_y;
        let half_h = (half_v.tan() * aspect.max(1e-3)).atan();
        let half = half_v.min(half_h);
        self.target = c;
        // A sphere of radius r fits a cone of half-angle `half` at distance r / sin(half);
        // 5% margin.
        self.set_distance(1.05 * r / half.sin());
    }

    /// World → camera matrix.
    pub fn view(&self) -> Matrix4<f32> {
        Matrix4::look_at_rh(&self.eye(), &self.target, &Vector3::y())
    }

    /// Near and far clip distances: close enough to see from inside the volume.
    pub fn clip_range(&self) -> (f32, f32) {
        (self.distance * 1e-3, self.distance * 100.0 + 10.0)
    }

    /// Camera → clip matrix (OpenGL conventions) for a viewport of the given aspect ratio.
    pub fn projection(&self, aspect: f32) -> Matrix4<f32> {
        let (n, f) = self.clip_range();
        Matrix4::new_perspective(aspect.max(1e-6), self.fov_y, n, f)
    }

    /// Projection × view.
    pub fn view_projection(&self, aspect: f32) -> Matrix4<f32> {
        self.projection(aspect) * self.view()
    }

    /// Where a world point lands in a `width`×`height` image: pixel coordinates with the
    /// origin at the top-left corner (x right, y down), or `None` behind the camera.
    pub fn project(&self, p: [f32; 3], width: u32, height: u32) -> Option<[f32; 2]> {
        let vp = self.view_projection(width as f32 / height as f32);
        let c = vp * Vector4::new(p[0], p[1], p[2], 1.0);
        if c.w <= 0.0 {
            return None;
        }
        let ndc = [c.x / c.w, c.y / c.w];
        Some([
            (ndc[0] * 0.5 + 0.5) * width as f32,
            (0.5 - ndc[1] * 0.5) * height as f32,
        ])
    }

    /// The ray through pixel (x, y) of a `width`×`height` image (top-left origin, pixel
    /// centres at +0.5).
    pub fn ray(&self, x: f32, y: f32, width: u32, height: u32) -> Ray {
        let aspect = width as f32 / height as f32;
        let nx = 2.0 * x / width as f32 - 1.0;
        let ny = 1.0 - 2.0 * y / height as f32;
        let t = (0.5 * self.fov_y).tan();
        let fwd = -self.back();
        let (right, up) = self.basis();
        let dir = (fwd + right * (nx * t * aspect) + up * (ny * t)).normalize();
        Ray {
            origin: self.eye(),
            dir,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn approx(a: f32, b: f32, tol: f32) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn framed_volume_is_centred_and_fully_visible() {
        let (min, max) = ([0.0, 0.0, 0.0], [1.0, 0.5, 0.75]);
        for (yaw, pitch) in [(0.0, 0.0), (37.0, 25.0), (200.0, -60.0), (90.0, 89.0)] {
            for (w, h) in [(640u32, 480u32), (300, 900)] {
                let mut c = OrbitCamera::from_degrees([5.0, 5.0, 5.0], yaw, pitch, 50.0);
                c.frame(min, max, w as f32 / h as f32);
                let centre = c.project([0.5, 0.25, 0.375], w, h).expect("in front");
                assert!(
                    approx(centre[0], w as f32 / 2.0, 1e-2 * w as f32),
                    "{centre:?}"
                );
                assert!(
                    approx(centre[1], h as f32 / 2.0, 1e-2 * h as f32),
                    "{centre:?}"
                );
                for i in 0..8 {
                    let p = [0, 1, 2].map(|a| if i >> a & 1 == 1 { max[a] } else { min[a] });
                    let s = c.project(p, w, h).expect("corner in front of the camera");
                    assert!(s[0] >= 0.0 && s[0] <= w as f32, "corner {p:?} at {s:?}");
                    assert!(s[1] >= 0.0 && s[1] <= h as f32, "corner {p:?} at {s:?}");
                }
            }
        }
    }

    #[test]
    fn orbiting_keeps_the_distance_and_clamps_pitch() {
        let mut c = OrbitCamera::default();
        let d0 = (c.eye() - c.target).norm();
        for _ in 0..50 {
            c.orbit(0.3, 0.2);
            assert!(approx((c.eye() - c.target).norm(), d0, 1e-4));
            assert!(c.pitch <= MAX_PITCH);
        }
        assert_eq!(c.pitch, MAX_PITCH);
        c.orbit(0.0, -10.0);
        assert_eq!(c.pitch, -MAX_PITCH);
        // The view never flips: up stays on the upper side.
        assert!(c.basis().1.y > 0.0);
    }

    #[test]
    fn ray_through_the_centre_pixel_passes_through_the_target() {
        let c = OrbitCamera::from_degrees([0.2, 0.4, -0.3], 73.0, -12.0, 3.0);
        for (w, h) in [(101u32, 51u32), (64, 64)] {
            let r = c.ray(w as f32 / 2.0, h as f32 / 2.0, w, h);
            let to_target = c.target - r.origin;
            let along = to_target.dot(&r.dir);
            let miss = (to_target - r.dir * along).norm();
            assert!(miss < 1e-4, "misses the target by {miss}");
            assert!(approx(along, 3.0, 1e-4));
        }
    }

    #[test]
    fn ray_and_projection_agree_for_any_pixel() {
        let c = OrbitCamera::from_degrees([0.5; 3], 10.0, 30.0, 2.0);
        let (w, h) = (320u32, 200u32);
        for (x, y) in [(10.5f32, 20.5f32), (300.0, 150.0), (160.0, 5.0)] {
            let r = c.ray(x, y, w, h);
            let p = r.at(1.7);
            let s = c.project([p.x, p.y, p.z], w, h).expect("in front");
            assert!(
                approx(s[0], x, 1e-2) && approx(s[1], y, 1e-2),
                "{s:?} vs ({x}, {y})"
            );
        }
    }

    #[test]
    fn zoom_is_exponential_and_clamped_and_pan_moves_in_the_view_plane() {
        let mut c = OrbitCamera::default();
        let d = c.distance;
        c.zoom(0.5);
        assert!(approx(c.distance, d * (-0.5f32).exp(), 1e-5));
        c.zoom(-0.5);
        assert!(approx(c.distance, d, 1e-5));
        c.zoom(100.0);
        assert_eq!(c.distance, MIN_DISTANCE);
        c.zoom(-100.0);
        assert_eq!(c.distance, MAX_DISTANCE);
        c.zoom(f32::NAN);
        assert_eq!(c.distance, MAX_DISTANCE);
        let mut c = OrbitCamera::default();
        let t0 = c.target;
        let back = c.back();
        c.pan(0.3, -0.2);
        let moved = c.target - t0;
        assert!(moved.norm() > 0.0);
        assert!(
            moved.dot(&back).abs() < 1e-5,
            "pan must stay in the view plane"
        );
    }

    #[test]
    fn ray_hits_box_from_outside_and_inside() {
        let c = OrbitCamera::from_degrees([0.5; 3], 0.0, 0.0, 2.0);
        let r = c.ray(50.0, 50.0, 100, 100);
        let (t0, t1) = r.hit_box([0.0; 3], [1.0; 3]).expect("hits");
        assert!(approx(t0, 1.5, 1e-4) && approx(t1, 2.5, 1e-4));
        let inside = Ray {
            origin: Point3::new(0.5, 0.5, 0.5),
            dir: Vector3::x(),
        };
        let (t0, t1) = inside.hit_box([0.0; 3], [1.0; 3]).expect("inside");
        assert_eq!(t0, 0.0);
        assert!(approx(t1, 0.5, 1e-6));
        let away = Ray {
            origin: Point3::new(2.0, 0.5, 0.5),
            dir: Vector3::x(),
        };
        assert!(away.hit_box([0.0; 3], [1.0; 3]).is_none());
    }
}
