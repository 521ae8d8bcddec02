//! Geometry shared by obstacles and emitters: where a shape stands (position, rotation in
//! degrees, scale), how it moves (key frames), triangle meshes read from files and their
//! voxelisation.

pub mod mesh;
pub mod voxel;

use nalgebra::{Matrix3, Rotation3, Vector3};

/// A scale: one number for all three axes, or one per axis.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Scale {
    /// The same factor along every axis.
    Uniform(f32),
    /// One factor per axis (of the shape's own axes, before it is turned).
    Axes([f32; 3]),
}

impl Scale {
    /// The three factors.
    pub fn axes(self) -> [f32; 3] {
        match self {
            Scale::Uniform(s) => [s; 3],
            Scale::Axes(a) => a,
        }
    }
}

/// Largest scale factor accepted.
pub const MAX_SCALE: f32 = 1e4;
/// Most key frames one object may have.
pub const MAX_KEYS: usize = 10_000;

/// One key frame: where the object is at `time`; a field left out keeps the object's own.
#[derive(Clone, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Key {
    /// Simulated seconds; keys must come in increasing time.
    pub time: f32,
    /// Position (the centre of a sphere or box; where the mesh's origin goes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub position: Option<[f32; 3]>,
    /// Rotation in degrees about x, then y, then z (Blender's XYZ Euler).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rotation: Option<[f32; 3]>,
    /// Scale: a number or three.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub scale: Option<Scale>,
}

/// Where an object is at one moment: world = position + R·(scale ⊙ local).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position in world coordinates.
    pub position: [f32; 3],
    /// Rotation in degrees about x, then y, then z.
    pub rotation: [f32; 3],
    /// Scale per axis.
    pub scale: [f32; 3],
}

impl Default for Pose {
    fn default() -> Self {
        Self {
            position: [0.0; 3],
            rotation: [0.0; 3],
            scale: [1.0; 3],
        }
    }
}

/// A pose as matrices, for transforming many points.
#[derive(Clone, Copy, Debug)]
pub struct Affine {
    /// R·diag(scale).
    pub m: Matrix3<f64>,
    /// Its inverse, diag(1/scale)·Rᵀ.
    pub inv: Matrix3<f64>,
    /// The translation.
    pub t: Vector3<f64>,
}

impl Affine {
    /// Local to world.
    #[inline]
    pub fn apply(&self, p: [f64; 3]) -> [f64; 3] {
        let v = self.m * Vector3::from(p) + self.t;
        [v.x, v.y, v.z]
    }

    /// World to local.
    #[inline]
    pub fn invert(&self, p: [f64; 3]) -> [f64; 3] {
        let v = self.inv * (Vector3::from(p) - self.t);
        [v.x, v.y, v.z]
    }
}

impl Pose {
    /// `true` for no rotation and unit scale (the shape is where its position puts it).
    pub fn is_plain(&self) -> bool {
        self.rotation == [0.0; 3] && self.scale == [1.0; 3]
    }

    /// The rotation matrix.
    pub fn rotation_matrix(&self) -> Matrix3<f64> {
        let r = self.rotation.map(|d| (d as f64).to_radians());
        *Rotation3::from_euler_angles(r[0], r[1], r[2]).matrix()
    }

    /// The pose as matrices.
    pub fn affine(&self) -> Affine {
        let r = self.rotation_matrix();
        let s = self.scale.map(f64::from);
        let m = r * Matrix3::from_diagonal(&Vector3::from(s));
        let inv = Matrix3::from_diagonal(&Vector3::from(s.map(|x| 1.0 / x))) * r.transpose();
        Affine {
            m,
            inv,
            t: Vector3::from(self.position.map(f64::from)),
        }
    }

