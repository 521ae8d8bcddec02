//! What the numbers say about the state: amounts of smoke, where it is, how much of the box
//! it fills, the divergence left. Read-only; used by `plume simulate`, the tests and the
//! statistics.

use super::*;

impl Solver {
    /// Sum of the density over all cells (not multiplied by the cell volume).
    pub fn density_sum(&self) -> f64 {
        det_sum(&self.density)
    }

    /// Total amount of smoke: Σ density · h³.
    pub fn total_density(&self) -> f64 {
        let h = self.grid.h as f64;
        self.density_sum() * h * h * h
    }

    /// The fraction of cells whose density exceeds `threshold` (how much of the box is
    /// smoky: a plume fills a small part, a box of fog all of it).
    pub fn fraction_above(&self, threshold: f32) -> f64 {
        crate::frame::fraction_above(&self.density, threshold)
    }

    /// Density-weighted centroid in world coordinates, or `None` when there is no smoke.
    pub fn density_centroid(&self) -> Option<[f64; 3]> {
        crate::frame::density_centroid(&self.grid, &self.density)
    }

    /// Largest |∇·u| over all cells (1/s) of the current velocity.
    pub fn max_divergence(&self) -> f32 {
        let d = self.grid.dims;
        let mut scratch = vec![0.0; d.cells()];
        project::divergence_rhs(self.velref(), self.grid.h, 1.0, false, &mut scratch)
    }
}
