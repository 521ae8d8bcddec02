//! The 7-point operator `(c0 + a·n_p)·x_p − a·Σ x_nb = rhs_p` on a box region of an
//! x-fastest array ([`Stencil`]): the sum runs over the neighbours inside the region and `n_p`
//! counts them plus the sides marked Dirichlet (ghost value 0); other sides are zero-flux.
//! With `c0 = 1` it is backward-Euler diffusion (viscosity, smoke diffusion, in
//! `sim::diffuse`); with `c0 = 0, a = 1` the pressure Poisson equation, which the multigrid
//! and red-black SOR solvers of this folder take as their description of the domain's sides.
//!
//! Also here: the plain red-black Gauss-Seidel sweep with over-relaxation that the diffusion
//! solves use (red and black cells depend only on the other colour, so each half-sweep runs
//! in parallel over z-slabs with a result independent of the thread count), the
//! [`SolveStats`] every iterative solve reports, and [`det_sum`], the deterministic sum.

use rayon::prelude::*;

/// A box-shaped region of an x-fastest array and the operator on it.
#[derive(Clone, Copy, Debug)]
pub struct Stencil {
    /// Size of the region along x, y, z.
    pub dims: [usize; 3],
    /// Index in the array of the region's cell (0, 0, 0).
    pub offset: usize,
    /// Array stride between consecutive y rows.
    pub sy: usize,
    /// Array stride between consecutive z planes.
    pub sz: usize,
    /// `dirichlet[axis][side]`: the ghost cell beyond that side holds 0 (else zero flux).
    pub dirichlet: [[bool; 2]; 3],
    /// Diagonal constant (1 for diffusion, 0 for pressure).
    pub c0: f32,
    /// Coupling to each neighbour.
    pub a: f32,
}

/// A raw pointer that may cross threads. Red-black ordering guarantees that concurrent tasks
/// never write a cell another task reads or writes in the same half-sweep.
#[derive(Clone, Copy)]
struct SharedPtr(*mut f32);
// SAFETY: used only by `sweep`, where tasks write disjoint cells (one z-plane each, one colour)
// and read only cells of the other colour, which nobody writes during that half-sweep.
unsafe impl Send for SharedPtr {}
unsafe impl Sync for SharedPtr {}

impl SharedPtr {
    // A method call makes closures capture the whole (Send) wrapper, not its raw field.
    fn get(self) -> *mut f32 {
        self.0
    }
}

/// Outcome of an iterative solve.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct SolveStats {
    /// Full (red + black) iterations performed.
    pub iterations: u32,
    /// max|residual| / max|rhs| when the solve stopped (0 when the rhs is zero).
    pub relative_residual: f32,
    /// max|residual| / max|rhs| of the starting guess (0 when the rhs is zero).
    pub initial_residual: f32,
    /// max|rhs| over every cell, where the solver worked it out as that (the multigrid
    /// without obstacles, where every cell has an equation): the same value
    /// [`Stencil::max_abs`] gives, without another pass over the array.
    pub rhs_max: Option<f32>,
}

impl SolveStats {
    /// Average factor by which each iteration reduced the residual (1 when none ran).
    pub fn reduction_per_iteration(&self) -> f64 {
        if self.iterations == 0 || self.relative_residual <= 0.0 {
            return 1.0;
        }
        (self.initial_residual as f64 / self.relative_residual as f64)
            .powf(1.0 / self.iterations as f64)
    }
}

impl Stencil {
    /// A region covering a whole array of the given size, all sides zero-flux.
    pub fn whole(dims: [usize; 3], c0: f32, a: f32) -> Self {
        Self {
            dims,
            offset: 0,
            sy: dims[0],
            sz: dims[0] * dims[1],
            dirichlet: [[false; 2]; 3],
            c0,
            a,
        }
    }

    /// Reciprocal of the diagonal for each possible neighbour count 0..=6.
    fn inv_diag(&self) -> [f32; 7] {
        let mut t = [0.0f32; 7];
        for (n, v) in t.iter_mut().enumerate() {
            let d = self.c0 + self.a * n as f32;
            *v = if d > 0.0 { 1.0 / d } else { 0.0 };
        }
        t
    }

