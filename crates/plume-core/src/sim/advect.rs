//! Semi-Lagrangian and MacCormack advection on the staggered grid: second-order (RK2)
//! traces, trilinear interpolation, outside air entering through open and inflow faces.
//!
//! Positions are in "cell-index space": world position = origin + X·h, so the centre of
//! cell i is at X = i + 0.5 and the x-face i (between cells i−1 and i) at X = i.

use super::grid::Dims;
use rayon::prelude::*;

use super::sample::touches_solid;
pub use super::sample::{
    face_stagger, halo_for_cfl, rk2, sample, stop_at_solid, window_planes, CellVelocity, Exits,
    Loc, Sampler, Stagger, VelSampler, VelWindow, VelocityRef, CENTER, CHUNK_PLANES,
};
use super::trace16;

/// Advects the face-velocity component along `axis` (`src` → `dst`) through `vel` for
/// `k_dt = dt/h` cells per unit velocity, along second-order (RK2) backtraces; a trace that
/// leaves through an open or inflow face takes the outside air's velocity from `exits`.
/// Faces on the two ends of `axis` whose flag in `fixed` is set (walls, inflows) are left
/// untouched.
pub fn advect_faces(
    axis: usize,
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    k_dt: f32,
    fixed: [bool; 2],
    exits: &Exits<'_>,
) {
    let mut vs = VelSampler::new(vel);
    face_pass(
        axis, dst, src, vel, &mut vs, -k_dt, fixed, exits, None, false,
    );
}

/// Advects the three face-velocity components (`src` → `dst`) through `src` itself over
/// `k_dt = dt/h` cells per unit velocity, as [`advect_faces`] does for one, with one
/// cell-centred sampler (`vs`, filled here window by window) for all three; with `mac` (MacCormack's
/// scratch for each component: φ̂, φ̃ and the clamping ranges), as [`maccormack_faces`].
/// `fixed[axis]` names the fixed ends of each component.
#[allow(clippy::too_many_arguments)]
pub fn advect_velocity(
    dst: [&mut [f32]; 3],
    src: [&[f32]; 3],
    dims: Dims,
    vs: &mut VelSampler,
    k_dt: f32,
    fixed: [[bool; 2]; 3],
    exits: &Exits<'_>,
    mut mac: Option<&mut [MacScratch; 3]>,
) {
    let vel = VelocityRef {
        dims,
        u: src[0],
        v: src[1],
        w: src[2],
    };
    for (a, dst) in dst.into_iter().enumerate() {
        match mac.as_deref_mut() {
            Some(m) => {
                let (hat, tilde, range) = &mut m[a];
                maccormack_faces(
                    a, dst, src[a], vel, vs, k_dt, fixed[a], exits, hat, tilde, range,
                );
            }
            None => face_pass(a, dst, src[a], vel, vs, -k_dt, fixed[a], exits, None, false),
        }
    }
}

/// MacCormack's scratch for one face-velocity component: φ̂, φ̃ and the clamping ranges.
pub type MacScratch = (Vec<f32>, Vec<f32>, Vec<[f32; 2]>);

#[allow(clippy::too_many_arguments)]
fn face_pass(
    axis: usize,
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    kt: f32,
    fixed: [bool; 2],
    exits: &Exits<'_>,
    range: Option<&mut [[f32; 2]]>,
    mark: bool,
) {
    match axis {
        0 => advect_faces_axis::<0>(dst, src, vel, vs, kt, fixed, exits, range, mark),
        1 => advect_faces_axis::<1>(dst, src, vel, vs, kt, fixed, exits, range, mark),
        _ => advect_faces_axis::<2>(dst, src, vel, vs, kt, fixed, exits, range, mark),
    }
}

