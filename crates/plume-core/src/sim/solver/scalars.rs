//! Density and temperature advection, the outflow estimate and the mass correction.

use super::*;

/// The mass correction's factor is held within these per sub-step (both backends), so that a
/// bad estimate cannot run away.
pub const MASS_CORRECTION_BOUNDS: [f64; 2] = [0.8, 1.25];

impl Solver {
    /// Advects density (with fade), while it is not uniform temperature (with cooling), and
    /// while something burns fuel and flame, then corrects the density's total (see [`Solver::correct_mass`]).
    pub(super) fn advect_scalars(&mut self, sides: [[Option<[f32; 3]>; 2]; 3]) {
        let d = self.grid.dims;
        let (h, dt) = (self.grid.h, self.sub_dt);
        let k_dt = dt / h;
        let mac = self.params.advection == Advection::MacCormack;
        let amb = self.params.ambient_temperature;
        let fade = (-self.params.fade * dt).exp();
        let cool = (-self.params.cooling * dt).exp();
        // What the density should total after advection: what it held, less what leaves
        // through open faces in this sub-step, faded (before the extrapolation into solids,
        // which advection reads from but which holds no smoke), with what moving obstacles
        // covered this sub-step (see `solver/moving.rs`).
        let before = det_sum(&self.density);
        self.before_advection = before;
        self.outflow = self.outflow_estimate(k_dt);
        let target =
            f64::from(fade) * (before + std::mem::take(&mut self.swept) - self.outflow).max(0.0);
        let solids = &self.solids;
        let n = d.cells();
        // Every field moves with the same velocity: one pass locates each trace once for all.
        // T' = amb + cool·(T − amb) = cool·T + (1 − cool)·amb.
        let temp_on = self.temperature_active;
        let fire_on = self.fire_active;
        let count = if fire_on {
            4
        } else if temp_on {
            2
        } else {
            1
        };
        if !solids.is_empty() {
            solids.extrapolate(d, &mut self.density);
            if temp_on {
                solids.extrapolate(d, &mut self.temperature);
            }
            if fire_on {
                solids.extrapolate(d, &mut self.fuel);
                solids.extrapolate(d, &mut self.flame);
            }
        }
        let vr = VelocityRef {
            dims: d,
            u: &self.vel[0],
            v: &self.vel[1],
            w: &self.vel[2],
        };
        let vs = &mut self.vel_sampler;
        let solids = &self.solids;
        let exits = &Exits {
            sides,
            solid: (!solids.is_empty()).then_some(solids.mask.as_slice()),
        };
        let mut src = vec![Scalar {
            src: &self.density,
            scale: fade,
            offset: 0.0,
            outside: 0.0,
        }];
        let mut dst: Vec<&mut [f32]> = vec![&mut self.density_tmp[..]];
        let mut hat: Vec<&mut [f32]> = Vec::new();
        if mac {
            self.mac_tmp.resize(n, 0.0);
            hat.push(&mut self.mac_tmp[..]);
        }
        if temp_on {
            self.temperature_tmp.resize(n, 0.0);
            src.push(Scalar {
                src: &self.temperature,
                scale: cool,
                offset: (1.0 - cool) * amb,
                outside: amb,
            });
            dst.push(&mut self.temperature_tmp[..]);
            if mac {
                self.mac_tmp2.resize(n, 0.0);
                hat.push(&mut self.mac_tmp2[..]);
            }
        }
        if fire_on {
            src.push(carried(&self.fuel));
            src.push(carried(&self.flame));
            let [t0, t1] = &mut self.fire_tmp;
            for t in [&mut *t0, &mut *t1] {
                t.resize(n, 0.0);
            }
            dst.push(&mut t0[..]);
            dst.push(&mut t1[..]);
            if mac {
                let [m0, m1] = &mut self.fire_mac;
                for m in [&mut *m0, &mut *m1] {
                    m.resize(n, 0.0);
                }
                hat.push(&mut m0[..]);
                hat.push(&mut m1[..]);
            }
        }
        // Only the cells within the traces' reach of anything but outside air (the same
        // bits as working out every cell; see `sim::active`).
        let fields: Vec<(&[f32], f32)> = src.iter().map(|s| (s.src, s.outside)).collect();
        // The velocity's largest components as the projection saw them, where it did.
        let scan = self.scan;
        let vmax = || match scan {
            Some(s) => s.vmax(),
            None => [vr.u, vr.v, vr.w].map(active::max_abs),
        };
        // The cut-offs from each field's largest departure the sub-step before (slots:
        // density, temperature, fuel, flame, in `src`'s order).
        let cuts = active::cuts_from(&self.scalar_maxima[..fields.len()]);
        let (region, maxima) = active::scalar_spans(&fields, &cuts, d, k_dt, vmax);
        if let Some(m) = maxima {
            for (slot, v) in self.scalar_maxima.iter_mut().zip(m) {
                *slot = Some(v);
            }
        }
        self.scalar_cells = region.as_ref().map_or(n, |r| r.cells);
        let region = region.as_ref();
        // MacCormack's backtrace cells go in one of the velocity advection's scratch buffers,
        // idle now (as many bytes a value as the u32 codes need).
        let cells: &mut [u32] = bytemuck::cast_slice_mut(&mut self.vel_tmp[2][..n]);
        match count {
            1 => advect_fields::<1>(dst, src, hat, cells, vr, vs, k_dt, exits, region),
            2 => advect_fields::<2>(dst, src, hat, cells, vr, vs, k_dt, exits, region),
            _ => advect_fields::<4>(dst, src, hat, cells, vr, vs, k_dt, exits, region),
        }
        if temp_on {
            std::mem::swap(&mut self.temperature, &mut self.temperature_tmp);
            solids.fill_cells(&mut self.temperature, amb);
        }
        if fire_on {
            std::mem::swap(&mut self.fuel, &mut self.fire_tmp[0]);
            std::mem::swap(&mut self.flame, &mut self.fire_tmp[1]);
            solids.fill_cells(&mut self.fuel, 0.0);
            solids.fill_cells(&mut self.flame, 0.0);
        }
        std::mem::swap(&mut self.density, &mut self.density_tmp);
        solids.fill_cells(&mut self.density, 0.0);
        self.mass_factor = self.correct_mass(target, region.map(|r| &r.spans[..]));
    }