    fn check_len(&self, len: usize) {
        let [nx, ny, nz] = self.dims;
        let last = self.offset + (nx - 1) + (ny - 1) * self.sy + (nz - 1) * self.sz;
        assert!(
            nx > 0 && ny > 0 && nz > 0 && last < len,
            "stencil region exceeds the array"
        );
    }

    /// One half-sweep over the cells of `color` (0 red, 1 black) with relaxation `omega`.
    pub fn sweep(&self, x: &mut [f32], rhs: &[f32], omega: f32, color: usize) {
        self.check_len(x.len());
        assert_eq!(x.len(), rhs.len());
        let [nx, ny, nz] = self.dims;
        let (sy, sz, off, a) = (self.sy, self.sz, self.offset, self.a);
        let inv = self.inv_diag();
        let d = self.dirichlet;
        let xp = SharedPtr(x.as_mut_ptr());
        (0..nz).into_par_iter().for_each(|k| {
            let p = xp.get();
            for j in 0..ny {
                let row = off + j * sy + k * sz;
                let has_ym = j > 0;
                let has_yp = j + 1 < ny;
                let has_zm = k > 0;
                let has_zp = k + 1 < nz;
                let n_yz = (has_ym || d[1][0]) as usize
                    + (has_yp || d[1][1]) as usize
                    + (has_zm || d[2][0]) as usize
                    + (has_zp || d[2][1]) as usize;
                let start = (color + j + k) % 2;
                let interior_row = has_ym && has_yp && has_zm && has_zp && nx >= 3;
                if interior_row {
                    // Interior cells: six neighbours, no branches.
                    let inv6 = inv[6];
                    let mut i = if start == 0 { 2 } else { 1 };
                    while i + 1 < nx {
                        let c = row + i;
                        // SAFETY: 1 ≤ i ≤ nx−2 and the row has neighbours on all four other
                        // sides, so every index lies inside the region; colour argument as below.
                        unsafe {
                            let s = *p.add(c - 1)
                                + *p.add(c + 1)
                                + *p.add(c - sy)
                                + *p.add(c + sy)
                                + *p.add(c - sz)
                                + *p.add(c + sz);
                            let old = *p.add(c);
                            let gs = (*rhs.get_unchecked(c) + a * s) * inv6;
                            *p.add(c) = old + omega * (gs - old);
                        }
                        i += 2;
                    }
                }
                let mut i = start;
                while i < nx {
                    if interior_row && i > 0 && i + 1 < nx {
                        i += 2;
                        continue;
                    }
                    let c = row + i;
                    // SAFETY: every index is inside the region (checked by check_len); the cell
                    // written has this colour and lies in plane k, owned by this task; all cells
                    // read besides it have the other colour and are not written in this half-sweep.
                    unsafe {
                        let mut s = 0.0f32;
                        if has_ym {
                            s += *p.add(c - sy);
                        }
                        if has_yp {
                            s += *p.add(c + sy);
                        }
                        if has_zm {
                            s += *p.add(c - sz);
                        }
                        if has_zp {
                            s += *p.add(c + sz);
                        }
                        let mut n = n_yz;
                        if i > 0 {
                            s += *p.add(c - 1);
                            n += 1;
                        } else if d[0][0] {
                            n += 1;
                        }
                        if i + 1 < nx {
                            s += *p.add(c + 1);
                            n += 1;
                        } else if d[0][1] {
                            n += 1;
                        }
                        let old = *p.add(c);
                        let gs = (*rhs.get_unchecked(c) + a * s) * inv[n];
                        *p.add(c) = old + omega * (gs - old);
                    }
                    i += 2;
                }
            }
        });
    }

