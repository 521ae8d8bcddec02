//! Detail beyond the grid: a noise up-resolution pass (Kim, Thürey, James and Gross, "Wavelet
//! Turbulence for Fluid Simulation", 2008, in a simplified form). A density grid `factor`
//! times finer (and flame and temperature with it when the scene burns) is carried by the
//! coarse velocity plus curl noise scaled by the coarse flow's unresolved energy; the noise's
//! coordinates are advected with the flow and regenerated in two staggered sets, so the detail
//! moves with the smoke instead of swimming.
//!
//! Each step, for each fine field `f` with its coarse counterpart `c`:
//! 1. `a` = `f` traced back along the fine velocity (semi-Lagrangian, trilinear);
//! 2. `f` = `a + up(c − down(a))`: the traced field, corrected by what its coarse part
//!    (the mean of each coarse cell's fine cells) lacks of the coarse solver's field,
//!    interpolated. The fine field therefore averages back to the coarse one (consistency)
//!    whatever the noise does, and the detail it carries is the one the noise stirred up,
//!    moved along.
//!
//! The coarse solver is untouched: [`Detailed`] wraps any [`crate::sim::Simulation`] and only reads its
//! frames. Only cells near smoke are worked (the coarse field's support, dilated by the
//! furthest trace).

mod block;
pub mod layered;
pub mod noise;

pub use layered::Detailed;

use super::{Dims, Grid, SimError};
use crate::frame::{Frame, Select};
use rayon::prelude::*;

/// The up-resolution settings (`[detail]` in a scene file).
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DetailParams {
    /// Whether the pass runs.
    pub enabled: bool,
    /// Fine cells along each coarse cell's side: 2, 3 or 4.
    pub factor: u32,
    /// Scale of the turbulent velocity against the coarse flow's unresolved part (0: the
    /// fine grid is the coarse one, interpolated and carried along, with no added detail).
    pub strength: f32,
    /// Size of the noise's features in fine cells (1: at the fine grid's own scale).
    pub noise_scale: f32,
    /// Seconds between regenerations of each of the two sets of noise coordinates.
    pub regenerate: f32,
    /// Seed of the noise tile.
    pub seed: u64,
}

impl Default for DetailParams {
    fn default() -> Self {
        Self {
            enabled: false,
            factor: 2,
            strength: 24.0,
            noise_scale: 4.0,
            regenerate: 1.0,
            seed: 1,
        }
    }
}

impl DetailParams {
    /// Checks every value against its range (the range table's rows).
    pub fn validate(&self) -> Result<(), SimError> {
        use crate::ranges::detail as r;
        r::FACTOR.check_count(self.factor)?;
        r::STRENGTH.check(self.strength)?;
        r::NOISE_SCALE.check(self.noise_scale)?;
        r::REGENERATE.check(self.regenerate)?;
        Ok(())
    }

    /// The fine grid of `coarse` (refused when it would exceed the cell limits).
    pub fn fine_grid(&self, coarse: &Grid) -> Result<Grid, SimError> {
        let n = self.factor as usize;
        let d = coarse.dims;
        let dims = Dims::new(d.nx * n, d.ny * n, d.nz * n);
        dims.validate().map_err(|e| {
            SimError::field(
                "factor",
                format!(
                    "detail factor {n} of a {d} grid makes a {dims} grid, beyond the limits \
                     ({e}); choose a smaller factor or grid"
                ),
            )
        })?;
        Ok(Grid {
            dims,
            h: coarse.h / n as f32,
            origin: coarse.origin,
        })
    }

    /// Bytes the pass holds at its peak for a coarse grid of `dims`, an upper bound: the fine
    /// fields (three when `fire`, one otherwise) and, during a step, as much again for the
    /// blocks' new values, a fine mask and the trace points (16 bytes a fine cell at most);
    /// the coarse scratch and noise coordinates. Measured (48³, `plume simulate --upres k`,
    /// peak resident memory less the same run without detail): 23 bytes a fine cell at ×3
    /// and ×4, where this counts 28 (`tests/memory_estimates.rs`).
    pub fn memory_bytes(&self, dims: Dims, fire: bool) -> u64 {
        if !self.enabled {
            return 0;
        }
        let fine = dims.cells() as u64 * u64::from(self.factor.pow(3));
        let fields = if fire { 3 } else { 1 };
        4 * fine * (2 * fields + 1) + 16 * fine + 4 * dims.cells() as u64 * 16 + 12 * 32u64.pow(3)
    }
}

