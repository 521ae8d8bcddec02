//! The active region of the advected scalars: which cells a scalar advection pass must work
//! out, row by row, so the passes skip the air around the smoke (after the active domains of
//! Blender's smoke and the sparse solvers) without changing a single bit of the result.
//!
//! A cell's advected value comes from the source values within the reach of its trace: the
//! RK2 trace moves at most `k·max|u_a|` cells along each axis `a` (the midpoint velocity is
//! interpolated between cell velocities, themselves means of face velocities, and a trace
//! clamped to the domain or stopped at a solid only gets shorter), and the trilinear sample
//! at its end reads one cell further. Where every source value within that reach is the
//! field's outside value (0 for smoke, fuel and flame, the ambient temperature), the
//! semi-Lagrangian sample and MacCormack's φ̂, φ̃ clamped to the range of those values are
//! that value again, exactly (a trilinear mix of equal values is the value, bit for bit):
//! the pass writes it without tracing. So the work is: the cells holding anything else, per
//! row the span from the first to the last, widened by the reach along x, and the spans of
//! the rows within the reach along y and z joined in.
//!
//! Background cells are found by their bits, so −0 counts as smoke (a trace through it can
//! give +0 or −0; only exact equality is safe to skip).

use super::grid::Dims;
use rayon::prelude::*;
use std::sync::atomic::{AtomicBool, Ordering};

/// Cells `lo..hi` of a row along x (`lo ≥ hi`: none). Rows are numbered `j + ny·k`.
pub type Span = [u32; 2];

/// The span of a row with nothing to do; joining it to another leaves that one.
pub const EMPTY: Span = [u32::MAX, 0];

/// Set by [`set_sparse`]`(false)`: every cell is worked out.
static DENSE: AtomicBool = AtomicBool::new(false);

/// Lets the scalar passes skip the cells that hold nothing but outside air within their
/// traces' reach (`true`, the default) or makes them work out every cell (`false`), for the
/// whole process: to measure what the active region gains (`plume bench --dense`) and to
/// check that both give the same results. Results do not depend on it.
pub fn set_sparse(on: bool) {
    DENSE.store(!on, Ordering::Relaxed);
}

/// Whether the scalar passes skip the inactive cells (see [`set_sparse`]).
pub fn sparse_enabled() -> bool {
    !DENSE.load(Ordering::Relaxed)
}

/// Joins two spans (the smallest span holding both).
#[inline]
fn join(a: Span, b: Span) -> Span {
    [a[0].min(b[0]), a[1].max(b[1])]
}

/// Cells a span holds.
#[inline]
pub fn span_len(s: Span) -> usize {
    s[1].saturating_sub(s[0]) as usize
}

/// Per row, the span from the first to the last cell where some field's bits differ from
/// its background value's (`fields`: each field with its background).
pub fn support(fields: &[(&[f32], f32)], d: Dims) -> Vec<Span> {
    let nx = d.nx;
    for (f, _) in fields {
        assert_eq!(f.len(), d.cells());
    }
    (0..d.ny * d.nz)
        .into_par_iter()
        .map(|r| {
            let mut s = EMPTY;
            for &(f, bg) in fields {
                let row = &f[r * nx..][..nx];
                let b = bg.to_bits();
                // Most rows are all background: one pass that vectorises tells.
                if row.iter().fold(0, |acc, v| acc | (v.to_bits() ^ b)) == 0 {
                    continue;
                }
                if let Some(first) = row.iter().position(|v| v.to_bits() != b) {
                    let last = row.iter().rposition(|v| v.to_bits() != b).unwrap_or(first);
                    s = join(s, [first as u32, last as u32 + 1]);
                }
            }
            s
        })
        .collect()
}

