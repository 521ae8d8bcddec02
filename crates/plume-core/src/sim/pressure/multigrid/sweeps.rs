//! Several damped Jacobi sweeps in one pass over memory (temporal blocking along z).
//!
//! A sweep reads the plane below, of and above each cell, so sweep `l` can work out plane
//! `q` as soon as sweep `l − 1` has worked out plane `q + 1`: each task walks its planes
//! once, keeps the intermediate sweeps' last three planes in a small ring (in cache), and
//! writes only the last sweep's result. The smoother's memory traffic is then that of one
//! sweep whatever their number (a sweep alone reads `b`, `x` and the diagonal and writes a
//! field: bandwidth bound). A task works out the intermediate sweeps also on the planes next
//! to its own (one more for each sweep still to come), as its neighbours do: the same values
//! by the same operations, so the result is bitwise that of the sweeps one after the other,
//! whatever the tasks.

use super::*;
#[cfg(target_arch = "x86_64")]
use crate::sim::trace16::Simd;
use std::cell::RefCell;

thread_local! {
    /// Each worker's rings of intermediate planes and its row of neighbour sums.
    static RINGS: RefCell<Vec<f32>> = const { RefCell::new(Vec::new()) };
}

/// Sweeps a task takes on together: at most this many in one call.
const MAX_SWEEPS: usize = 4;

/// `out` = the damped Jacobi sweeps `x ← x + ω·(b − A·x)/d` with the weights `ws` in turn,
/// from `x0` (from zero when `None`); returns Σ b·out (in plane order) when `want_dot`.
/// Solid cells (`d = 0`) come out 0.
#[allow(clippy::too_many_arguments)]
pub(super) fn jacobi_sweeps<D: Diag>(
    ws: &[f32],
    dims: [usize; 3],
    diag: &[D],
    zeros: &[f32],
    b: &[f32],
    x0: Option<&[f32]>,
    out: &mut [f32],
    want_dot: bool,
) -> f64 {
    let m = ws.len();
    assert!((1..=MAX_SWEEPS).contains(&m), "1 to {MAX_SWEEPS} sweeps");
    let [nx, ny, nz] = dims;
    let plane = nx * ny;
    assert_eq!(out.len(), plane * nz);
    assert_eq!(b.len(), out.len());
    assert_eq!(diag.len(), out.len());
    if let Some(x) = x0 {
        assert_eq!(x.len(), out.len());
    }
    // A few tasks a thread for balance; each works out up to 2·(m − 1) planes of
    // intermediate sweeps beyond its own.
    let (_, min) = plane_len(dims);
    let tasks = (2 * rayon::current_num_threads()).clamp(1, nz.div_ceil(min).max(1));
    let sweeps = Sweeps {
        ws,
        dims,
        diag,
        zeros,
        b,
        x0,
        want_dot,
    };
    sweeps.in_tasks(tasks, out)
}

/// One [`jacobi_sweeps`] call: what every task reads.
struct Sweeps<'a, D> {
    ws: &'a [f32],
    dims: [usize; 3],
    diag: &'a [D],
    zeros: &'a [f32],
    b: &'a [f32],
    x0: Option<&'a [f32]>,
    want_dot: bool,
}

impl<D: Diag> Sweeps<'_, D> {
    /// The sweeps with the planes cut into `tasks` runs (the result does not depend on how
    /// many).
    fn in_tasks(&self, tasks: usize, out: &mut [f32]) -> f64 {
        let m = self.ws.len();
        let [nx, ny, nz] = self.dims;
        let plane = nx * ny;
        let per = nz.div_ceil(tasks.clamp(1, nz));
        let parts: Vec<Vec<f64>> = out
            .par_chunks_mut(per * plane)
            .enumerate()
            .map(|(c, oc)| {
                RINGS.with_borrow_mut(|ring| {
                    // Rings of three planes for sweeps 1..m − 1, then the row of sums.
                    ring.resize(3 * (m - 1) * plane + nx, 0.0);
                    self.run(c * per, oc, ring)
                })
            })
            .collect();
        parts.iter().flatten().sum()
    }
}