/// One fine field and what keeps it in step with its coarse counterpart.
#[derive(Clone, Debug)]
struct FineField {
    name: &'static str,
    values: Vec<f32>,
    /// Clamp at zero (density and flame are amounts; temperature is not).
    non_negative: bool,
}

/// The fine fields and the noise that moves them.
#[derive(Clone, Debug)]
pub struct Detail {
    params: DetailParams,
    coarse: Grid,
    fine: Grid,
    tile: noise::CurlTile,
    fields: Vec<FineField>,
    /// Two sets of noise coordinates per coarse cell (coarse cell units) and their ages, s.
    coords: [Vec<[f32; 3]>; 2],
    ages: [f32; 2],
    /// Regenerations so far (varies the offset a regenerated set starts from).
    regenerations: u64,
    /// Coarse cells whose fine block holds an amount above the cut-off (density, flame).
    held: Vec<bool>,
    /// Coarse cells whose fine block the last step wrote (outside them the fine amounts
    /// are zero).
    written: Vec<bool>,
    /// Milliseconds the last step took.
    last_ms: f64,
}

/// Where a trilinear sample of a cell-centred field of `d` at `p` (cell-centre coordinates,
/// clamped to the grid) reads: the weights along x, y, z, the lowest corner's index and the
/// strides to the next corner along each axis (0 along an axis one cell wide).
#[inline(always)]
fn corners(d: Dims, p: [f32; 3]) -> ([f32; 3], usize, [usize; 3]) {
    let n = [d.nx, d.ny, d.nz];
    let mut i0 = [0usize; 3];
    let mut t = [0.0f32; 3];
    for a in 0..3 {
        let x = p[a].clamp(0.0, (n[a] - 1) as f32);
        // 0 ≤ x < 2³¹ here: truncation is the floor (and no call to floorf), and through
        // i32 one instruction (a float to usize conversion saturates in several).
        let b = (x as i32 as usize).min(n[a].saturating_sub(2));
        i0[a] = b;
        t[a] = if n[a] > 1 { x - b as f32 } else { 0.0 };
    }
    let s = [1usize, d.nx, d.nx * d.ny];
    let step = [0, 1, 2].map(|a| if n[a] > 1 { s[a] } else { 0 });
    (t, i0[0] + d.nx * (i0[1] + d.ny * i0[2]), step)
}

/// The trilinear blend of the eight values `g` gives at the corners [`corners`] found.
#[cfg(test)]
#[inline(always)]
fn blend(t: [f32; 3], o: usize, [sx, sy, sz]: [usize; 3], g: impl Fn(usize) -> f32) -> f32 {
    let l = |o: usize| g(o) + t[0] * (g(o + sx) - g(o));
    let a0 = l(o) + t[1] * (l(o + sy) - l(o));
    let a1 = l(o + sz) + t[1] * (l(o + sz + sy) - l(o + sz));
    a0 + t[2] * (a1 - a0)
}

/// Trilinear sample of a cell-centred field of `d` at `p` (cell-centre coordinates),
/// clamped to the grid.
#[cfg(test)]
#[inline(always)]
fn trilerp(f: &[f32], d: Dims, p: [f32; 3]) -> f32 {
    let (t, o, s) = corners(d, p);
    blend(t, o, s, |i| f[i])
}