/// The cells within `reach[a]` cells along each axis `a` of a cell in `spans`, as spans (a
/// superset: each row's span joins those of the rows within reach).
pub fn dilate(spans: &[Span], d: Dims, reach: [usize; 3]) -> Vec<Span> {
    let (nx, ny, nz) = (d.nx, d.ny, d.nz);
    assert_eq!(spans.len(), ny * nz);
    let rx = reach[0].min(nx) as u32;
    let (ry, rz) = (reach[1].min(ny), reach[2].min(nz));
    // Along y, plane by plane; then along z from that.
    let mut along_y = vec![EMPTY; ny * nz];
    along_y
        .par_chunks_mut(ny)
        .zip(spans.par_chunks(ny))
        .for_each(|(out, src)| {
            for (j, o) in out.iter_mut().enumerate() {
                let s = src[j.saturating_sub(ry)..(j + ry + 1).min(ny)]
                    .iter()
                    .fold(EMPTY, |a, &b| join(a, b));
                *o = if s[0] < s[1] {
                    [s[0].saturating_sub(rx), (s[1] + rx).min(nx as u32)]
                } else {
                    EMPTY
                };
            }
        });
    let mut out = vec![EMPTY; ny * nz];
    out.par_chunks_mut(ny).enumerate().for_each(|(k, plane)| {
        for kk in k.saturating_sub(rz)..(k + rz + 1).min(nz) {
            for (o, &s) in plane.iter_mut().zip(&along_y[kk * ny..][..ny]) {
                *o = join(*o, s);
            }
        }
    });
    out
}

/// The reach of a trace over `k` cells per unit velocity through a flow whose fastest face
/// velocities along the three axes are `vmax`, as [`dilate`] takes it: the cells the trace
/// moves, rounded up (cell centres sit at whole numbers, so the trilinear sample at the end
/// reads no further), plus two against rounding (a midpoint velocity interpolated an ulp
/// above the fastest face, the positions' own rounding). `None` where the velocity is not
/// finite (then no cell may be skipped).
pub fn reach(k: f32, vmax: [f32; 3]) -> Option<[usize; 3]> {
    let mut r = [0; 3];
    for a in 0..3 {
        let cells = f64::from(k.abs()) * f64::from(vmax[a]) * (1.0 + 1e-4);
        if !cells.is_finite() {
            return None;
        }
        r[a] = (cells.ceil() as usize).saturating_add(2);
    }
    Some(r)
}

/// The largest |value| of a field (NaN if any value is NaN).
pub fn max_abs(f: &[f32]) -> f32 {
    let bits = f
        .par_chunks(1 << 14)
        .map(max_abs_bits)
        .reduce(|| 0, u32::max);
    f32::from_bits(bits)
}

/// The largest of the values' bits without the sign: the order of |x| (NaN above infinity),
/// a plain integer maximum in sixteen running lanes (a function of its own, so it
/// vectorises; inside the closure the fold ran one value at a time).
pub(crate) fn max_abs_bits(c: &[f32]) -> u32 {
    let mut m = [0u32; 16];
    let lanes = c.chunks_exact(16);
    let tail = lanes.remainder().iter();
    for v in lanes {
        for (m, x) in m.iter_mut().zip(v) {
            *m = (*m).max(x.to_bits() & 0x7fff_ffff);
        }
    }
    let m = m.iter().copied().fold(0, u32::max);
    tail.fold(m, |m, x| m.max(x.to_bits() & 0x7fff_ffff))
}

/// The cells a scalar pass must work out ([`scalar_spans`]) and how far its traces reach.
#[derive(Clone, Debug)]
pub struct Region {
    /// Per row, the cells to work out.
    pub spans: Vec<Span>,
    /// How many cells the spans hold.
    pub cells: usize,
    /// The traces' reach along each axis ([`reach`]): a trace from a cell in the spans, its
    /// midpoint and the cells interpolated there included, stays within it.
    pub reach: [usize; 3],
}