    /// World-space bounds of a local box `lo..hi` in this pose.
    pub fn bounds_of(&self, lo: [f32; 3], hi: [f32; 3]) -> ([f32; 3], [f32; 3]) {
        let a = self.affine();
        let mut wlo = [f32::INFINITY; 3];
        let mut whi = [f32::NEG_INFINITY; 3];
        for c in 0..8 {
            let p = [0, 1, 2].map(|ax| {
                if c >> ax & 1 == 0 {
                    lo[ax] as f64
                } else {
                    hi[ax] as f64
                }
            });
            let w = a.apply(p);
            for ax in 0..3 {
                wlo[ax] = wlo[ax].min(w[ax] as f32);
                whi[ax] = whi[ax].max(w[ax] as f32);
            }
        }
        (wlo, whi)
    }
}

/// How an object moves: its own pose and key frames.
#[derive(Clone, Copy, Debug)]
pub struct Motion<'a> {
    /// The pose the object's own fields give (used where a key leaves a field out, and when
    /// there are no keys).
    pub base: Pose,
    /// Key frames in increasing time.
    pub keys: &'a [Key],
    /// Repeat the keys' span for ever.
    pub looped: bool,
    /// Ease in and out between keys (smoothstep) instead of moving at constant speed.
    pub smooth: bool,
}

fn lerp3(a: [f32; 3], b: [f32; 3], u: f64) -> [f32; 3] {
    [0, 1, 2].map(|i| (a[i] as f64 + (b[i] as f64 - a[i] as f64) * u) as f32)
}

impl Motion<'_> {
    /// `true` when the object moves at all (it has two keys or more).
    pub fn moves(&self) -> bool {
        self.keys.len() >= 2
    }

    fn key_pose(&self, k: &Key) -> Pose {
        Pose {
            position: k.position.unwrap_or(self.base.position),
            rotation: k.rotation.unwrap_or(self.base.rotation),
            scale: k.scale.map(Scale::axes).unwrap_or(self.base.scale),
        }
    }

    /// The pose at simulated time `t`: the base pose without keys; the first key's before
    /// it; between two keys interpolated; after the last held, or looped.
    pub fn pose_at(&self, t: f64) -> Pose {
        let (Some(first), Some(last)) = (self.keys.first(), self.keys.last()) else {
            return self.base;
        };
        let (t0, t1) = (first.time as f64, last.time as f64);
        let mut t = t;
        if self.looped && t > t1 && t1 > t0 {
            t = t0 + (t - t0).rem_euclid(t1 - t0);
        }
        if t <= t0 {
            return self.key_pose(first);
        }
        if t >= t1 {
            return self.key_pose(last);
        }
        let i = self.keys.partition_point(|k| (k.time as f64) <= t);
        let (a, b) = (&self.keys[i - 1], &self.keys[i]);
        let mut u = (t - a.time as f64) / (b.time as f64 - a.time as f64);
        if self.smooth {
            u = u * u * (3.0 - 2.0 * u);
        }
        let (pa, pb) = (self.key_pose(a), self.key_pose(b));
        Pose {
            position: lerp3(pa.position, pb.position, u),
            rotation: lerp3(pa.rotation, pb.rotation, u),
            scale: lerp3(pa.scale, pb.scale, u),
        }
    }

    /// Every pose the keys name, with the base pose (for bounds over the whole motion).
    pub fn key_poses(&self) -> Vec<Pose> {
        let mut v: Vec<Pose> = self.keys.iter().map(|k| self.key_pose(k)).collect();
        if v.is_empty() {
            v.push(self.base);
        }
        v
    }

    /// The largest scale factor over the motion.
    pub fn max_scale(&self) -> f32 {
        self.key_poses()
            .iter()
            .flat_map(|p| p.scale)
            .fold(0.0, f32::max)
    }
}

/// Checks a scale: finite and in (0, MAX_SCALE].
pub fn check_scale(s: [f32; 3]) -> Result<(), String> {
    if s.iter()
        .all(|&x| x.is_finite() && x > 0.0 && x <= MAX_SCALE)
    {
        Ok(())
    } else {
        Err(format!(
            "scale = {s:?}: each factor must be in (0, {MAX_SCALE}]"
        ))
    }
}

