//! Semi-Lagrangian and MacCormack advection on the staggered grid: second-order (RK2)
//! traces, trilinear interpolation, outside air entering through open and inflow faces.
//!
//! Positions are in "cell-index space": world position = origin + X·h, so the centre of
//! cell i is at X = i + 0.5 and the x-face i (between cells i−1 and i) at X = i.

use super::grid::Dims;
use rayon::prelude::*;

use super::active::{Region, Span};
pub use super::sample::{
    face_stagger, halo_for_cfl, rk2, sample, stop_at_solid, window_planes, CellVelocity, Exits,
    Loc, Sampler, Stagger, VelSampler, VelWindow, VelocityRef, CENTER, CHUNK_PLANES,
};
use super::sample::{touches_solid, whole_area};
use super::trace16;

mod cells;
mod rows;
use cells::cell_pass;
use rows::{cross_x, pair_x, quad};

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
        axis,
        dst,
        src,
        vel,
        &mut vs,
        -k_dt,
        fixed,
        exits,
        Pass::Plain,
    );
}

/// Advects the three face-velocity components (`src` → `dst`) through `src` itself over
/// `k_dt = dt/h` cells per unit velocity, as [`advect_faces`] does for one, with one
/// cell-centred sampler (`vs`, filled here window by window) for all three; with `mac` (each
/// component's φ̂ and clamping ranges), by MacCormack's scheme, in two passes a component.
/// `fixed[axis]` names the fixed ends of each component (with `mac` they keep their value).
#[allow(clippy::too_many_arguments)]
pub fn advect_velocity(
    dst: [&mut [f32]; 3],
    src: [&[f32]; 3],
    dims: Dims,
    vs: &mut VelSampler,
    k_dt: f32,
    fixed: [[bool; 2]; 3],
    exits: &Exits<'_>,
    mac: Option<&mut [MacScratch; 3]>,
) {
    let vel = VelocityRef {
        dims,
        u: src[0],
        v: src[1],
        w: src[2],
    };
    let Some(mac) = mac else {
        advect_faces_together(dst, vel, vs, -k_dt, fixed, exits);
        return;
    };
    // MacCormack (Selle et al. 2008, as [`maccormack_cells_n`] for cells): φ̂ by a backward
    // trace, keeping the range of the eight values interpolated; φ̃ from φ̂ by a forward
    // trace; φ = φ̂ + ½(φⁿ − φ̃) clamped to that range, worked out in the forward pass as
    // each φ̃ is sampled (no φ̃ array), or φ̂ where the forward trace leaves the samples or
    // touches a solid cell.
    for (a, (dst, (hat, range))) in dst.into_iter().zip(mac.iter_mut()).enumerate() {
        face_pass(
            a,
            hat,
            src[a],
            vel,
            vs,
            -k_dt,
            fixed[a],
            exits,
            Pass::Back(range),
        );
        let finish = Finish {
            orig: src[a],
            range,
        };
        face_pass(
            a,
            dst,
            hat,
            vel,
            vs,
            k_dt,
            fixed[a],
            exits,
            Pass::Finish(finish),
        );
    }
}

/// MacCormack's scratch for one face-velocity component: φ̂ and the clamping ranges.
pub type MacScratch = (Vec<f32>, Vec<[f32; 2]>);

/// What a face pass does besides tracing and sampling.
enum Pass<'a> {
    /// Semi-Lagrangian: outside air blended in where a trace left through an open face.
    Plain,
    /// MacCormack's φ̂: as `Plain`, and the range of the eight values interpolated (outside
    /// air included) into the ranges given.
    Back(&'a mut [[f32; 2]]),
    /// MacCormack's φ̃, not kept: each face gets `φ = φ̂ + ½(φⁿ − φ̃)` clamped to its range,
    /// or φ̂ where the forward trace leaves the samples or touches a solid cell; fixed faces
    /// get φⁿ.
    Finish(Finish<'a>),
    /// MacCormack's φ̃ itself, NaN where the forward trace leaves the samples or touches a
    /// solid cell (the passes one after another, to test against).
    #[cfg(test)]
    Forward,
}

/// The faces' original values and clamping ranges, for MacCormack's last step.
#[derive(Clone, Copy)]
struct Finish<'a> {
    orig: &'a [f32],
    range: &'a [[f32; 2]],
}