/// Trilinear sample of a cell-centred vector field (the eight corners loaded once; each
/// component blended as [`blend`] does).
#[inline(always)]
fn trilerp3(f: &[[f32; 3]], d: Dims, p: [f32; 3]) -> [f32; 3] {
    let (t, o, [sx, sy, sz]) = corners(d, p);
    let g = [0, sx, sy, sx + sy, sz, sz + sx, sz + sy, sz + sy + sx].map(|s| f[o + s]);
    let l = |a: [f32; 3], b: [f32; 3]| [0, 1, 2].map(|c| a[c] + t[0] * (b[c] - a[c]));
    let (l00, l10, l01, l11) = (l(g[0], g[1]), l(g[2], g[3]), l(g[4], g[5]), l(g[6], g[7]));
    let a0 = [0, 1, 2].map(|c| l00[c] + t[1] * (l10[c] - l00[c]));
    let a1 = [0, 1, 2].map(|c| l01[c] + t[1] * (l11[c] - l01[c]));
    [0, 1, 2].map(|c| a0[c] + t[2] * (a1[c] - a0[c]))
}

/// The coarse cell-centre coordinates of fine cell index `i` along an axis (factor `n`).
#[inline]
fn coarse_pos(i: usize, n: usize) -> f32 {
    (i as f32 + 0.5) / n as f32 - 0.5
}

/// `coarse` sampled trilinearly at every fine cell centre (factor `n`).
pub fn upsample(coarse: &[f32], d: Dims, n: usize) -> Vec<f32> {
    let fd = Dims::new(d.nx * n, d.ny * n, d.nz * n);
    let mut out = vec![0.0f32; fd.cells()];
    block::fill_blocks(coarse, d, n, &mut out, |_, _, _| false);
    out
}

/// The mean of each coarse cell's `n³` fine cells.
pub fn downsample(fine: &[f32], d: Dims, n: usize) -> Vec<f32> {
    let (fx, fy) = (d.nx * n, d.ny * n);
    let inv = 1.0 / (n * n * n) as f32;
    let mut out = vec![0.0f32; d.cells()];
    out.par_chunks_mut(d.nx * d.ny)
        .enumerate()
        .for_each(|(k, plane)| {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let mut s = 0.0f32;
                    for dk in 0..n {
                        for dj in 0..n {
                            let row = i * n + fx * (j * n + dj + fy * (k * n + dk));
                            s += fine[row..row + n].iter().sum::<f32>();
                        }
                    }
                    plane[i + d.nx * j] = s * inv;
                }
            }
        });
    out
}

