//! What happens at each of the domain's six faces.

/// Behaviour of one face of the domain.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Face {
    /// A solid wall: no flow through it (normal velocity 0, zero-gradient pressure).
    #[default]
    Wall,
    /// An open face: fluid leaves or enters freely at ambient pressure (pressure 0 outside).
    Open,
}

/// Boundary type of the six faces: index `2*axis + side`, side 0 = minimum, 1 = maximum.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Boundaries {
    /// Face at x = min.
    pub x_min: Face,
    /// Face at x = max.
    pub x_max: Face,
    /// Face at y = min (the floor).
    pub y_min: Face,
    /// Face at y = max (the top).
    pub y_max: Face,
    /// Face at z = min.
    pub z_min: Face,
    /// Face at z = max.
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

    /// `true` when at least one face is open (the pressure problem then has a unique solution).
    pub fn any_open(&self) -> bool {
        (0..3).any(|a| (0..2).any(|s| self.face(a, s) == Face::Open))
    }
}
