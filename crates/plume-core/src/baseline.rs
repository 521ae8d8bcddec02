//! A faithful serial port of the article's `FluidCubeStep` (Mike Ash, "Fluid Simulation for
//! Dummies", seed 001), used only as a benchmark baseline. The solver never uses it.
//!
//! It keeps the article's algorithm and its defects (the N−2 scaling, grid-dependent
//! diffusion, the collocated projection). Its two out-of-bounds reads, which in Rust would
//! abort, are the only changes: the corner `IX(0, 0, N)` in `set_bnd` reads `IX(0, 0, N-2)`,
//! and the advection backtrace is clamped to `N − 1.5` instead of `N + 0.5`.

/// The article's cube: N³ cells, collocated density and velocity.
pub struct FluidCube {
    n: usize,
    dt: f32,
    diff: f32,
    visc: f32,
    iter: usize,
    s: Vec<f32>,
    /// Dye density.
    pub density: Vec<f32>,
    vx: Vec<f32>,
    vy: Vec<f32>,
    vz: Vec<f32>,
    vx0: Vec<f32>,
    vy0: Vec<f32>,
    vz0: Vec<f32>,
}

impl FluidCube {
    /// `FluidCubeCreate(size, diffusion, viscosity, dt)` with `iter` solver iterations.
    pub fn new(n: usize, diffusion: f32, viscosity: f32, dt: f32, iter: usize) -> Self {
        let m = n * n * n;
        Self {
            n,
            dt,
            diff: diffusion,
            visc: viscosity,
            iter,
            s: vec![0.0; m],
            density: vec![0.0; m],
            vx: vec![0.0; m],
            vy: vec![0.0; m],
            vz: vec![0.0; m],
            vx0: vec![0.0; m],
            vy0: vec![0.0; m],
            vz0: vec![0.0; m],
        }
    }

    fn ix(&self, x: usize, y: usize, z: usize) -> usize {
        x + y * self.n + z * self.n * self.n
    }

    /// `FluidCubeAddDensity`.
    pub fn add_density(&mut self, x: usize, y: usize, z: usize, amount: f32) {
        let i = self.ix(x, y, z);
        self.density[i] += amount;
    }

    /// `FluidCubeAddVelocity`.
    pub fn add_velocity(&mut self, x: usize, y: usize, z: usize, v: [f32; 3]) {
        let i = self.ix(x, y, z);
        self.vx[i] += v[0];
        self.vy[i] += v[1];
        self.vz[i] += v[2];
    }

    /// `FluidCubeStep`.
    pub fn step(&mut self) {
        let (n, visc, diff, dt, it) = (self.n, self.visc, self.diff, self.dt, self.iter);
        diffuse(1, &mut self.vx0, &self.vx, visc, dt, it, n);
        diffuse(2, &mut self.vy0, &self.vy, visc, dt, it, n);
        diffuse(3, &mut self.vz0, &self.vz, visc, dt, it, n);
        project(
            &mut self.vx0,
            &mut self.vy0,
            &mut self.vz0,
            &mut self.vx,
            &mut self.vy,
            it,
            n,
        );
        advect(
            1,
            &mut self.vx,
            &self.vx0,
            &self.vx0,
            &self.vy0,
            &self.vz0,
            dt,
            n,
        );
        advect(
            2,
            &mut self.vy,
            &self.vy0,
            &self.vx0,
            &self.vy0,
            &self.vz0,
            dt,
            n,
        );
        advect(
            3,
            &mut self.vz,
            &self.vz0,
            &self.vx0,
            &self.vy0,
            &self.vz0,
            dt,
            n,
        );
        project(
            &mut self.vx,
            &mut self.vy,
            &mut self.vz,
            &mut self.vx0,
            &mut self.vy0,
            it,
            n,
        );
        diffuse(0, &mut self.s, &self.density, diff, dt, it, n);
        advect(
            0,
            &mut self.density,
            &self.s,
            &self.vx,
            &self.vy,
            &self.vz,
            dt,
            n,
        );
    }
}

fn set_bnd(b: i32, x: &mut [f32], n: usize) {
    let ix = |a: usize, b: usize, c: usize| a + b * n + c * n * n;
    let sgn = |cond: bool, v: f32| if cond { -v } else { v };
    for j in 1..n - 1 {
        for i in 1..n - 1 {
            x[ix(i, j, 0)] = sgn(b == 3, x[ix(i, j, 1)]);
            x[ix(i, j, n - 1)] = sgn(b == 3, x[ix(i, j, n - 2)]);
        }
    }
    for k in 1..n - 1 {
        for i in 1..n - 1 {
            x[ix(i, 0, k)] = sgn(b == 2, x[ix(i, 1, k)]);
            x[ix(i, n - 1, k)] = sgn(b == 2, x[ix(i, n - 2, k)]);
        }
    }
    for k in 1..n - 1 {
        for j in 1..n - 1 {
            x[ix(0, j, k)] = sgn(b == 1, x[ix(1, j, k)]);
            x[ix(n - 1, j, k)] = sgn(b == 1, x[ix(n - 2, j, k)]);
        }
    }
    let m = n - 1;
    x[ix(0, 0, 0)] = 0.33 * (x[ix(1, 0, 0)] + x[ix(0, 1, 0)] + x[ix(0, 0, 1)]);
    x[ix(0, m, 0)] = 0.33 * (x[ix(1, m, 0)] + x[ix(0, m - 1, 0)] + x[ix(0, m, 1)]);
    x[ix(0, 0, m)] = 0.33 * (x[ix(1, 0, m)] + x[ix(0, 1, m)] + x[ix(0, 0, m - 1)]);
    x[ix(0, m, m)] = 0.33 * (x[ix(1, m, m)] + x[ix(0, m - 1, m)] + x[ix(0, m, m - 1)]);
    x[ix(m, 0, 0)] = 0.33 * (x[ix(m - 1, 0, 0)] + x[ix(m, 1, 0)] + x[ix(m, 0, 1)]);
    x[ix(m, m, 0)] = 0.33 * (x[ix(m - 1, m, 0)] + x[ix(m, m - 1, 0)] + x[ix(m, m, 1)]);
    x[ix(m, 0, m)] = 0.33 * (x[ix(m - 1, 0, m)] + x[ix(m, 1, m)] + x[ix(m, 0, m - 1)]);
    x[ix(m, m, m)] = 0.33 * (x[ix(m - 1, m, m)] + x[ix(m, m - 1, m)] + x[ix(m, m, m - 1)]);
}