impl Detail {
    /// The pass for a coarse `grid` with `params` (validated), its fine fields all zero.
    pub fn new(coarse: &Grid, params: DetailParams, fire: bool) -> Result<Self, SimError> {
        params.validate()?;
        let fine = params.fine_grid(coarse)?;
        let cells = fine.dims.cells();
        let mut names = vec![("density", true)];
        if fire {
            names.push(("temperature", false));
            names.push(("flame", true));
        }
        let fields = names
            .into_iter()
            .map(|(name, non_negative)| -> Result<FineField, SimError> {
                Ok(FineField {
                    name,
                    values: crate::sim::solver::memory::try_filled(cells, 0.0, "the fine grid")?,
                    non_negative,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let mut d = Self {
            params,
            coarse: *coarse,
            fine,
            tile: noise::CurlTile::new(params.seed),
            fields,
            coords: [Vec::new(), Vec::new()],
            ages: [0.0, 0.5 * params.regenerate],
            regenerations: 0,
            held: vec![true; coarse.dims.cells()],
            written: vec![true; coarse.dims.cells()],
            last_ms: 0.0,
        };
        d.coords = [d.fresh_coords(0), d.fresh_coords(1)];
        Ok(d)
    }

    /// The settings.
    pub fn params(&self) -> &DetailParams {
        &self.params
    }

    /// The fine grid.
    pub fn grid(&self) -> &Grid {
        &self.fine
    }

    /// The fine field called `name` (density, temperature, flame), if the pass carries it.
    pub fn field(&self, name: &str) -> Option<&[f32]> {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .map(|f| f.values.as_slice())
    }

    /// Milliseconds the last [`Detail::step`] took.
    pub fn last_ms(&self) -> f64 {
        self.last_ms
    }

    /// Noise coordinates starting at each coarse cell's own position, shifted by an offset
    /// that differs at every regeneration (so a new set does not repeat the last pattern).
    fn fresh_coords(&mut self, set: usize) -> Vec<[f32; 3]> {
        self.regenerations += 1;
        let r = self
            .regenerations
            .wrapping_mul(0x9E37_79B9_7F4A_7C15)
            .wrapping_add(set as u64 + self.params.seed);
        let off = [r & 0xffff, (r >> 16) & 0xffff, (r >> 32) & 0xffff]
            .map(|v| v as f32 / 65536.0 * noise::TILE as f32);
        let d = self.coarse.dims;
        (0..d.cells())
            .map(|idx| {
                let (i, j, k) = (idx % d.nx, (idx / d.nx) % d.ny, idx / (d.nx * d.ny));
                [i as f32 + off[0], j as f32 + off[1], k as f32 + off[2]]
            })
            .collect()
    }

    /// Sets every fine field to its coarse counterpart, interpolated (on reset, or when the
    /// pass is switched on mid-run).
    pub fn reset_from(&mut self, coarse: &Frame) {
        let n = self.params.factor as usize;
        let d = self.coarse.dims;
        for f in &mut self.fields {
            if let Some(c) = coarse_field(coarse, f.name) {
                f.values = upsample(c, d, n);
            }
        }
        // Anything may hold an amount now: the next step works out where.
        self.held.iter_mut().for_each(|h| *h = true);
        self.written.iter_mut().for_each(|w| *w = true);
    }

    /// What the pass reads of the coarse simulation each step: density and velocity, and
    /// temperature and flame when it carries them.
    pub fn select(&self) -> Select {
        let has = |name: &str| self.fields.iter().any(|f| f.name == name);
        Select {
            density: true,
            temperature: has("temperature"),
            fuel: false,
            flame: has("flame"),
            velocity: true,
            pressure: false,
            divergence: false,
            solid: false,
        }
    }

    /// The worked coarse cells: near the coarse amounts (density, flame) or the fine ones,
    /// within `reach` cells. A cell counts above 1e-3 of the field's largest value, the
    /// cut-off the solver's scalar passes use (fading leaves traces of 1e-30 across the box).
    fn active_cells(&self, coarse: &Frame, reach: usize) -> Vec<bool> {
        let mut seed = self.held.clone();
        for f in self.fields.iter().filter(|f| f.non_negative) {
            if let Some(c) = coarse_field(coarse, f.name) {
                let top = c.par_iter().map(|v| v.abs()).reduce(|| 0.0f32, f32::max);
                let cut = 1e-3 * top;
                seed.par_iter_mut()
                    .zip(c.par_iter())
                    .for_each(|(s, &v)| *s |= v.abs() > cut);
            }
        }
        block::dilate(seed, self.coarse.dims, reach)
    }

    /// One step of `dt` seconds after the coarse solver's: `coarse` must carry what
    /// [`Detail::select`] asks for.
    pub fn step(&mut self, coarse: &Frame, dt: f32) {
        let t0 = std::time::Instant::now();
        let d = self.coarse.dims;
        let n = self.params.factor as usize;
        let Some(vel) = coarse.velocity.as_deref() else {
            return;
        };
        if self.params.strength == 0.0 {
            // No turbulence, no detail: the coarse fields, interpolated.
            self.reset_from(coarse);
            self.last_ms = t0.elapsed().as_secs_f64() * 1e3;
            return;
        }
        let h = self.coarse.h;
        // The turbulence is held to the local speed, so a trace goes at most twice the
        // fastest coarse speed; one that outruns the reach on a peak of the noise reads zero
        // there, and the correction towards the coarse field (which the reach covers) keeps
        // the amounts.
        let vmax = vel
            .par_iter()
            .map(|v| v[0].abs().max(v[1].abs()).max(v[2].abs()))
            .reduce(|| 0.0f32, f32::max);
        let reach = ((2.0 * vmax * dt / h).ceil() as usize).min(d.nx.max(d.ny).max(d.nz)) + 1;
        let active = self.active_cells(coarse, reach);
        // The active coarse cells, in order; each has a block of n³ fine cells.
        const RUN: usize = 4096;
        let list: Vec<u32> = active
            .par_chunks(RUN)
            .enumerate()
            .flat_map_iter(|(r, run)| {
                let at = (r * RUN) as u32;
                (at..).zip(run).filter(|(_, &a)| a).map(|(c, _)| c)
            })
            .collect();
        // Their (i, j, k), found once (integer division by the grid's sizes is slow).
        let cells: Vec<[usize; 3]> = list.par_iter().map(|&c| cell_of(d, c as usize)).collect();
        // Noise coordinates: carried by the coarse flow where there is smoke (elsewhere they
        // wait), regenerated in turn.
        for set in 0..2 {
            let old = &self.coords[set];
            let moved: Vec<[f32; 3]> = list
                .par_iter()
                .zip(&cells)
                .map(|(&c, &[i, j, k])| {
                    let u = vel[c as usize];
                    let p = [
                        i as f32 - u[0] * dt / h,
                        j as f32 - u[1] * dt / h,
                        k as f32 - u[2] * dt / h,
                    ];
                    // Relative to where the trace ends, so one that leaves the grid keeps a
                    // continuous field.
                    let c = trilerp3(old, d, p);
                    let q = [
                        p[0].clamp(0.0, (d.nx - 1) as f32),
                        p[1].clamp(0.0, (d.ny - 1) as f32),
                        p[2].clamp(0.0, (d.nz - 1) as f32),
                    ];
                    [
                        c[0] + (p[0] - q[0]),
                        c[1] + (p[1] - q[1]),
                        c[2] + (p[2] - q[2]),
                    ]
                })
                .collect();
            for (&c, v) in list.iter().zip(moved) {
                self.coords[set][c as usize] = v;
            }
            self.ages[set] += dt;
            if self.ages[set] >= self.params.regenerate {
                self.ages[set] -= self.params.regenerate;
                self.coords[set] = self.fresh_coords(set);
            }
        }
        let weights = self.ages.map(|a| {
            let x = a / self.params.regenerate;
            1.0 - (2.0 * x - 1.0).abs()
        });
        let norm = (weights[0] * weights[0] + weights[1] * weights[1])
            .sqrt()
            .max(1e-6);
        let octaves = if n <= 2 { 1 } else { 2 };
        let fd = self.fine.dims;
        let fine_h = self.fine.h;
        let n3 = n * n * n;
        let ctx = Ctx {
            d,
            n,
            vel,
            coords: &self.coords,
            weights,
            norm,
            octaves,
            tile: &self.tile,
            per_cell: n as f32 / self.params.noise_scale,
            strength: self.params.strength,
        };
        // The fine velocity's backtrace of every worked fine cell, a block of n³ per active
        // coarse cell (the same for every field).
        let points = list.len() * n3;
        let [mut bx, mut by, mut bz] = [0, 1, 2].map(|_| vec![0.0f32; points]);
        bx.par_chunks_mut(n3)
            .zip(by.par_chunks_mut(n3))
            .zip(bz.par_chunks_mut(n3))
            .zip(list.par_iter().zip(&cells))
            .for_each_init(Scratch::default, |scratch, (((x, y), z), (&c, &cell))| {
                ctx.block_back(c as usize, cell, dt, fine_h, [x, y, z], scratch)
            });
        // 1. Every fine field traced back, block by block (one search per point for all);
        //    each block's mean is the traced field's coarse part.
        let advected = {
            let src: Vec<&[f32]> = self.fields.iter().map(|f| f.values.as_slice()).collect();
            block::trace_all(&src, fd, [&bx, &by, &bz])
        };
        for (fi, adv) in advected.into_iter().enumerate() {
            let name = self.fields[fi].name;
            let Some(c_now) = coarse_field(coarse, name) else {
                continue;
            };
            let mut low = vec![0.0f32; d.cells()];
            for (b, &c) in list.iter().enumerate() {
                low[c as usize] = adv[b * n3..(b + 1) * n3].iter().sum::<f32>() / n3 as f32;
            }
            // 2. The traced field, corrected by what its coarse part lacks of the coarse
            //    field (interpolated): the fine field then averages back to the coarse one
            //    up to the interpolation's blur of that correction.
            let fix: Vec<f32> = c_now.par_iter().zip(&low).map(|(c, l)| c - l).collect();
            let fix = &fix;
            let corrected_block = |bi: usize, cell: [usize; 3], out: &mut [f32]| {
                let blk = block::Block::new(d, n, cell);
                let g = blk.gather(fix);
                for (q, v) in out.iter_mut().enumerate() {
                    *v = adv[bi * n3 + q] + blk.sample(&g, q);
                }
            };
            if self.fields[fi].non_negative {
                // Amounts: only the worked blocks are computed; blocks the last step wrote
                // and this one does not are cleared, so the fine amounts stay zero outside
                // the worked cells.
                let cut = 1e-3 * c_now.par_iter().cloned().reduce(|| 0.0f32, f32::max);
                let mut vals = vec![0.0f32; list.len() * n3];
                let mut held = vec![false; list.len()];
                vals.par_chunks_mut(n3)
                    .zip(held.par_iter_mut())
                    .zip(cells.par_iter())
                    .enumerate()
                    .for_each(|(bi, ((blk, held), &cell))| {
                        corrected_block(bi, cell, blk);
                        let mut top = 0.0f32;
                        for v in blk.iter_mut() {
                            *v = v.max(0.0);
                            top = top.max(*v);
                        }
                        *held = top > cut;
                    });
                let values = &mut self.fields[fi].values;
                let stale = self.written.iter().zip(&active).enumerate();
                for (c, _) in stale.filter(|(_, (&w, &a))| w && !a) {
                    for_block(d, n, cell_of(d, c), |_, at| values[at] = 0.0);
                }
                for (bi, &cell) in cells.iter().enumerate() {
                    let blk = &vals[bi * n3..(bi + 1) * n3];
                    for_block(d, n, cell, |q, at| values[at] = blk[q]);
                }
                if fi == 0 {
                    self.held.iter_mut().for_each(|h| *h = false);
                }
                for (&c, &h) in list.iter().zip(&held) {
                    self.held[c as usize] |= h;
                }
            } else {
                // Temperature: the coarse field interpolated outside the worked blocks.
                let mut block_of = vec![u32::MAX; d.cells()];
                for (b, &c) in list.iter().enumerate() {
                    block_of[c as usize] = b as u32;
                }
                block::fill_blocks(c_now, d, n, &mut self.fields[fi].values, |c, cell, vals| {
                    match block_of[c] {
                        u32::MAX => false,
                        b => {
                            corrected_block(b as usize, cell, vals);
                            true
                        }
                    }
                });
            }
        }
        self.written = active;
        self.last_ms = t0.elapsed().as_secs_f64() * 1e3;
    }
}

/// Coarse cell `c`'s (i, j, k) in a grid of `d`.
#[inline]
fn cell_of(d: Dims, c: usize) -> [usize; 3] {
    [c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny)]
}

/// Calls `put(q, at)` for each fine cell of coarse cell `c`'s block: `q` its place in the
/// block (x fastest), `at` its index in the fine grid.
#[inline]
fn for_block(d: Dims, n: usize, [ci, cj, ck]: [usize; 3], mut put: impl FnMut(usize, usize)) {
    let (fx, plane) = (d.nx * n, d.nx * n * d.ny * n);
    for dk in 0..n {
        for dj in 0..n {
            let row = ci * n + fx * (cj * n + dj) + plane * (ck * n + dk);
            for di in 0..n {
                put(di + n * (dj + n * dk), row + di);
            }
        }
    }
}

/// What one fine cell's velocity needs.
struct Ctx<'a> {
    d: Dims,
    n: usize,
    vel: &'a [[f32; 3]],
    coords: &'a [Vec<[f32; 3]>; 2],
    weights: [f32; 2],
    norm: f32,
    octaves: usize,
    tile: &'a noise::CurlTile,
    /// Noise cells per coarse cell at the finest octave.
    per_cell: f32,
    strength: f32,
}

impl Ctx<'_> {
    /// The backtraces over `dt` (fine cell coordinates; `fine_h` the fine cell size) of
    /// coarse cell `c`'s block. The fine velocity at a fine cell is the coarse velocity plus the
    /// turbulence of each octave above the coarse grid (Kolmogorov: amplitude 2^(−5/6) per
    /// octave). The energy and the noise coordinates are the cell's own, the coordinates
    /// moved on by the fine cell's offset from the cell's centre.
    fn block_back(
        &self,
        c: usize,
        cell: [usize; 3],
        dt: f32,
        fine_h: f32,
        out: [&mut [f32]; 3],
        scratch: &mut Scratch,
    ) {
        let (d, n) = (self.d, self.n);
        let blk = block::Block::new(d, n, cell);
        let g = blk.gather(self.vel);
        let amp = turbulent_amplitude(&g, self.strength) / self.norm;
        let freq0 = self.per_cell / (1 << (self.octaves - 1)) as f32;
        let n3 = out[0].len();
        let oct = self.octaves;
        // The noise at every point the block needs (set, fine cell, octave), sampled together.
        let (mut live, mut count) = ([0usize; 2], 0);
        for set in 0..2 {
            if amp > 0.0 && self.weights[set] > 0.0 {
                live[count] = set;
                count += 1;
            }
        }
        let sets = &live[..count];
        let points = sets.len() * n3 * oct;
        let (pts, noise) = (&mut scratch.points[..points], &mut scratch.noise[..points]);
        for (slot, &set) in sets.iter().enumerate() {
            let t = self.coords[set][c];
            for q in 0..n3 {
                let p = blk.pos(q);
                let off = [0, 1, 2].map(|a| p[a] - cell[a] as f32);
                let tc = [t[0] + off[0], t[1] + off[1], t[2] + off[2]];
                let mut freq = freq0;
                for o in 0..oct {
                    pts[(slot * n3 + q) * oct + o] = [tc[0] * freq, tc[1] * freq, tc[2] * freq];
                    freq *= 2.0;
                }
            }
        }
        self.tile.sample_many(pts, noise);
        for q in 0..n3 {
            let s = block::split(n, q);
            let f = [0, 1, 2].map(|a| cell[a] * n + s[a]);
            let mut u = blk.sample(&g, q);
            for (slot, &set) in sets.iter().enumerate() {
                let mut a = amp * self.weights[set];
                for o in 0..oct {
                    a *= 0.561_231; // 2^(−5/6)
                    let v = noise[(slot * n3 + q) * oct + o];
                    for k in 0..3 {
                        u[k] += a * v[k];
                    }
                }
            }
            for a in 0..3 {
                out[a][q] = f[a] as f32 - u[a] * dt / fine_h;
            }
        }
    }
}

/// Room for the noise points of one block: two sets, two octaves, 4³ fine cells.
struct Scratch {
    points: Vec<[f32; 3]>,
    noise: Vec<[f32; 3]>,
}

impl Default for Scratch {
    fn default() -> Self {
        Self {
            points: vec![[0.0; 3]; 2 * 2 * 64],
            noise: vec![[0.0; 3]; 2 * 2 * 64],
        }
    }
}

/// strength·√(2e) at a cell whose velocity's 3×3×3 neighbourhood (clamped at the walls) is
/// `g`, held to the cell's speed; e = ½|u − ū|², ū the neighbourhood's mean: the energy in
/// the coarse grid's top band, which Kolmogorov's cascade carries further down. The energy
/// estimate spikes where an emitter sets the velocity, hence the hold: turbulence no
/// stronger than the flow.
fn turbulent_amplitude(g: &[[f32; 3]; 27], strength: f32) -> f32 {
    let mut m = [0.0f32; 3];
    for v in g {
        for c in 0..3 {
            m[c] += v[c];
        }
    }
    let u = g[13];
    let dx = [0, 1, 2].map(|c| u[c] - m[c] / 27.0);
    let e = 0.5 * (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
    let speed = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
    (strength * (2.0 * e).sqrt()).min(speed)
}

fn coarse_field<'a>(f: &'a Frame, name: &str) -> Option<&'a [f32]> {
    match name {
        "density" => f.density.as_deref(),
        "temperature" => f.temperature.as_deref(),
        "flame" => f.flame.as_deref(),
        _ => None,
    }
}
