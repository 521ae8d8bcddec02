//! Vorticity confinement in one pass over memory: the multi-pass form (cell velocities, then
//! ω and |ω|, then the force, then three passes adding it to the faces) read and wrote
//! about thirty arrays a grid in size per call; this one reads the three face components and
//! writes them back once. Each task streams its z-planes through rings of three planes
//! (cell velocity, ω and |ω|) and two of force, adding each plane's force to its faces as
//! soon as the planes after it no longer need the velocity it held. The operations are
//! those of the multi-pass form, value for value, so the result is the same bits, however
//! the planes are cut into tasks.
//!
//! A task reads a few planes on either side of its own; their neighbours write those, so
//! they are copied before any task starts. Within a task every plane is read before it is
//! written: the force on plane `k` needs the velocity up to plane `k + 2` (and `w` up to
//! `k + 3`), all still untouched when plane `k`'s faces are written.

use super::{curl_row, diff_across, diff_x, force_row, neighbours};
use crate::sim::grid::Dims;
#[cfg(target_arch = "x86_64")]
use crate::sim::trace16::Simd;
use rayon::prelude::*;
use std::cell::RefCell;

/// Planes a task reads beyond its own on each side.
const HALO: usize = 3;

thread_local! {
    /// The rings of the task a worker runs (kept from call to call).
    static RINGS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Adds `dt·ε·h·(N × ω)` to the interior faces, as the multi-pass form does, with the planes
/// cut into tasks as the thread pool suits.
pub(super) fn apply(d: Dims, h: f32, eps: f32, dt: f32, vel: [&mut [f32]; 3]) {
    // One run of planes a thread, of at least 16 planes: each task works out the planes
    // next to its own again (two a thread measured slower: 0.77 against 0.62 ms at 64³,
    // 4.6 against 4.3 at 128³, the minimum of alternated runs).
    let tasks = rayon::current_num_threads().clamp(1, d.nz.div_ceil(16).max(1));
    apply_in_tasks(d, h, eps, dt, vel, tasks);
}

/// [`apply`] with the planes cut into `tasks` runs (the result does not depend on how many).
pub(super) fn apply_in_tasks(
    d: Dims,
    h: f32,
    eps: f32,
    dt: f32,
    [u, v, w]: [&mut [f32]; 3],
    tasks: usize,
) {
    let nz = d.nz;
    let psize = [0, 1, 2].map(|a| d.faces(a).nx * d.faces(a).ny);
    let planes = [nz, nz, nz + 1];
    for (a, f) in [&*u, &*v, &*w].into_iter().enumerate() {
        assert_eq!(f.len(), psize[a] * planes[a]);
    }
    let per = nz.div_ceil(tasks.clamp(1, nz));
    let runs: Vec<[usize; 2]> = (0..nz)
        .step_by(per)
        .map(|k| [k, (k + per).min(nz)])
        .collect();
    // The neighbours' planes each task reads, copied before anything is written (each run's
    // in a task of its own: at 64³ 0.135 → 0.085 ms a call, against 0.8 for the stage).
    let halos: Vec<[[Vec<f32>; 2]; 3]> = runs
        .par_iter()
        .map(|&[k0, k1]| {
            let arrays = [&*u, &*v, &*w];
            [0, 1, 2].map(|a| {
                let ps = psize[a];
                let lo = k0.saturating_sub(HALO);
                let hi = (k1 + HALO).min(planes[a]);
                [
                    arrays[a][lo * ps..k0 * ps].to_vec(),
                    arrays[a][k1 * ps..hi * ps].to_vec(),
                ]
            })
        })
        .collect();
    // Each task's own planes, to read and then write.
    let mut own: Vec<[&mut [f32]; 3]> = Vec::with_capacity(runs.len());
    let (mut ru, mut rv, mut rw) = (u, v, &mut w[..nz * psize[2]]);
    for &[k0, k1] in &runs {
        let n = k1 - k0;
        let (a, b) = std::mem::take(&mut ru).split_at_mut(n * psize[0]);
        let (c, e) = std::mem::take(&mut rv).split_at_mut(n * psize[1]);
        let (f, g) = std::mem::take(&mut rw).split_at_mut(n * psize[2]);
        own.push([a, c, f]);
        (ru, rv, rw) = (b, e, g);
    }
    let scale = eps * h;
    own.into_par_iter()
        .zip(runs.par_iter())
        .zip(halos.par_iter())
        .for_each(|((own, &[k0, k1]), halo)| {
            RINGS.with_borrow_mut(|ring| {
                let mut t = Task {
                    d,
                    k0,
                    k1,
                    own,
                    halo,
                    inv_h: 1.0 / h,
                };
                t.run(scale, 0.5 * dt, ring);
            });
        });
}

/// One task: planes `k0..k1` of cells, with their faces (`w`'s planes `k0..k1` too: the
/// last one, on the domain's boundary, gets nothing).
struct Task<'a> {
    d: Dims,
    k0: usize,
    k1: usize,
    own: [&'a mut [f32]; 3],
    /// Per component, copies of the planes below `k0` and from `k1` on.
    halo: &'a [[Vec<f32>; 2]; 3],
    inv_h: f32,
}

impl Task<'_> {
    /// Plane `p` of face component `a`, from the task's own planes or the copies.
    #[inline(always)]
    fn plane(&self, a: usize, p: usize) -> &[f32] {
        let fd = self.d.faces(a);
        let ps = fd.nx * fd.ny;
        if p >= self.k0 && p < self.k1 {
            &self.own[a][(p - self.k0) * ps..][..ps]
        } else if p < self.k0 {
            let lo = self.k0.saturating_sub(HALO);
            &self.halo[a][0][(p - lo) * ps..][..ps]
        } else {
            &self.halo[a][1][(p - self.k1) * ps..][..ps]
        }
    }

    /// Cell-centred velocity of plane `p` into `out` (three planes of cells).
    #[inline(always)]
    fn cell_velocity(&self, p: usize, out: &mut [f32]) {
        let (nx, ny) = (self.d.nx, self.d.ny);
        let plane = nx * ny;
        let (u, v) = (self.plane(0, p), self.plane(1, p));
        let (w0, w1) = (self.plane(2, p), self.plane(2, p + 1));
        let (cx, rest) = out.split_at_mut(plane);
        let (cy, cz) = rest.split_at_mut(plane);
        for j in 0..ny {
            let o = j * nx;
            let ur = &u[j * (nx + 1)..][..nx + 1];
            for ((o, a), b) in cx[o..][..nx].iter_mut().zip(ur).zip(&ur[1..]) {
                *o = 0.5 * (a + b);
            }
            let (v0, v1) = (&v[o..][..nx], &v[o + nx..][..nx]);
            for ((o, a), b) in cy[o..][..nx].iter_mut().zip(v0).zip(v1) {
                *o = 0.5 * (a + b);
            }
            for ((o, a), b) in cz[o..][..nx]
                .iter_mut()
                .zip(&w0[o..][..nx])
                .zip(&w1[o..][..nx])
            {
                *o = 0.5 * (a + b);
            }
        }
    }

    /// The task's planes, compiled for AVX-512F where the processor has it (the same
    /// operations sixteen lanes wide: the same bits) unless `--no-simd` asked otherwise.
    fn run(&mut self, scale: f32, half_dt: f32, ring: &mut Vec<f32>) {
        #[cfg(target_arch = "x86_64")]
        match crate::sim::trace16::simd_level() {
            // SAFETY: the processor has AVX-512F (`simd_level` asked it).
            Simd::Avx512 => return unsafe { self.run_avx512(scale, half_dt, ring) },
            // SAFETY: the processor has AVX2 (`simd_level` asked it).
            Simd::Avx2 => return unsafe { self.run_avx2(scale, half_dt, ring) },
            Simd::Scalar => {}
        }
        self.run_any(scale, half_dt, ring)
    }

    /// [`Task::run`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(&mut self, scale: f32, half_dt: f32, ring: &mut Vec<f32>) {
        self.run_any(scale, half_dt, ring)
    }

    /// [`Task::run`] compiled for AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn run_avx512(&mut self, scale: f32, half_dt: f32, ring: &mut Vec<f32>) {
        self.run_any(scale, half_dt, ring)
    }

    /// The work of [`Task::run`], inlined into each of its versions.
    #[inline(always)]
    fn run_any(&mut self, scale: f32, half_dt: f32, ring: &mut Vec<f32>) {
        let d = self.d;
        let (nx, ny, nz) = (d.nx, d.ny, d.nz);
        let plane = nx * ny;
        // Rings: cell velocity (3 planes × 3), ω and |ω| (3 × 4), force (2 × 3), a row of
        // six differences.
        let (cv_len, om_len, f_len) = (9 * plane, 12 * plane, 6 * plane);
        ring.resize(cv_len + om_len + f_len + 6 * nx, 0.0);
        let (cv, rest) = ring.split_at_mut(cv_len);
        let (om, rest) = rest.split_at_mut(om_len);
        let (fr, sc) = rest.split_at_mut(f_len);
        let slot = |p: usize, each: usize| (p % 3) * each..(p % 3 + 1) * each;
        // The force is needed from the plane below the task's first (for its w-faces).
        let kf0 = self.k0.saturating_sub(1);
        let mut next_om = kf0.saturating_sub(1);
        let mut next_cv = next_om.saturating_sub(1);
        for k in kf0..self.k1 {
            while next_om <= (k + 1).min(nz - 1) {
                while next_cv <= (next_om + 1).min(nz - 1) {
                    self.cell_velocity(next_cv, &mut cv[slot(next_cv, 3 * plane)]);
                    next_cv += 1;
                }
                let p = next_om;
                let (c, o) = (&*cv, &mut om[slot(p, 4 * plane)]);
                let cvp = |q: usize, comp: usize| &c[slot(q, 3 * plane)][comp * plane..][..plane];
                let zn = neighbours(p, nz);
                let (s, rest) = sc.split_at_mut(3 * nx);
                let (s0, s) = s.split_at_mut(nx);
                let (s1, s2) = s.split_at_mut(nx);
                let (s3, rest) = rest.split_at_mut(nx);
                let (s4, s5) = rest.split_at_mut(nx);
                let (ox, rest) = o.split_at_mut(plane);
                let (oy, rest) = rest.split_at_mut(plane);
                let (oz, om_) = rest.split_at_mut(plane);
                for j in 0..ny {
                    let r = j * nx..(j + 1) * nx;
                    let yn = neighbours(j, ny);
                    let along_y = |comp: usize| {
                        let f = cvp(p, comp);
                        yn.map(|(a, b, s)| (&f[a * nx..][..nx], &f[b * nx..][..nx], s))
                    };
                    let along_z = |comp: usize| {
                        zn.map(|(a, b, s)| (&cvp(a, comp)[r.clone()], &cvp(b, comp)[r.clone()], s))
                    };
                    diff_across(s0, along_y(2));
                    diff_across(s1, along_z(1));
                    diff_across(s2, along_z(0));
                    diff_x(&cvp(p, 2)[r.clone()], s3);
                    diff_x(&cvp(p, 1)[r.clone()], s4);
                    diff_across(s5, along_y(0));
                    curl_row(
                        [s0, s1, s2, s3, s4, s5],
                        self.inv_h,
                        [
                            &mut ox[r.clone()],
                            &mut oy[r.clone()],
                            &mut oz[r.clone()],
                            &mut om_[r.clone()],
                        ],
                    );
                }
                next_om += 1;
            }
            // The force on plane k.
            {
                let o = &*om;
                let op = |q: usize, comp: usize| &o[slot(q, 4 * plane)][comp * plane..][..plane];
                let fk = &mut fr[(k % 2) * 3 * plane..][..3 * plane];
                let (fx, rest) = fk.split_at_mut(plane);
                let (fy, fz) = rest.split_at_mut(plane);
                let zn = neighbours(k, nz);
                let (g0, rest) = sc.split_at_mut(nx);
                let (g1, rest) = rest.split_at_mut(nx);
                let g2 = &mut rest[..nx];
                let mag = op(k, 3);
                for j in 0..ny {
                    let r = j * nx..(j + 1) * nx;
                    diff_x(&mag[r.clone()], g0);
                    diff_across(
                        g1,
                        neighbours(j, ny)
                            .map(|(a, b, s)| (&mag[a * nx..][..nx], &mag[b * nx..][..nx], s)),
                    );
                    diff_across(
                        g2,
                        zn.map(|(a, b, s)| (&op(a, 3)[r.clone()], &op(b, 3)[r.clone()], s)),
                    );
                    force_row(
                        [g0, g1, g2],
                        [
                            &op(k, 0)[r.clone()],
                            &op(k, 1)[r.clone()],
                            &op(k, 2)[r.clone()],
                            &mag[r.clone()],
                        ],
                        scale,
                        [&mut fx[r.clone()], &mut fy[r.clone()], &mut fz[r.clone()]],
                    );
                }
            }
            if k >= self.k0 {
                self.add_force(k, fr, half_dt);
            }
        }
    }

    /// Adds `half_dt·(F_a + F_b)` of the two cells beside each interior face of plane `k`
    /// (`forces`: the force ring, planes `k − 1` and `k`).
    #[inline(always)]
    fn add_force(&mut self, k: usize, forces: &[f32], half_dt: f32) {
        let d = self.d;
        let (nx, ny, nz) = (d.nx, d.ny, d.nz);
        let plane = nx * ny;
        let f = |q: usize, comp: usize| &forces[(q % 2) * 3 * plane + comp * plane..][..plane];
        let mean = |o: &mut [f32], a: &[f32], c: &[f32]| {
            for ((e, x), y) in o.iter_mut().zip(a).zip(c) {
                *e += half_dt * (x + y);
            }
        };
        let at = k - self.k0;
        let (fx, fy) = (f(k, 0), f(k, 1));
        let us = &mut self.own[0][at * (nx + 1) * ny..][..(nx + 1) * ny];
        for j in 0..ny {
            let c = &fx[j * nx..][..nx];
            mean(&mut us[j * (nx + 1) + 1..][..nx - 1], &c[..nx - 1], &c[1..]);
        }
        let vs = &mut self.own[1][at * (plane + nx)..][..plane + nx];
        // Rows 1..ny of v's plane: between cell rows j − 1 and j.
        mean(&mut vs[nx..plane], &fy[..plane - nx], &fy[nx..]);
        if k > 0 && k < nz {
            let ws = &mut self.own[2][at * plane..][..plane];
            mean(ws, f(k - 1, 2), f(k, 2));
        }
    }
}
