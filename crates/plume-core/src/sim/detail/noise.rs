//! Band-limited curl noise on a periodic tile, after Cook and DeRose's wavelet noise as Kim et
//! al. use it: white noise less its own coarse approximation (down-sampled by two, then
//! up-sampled) keeps only the top octave, so the noise adds detail at the scale it is sampled
//! at and almost nothing coarser; its curl is divergence-free, so the velocity it adds moves
//! smoke around without compressing it.

/// Texels along each side of the tile (a power of two).
pub const TILE: usize = 32;

/// A periodic tile of three-component curl noise, scaled to unit RMS per component.
#[derive(Clone, Debug)]
pub struct CurlTile {
    /// Fixed size, so indices masked to the tile need no bounds check.
    v: Box<[[f32; 3]; TILE * TILE * TILE]>,
}

/// xorshift64*: a small deterministic generator (the same tile for the same seed anywhere).
struct Rng(u64);

impl Rng {
    fn new(seed: u64) -> Self {
        Self(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03 | 1)
    }
    fn unit(&mut self) -> f32 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        let r = x.wrapping_mul(0x2545_F491_4F6C_DD1D);
        (r >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
    }
}

fn at(i: isize, j: isize, k: isize) -> usize {
    let m = TILE as isize - 1;
    ((i & m) + TILE as isize * ((j & m) + TILE as isize * (k & m))) as usize
}

/// One scalar band-limited tile: white noise less its down- then up-sampled self.
fn band_limited(rng: &mut Rng) -> Vec<f32> {
    let n = TILE;
    let r: Vec<f32> = (0..n * n * n).map(|_| rng.unit()).collect();
    // Down by two: a 2×2×2 box; up by two: trilinear, both periodic.
    let h = n / 2;
    let mut coarse = vec![0.0f32; h * h * h];
    for k in 0..h {
        for j in 0..h {
            for i in 0..h {
                let mut s = 0.0;
                for (di, dj, dk) in (0..8).map(|c| (c & 1, (c >> 1) & 1, c >> 2)) {
                    s += r[at(
                        (2 * i + di) as isize,
                        (2 * j + dj) as isize,
                        (2 * k + dk) as isize,
                    )];
                }
                coarse[i + h * (j + h * k)] = s / 8.0;
            }
        }
    }
    let cat = |i: isize, j: isize, k: isize| {
        let m = h as isize;
        coarse[(i.rem_euclid(m) + m * (j.rem_euclid(m) + m * k.rem_euclid(m))) as usize]
    };
    let mut out = vec![0.0f32; n * n * n];
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                // Fine texel centre in coarse texel-centre coordinates.
                let p = [i, j, k].map(|x| (x as f32 + 0.5) / 2.0 - 0.5);
                let b = p.map(|x| x.floor());
                let f = [p[0] - b[0], p[1] - b[1], p[2] - b[2]];
                let b = b.map(|x| x as isize);
                let mut s = 0.0;
                for c in 0..8 {
                    let (di, dj, dk) = (c & 1, (c >> 1) & 1, c >> 2);
                    let w = [(di, f[0]), (dj, f[1]), (dk, f[2])]
                        .iter()
                        .map(|&(d, f)| if d == 1 { f } else { 1.0 - f })
                        .product::<f32>();
                    s += w * cat(b[0] + di as isize, b[1] + dj as isize, b[2] + dk as isize);
                }
                out[at(i as isize, j as isize, k as isize)] =
                    r[at(i as isize, j as isize, k as isize)] - s;
            }
        }
    }
    out
}

impl CurlTile {
    /// The tile for `seed`: the curl of three independent band-limited tiles (central
    /// differences, periodic), scaled so the mean square of a component is 1.
    pub fn new(seed: u64) -> Self {
        let mut rng = Rng::new(seed);
        let psi: Vec<Vec<f32>> = (0..3).map(|_| band_limited(&mut rng)).collect();
        let n = TILE as isize;
        let mut v = vec![[0.0f32; 3]; TILE * TILE * TILE];
        let d = |f: &Vec<f32>, i: isize, j: isize, k: isize, axis: usize| {
            let o = |s: isize| match axis {
                0 => at(i + s, j, k),
                1 => at(i, j + s, k),
                _ => at(i, j, k + s),
            };
            0.5 * (f[o(1)] - f[o(-1)])
        };
        for k in 0..n {
            for j in 0..n {
                for i in 0..n {
                    v[at(i, j, k)] = [
                        d(&psi[2], i, j, k, 1) - d(&psi[1], i, j, k, 2),
                        d(&psi[0], i, j, k, 2) - d(&psi[2], i, j, k, 0),
                        d(&psi[1], i, j, k, 0) - d(&psi[0], i, j, k, 1),
                    ];
                }
            }
        }
        // One scale for the three components (separate ones would break the divergence).
        let rms = (v
            .iter()
            .map(|x| x.iter().map(|&c| f64::from(c).powi(2)).sum::<f64>())
            .sum::<f64>()
            / (3 * v.len()) as f64)
            .sqrt()
            .max(1e-12) as f32;
        for x in &mut v {
            for c in x.iter_mut() {
                *c /= rms;
            }
        }
        let v: Box<[[f32; 3]; TILE * TILE * TILE]> = v
            .into_boxed_slice()
            .try_into()
            .expect("the tile has TILE³ cells");
        Self { v }
    }

