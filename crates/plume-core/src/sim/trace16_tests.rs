//! Tests of `sim::trace16`: sixteen at a time against one at a time, bit for bit.

use super::*;
use crate::sim::grid::Dims;
use crate::sim::sample::{VelSampler, VelocityRef};

use crate::sim::test_noise as noise;

/// Sixteen at a time gives the bits of one at a time: inside the window, outside it (fast
/// starts), at the grid's edges, for NaN starts, and for rows that are not a multiple of
/// sixteen long.
#[test]
fn sixteen_traces_at_a_time_give_the_bits_of_one_at_a_time() {
    rk2_rows_agree(Dims::new(37, 9, 30), false);
}

/// The same in smooth flows, where sixteen traces' midpoints mostly share their rows (the
/// window's rows loaded and permuted), on rows longer and shorter than 32 cells.
#[test]
fn sixteen_traces_in_a_smooth_flow_give_the_bits_of_one_at_a_time() {
    rk2_rows_agree(Dims::new(70, 9, 12), true);
    rk2_rows_agree(Dims::new(21, 7, 10), true);
}

/// Traces of rows (y, length) of every plane of `d`, sixteen at a time against one at a
/// time: in a random flow, or in a smooth one (`smooth`).
fn rk2_rows_agree(d: Dims, smooth: bool) {
    let wave = |n: usize, seed: u32, amp: f32| -> Vec<f32> {
        if smooth {
            let f = seed as f32 * 0.37;
            (0..n).map(|i| amp * (i as f32 * 0.013 + f).sin()).collect()
        } else {
            noise(n, seed).iter().map(|x| 2.0 * amp * x).collect()
        }
    };
    let [u, v, w] = [0, 1, 2].map(|a| wave(d.faces(a).cells(), 3 + a as u32, 2.5));
    let vel = VelocityRef {
        dims: d,
        u: &u,
        v: &v,
        w: &w,
    };
    let mut vs = VelSampler::windowed(1);
    let mut rows = 0;
    vs.chunks(vel, d.nz, |c0, c1, win| {
        for kz in c0..c1 {
            for (j, len) in [(0usize, d.nx), (4, 16), (d.ny - 1, d.nx - 16)] {
                let seed = (kz * 10 + j) as u32;
                let mut s = [0, 1, 2].map(|a| wave(len, seed * 3 + a, 6.0));
                s[seed as usize % 3][len / 2] = f32::NAN;
                let x0 = if j == 4 { -0.5 } else { 0.0 };
                let p = [x0, j as f32, kz as f32 - 0.5 * (j % 2) as f32];
                let u0 = [&s[0][..], &s[1][..], &s[2][..]];
                let mut a = [0, 1, 2].map(|_| vec![0.0f32; len]);
                let mut b = [0, 1, 2].map(|_| vec![0.0f32; len]);
                let [a0, a1, a2] = &mut a;
                rk2_row(win, 1, p, u0, -0.9, [a0, a1, a2]);
                let [b0, b1, b2] = &mut b;
                rk2_row_scalar(win, 1, p, u0, -0.9, [b0, b1, b2]);
                let bits = |x: &[Vec<f32>; 3]| {
                    x.concat().iter().map(|v| v.to_bits()).collect::<Vec<u32>>()
                };
                assert_eq!(bits(&a), bits(&b), "row y {j} z {kz}");
                #[cfg(target_arch = "x86_64")]
                if simd_available() {
                    let mut c = [0, 1, 2].map(|_| vec![0.0f32; len]);
                    let [c0, c1, c2] = &mut c;
                    // SAFETY: AVX-512F checked; the slices have `len` values each.
                    unsafe { avx512::row(win, 1, p, u0, -0.9, [c0, c1, c2]) };
                    assert_eq!(bits(&c), bits(&b), "row y {j} z {kz} (AVX-512)");
                }
                rows += 1;
            }
        }
    });
    assert_eq!(rows, 3 * d.nz);
}

