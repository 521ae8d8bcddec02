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
        let n: usize = self
            .density
            .par_chunks(4096)
            .map(|c| c.iter().filter(|&&x| x > threshold).count())
            .sum();
        n as f64 / self.density.len().max(1) as f64
    }

    /// Density-weighted centroid in world coordinates, or `None` when there is no smoke.
    pub fn density_centroid(&self) -> Option<[f64; 3]> {
        let d = self.grid.dims;
        let parts: Vec<[f64; 4]> = self
            .density
            .par_chunks(d.nx * d.ny)
            .enumerate()
            .map(|(k, pl)| {
                let mut s = [0.0f64; 4];
                for j in 0..d.ny {
                    for i in 0..d.nx {
                        let m = pl[i + d.nx * j] as f64;
                        s[0] += m * i as f64;
                        s[1] += m * j as f64;
                        s[2] += m * k as f64;
                        s[3] += m;
                    }
                }
                s
            })
            .collect();
        let mut t = [0.0f64; 4];
        for p in parts {
            for a in 0..4 {
                t[a] += p[a];
            }
        }
        if t[3] <= 0.0 {
            return None;
        }
        let g = &self.grid;
        Some([0, 1, 2].map(|a| g.origin[a] as f64 + (t[a] / t[3] + 0.5) * g.h as f64))
    }

    /// Largest |∇·u| over all cells (1/s) of the current velocity.
    pub fn max_divergence(&self) -> f32 {
        let d = self.grid.dims;
        let mut scratch = vec![0.0; d.cells()];
        project::divergence_rhs(self.velref(), self.grid.h, 1.0, false, &mut scratch)
    }
}
