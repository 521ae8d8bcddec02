//! Scenes: a grid, fluid parameters, boundaries and emitters that build a [`Solver`].
//!
//! Scene files (TOML) come with the scenes issue; for now the built-in default scene is
//! defined here and every command uses it.

use crate::sim::{Boundaries, Dims, Emitter, FluidParams, Grid, SimError, Solver};

/// A complete simulation set-up.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Short name.
    pub name: String,
    /// Cell counts.
    pub dims: Dims,
    /// Length of the domain's largest side, domain units.
    pub size: f32,
    /// World position of the domain's minimum corner.
    pub origin: [f32; 3],
    /// Fluid and numerical parameters.
    pub params: FluidParams,
    /// Boundary type of each face.
    pub boundaries: Boundaries,
    /// Smoke sources.
    pub emitters: Vec<Emitter>,
}

impl Default for Scene {
    fn default() -> Self {
        Self::default_plume()
    }
}

impl Scene {
    /// The default scene: warm smoke rising from a floor emitter in a 64³ box with an open top.
    pub fn default_plume() -> Self {
        Self {
            name: "plume".into(),
            dims: Dims::cube(64),
            size: 1.0,
            origin: [0.0; 3],
            params: FluidParams::default(),
            boundaries: Boundaries::default(),
            emitters: vec![Emitter {
                center: [0.5, 0.12, 0.5],
                radius: 0.07,
                rate: 2.0,
                velocity: Some([0.0, 0.25, 0.0]),
            }],
        }
    }

    /// The same scene on a different grid (domain and physics unchanged).
    pub fn with_dims(mut self, dims: Dims) -> Self {
        self.dims = dims;
        self
    }

    /// Builds a solver for the scene, validating everything.
    pub fn build(&self) -> Result<Solver, SimError> {
        let grid = Grid::new(self.dims, self.size, self.origin)?;
        let mut s = Solver::new(grid, self.params.clone(), self.boundaries)?;
        s.set_emitters(self.emitters.clone())?;
        Ok(s)
    }
}