fn lin_solve(b: i32, x: &mut [f32], x0: &[f32], a: f32, c: f32, iter: usize, n: usize) {
    let c_recip = 1.0 / c;
    let ix = |a: usize, b: usize, c: usize| a + b * n + c * n * n;
    for _ in 0..iter {
        for m in 1..n - 1 {
            for j in 1..n - 1 {
                for i in 1..n - 1 {
                    x[ix(i, j, m)] = (x0[ix(i, j, m)]
                        + a * (x[ix(i + 1, j, m)]
                            + x[ix(i - 1, j, m)]
                            + x[ix(i, j + 1, m)]
                            + x[ix(i, j - 1, m)]
                            + x[ix(i, j, m + 1)]
                            + x[ix(i, j, m - 1)]))
                        * c_recip;
                }
            }
        }
        set_bnd(b, x, n);
    }
}

fn diffuse(b: i32, x: &mut [f32], x0: &[f32], diff: f32, dt: f32, iter: usize, n: usize) {
    let a = dt * diff * (n - 2) as f32 * (n - 2) as f32;
    lin_solve(b, x, x0, a, 1.0 + 6.0 * a, iter, n);
}

fn project(
    vx: &mut [f32],
    vy: &mut [f32],
    vz: &mut [f32],
    p: &mut [f32],
    div: &mut [f32],
    iter: usize,
    n: usize,
) {
    let ix = |a: usize, b: usize, c: usize| a + b * n + c * n * n;
    let nf = n as f32;
    for k in 1..n - 1 {
        for j in 1..n - 1 {
            for i in 1..n - 1 {
                div[ix(i, j, k)] = -0.5
                    * (vx[ix(i + 1, j, k)] - vx[ix(i - 1, j, k)] + vy[ix(i, j + 1, k)]
                        - vy[ix(i, j - 1, k)]
                        + vz[ix(i, j, k + 1)]
                        - vz[ix(i, j, k - 1)])
                    / nf;
                p[ix(i, j, k)] = 0.0;
            }
        }
    }
    set_bnd(0, div, n);
    set_bnd(0, p, n);
    lin_solve(0, p, div, 1.0, 6.0, iter, n);
    for k in 1..n - 1 {
        for j in 1..n - 1 {
            for i in 1..n - 1 {
                vx[ix(i, j, k)] -= 0.5 * (p[ix(i + 1, j, k)] - p[ix(i - 1, j, k)]) * nf;
                vy[ix(i, j, k)] -= 0.5 * (p[ix(i, j + 1, k)] - p[ix(i, j - 1, k)]) * nf;
                vz[ix(i, j, k)] -= 0.5 * (p[ix(i, j, k + 1)] - p[ix(i, j, k - 1)]) * nf;
            }
        }
    }
    set_bnd(1, vx, n);
    set_bnd(2, vy, n);
    set_bnd(3, vz, n);
}

#[allow(clippy::too_many_arguments)]
fn advect(
    b: i32,
    d: &mut [f32],
    d0: &[f32],
    vx: &[f32],
    vy: &[f32],
    vz: &[f32],
    dt: f32,
    n: usize,
) {
    let ix = |a: usize, b: usize, c: usize| a + b * n + c * n * n;
    let dtx = dt * (n - 2) as f32;
    let nf = n as f32;
    for k in 1..n - 1 {
        for j in 1..n - 1 {
            for i in 1..n - 1 {
                let mut x = i as f32 - dtx * vx[ix(i, j, k)];
                let mut y = j as f32 - dtx * vy[ix(i, j, k)];
                let mut z = k as f32 - dtx * vz[ix(i, j, k)];
                // The article clamps to N + 0.5, which reads one cell past the array; clamp to
                // the last cell's lower corner so i1 = i0 + 1 stays inside.
                x = x.max(0.5).min(nf - 1.5);
                y = y.max(0.5).min(nf - 1.5);
                z = z.max(0.5).min(nf - 1.5);
                let (i0, j0, k0) = (x.floor(), y.floor(), z.floor());
                let (s1, t1, u1) = (x - i0, y - j0, z - k0);
                let (s0, t0, u0) = (1.0 - s1, 1.0 - t1, 1.0 - u1);
                let (i0, j0, k0) = (i0 as usize, j0 as usize, k0 as usize);
                let (i1, j1, k1) = (i0 + 1, j0 + 1, k0 + 1);
                d[ix(i, j, k)] = s0
                    * (t0 * (u0 * d0[ix(i0, j0, k0)] + u1 * d0[ix(i0, j0, k1)])
                        + t1 * (u0 * d0[ix(i0, j1, k0)] + u1 * d0[ix(i0, j1, k1)]))
                    + s1 * (t0 * (u0 * d0[ix(i1, j0, k0)] + u1 * d0[ix(i1, j0, k1)])
                        + t1 * (u0 * d0[ix(i1, j1, k0)] + u1 * d0[ix(i1, j1, k1)]));
            }
        }
    }
    set_bnd(b, d, n);
}