    /// Smoke leaving through the open faces in a sub-step of `k_dt = dt/h` cells per unit
    /// velocity (Σ density, cell units): at every open boundary face whose projected velocity
    /// points out, the inside cell's density times the cells the flow carries past the face.
    pub(super) fn outflow_estimate(&self, k_dt: f32) -> f64 {
        let d = self.grid.dims;
        let mut out = 0.0f64;
        for a in 0..3 {
            for side in 0..2 {
                if !self.boundaries.face(a, side).is_open() {
                    continue;
                }
                let fd = d.faces(a);
                let n = d.as_array();
                let (b, c) = ((a + 1) % 3, (a + 2) % 3);
                let sign = if side == 0 { -1.0 } else { 1.0 };
                let mut sum = 0.0f64;
                for q in 0..n[c] {
                    for p in 0..n[b] {
                        let mut f = [0; 3];
                        f[a] = if side == 0 { 0 } else { n[a] };
                        f[b] = p;
                        f[c] = q;
                        let mut cell = f;
                        cell[a] = if side == 0 { 0 } else { n[a] - 1 };
                        let un = sign * self.vel[a][fd.idx(f[0], f[1], f[2])];
                        if un > 0.0 {
                            let rho = self.density[d.idx(cell[0], cell[1], cell[2])];
                            sum += f64::from(rho) * f64::from((un * k_dt).min(1.0));
                        }
                    }
                }
                out += sum;
            }
        }
        out
    }

    /// Semi-Lagrangian and MacCormack advection neither create nor keep mass exactly (the
    /// interpolation is not conservative: +12% to +117% over 14 s in a closed box). After each
    /// advection the density is scaled so its total equals what it held before, less the
    /// estimated outflow through open faces, times the fade: sources (added before) and the
    /// smoke that leaves are untouched, only advection's error is taken back. The factor is
    /// bounded to [0.8, 1.25] per sub-step so a bad estimate cannot run away. Returns it.
    /// With the advection's `spans`, only the cells in them are scaled: the others came out
    /// +0 (outside air), which scaling leaves as it is.
    pub(super) fn correct_mass(&mut self, target: f64, spans: Option<&[active::Span]>) -> f32 {
        let now = det_sum(&self.density);
        if !(now > 0.0 && target > 0.0) {
            return 1.0;
        }
        let [lo, hi] = MASS_CORRECTION_BOUNDS;
        let f = (target / now).clamp(lo, hi) as f32;
        if f == 1.0 {
            return f;
        }
        let Some(spans) = spans else {
            self.density.par_iter_mut().for_each(|x| *x *= f);
            return f;
        };
        let nx = self.grid.dims.nx;
        self.density
            .par_chunks_mut(nx)
            .zip(spans.par_iter())
            .for_each(|(row, &[a, b])| {
                if a < b {
                    for x in &mut row[a as usize..b as usize] {
                        *x *= f;
                    }
                }
            });
        f
    }
}

/// Advects the N fields `src` into `dst` with the scheme `hat` implies (MacCormack when it
/// holds N scratch fields, semi-Lagrangian when it is empty), in `region` when given.
#[allow(clippy::too_many_arguments)]
fn advect_fields<const N: usize>(
    dst: Vec<&mut [f32]>,
    src: Vec<Scalar<'_>>,
    hat: Vec<&mut [f32]>,
    cells: &mut [u32],
    vr: VelocityRef<'_>,
    vs: &mut advect::VelSampler,
    k_dt: f32,
    exits: &Exits<'_>,
    region: Option<&active::Region>,
) {
    let Ok(dst) = <[&mut [f32]; N]>::try_from(dst) else {
        unreachable!("one destination per field")
    };
    let Ok(src) = <[Scalar<'_>; N]>::try_from(src) else {
        unreachable!("one source per field")
    };
    if hat.is_empty() {
        advect::advect_cells_n(dst, src, vr, vs, k_dt, exits, region);
    } else {
        let Ok(hat) = <[&mut [f32]; N]>::try_from(hat) else {
            unreachable!("one MacCormack scratch field per field")
        };
        advect::maccormack_cells_n(dst, src, hat, cells, vr, vs, k_dt, exits, region);
    }
}

/// A field carried unchanged by the flow, 0 in the air outside (fuel, flame).
fn carried(src: &[f32]) -> Scalar<'_> {
    Scalar {
        src,
        scale: 1.0,
        offset: 0.0,
        outside: 0.0,
    }
}