/// MacCormack advection of the face-velocity component along `axis` (Selle et al. 2008, as
/// [`maccormack_cells_n`] for cells): `φ̂` by a backward RK2 trace (into `hat`, keeping the
/// range of the eight values interpolated in `range`), `φ̃` from `φ̂` by a forward trace
/// (into `tilde`), and `φ = φ̂ + ½(φⁿ − φ̃)` clamped to that range. Where the forward trace
/// leaves the samples (at a face of the domain) or touches a solid cell, the face keeps the
/// semi-Lagrangian `φ̂`. Fixed faces are left as in [`advect_faces`].
#[allow(clippy::too_many_arguments)]
pub fn maccormack_faces(
    axis: usize,
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    k_dt: f32,
    fixed: [bool; 2],
    exits: &Exits<'_>,
    hat: &mut [f32],
    tilde: &mut [f32],
    range: &mut [[f32; 2]],
) {
    face_pass(
        axis,
        hat,
        src,
        vel,
        vs,
        -k_dt,
        fixed,
        exits,
        Some(range),
        false,
    );
    face_pass(axis, tilde, hat, vel, vs, k_dt, fixed, exits, None, true);
    dst.par_iter_mut()
        .zip(hat.par_iter())
        .zip(tilde.par_iter())
        .zip(src.par_iter())
        .zip(range.par_iter())
        .for_each(|((((o, &h), &t), &s), &[lo, hi])| {
            *o = if t.is_finite() {
                let v = h + 0.5 * (s - t);
                let v = if v > lo { v } else { lo };
                if v < hi {
                    v
                } else {
                    hi
                }
            } else {
                h
            };
        });
}

/// Velocity at the x-faces of one row from two rows of cells-wide samples `r0`, `r1` (the
/// y- or z-faces below and above): the mean of the four around each x-face, the two cells
/// beside it clamped at the row's ends. `out` has one more entry than the rows.
#[inline(always)]
fn cross_x(out: &mut [f32], r0: &[f32], r1: &[f32]) {
    let n = r0.len();
    let (out, r1) = (&mut out[..n + 1], &r1[..n]);
    out[0] = 0.5 * (r0[0] + r1[0]);
    out[n] = 0.5 * (r0[n - 1] + r1[n - 1]);
    for i in 1..n {
        out[i] = 0.25 * (r0[i - 1] + r1[i - 1] + r0[i] + r1[i]);
    }
}

/// x-velocity at the cell-wide samples of one row, from the x-face rows `r0`, `r1` on either
/// side: the mean of the four x-faces around each sample.
#[inline(always)]
fn pair_x(out: &mut [f32], r0: &[f32], r1: &[f32]) {
    let n = r0.len() - 1;
    let (out, r1) = (&mut out[..n], &r1[..n + 1]);
    for i in 0..n {
        out[i] = 0.25 * (r0[i] + r1[i] + r0[i + 1] + r1[i + 1]);
    }
}

/// Element-wise mean of four rows.
#[inline(always)]
fn quad(out: &mut [f32], a: &[f32], b: &[f32], c: &[f32], d: &[f32]) {
    for ((((o, a), b), c), d) in out.iter_mut().zip(a).zip(b).zip(c).zip(d) {
        *o = 0.25 * (a + b + c + d);
    }
}

