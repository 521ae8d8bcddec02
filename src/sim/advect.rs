//! Semi-Lagrangian advection on the staggered grid with trilinear interpolation.
//!
//! Positions are in "cell-index space": world position = origin + X·h, so the centre of
//! cell i is at X = i + 0.5 and the x-face i (between cells i−1 and i) at X = i.

use super::grid::Dims;
use rayon::prelude::*;

/// Where a field's samples sit inside a cell, in cells: (0.5,0.5,0.5) for cell centres,
/// (0,0.5,0.5) for x-faces, and so on.
pub type Stagger = [f32; 3];

/// Stagger of cell-centred scalars.
pub const CENTER: Stagger = [0.5, 0.5, 0.5];
/// Stagger of the face-velocity component along `axis`.
pub const fn face_stagger(axis: usize) -> Stagger {
    match axis {
        0 => [0.0, 0.5, 0.5],
        1 => [0.5, 0.0, 0.5],
        _ => [0.5, 0.5, 0.0],
    }
}

/// Trilinear interpolation in one x-fastest array. Coordinates are clamped to the array
/// first, so a sample never reads outside it (the field is extended with its edge values);
/// a NaN coordinate is treated as the lower bound.
#[derive(Clone, Copy)]
pub struct Sampler<'a> {
    f: &'a [f32],
    d: Dims,
    hi: [f32; 3],
}

impl<'a> Sampler<'a> {
    /// A sampler over `f` with dimensions `d`.
    pub fn new(f: &'a [f32], d: Dims) -> Self {
        assert_eq!(
            f.len(),
            d.cells(),
            "field length does not match its dimensions"
        );
        assert!(d.nx > 0 && d.ny > 0 && d.nz > 0);
        Self {
            f,
            d,
            hi: [(d.nx - 1) as f32, (d.ny - 1) as f32, (d.nz - 1) as f32],
        }
    }

    /// Where array coordinates `p` fall: clamped to the array (neighbours past the last
    /// sample repeat it), the index of the sample below, the offsets to its neighbours and p's
    /// fractional position between them.
    #[inline(always)]
    pub fn locate(&self, p: [f32; 3]) -> Loc {
        // `max`/`min` (unlike `clamp`) map NaN to a bound.
        let cx = p[0].max(0.0).min(self.hi[0]);
        let cy = p[1].max(0.0).min(self.hi[1]);
        let cz = p[2].max(0.0).min(self.hi[2]);
        // The coordinates are ≥ 0, so truncation equals floor.
        let i0 = cx as i32 as usize;
        let j0 = cy as i32 as usize;
        let k0 = cz as i32 as usize;
        let d = self.d;
        let sy = d.nx;
        let sz = d.nx * d.ny;
        Loc {
            b: i0 + sy * j0 + sz * k0,
            di: usize::from(i0 + 1 < d.nx),
            dj: if j0 + 1 < d.ny { sy } else { 0 },
            dk: if k0 + 1 < d.nz { sz } else { 0 },
            t: [cx - i0 as f32, cy - j0 as f32, cz - k0 as f32],
        }
    }

    /// The eight samples of this sampler's array around `l` (found by [`Sampler::locate`] of
    /// this sampler or of one with the same dimensions), in the order 000, 100, 010, 110, 001,
    /// 101, 011, 111 of (x, y, z) offsets.
    #[inline(always)]
    fn gather(&self, l: &Loc) -> [f32; 8] {
        let f = self.f;
        let (b, di, dj, dk) = (l.b, l.di, l.dj, l.dk);
        debug_assert!(b + di + dj + dk < f.len());
        // SAFETY: `locate` clamps (i0, j0, k0) into the array and each offset moves to a
        // neighbour only when that neighbour exists, so every index is < nx·ny·nz, which is
        // f.len() for every sampler of these dimensions.
        let at = |o: usize| unsafe { *f.get_unchecked(b + o) };
        [
            at(0),
            at(di),
            at(dj),
            at(dj + di),
            at(dk),
            at(dk + di),
            at(dk + dj),
            at(dk + dj + di),
        ]
    }

