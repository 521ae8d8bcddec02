//! Unit tests of [`super`]: face advection against its definition, the sampler's window.
use super::*;

use crate::sim::test_noise as noise;

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

/// The three components of `uvw` as a velocity on `d`.
fn velocity_ref(d: Dims, [u, v, w]: &[Vec<f32>; 3]) -> VelocityRef<'_> {
    VelocityRef { dims: d, u, v, w }
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
    let uvw = random_velocity(d, 4.0, 21);
    let vel = velocity_ref(d, &uvw);
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
    let uvw = random_velocity(d, 6.0, 40);
    let [u, v, w] = &uvw;
    let vel = velocity_ref(d, &uvw);
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
            None,
        );
        let (mut c, mut e) = (vec![0.0; n], vec![0.0; n]);
        advect_cells_n([&mut c, &mut e], f, vel, &mut vs, 0.8, &exits, None);
        let mut faces = [0, 1, 2].map(|a| vec![0.0; d.faces(a).cells()]);
        let mut mac: [MacScratch; 3] = [0, 1, 2].map(|a| {
            let m = d.faces(a).cells();
            (vec![0.0; m], vec![[0.0; 2]; m])
        });
        let [f0, f1, f2] = &mut faces;
        let fixed = [[true, false], [false, true], [false, false]];
        advect_velocity(
            [f0, f1, f2],
            [u, v, w],
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
        advect_velocity([f0, f1, f2], [u, v, w], d, &mut vs, 0.8, fixed, &exits, m);
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

/// The three semi-Lagrangian face passes run chunk by chunk together give each component's
/// own pass to the bit.
#[test]
fn velocity_advected_together_matches_each_component_on_its_own() {
    let d = Dims::new(10, 7, 21);
    let uvw = random_velocity(d, 5.0, 60);
    let [u, v, w] = &uvw;
    let vel = velocity_ref(d, &uvw);
    let exits = Exits {
        sides: [[None, Some([0.0; 3])], [None, Some([0.0; 3])], [None, None]],
        solid: None,
    };
    let fixed = [[true, false], [true, false], [true, true]];
    let mut together = [0, 1, 2].map(|a| vec![-1.0; d.faces(a).cells()]);
    let [t0, t1, t2] = &mut together;
    let mut vs = VelSampler::windowed(1);
    advect_velocity(
        [t0, t1, t2],
        [u, v, w],
        d,
        &mut vs,
        0.7,
        fixed,
        &exits,
        None,
    );
    for (a, t) in together.iter().enumerate() {
        let mut alone = vec![-1.0; d.faces(a).cells()];
        advect_faces(a, &mut alone, vel.comp(a), vel, 0.7, fixed[a], &exits);
        let bits = |x: &[f32]| x.iter().map(|v| v.to_bits()).collect::<Vec<u32>>();
        assert_eq!(bits(t), bits(&alone), "component {a}");
    }
}

/// The scalar passes working out only the active spans (`sim::active`) give the same bits
/// as working out every cell: smoke in blobs (one at an open face, one at a solid), −0 in
/// the air, a temperature around its outside value, traces up to a few cells long. The
/// sampler's window starts out holding another flow, so a pass that filled less of it than
/// its traces read (it fills only their reach around the cells traced) would show.
#[test]
fn scalar_passes_over_the_active_spans_match_every_cell() {
    use crate::sim::active;
    // Wide enough along x and y that the window's part a chunk fills is well inside it.
    let d = Dims::new(61, 45, 23);
    let n = d.cells();
    // A steady drift with swirls on it, so the longest traces come near the reach.
    let drift = [2.9, -2.2, 1.7];
    let uvw = random_velocity(d, 0.6, 50);
    let uvw: [Vec<f32>; 3] = [0, 1, 2].map(|a| uvw[a].iter().map(|x| x + drift[a]).collect());
    let vel = velocity_ref(d, &uvw);
    let mut solid = vec![0u8; n];
    for (k, j, i) in
        (14..17).flat_map(|k| (3..7).flat_map(move |j| (15..19).map(move |i| (k, j, i))))
    {
        solid[d.idx(i, j, k)] = 1;
    }
    let blob = |f: &mut [f32], c: [usize; 3], r: usize, bg: f32, seed: u32| {
        let z = noise(n, seed);
        for k in c[2] - r..=c[2] + r {
            for j in c[1] - r..=c[1] + r {
                for i in c[0] - r..=c[0] + r {
                    f[d.idx(i, j, k)] = bg + 1.0 + z[d.idx(i, j, k)];
                }
            }
        }
    };
    let mut rho = vec![0.0f32; n];
    blob(&mut rho, [5, 17, 6], 2, 0.0, 60);
    blob(&mut rho, [17, 8, 15], 2, 0.0, 61);
    rho[d.idx(20, 3, 3)] = -0.0;
    let mut temp = vec![0.3f32; n];
    blob(&mut temp, [6, 16, 6], 1, 0.3, 62);
    let f = [(&rho, 0.0), (&temp, 0.3)].map(|(s, air)| Scalar {
        src: s,
        scale: 0.95,
        offset: 0.05 * air,
        outside: air,
    });
    let fields = f.map(|s| (s.src, s.outside));
    let vmax = [&uvw[0], &uvw[1], &uvw[2]].map(|c| active::max_abs(c));
    for solid in [None, Some(&solid[..])] {
        let exits = Exits {
            sides: [
                [Some([0.0; 3]), None],
                [None, Some([0.0; 3])],
                [Some([0.0, 0.0, 1.0]), None],
            ],
            solid,
        };
        let k_dt = 0.7;
        let exact = [None; 2];
        let region = active::scalar_spans(&fields, &exact, d, k_dt, || vmax)
            .0
            .expect("smoke in part of the box");
        let cells = region.cells;
        assert!(cells < n / 2, "{cells} of {n} cells active");
        let other: [Vec<f32>; 3] =
            [0, 1, 2].map(|a| uvw[a].iter().map(|x| 1.0 - 3.0 * x).collect());
        let run = |f: [Scalar<'_>; 2], region: Option<&active::Region>| {
            let mut vs = VelSampler::windowed(1);
            vs.chunks(velocity_ref(d, &other), d.nz, |_, _, _| {});
            let (mut a, mut b) = (vec![9.0; n], vec![9.0; n]);
            let (mut h0, mut h1, mut codes) = (vec![9.0; n], vec![9.0; n], vec![0u32; n]);
            let (a_, b_) = (&mut a, &mut b);
            maccormack_cells_n(
                [a_, b_],
                f,
                [&mut h0, &mut h1],
                &mut codes,
                vel,
                &mut vs,
                k_dt,
                &exits,
                region,
            );
            let (mut c, mut e) = (vec![9.0; n], vec![9.0; n]);
            advect_cells_n([&mut c, &mut e], f, vel, &mut vs, k_dt, &exits, region);
            [a, b, h0, h1, c, e].map(|x| x.iter().map(|v| v.to_bits()).collect::<Vec<_>>())
        };
        let (sparse, dense) = (run(f, Some(&region)), run(f, None));
        for (q, (s, d)) in sparse.iter().zip(&dense).enumerate() {
            let diff = s.iter().zip(d).filter(|(a, b)| a != b).count();
            assert_eq!(
                diff,
                0,
                "output {q}: {diff} cells differ (solid: {})",
                solid.is_some()
            );
        }
        // A haze everywhere else, far below the cut-offs (as fading leaves it): the exact
        // test counts every cell, the cut-offs about the cells without the haze, and the
        // results stay within the cut-off of working out every cell.
        let haze = |f: &[f32], bg: f32, seed: u32| -> Vec<f32> {
            let z = noise(n, seed);
            f.iter()
                .zip(&z)
                .map(|(&v, &z)| if v == bg { bg + 1e-7 * (1.0 + z) } else { v })
                .collect()
        };
        let (rho_h, temp_h) = (haze(&rho, 0.0, 70), haze(&temp, 0.3, 71));
        let f_h = [(&rho_h, 0.0), (&temp_h, 0.3)].map(|(s, air)| Scalar {
            src: s,
            scale: 0.95,
            offset: 0.05 * air,
            outside: air,
        });
        let fields_h = f_h.map(|s| (s.src, s.outside));
        let exact_h = active::scalar_spans(&fields_h, &exact, d, k_dt, || vmax);
        assert!(exact_h.0.is_none(), "the haze makes every cell count");
        let maxima = exact_h.1.expect("worked out");
        assert!(maxima.iter().all(|&m| m > 1.0 && m < 2.0), "{maxima:?}");
        let cuts = active::cuts_from(&maxima.iter().map(|&m| Some(m)).collect::<Vec<_>>());
        let cut = cuts.iter().flatten().fold(0.0f32, |a, &b| a.max(b));
        let region_h = active::scalar_spans(&fields_h, &cuts, d, k_dt, || vmax)
            .0
            .expect("the haze is below the cut-offs");
        // (No larger than without the haze: the −0 cell no longer counts either.)
        assert!(
            region_h.cells <= region.cells && region_h.cells > region.cells / 2,
            "{} against {} cells",
            region_h.cells,
            region.cells
        );
        let (sparse, dense) = (run(f_h, Some(&region_h)), run(f_h, None));
        // φ̂ (outputs 2 and 3), the MacCormack and the semi-Lagrangian results.
        for (q, (s, d)) in sparse.iter().zip(&dense).enumerate() {
            let worst = s
                .iter()
                .zip(d)
                .map(|(&a, &b)| (f32::from_bits(a) - f32::from_bits(b)).abs())
                .fold(0.0f32, f32::max);
            assert!(
                worst <= 2.0 * cut,
                "output {q}: {worst} against a cut-off {cut}"
            );
            let moved = s.iter().zip(d).filter(|(a, b)| a != b).count();
            assert!(
                moved > 0 || q == 2 || q == 3,
                "output {q}: the haze went nowhere"
            );
        }
    }
}

/// MacCormack for the face velocities as [`advect_velocity`] runs it (φ̂'s samples and
/// ranges sixteen at a time through the cells they fell in, the last step inside the forward
/// pass, no φ̃ array) gives what the passes one after another give with φ̂'s samples and
/// ranges taken one at a time, to the bit, on every face that is not fixed, and the same φ̂
/// and ranges: with and without solid cells, open faces with and without wind, one fixed
/// end or both.
#[test]
fn velocity_maccormack_in_two_passes_matches_the_passes_one_after_another() {
    let d = Dims::new(19, 9, 12);
    let n = d.cells();
    let uvw = random_velocity(d, 3.0, 77);
    let [u, v, w] = &uvw;
    let vel = velocity_ref(d, &uvw);
    let mut solid = vec![0u8; n];
    for (k, j, i) in (5..8).flat_map(|k| (3..6).flat_map(move |j| (8..11).map(move |i| (k, j, i))))
    {
        solid[d.idx(i, j, k)] = 1;
    }
    let fixed = [[true, false], [true, false], [true, true]];
    for solid in [None, Some(&solid[..])] {
        let exits = Exits {
            sides: [
                [None, Some([0.0; 3])],
                [None, Some([0.3, 0.5, 0.0])],
                [None, None],
            ],
            solid,
        };
        let faces = |a: usize| vec![7.0f32; d.faces(a).cells()];
        let mut got = [0, 1, 2].map(faces);
        let mut mac: [MacScratch; 3] =
            [0, 1, 2].map(|a| (faces(a), vec![[7.0; 2]; d.faces(a).cells()]));
        let mut vs = VelSampler::windowed(1);
        let [g0, g1, g2] = &mut got;
        advect_velocity(
            [g0, g1, g2],
            [u, v, w],
            d,
            &mut vs,
            0.8,
            fixed,
            &exits,
            Some(&mut mac),
        );
        // The reference takes φ̂'s samples and ranges one at a time.
        PER_FACE.store(true, std::sync::atomic::Ordering::Relaxed);
        let mut want = [0, 1, 2].map(faces);
        let mut hats = [0, 1, 2].map(faces);
        let mut ranges = [0, 1, 2].map(|a| vec![[7.0f32; 2]; d.faces(a).cells()]);
        for a in 0..3 {
            let mut tilde = faces(a);
            let src = [&u[..], v, w][a];
            maccormack_faces(
                a,
                &mut want[a],
                src,
                vel,
                &mut vs,
                0.8,
                fixed[a],
                &exits,
                &mut hats[a],
                &mut tilde,
                &mut ranges[a],
            );
        }
        PER_FACE.store(false, std::sync::atomic::Ordering::Relaxed);
        let mut moved = 0;
        for a in 0..3 {
            let fd = d.faces(a);
            let last = fd.as_array()[a] - 1;
            for k in 0..fd.nz {
                for j in 0..fd.ny {
                    for i in 0..fd.nx {
                        let p = [i, j, k][a];
                        if (p == 0 && fixed[a][0]) || (p == last && fixed[a][1]) {
                            continue;
                        }
                        let c = fd.idx(i, j, k);
                        let at = format!(
                            "component {a} face {:?}, solid {}",
                            [i, j, k],
                            solid.is_some()
                        );
                        assert_eq!(got[a][c].to_bits(), want[a][c].to_bits(), "{at}");
                        assert_eq!(mac[a].0[c].to_bits(), hats[a][c].to_bits(), "φ̂ {at}");
                        assert_eq!(
                            mac[a].1[c].map(f32::to_bits),
                            ranges[a][c].map(f32::to_bits),
                            "range {at}"
                        );
                        moved += usize::from(got[a][c] != [u, v, w][a][c]);
                    }
                }
            }
        }
        assert!(moved > n, "only {moved} faces changed");
    }
}

/// MacCormack advection of the face-velocity component along `axis` (Selle et al. 2008, as
/// [`maccormack_cells_n`] for cells) as passes one after another: `φ̂` by a backward RK2
/// trace (into `hat`, keeping the range of the eight values interpolated in `range`), `φ̃`
/// from `φ̂` by a forward trace (into `tilde`), and `φ = φ̂ + ½(φⁿ − φ̃)` clamped to that
/// range. Where the forward trace leaves the samples (at a face of the domain) or touches a
/// solid cell, the face keeps the semi-Lagrangian `φ̂`. [`advect_velocity`] gives the same
/// values on every face that is not fixed, in two passes and without `tilde`.
#[allow(clippy::too_many_arguments)]
fn maccormack_faces(
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
    let back = Pass::Back(range);
    face_pass(axis, hat, src, vel, vs, -k_dt, fixed, exits, back);
    face_pass(axis, tilde, hat, vel, vs, k_dt, fixed, exits, Pass::Forward);
    for (c, o) in dst.iter_mut().enumerate() {
        *o = mac_step(hat[c], tilde[c], src[c], range[c]);
    }
}