/// MacCormack's last step at one face: `φ̂ + ½(φⁿ − φ̃)` clamped to `[lo, hi]`, or `φ̂`
/// where there is no estimate φ̃ (not finite).
#[inline(always)]
fn mac_step(h: f32, t: f32, s: f32, [lo, hi]: [f32; 2]) -> f32 {
    if t.is_finite() {
        let v = h + 0.5 * (s - t);
        let v = if v > lo { v } else { lo };
        if v < hi {
            v
        } else {
            hi
        }
    } else {
        h
    }
}

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
    pass: Pass<'_>,
) {
    match axis {
        0 => advect_faces_axis::<0>(dst, src, vel, vs, kt, fixed, exits, pass),
        1 => advect_faces_axis::<1>(dst, src, vel, vs, kt, fixed, exits, pass),
        _ => advect_faces_axis::<2>(dst, src, vel, vs, kt, fixed, exits, pass),
    }
}

/// One pass over the faces of component `A`: the value of `src` at the RK2 trace over `kt`
/// cells per unit velocity (negative: backwards) from each face, outside air blended in
/// beyond open and inflow faces, and what `pass` adds (see [`Pass`]). In MacCormack's
/// forward pass a trace that leaves the samples or touches a solid cell gives no estimate;
/// in the others traces stop at solid cells.
#[allow(clippy::too_many_arguments)]
fn advect_faces_axis<const A: usize>(
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    kt: f32,
    fixed: [bool; 2],
    exits: &Exits<'_>,
    pass: Pass<'_>,
) {
    let planes = vel.dims.faces(A).nz;
    let mut run = face_rows::<A>(dst, src, vel, kt, fixed, exits, pass);
    vs.chunks(vel, planes, |c0, c1, win| run(c0, c1, win));
}

/// The three semi-Lagrangian face passes of [`advect_velocity`] (as [`advect_faces_axis`]
/// does each) chunk by chunk: one window of the sampler serves all three.
#[allow(clippy::too_many_arguments)]
fn advect_faces_together(
    dst: [&mut [f32]; 3],
    vel: VelocityRef<'_>,
    vs: &mut VelSampler,
    kt: f32,
    fixed: [[bool; 2]; 3],
    exits: &Exits<'_>,
) {
    let [du, dv, dw] = dst;
    let mut ru = face_rows::<0>(du, vel.u, vel, kt, fixed[0], exits, Pass::Plain);
    let mut rv = face_rows::<1>(dv, vel.v, vel, kt, fixed[1], exits, Pass::Plain);
    let mut rw = face_rows::<2>(dw, vel.w, vel, kt, fixed[2], exits, Pass::Plain);
    let nz = vel.dims.nz;
    vs.chunks(vel, nz + 1, |c0, c1, win| {
        if c0 < nz {
            ru(c0, c1.min(nz), win);
            rv(c0, c1.min(nz), win);
        }
        rw(c0, c1, win);
    });
}