    /// Trilinear interpolation of this sampler's array at `l`.
    #[inline(always)]
    pub fn at_loc(&self, l: &Loc) -> f32 {
        let v = self.gather(l);
        let [tx, ty, tz] = l.t;
        let c00 = v[0] + tx * (v[1] - v[0]);
        let c10 = v[2] + tx * (v[3] - v[2]);
        let c01 = v[4] + tx * (v[5] - v[4]);
        let c11 = v[6] + tx * (v[7] - v[6]);
        let c0 = c00 + ty * (c10 - c00);
        let c1 = c01 + ty * (c11 - c01);
        c0 + tz * (c1 - c0)
    }

    /// Smallest and largest of the eight samples [`Sampler::at_loc`] interpolates at `l`.
    #[inline(always)]
    pub fn range_loc(&self, l: &Loc) -> (f32, f32) {
        let v = self.gather(l);
        let mut lo = v[0];
        let mut hi = v[0];
        for &x in &v[1..] {
            lo = lo.min(x);
            hi = hi.max(x);
        }
        (lo, hi)
    }

    /// Value at array coordinates `p` (sample (i, j, k) sits at p = (i, j, k)).
    #[inline(always)]
    pub fn at(&self, p: [f32; 3]) -> f32 {
        self.at_loc(&self.locate(p))
    }

    /// Smallest and largest of the (up to eight) samples that [`Sampler::at`] interpolates
    /// between at `p`.
    #[inline(always)]
    pub fn range_at(&self, p: [f32; 3]) -> (f32, f32) {
        self.range_loc(&self.locate(p))
    }

    /// Dimensions of the sampled array.
    pub fn dims(&self) -> Dims {
        self.d
    }
}

/// A sample position found by [`Sampler::locate`]: valid for every array of the same
/// dimensions.
#[derive(Clone, Copy, Debug)]
pub struct Loc {
    b: usize,
    di: usize,
    dj: usize,
    dk: usize,
    t: [f32; 3],
}

/// Trilinear interpolation of `f` (dimensions `d`) at array coordinates `p`; see [`Sampler`].
pub fn sample(f: &[f32], d: Dims, p: [f32; 3]) -> f32 {
    Sampler::new(f, d).at(p)
}

/// The three staggered velocity components of a grid of `dims` cells.
#[derive(Clone, Copy)]
pub struct VelocityRef<'a> {
    /// Cell counts of the grid.
    pub dims: Dims,
    /// x-face velocities, `(nx+1)·ny·nz`.
    pub u: &'a [f32],
    /// y-face velocities, `nx·(ny+1)·nz`.
    pub v: &'a [f32],
    /// z-face velocities, `nx·ny·(nz+1)`.
    pub w: &'a [f32],
}

impl VelocityRef<'_> {
    fn comp(&self, a: usize) -> &[f32] {
        match a {
            0 => self.u,
            1 => self.v,
            _ => self.w,
        }
    }

    /// Velocity at a point in cell-index space, each component interpolated on its own grid.
    pub fn at(&self, x: [f32; 3]) -> [f32; 3] {
        let mut out = [0.0; 3];
        for (a, o) in out.iter_mut().enumerate() {
            let mut p = [x[0] - 0.5, x[1] - 0.5, x[2] - 0.5];
            p[a] = x[a];
            *o = sample(self.comp(a), self.dims.faces(a), p);
        }
        out
    }
}

/// Strides of an x-fastest array.
#[inline(always)]
fn strides(d: Dims) -> [usize; 3] {
    [1, d.nx, d.nx * d.ny]
}

/// Advects the face-velocity component along `axis` (`src` → `dst`) through `vel` for
/// `k_dt = dt/h` cells per unit velocity. Faces on the two ends of `axis` whose flag in
/// `fixed` is set (walls) are left untouched.
pub fn advect_faces(
    axis: usize,
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    k_dt: f32,
    fixed: [bool; 2],
) {
    match axis {
        0 => advect_faces_axis::<0>(dst, src, vel, k_dt, fixed),
        1 => advect_faces_axis::<1>(dst, src, vel, k_dt, fixed),
        _ => advect_faces_axis::<2>(dst, src, vel, k_dt, fixed),
    }
}