    /// Applies the operator: returns `max|rhs − A·x|` over the region (infinite if NaN).
    pub fn residual_max(&self, x: &[f32], rhs: &[f32]) -> f32 {
        self.check_len(x.len());
        assert_eq!(x.len(), rhs.len());
        let [nx, ny, nz] = self.dims;
        let (sy, sz, off, a, c0) = (self.sy, self.sz, self.offset, self.a, self.c0);
        let d = self.dirichlet;
        let diag6 = c0 + 6.0 * a;
        (0..nz)
            .into_par_iter()
            .map(|k| {
                let mut m = 0.0f32;
                let mut nan = false;
                for j in 0..ny {
                    let row = off + j * sy + k * sz;
                    let interior_row = j > 0 && j + 1 < ny && k > 0 && k + 1 < nz;
                    let generic = |i: usize| {
                        let c = row + i;
                        let mut s = 0.0f32;
                        let mut n = 0usize;
                        let nb = [
                            (i > 0, d[0][0], c.wrapping_sub(1)),
                            (i + 1 < nx, d[0][1], c + 1),
                            (j > 0, d[1][0], c.wrapping_sub(sy)),
                            (j + 1 < ny, d[1][1], c + sy),
                            (k > 0, d[2][0], c.wrapping_sub(sz)),
                            (k + 1 < nz, d[2][1], c + sz),
                        ];
                        for (inside, dir, idx) in nb {
                            if inside {
                                s += x[idx];
                                n += 1;
                            } else if dir {
                                n += 1;
                            }
                        }
                        rhs[c] - ((c0 + a * n as f32) * x[c] - a * s)
                    };
                    if interior_row && nx >= 3 {
                        let r0 = generic(0);
                        let r1 = generic(nx - 1);
                        nan |= r0.is_nan() || r1.is_nan();
                        m = m.max(r0.abs()).max(r1.abs());
                        let xc = &x[row..row + nx];
                        let xs = &x[row - sy + 1..row - sy + nx - 1];
                        let xn = &x[row + sy + 1..row + sy + nx - 1];
                        let xb = &x[row - sz + 1..row - sz + nx - 1];
                        let xf = &x[row + sz + 1..row + sz + nx - 1];
                        let rr = &rhs[row + 1..row + nx - 1];
                        let mut mm = 0.0f32;
                        for t in 0..nx - 2 {
                            let s = xc[t] + xc[t + 2] + xs[t] + xn[t] + xb[t] + xf[t];
                            let r = rr[t] - (diag6 * xc[t + 1] - a * s);
                            nan |= r.is_nan();
                            mm = mm.max(r.abs());
                        }
                        m = m.max(mm);
                    } else {
                        for i in 0..nx {
                            let r = generic(i);
                            nan |= r.is_nan();
                            m = m.max(r.abs());
                        }
                    }
                }
                // f32::max ignores NaN, so a NaN residual is reported as infinite.
                if nan {
                    f32::INFINITY
                } else {
                    m
                }
            })
            .reduce(|| 0.0, f32::max)
    }

    /// `max|v|` over the region.
    pub fn max_abs(&self, v: &[f32]) -> f32 {
        self.check_len(v.len());
        let [nx, ny, nz] = self.dims;
        (0..nz)
            .into_par_iter()
            .map(|k| {
                let mut m = 0.0f32;
                for j in 0..ny {
                    let row = self.offset + j * self.sy + k * self.sz;
                    for &e in &v[row..row + nx] {
                        m = m.max(e.abs());
                    }
                }
                m
            })
            .reduce(|| 0.0, f32::max)
    }

    /// Iterates red-black sweeps until `max|residual| ≤ tol·max|rhs|` or `max_iter` full
    /// iterations, checking the residual every `check_every` iterations and at the end.
    pub fn solve(
        &self,
        x: &mut [f32],
        rhs: &[f32],
        omega: f32,
        tol: f32,
        max_iter: u32,
        check_every: u32,
    ) -> SolveStats {
        let bnorm = self.max_abs(rhs);
        if bnorm == 0.0 {
            // The solution of A x = 0 is x = 0 (or a constant in the pure-Neumann case).
            if self.residual_max(x, rhs) > 0.0 {
                self.fill(x, 0.0);
            }
            return SolveStats::default();
        }
        let target = tol * bnorm;
        let mut res = self.residual_max(x, rhs);
        let initial = res / bnorm;
        let mut it = 0u32;
        while res > target && it < max_iter {
            let n = check_every.max(1).min(max_iter - it);
            for _ in 0..n {
                self.sweep(x, rhs, omega, 0);
                self.sweep(x, rhs, omega, 1);
            }
            it += n;
            res = self.residual_max(x, rhs);
        }
        SolveStats {
            iterations: it,
            relative_residual: res / bnorm,
            initial_residual: initial,
            rhs_max: None,
        }
    }

    /// Sets every cell of the region to `value`.
    pub fn fill(&self, x: &mut [f32], value: f32) {
        let [nx, ny, nz] = self.dims;
        for k in 0..nz {
            for j in 0..ny {
                let row = self.offset + j * self.sy + k * self.sz;
                x[row..row + nx].fill(value);
            }
        }
    }
}