/// Sixteen points and sixteen ranges at a time give the bits of one at a time: at random
/// points (outside the grid and NaN included), and around random cells (the last cells of
/// each axis, where a neighbour repeats, and codes with the outside-air bit set).
#[test]
fn sixteen_samples_and_ranges_at_a_time_give_the_bits_of_one_at_a_time() {
    let d = Dims::new(11, 6, 5);
    let (a, b) = (noise(d.cells(), 1), noise(d.cells(), 2));
    let s = [Sampler::new(&a, d), Sampler::new(&b, d)];
    let len = 53;
    let mut p = [0, 1, 2].map(|k| {
        let f = noise(len, 7 + k);
        f.iter().map(|x| 16.0 * x + 4.0).collect::<Vec<f32>>()
    });
    p[1][9] = f32::NAN;
    let pts = [&p[0][..], &p[1][..], &p[2][..]];
    let codes: Vec<u32> = (0..len)
        .map(|m| {
            let c = [m * 7 % d.nx, m * 5 % d.ny, m * 3 % d.nz].map(|x| x as u32);
            c[0] | c[1] << 10 | c[2] << 20 | u32::from(m % 4 == 0) << 31
        })
        .collect();
    type Out = ([Vec<f32>; 2], Vec<u32>, [Vec<f32>; 4]);
    let run = |simd: bool| -> Out {
        let mut v = [vec![0.0; len], vec![0.0; len]];
        let mut c = vec![0; len];
        let mut r = [0, 1, 2, 3].map(|_| vec![0.0; len]);
        let [v0, v1] = &mut v;
        let [l0, l1, h0, h1] = &mut r;
        if simd {
            sample_row(&s, pts, [v0, v1], Some(&mut c));
            range_row(&s, &codes, [l0, l1], [h0, h1]);
        } else {
            sample_row_scalar(&s, pts, [v0, v1], Some(&mut c));
            range_row_scalar(&s, &codes, [l0, l1], [h0, h1]);
        }
        (v, c, r)
    };
    let bits = |o: &Out| {
        let f = o.0.concat().into_iter().chain(o.2.concat());
        (f.map(f32::to_bits).collect::<Vec<u32>>(), o.1.clone())
    };
    let (one, many) = (run(false), run(true));
    assert_eq!(bits(&one), bits(&many));
    assert!(one.2[0].iter().zip(&one.2[2]).all(|(l, h)| l <= h));
    assert!(one.2[0].iter().zip(&one.2[2]).any(|(l, h)| l < h));
    if !simd_available() {
        eprintln!("no AVX-512 here: the dispatch took the scalar path on both sides");
    }
}

/// Sixteen points' lowest corners are grouped by the rows (y, z) they share, each group's
/// eight corners come out of the rows as one at a time would read them (the upper x-corner
/// the lower one where there is no neighbour along x), and a group spread over more than the
/// 32 values one load takes is refused (its points are then gathered or traced one at a time).
#[test]
fn points_are_grouped_by_the_rows_they_share() {
    #[cfg(target_arch = "x86_64")]
    if simd_available() {
        // SAFETY: AVX-512F checked.
        unsafe { grouping_checks() };
        return;
    }
    // Where it cannot run, CI (which measures and relies on this path) fails; elsewhere the
    // grouping is not used and there is nothing to check.
    assert!(
        std::env::var("CI").as_deref() != Ok("true"),
        "no AVX-512 here: the row grouping cannot be checked"
    );
    eprintln!("no AVX-512 here: the grouping is not used, nothing to check");
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn grouping_checks() {
    use avx512::{group_corners, row_groups, Rows};
    use std::arch::x86_64::*;
    let v = |a: [i32; 16]| {
        // SAFETY: sixteen i32.
        unsafe { _mm512_loadu_si512(a.as_ptr().cast()) }
    };
    let f32s = |x: __m512| {
        let mut a = [0.0f32; 16];
        // SAFETY: sixteen f32.
        unsafe { _mm512_storeu_ps(a.as_mut_ptr(), x) };
        a
    };
    for d in [[40usize, 6, 5], [20, 6, 5]] {
        let nx = d[0] as i32;
        let f: Vec<f32> = (0..d[0] * d[1] * d[2]).map(|i| i as f32).collect();
        let xs: [i32; 16] = std::array::from_fn(|l| (l as i32 + 3).min(nx - 1));
        // Lanes alternate between rows y 2 and 3; z is 4, the last plane (no upper neighbour).
        let ys: [i32; 16] = std::array::from_fn(|l| 2 + (l % 2) as i32);
        let i0 = [v(xs), v(ys), v([4; 16])];
        let has_x = (0..16)
            .filter(|&l| xs[l] + 1 < nx)
            .fold(0u16, |m, l| m | 1 << l);
        let live = 0x7fff;
        let mut groups = [None; 16];
        let n = row_groups(i0, live, has_x, &Rows::array(d), &mut groups).expect("grouped");
        assert_eq!(n, 2);
        let lanes: Vec<u16> = groups[..n].iter().flatten().map(|g| g.lanes).collect();
        assert_eq!(lanes, [0x5555, 0x2aaa]);
        // SAFETY: `f` has dimensions `d`.
        let g = unsafe { group_corners(&groups[..n], f.as_ptr()) }.map(f32s);
        let at = |x: i32, y: i32, z: i32| ((z * d[1] as i32 + y) * nx + x) as f32;
        for l in 0..15 {
            let (x, y) = (xs[l], ys[l]);
            let x1 = if has_x & (1 << l) != 0 { x + 1 } else { x };
            let want = [at(x, y, 4), at(x1, y, 4), at(x, y + 1, 4), at(x1, y + 1, 4)];
            for c in 0..8 {
                // No plane above z = 4: the upper corners are the lower ones.
                assert_eq!(g[c][l], want[c % 4], "dims {d:?} lane {l} corner {c}");
            }
        }
        // Spread over more than 32 values along x: refused (only where rows have them).
        let far: [i32; 16] = std::array::from_fn(|l| if l == 15 { nx - 1 } else { l as i32 });
        let i0 = [v(far), v([2; 16]), v([1; 16])];
        let r = row_groups(i0, 0xffff, 0x7fff, &Rows::array(d), &mut groups);
        assert_eq!(r.is_none(), nx > 32, "dims {d:?}");
    }
}
