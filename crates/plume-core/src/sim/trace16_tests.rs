//! Tests of `sim::trace16`: sixteen at a time against one at a time, bit for bit.

use super::*;
use crate::sim::grid::Dims;
use crate::sim::sample::{VelSampler, VelocityRef};

use crate::sim::test_noise as noise;

/// Held by the tests that change the process's vector-path cap, so that each sees its own.
static CAP_LOCK: std::sync::Mutex<()> = std::sync::Mutex::new(());

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
                if std::arch::is_x86_feature_detected!("avx512f") {
                    let mut c = [0, 1, 2].map(|_| vec![0.0f32; len]);
                    let [c0, c1, c2] = &mut c;
                    // SAFETY: AVX-512F checked; the slices have `len` values each.
                    unsafe { avx512::row(win, 1, p, u0, -0.9, [c0, c1, c2]) };
                    assert_eq!(bits(&c), bits(&b), "row y {j} z {kz} (AVX-512)");
                }
                #[cfg(target_arch = "x86_64")]
                if std::arch::is_x86_feature_detected!("avx2") {
                    let mut c = [0, 1, 2].map(|_| vec![0.0f32; len]);
                    let [c0, c1, c2] = &mut c;
                    // SAFETY: AVX2 checked; the slices have `len` values each.
                    unsafe { avx2::row(win, 1, p, u0, -0.9, [c0, c1, c2]) };
                    assert_eq!(bits(&c), bits(&b), "row y {j} z {kz} (AVX2)");
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
    let _cap = CAP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let one = run(false);
    assert!(one.2[0].iter().zip(&one.2[2]).all(|(l, h)| l <= h));
    assert!(one.2[0].iter().zip(&one.2[2]).any(|(l, h)| l < h));
    each_vector_path(|cap| assert_eq!(bits(&one), bits(&run(true)), "{cap:?}"));
}

/// Runs `check` with each vector path this processor has, each on its own (the process's
/// cap set to it), and says which ran; in CI at least one must (AVX2).
fn each_vector_path(mut check: impl FnMut(Simd)) {
    let mut levels = vec![];
    for cap in [Simd::Avx512, Simd::Avx2] {
        set_simd_cap(cap);
        if simd_level() == cap {
            check(cap);
            levels.push(cap);
        }
    }
    set_simd_cap(Simd::Avx512);
    eprintln!("vector paths checked here: {levels:?} (the others need their processor)");
    assert!(
        !levels.is_empty() || std::env::var("CI").as_deref() != Ok("true"),
        "no AVX2 here: no vector path checked"
    );
}

/// Rows longer than sixteen values, so that the AVX2 path takes the points' corners from
/// blocks of rows loaded whole (the test above has short rows, which it gathers): samples at
/// points spread along x by up to a cell from a row's cells and across the y and z faces of
/// the cells (so that eight points span two rows and two planes), and points spread too far
/// (gathered).
#[test]
fn samples_in_long_rows_give_the_bits_of_one_at_a_time() {
    let d = Dims::new(40, 5, 4);
    let (a, b) = (noise(d.cells(), 3), noise(d.cells(), 4));
    let s = [Sampler::new(&a, d), Sampler::new(&b, d)];
    let len = 203;
    // The noise is in [−0.5, 0.5): jitters in [−amp, amp).
    let jitter = |seed: u32, amp: f32| -> Vec<f32> {
        noise(len, seed).iter().map(|x| 2.0 * amp * x).collect()
    };
    let (jx, jy, jz) = (jitter(11, 1.0), jitter(12, 0.3), jitter(13, 0.3));
    let x: Vec<f32> = (0..len)
        .map(|m| {
            if m % 50 == 7 {
                35.0
            } else {
                (m % 40) as f32 + jx[m]
            }
        })
        .collect();
    let y: Vec<f32> = (0..len).map(|m| 2.0 + jy[m]).collect();
    let z: Vec<f32> = (0..len).map(|m| (m / 40 % 4) as f32 + jz[m]).collect();
    let codes: Vec<u32> = (0..len)
        .map(|m| (m % 40) as u32 | ((m / 3 % 5) as u32) << 10 | ((m / 40 % 4) as u32) << 20)
        .collect();
    let run = || {
        let mut v = [vec![0.0; len], vec![0.0; len]];
        let mut c = vec![0; len];
        let mut r = [0, 1, 2, 3].map(|_| vec![0.0; len]);
        let [v0, v1] = &mut v;
        let [l0, l1, h0, h1] = &mut r;
        sample_row(&s, [&x, &y, &z], [v0, v1], Some(&mut c));
        range_row(&s, &codes, [l0, l1], [h0, h1]);
        let f = v.concat().into_iter().chain(r.concat());
        (f.map(f32::to_bits).collect::<Vec<u32>>(), c)
    };
    let _cap = CAP_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    set_simd_cap(Simd::Scalar);
    let one = run();
    each_vector_path(|cap| assert_eq!(one, run(), "{cap:?}"));
}

