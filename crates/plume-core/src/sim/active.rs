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
//! give +0 or −0; only exact equality is safe to skip) — on the first sub-step. After it,
//! a cell counts where its field departs from the background by more than [`CUTOFF`] of
//! the field's largest departure found the sub-step before: fading and cooling are
//! exponential, so without a cut-off the values they leave (down to 10⁻³⁰ and below) never
//! become background again, and after 13 s of the default scene every cell counted. A cell
//! whose trace reaches nothing above the cut-off is written as background, where working it
//! out would give a value within the cut-off of it (a trilinear mix, and MacCormack's
//! clamped correction, stay within the range of the values they mix): the passes differ from
//! working out every cell by at most that, and the mass correction puts the smoke it drops
//! back into the rest. NaN and infinities always count.

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
    let exact = vec![None; fields.len()];
    support_above(fields, &exact, d).0
}

/// The bits of |x| (sign cleared): ordered as |x| is for numbers, NaN above infinity.
#[inline(always)]
fn abs_bits(x: f32) -> u32 {
    x.to_bits() & 0x7fff_ffff
}

/// [`support`] with a cut-off per field: where `cuts[i]` is `Some(t)` (finite, ≥ 0), a cell
/// of field `i` counts only where |φ − background| > t (NaN and infinities always count);
/// `None` keeps the exact test of the bits. Also returns each field's largest
/// |φ − background| (NaN where a value is NaN), for the next call's cut-offs.
pub fn support_above(
    fields: &[(&[f32], f32)],
    cuts: &[Option<f32>],
    d: Dims,
) -> (Vec<Span>, Vec<f32>) {
    let nx = d.nx;
    assert_eq!(cuts.len(), fields.len());
    assert!(fields.len() <= 4, "at most four fields");
    for (f, _) in fields {
        assert_eq!(f.len(), d.cells());
    }
    for t in cuts.iter().flatten() {
        assert!(t.is_finite() && *t >= 0.0, "cut-off {t}");
    }
    let rows: Vec<(Span, [u32; 4])> = (0..d.ny * d.nz)
        .into_par_iter()
        .map(|r| {
            let mut s = EMPTY;
            let mut top = [0u32; 4];
            for (i, (&(f, bg), cut)) in fields.iter().zip(cuts).enumerate() {
                let row = &f[r * nx..][..nx];
                let m = row.iter().fold(0, |m, &v| m.max(abs_bits(v - bg)));
                top[i] = m;
                let Some(t) = cut else {
                    let b = bg.to_bits();
                    // Most rows are all background: one pass that vectorises tells.
                    if row.iter().fold(0, |acc, v| acc | (v.to_bits() ^ b)) == 0 {
                        continue;
                    }
                    if let Some(first) = row.iter().position(|v| v.to_bits() != b) {
                        let last = row.iter().rposition(|v| v.to_bits() != b).unwrap_or(first);
                        s = join(s, [first as u32, last as u32 + 1]);
                    }
                    continue;
                };
                let t = t.to_bits();
                if m <= t {
                    continue;
                }
                let on = |v: &f32| abs_bits(v - bg) > t;
                if let Some(first) = row.iter().position(on) {
                    let last = row.iter().rposition(on).unwrap_or(first);
                    s = join(s, [first as u32, last as u32 + 1]);
                }
            }
            (s, top)
        })
        .collect();
    let mut top = [0u32; 4];
    for (_, t) in &rows {
        for (a, &b) in top.iter_mut().zip(t) {
            *a = (*a).max(b);
        }
    }
    let maxima = top[..fields.len()]
        .iter()
        .map(|&b| f32::from_bits(b))
        .collect();
    (rows.into_iter().map(|(s, _)| s).collect(), maxima)
}

/// The part of a field's largest departure from its background below which the scalar
/// passes treat a cell as background air ([`scalar_spans`]'s `cuts`): a cell whose trace
/// reaches nothing above it comes out as the background, where working it out would give a
/// value at most this far from it. Without it, the exponential fading and cooling leave
/// values that never become exactly background (10⁻³⁰ of a degree) spread over the box,
/// and after 13 s of the default scene the region held every cell.
pub const CUTOFF: f32 = 1e-3;

/// Set by [`set_cutoff`]`(false)`: the exact test everywhere.
static NO_CUTOFF: AtomicBool = AtomicBool::new(false);

/// Lets the active region leave out what is below [`CUTOFF`] (`true`, the default) or keeps
/// the exact test of the bits (`false`: the results are then those of working out every
/// cell, bit for bit), for the whole process, to check the skipping itself.
pub fn set_cutoff(on: bool) {
    NO_CUTOFF.store(!on, Ordering::Relaxed);
}

/// The cut-offs [`scalar_spans`] takes from each field's largest departure found by the
/// call before (`None`, the exact test, where there is none, it is not finite, or the
/// cut-off is off: [`set_cutoff`]).
pub fn cuts_from(maxima: &[Option<f32>]) -> Vec<Option<f32>> {
    let on = !NO_CUTOFF.load(Ordering::Relaxed);
    maxima
        .iter()
        .map(|m| m.filter(|m| on && m.is_finite()).map(|m| CUTOFF * m))
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
            *m = (*m).max(abs_bits(*x));
        }
    }
    let m = m.iter().copied().fold(0, u32::max);
    tail.fold(m, |m, &x| m.max(abs_bits(x)))
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
/// widened by: the support of `fields` above their `cuts` ([`support_above`]) widened by
/// the reach of a trace over `k` cells per unit velocity through `vel_max()` (the fastest
/// face velocity along each axis, asked for only when the region is on). `None` when every
/// cell must be worked out: the active region is off ([`set_sparse`]), the velocity is not
/// finite, or the spans would hold most of the grid. Also each field's largest departure
/// from its background, where the support was worked out.
pub fn scalar_spans(
    fields: &[(&[f32], f32)],
    cuts: &[Option<f32>],
    d: Dims,
    k: f32,
    vel_max: impl FnOnce() -> [f32; 3],
) -> (Option<Region>, Option<Vec<f32>>) {
    if !sparse_enabled() {
        return (None, None);
    }
    let vel_max = vel_max();
    let Some(reach) = reach(k, vel_max) else {
        return (None, None);
    };
    let (support, maxima) = support_above(fields, cuts, d);
    let spans = dilate(&support, d, reach);
    let cells: usize = spans.iter().map(|&s| span_len(s)).sum();
    // Close to the whole grid, the skipping costs more than it saves.
    let region = (cells * 10 < d.cells() * 9).then_some(Region {
        spans,
        cells,
        reach,
    });
    (region, Some(maxima))
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