/// One pass over the faces of component `A`: the value of `src` at the RK2 trace over `kt`
/// cells per unit velocity (negative: backwards) from each face, outside air blended in
/// beyond open and inflow faces. With `range`, also the range of the eight values
/// interpolated (outside air included). With `mark`, a trace that leaves the samples or
/// touches a solid cell gives NaN (MacCormack's forward pass: no estimate there); without it,
/// traces stop at solid cells.
#[allow(clippy::too_many_arguments)]
fn advect_faces_axis<const A: usize>(
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    kt: f32,
    fixed: [bool; 2],
    exits: &Exits<'_>,
    range: Option<&mut [[f32; 2]]>,
    mark: bool,
) {
    let d = vel.dims;
    let fd = d.faces(A);
    assert_eq!(dst.len(), fd.cells());
    let samp = Sampler::new(src, fd);
    // The last sample on each axis of this component's array (its faces along A sit at
    // 0..=n_A, its samples across at cell centres 0..n−1).
    let last = [0, 1, 2].map(|b| (fd.as_array()[b] - 1) as f32);
    // Face array coordinates → cell-array coordinates.
    let mut shift = [0.0f32; 3];
    shift[A] = -0.5;
    let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
    assert_eq!(vel.u.len(), du.cells());
    assert_eq!(vel.v.len(), dv.cells());
    assert_eq!(vel.w.len(), dw.cells());
    let (nx, ny, nz) = (d.nx, d.ny, d.nz);
    let fnx = fd.nx;
    let urow = |j: usize, k: usize| &vel.u[du.idx(0, j, k)..][..nx + 1];
    let vrow = |j: usize, k: usize| &vel.v[dv.idx(0, j, k)..][..nx];
    let wrow = |j: usize, k: usize| &vel.w[dw.idx(0, j, k)..][..nx];
    // One entry per row of faces (with its row of ranges), traced a chunk of planes at a
    // time through the sampler's window.
    type FaceRow<'a> = (&'a mut [f32], Option<&'a mut [[f32; 2]]>);
    let (mut dst, mut range) = (dst, range);
    vs.chunks(vel, fd.nz, |c0, c1, win| {
        let len = (c1 - c0) * fnx * fd.ny;
        let mut ranges = range.as_mut().map(|r| split_front(r, len).chunks_mut(fnx));
        let rows: Vec<FaceRow<'_>> = split_front(&mut dst, len)
            .chunks_mut(fnx)
            .map(|o| (o, ranges.as_mut().and_then(|it| it.next())))
            .collect();
        rows.into_par_iter().enumerate().for_each_init(
            || vec![0.0f32; 6 * (nx + 1)],
            |sc, (r, (row, mut rg))| {
                let (j, k) = (r % fd.ny, c0 + r / fd.ny);
                // Faces on a wall along A keep their value.
                let (p, n) = if A == 1 { (j, ny) } else { (k, nz) };
                if A != 0 && ((p == 0 && fixed[0]) || (p == n && fixed[1])) {
                    return;
                }
                // The velocity at this row's faces, one component at a time.
                let (sc, ends) = sc.split_at_mut(3 * (nx + 1));
                let (vx, rest) = sc.split_at_mut(nx + 1);
                let (vy, vz) = rest.split_at_mut(nx + 1);
                match A {
                    0 => {
                        vx.copy_from_slice(urow(j, k));
                        cross_x(vy, vrow(j, k), vrow(j + 1, k));
                        cross_x(vz, wrow(j, k), wrow(j, k + 1));
                    }
                    1 => {
                        let (a0, a1) = (j.saturating_sub(1), j.min(ny - 1));
                        pair_x(vx, urow(a0, k), urow(a1, k));
                        vy[..nx].copy_from_slice(vrow(j, k));
                        quad(
                            vz,
                            wrow(a0, k),
                            wrow(a1, k),
                            wrow(a0, k + 1),
                            wrow(a1, k + 1),
                        );
                    }
                    _ => {
                        let (a0, a1) = (k.saturating_sub(1), k.min(nz - 1));
                        pair_x(vx, urow(j, a0), urow(j, a1));
                        quad(
                            vy,
                            vrow(j, a0),
                            vrow(j, a1),
                            vrow(j + 1, a0),
                            vrow(j + 1, a1),
                        );
                        vz[..nx].copy_from_slice(wrow(j, k));
                    }
                }
                let (i0, i1) = if A == 0 {
                    (usize::from(fixed[0]), fnx - usize::from(fixed[1]))
                } else {
                    (0, fnx)
                };
                let (y, z) = (j as f32, k as f32);
                let (ex, rest) = ends.split_at_mut(nx + 1);
                let (ey, ez) = rest.split_at_mut(nx + 1);
                let m = i1.saturating_sub(i0);
                trace16::rk2_row(
                    win,
                    i0,
                    [shift[0], y + shift[1], z + shift[2]],
                    [&vx[i0..i0 + m], &vy[i0..i0 + m], &vz[i0..i0 + m]],
                    kt,
                    [&mut ex[..m], &mut ey[..m], &mut ez[..m]],
                );
                for i in i0..i1 {
                    let p = [i as f32 + shift[0], y + shift[1], z + shift[2]];
                    let e = i - i0;
                    let mut b = [ex[e], ey[e], ez[e]];
                    let q = [b[0] - shift[0], b[1] - shift[1], b[2] - shift[2]];
                    if mark {
                        let off = (0..3).any(|a| !(q[a] >= 0.0 && q[a] <= last[a]));
                        if off || exits.solid.is_some_and(|m| touches_solid(m, d, b)) {
                            row[i] = f32::NAN;
                            continue;
                        }
                    } else if let Some(m) = exits.solid {
                        b = stop_at_solid(m, d, p, b);
                    }
                    let q = [b[0] - shift[0], b[1] - shift[1], b[2] - shift[2]];
                    let l = samp.locate(q);
                    let (v, lo, hi) = if rg.is_some() {
                        samp.at_and_range(&l)
                    } else {
                        (samp.at_loc(&l), 0.0, 0.0)
                    };
                    let (v, lo, hi) = match exits.blend(q, last) {
                        Some((w, air)) => {
                            let o = air[A];
                            (v + w * (o - v), lo.min(o), hi.max(o))
                        }
                        None => (v, lo, hi),
                    };
                    row[i] = v;
                    if let Some(r) = rg.as_deref_mut() {
                        r[i] = [lo, hi];
                    }
                }
            },
        );
    });
}