/// The work of [`advect_faces_axis`] on the planes `c0..c1` of component `A` (called for
/// consecutive chunks from plane 0, each with the sampler's window filled for it).
#[allow(clippy::too_many_arguments)]
fn face_rows<'a, const A: usize>(
    dst: &'a mut [f32],
    src: &'a [f32],
    vel: VelocityRef<'a>,
    kt: f32,
    fixed: [bool; 2],
    exits: &'a Exits<'a>,
    pass: Pass<'a>,
) -> impl FnMut(usize, usize, &VelWindow<'_>) + 'a {
    let d = vel.dims;
    let fd = d.faces(A);
    assert_eq!(dst.len(), fd.cells());
    // `mark`: the forward pass (a trace that leaves the samples or touches a solid cell gives
    // no estimate).
    let (range, finish, mark) = match pass {
        Pass::Plain => (None, None, false),
        Pass::Back(r) => (Some(r), None, false),
        Pass::Finish(f) => (None, Some(f), true),
        #[cfg(test)]
        Pass::Forward => (None, None, true),
    };
    if let Some(f) = finish {
        assert!(f.orig.len() == fd.cells() && f.range.len() == fd.cells());
    }
    // The cells φ̂'s samples fall in fit the packed codes (10 bits an axis) unless an axis
    // of this array has 1025 samples: then the samples and ranges are taken one at a time.
    let codes_fit = fd.as_array().iter().all(|&n| n <= 1024) && !per_face_forced();
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
    let urow = move |j: usize, k: usize| &vel.u[du.idx(0, j, k)..][..nx + 1];
    let vrow = move |j: usize, k: usize| &vel.v[dv.idx(0, j, k)..][..nx];
    let wrow = move |j: usize, k: usize| &vel.w[dw.idx(0, j, k)..][..nx];
    // One entry per row of faces (with its row of ranges), traced a chunk of planes at a
    // time through the sampler's window.
    type FaceRow<'a> = (&'a mut [f32], Option<&'a mut [[f32; 2]]>);
    let (mut dst, mut range) = (dst, range);
    move |c0: usize, c1: usize, win: &VelWindow<'_>| {
        let len = (c1 - c0) * fnx * fd.ny;
        let mut ranges = range.as_mut().map(|r| split_front(r, len).chunks_mut(fnx));
        let rows: Vec<FaceRow<'_>> = split_front(&mut dst, len)
            .chunks_mut(fnx)
            .map(|o| (o, ranges.as_mut().and_then(|it| it.next())))
            .collect();
        rows.into_par_iter().enumerate().for_each_init(
            || (vec![0.0f32; 9 * (nx + 1)], vec![0u32; nx + 1]),
            |(sc, codes), (r, (row, mut rg))| {
                let (j, k) = (r % fd.ny, c0 + r / fd.ny);
                // The row's first face in the whole array (for MacCormack's last step).
                let base = (c0 * fd.ny + r) * fnx;
                let fin = finish.map(|f| (&f.orig[base..][..fnx], &f.range[base..][..fnx]));
                // Faces on a wall along A keep their value.
                let (p, n) = if A == 1 { (j, ny) } else { (k, nz) };
                // MacCormack's φ̂ of a fixed face is its value too: the last step's forward
                // traces sample φ̂ next to it (an inflow's speed, not a stale 0).
                let own = &src[base..][..fnx];
                if A != 0 && ((p == 0 && fixed[0]) || (p == n && fixed[1])) {
                    if let Some((orig, _)) = fin {
                        row.copy_from_slice(orig);
                    } else if rg.is_some() {
                        row.copy_from_slice(own);
                    }
                    return;
                }
                // The velocity at this row's faces, one component at a time.
                let [vx, vy, vz, ex, ey, ez, vals, lo, hi] = runs(sc, nx + 1);
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
                if let Some((orig, _)) = fin {
                    row[..i0].copy_from_slice(&orig[..i0]);
                    row[i1..].copy_from_slice(&orig[i1..]);
                } else if rg.is_some() {
                    row[..i0].copy_from_slice(&own[..i0]);
                    row[i1..].copy_from_slice(&own[i1..]);
                }
                let (y, z) = (j as f32, k as f32);
                let m = i1.saturating_sub(i0);
                trace16::rk2_row(
                    win,
                    i0,
                    [shift[0], y + shift[1], z + shift[2]],
                    [&vx[i0..i0 + m], &vy[i0..i0 + m], &vz[i0..i0 + m]],
                    kt,
                    [&mut ex[..m], &mut ey[..m], &mut ez[..m]],
                );
                // The traces' ends in the array's coordinates (NaN: no estimate, in
                // MacCormack's forward pass), cut at solids, then sampled all at once.
                let (ex, ey, ez) = (&mut ex[..m], &mut ey[..m], &mut ez[..m]);
                if let (Some((orig, rng)), None) = (fin, exits.solid) {
                    // MacCormack's forward pass without solids, a loop over the row at a
                    // time (the same values as the face-by-face loops below: a kept trace
                    // lies inside the samples, where no outside air is mixed in).
                    let vals = &mut vals[..m];
                    for e in 0..m {
                        let q = [ex[e] - shift[0], ey[e] - shift[1], ez[e] - shift[2]];
                        let inside = |a: usize| q[a] >= 0.0 && q[a] <= last[a];
                        ex[e] = if inside(0) & inside(1) & inside(2) {
                            q[0]
                        } else {
                            f32::NAN
                        };
                        (ey[e], ez[e]) = (q[1], q[2]);
                    }
                    trace16::sample_row(&[samp], [ex, ey, ez], [&mut *vals], None);
                    let (row, h) = (&mut row[i0..i0 + m], &src[base + i0..][..m]);
                    let (orig, rng) = (&orig[i0..i0 + m], &rng[i0..i0 + m]);
                    for e in 0..m {
                        let t = if ex[e].is_nan() { f32::NAN } else { vals[e] };
                        row[e] = mac_step(h[e], t, orig[e], rng[e]);
                    }
                    return;
                }
                if !mark && exits.solid.is_none() {
                    // Most passes: only the shift (a loop that vectorises).
                    for ((x, y), z) in ex.iter_mut().zip(ey.iter_mut()).zip(ez.iter_mut()) {
                        (*x, *y, *z) = (*x - shift[0], *y - shift[1], *z - shift[2]);
                    }
                } else {
                    for e in 0..m {
                        let i = i0 + e;
                        let p = [i as f32 + shift[0], y + shift[1], z + shift[2]];
                        let mut b = [ex[e], ey[e], ez[e]];
                        if mark {
                            let q = [b[0] - shift[0], b[1] - shift[1], b[2] - shift[2]];
                            let off = (0..3).any(|a| !(q[a] >= 0.0 && q[a] <= last[a]));
                            if off || exits.solid.is_some_and(|m| touches_solid(m, d, b)) {
                                ex[e] = f32::NAN;
                                continue;
                            }
                        } else if let Some(m) = exits.solid {
                            b = stop_at_solid(m, d, p, b);
                        }
                        (ex[e], ey[e], ez[e]) = (b[0] - shift[0], b[1] - shift[1], b[2] - shift[2]);
                    }
                }
                let vals = &mut vals[..m];
                let q = [&ex[..], &ey[..], &ez[..]];
                if let (Some(r), true) = (rg.as_deref_mut(), codes_fit) {
                    // φ̂ sixteen at a time with the cells the samples fell in, then the
                    // ranges around those cells: bit for bit `at_and_range` (below).
                    let (codes, lo, hi) = (&mut codes[..m], &mut lo[..m], &mut hi[..m]);
                    trace16::sample_row(&[samp], q, [&mut *vals], Some(&mut *codes));
                    trace16::range_row(&[samp], codes, [&mut *lo], [&mut *hi]);
                    let (row, r) = (&mut row[i0..i0 + m], &mut r[i0..i0 + m]);
                    let blend = exits.may_blend(q, last);
                    for e in 0..m {
                        let (v, lo, hi) = (vals[e], lo[e], hi[e]);
                        let air = if blend {
                            exits.blend([ex[e], ey[e], ez[e]], last)
                        } else {
                            None
                        };
                        let (v, lo, hi) = match air {
                            Some((w, air)) => {
                                let o = air[A];
                                (v + w * (o - v), lo.min(o), hi.max(o))
                            }
                            None => (v, lo, hi),
                        };
                        row[e] = v;
                        r[e] = [lo, hi];
                    }
                    return;
                }
                if rg.is_none() {
                    trace16::sample_row(&[samp], q, [&mut *vals], None);
                    if !mark {
                        // The semi-Lagrangian pass: the samples, then outside air where a
                        // trace left through an open or inflow face.
                        row[i0..i0 + m].copy_from_slice(vals);
                        if !exits.may_blend(q, last) {
                            return;
                        }
                        for e in 0..m {
                            let q = [ex[e], ey[e], ez[e]];
                            if let Some((w, air)) = exits.blend(q, last) {
                                let v = vals[e];
                                row[i0 + e] = v + w * (air[A] - v);
                            }
                        }
                        return;
                    }
                }
                for e in 0..m {
                    let i = i0 + e;
                    let q = [ex[e], ey[e], ez[e]];
                    // In the forward pass every trace kept lies inside the samples.
                    if mark && q[0].is_nan() {
                        row[i] = match fin {
                            Some((orig, rng)) => mac_step(src[base + i], f32::NAN, orig[i], rng[i]),
                            None => f32::NAN,
                        };
                        continue;
                    }
                    let (v, lo, hi) = if rg.is_some() {
                        samp.at_and_range(&samp.locate(q))
                    } else {
                        (vals[e], 0.0, 0.0)
                    };
                    let (v, lo, hi) = match exits.blend(q, last) {
                        Some((w, air)) => {
                            let o = air[A];
                            (v + w * (o - v), lo.min(o), hi.max(o))
                        }
                        None => (v, lo, hi),
                    };
                    row[i] = match fin {
                        Some((orig, rng)) => mac_step(src[base + i], v, orig[i], rng[i]),
                        None => v,
                    };
                    if let Some(r) = rg.as_deref_mut() {
                        r[i] = [lo, hi];
                    }
                }
            },
        );
    }
}