/// Mean of the four samples of component `B` around face (i, j, k) of component `A`: half a
/// cell back along A (clamped at the domain's ends) and half a cell forward along B.
#[inline(always)]
fn cross_average<const A: usize, const B: usize>(
    c: &[f32],
    st: [usize; 3],
    n: [usize; 3],
    p: [usize; 3],
) -> f32 {
    let a0 = p[A].saturating_sub(1);
    let a1 = p[A].min(n[A] - 1);
    let mut base = 0;
    for q in 0..3 {
        if q != A {
            base += p[q] * st[q];
        }
    }
    let (o0, o1, ob) = (base + a0 * st[A], base + a1 * st[A], st[B]);
    0.25 * (c[o0] + c[o1] + c[o0 + ob] + c[o1 + ob])
}

fn advect_faces_axis<const A: usize>(
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    k_dt: f32,
    fixed: [bool; 2],
) {
    let d = vel.dims;
    let fd = d.faces(A);
    assert_eq!(dst.len(), fd.cells());
    let n = d.as_array();
    let samp = Sampler::new(src, fd);
    let own = vel.comp(A);
    assert_eq!(own.len(), fd.cells());
    let (b1, b2) = ((A + 1) % 3, (A + 2) % 3);
    let (c1, c2) = (vel.comp(b1), vel.comp(b2));
    let (s1, s2) = (strides(d.faces(b1)), strides(d.faces(b2)));
    assert_eq!(c1.len(), d.faces(b1).cells());
    assert_eq!(c2.len(), d.faces(b2).cells());
    dst.par_chunks_mut(fd.nx * fd.ny)
        .enumerate()
        .for_each(|(k, out)| {
            for j in 0..fd.ny {
                let row = &mut out[j * fd.nx..(j + 1) * fd.nx];
                for (i, o) in row.iter_mut().enumerate() {
                    let p = [i, j, k];
                    if (p[A] == 0 && fixed[0]) || (p[A] == n[A] && fixed[1]) {
                        continue;
                    }
                    let mut u = [0.0f32; 3];
                    u[A] = own[i + fd.nx * (j + fd.ny * k)];
                    u[b1] = match A {
                        0 => cross_average::<0, 1>(c1, s1, n, p),
                        1 => cross_average::<1, 2>(c1, s1, n, p),
                        _ => cross_average::<2, 0>(c1, s1, n, p),
                    };
                    u[b2] = match A {
                        0 => cross_average::<0, 2>(c2, s2, n, p),
                        1 => cross_average::<1, 0>(c2, s2, n, p),
                        _ => cross_average::<2, 1>(c2, s2, n, p),
                    };
                    *o = samp.at([
                        i as f32 - k_dt * u[0],
                        j as f32 - k_dt * u[1],
                        k as f32 - k_dt * u[2],
                    ]);
                }
            }
        });
}

/// Advects a cell-centred scalar (`src` → `dst`) through `vel` semi-Lagrangian; the result is
/// `scale·φ + offset` (fading and cooling towards a value fused into the pass).
pub fn advect_cells(
    dst: &mut [f32],
    src: &[f32],
    vel: VelocityRef<'_>,
    k_dt: f32,
    scale: f32,
    offset: f32,
) {
    advect_cells_n([dst], [Scalar { src, scale, offset }], vel, k_dt);
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
}

