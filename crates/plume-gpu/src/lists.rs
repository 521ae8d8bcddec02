//! The lists the solver keeps on the card besides its fields: what emitters and the brush
//! cover, and the obstacles' cells, faces and extrapolation plans, and what the scalars' active
//! region carries between sub-steps (`region.rs` works it out). Data only; `engine.rs`
//! and `solids.rs` fill and apply them.

use glium::buffer::Buffer;
use plume_core::geometry::Pose;
use plume_core::sim::body::Body;
use plume_core::sim::obstacles::Solids;
use plume_core::sim::Obstacle;

/// A coverage list on the card: sample indices and coverages.
pub(crate) struct List {
    pub index: Buffer<[u32]>,
    pub weight: Buffer<[f32]>,
    pub len: usize,
}

/// What a shape covers, on the card: cells, then u, v and w faces.
pub(crate) struct Covered(pub [Option<List>; 4]);

/// A list of averages on the card.
pub(crate) struct Averages {
    pub entries: Buffer<[u32]>,
    pub len: usize,
}

/// The obstacles' cells and faces on the card, with the CPU's description they came from.
pub(crate) struct GpuSolids {
    pub host: Solids,
    pub cells: Option<List>,
    pub faces: [Option<List>; 3],
    pub border: Option<Averages>,
    pub face_layers: [Vec<Averages>; 3],
}

/// The obstacles of an engine: their bodies, the solids of the current sub-step and the
/// poses they were built for (moving obstacles are rebuilt when those change).
#[derive(Default)]
pub(crate) struct Obstacles {
    pub list: Vec<Obstacle>,
    pub bodies: Vec<Body>,
    pub solids: Option<GpuSolids>,
    pub key: Option<Vec<(Pose, Pose)>>,
    /// Smoke in the cells solids moved over since the last mass correction (cell units).
    pub swept: f64,
}

impl Obstacles {
    /// Bytes of the obstacles' mask and lists on the card.
    pub fn bytes(&self) -> u64 {
        let Some(s) = &self.solids else { return 4 };
        let list = |l: &Option<List>| l.as_ref().map_or(0, |l| 8 * l.len as u64);
        let avg = |a: &Averages| 32 * a.len as u64;
        let mask = (s.host.mask.len() as u64).div_ceil(32) * 4;
        mask + list(&s.cells)
            + s.faces.iter().map(list).sum::<u64>()
            + s.border.as_ref().map_or(0, avg)
            + s.face_layers.iter().flatten().map(avg).sum::<u64>()
    }
}

/// Where an array of the cycle lives.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum At {
    /// The solve's `q` (the result), from 0.
    Q,
    /// The solve's `r` (the finest right-hand side), from 0.
    R,
    /// The cell velocity's buffer, from this float.
    Cell(u32),
}

/// One level: its cells, the offsets of its arrays and its mask's first word.
#[derive(Clone, Debug)]
pub(crate) struct Level {
    pub dims: [u32; 3],
    pub n: u32,
    pub x: At,
    pub y: At,
    pub t: At,
    pub b: At,
    pub mask: u32,
}

/// The hierarchy of a grid (and of its obstacles' masks, when there are any).
pub(crate) struct Multigrid {
    pub levels: Vec<Level>,
    pub bits: Buffer<[u32]>,
    /// The levels' figures for the fused cycle (`multigrid.rs`'s `table`).
    pub table: Buffer<[u32]>,
}

/// What the region carries from one sub-step to the next.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RegionState {
    /// Which of the four slots hold a field's largest departure from the last support (the
    /// CPU's `scalar_maxima`: slots in the order density, temperature, fuel, flame of the
    /// fields advected; none after anything from outside changed the fields).
    pub valid: [bool; 4],
    /// Which support array and which set of maxima the next sub-step writes.
    pub parity: u32,
    /// The last scalar advection ran in a region (its share is read with the books).
    pub used: bool,
    /// The share of the cells the last step's region held (0 before any): where it is
    /// small, the traces take the cell-centred velocity from the faces and no pass stores
    /// it for every cell first.
    pub last_share: f32,
    /// Each axis' largest |face velocity| is in `Fields::active`'s words 8 to 10, merged by
    /// the projection's gradient pass, and no stage has changed the faces since: the
    /// region's support reads no faces, and the next sub-step's length comes from them.
    pub faces_top: bool,
}