impl<D: Diag> Sweeps<'_, D> {
    /// The planes from `k0` on of the last sweep into `out` (their values), with `ring` for
    /// the intermediate planes and a row of sums; returns each plane's Σ b·out when
    /// `want_dot`. With AVX-512 where the processor has it (the same operations, sixteen
    /// lanes wide: the same bits).
    fn run(&self, k0: usize, out: &mut [f32], ring: &mut [f32]) -> Vec<f64> {
        #[cfg(target_arch = "x86_64")]
        match crate::sim::trace16::simd_level() {
            // SAFETY: the processor has AVX-512F (`simd_level` asked it).
            Simd::Avx512 => return unsafe { self.run_avx512(k0, out, ring) },
            // SAFETY: the processor has AVX2 (`simd_level` asked it).
            Simd::Avx2 => return unsafe { self.run_avx2(k0, out, ring) },
            Simd::Scalar => {}
        }
        self.run_any(k0, out, ring)
    }

    /// [`Sweeps::run`] compiled for AVX2.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx2")]
    unsafe fn run_avx2(&self, k0: usize, out: &mut [f32], ring: &mut [f32]) -> Vec<f64> {
        self.run_any(k0, out, ring)
    }

    /// [`Sweeps::run`] compiled for AVX-512F.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    unsafe fn run_avx512(&self, k0: usize, out: &mut [f32], ring: &mut [f32]) -> Vec<f64> {
        self.run_any(k0, out, ring)
    }

    /// The work of [`Sweeps::run`], inlined into each of its versions.
    #[inline(always)]
    fn run_any(&self, k0: usize, out: &mut [f32], ring: &mut [f32]) -> Vec<f64> {
        let m = self.ws.len();
        let [nx, ny, nz] = self.dims;
        let plane = nx * ny;
        let (k1, want_dot) = (k0 + out.len() / plane, self.want_dot);
        let (rings, srow) = ring.split_at_mut(3 * (m - 1) * plane);
        let mut dots = Vec::with_capacity(if want_dot { k1 - k0 } else { 0 });
        // Sweep l (1-based) is worked out on planes k0 − (m − l) .. k1 + (m − l); at step p,
        // sweep l does plane p − (l − 1), whose upper neighbour sweep l − 1 has just done.
        for p in k0 as isize - (m as isize - 1)..k1 as isize + (m as isize - 1) {
            for l in 1..=m {
                let q = p - (l as isize - 1);
                let reach = (m - l) as isize;
                let lo = (k0 as isize - reach).max(0);
                let hi = (k1 as isize + reach).min(nz as isize);
                if q < lo || q >= hi {
                    continue;
                }
                let q = q as usize;
                // Sweep l − 1's planes q − 1, q, q + 1 (sweep 0: the start; None outside),
                // from the rings before sweep l's own.
                let (read, write) = rings.split_at_mut(3 * (l - 1) * plane);
                let read: &[f32] = read;
                let src = |k: usize| -> Option<&[f32]> {
                    if l == 1 {
                        self.x0.map(|x| &x[k * plane..][..plane])
                    } else {
                        Some(&read[(3 * (l - 2) + k % 3) * plane..][..plane])
                    }
                };
                let planes = [
                    q.checked_sub(1).and_then(src),
                    src(q),
                    (q + 1 < nz).then(|| src(q + 1)).flatten(),
                ];
                let from_zero = l == 1 && self.x0.is_none();
                let dst: &mut [f32] = if l == m {
                    &mut out[(q - k0) * plane..][..plane]
                } else {
                    &mut write[(q % 3) * plane..][..plane]
                };
                let mut acc = 0.0f64;
                for j in 0..ny {
                    let base = q * plane + j * nx;
                    let o = &mut dst[j * nx..][..nx];
                    let bb = &self.b[base..][..nx];
                    let g = &self.diag[base..][..nx];
                    let w = self.ws[l - 1];
                    if from_zero {
                        // As `jacobi_from_zero`: worked out everywhere, kept on fluid cells.
                        for ((o, &bv), &gv) in o.iter_mut().zip(bb).zip(g) {
                            let v = w * bv / gv.val();
                            *o = if gv.on() { v } else { 0.0 };
                        }
                    } else {
                        let c = neighbour_sum_planes([nx, ny], self.zeros, planes, j, srow);
                        sweep_row(w, o, c, srow, g, bb);
                    }
                    if l == m && want_dot {
                        acc += dot(bb, o);
                    }
                }
                if l == m && want_dot {
                    dots.push(acc);
                }
            }
        }
        dots
    }
}

