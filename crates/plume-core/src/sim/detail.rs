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

    /// Bytes the pass holds for a coarse grid of `dims` (three fine fields and their scratch
    /// when `fire`, one otherwise; the coarse scratch and noise coordinates).
    pub fn memory_bytes(&self, dims: Dims, fire: bool) -> u64 {
        if !self.enabled {
            return 0;
        }
        let fine = dims.cells() as u64 * u64::from(self.factor.pow(3));
        let fields = if fire { 3 } else { 1 };
        4 * fine * (fields + 1) + 4 * dims.cells() as u64 * 16 + 12 * 32u64.pow(3)
    }
}

/// What the pass reads of the coarse simulation each step.
pub const COARSE_SELECT: Select = Select {
    density: true,
    temperature: true,
    fuel: false,
    flame: true,
    velocity: true,
    pressure: false,
    divergence: false,
    solid: false,
};

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
        // x ≥ 0 here: truncation is the floor (and no call to floorf).
        let b = (x as usize).min(n[a].saturating_sub(2));
        i0[a] = b;
        t[a] = if n[a] > 1 { x - b as f32 } else { 0.0 };
    }
    let s = [1usize, d.nx, d.nx * d.ny];
    let step = [0, 1, 2].map(|a| if n[a] > 1 { s[a] } else { 0 });
    (t, i0[0] + d.nx * (i0[1] + d.ny * i0[2]), step)
}

/// The trilinear blend of the eight values `g` gives at the corners [`corners`] found.
#[inline(always)]
fn blend(t: [f32; 3], o: usize, [sx, sy, sz]: [usize; 3], g: impl Fn(usize) -> f32) -> f32 {
    let l = |o: usize| g(o) + t[0] * (g(o + sx) - g(o));
    let a0 = l(o) + t[1] * (l(o + sy) - l(o));
    let a1 = l(o + sz) + t[1] * (l(o + sz + sy) - l(o + sz));
    a0 + t[2] * (a1 - a0)
}

/// Trilinear sample of a cell-centred field of `d` at `p` (cell-centre coordinates),
/// clamped to the grid.
#[inline(always)]
fn trilerp(f: &[f32], d: Dims, p: [f32; 3]) -> f32 {
    let (t, o, s) = corners(d, p);
    blend(t, o, s, |i| f[i])
}

