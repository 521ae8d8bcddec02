//! Plane jobs compiled three times: plainly, for AVX2 and for AVX-512F, picked at run time.
//!
//! The multigrid's passes are per z-plane loops that Rust compiles for the baseline x86-64
//! (four lanes). A [`PlaneJob`]'s work per plane is inlined into [`run_plane`]'s three
//! versions, so where the processor has AVX-512F or AVX2 (and the vector paths are on, see
//! [`crate::sim::trace16::simd_level`]) the same loops run sixteen or eight lanes wide. The
//! operations and their order are the same in both (Rust never fuses a multiply and an add
//! on its own, and every sum runs in fixed lanes), so the results are the same bits.

use super::*;
#[cfg(target_arch = "x86_64")]
use crate::sim::trace16::Simd;

/// The work of one pass on one z-plane `k`, writing `out` (that plane of the pass's output,
/// of the length [`for_planes`] is given) with a row of scratch (`nx` values).
pub(super) trait PlaneJob: Sync {
    /// What each plane gives back (a partial sum, a maximum).
    type Out: Send;
    /// Plane `k`; implementations are `#[inline(always)]`.
    fn plane(&self, k: usize, out: &mut [f32], scratch: &mut [f32]) -> Self::Out;
}

/// Runs `job` on every z-plane of a level of `dims` (in parallel, small grids in one task),
/// `out` cut into `out.len() / nz` values a plane; returns the planes' results in order.
pub(super) fn for_planes<J: PlaneJob>(dims: [usize; 3], out: &mut [f32], job: &J) -> Vec<J::Out> {
    let [nx, _, nz] = dims;
    let per = out.len() / nz;
    assert_eq!(per * nz, out.len());
    let (_, min) = plane_len(dims);
    out.par_chunks_mut(per)
        .with_min_len(min)
        .enumerate()
        .map_init(|| vec![0.0f32; nx], |s, (k, pl)| run_plane(job, k, pl, s))
        .collect()
}

#[inline(always)]
fn run_plane<J: PlaneJob>(job: &J, k: usize, out: &mut [f32], s: &mut [f32]) -> J::Out {
    #[cfg(target_arch = "x86_64")]
    match crate::sim::trace16::simd_level() {
        // SAFETY: the processor has AVX-512F (`simd_level` asked it).
        Simd::Avx512 => return unsafe { run_plane_avx512(job, k, out, s) },
        // SAFETY: the processor has AVX2 (`simd_level` asked it).
        Simd::Avx2 => return unsafe { run_plane_avx2(job, k, out, s) },
        Simd::Scalar => {}
    }
    job.plane(k, out, s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_plane_avx2<J: PlaneJob>(job: &J, k: usize, out: &mut [f32], s: &mut [f32]) -> J::Out {
    job.plane(k, out, s)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn run_plane_avx512<J: PlaneJob>(
    job: &J,
    k: usize,
    out: &mut [f32],
    s: &mut [f32],
) -> J::Out {
    job.plane(k, out, s)
}

/// The warm start's residual `r = rhs − A·x` on the finest grid (0 on solid cells), with
/// each plane's max|rhs| over its fluid cells and max|r| (infinite where r is not finite).
pub(super) struct FirstResidual<'a> {
    pub dims: [usize; 3],
    pub diag: &'a [u8],
    pub zeros: &'a [f32],
    pub x: &'a [f32],
    pub rhs: &'a [f32],
}

impl PlaneJob for FirstResidual<'_> {
    type Out = (f32, f32);
    #[inline(always)]
    fn plane(&self, k: usize, out: &mut [f32], s: &mut [f32]) -> (f32, f32) {
        let [nx, ny, _] = self.dims;
        let (mut bmax, mut rmax) = (0.0f32, 0.0f32);
        for j in 0..ny {
            let base = (k * ny + j) * nx;
            let x = neighbour_sum(self.dims, self.zeros, self.x, j, k, s);
            let (b, g) = (&self.rhs[base..][..nx], &self.diag[base..][..nx]);
            let o = &mut out[j * nx..][..nx];
            for (((o, &x), &s), (&g, &b)) in o.iter_mut().zip(x).zip(&*s).zip(g.iter().zip(b)) {
                let v = b - (g.val() * x - s);
                *o = if g.on() { v } else { 0.0 };
            }
            // max|rhs| over the fluid cells (NaN skipped, as `f32::max` skips it).
            let mut m = [0.0f32; 8];
            for (bb, gg) in b.chunks_exact(8).zip(g.chunks_exact(8)) {
                for l in 0..8 {
                    let a = if gg[l].on() { bb[l].abs() } else { 0.0 };
                    m[l] = if a > m[l] { a } else { m[l] };
                }
            }
            let tail = b
                .chunks_exact(8)
                .remainder()
                .iter()
                .zip(g.chunks_exact(8).remainder());
            for (&bv, &gv) in tail {
                if gv.on() {
                    bmax = bmax.max(bv.abs());
                }
            }
            bmax = m.iter().fold(bmax, |a, &v| a.max(v));
            rmax = rmax.max(max_abs_row(o));
        }
        (bmax, rmax)
    }
}

/// `q = A·d` on the finest grid (0 on solid cells); each plane's Σ q·d.
pub(super) struct MatVec<'a> {
    pub dims: [usize; 3],
    pub diag: &'a [u8],
    pub zeros: &'a [f32],
    pub d: &'a [f32],
}

