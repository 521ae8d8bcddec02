//! What the card can do, measured on the solver's context: the copy bandwidth (the floors'
//! bandwidth), the host's cost of one dispatch and the card's time a dependent dispatch.
//! The benchmark and the card check report them beside a step's figures.

use glium::backend::Context;
use glium::buffer::{Buffer, BufferMode, BufferType};
use glium::uniform;
use std::rc::Rc;
use std::time::Instant;

use crate::engine::Engine;
use crate::kernels::run;

impl Engine {
    /// The card's microseconds a dispatch in a chain where each one reads what the one
    /// before wrote (glium puts a memory barrier between them, as between a step's
    /// kernels): one work group each, so what is timed is a dispatch's launch and drain,
    /// not work. On the card's clock, between timestamps around the chain, which is issued
    /// behind a backlog of copies that keeps the card busy meanwhile, so that the host's
    /// issue rate does not show. `None` without timer queries, or where the host did not
    /// get ahead (the card reached the chain before the host had issued all of it).
    pub fn card_us_per_dependent_dispatch(&mut self) -> Option<f64> {
        if !self.raw.has_timer() {
            return None;
        }
        let src = "#version 430\nlayout(local_size_x = 64) in;\n\
                   layout(std430) buffer Chain { uint v[]; };\n\
                   void main() { if (gl_LocalInvocationID.x == 0u) { v[0] += 1u; } }\n";
        let k = glium::program::ComputeShader::from_source(&self.ctx, src).ok()?;
        let chain = Buffer::new(
            &self.ctx,
            &[0u32][..],
            BufferType::ShaderStorageBuffer,
            BufferMode::Default,
        )
        .ok()?;
        // The chain, and the backlog's copies (floats each, how many) that the card works
        // through while the host issues it. (On the H200 sixty copies, some 11 ms of
        // backlog, were not enough: the card reached the chain first. 240 are some 45 ms
        // there, 0.2 s on a card a tenth as fast.)
        let (n, floats, copies) = if self.software {
            (200u32, 4usize << 20, 8)
        } else {
            (2000, 32 << 20, 240)
        };
        let make = || {
            Buffer::<[f32]>::empty_unsized(
                &self.ctx,
                BufferType::ShaderStorageBuffer,
                4 * floats,
                BufferMode::Immutable,
            )
            .ok()
        };
        let (a, b) = (make()?, make()?);
        let go = || k.execute(uniform! { Chain: &chain }, 1, 1, 1);
        // The first dispatches compile and settle the state: not timed.
        for _ in 0..20 {
            go();
        }
        self.ctx.finish();
        for _ in 0..copies {
            run(
                &self.k.copy,
                self.dims(),
                floats,
                uniform! { Src: &a, Dst: &b },
            );
        }
        let start = self.raw.timestamp()?;
        for _ in 0..n {
            go();
        }
        let end = self.raw.timestamp()?;
        let issued = self.raw.clock_now();
        let t = self.raw.timestamps();
        let (t0, t1) = (*t.get(start)?, *t.get(end)?);
        // The host was ahead where the card had not reached the chain when it was issued.
        (issued? <= t0 && t1 > t0).then(|| (t1 - t0) as f64 / 1e3 / f64::from(n))
    }

    /// See [`crate::GpuSolver::host_us_per_dispatch`].
    pub fn host_us_per_dispatch(&self) -> Option<f64> {
        let src = "#version 430\nlayout(local_size_x = 64) in;\nvoid main() {}\n";
        let k = glium::program::ComputeShader::from_source(&self.ctx, src).ok()?;
        let n = 2000u32;
        // The first dispatches compile and settle the state: not timed.
        for _ in 0..50 {
            k.execute(glium::uniforms::EmptyUniforms, 1, 1, 1);
        }
        self.ctx.finish();
        let t = Instant::now();
        for _ in 0..n {
            k.execute(glium::uniforms::EmptyUniforms, 1, 1, 1);
        }
        let us = t.elapsed().as_secs_f64() * 1e6 / f64::from(n);
        self.ctx.finish();
        Some(us)
    }

    /// See [`crate::GpuSolver::copy_bandwidth_gb_s`].
    pub fn copy_bandwidth_gb_s(&mut self) -> Option<f64> {
        self.copy_bandwidth(crate::fields::FIELD_MODE, false)
    }

    /// Floats in each buffer of a copy: 256 MiB, far past any card's caches; 32 MiB on a
    /// software renderer, whose copies are slow enough to be timed on less (and past the
    /// CPU's caches too).
    fn copy_floats(&self) -> usize {
        if self.software {
            8 << 20
        } else {
            64 << 20
        }
    }

    /// Whether the copy about to be timed must first warm the card: the first this engine
    /// times on a hardware renderer (the later ones follow it at once; a software renderer
    /// has no clocks to raise).
    fn copy_warm_up(&mut self) -> bool {
        !self.software && !std::mem::replace(&mut self.copies_warmed, true)
    }