/// Trilinear sample of a cell-centred vector field.
#[inline(always)]
fn trilerp3(f: &[[f32; 3]], d: Dims, p: [f32; 3]) -> [f32; 3] {
    let flat: &[f32] = f.as_flattened();
    let (t, o, s) = corners(d, p);
    [0, 1, 2].map(|c| blend(t, o, s, |i| flat[3 * i + c]))
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
    out.par_chunks_mut(fd.nx * fd.ny)
        .enumerate()
        .for_each(|(k, plane)| {
            let z = coarse_pos(k, n);
            for j in 0..fd.ny {
                let y = coarse_pos(j, n);
                for i in 0..fd.nx {
                    plane[i + fd.nx * j] = trilerp(coarse, d, [coarse_pos(i, n), y, z]);
                }
            }
        });
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

/// The cells of `seed`, dilated by `reach` cells along each axis.
fn dilate(seed: Vec<bool>, d: Dims, reach: usize) -> Vec<bool> {
    // Separable dilation along x, y, z.
    let mut cur = seed;
    for (axis, stride, len) in [(0, 1, d.nx), (1, d.nx, d.ny), (2, d.nx * d.ny, d.nz)] {
        let mut next = cur.clone();
        for idx in 0..d.cells() {
            if !cur[idx] {
                continue;
            }
            let pos = match axis {
                0 => idx % d.nx,
                1 => (idx / d.nx) % d.ny,
                _ => idx / (d.nx * d.ny),
            };
            let lo = pos.saturating_sub(reach);
            let hi = (pos + reach).min(len - 1);
            for q in lo..=hi {
                next[idx - pos * stride + q * stride] = true;
            }
        }
        cur = next;
    }
    cur
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

    /// One step of `dt` seconds after the coarse solver's: `coarse` must carry density and
    /// velocity (and temperature and flame when the pass carries them).
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
        // Worked cells: near the coarse amounts (density, flame) or the fine ones, within a
        // trace's reach. A cell counts above 1e-3 of the field's largest value, the cut-off
        // the solver's scalar passes use (fading leaves traces of 1e-30 across the box). The
        // turbulence is held to the local speed, so a trace goes at most twice the fastest
        // coarse speed; one that outruns the reach on a peak of the noise reads zero there,
        // and the correction towards the coarse field (which the reach covers) keeps the
        // amounts.
        let vmax = vel
            .par_iter()
            .map(|v| v[0].abs().max(v[1].abs()).max(v[2].abs()))
            .reduce(|| 0.0f32, f32::max);
        let reach = ((2.0 * vmax * dt / h).ceil() as usize).min(d.nx.max(d.ny).max(d.nz)) + 1;
        let active: Vec<bool> = {
            let mut seed = self.held.clone();
            for f in self.fields.iter().filter(|f| f.non_negative) {
                if let Some(c) = coarse_field(coarse, f.name) {
                    let cut = 1e-3 * c.iter().fold(0.0f32, |m, &v| m.max(v.abs()));
                    for (s, &v) in seed.iter_mut().zip(c) {
                        *s |= v.abs() > cut;
                    }
                }
            }
            dilate(seed, d, reach)
        };
        // Noise coordinates: carried by the coarse flow where there is smoke (elsewhere they
        // wait), regenerated in turn.
        for set in 0..2 {
            let old = &self.coords[set];
            let moved: Vec<(usize, [f32; 3])> = (0..d.cells())
                .into_par_iter()
                .filter(|&idx| active[idx])
                .map(|idx| {
                    let (i, j, k) = (idx % d.nx, (idx / d.nx) % d.ny, idx / (d.nx * d.ny));
                    let u = vel[idx];
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
                    let v = [
                        c[0] + (p[0] - q[0]),
                        c[1] + (p[1] - q[1]),
                        c[2] + (p[2] - q[2]),
                    ];
                    (idx, v)
                })
                .collect();
            for (idx, v) in moved {
                self.coords[set][idx] = v;
            }
            self.ages[set] += dt;
            if self.ages[set] >= self.params.regenerate {
                self.ages[set] -= self.params.regenerate;
                self.coords[set] = self.fresh_coords(set);
            }
        }
        // The turbulent amplitude of each worked coarse cell: strength × √(2e), e the
        // unresolved energy, held to the cell's own speed (turbulence no stronger than the
        // flow; the energy estimate spikes where an emitter sets the velocity).
        let energy = turbulent_amplitude(vel, d, &active, self.params.strength);
        let weights = self.ages.map(|a| {
            let x = a / self.params.regenerate;
            1.0 - (2.0 * x - 1.0).abs()
        });
        let norm = (weights[0] * weights[0] + weights[1] * weights[1])
            .sqrt()
            .max(1e-6);
        let octaves = if n <= 2 { 1 } else { 2 };
        // The active coarse cells and, for each coarse cell, its block (u32::MAX: none).
        let list: Vec<u32> = (0..d.cells() as u32)
            .filter(|&c| active[c as usize])
            .collect();
        if std::env::var_os("PLUME_DETAIL_DEBUG").is_some() {
            eprintln!(
                "detail: {} of {} coarse cells active, reach {reach}",
                list.len(),
                d.cells()
            );
        }
        let mut block_of = vec![u32::MAX; d.cells()];
        for (b, &c) in list.iter().enumerate() {
            block_of[c as usize] = b as u32;
        }
        let fd = self.fine.dims;
        let fine_h = self.fine.h;
        let n3 = n * n * n;
        let ctx = Ctx {
            d,
            n,
            vel,
            energy: &energy,
            coords: &self.coords,
            weights,
            norm,
            octaves,
            tile: &self.tile,
            params: &self.params,
        };
        // The fine velocity's backtrace of every worked fine cell, a block of n³ per active
        // coarse cell (the same for every field).
        let mut back = vec![[0.0f32; 3]; list.len() * n3];
        back.par_chunks_mut(n3)
            .zip(list.par_iter())
            .for_each(|(blk, &c)| {
                let c = c as usize;
                let (ci, cj, ck) = (c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny));
                for (q, b) in blk.iter_mut().enumerate() {
                    let (di, dj, dk) = (q % n, (q / n) % n, q / (n * n));
                    let f = [ci * n + di, cj * n + dj, ck * n + dk];
                    let u = ctx.velocity(f.map(|x| coarse_pos(x, n)), [ci, cj, ck]);
                    *b = [0, 1, 2].map(|a| f[a] as f32 - u[a] * dt / fine_h);
                }
            });
        for fi in 0..self.fields.len() {
            let name = self.fields[fi].name;
            let Some(c_now) = coarse_field(coarse, name) else {
                continue;
            };
            // 1. The fine field traced back, block by block; each block's mean is the
            //    traced field's coarse part.
            let src = &self.fields[fi].values;
            let mut adv = vec![0.0f32; list.len() * n3];
            adv.par_chunks_mut(n3)
                .zip(back.par_chunks(n3))
                .for_each(|(blk, bk)| {
                    for (a, p) in blk.iter_mut().zip(bk) {
                        *a = trilerp(src, fd, *p);
                    }
                });
            let mut low = vec![0.0f32; d.cells()];
            for (b, &c) in list.iter().enumerate() {
                low[c as usize] = adv[b * n3..(b + 1) * n3].iter().sum::<f32>() / n3 as f32;
            }
            // 2. The traced field, corrected by what its coarse part lacks of the coarse
            //    field (interpolated): the fine field then averages back to the coarse one
            //    up to the interpolation's blur of that correction.
            let non_negative = self.fields[fi].non_negative;
            let fix: Vec<f32> = c_now.iter().zip(&low).map(|(c, l)| c - l).collect();
            if non_negative {
                // Amounts: only the worked blocks are computed; blocks the last step wrote
                // and this one does not are cleared, so the fine amounts stay zero outside
                // the worked cells.
                let cut = 1e-3 * c_now.iter().fold(0.0f32, |m, &v| m.max(v));
                let blocks: Vec<(f32, Vec<f32>)> = list
                    .par_iter()
                    .enumerate()
                    .map(|(bi, &c)| {
                        let c = c as usize;
                        let (ci, cj, ck) = (c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny));
                        let mut top = 0.0f32;
                        let vals = (0..n3)
                            .map(|q| {
                                let (di, dj, dk) = (q % n, (q / n) % n, q / (n * n));
                                let p = [ci * n + di, cj * n + dj, ck * n + dk]
                                    .map(|x| coarse_pos(x, n));
                                let v = (adv[bi * n3 + q] + trilerp(&fix, d, p)).max(0.0);
                                top = top.max(v);
                                v
                            })
                            .collect();
                        (top, vals)
                    })
                    .collect();
                let values = &mut self.fields[fi].values;
                let plane = fd.nx * fd.ny;
                let mut put = |c: usize, vals: &mut dyn FnMut(usize) -> f32| {
                    let (ci, cj, ck) = (c % d.nx, (c / d.nx) % d.ny, c / (d.nx * d.ny));
                    for dk in 0..n {
                        for dj in 0..n {
                            let row = ci * n + fd.nx * (cj * n + dj) + plane * (ck * n + dk);
                            for di in 0..n {
                                values[row + di] = vals(di + n * (dj + n * dk));
                            }
                        }
                    }
                };
                let stale = self.written.iter().zip(&active).enumerate();
                for (c, _) in stale.filter(|(_, (&w, &a))| w && !a) {
                    put(c, &mut |_| 0.0);
                }
                let mut held = vec![false; d.cells()];
                for (&c, (top, vals)) in list.iter().zip(&blocks) {
                    put(c as usize, &mut |q| vals[q]);
                    held[c as usize] = *top > cut;
                }
                if fi == 0 {
                    self.held = held;
                } else {
                    for (h, x) in self.held.iter_mut().zip(held) {
                        *h |= x;
                    }
                }
            } else {
                // Temperature: the coarse field interpolated outside the worked blocks.
                let adv = &adv;
                let (fix, block_of) = (&fix, &block_of);
                self.fields[fi]
                    .values
                    .par_chunks_mut(fd.nx * fd.ny)
                    .enumerate()
                    .for_each(|(k, plane)| {
                        let z = coarse_pos(k, n);
                        let (ck, dk) = (k / n, k % n);
                        for j in 0..fd.ny {
                            let y = coarse_pos(j, n);
                            let (cj, dj) = (j / n, j % n);
                            for i in 0..fd.nx {
                                let b = block_of[i / n + d.nx * (cj + d.ny * ck)];
                                let c = [coarse_pos(i, n), y, z];
                                plane[i + fd.nx * j] = if b == u32::MAX {
                                    trilerp(c_now, d, c)
                                } else {
                                    let q = i % n + n * (dj + n * dk);
                                    adv[b as usize * n3 + q] + trilerp(fix, d, c)
                                };
                            }
                        }
                    });
            }
        }
        self.written = active;
        self.last_ms = t0.elapsed().as_secs_f64() * 1e3;
    }
}