/// The spans a scalar pass must work out, the cells they hold and the reach they were
/// widened by: the support of `fields` widened by the reach of a trace over `k` cells per
/// unit velocity through `vel_max()` (the fastest face velocity along each axis, asked for
/// only when the region is on). `None` when every cell must be worked out: the active region
/// is off ([`set_sparse`]), the velocity is not finite, or the spans would hold most of the
/// grid.
pub fn scalar_spans(
    fields: &[(&[f32], f32)],
    d: Dims,
    k: f32,
    vel_max: impl FnOnce() -> [f32; 3],
) -> Option<Region> {
    if !sparse_enabled() {
        return None;
    }
    let vel_max = vel_max();
    let reach = reach(k, vel_max)?;
    let spans = dilate(&support(fields, d), d, reach);
    let cells: usize = spans.iter().map(|&s| span_len(s)).sum();
    // Close to the whole grid, the skipping costs more than it saves.
    (cells * 10 < d.cells() * 9).then_some(Region {
        spans,
        cells,
        reach,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn brute(fields: &[(&[f32], f32)], d: Dims, r: [usize; 3]) -> Vec<bool> {
        // Every cell within reach (per axis) of a cell holding something.
        let mut out = vec![false; d.cells()];
        for k in 0..d.nz {
            for j in 0..d.ny {
                for i in 0..d.nx {
                    let c = d.idx(i, j, k);
                    if !fields.iter().any(|(f, bg)| f[c].to_bits() != bg.to_bits()) {
                        continue;
                    }
                    for kk in k.saturating_sub(r[2])..(k + r[2] + 1).min(d.nz) {
                        for jj in j.saturating_sub(r[1])..(j + r[1] + 1).min(d.ny) {
                            for ii in i.saturating_sub(r[0])..(i + r[0] + 1).min(d.nx) {
                                out[d.idx(ii, jj, kk)] = true;
                            }
                        }
                    }
                }
            }
        }
        out
    }

    #[test]
    fn spans_hold_every_cell_within_reach_of_smoke_and_little_else() {
        let d = Dims::new(20, 14, 11);
        let mut a = vec![0.0f32; d.cells()];
        let mut t = vec![0.3f32; d.cells()];
        a[d.idx(5, 6, 4)] = 1.0;
        a[d.idx(15, 2, 9)] = -0.0; // −0 is not the background's bits
        t[d.idx(0, 13, 0)] = 0.31;
        let fields: [(&[f32], f32); 2] = [(&a, 0.0), (&t, 0.3)];
        for r in [[0, 0, 0], [1, 2, 3], [3, 1, 0], [30, 30, 30]] {
            let spans = dilate(&support(&fields, d), d, r);
            let want = brute(&fields, d, r);
            let mut inside = 0;
            for (c, &w) in want.iter().enumerate() {
                let (i, row) = (c % d.nx, c / d.nx);
                let s = spans[row];
                let held = (i as u32) >= s[0] && (i as u32) < s[1];
                assert!(held || !w, "cell {c} within reach {r:?} but not in {s:?}");
                inside += usize::from(held);
            }
            let need = want.iter().filter(|&&w| w).count();
            // The spans join rows, so they may hold more, but not much more here.
            assert!(
                inside >= need && inside <= 4 * need,
                "{inside} vs {need}, {r:?}"
            );
        }
        // Nothing but background: no work at all.
        let zero = vec![0.0f32; d.cells()];
        let spans = dilate(&support(&[(&zero, 0.0)], d), d, [2, 2, 2]);
        assert!(spans.iter().all(|&s| span_len(s) == 0));
    }

    #[test]
    fn reach_covers_the_trace_and_refuses_non_finite_velocity() {
        assert_eq!(reach(0.5, [0.0, 1.0, 4.0]), Some([2, 3, 5]));
        assert_eq!(reach(-0.5, [1.0, 1.0, 1.0]), Some([3, 3, 3]));
        assert_eq!(reach(0.5, [f32::NAN, 0.0, 0.0]), None);
        assert_eq!(reach(0.5, [0.0, f32::INFINITY, 0.0]), None);
        assert_eq!(max_abs(&[1.0, -3.0, 2.0]), 3.0);
        let mut v = vec![0.5f32; 10_000];
        v[9_000] = f32::NAN;
        assert!(max_abs(&v).is_nan());
        // In the sixteen lanes, in the ragged tail (10 000 = 625·16, so 10 007 leaves 7),
        // across the parallel chunks, negative or positive.
        for at in [0, 5, 16 * 300 + 9, 10_003, 10_006, 20_000] {
            let mut v: Vec<f32> = (0..20_001).map(|i| ((i % 13) as f32 - 6.0) * 0.1).collect();
            v.truncate(if at < 10_007 { 10_007 } else { 20_001 });
            v[at] = if at % 2 == 0 { -7.5 } else { 7.5 };
            assert_eq!(max_abs(&v), 7.5, "largest at {at}");
        }
    }
}