    /// Bytes read plus written per second (GB/s) by copies between two buffers of
    /// [`Engine::copy_floats`] floats made in `mode`: by the copy kernel (`copy.comp`, the
    /// shader cores, as the solver's kernels move data) or, with `engine`, by
    /// `glCopyBufferSubData` (a copy engine on some cards). Timed by [`best_copy_secs`].
    pub fn copy_bandwidth(&mut self, mode: BufferMode, engine: bool) -> Option<f64> {
        let warm_up = self.copy_warm_up();
        let n = self.copy_floats();
        let dims = self.dims();
        let make = || {
            Buffer::<[f32]>::empty_unsized(&self.ctx, BufferType::ShaderStorageBuffer, 4 * n, mode)
                .ok()
        };
        let (src, mut dst) = (make()?, make()?);
        let mut ok = true;
        let secs = best_copy_secs(&self.ctx, &mut self.raw, warm_up, || {
            ok &= if engine {
                src.copy_to(&mut dst).is_ok()
            } else {
                run(&self.k.copy, dims, n, uniform! { Src: &src, Dst: &dst });
                true
            }
        });
        ok.then(|| 2.0 * (4 * n) as f64 / secs / 1e9)
    }

    /// GB/s of a copy kernel of `wg` invocations a work group between two immutable
    /// buffers of [`Engine::copy_floats`] floats, each invocation copying `per` elements of
    /// one float (or, with `vec4`, of four), the k-th at k times the whole dispatch's
    /// invocations past its first (so each of its loads is a coalesced one, and all of
    /// them are issued before the first store): what the work-group size, the width of an
    /// access and the loads in flight an invocation are worth on this card, against
    /// `copy.comp` (one float an invocation). Timed as [`Engine::copy_bandwidth`]; `None`
    /// where it cannot run.
    /// With `check`, the copy starts from a known pattern and must leave it whole in the
    /// destination (the tests' way of knowing that a variant copies what it times).
    pub fn copy_variant_gb_s(&mut self, wg: u32, vec4: bool, per: u32, check: bool) -> Option<f64> {
        let ty = if vec4 { "vec4" } else { "float" };
        let src = format!(
            "#version 430\nlayout(local_size_x = {wg}) in;\n\
             layout(std430) readonly buffer Src {{ {ty} src[]; }};\n\
             layout(std430) writeonly buffer Dst {{ {ty} dst[]; }};\n\
             uniform uint count;\n\
             void main() {{\n\
               uint n = gl_NumWorkGroups.x * gl_NumWorkGroups.y * {wg}u;\n\
               uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * {wg}u;\n\
               {ty} v[{per}];\n\
               for (uint k = 0u; k < {per}u; ++k) {{ if (i + k * n < count) v[k] = src[i + k * n]; }}\n\
               for (uint k = 0u; k < {per}u; ++k) {{ if (i + k * n < count) dst[i + k * n] = v[k]; }}\n\
             }}\n"
        );
        let k = glium::program::ComputeShader::from_source(&self.ctx, &src).ok()?;
        let warm_up = self.copy_warm_up();
        let floats = self.copy_floats();
        let count = if vec4 { floats / 4 } else { floats };
        let (gx, gy) = crate::kernels::groups_for(count.div_ceil(per as usize), wg);
        let (ty, mode) = (BufferType::ShaderStorageBuffer, BufferMode::Immutable);
        // Both buffers hold the same bytes, as floats or as vec4s; with `check`, the source
        // holds a pattern (each float its index, modulo a prime under 2^24) that the
        // destination must hold after the copies.
        let pattern = |i: usize| (i % 16_777_213) as f32;
        macro_rules! time_copy {
            ($t:ty, $elem:expr) => {{
                let a = if check {
                    let data: Vec<$t> = (0..count).map($elem).collect();
                    Buffer::<[$t]>::new(&self.ctx, &data[..], ty, mode).ok()?
                } else {
                    Buffer::<[$t]>::empty_unsized(&self.ctx, ty, 4 * floats, mode).ok()?
                };
                let b = Buffer::<[$t]>::empty_unsized(&self.ctx, ty, 4 * floats, mode).ok()?;
                let count = count as u32;
                let secs = best_copy_secs(&self.ctx, &mut self.raw, warm_up, || {
                    k.execute(uniform! { Src: &a, Dst: &b, count: count }, gx, gy, 1)
                });
                if check {
                    let got: Vec<$t> = b.read().ok()?;
                    (got.len() == count as usize
                        && got.iter().enumerate().all(|(i, v)| *v == $elem(i)))
                    .then_some(())?;
                }
                secs
            }};
        }
        let secs = if vec4 {
            time_copy!([f32; 4], |i: usize| [0, 1, 2, 3]
                .map(|c| pattern(4 * i + c)))
        } else {
            time_copy!(f32, pattern)
        };
        Some(2.0 * (4 * floats) as f64 / secs / 1e9)
    }
}

