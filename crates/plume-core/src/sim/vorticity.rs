//! Vorticity confinement (Fedkiw, Stam and Jensen 2001): the grid's numerical dissipation
//! smears small swirls out; this force puts back what was lost around each swirl's core,
//! `f = ε·h·(N × ω)` with `ω = ∇ × u` and `N = ∇|ω| / |∇|ω||`.

use super::advect::VelocityRef;
use super::grid::Dims;
use super::pressure::operator::det_sum;
use rayon::prelude::*;

mod stream;

/// Vorticity confinement. It holds no fields of its own: [`Confinement::apply`] streams the
/// velocity through a few planes of scratch per worker thread.
#[derive(Clone, Copy, Debug, Default)]
pub struct Confinement;

/// Central differences along x of one row, one-sided at its ends (0 for a row one cell long).
#[inline(always)]
fn diff_x(r: &[f32], out: &mut [f32]) {
    let nx = r.len();
    let out = &mut out[..nx];
    if nx == 1 {
        out[0] = 0.0;
        return;
    }
    out[0] = r[1] - r[0];
    out[nx - 1] = r[nx - 1] - r[nx - 2];
    for ((o, a), b) in out[1..nx - 1].iter_mut().zip(&r[..nx - 2]).zip(&r[2..]) {
        *o = 0.5 * (b - a);
    }
}

/// The neighbours a difference at `p` along an axis `n` long takes, and its factor: central
/// inside, one-sided at the ends, none on an axis one cell long.
#[inline(always)]
fn neighbours(p: usize, n: usize) -> Option<(usize, usize, f32)> {
    match (p > 0, p + 1 < n) {
        (true, true) => Some((p - 1, p + 1, 0.5)),
        (false, true) => Some((p, p + 1, 1.0)),
        (true, false) => Some((p - 1, p, 1.0)),
        (false, false) => None,
    }
}

/// `out = s·(hi − lo)` element by element; `None` (no neighbours): zeros.
#[inline(always)]
fn diff_across(out: &mut [f32], pair: Option<(&[f32], &[f32], f32)>) {
    let Some((lo, hi, s)) = pair else {
        out.fill(0.0);
        return;
    };
    for ((o, a), b) in out.iter_mut().zip(lo).zip(hi) {
        *o = s * (b - a);
    }
}

/// Central differences of `f` along `axis` for the cells of row (j, k), one-sided at the
/// grid's ends (0 on an axis one cell long), into `out`.
#[inline(always)]
fn diff_row(f: &[f32], d: Dims, j: usize, k: usize, axis: usize, out: &mut [f32]) {
    let nx = d.nx;
    let out = &mut out[..nx];
    let row = |jj: usize, kk: usize| &f[d.idx(0, jj, kk)..][..nx];
    if axis == 0 {
        diff_x(row(j, k), out);
        return;
    }
    let (p, n) = if axis == 1 { (j, d.ny) } else { (k, d.nz) };
    let at = |q: usize| if axis == 1 { row(q, k) } else { row(j, q) };
    diff_across(out, neighbours(p, n).map(|(a, b, s)| (at(a), at(b), s)));
}

/// ω and |ω| of one row from its six differences (∂w/∂y, ∂v/∂z, ∂u/∂z, ∂w/∂x, ∂v/∂x,
/// ∂u/∂y, times h) into `[ωx, ωy, ωz, |ω|]`.
#[inline(always)]
fn curl_row(s: [&[f32]; 6], inv_h: f32, out: [&mut [f32]; 4]) {
    let [s0, s1, s2, s3, s4, s5] = s;
    let [rx, ry, rz, rm] = out;
    let n = rm.len();
    let (s0, s1, s2, s3, s4, s5) = (&s0[..n], &s1[..n], &s2[..n], &s3[..n], &s4[..n], &s5[..n]);
    let (rx, ry, rz) = (&mut rx[..n], &mut ry[..n], &mut rz[..n]);
    for t in 0..n {
        let a = (s0[t] - s1[t]) * inv_h;
        let b = (s2[t] - s3[t]) * inv_h;
        let c = (s4[t] - s5[t]) * inv_h;
        rx[t] = a;
        ry[t] = b;
        rz[t] = c;
        rm[t] = (a * a + b * b + c * c).sqrt();
    }
}