    /// The largest magnitude of any component.
    pub fn peak(&self) -> f32 {
        self.v
            .iter()
            .flat_map(|v| v.iter())
            .fold(0.0f32, |m, &c| m.max(c.abs()))
    }

    /// The noise at each point of `p` into `out` ([`CurlTile::sample`] of each, to the bit),
    /// sixteen at a time where the processor has AVX-512F, eight with AVX2.
    pub fn sample_many(&self, p: &[[f32; 3]], out: &mut [[f32; 3]]) {
        assert_eq!(p.len(), out.len());
        let mut m = 0;
        #[cfg(target_arch = "x86_64")]
        match crate::sim::trace16::simd_level() {
            crate::sim::trace16::Simd::Avx512 => {
                for (pp, oo) in p.chunks_exact(16).zip(out.chunks_exact_mut(16)) {
                    let (Ok(pp), Ok(oo)) = (pp.try_into(), oo.try_into()) else {
                        break; // chunks_exact gives sixteen
                    };
                    // SAFETY: the processor has AVX-512F (checked by `simd_level`).
                    unsafe { avx512::sample16(&self.v, pp, oo) };
                    m += 16;
                }
            }
            crate::sim::trace16::Simd::Avx2 => {
                for (pp, oo) in p.chunks_exact(8).zip(out.chunks_exact_mut(8)) {
                    let (Ok(pp), Ok(oo)) = (pp.try_into(), oo.try_into()) else {
                        break; // chunks_exact gives eight
                    };
                    // SAFETY: the processor has AVX2 (checked by `simd_level`).
                    unsafe { avx2::sample8(&self.v, pp, oo) };
                    m += 8;
                }
            }
            crate::sim::trace16::Simd::Scalar => {}
        }
        for (o, &q) in out[m..].iter_mut().zip(&p[m..]) {
            *o = self.sample(q);
        }
    }

    /// The noise at `p` (texel units), trilinear and periodic.
    #[inline(always)]
    pub fn sample(&self, p: [f32; 3]) -> [f32; 3] {
        // floor without a call to floorf (x86-64 without SSE4.1 has no rounding instruction).
        let fl = |x: f32| {
            let i = x as i32;
            if (i as f32) > x {
                i - 1
            } else {
                i
            }
        };
        let b = p.map(fl);
        let f = [0, 1, 2].map(|a| p[a] - b[a] as f32);
        let m = TILE as i32 - 1;
        let x = [b[0] & m, (b[0] + 1) & m].map(|v| v as usize);
        let y = [b[1] & m, (b[1] + 1) & m].map(|v| v as usize * TILE);
        let z = [b[2] & m, (b[2] + 1) & m].map(|v| v as usize * TILE * TILE);
        let wx = [1.0 - f[0], f[0]];
        let wy = [1.0 - f[1], f[1]];
        let wz = [1.0 - f[2], f[2]];
        let mut s = [0.0f32; 3];
        for (zi, &zo) in z.iter().enumerate() {
            for (yi, &yo) in y.iter().enumerate() {
                let wyz = wy[yi] * wz[zi];
                for (xi, &xo) in x.iter().enumerate() {
                    let w = wx[xi] * wyz;
                    let v = self.v[xo + yo + zo];
                    s[0] += w * v[0];
                    s[1] += w * v[1];
                    s[2] += w * v[2];
                }
            }
        }
        s
    }
}

#[cfg(target_arch = "x86_64")]
mod avx512 {
    use super::TILE;
    use std::arch::x86_64::*;