/// Sixteen points' lowest corners (AVX-512) are grouped by the rows (y, z) they share, and
/// eight points' (AVX2) into a block of two rows and two planes at most; each point's eight
/// corners come out of the rows as one at a time would read them (the upper x-corner the
/// lower one where there is no neighbour along x), and points spread over more values than
/// one load takes are refused (then gathered or traced one at a time). Each check needs its
/// processor; CI needs at least AVX2.
#[test]
fn points_are_grouped_by_the_rows_they_share() {
    let mut checked = vec![];
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: AVX-512F checked.
            unsafe { grouping_checks() };
            checked.push("AVX-512");
        }
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: AVX2 checked.
            unsafe { grouping_checks_avx2() };
            checked.push("AVX2");
        }
    }
    eprintln!("groupings checked here: {checked:?}");
    assert!(
        !checked.is_empty() || std::env::var("CI").as_deref() != Ok("true"),
        "no AVX2 here: the row grouping cannot be checked"
    );
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn grouping_checks_avx2() {
    use avx2::{block, block_corners};
    use std::arch::x86_64::*;
    let v = |a: [i32; 8]| {
        // SAFETY: eight i32.
        unsafe { _mm256_loadu_si256(a.as_ptr().cast()) }
    };
    let f32s = |x: __m256| {
        let mut a = [0.0f32; 8];
        // SAFETY: eight f32.
        unsafe { _mm256_storeu_ps(a.as_mut_ptr(), x) };
        a
    };
    // Lanes alternate between rows y 2 and 3 (or all in row 2) and between planes 3 and 4 (4
    // the last: no upper neighbour), or all in plane 1; lane 7 is not live.
    let live = v([-1, -1, -1, -1, -1, -1, -1, 0]);
    for d in [[24usize, 6, 5], [16, 6, 5]] {
        type Lanes = fn(usize) -> i32;
        let cases: [(Lanes, Lanes); 2] = [
            (|l| 2 + (l % 2) as i32, |l| 3 + (l / 2 % 2) as i32),
            (|_| 2, |_| 1),
        ];
        for (ys, zs) in cases {
            let nx = d[0] as i32;
            let f: Vec<f32> = (0..d[0] * d[1] * d[2]).map(|i| i as f32).collect();
            let xs: [i32; 8] = std::array::from_fn(|l| (l as i32 + 9).min(nx - 1));
            let (ys, zs): ([i32; 8], [i32; 8]) = (std::array::from_fn(ys), std::array::from_fn(zs));
            let i0 = [v(xs), v(ys), v(zs)];
            let dx = v(xs.map(|x| i32::from(x + 1 < nx)));
            let bl = block(i0, live, dx, &Rows::array(d)).expect("a block");
            // Rows of 24: the x-corners are consecutive, taken by two loads a row; rows of
            // 16: the last two lanes share the row's last value, so by permutes.
            assert_eq!(bl.run.is_some(), d[0] == 24, "dims {d:?}");
            // SAFETY: `f` has dimensions `d`.
            let g = unsafe { block_corners(&bl, f.as_ptr()) }.map(f32s);
            let at = |x: i32, y: i32, z: i32| ((z * d[1] as i32 + y) * nx + x) as f32;
            for l in 0..7 {
                let (x, y, z) = (xs[l], ys[l], zs[l]);
                let x1 = if x + 1 < nx { x + 1 } else { x };
                let z1 = if z + 1 < d[2] as i32 { z + 1 } else { z };
                let want = [
                    at(x, y, z),
                    at(x1, y, z),
                    at(x, y + 1, z),
                    at(x1, y + 1, z),
                    at(x, y, z1),
                    at(x1, y, z1),
                    at(x, y + 1, z1),
                    at(x1, y + 1, z1),
                ];
                for c in 0..8 {
                    assert_eq!(g[c][l], want[c], "dims {d:?} lane {l} corner {c}");
                }
            }
        }
        // Spread over more than 16 values along x, or two rows apart: refused.
        let near: [i32; 8] = std::array::from_fn(|l| 2 + l as i32);
        let mut far = near;
        far[7] = 2 + 16;
        let r = block(
            [v(far), v([2; 8]), v([1; 8])],
            v([-1; 8]),
            v([1; 8]),
            &Rows::array(d),
        );
        assert!(r.is_none(), "dims {d:?}");
        let rows = v([1, 1, 1, 1, 1, 1, 1, 3]);
        let r = block(
            [v(near), rows, v([1; 8])],
            v([-1; 8]),
            v([1; 8]),
            &Rows::array(d),
        );
        assert!(r.is_none(), "dims {d:?}");
        // Unless the far lane is not live.
        let r = block([v(near), rows, v([1; 8])], live, v([1; 8]), &Rows::array(d));
        assert!(r.is_some(), "dims {d:?}");
    }
    // Rows shorter than sixteen values: not grouped (gathered).
    let i0 = [v([0; 8]), v([0; 8]), v([0; 8])];
    assert!(block(i0, v([-1; 8]), v([1; 8]), &Rows::array([15, 2, 2])).is_none());
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
fn grouping_checks() {
    use avx512::{group_corners, row_groups};
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