/// Semi-Lagrangian advection of N fields in one pass: each backtrace is located once and
/// every field sampled there.
pub fn advect_cells_n<const N: usize>(
    dst: [&mut [f32]; N],
    f: [Scalar<'_>; N],
    vel: VelocityRef<'_>,
    k_dt: f32,
) {
    let samp = f.map(|s| Sampler::new(s.src, vel.dims));
    cell_pass(dst, vel, k_dt, |back, _, _| {
        let l = samp[0].locate(back);
        std::array::from_fn(|n| f[n].scale * samp[n].at_loc(&l) + f[n].offset)
    });
}

/// Advects a cell-centred scalar with MacCormack (Selle, Fedkiw, Kim, Liu and Rossignac 2008):
/// `φ̂` = a semi-Lagrangian step forward (into `hat`), `φ̃` = one back from `φ̂`, and
/// `φ = φ̂ + ½(φⁿ − φ̃)`, clamped to the range of the eight values of `φⁿ` that the forward step
/// interpolated between, so no new extrema appear. The result is `scale·φ + offset`.
#[allow(clippy::too_many_arguments)]
pub fn maccormack_cells(
    dst: &mut [f32],
    src: &[f32],
    hat: &mut [f32],
    vel: VelocityRef<'_>,
    k_dt: f32,
    scale: f32,
    offset: f32,
) {
    maccormack_cells_n([dst], [Scalar { src, scale, offset }], [hat], vel, k_dt);
}

/// MacCormack advection of N fields through the same velocity, two passes in all: the
/// forward and backward traces are located once per cell and every field sampled there.
pub fn maccormack_cells_n<const N: usize>(
    dst: [&mut [f32]; N],
    f: [Scalar<'_>; N],
    hat: [&mut [f32]; N],
    vel: VelocityRef<'_>,
    k_dt: f32,
) {
    let d = vel.dims;
    let unit = f.map(|s| Scalar {
        scale: 1.0,
        offset: 0.0,
        ..s
    });
    let mut hat = hat;
    {
        let h: [&mut [f32]; N] = hat.each_mut().map(|h| &mut **h);
        advect_cells_n(h, unit, vel, k_dt);
    }
    let hat: [&[f32]; N] = hat.map(|h| &*h);
    let s_src = f.map(|s| Sampler::new(s.src, d));
    let s_hat = hat.map(|h| Sampler::new(h, d));
    cell_pass(dst, vel, k_dt, |back, fwd, c| {
        let lf = s_hat[0].locate(fwd);
        let lb = s_src[0].locate(back);
        std::array::from_fn(|n| {
            let v = hat[n][c] + 0.5 * (f[n].src[c] - s_hat[n].at_loc(&lf));
            let (lo, hi) = s_src[n].range_loc(&lb);
            f[n].scale * v.max(lo).min(hi) + f[n].offset
        })
    });
}

/// Runs `f(backtrace point, forward point, cell index)` for every cell, in parallel over
/// z-planes, writing its N results to the N arrays of `dst`. The points are `x ∓ k_dt·u(x)` in
/// array coordinates (cell i's sample sits at i), with u the cell-centred velocity.
fn cell_pass<const N: usize>(
    dst: [&mut [f32]; N],
    vel: VelocityRef<'_>,
    k_dt: f32,
    f: impl Fn([f32; 3], [f32; 3], usize) -> [f32; N] + Sync,
) {
    let d = vel.dims;
    for o in &dst {
        assert_eq!(o.len(), d.cells());
    }
    let (du, dv, dw) = (d.faces(0), d.faces(1), d.faces(2));
    assert_eq!(vel.u.len(), du.cells());
    assert_eq!(vel.v.len(), dv.cells());
    assert_eq!(vel.w.len(), dw.cells());
    let plane = d.nx * d.ny;
    // One entry per z-plane holding that plane of every output.
    let mut planes: Vec<[&mut [f32]; N]> = Vec::with_capacity(d.nz);
    let mut rest = dst;
    for _ in 0..d.nz {
        let mut head: [&mut [f32]; N] = std::array::from_fn(|_| Default::default());
        for (r, h) in rest.iter_mut().zip(head.iter_mut()) {
            let (a, b) = std::mem::take(r).split_at_mut(plane);
            *h = a;
            *r = b;
        }
        planes.push(head);
    }
    planes.into_par_iter().enumerate().for_each(|(k, mut out)| {
        for j in 0..d.ny {
            let ur = &vel.u[du.idx(0, j, k)..][..d.nx + 1];
            let vb = &vel.v[dv.idx(0, j, k)..][..d.nx];
            let vt = &vel.v[dv.idx(0, j + 1, k)..][..d.nx];
            let wb = &vel.w[dw.idx(0, j, k)..][..d.nx];
            let wf = &vel.w[dw.idx(0, j, k + 1)..][..d.nx];
            let base = k * plane + j * d.nx;
            for i in 0..d.nx {
                let u = 0.5 * (ur[i] + ur[i + 1]) * k_dt;
                let v = 0.5 * (vb[i] + vt[i]) * k_dt;
                let w = 0.5 * (wb[i] + wf[i]) * k_dt;
                let (x, y, z) = (i as f32, j as f32, k as f32);
                let r = f([x - u, y - v, z - w], [x + u, y + v, z + w], base + i);
                for (o, v) in out.iter_mut().zip(r) {
                    o[j * d.nx + i] = v;
                }
            }
        }
    });
}