    /// [`super::CurlTile::sample`] at sixteen points: the same operations in the same
    /// order (no fused multiply-adds), the corners gathered.
    #[target_feature(enable = "avx512f")]
    pub(super) fn sample16(
        v: &[[f32; 3]; TILE * TILE * TILE],
        p: &[[f32; 3]; 16],
        out: &mut [[f32; 3]; 16],
    ) {
        let mut c = [[0.0f32; 16]; 3];
        for (m, q) in p.iter().enumerate() {
            for a in 0..3 {
                c[a][m] = q[a];
            }
        }
        let one_i = _mm512_set1_epi32(1);
        let one = _mm512_set1_ps(1.0);
        let mask = _mm512_set1_epi32(TILE as i32 - 1);
        // The floor as the one-point code takes it: truncate, one less where that is above.
        let floor_frac = |a: usize| {
            // SAFETY: c[a] holds sixteen values.
            let x = unsafe { _mm512_loadu_ps(c[a].as_ptr()) };
            let i = _mm512_cvttps_epi32(x);
            let above = _mm512_cmp_ps_mask::<_CMP_GT_OQ>(_mm512_cvtepi32_ps(i), x);
            let b = _mm512_mask_sub_epi32(i, above, i, one_i);
            (b, _mm512_sub_ps(x, _mm512_cvtepi32_ps(b)))
        };
        let (bx, fx) = floor_frac(0);
        let (by, fy) = floor_frac(1);
        let (bz, fz) = floor_frac(2);
        let wrap = |b: __m512i| {
            [
                _mm512_and_si512(b, mask),
                _mm512_and_si512(_mm512_add_epi32(b, one_i), mask),
            ]
        };
        let x = wrap(bx);
        let y = wrap(by).map(|v| _mm512_slli_epi32::<5>(v));
        let z = wrap(bz).map(|v| _mm512_slli_epi32::<10>(v));
        let wx = [_mm512_sub_ps(one, fx), fx];
        let wy = [_mm512_sub_ps(one, fy), fy];
        let wz = [_mm512_sub_ps(one, fz), fz];
        let three = _mm512_set1_epi32(3);
        let base = v.as_ptr() as *const f32;
        let mut s = [_mm512_setzero_ps(); 3];
        for zi in 0..2 {
            for yi in 0..2 {
                let wyz = _mm512_mul_ps(wy[yi], wz[zi]);
                for xi in 0..2 {
                    let w = _mm512_mul_ps(wx[xi], wyz);
                    let at = _mm512_add_epi32(_mm512_add_epi32(x[xi], y[yi]), z[zi]);
                    let at = _mm512_mullo_epi32(at, three);
                    for (k, sk) in s.iter_mut().enumerate() {
                        let idx = _mm512_add_epi32(at, _mm512_set1_epi32(k as i32));
                        // SAFETY: each index is below TILE³ (masked) times 3 plus k < 3: inside
                        // the tile's values.
                        let g = unsafe { _mm512_i32gather_ps::<4>(idx, base) };
                        *sk = _mm512_add_ps(*sk, _mm512_mul_ps(w, g));
                    }
                }
            }
        }
        let mut r = [[0.0f32; 16]; 3];
        for k in 0..3 {
            // SAFETY: r[k] holds sixteen values.
            unsafe { _mm512_storeu_ps(r[k].as_mut_ptr(), s[k]) };
        }
        for (m, o) in out.iter_mut().enumerate() {
            *o = [r[0][m], r[1][m], r[2][m]];
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::TILE;
    use std::arch::x86_64::*;

    /// [`super::CurlTile::sample`] at eight points: the same operations in the same order
    /// (no fused multiply-adds), the corners gathered.
    #[target_feature(enable = "avx2")]
    pub(super) fn sample8(
        v: &[[f32; 3]; TILE * TILE * TILE],
        p: &[[f32; 3]; 8],
        out: &mut [[f32; 3]; 8],
    ) {
        let mut c = [[0.0f32; 8]; 3];
        for (m, q) in p.iter().enumerate() {
            for a in 0..3 {
                c[a][m] = q[a];
            }
        }
        let one_i = _mm256_set1_epi32(1);
        let one = _mm256_set1_ps(1.0);
        let mask = _mm256_set1_epi32(TILE as i32 - 1);
        // The floor as the one-point code takes it: truncate, one less where that is above
        // (the comparison's all-ones lanes are −1 as integers).
        let floor_frac = |a: usize| {
            // SAFETY: c[a] holds eight values.
            let x = unsafe { _mm256_loadu_ps(c[a].as_ptr()) };
            let i = _mm256_cvttps_epi32(x);
            let above = _mm256_cmp_ps::<_CMP_GT_OQ>(_mm256_cvtepi32_ps(i), x);
            let b = _mm256_add_epi32(i, _mm256_castps_si256(above));
            (b, _mm256_sub_ps(x, _mm256_cvtepi32_ps(b)))
        };
        let (bx, fx) = floor_frac(0);
        let (by, fy) = floor_frac(1);
        let (bz, fz) = floor_frac(2);
        let wrap = |b: __m256i| {
            [
                _mm256_and_si256(b, mask),
                _mm256_and_si256(_mm256_add_epi32(b, one_i), mask),
            ]
        };
        let x = wrap(bx);
        let y = wrap(by).map(|v| _mm256_slli_epi32::<5>(v));
        let z = wrap(bz).map(|v| _mm256_slli_epi32::<10>(v));
        let wx = [_mm256_sub_ps(one, fx), fx];
        let wy = [_mm256_sub_ps(one, fy), fy];
        let wz = [_mm256_sub_ps(one, fz), fz];
        let three = _mm256_set1_epi32(3);
        let base = v.as_ptr() as *const f32;
        let mut s = [_mm256_setzero_ps(); 3];
        for zi in 0..2 {
            for yi in 0..2 {
                let wyz = _mm256_mul_ps(wy[yi], wz[zi]);
                for xi in 0..2 {
                    let w = _mm256_mul_ps(wx[xi], wyz);
                    let at = _mm256_add_epi32(_mm256_add_epi32(x[xi], y[yi]), z[zi]);
                    let at = _mm256_mullo_epi32(at, three);
                    for (k, sk) in s.iter_mut().enumerate() {
                        let idx = _mm256_add_epi32(at, _mm256_set1_epi32(k as i32));
                        // SAFETY: each index is below TILE³ (masked) times 3 plus k < 3: inside
                        // the tile's values.
                        let g = unsafe { _mm256_i32gather_ps::<4>(base, idx) };
                        *sk = _mm256_add_ps(*sk, _mm256_mul_ps(w, g));
                    }
                }
            }
        }
        let mut r = [[0.0f32; 8]; 3];
        for k in 0..3 {
            // SAFETY: r[k] holds eight values.
            unsafe { _mm256_storeu_ps(r[k].as_mut_ptr(), s[k]) };
        }
        for (m, o) in out.iter_mut().enumerate() {
            *o = [r[0][m], r[1][m], r[2][m]];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Unit RMS, zero mean, divergence near zero (central differences of a curl of central
    /// differences cancel up to the trilinear sampling), deterministic per seed.
    #[test]
    fn curl_noise_is_normalised_divergence_free_and_seeded() {
        let t = CurlTile::new(7);
        let n = t.v.len() as f64;
        for c in 0..3 {
            let mean = t.v.iter().map(|x| f64::from(x[c])).sum::<f64>() / n;
            let rms = (t.v.iter().map(|x| f64::from(x[c]).powi(2)).sum::<f64>() / n).sqrt();
            assert!(
                mean.abs() < 0.05 && (rms - 1.0).abs() < 0.15,
                "{c}: {mean} {rms}"
            );
        }
        let s = TILE as isize;
        let (mut div2, mut mag2) = (0.0f64, 0.0f64);
        for k in 0..s {
            for j in 0..s {
                for i in 0..s {
                    let g = |di: isize, dj: isize, dk: isize, a: usize| {
                        f64::from(t.v[at(i + di, j + dj, k + dk)][a])
                    };
                    let div = 0.5
                        * ((g(1, 0, 0, 0) - g(-1, 0, 0, 0))
                            + (g(0, 1, 0, 1) - g(0, -1, 0, 1))
                            + (g(0, 0, 1, 2) - g(0, 0, -1, 2)));
                    div2 += div * div;
                    mag2 += g(0, 0, 0, 0).powi(2);
                }
            }
        }
        assert!(div2 < 1e-6 * mag2, "divergence {div2} against {mag2}");
        assert_eq!(CurlTile::new(7).v, t.v);
        // Many at a time (sixteen with AVX-512) as one at a time, to the bit, negative and
        // far coordinates included.
        let p: Vec<[f32; 3]> = (0..53)
            .map(|m| {
                let m = m as f32;
                [m * 1.37 - 30.0, 100.0 - m * 2.11, (m * 0.77).sin() * 70.0]
            })
            .collect();
        let mut many = vec![[0.0; 3]; p.len()];
        t.sample_many(&p, &mut many);
        for (q, v) in p.iter().zip(&many) {
            assert_eq!(t.sample(*q), *v, "at {q:?}");
        }
        // The eight-lane path too, where the processor has AVX2 (whatever path the rest
        // takes).
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx2") {
            for chunk in p.chunks_exact(8) {
                let pp: &[[f32; 3]; 8] = chunk.try_into().expect("eight");
                let mut oo = [[0.0f32; 3]; 8];
                // SAFETY: the processor has AVX2 (checked above).
                unsafe { avx2::sample8(&t.v, pp, &mut oo) };
                for (q, v) in pp.iter().zip(&oo) {
                    assert_eq!(t.sample(*q), *v, "AVX2 at {q:?}");
                }
            }
        }
        assert_ne!(CurlTile::new(8).v, t.v);
    }
}