impl PlaneJob for MatVec<'_> {
    type Out = f64;
    #[inline(always)]
    fn plane(&self, k: usize, out: &mut [f32], s: &mut [f32]) -> f64 {
        let [nx, ny, _] = self.dims;
        let mut acc = 0.0;
        for j in 0..ny {
            let base = (k * ny + j) * nx;
            let x = neighbour_sum(self.dims, self.zeros, self.d, j, k, s);
            let g = &self.diag[base..][..nx];
            let o = &mut out[j * nx..][..nx];
            for (((o, &x), &s), &g) in o.iter_mut().zip(x).zip(&*s).zip(g) {
                let v = g.val() * x - s;
                *o = if g.on() { v } else { 0.0 };
            }
            acc += dot(o, x);
        }
        acc
    }
}

/// The V-cycle's residual `b − A·e` of a level, restricted along x as it is worked out
/// (each row through the scratch row: the whole residual is never stored), into that
/// plane of the level's `tx` (coarse along x).
pub(super) struct ResidualRestrict<'a, D> {
    pub dims: [usize; 3],
    pub diag: &'a [D],
    pub zeros: &'a [f32],
    pub b: &'a [f32],
    pub e: &'a [f32],
    /// Coarse cells along x.
    pub cx: usize,
    /// The restriction's end weights along x.
    pub ends: [f32; 2],
}

impl<D: Diag> PlaneJob for ResidualRestrict<'_, D> {
    type Out = ();
    #[inline(always)]
    fn plane(&self, k: usize, out: &mut [f32], rr: &mut [f32]) {
        let [nx, ny, _] = self.dims;
        for j in 0..ny {
            let base = (k * ny + j) * nx;
            residual_row(
                self.dims, self.diag, self.zeros, self.b, self.e, j, k, base, rr,
            );
            restrict_row(rr, &mut out[j * self.cx..][..self.cx], self.ends);
        }
    }
}

/// The coarse correction, interpolated along x from the level's `tx`, added to `e` (that
/// plane of it) on the fluid cells.
pub(super) struct ProlongAdd<'a, D> {
    pub dims: [usize; 3],
    pub diag: &'a [D],
    pub tx: &'a [f32],
    /// Coarse cells along x.
    pub cx: usize,
    /// The interpolation's end weights along x.
    pub ends: [f32; 2],
}

impl<D: Diag> PlaneJob for ProlongAdd<'_, D> {
    type Out = ();
    #[inline(always)]
    fn plane(&self, k: usize, e: &mut [f32], _: &mut [f32]) {
        let [nx, ny, _] = self.dims;
        let cplane = self.cx * ny;
        for j in 0..ny {
            let base = (k * ny + j) * nx;
            prolong_row_add(
                &self.tx[k * cplane + j * self.cx..][..self.cx],
                &mut e[j * nx..][..nx],
                &self.diag[base..][..nx],
                self.ends,
            );
        }
    }
}