/// What one fine cell's velocity needs.
struct Ctx<'a> {
    d: Dims,
    n: usize,
    vel: &'a [[f32; 3]],
    /// Turbulent amplitude per coarse cell, u/s.
    energy: &'a [f32],
    coords: &'a [Vec<[f32; 3]>; 2],
    weights: [f32; 2],
    norm: f32,
    octaves: usize,
    tile: &'a noise::CurlTile,
    params: &'a DetailParams,
}

impl Ctx<'_> {
    /// The fine velocity at coarse cell-centre coordinates `c` inside coarse cell `cell`:
    /// the coarse velocity plus the turbulence of each octave above the coarse grid
    /// (Kolmogorov: amplitude 2^(−5/6) per octave). The energy and the noise coordinates are
    /// the cell's own, the coordinates moved on by the offset from the cell's centre.
    #[inline]
    fn velocity(&self, c: [f32; 3], cell: [usize; 3]) -> [f32; 3] {
        let mut u = trilerp3(self.vel, self.d, c);
        let idx = cell[0] + self.d.nx * (cell[1] + self.d.ny * cell[2]);
        let amp = self.energy[idx] / self.norm;
        if amp <= 0.0 {
            return u;
        }
        let per_cell = self.n as f32 / self.params.noise_scale;
        let off = [0, 1, 2].map(|a| c[a] - cell[a] as f32);
        for set in 0..2 {
            let w = self.weights[set];
            if w <= 0.0 {
                continue;
            }
            let t = self.coords[set][idx];
            let tc = [t[0] + off[0], t[1] + off[1], t[2] + off[2]];
            let mut a = amp * w;
            let mut freq = per_cell / (1 << (self.octaves - 1)) as f32;
            for _ in 0..self.octaves {
                a *= 0.561_231; // 2^(−5/6)
                let v = self.tile.sample([tc[0] * freq, tc[1] * freq, tc[2] * freq]);
                for k in 0..3 {
                    u[k] += a * v[k];
                }
                freq *= 2.0;
            }
        }
        u
    }
}

