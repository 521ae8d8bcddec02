//! What happens at each of the domain's six faces.

/// Behaviour of one face of the domain. In a scene file: `"wall"`, `"open"` (or `"outflow"`),
/// or `{ inflow = SPEED }`.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    /// A solid wall: no flow through it (normal velocity 0, zero-gradient pressure).
    #[default]
    Wall,
    /// An open face (outflow): fluid leaves or enters freely at ambient pressure (pressure 0
    /// outside).
    #[serde(alias = "outflow")]
    Open,
    /// An inflow: clean ambient air enters through the face at this speed (domain-units/s,
    /// allowed (0, 1000]) along the face's inward normal.
    Inflow(f32),
}

impl Face {
    /// `true` for an open (outflow) face.
    pub fn is_open(self) -> bool {
        self == Face::Open
    }

    /// `true` when the face prescribes the normal velocity (a wall or an inflow).
    pub fn is_fixed(self) -> bool {
        !self.is_open()
    }

    /// Short label for panels and logs.
    pub fn label(self) -> &'static str {
        match self {
            Face::Wall => "wall",
            Face::Open => "open",
            Face::Inflow(_) => "inflow",
        }
    }
}

/// Boundary type of the six faces: index `2*axis + side`, side 0 = minimum, 1 = maximum.
/// In a scene file's `[boundaries]` table every face not named is a wall; a scene without
/// the table gets [`Boundaries::default`], a box with an open top.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Boundaries {
    /// Face at x = min.
    #[serde(default)]
    pub x_min: Face,
    /// Face at x = max.
    #[serde(default)]
    pub x_max: Face,
    /// Face at y = min (the floor).
    #[serde(default)]
    pub y_min: Face,
    /// Face at y = max (the top).
    #[serde(default)]
    pub y_max: Face,
    /// Face at z = min.
    #[serde(default)]
    pub z_min: Face,
    /// Face at z = max.
    #[serde(default)]
    pub z_max: Face,
}

impl Default for Boundaries {
    /// A closed box with an open top, so a plume can leave.
    fn default() -> Self {
        Self {
            y_max: Face::Open,
            ..Self::closed()
        }
    }
}

/// Names of the six faces in `2*axis + side` order, as scene files spell them.
pub const FACE_NAMES: [&str; 6] = ["x_min", "x_max", "y_min", "y_max", "z_min", "z_max"];

impl Boundaries {
    /// All six faces are walls.
    pub fn closed() -> Self {
        Self {
            x_min: Face::Wall,
            x_max: Face::Wall,
            y_min: Face::Wall,
            y_max: Face::Wall,
            z_min: Face::Wall,
            z_max: Face::Wall,
        }
    }

    /// The face on `axis` (0 x, 1 y, 2 z) at `side` (0 minimum, 1 maximum).
    pub fn face(&self, axis: usize, side: usize) -> Face {
        match (axis, side) {
            (0, 0) => self.x_min,
            (0, _) => self.x_max,
            (1, 0) => self.y_min,
            (1, _) => self.y_max,
            (_, 0) => self.z_min,
            _ => self.z_max,
        }
    }

    /// Mutable access to the face on `axis` at `side`.
    pub fn face_mut(&mut self, axis: usize, side: usize) -> &mut Face {
        match (axis, side) {
            (0, 0) => &mut self.x_min,
            (0, _) => &mut self.x_max,
            (1, 0) => &mut self.y_min,
            (1, _) => &mut self.y_max,
            (_, 0) => &mut self.z_min,
            _ => &mut self.z_max,
        }
    }

    /// The normal velocity (along +axis) that the face prescribes: 0 for a wall, the inflow
    /// speed pointing into the domain for an inflow, `None` for an open face.
    pub fn normal_velocity(&self, axis: usize, side: usize) -> Option<f32> {
        match self.face(axis, side) {
            Face::Wall => Some(0.0),
            Face::Open => None,
            Face::Inflow(s) => Some(if side == 0 { s } else { -s }),
        }
    }

    /// `true` when at least one face is open (the pressure problem then has a unique solution).
    pub fn any_open(&self) -> bool {
        (0..3).any(|a| (0..2).any(|s| self.face(a, s).is_open()))
    }

    /// Checks inflow speeds; an inflow also needs an open face for the air to leave by.
    /// On error returns the face's name and the message.
    pub fn validate(&self) -> Result<(), (&'static str, String)> {
        for (n, name) in FACE_NAMES.iter().enumerate() {
            if let Face::Inflow(s) = self.face(n / 2, n % 2) {
                let speed = crate::ranges::scene::INFLOW_SPEED;
                if !speed.contains(f64::from(s)) {
                    return Err((name, speed.out_of_range(&format!("{name} inflow speed"), s)));
                }
                if !self.any_open() {
                    return Err((
                        name,
                        format!(
                            "{name} is an inflow but no face is open: the air has nowhere to go \
                             (make at least one face \"open\")"
                        ),
                    ));
                }
            }
        }
        Ok(())
    }
}