/// The first `len` values of `*s`, leaving the rest in `*s`.
fn split_front<'a, T>(s: &mut &'a mut [T], len: usize) -> &'a mut [T] {
    let (front, rest) = std::mem::take(s).split_at_mut(len);
    *s = rest;
    front
}

/// A cell-centred field to advect and the affine map `scale·φ + offset` applied to the result.
#[derive(Clone, Copy)]
pub struct Scalar<'a> {
    /// The field before the step.
    pub src: &'a [f32],
    /// Factor applied to the advected value.
    pub scale: f32,
    /// Added after scaling.
    pub offset: f32,
    /// The field's value in the air outside the domain (0 for density, the ambient
    /// temperature), which traces leaving through an open or inflow face sample.
    pub outside: f32,
}

/// Semi-Lagrangian advection of N cell-centred fields (`f[n].src` → `dst[n]`, result
/// `scale·φ + offset`: fading and cooling fused into the pass) in one pass along second-order
/// backtraces: each is located once and every field sampled there. A trace that leaves
/// through an open or inflow face (see `exits`) takes each field's outside value.
pub fn advect_cells_n<const N: usize>(
    dst: [&mut [f32]; N],
    f: [Scalar<'_>; N],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    k_dt: f32,
    exits: &Exits<'_>,
) {
    let samp = f.map(|s| Sampler::new(s.src, vel.dims));
    let last = last_cell(vel.dims);
    cell_pass(dst, [], vel, vs, -k_dt, exits.solid, |back, _| {
        let l = samp[0].locate(back);
        let w = exits.blend(back, last).map_or(0.0, |b| b.0);
        (
            std::array::from_fn(|n| {
                let v = samp[n].at_loc(&l);
                f[n].scale * (v + w * (f[n].outside - v)) + f[n].offset
            }),
            [],
        )
    });
}

/// The last cell centre on each axis in cell-array coordinates.
fn last_cell(d: Dims) -> [f32; 3] {
    let n = d.as_array();
    [0, 1, 2].map(|a| (n[a] - 1) as f32)
}

/// MacCormack advection (Selle, Fedkiw, Kim, Liu and Rossignac 2008) of N fields through the
/// same velocity: `φ̂` = a semi-Lagrangian step forward (into `hat`), `φ̃` = one back from `φ̂`,
/// and `φ = φ̂ + ½(φⁿ − φ̃)`, clamped to the range of the eight values of `φⁿ` that the forward
/// step interpolated between, so no new extrema appear; each result is `scale·φ + offset`.
/// Two passes in all: the first locates each backtrace once, samples every field there and
/// keeps the cell it fell in (4 bytes a cell for all the fields, in `cells`: the cell's
/// packed coordinates, and the top bit set where outside air was mixed in); the second
/// locates the forward trace once, samples every intermediate field there, and takes each
/// field's clamping range from its eight values around that kept cell (the same values the
/// first pass interpolated, so the same range as keeping it, in a quarter of the memory).
#[allow(clippy::too_many_arguments)]
pub fn maccormack_cells_n<const N: usize>(
    dst: [&mut [f32]; N],
    f: [Scalar<'_>; N],
    hat: [&mut [f32]; N],
    cells: &mut [u32],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    k_dt: f32,
    exits: &Exits<'_>,
) {
    let d = vel.dims;
    let s_src = f.map(|s| Sampler::new(s.src, d));
    let last = last_cell(d);
    let mut hat = hat;
    {
        let h: [&mut [f32]; N] = hat.each_mut().map(|h| &mut **h);
        cell_pass(h, [cells], vel, vs, -k_dt, exits.solid, |back, _| {
            let l = s_src[0].locate(back);
            let w = exits.blend(back, last).map_or(0.0, |b| b.0);
            let mut v = [0.0; N];
            for n in 0..N {
                let a = s_src[n].at_loc(&l);
                // Outside air mixed in (it joins the clamping range in the second pass).
                v[n] = if w > 0.0 {
                    a + w * (f[n].outside - a)
                } else {
                    a
                };
            }
            (v, [s_src[0].cell_code(&l) | u32::from(w > 0.0) << 31])
        });
    }
    let hat: [&[f32]; N] = hat.map(|h| &*h);
    let cells: &[u32] = cells;
    let s_hat = hat.map(|h| Sampler::new(h, d));
    // The forward trace must land where φ̂ is defined: between the first and last cell
    // centres. Where it would be clamped (next to a face), the error estimate is meaningless
    // and the cell keeps the semi-Lagrangian value.
    let inner = [0, 1, 2].map(|a| (d.as_array()[a] - 1) as f32);
    // The forward trace is not cut at solids: where it would reach one, the cell keeps the
    // semi-Lagrangian value instead.
    cell_pass(dst, [], vel, vs, k_dt, None, |fwd, c| {
        let clamped = (0..3).any(|a| !(fwd[a] >= 0.0 && fwd[a] <= inner[a]))
            || exits.solid.is_some_and(|m| touches_solid(m, d, fwd));
        if clamped {
            return (
                std::array::from_fn(|n| f[n].scale * hat[n][c] + f[n].offset),
                [],
            );
        }
        let lf = s_hat[0].locate(fwd);
        let code = cells[c];
        let back = s_src[0].cell_loc(code & !(1 << 31));
        (
            std::array::from_fn(|n| {
                let v = hat[n][c] + 0.5 * (f[n].src[c] - s_hat[n].at_loc(&lf));
                let (lo, hi) = s_src[n].range_loc(&back);
                let (lo, hi) = if code >> 31 != 0 {
                    let o = f[n].outside;
                    (lo.min(o), hi.max(o))
                } else {
                    (lo, hi)
                };
                let v = if v > lo { v } else { lo };
                let v = if v < hi { v } else { hi };
                f[n].scale * v + f[n].offset
            }),
            [],
        )
    });
}

/// One row of each output of [`cell_pass`].
type RowOut<'a, const N: usize, const M: usize> = ([&'a mut [f32]; N], [&'a mut [u32]; M]);

/// Runs `f(trace end, cell index)` for every cell, in parallel over rows a chunk of planes at
/// a time (see [`VelSampler::chunks`]), writing its N values to the N arrays of `dst` and its
/// M codes to the M arrays of `aux`. The trace is the second-order (RK2) one from the cell's
/// centre over `k` cells per unit velocity (−k_dt backwards, +k_dt forwards), in array
/// coordinates (cell i's sample sits at i).
fn cell_pass<const N: usize, const M: usize>(
    dst: [&mut [f32]; N],
    aux: [&mut [u32]; M],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    k: f32,
    solid: Option<&[u8]>,
    f: impl Fn([f32; 3], usize) -> ([f32; N], [u32; M]) + Sync,
) {
    let d = vel.dims;
    for o in &dst {
        assert_eq!(o.len(), d.cells());
    }
    for o in &aux {
        assert_eq!(o.len(), d.cells());
    }
    let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
    assert_eq!(vel.u.len(), du.cells());
    assert_eq!(vel.v.len(), dv.cells());
    assert_eq!(vel.w.len(), dw.cells());
    let (mut dst, mut aux) = (dst, aux);
    vs.chunks(vel, d.nz, |c0, c1, win| {
        // One entry per row of this chunk holding that row of every output.
        let len = (c1 - c0) * d.nx * d.ny;
        let mut di = dst.each_mut().map(|a| split_front(a, len).chunks_mut(d.nx));
        let mut ai = aux.each_mut().map(|a| split_front(a, len).chunks_mut(d.nx));
        let rows: Vec<RowOut<'_, N, M>> = (0..(c1 - c0) * d.ny)
            .map(|_| {
                (
                    std::array::from_fn(|n| di[n].next().expect("one row per (y, z)")),
                    std::array::from_fn(|n| ai[n].next().expect("one row per (y, z)")),
                )
            })
            .collect();
        rows.into_par_iter().enumerate().for_each_init(
            || vec![0.0f32; 6 * d.nx],
            |sc, (r, (mut out, mut out2))| {
                let nx = d.nx;
                let (j, kz) = (r % d.ny, c0 + r / d.ny);
                let ur = &vel.u[du.idx(0, j, kz)..][..nx + 1];
                let vb = &vel.v[dv.idx(0, j, kz)..][..nx];
                let vt = &vel.v[dv.idx(0, j + 1, kz)..][..nx];
                let wb = &vel.w[dw.idx(0, j, kz)..][..nx];
                let wf = &vel.w[dw.idx(0, j, kz + 1)..][..nx];
                let base = d.idx(0, j, kz);
                let [ux, uy, uz, ex, ey, ez] = split6(sc, nx);
                for i in 0..nx {
                    ux[i] = 0.5 * (ur[i] + ur[i + 1]);
                    uy[i] = 0.5 * (vb[i] + vt[i]);
                    uz[i] = 0.5 * (wb[i] + wf[i]);
                }
                let p0 = [0.0, j as f32, kz as f32];
                trace16::rk2_row(win, 0, p0, [ux, uy, uz], k, [ex, ey, ez]);
                for i in 0..nx {
                    let p = [i as f32, j as f32, kz as f32];
                    let mut end = [ex[i], ey[i], ez[i]];
                    if let Some(m) = solid {
                        end = stop_at_solid(m, d, p, end);
                    }
                    let (r, r2) = f(end, base + i);
                    for (a, v) in out.iter_mut().zip(r) {
                        a[i] = v;
                    }
                    for (a, v) in out2.iter_mut().zip(r2) {
                        a[i] = v;
                    }
                }
            },
        );
    });
}

/// Six consecutive runs of `n` values of `s`.
fn split6(s: &mut [f32], n: usize) -> [&mut [f32]; 6] {
    let mut it = s.chunks_exact_mut(n);
    std::array::from_fn(|_| it.next().expect("six runs of n values"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn noise(n: usize, seed: u32) -> Vec<f32> {
        let mut s = seed;
        (0..n)
            .map(|_| {
                s = s.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (s >> 8) as f32 / (1u32 << 24) as f32 - 0.5
            })
            .collect()
    }

    /// The face velocity the row-wise pass must use, written face by face: the component's own
    /// value, and for each other component the mean of its four samples around the face (half
    /// a cell back along the face's axis, clamped, and half a cell forward across).
    fn reference(axis: usize, src: &[f32], vel: VelocityRef<'_>, k_dt: f32) -> Vec<f32> {
        let d = vel.dims;
        let n = d.as_array();
        let fd = d.faces(axis);
        let samp = Sampler::new(src, fd);
        let comp = |b: usize, p: [usize; 3]| {
            let cd = d.faces(b);
            let c = vel.comp(b);
            let mut q0 = p;
            let mut q1 = p;
            q0[axis] = p[axis].saturating_sub(1);
            q1[axis] = p[axis].min(n[axis] - 1);
            let mut sum = 0.0;
            for q in [q0, q1] {
                let mut r = q;
                r[b] += 1;
                sum += c[cd.idx(q[0], q[1], q[2])] + c[cd.idx(r[0], r[1], r[2])];
            }
            0.25 * sum
        };
        let vs = VelSampler::new(vel);
        let mut out = vec![0.0; fd.cells()];
        for k in 0..fd.nz {
            for j in 0..fd.ny {
                for i in 0..fd.nx {
                    let p = [i, j, k];
                    let mut u = [0.0; 3];
                    for (b, ub) in u.iter_mut().enumerate() {
                        *ub = if b == axis {
                            vel.comp(b)[fd.idx(i, j, k)]
                        } else {
                            comp(b, p)
                        };
                    }
                    // The RK2 trace in cell coordinates, sampled in the face array's.
                    let mut p = [i as f32, j as f32, k as f32];
                    p[axis] -= 0.5;
                    let mut q = rk2(&vs, p, u, -k_dt);
                    q[axis] += 0.5;
                    out[fd.idx(i, j, k)] = samp.at(q);
                }
            }
        }
        out
    }

    #[test]
    fn row_wise_face_advection_matches_the_face_by_face_definition() {
        let d = Dims::new(7, 5, 6);
        let [u, v, w] = [0, 1, 2].map(|a| {
            noise(d.faces(a).cells(), 3 + a as u32)
                .iter()
                .map(|x| 3.0 * x)
                .collect::<Vec<f32>>()
        });
        let vel = VelocityRef {
            dims: d,
            u: &u,
            v: &v,
            w: &w,
        };
        for axis in 0..3 {
            let fd = d.faces(axis);
            let src = noise(fd.cells(), 11 + axis as u32);
            let want = reference(axis, &src, vel, 0.7);
            for fixed in [[false, false], [true, true], [true, false]] {
                let mut got = vec![-9.0; fd.cells()];
                advect_faces(axis, &mut got, &src, vel, 0.7, fixed, &Exits::default());
                for k in 0..fd.nz {
                    for j in 0..fd.ny {
                        for i in 0..fd.nx {
                            let p = [i, j, k][axis];
                            let end = [p == 0, p == d.as_array()[axis]];
                            let c = fd.idx(i, j, k);
                            if (end[0] && fixed[0]) || (end[1] && fixed[1]) {
                                assert_eq!(got[c], -9.0, "a fixed face was written");
                            } else {
                                assert!(
                                    (got[c] - want[c]).abs() <= 1e-6,
                                    "axis {axis} face {:?}: {} vs {}",
                                    [i, j, k],
                                    got[c],
                                    want[c]
                                );
                            }
                        }
                    }
                }
            }
        }
    }

    fn random_velocity(d: Dims, scale: f32, seed: u32) -> [Vec<f32>; 3] {
        [0, 1, 2].map(|a| {
            noise(d.faces(a).cells(), seed + a as u32)
                .iter()
                .map(|x| scale * x)
                .collect()
        })
    }

    /// A window of planes gives the whole grid's velocities to the bit, inside the window
    /// and outside it (worked out from the faces), at the edges, far away and at NaN.
    #[test]
    fn a_window_of_the_sampler_reads_as_the_whole_grid_does() {
        let d = Dims::new(9, 7, 29);
        let [u, v, w] = random_velocity(d, 4.0, 21);
        let vel = VelocityRef {
            dims: d,
            u: &u,
            v: &v,
            w: &w,
        };
        let whole = VelSampler::new(vel);
        let mut win = VelSampler::windowed(1);
        let offsets = noise(3999, 5);
        let (mut inside, mut outside, mut chunks) = (0, 0, 0);
        win.chunks(vel, d.nz, |c0, c1, vw| {
            chunks += 1;
            let (z0, z1) = (c0.saturating_sub(1), (c1 + 1).min(d.nz));
            for (n, o) in offsets.chunks(3).enumerate() {
                let z = c0 as f32 + o[2] * 24.0 + (n % 3) as f32;
                let mut p = [4.0 + 12.0 * o[0], 3.0 + 10.0 * o[1], z];
                if n % 97 == 0 {
                    p[n % 3] = f32::NAN;
                }
                let (a, b) = (vw.at_cell_coords(p), whole.at_cell_coords(p));
                assert_eq!(a.map(f32::to_bits), b.map(f32::to_bits), "at {p:?}");
                let k0 = if z > 0.0 {
                    z.min((d.nz - 1) as f32) as usize
                } else {
                    0
                };
                if k0 >= z0 && (k0 + 1).min(d.nz - 1) < z1 {
                    inside += 1;
                } else {
                    outside += 1;
                }
            }
        });
        assert_eq!(chunks, d.nz.div_ceil(CHUNK_PLANES));
        assert!(
            inside > 500 && outside > 500,
            "{inside} inside, {outside} outside"
        );
        assert_eq!(
            win.memory_bytes() as u64,
            VelSampler::bytes_for(d, 1),
            "the window holds chunk + 2 halo planes"
        );
        assert!(win.memory_bytes() < whole.memory_bytes() / 2);
    }

    /// Every pass gives the same bits through a window as through the whole grid, with flows
    /// fast enough that many midpoints fall outside the window.
    #[test]
    fn advection_through_a_window_matches_the_whole_grid_sampler() {
        let d = Dims::new(8, 6, 27);
        let [u, v, w] = random_velocity(d, 6.0, 40);
        let vel = VelocityRef {
            dims: d,
            u: &u,
            v: &v,
            w: &w,
        };
        let exits = Exits {
            sides: [
                [None, None],
                [None, Some([0.0; 3])],
                [Some([0.0, 0.0, 1.0]), None],
            ],
            solid: None,
        };
        let rho = noise(d.cells(), 8);
        let temp = noise(d.cells(), 9);
        let f = [&rho, &temp].map(|s| Scalar {
            src: s,
            scale: 0.9,
            offset: 0.1,
            outside: 0.3,
        });
        let run = |mut vs: VelSampler| {
            let n = d.cells();
            let (mut a, mut b) = (vec![0.0; n], vec![0.0; n]);
            let (mut h0, mut h1, mut cells) = (vec![0.0; n], vec![0.0; n], vec![0u32; n]);
            maccormack_cells_n(
                [&mut a, &mut b],
                f,
                [&mut h0, &mut h1],
                &mut cells,
                vel,
                &mut vs,
                0.8,
                &exits,
            );
            let (mut c, mut e) = (vec![0.0; n], vec![0.0; n]);
            advect_cells_n([&mut c, &mut e], f, vel, &mut vs, 0.8, &exits);
            let mut faces = [0, 1, 2].map(|a| vec![0.0; d.faces(a).cells()]);
            let mut mac: [MacScratch; 3] = [0, 1, 2].map(|a| {
                let m = d.faces(a).cells();
                (vec![0.0; m], vec![0.0; m], vec![[0.0; 2]; m])
            });
            let [f0, f1, f2] = &mut faces;
            let fixed = [[true, false], [false, true], [false, false]];
            advect_velocity(
                [f0, f1, f2],
                [&u, &v, &w],
                d,
                &mut vs,
                0.8,
                fixed,
                &exits,
                None,
            );
            let mut out = [
                a,
                b,
                c,
                e,
                faces[0].clone(),
                faces[1].clone(),
                faces[2].clone(),
            ];
            let [f0, f1, f2] = &mut faces;
            let m = Some(&mut mac);
            advect_velocity(
                [f0, f1, f2],
                [&u, &v, &w],
                d,
                &mut vs,
                0.8,
                fixed,
                &exits,
                m,
            );
            out[4].extend(faces.concat());
            out.map(|x| x.iter().map(|v| v.to_bits()).collect::<Vec<u32>>())
        };
        let whole = run(VelSampler::new(vel));
        let windowed = run(VelSampler::windowed(1));
        for (n, (a, b)) in whole.iter().zip(&windowed).enumerate() {
            assert_eq!(a, b, "output {n} differs");
        }
        assert!(whole[0].iter().any(|&x| f32::from_bits(x) != 0.0));
    }
}