/// strength·√(2e) per worked cell (0 elsewhere), held to the cell's speed; e = ½|u − ū|²,
/// ū the mean over the 3×3×3 neighbourhood (clamped at the walls): the energy in the coarse
/// grid's top band, which Kolmogorov's cascade carries further down.
fn turbulent_amplitude(vel: &[[f32; 3]], d: Dims, active: &[bool], strength: f32) -> Vec<f32> {
    (0..d.cells())
        .into_par_iter()
        .map(|idx| {
            if !active[idx] {
                return 0.0;
            }
            let (i, j, k) = (idx % d.nx, (idx / d.nx) % d.ny, idx / (d.nx * d.ny));
            let mut m = [0.0f32; 3];
            for dk in [-1isize, 0, 1] {
                let kk = (k as isize + dk).clamp(0, d.nz as isize - 1) as usize;
                for dj in [-1isize, 0, 1] {
                    let jj = (j as isize + dj).clamp(0, d.ny as isize - 1) as usize;
                    for di in [-1isize, 0, 1] {
                        let ii = (i as isize + di).clamp(0, d.nx as isize - 1) as usize;
                        let v = vel[ii + d.nx * (jj + d.ny * kk)];
                        for c in 0..3 {
                            m[c] += v[c];
                        }
                    }
                }
            }
            let u = vel[idx];
            let dx = [0, 1, 2].map(|c| u[c] - m[c] / 27.0);
            let e = 0.5 * (dx[0] * dx[0] + dx[1] * dx[1] + dx[2] * dx[2]);
            let speed = (u[0] * u[0] + u[1] * u[1] + u[2] * u[2]).sqrt();
            (strength * (2.0 * e).sqrt()).min(speed)
        })
        .collect()
}

fn coarse_field<'a>(f: &'a Frame, name: &str) -> Option<&'a [f32]> {
    match name {
        "density" => f.density.as_deref(),
        "temperature" => f.temperature.as_deref(),
        "flame" => f.flame.as_deref(),
        _ => None,
    }
}