/// Checks a rotation: finite degrees within ±1e6 (many turns are fine).
pub fn check_rotation(r: [f32; 3]) -> Result<(), String> {
    if r.iter().all(|&x| x.is_finite() && x.abs() <= 1e6) {
        Ok(())
    } else {
        Err(format!(
            "rotation = {r:?}: each angle must be finite degrees within ±1000000"
        ))
    }
}

/// Checks key frames: times finite, in [0, 1e6] and strictly increasing; fields in range.
/// Returns the field (`key[3].time`) and the message.
pub fn check_keys(
    keys: &[Key],
    check_position: impl Fn([f32; 3]) -> Result<(), String>,
) -> Result<(), (String, String)> {
    if keys.len() > MAX_KEYS {
        return Err((
            "key".into(),
            format!("{} key frames; at most {MAX_KEYS} are allowed", keys.len()),
        ));
    }
    for (i, k) in keys.iter().enumerate() {
        let at = |f: &str| format!("key[{i}].{f}");
        if !(k.time.is_finite() && (0.0..=1e6).contains(&k.time)) {
            return Err((
                at("time"),
                format!(
                    "key[{i}].time = {}: must be in [0, 1000000] seconds",
                    k.time
                ),
            ));
        }
        if i > 0 && k.time <= keys[i - 1].time {
            return Err((
                at("time"),
                format!(
                    "key frames out of order: key[{i}].time = {} does not come after key[{}].time = {}",
                    k.time,
                    i - 1,
                    keys[i - 1].time
                ),
            ));
        }
        if let Some(p) = k.position {
            check_position(p).map_err(|m| (at("position"), format!("key[{i}]: {m}")))?;
        }
        if let Some(r) = k.rotation {
            check_rotation(r).map_err(|m| (at("rotation"), format!("key[{i}]: {m}")))?;
        }
        if let Some(s) = k.scale {
            check_scale(s.axes()).map_err(|m| (at("scale"), format!("key[{i}]: {m}")))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(time: f32, x: f32) -> Key {
        Key {
            time,
            position: Some([x, 0.5, 0.5]),
            ..Key::default()
        }
    }

    #[test]
    fn poses_interpolate_hold_and_loop() {
        let keys = [key(1.0, 0.2), key(3.0, 0.6)];
        let base = Pose {
            position: [0.0, 0.5, 0.5],
            ..Pose::default()
        };
        let mut m = Motion {
            base,
            keys: &keys,
            looped: false,
            smooth: false,
        };
        assert_eq!(m.pose_at(0.0).position[0], 0.2); // before the first key: held
        assert!((m.pose_at(2.0).position[0] - 0.4).abs() < 1e-6);
        assert_eq!(m.pose_at(10.0).position[0], 0.6); // after the last: held
        m.looped = true;
        assert!((m.pose_at(4.0).position[0] - 0.4).abs() < 1e-6); // 4 → 2
        m.smooth = true;
        m.looped = false;
        assert!((m.pose_at(1.5).position[0] - (0.2 + 0.4 * 0.15625)).abs() < 1e-6);
    }

    #[test]
    fn affine_round_trips_and_turns_the_right_way() {
        let p = Pose {
            position: [1.0, 2.0, 3.0],
            rotation: [0.0, 0.0, 90.0],
            scale: [2.0, 1.0, 1.0],
        };
        let a = p.affine();
        // x scaled by 2 then turned 90° about z lands on +y.
        let w = a.apply([1.0, 0.0, 0.0]);
        assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 4.0).abs() < 1e-12);
        let back = a.invert(w);
        assert!((back[0] - 1.0).abs() < 1e-12 && back[1].abs() < 1e-12);
    }

    #[test]
    fn keys_out_of_order_are_named() {
        let keys = [key(2.0, 0.1), key(1.0, 0.2)];
        let e = check_keys(&keys, |_| Ok(())).expect_err("refused");
        assert_eq!(e.0, "key[1].time");
        assert!(e.1.contains("out of order"), "{}", e.1);
    }
}