impl Engine {
    /// GB/s read by the solver's reduction (`reduce.comp`: Σ and the largest |value|, mode
    /// 0, no region, no books) of [`Engine::copy_floats`] floats in `groups` work groups of
    /// [`crate::kernels::REDUCE_WG`] (a step's reductions take at most
    /// [`crate::kernels::REDUCE_GROUPS`]): what more invocations in flight would be worth to
    /// the sums on this card. Timed as [`Engine::copy_bandwidth`]; `None` where it cannot
    /// run. With `check`, the floats are whole numbers whose Σ (exact in a double) the
    /// partial sums must give.
    pub fn sum_variant_gb_s(&mut self, groups: u32, check: bool) -> Option<f64> {
        let warm_up = self.copy_warm_up();
        let n = self.copy_floats();
        let (ty, mode) = (BufferType::ShaderStorageBuffer, BufferMode::Immutable);
        let value = |i: usize| (i % 1021) as f32;
        let a = if check {
            let data: Vec<f32> = (0..n).map(value).collect();
            Buffer::<[f32]>::new(&self.ctx, &data[..], ty, mode).ok()?
        } else {
            Buffer::<[f32]>::empty_unsized(&self.ctx, ty, 4 * n, mode).ok()?
        };
        let sums = Buffer::<[f64]>::empty_unsized(&self.ctx, ty, 8 * groups as usize, mode).ok()?;
        let maxes =
            Buffer::<[u32]>::empty_unsized(&self.ctx, ty, 4 * groups as usize, mode).ok()?;
        let k = &self.k.reduce;
        let secs = best_copy_secs(&self.ctx, &mut self.raw, warm_up, || {
            let u = uniform! {
                A: &a,
                PartialSum: &sums,
                PartialMax: &maxes,
                base: 0u32,
                mode: 0u32,
                region: 0u32,
                book: 0u32,
                dims: [n as u32, 1, 1],
                count: n as u32,
            };
            k.execute(u, groups, 1, 1)
        });
        if check {
            let got: f64 = sums.read().ok()?.iter().sum();
            let want: f64 = (0..n).map(|i| f64::from(value(i))).sum();
            let top = maxes.read().ok()?.into_iter().max()?;
            (got == want && top == 1020f32.to_bits()).then_some(())?;
        }
        Some((4 * n) as f64 / secs / 1e9)
    }
}

/// How long a hardware card is kept copying before its copies are timed. A card idles at
/// low clocks and takes tens of milliseconds of work to raise them: on 2026-11-26 the H100's
/// copy kernel measured 1368 GB/s as the first work of a process and 1841 at its end, and
/// the copies timed between came out faster in the order they were timed (but for groups
/// of 1024). A software renderer has no clocks to raise.
const WARM_UP: std::time::Duration = std::time::Duration::from_millis(250);

/// Rounds of [`ROUND_COPIES`] copies timed; the best one counts.
const ROUNDS: usize = 5;
const ROUND_COPIES: usize = 4;

/// Seconds one copy (`go`) takes at best. With `warm_up`, the card is first kept copying for
/// [`WARM_UP`]; without, the first copy touches the memory and is not timed. Then [`ROUNDS`]
/// rounds of [`ROUND_COPIES`] copies, each round timed on the card's clock (timestamps
/// before and after it, so neither the host's wait nor its issue counts) where there are
/// timer queries, else to its end on the host's (`glFinish`).
fn best_copy_secs(
    ctx: &Rc<Context>,
    raw: &mut crate::raw::RawGl,
    warm_up: bool,
    mut go: impl FnMut(),
) -> f64 {
    let until = Instant::now() + if warm_up { WARM_UP } else { Default::default() };
    loop {
        go();
        ctx.finish();
        if Instant::now() >= until {
            break;
        }
    }
    let (mut host, mut marks) = (f64::INFINITY, Vec::with_capacity(ROUNDS));
    for _ in 0..ROUNDS {
        let t = Instant::now();
        let start = raw.timestamp();
        for _ in 0..ROUND_COPIES {
            go();
        }
        let end = raw.timestamp();
        ctx.finish();
        host = host.min(t.elapsed().as_secs_f64());
        marks.push(start.zip(end));
    }
    // Every round between its two timestamps, where each was recorded and read.
    let on_card = marks
        .iter()
        .copied()
        .collect::<Option<Vec<_>>>()
        .and_then(|marks| {
            let ts = raw.timestamps();
            marks
                .iter()
                .map(|&(a, b)| Some(ts.get(b)?.checked_sub(*ts.get(a)?)? as f64 * 1e-9))
                .collect::<Option<Vec<f64>>>()
        })
        .map(|secs| secs.into_iter().fold(f64::INFINITY, f64::min))
        .filter(|&s| s > 0.0 && s.is_finite());
    on_card.unwrap_or(host) / ROUND_COPIES as f64
}