/// Below this share of the cells in the region the scalar traces read the faces (see
/// `RegionState::last_share`); the same values either way.
pub(crate) const TRACE_FROM_FACES_BELOW: f32 = 0.5;

/// The cells from which a region of an `n`-cell grid is worked out whole (the CPU's rule:
/// a region is used where `cells · 10 < n · 9`).
pub(crate) fn dense_from(n: usize) -> u32 {
    (n as u64 * 9).div_ceil(10).min(u64::from(u32::MAX)) as u32
}

impl RegionState {
    /// Forgets the maxima: the next support compares bits (the CPU's `scalar_maxima =
    /// [None; 4]`, where its parameters, emitters, obstacles or fields were set).
    pub fn forget(&mut self) {
        self.valid = [false; 4];
    }

    /// Where in `Fields::active` the next scalar advection's region reads the last maxima
    /// (its cut-offs) and writes its own: two sets of four words, by turns.
    pub fn maxima_at(&self) -> (u32, u32) {
        (4 * self.parity, 4 * (1 - self.parity))
    }
}

/// What the finite check and the statistics read of a field: Σ (double precision) and the
/// largest |value| as bits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Reduced {
    pub sum: f64,
    pub max_bits: u32,
}

impl Reduced {
    pub fn max_abs(&self) -> f32 {
        f32::from_bits(self.max_bits)
    }
    pub fn finite(&self) -> bool {
        self.max_bits < 0x7f80_0000
    }

    /// As a speed: the largest |value|, or 0 where the values are not all finite (the finite
    /// check reports those).
    pub fn speed(&self) -> f32 {
        if self.finite() {
            self.max_abs()
        } else {
            0.0
        }
    }

    /// A largest |value| (a float's bits) alone, merged by a kernel that took no sum (the
    /// sum is NaN: not known).
    pub fn largest_only(max_bits: u32) -> Self {
        Self {
            sum: f64::NAN,
            max_bits,
        }
    }
}

/// Work one stage's pass does for another where nothing comes between them (each the same
/// bits as the passes it replaces; a test compares both ways).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Folds {
    /// The solve's starting residual in the divergence's pass, where nothing changes the
    /// right-hand side between them (`divergence.comp`'s RESIDUAL).
    pub residual_in_divergence: bool,
    /// The faces' and the pressure's maxima from the projection's gradient pass
    /// (`RegionState::faces_top`).
    pub faces_from_gradient: bool,
    /// The forces' buoyancy added by the velocity's advection in a step
    /// (`advect_faces.comp`'s `buoyant`).
    pub buoyancy_in_advection: bool,
    /// The conjugate gradients' figures finished by the last work group of the kernel
    /// before them, not by a dispatch of `cg_scalars.comp` (`last_group.glsl`).
    pub scalars_in_last_group: bool,
    /// A step's books kept by the last work group of the reduction before them, not by a
    /// dispatch of `ledger.comp` (`reduce.glsl`'s `book`).
    pub books_in_last_group: bool,
    /// The V-cycle's first two sweeps in one pass where it goes a pass a sweep (`mg.comp`'s
    /// op 8), not in two (ops 0 and 1).
    pub first_sweeps_together: bool,
    /// The V-cycle's coarsest sweeps and fused cycle (`mg.comp`'s ops 6 and 7) on their
    /// levels in shared memory where they fit, not in the buffer.
    pub levels_in_shared: bool,
}

impl Default for Folds {
    fn default() -> Self {
        Self {
            residual_in_divergence: true,
            faces_from_gradient: true,
            buoyancy_in_advection: true,
            scalars_in_last_group: crate::kernels::finish_in_last_group(),
            books_in_last_group: crate::kernels::finish_in_last_group(),
            first_sweeps_together: crate::kernels::first_sweeps_together(),
            levels_in_shared: crate::kernels::levels_in_shared(),
        }
    }
}
