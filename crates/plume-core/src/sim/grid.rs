//! Grid geometry: dimensions, voxel size, origin and the x-fastest indexing convention.

use super::SimError;

/// Largest number of cells along one axis that the solver accepts.
pub const MAX_AXIS_CELLS: usize = 1024;
/// Largest number of cells in a whole grid: 512³, the largest the GPU backend's goals name
/// (about 8.6 GB on the card). Below it, what fits is decided by each backend's memory check
/// (the CPU backend needs about 64 bytes a cell of the machine's free memory).
pub const MAX_TOTAL_CELLS: usize = 134_217_728;

/// [`MAX_TOTAL_CELLS`] as the docs write it, "134 217 728 (512³)": every page that names the
/// limit writes this (a test reads them).
pub fn max_total_cells_text() -> String {
    let digits = MAX_TOTAL_CELLS.to_string();
    let mut grouped = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(' ');
        }
        grouped.push(c);
    }
    let side = (MAX_TOTAL_CELLS as f64).cbrt().round() as usize;
    match side.pow(3) == MAX_TOTAL_CELLS {
        true => format!("{grouped} ({side}³)"),
        false => grouped,
    }
}

/// Number of cells along x, y and z (y is up).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Dims {
    /// Cells along x.
    pub nx: usize,
    /// Cells along y (up).
    pub ny: usize,
    /// Cells along z.
    pub nz: usize,
}

impl Dims {
    /// A cubic grid of `n` cells per side.
    pub const fn cube(n: usize) -> Self {
        Self {
            nx: n,
            ny: n,
            nz: n,
        }
    }

    /// Dimensions from three cell counts.
    pub const fn new(nx: usize, ny: usize, nz: usize) -> Self {
        Self { nx, ny, nz }
    }

    /// Total number of cells.
    pub const fn cells(&self) -> usize {
        self.nx * self.ny * self.nz
    }

    /// Index of cell (i, j, k) in an x-fastest array: `i + nx*(j + ny*k)`.
    #[inline(always)]
    pub const fn idx(&self, i: usize, j: usize, k: usize) -> usize {
        i + self.nx * (j + self.ny * k)
    }

    /// The cell counts as an array `[nx, ny, nz]`.
    pub const fn as_array(&self) -> [usize; 3] {
        [self.nx, self.ny, self.nz]
    }

    /// Dimensions of the array of face velocities normal to `axis` (one more along that axis).
    pub const fn faces(&self, axis: usize) -> Dims {
        match axis {
            0 => Dims::new(self.nx + 1, self.ny, self.nz),
            1 => Dims::new(self.nx, self.ny + 1, self.nz),
            _ => Dims::new(self.nx, self.ny, self.nz + 1),
        }
    }

    /// Checks the dimensions against the solver's limits.
    pub fn validate(&self) -> Result<(), SimError> {
        for (name, n) in [("nx", self.nx), ("ny", self.ny), ("nz", self.nz)] {
            if !(3..=MAX_AXIS_CELLS).contains(&n) {
                return Err(SimError::InvalidGrid(format!(
                    "{name} = {n} is outside the allowed range 3..={MAX_AXIS_CELLS}"
                )));
            }
        }
        let total = self.nx as u128 * self.ny as u128 * self.nz as u128;
        if total > MAX_TOTAL_CELLS as u128 {
            return Err(SimError::InvalidGrid(format!(
                "{}x{}x{} = {total} cells exceeds the limit of {MAX_TOTAL_CELLS} cells",
                self.nx, self.ny, self.nz
            )));
        }
        Ok(())
    }
}

impl std::fmt::Display for Dims {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}x{}x{}", self.nx, self.ny, self.nz)
    }
}

/// Placement of the grid in world space: uniform voxel size `h` and the domain's minimum corner.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grid {
    /// Cell counts.
    pub dims: Dims,
    /// Edge length of one (cubic) voxel in domain units.
    pub h: f32,
    /// World position of the domain's minimum corner.
    pub origin: [f32; 3],
}

impl Grid {
    /// A grid whose largest side has length `size` (domain units), with its minimum corner at `origin`.
    pub fn new(dims: Dims, size: f32, origin: [f32; 3]) -> Result<Self, SimError> {
        dims.validate()?;
        if !(size.is_finite() && size > 0.0 && size <= 1.0e4) {
            return Err(SimError::InvalidGrid(format!(
                "domain size {size} is outside the allowed range (0, 10000]"
            )));
        }
        if origin.iter().any(|c| !c.is_finite() || c.abs() > 1.0e6) {
            return Err(SimError::InvalidGrid(format!(
                "domain origin {origin:?} must be finite and within ±1e6"
            )));
        }
        let nmax = dims.nx.max(dims.ny).max(dims.nz);
        Ok(Self {
            dims,
            h: size / nmax as f32,
            origin,
        })
    }

    /// The default placement: largest side 1.0, minimum corner at the world origin.
    pub fn unit(dims: Dims) -> Result<Self, SimError> {
        Self::new(dims, 1.0, [0.0; 3])
    }

    /// Extent of the domain along each axis in domain units.
    pub fn extent(&self) -> [f32; 3] {
        [
            self.dims.nx as f32 * self.h,
            self.dims.ny as f32 * self.h,
            self.dims.nz as f32 * self.h,
        ]
    }

    /// World position of the centre of cell (i, j, k).
    pub fn cell_center(&self, i: usize, j: usize, k: usize) -> [f32; 3] {
        [
            self.origin[0] + (i as f32 + 0.5) * self.h,
            self.origin[1] + (j as f32 + 0.5) * self.h,
            self.origin[2] + (k as f32 + 0.5) * self.h,
        ]
    }

    /// The cell containing a world position, or `None` outside the domain.
    pub fn cell_at(&self, p: [f32; 3]) -> Option<[usize; 3]> {
        let n = self.dims.as_array();
        let mut out = [0usize; 3];
        for a in 0..3 {
            let c = (p[a] - self.origin[a]) / self.h;
            if !(c >= 0.0 && c < n[a] as f32) {
                return None;
            }
            out[a] = (c as usize).min(n[a] - 1);
        }
        Some(out)
    }
}
