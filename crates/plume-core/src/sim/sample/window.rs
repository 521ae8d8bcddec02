//! [`VelSampler`]'s methods: filling its window of cell-centred velocities chunk by chunk
//! and sampling a sampler that holds the whole grid.

use super::*;

impl VelSampler {
    /// An empty sampler that will hold [`window_planes`] planes with `halo`.
    pub fn windowed(halo: usize) -> Self {
        Self {
            v: Vec::new(),
            d: Dims::new(1, 1, 1),
            hi: [0.0; 3],
            z0: 0,
            held: 0,
            halo,
        }
    }

    /// Sets the planes held beyond a chunk (takes effect at the next fill).
    pub fn set_halo(&mut self, halo: usize) {
        self.halo = halo;
    }

    /// Bytes held.
    pub fn memory_bytes(&self) -> usize {
        self.v.len() * std::mem::size_of::<f32>()
    }

    /// Bytes a sampler with `halo` holds on a grid of `d` cells once it has been filled.
    pub fn bytes_for(d: Dims, halo: usize) -> u64 {
        (d.nx * d.ny * window_planes(d.nz, halo) * 3 * std::mem::size_of::<f32>()) as u64
    }

    /// A sampler holding the whole grid of `vel`.
    pub fn new(vel: VelocityRef<'_>) -> Self {
        let mut s = Self::windowed(usize::MAX);
        s.fill(vel);
        s
    }

    /// Takes `vel`'s cell-centred velocity (each component the mean of the cell's two faces
    /// along it) on the whole grid, reusing the buffer; from now on it holds the whole grid.
    pub fn fill(&mut self, vel: VelocityRef<'_>) {
        self.halo = usize::MAX;
        self.fill_planes(vel, [0, vel.dims.nz], whole_area(vel.dims));
    }

    /// Fills planes `z0..z1` of `vel`'s cell-centred velocity into the window (sized for this
    /// sampler's halo on first use and whenever the grid or the halo changes), in each plane
    /// the cells `x0..x1` of the rows `y0..y1` (`[[x0, x1], [y0, y1]]`); the others keep what
    /// they held.
    pub(super) fn fill_planes(
        &mut self,
        vel: VelocityRef<'_>,
        [z0, z1]: [usize; 2],
        area: FillArea,
    ) {
        let d = vel.dims;
        let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
        assert_eq!(vel.u.len(), du.cells());
        assert_eq!(vel.v.len(), dv.cells());
        assert_eq!(vel.w.len(), dw.cells());
        let plane = d.nx * d.ny;
        let want = window_planes(d.nz, self.halo) * plane * 3;
        assert!(z0 <= z1 && (z1 - z0) * plane * 3 <= want && z1 <= d.nz);
        let [[x0, x1], [y0, y1]] = area;
        assert!(x0 <= x1 && x1 <= d.nx && y0 <= y1 && y1 <= d.ny);
        if self.v.len() != want {
            self.v = Vec::new();
            self.v.resize(want, 0.0);
        }
        self.d = d;
        self.hi = [(d.nx - 1) as f32, (d.ny - 1) as f32, (d.nz - 1) as f32];
        self.z0 = z0;
        self.held = z1 - z0;
        let nx = d.nx;
        self.v[..(z1 - z0) * plane * 3]
            .par_chunks_mut(plane * 3)
            .enumerate()
            .for_each(|(dz, pl)| {
                let k = z0 + dz;
                for j in y0..y1 {
                    let ur = &vel.u[du.idx(x0, j, k)..][..x1 - x0 + 1];
                    let vb = &vel.v[dv.idx(x0, j, k)..][..x1 - x0];
                    let vt = &vel.v[dv.idx(x0, j + 1, k)..][..x1 - x0];
                    let wb = &vel.w[dw.idx(x0, j, k)..][..x1 - x0];
                    let wf = &vel.w[dw.idx(x0, j, k + 1)..][..x1 - x0];
                    let (u, rest) = pl[3 * j * nx..][..3 * nx].split_at_mut(nx);
                    let (v, w) = rest.split_at_mut(nx);
                    let (u, v, w) = (&mut u[x0..x1], &mut v[x0..x1], &mut w[x0..x1]);
                    let mean = |o: &mut [f32], a: &[f32], b: &[f32]| {
                        o.iter_mut().zip(a.iter().zip(b)).for_each(|(o, (a, b))| {
                            *o = 0.5 * (a + b);
                        });
                    };
                    mean(u, ur, &ur[1..]);
                    mean(v, vb, vt);
                    mean(w, wb, wf);
                }
            });
    }