/// Set by tests: φ̂'s samples and ranges taken one at a time (the path for arrays with an
/// axis of 1025 samples), to check the sixteen-at-a-time path against.
#[cfg(test)]
pub(crate) static PER_FACE: std::sync::atomic::AtomicBool =
    std::sync::atomic::AtomicBool::new(false);

/// Whether a test asked for [`PER_FACE`].
#[inline(always)]
fn per_face_forced() -> bool {
    #[cfg(test)]
    {
        PER_FACE.load(std::sync::atomic::Ordering::Relaxed)
    }
    #[cfg(not(test))]
    {
        false
    }
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
    region: Option<&Region>,
) {
    let samp = f.map(|s| Sampler::new(s.src, vel.dims));
    let last = last_cell(vel.dims);
    cell_pass(
        dst,
        [],
        vel,
        vs,
        -k_dt,
        exits.solid,
        region,
        f.map(|f| f.scale * f.outside + f.offset),
        |ends, _, mut out, _, _| {
            trace16::sample_row(&samp, ends, out.each_mut().map(|o| &mut **o), None);
            if !exits.may_blend(ends, last) {
                // No outside air: the loop below with w = 0, the same operations (so −0 and
                // infinities come out the same), without a branch per point.
                let w = 0.0f32;
                for (o, f) in out.iter_mut().zip(&f) {
                    for v in o.iter_mut() {
                        *v = f.scale * (*v + w * (f.outside - *v)) + f.offset;
                    }
                }
                return;
            }
            for m in 0..ends[0].len() {
                let back = [ends[0][m], ends[1][m], ends[2][m]];
                let w = exits.blend(back, last).map_or(0.0, |b| b.0);
                for (o, f) in out.iter_mut().zip(&f) {
                    let v = o[m];
                    o[m] = f.scale * (v + w * (f.outside - v)) + f.offset;
                }
            }
        },
    );
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
    region: Option<&Region>,
) {
    let d = vel.dims;
    let s_src = f.map(|s| Sampler::new(s.src, d));
    let last = last_cell(d);
    let mut hat = hat;
    {
        let h: [&mut [f32]; N] = hat.each_mut().map(|h| &mut **h);
        cell_pass(
            h,
            [cells],
            vel,
            vs,
            -k_dt,
            exits.solid,
            region,
            f.map(|f| f.outside),
            |ends, _, mut h, [c], _| {
                let codes = Some(&mut *c);
                trace16::sample_row(&s_src, ends, h.each_mut().map(|o| &mut **o), codes);
                if !exits.may_blend(ends, last) {
                    return;
                }
                for m in 0..ends[0].len() {
                    let back = [ends[0][m], ends[1][m], ends[2][m]];
                    let w = exits.blend(back, last).map_or(0.0, |b| b.0);
                    // Outside air mixed in (it joins the clamping range in the second pass).
                    if w > 0.0 {
                        for (h, f) in h.iter_mut().zip(&f) {
                            let a = h[m];
                            h[m] = a + w * (f.outside - a);
                        }
                        c[m] |= 1 << 31;
                    }
                }
            },
        );
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
    cell_pass(
        dst,
        [],
        vel,
        vs,
        k_dt,
        None,
        region,
        f.map(|f| f.scale * f.outside + f.offset),
        |ends, base, mut out, _, spare| {
            // φ̃ = φ̂ sampled at the forward trace, into `out` until the result replaces it.
            trace16::sample_row(&s_hat, ends, out.each_mut().map(|o| &mut **o), None);
            // The clamping ranges around the cells the backtraces fell in.
            let len = ends[0].len();
            let (lo, hi) = spare.split_at_mut(N * len);
            let codes = &cells[base..base + len];
            trace16::range_row(&s_src, codes, runs(lo, len), runs(hi, len));
            for m in 0..len {
                let c = base + m;
                let fwd = [ends[0][m], ends[1][m], ends[2][m]];
                let clamped = (0..3).any(|a| !(fwd[a] >= 0.0 && fwd[a] <= inner[a]))
                    || exits.solid.is_some_and(|s| touches_solid(s, d, fwd));
                if clamped {
                    for (n, o) in out.iter_mut().enumerate() {
                        o[m] = f[n].scale * hat[n][c] + f[n].offset;
                    }
                    continue;
                }
                let code = cells[c];
                for (n, o) in out.iter_mut().enumerate() {
                    let v = hat[n][c] + 0.5 * (f[n].src[c] - o[m]);
                    let (lo, hi) = (lo[n * len + m], hi[n * len + m]);
                    let (lo, hi) = if code >> 31 != 0 {
                        let o = f[n].outside;
                        (lo.min(o), hi.max(o))
                    } else {
                        (lo, hi)
                    };
                    let v = if v > lo { v } else { lo };
                    let v = if v < hi { v } else { hi };
                    o[m] = f[n].scale * v + f[n].offset;
                }
            }
        },
    );
}

/// The first K runs of `n` values of `s`.
fn runs<const K: usize>(s: &mut [f32], n: usize) -> [&mut [f32]; K] {
    let mut it = s.chunks_exact_mut(n);
    std::array::from_fn(|_| it.next().expect("K runs of n values"))
}

#[cfg(test)]
#[path = "advect_tests.rs"]
mod tests;