/// One row of a damped Jacobi sweep: `o = x + ω·(b − d·x + s)/d` (0 on solid cells), `s`
/// the neighbour sums.
#[inline(always)]
fn sweep_row<D: Diag>(w: f32, o: &mut [f32], x: &[f32], s: &[f32], g: &[D], b: &[f32]) {
    for (((o, &x), &s), (&g, &b)) in o.iter_mut().zip(x).zip(s).zip(g.iter().zip(b)) {
        // Both sides worked out and one chosen (a solid cell's division by 0 is discarded):
        // the loop vectorises, the division with it.
        let gf = g.val();
        let inv = w / gf;
        let inv = if g.on() { inv } else { 0.0 };
        *o = x + inv * (b - gf * x + s);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sweeps one after the other, plainly: the reference.
    fn reference(
        ws: &[f32],
        dims: [usize; 3],
        diag: &[f32],
        b: &[f32],
        x0: Option<&[f32]>,
    ) -> (Vec<f32>, f64) {
        let zeros = vec![0.0f32; dims[0]];
        let n = b.len();
        let mut x = x0.map_or(vec![0.0; n], <[f32]>::to_vec);
        let mut dotv = 0.0;
        for (l, &w) in ws.iter().enumerate() {
            let mut out = vec![0.0f32; n];
            if l == 0 && x0.is_none() {
                jacobi_from_zero(w, dims, diag, b, &mut out);
            } else {
                let last = l + 1 == ws.len();
                dotv = jacobi(w, dims, diag, &zeros, b, &x, &mut out, last);
            }
            x = out;
        }
        (x, dotv)
    }

    #[test]
    fn fused_sweeps_are_the_sweeps_one_after_the_other_bit_for_bit() {
        let dims = [7, 5, 13];
        let n = dims.iter().product::<usize>();
        // A diagonal with solid cells and open faces' fractional counts, a ragged rhs.
        let diag: Vec<f32> = (0..n)
            .map(|c| match c % 11 {
                0 => 0.0,
                3 => 4.5,
                _ => 6.0 - (c % 3) as f32,
            })
            .collect();
        let b: Vec<f32> = (0..n)
            .map(|c| ((c * 37 % 101) as f32 - 50.0) / 7.0)
            .collect();
        let x0: Vec<f32> = (0..n)
            .map(|c| ((c * 53 % 89) as f32 - 40.0) / 9.0)
            .collect();
        let zeros = vec![0.0f32; dims[0]];
        for ws in [
            &[0.9f32][..],
            &[0.5, 1.2],
            &[0.6, 0.9, 1.7],
            &[0.4, 0.7, 1.1, 1.9],
        ] {
            for start in [None, Some(&x0[..])] {
                let (want, want_dot) = reference(ws, dims, &diag, &b, start);
                let mut got = vec![f32::NAN; n];
                let got_dot = jacobi_sweeps(ws, dims, &diag, &zeros, &b, start, &mut got, true);
                let same = want
                    .iter()
                    .zip(&got)
                    .all(|(a, b)| a.to_bits() == b.to_bits());
                assert!(same, "{} sweeps from {:?}", ws.len(), start.is_some());
                if ws.len() > 1 || start.is_some() {
                    assert_eq!(got_dot.to_bits(), want_dot.to_bits());
                }
            }
        }
        // However the planes are cut into tasks (each working out its neighbours' planes of
        // the intermediate sweeps again), and with one thread or four: the same bits.
        let (want, want_dot) = reference(&[0.6, 0.9, 1.7], dims, &diag, &b, Some(&x0));
        for tasks in [1, 2, 3, 5, 13] {
            let mut got = vec![f32::NAN; n];
            let ws = [0.6, 0.9, 1.7];
            let sweeps = Sweeps {
                ws: &ws,
                dims,
                diag: &diag[..],
                zeros: &zeros,
                b: &b,
                x0: Some(&x0),
                want_dot: true,
            };
            let d = sweeps.in_tasks(tasks, &mut got);
            let same = want
                .iter()
                .zip(&got)
                .all(|(a, b)| a.to_bits() == b.to_bits());
            assert!(same && d.to_bits() == want_dot.to_bits(), "{tasks} tasks");
        }
    }
}