/// Deterministic sum of a slice whatever the thread count: fixed-size chunks summed in
/// parallel (in f64, each in eight running sums that vectorise, where one running sum would
/// wait on each addition), then the partial sums added in order.
pub fn det_sum(v: &[f32]) -> f64 {
    const CHUNK: usize = 1 << 14;
    let parts: Vec<f64> = v
        .par_chunks(CHUNK)
        .map(|c| {
            let mut acc = [0.0f64; 8];
            let lanes = c.chunks_exact(8);
            let rest: f64 = lanes.remainder().iter().map(|&e| f64::from(e)).sum();
            for x in lanes {
                for l in 0..8 {
                    acc[l] += f64::from(x[l]);
                }
            }
            acc.iter().sum::<f64>() + rest
        })
        .collect();
    parts.iter().sum()
}

/// max|v| over a row in eight lanes; infinite when any entry is not finite.
#[inline(always)]
pub(crate) fn max_abs_row(v: &[f32]) -> f32 {
    match max_abs_lanes(v) {
        (m, false) => m,
        (_, true) => f32::INFINITY,
    }
}

/// max|v| over a row in eight running maxima (the loop vectorises; the maximum of a set does
/// not depend on the order it is taken in), NaN skipped as `f32::max` skips it, and whether
/// any entry is not finite.
#[inline(always)]
pub(crate) fn max_abs_lanes(v: &[f32]) -> (f32, bool) {
    let mut m = [0.0f32; 8];
    let mut poison = [0.0f32; 8];
    let c = v.chunks_exact(8);
    let rest = c.remainder();
    for x in c {
        for l in 0..8 {
            let a = x[l].abs();
            m[l] = if a > m[l] { a } else { m[l] };
            poison[l] += x[l] * 0.0;
        }
    }
    let mut mx = m.iter().fold(0.0f32, |a, &b| a.max(b));
    let mut p: f32 = poison.iter().sum();
    for &x in rest {
        mx = mx.max(x.abs());
        p += x * 0.0;
    }
    (mx, p != 0.0)
}

/// One cell's diagonal of the pressure operator on a `dims` grid whose fluid (active) cells
/// `act` gives: 0 when inactive, else its active neighbours plus `open_coef` for each open
/// side of the domain it touches (the finest grid's solids and every multigrid level).
pub(crate) fn diagonal_at(
    dims: [usize; 3],
    open: [[bool; 2]; 3],
    open_coef: f32,
    act: impl Fn([usize; 3]) -> bool,
    p: [usize; 3],
) -> f32 {
    if !act(p) {
        return 0.0;
    }
    let mut n = 0.0f32;
    for (axis, sides) in open.iter().enumerate() {
        for (side, &is_open) in sides.iter().enumerate() {
            let inside = if side == 0 {
                p[axis] > 0
            } else {
                p[axis] + 1 < dims[axis]
            };
            if inside {
                let mut q = p;
                if side == 0 {
                    q[axis] -= 1;
                } else {
                    q[axis] += 1;
                }
                n += if act(q) { 1.0 } else { 0.0 };
            } else {
                n += if is_open { open_coef } else { 0.0 };
            }
        }
    }
    n
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sum is exact where f64 holds it exactly (every value and partial sum a multiple of
    /// 1/64 below 2⁵³), whatever the length (several chunks, a ragged end, shorter than the
    /// eight lanes), and bitwise the same on one thread and on four for values it rounds.
    #[test]
    fn det_sum_is_exact_and_the_same_on_any_number_of_threads() {
        for n in [0usize, 5, 8, 13, 1 << 14, (1 << 14) * 3 + 7] {
            let v: Vec<f32> = (0..n)
                .map(|i| ((i * 37) % 1001) as f32 / 64.0 - 7.0)
                .collect();
            let want: f64 = v.iter().map(|&x| f64::from(x)).sum();
            assert_eq!(det_sum(&v), want, "n {n}");
        }
        let v: Vec<f32> = (0..100_003)
            .map(|i| (i as f32 * 0.618).sin() * 1e-3)
            .collect();
        let on = |t: usize| {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(t).build();
            pool.expect("pool").install(|| det_sum(&v))
        };
        assert_eq!(on(1).to_bits(), on(4).to_bits());
    }
}