/// The confinement force `scale·(N × ω)` of one row from the gradient of |ω| (`g`, times h)
/// and `[ωx, ωy, ωz, |ω|]`.
#[inline(always)]
fn force_row(g: [&[f32]; 3], om: [&[f32]; 4], scale: f32, out: [&mut [f32]; 3]) {
    let [fx, fy, fz] = out;
    let n = fx.len();
    let (fy, fz) = (&mut fy[..n], &mut fz[..n]);
    let (g0, g1, g2) = (&g[0][..n], &g[1][..n], &g[2][..n]);
    let (o0, o1, o2, m) = (&om[0][..n], &om[1][..n], &om[2][..n], &om[3][..n]);
    for t in 0..n {
        let g = [g0[t], g1[t], g2[t]];
        let len = (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        // |∇|ω|| is per cell here; below a tiny fraction of |ω| there is no well-defined
        // direction to push. (The division is done for every cell and dropped where it is
        // not wanted: without a branch the loop vectorises.)
        let q = scale / len;
        let inv = if len <= 1e-6 * m[t] || len == 0.0 {
            0.0
        } else {
            q
        };
        let nv = [g[0] * inv, g[1] * inv, g[2] * inv];
        let o = [o0[t], o1[t], o2[t]];
        fx[t] = nv[1] * o[2] - nv[2] * o[1];
        fy[t] = nv[2] * o[0] - nv[0] * o[2];
        fz[t] = nv[0] * o[1] - nv[1] * o[0];
    }
}

/// Fills `cell` with the cell-centred velocity, `omega` with the vorticity (1/s) and `mag`
/// with |ω|.
fn vorticity(
    vel: VelocityRef<'_>,
    h: f32,
    cell: &mut [&mut [f32]; 3],
    omega: &mut [&mut [f32]; 3],
    mag: &mut [f32],
) {
    let d = vel.dims;
    let n = d.cells();
    assert!(cell.iter().chain(omega.iter()).all(|c| c.len() == n) && mag.len() == n);
    let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
    let nx = d.nx;
    fill3_rows(cell, d, |j, k, [cx, cy, cz], _| {
        let u = &vel.u[du.idx(0, j, k)..][..nx + 1];
        for ((o, a), b) in cx.iter_mut().zip(u).zip(&u[1..]) {
            *o = 0.5 * (a + b);
        }
        let (v0, v1) = (
            &vel.v[dv.idx(0, j, k)..][..nx],
            &vel.v[dv.idx(0, j + 1, k)..][..nx],
        );
        for ((o, a), b) in cy.iter_mut().zip(v0).zip(v1) {
            *o = 0.5 * (a + b);
        }
        let (w0, w1) = (
            &vel.w[dw.idx(0, j, k)..][..nx],
            &vel.w[dw.idx(0, j, k + 1)..][..nx],
        );
        for ((o, a), b) in cz.iter_mut().zip(w0).zip(w1) {
            *o = 0.5 * (a + b);
        }
    });
    let inv_h = 1.0 / h;
    let (cu, cv, cw) = (&*cell[0], &*cell[1], &*cell[2]);
    let plane = d.nx * d.ny;
    let [ox, oy, oz] = omega;
    ox.par_chunks_mut(plane)
        .zip(oy.par_chunks_mut(plane))
        .zip(oz.par_chunks_mut(plane).zip(mag.par_chunks_mut(plane)))
        .enumerate()
        .for_each_init(
            || vec![0.0f32; 6 * nx],
            |sc, (k, ((px, py), (pz, pm)))| {
                for j in 0..d.ny {
                    let (s0, rest) = sc.split_at_mut(nx);
                    let (s1, rest) = rest.split_at_mut(nx);
                    let (s2, rest) = rest.split_at_mut(nx);
                    let (s3, rest) = rest.split_at_mut(nx);
                    let (s4, s5) = rest.split_at_mut(nx);
                    diff_row(cw, d, j, k, 1, s0);
                    diff_row(cv, d, j, k, 2, s1);
                    diff_row(cu, d, j, k, 2, s2);
                    diff_row(cw, d, j, k, 0, s3);
                    diff_row(cv, d, j, k, 0, s4);
                    diff_row(cu, d, j, k, 1, s5);
                    let o = j * nx;
                    let (rx, ry, rz, rm) = (
                        &mut px[o..][..nx],
                        &mut py[o..][..nx],
                        &mut pz[o..][..nx],
                        &mut pm[o..][..nx],
                    );
                    curl_row([s0, s1, s2, s3, s4, s5], inv_h, [rx, ry, rz, rm]);
                }
            },
        );
}

/// Calls `f(j, k, rows, scratch)` for every row of the three cell-centred fields `out`, in
/// parallel over z-planes; `scratch` holds 3·nx floats.
fn fill3_rows(
    out: &mut [&mut [f32]; 3],
    d: Dims,
    f: impl Fn(usize, usize, [&mut [f32]; 3], &mut [f32]) + Sync,
) {
    let plane = d.nx * d.ny;
    let nx = d.nx;
    let [x, y, z] = out;
    x.par_chunks_mut(plane)
        .zip(y.par_chunks_mut(plane))
        .zip(z.par_chunks_mut(plane))
        .enumerate()
        .for_each_init(
            || vec![0.0f32; 3 * nx],
            |sc, (k, ((px, py), pz))| {
                for j in 0..d.ny {
                    let o = j * nx;
                    f(
                        j,
                        k,
                        [&mut px[o..][..nx], &mut py[o..][..nx], &mut pz[o..][..nx]],
                        sc,
                    );
                }
            },
        );
}

/// Σ|ω|·h³ over the grid: the total vorticity magnitude (domain-units³/s).
pub fn total_vorticity(vel: VelocityRef<'_>, h: f32) -> f64 {
    let n = vel.dims.cells();
    let mut buf = vec![0.0f32; 7 * n];
    let (cell, rest) = buf.split_at_mut(3 * n);
    let (omega, mag) = rest.split_at_mut(3 * n);
    let mut cell = split3(cell, n);
    let mut omega = split3(omega, n);
    vorticity(vel, h, &mut cell, &mut omega, mag);
    det_sum(mag) * (h as f64).powi(3)
}

/// Three consecutive arrays of `n` values.
fn split3(v: &mut [f32], n: usize) -> [&mut [f32]; 3] {
    let (a, rest) = v.split_at_mut(n);
    let (b, c) = rest.split_at_mut(n);
    [a, b, &mut c[..n]]
}

impl Confinement {
    /// Adds `dt·ε·h·(N × ω)` to the interior face velocities (each face gets the mean of its
    /// two cells). Faces on the domain's boundary get nothing, whatever their type: walls and
    /// inflows are fixed, and an open face's velocity is set by the projection (pressure 0
    /// outside); a force there would feed a flow in from outside that nothing balances.
    /// One pass over the velocity ([`stream`]), the same bits as the passes one after another.
    pub fn apply(&self, d: Dims, h: f32, eps: f32, dt: f32, vel: [&mut [f32]; 3]) {
        if eps == 0.0 {
            return;
        }
        stream::apply(d, h, eps, dt, vel);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The scratch the passes one after another work in: seven arrays of at least one value
    /// a cell (cell-centred velocity, later the force; vorticity; |ω|).
    type ConfinementScratch<'a> = [&'a mut [f32]; 7];

    /// The confinement as passes one after another (cell velocities, ω and |ω|, the force, the
    /// faces): what the one-pass form must give, bit for bit.
    fn apply_passes(
        d: Dims,
        h: f32,
        eps: f32,
        dt: f32,
        [u, v, w]: [&mut [f32]; 3],
        scratch: ConfinementScratch<'_>,
    ) {
        if eps == 0.0 {
            return;
        }
        let n = d.cells();
        let [c0, c1, c2, o0, o1, o2, m] = scratch;
        let mut cell = [&mut c0[..n], &mut c1[..n], &mut c2[..n]];
        let mut omega = [&mut o0[..n], &mut o1[..n], &mut o2[..n]];
        let mag = &mut m[..n];
        let vel = VelocityRef {
            dims: d,
            u: &*u,
            v: &*v,
            w: &*w,
        };
        vorticity(vel, h, &mut cell, &mut omega, mag);
        // Force per cell, written over the cell velocities.
        let (om, mag) = (&omega, &*mag);
        let scale = eps * h;
        let nx = d.nx;
        fill3_rows(&mut cell, d, |j, k, [fx, fy, fz], sc| {
            let (g0, rest) = sc.split_at_mut(nx);
            let (g1, g2) = rest.split_at_mut(nx);
            diff_row(mag, d, j, k, 0, g0);
            diff_row(mag, d, j, k, 1, g1);
            diff_row(mag, d, j, k, 2, g2);
            let base = d.idx(0, j, k);
            let (o0, o1, o2, m) = (
                &om[0][base..][..nx],
                &om[1][base..][..nx],
                &om[2][base..][..nx],
                &mag[base..][..nx],
            );
            force_row([g0, g1, g2], [o0, o1, o2, m], scale, [fx, fy, fz]);
        });
        let force = &cell;
        for (axis, f) in [u, v, w].into_iter().enumerate() {
            add_to_faces(d, axis, force[axis], dt, f);
        }
    }

    /// Adds `dt·` the mean of the two cells' values of `fc` to each interior face along `axis`;
    /// the faces on the domain's boundary get nothing.
    fn add_to_faces(d: Dims, axis: usize, fc: &[f32], dt: f32, f: &mut [f32]) {
        let fd = d.faces(axis);
        let nx = d.nx;
        let crow = |j: usize, k: usize| &fc[d.idx(0, j, k)..][..nx];
        let h = 0.5 * dt;
        let mean = |o: &mut [f32], a: &[f32], c: &[f32]| {
            for ((e, x), y) in o.iter_mut().zip(a).zip(c) {
                *e += h * (x + y);
            }
        };
        f.par_chunks_mut(fd.nx * fd.ny)
            .enumerate()
            .for_each(|(k, pl)| {
                for j in 0..fd.ny {
                    let row = &mut pl[j * fd.nx..][..fd.nx];
                    match axis {
                        0 => {
                            let c = crow(j, k);
                            mean(&mut row[1..nx], &c[..nx - 1], &c[1..]);
                        }
                        1 => {
                            if j > 0 && j < d.ny {
                                mean(row, crow(j - 1, k), crow(j, k));
                            }
                        }
                        _ => {
                            if k > 0 && k < d.nz {
                                mean(row, crow(j, k - 1), crow(j, k));
                            }
                        }
                    }
                }
            });
    }

    /// Face velocities of `f(x, y, z)` (world position, h = `h`) on a grid of `d` cells.
    fn faces(d: Dims, h: f32, f: impl Fn([f32; 3]) -> [f32; 3]) -> [Vec<f32>; 3] {
        std::array::from_fn(|a| {
            let fd = d.faces(a);
            let mut v = vec![0.0; fd.cells()];
            for k in 0..fd.nz {
                for j in 0..fd.ny {
                    for i in 0..fd.nx {
                        let mut p = [
                            (i as f32 + 0.5) * h,
                            (j as f32 + 0.5) * h,
                            (k as f32 + 0.5) * h,
                        ];
                        p[a] -= 0.5 * h;
                        v[fd.idx(i, j, k)] = f(p)[a];
                    }
                }
            }
            v
        })
    }

    #[test]
    fn a_linear_field_has_its_exact_curl_everywhere() {
        // A general linear field: its curl is constant and central or one-sided differences
        // are exact, at the grid's ends too.
        let d = Dims::new(7, 6, 5);
        let h = 0.1;
        let field = |[x, y, z]: [f32; 3]| {
            [
                0.3 * z - 0.5 * y + 0.2 * x,
                0.5 * x - 0.7 * z,
                0.7 * y - 0.3 * x + 0.1 * z,
            ]
        };
        // curl = (∂w/∂y − ∂v/∂z, ∂u/∂z − ∂w/∂x, ∂v/∂x − ∂u/∂y) = (0.7 + 0.7, 0.3 + 0.3, 0.5 + 0.5)
        let want = [1.4f32, 0.6, 1.0];
        let [u, v, w] = faces(d, h, field);
        let vel = VelocityRef {
            dims: d,
            u: &u,
            v: &v,
            w: &w,
        };
        let n = d.cells();
        let mut buf = vec![0.0f32; 7 * n];
        let (c, rest) = buf.split_at_mut(3 * n);
        let (o, mag) = rest.split_at_mut(3 * n);
        let (mut cell, mut omega) = (split3(c, n), split3(o, n));
        vorticity(vel, h, &mut cell, &mut omega, mag);
        let m = (want.iter().map(|x| x * x).sum::<f32>()).sqrt();
        for c in 0..d.cells() {
            for a in 0..3 {
                assert!(
                    (omega[a][c] - want[a]).abs() < 1e-3,
                    "cell {c} axis {a}: {}",
                    omega[a][c]
                );
            }
            assert!((mag[c] - m).abs() < 1e-3);
        }
        let total = total_vorticity(vel, h);
        let expect = m as f64 * d.cells() as f64 * (h as f64).powi(3);
        assert!(
            (total - expect).abs() < 1e-3 * expect,
            "{total} vs {expect}"
        );
    }

    #[test]
    fn confinement_pushes_across_the_gradient_of_vorticity_and_spares_walls() {
        // A swirl about the z axis whose strength grows with x: |ω| rises along +x, so
        // N = +x and f = ε·h·(N × ω) = ε·h·(x̂ × ω_z ẑ) = −ε·h·ω_z ŷ.
        let d = Dims::new(8, 8, 4);
        let h = 1.0 / 8.0;
        let [mut u, mut v, mut w] = faces(d, h, |[x, y, _]| {
            let s = 1.0 + x;
            [-s * (y - 0.5), s * (x - 0.5), 0.0]
        });
        let before_v = v.clone();
        Confinement.apply(d, h, 2.0, 0.1, [&mut u, &mut v, &mut w]);
        let dv = d.faces(1);
        // Interior y-faces moved towards −y where ω_z > 0.
        let c = dv.idx(4, 4, 2);
        assert!(v[c] < before_v[c], "{} vs {}", v[c], before_v[c]);
        // Wall faces (closed box) are untouched.
        for k in 0..dv.nz {
            for i in 0..dv.nx {
                for j in [0, d.ny] {
                    let f = dv.idx(i, j, k);
                    assert_eq!(v[f], before_v[f]);
                }
            }
        }
    }
    /// A velocity of pseudo-random values in [−1, 1) on `d`'s faces.
    fn noise(d: Dims, seed: u64) -> [Vec<f32>; 3] {
        let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        std::array::from_fn(|a| {
            (0..d.faces(a).cells())
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    (x >> 40) as f32 / (1u64 << 23) as f32 - 1.0
                })
                .collect()
        })
    }

    #[test]
    fn one_pass_gives_the_bits_of_the_passes_one_after_another() {
        // Grids with axes one, two and many cells long; the planes cut into 1 to 13 tasks
        // (runs of one plane included, whose halo planes are all their neighbours').
        for (case, d) in [
            Dims::new(9, 7, 11),
            Dims::new(5, 6, 1),
            Dims::new(1, 4, 6),
            Dims::new(6, 1, 5),
            Dims::new(4, 5, 2),
            Dims::new(16, 12, 23),
        ]
        .into_iter()
        .enumerate()
        {
            let vel = noise(d, case as u64 + 1);
            let mut want = vel.clone();
            let n = d.cells();
            let mut scratch: Vec<Vec<f32>> = (0..7).map(|i| vec![1e3 * i as f32; n]).collect();
            let [s0, s1, s2, s3, s4, s5, s6] = &mut scratch[..] else {
                unreachable!()
            };
            let [a, b, c] = &mut want;
            apply_passes(d, 0.07, 3.0, 0.01, [a, b, c], [s0, s1, s2, s3, s4, s5, s6]);
            assert_ne!(want, vel, "{d:?}: the force moved nothing");
            for tasks in [1, 2, 3, 5, 13] {
                let mut got = vel.clone();
                let [a, b, c] = &mut got;
                stream::apply_in_tasks(d, 0.07, 3.0, 0.01, [a, b, c], tasks);
                for ax in 0..3 {
                    let same = got[ax]
                        .iter()
                        .zip(&want[ax])
                        .all(|(g, w)| g.to_bits() == w.to_bits());
                    assert!(same, "{d:?}, {tasks} tasks, component {ax}");
                }
            }
        }
    }
}