    /// Runs `f(first, end, window)` for the planes `0..planes` of an array traced through
    /// `vel`, [`CHUNK_PLANES`] at a time (all at once for a sampler of the whole grid), with
    /// the window filled for the cell planes `first − halo .. end + halo` first. An array's
    /// plane k is traced from cell-array z = k (cells, x- and y-faces) or k − ½ (z-faces).
    pub fn chunks(
        &mut self,
        vel: VelocityRef<'_>,
        planes: usize,
        mut f: impl FnMut(usize, usize, &VelWindow<'_>),
    ) {
        self.chunks_where(
            vel,
            planes,
            |_, _| Some(whole_area(vel.dims)),
            |c0, c1, win| {
                if let Some(win) = win {
                    f(c0, c1, win);
                }
            },
        );
    }

    /// [`VelSampler::chunks`] for passes that trace only some cells: `need(first, end)` says
    /// which part of each plane the chunk's traces read (`[[x0, x1], [y0, y1]]`: the cells
    /// `x0..x1` of the rows `y0..y1`; the window's other cells are left as they were, stale),
    /// or `None` where there is nothing to trace: then the window is not filled and `f` gets
    /// `None`.
    pub fn chunks_where(
        &mut self,
        vel: VelocityRef<'_>,
        planes: usize,
        need: impl Fn(usize, usize) -> Option<FillArea>,
        mut f: impl FnMut(usize, usize, Option<&VelWindow<'_>>),
    ) {
        let nz = vel.dims.nz;
        let chunk = if self.halo == usize::MAX {
            planes.max(1)
        } else {
            CHUNK_PLANES
        };
        let mut c0 = 0;
        while c0 < planes {
            let c1 = (c0 + chunk).min(planes);
            if let Some(area) = need(c0, c1) {
                let z0 = c0.saturating_sub(self.halo).min(nz);
                let z1 = c1.saturating_add(self.halo).min(nz);
                self.fill_planes(vel, [z0, z1], area);
                f(c0, c1, Some(&VelWindow { s: self, vel }));
            } else {
                f(c0, c1, None);
            }
            c0 = c1;
        }
    }

    /// Velocity at `p` in cell-array coordinates (cell i's centre at i), trilinear between
    /// the cell-centred values, clamped to the grid like [`Sampler`]. The sampler must hold
    /// the whole grid ([`VelSampler::new`]).
    pub fn at_cell_coords(&self, p: [f32; 3]) -> [f32; 3] {
        assert!(
            self.z0 == 0 && self.held == self.d.nz,
            "a windowed sampler is read through its VelWindow"
        );
        let l = self.locate(p);
        trilerp4(self.gather(&l), l.t)
    }

    #[inline(always)]
    pub(super) fn locate(&self, p: [f32; 3]) -> Loc {
        Sampler {
            f: &[],
            d: self.d,
            hi: self.hi,
        }
        .locate(p)
    }

    /// The eight cell velocities around `l`, whose planes the window holds.
    #[inline(always)]
    pub(super) fn gather(&self, l: &Loc) -> [[f32; 4]; 8] {
        let v = &self.v;
        let nx = self.d.nx;
        // The cell's row starts 3·(b − i0) into the window (three components a row), its
        // neighbours along y and z three times as far as in one array.
        let i0 = l.i0 as usize;
        let b = 3 * (l.b - i0 - self.z0 * nx * self.d.ny) + i0;
        let (di, dj, dk) = (l.di, 3 * l.dj, 3 * l.dk);
        debug_assert!(b + di + dj + dk + 2 * nx < self.held * 3 * nx * self.d.ny);
        // SAFETY: `locate` keeps every corner inside the grid, and the caller checked that
        // the corners' planes are held: every index is below 3·held·nx·ny = v.len().
        let g = |o: usize| unsafe {
            let c = b + o;
            [
                *v.get_unchecked(c),
                *v.get_unchecked(c + nx),
                *v.get_unchecked(c + 2 * nx),
                0.0,
            ]
        };
        [
            g(0),
            g(di),
            g(dj),
            g(dj + di),
            g(dk),
            g(dk + di),
            g(dk + dj),
            g(dk + dj + di),
        ]
    }
}
