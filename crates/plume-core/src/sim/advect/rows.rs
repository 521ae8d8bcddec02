//! The velocity at one row of faces of one component, worked out from rows of the others
//! (means of the two or four face values around each face).

/// Velocity at the x-faces of one row from two rows of cells-wide samples `r0`, `r1` (the
/// y- or z-faces below and above): the mean of the four around each x-face, the two cells
/// beside it clamped at the row's ends. `out` has one more entry than the rows.
#[inline(always)]
pub(super) fn cross_x(out: &mut [f32], r0: &[f32], r1: &[f32]) {
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
pub(super) fn pair_x(out: &mut [f32], r0: &[f32], r1: &[f32]) {
    let n = r0.len() - 1;
    let (out, r1) = (&mut out[..n], &r1[..n + 1]);
    for i in 0..n {
        out[i] = 0.25 * (r0[i] + r1[i] + r0[i + 1] + r1[i + 1]);
    }
}

/// Element-wise mean of four rows.
#[inline(always)]
pub(super) fn quad(out: &mut [f32], a: &[f32], b: &[f32], c: &[f32], d: &[f32]) {
    for ((((o, a), b), c), d) in out.iter_mut().zip(a).zip(b).zip(c).zip(d) {
        *o = 0.25 * (a + b + c + d);
    }
}
