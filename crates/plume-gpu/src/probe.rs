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
        // through while the host issues it.
        let (n, floats, copies) = if self.software {
            (200u32, 4usize << 20, 8)
        } else {
            (2000, 32 << 20, 60)
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
    pub fn copy_bandwidth_gb_s(&self) -> Option<f64> {
        self.copy_bandwidth(crate::fields::FIELD_MODE, false)
    }

    /// Bytes read plus written per second (GB/s) by copies between two buffers of 256 MiB
    /// (32 MiB on a software renderer) made in `mode`: by the copy kernel (`copy.comp`, the shader cores, as the solver's
    /// kernels move data) or, with `engine`, by `glCopyBufferSubData` (a copy engine on
    /// some cards). The best of three rounds of four copies, each round timed to its end
    /// (`glFinish`); the first copy touches the memory and is not timed.
    pub fn copy_bandwidth(&self, mode: BufferMode, engine: bool) -> Option<f64> {
        // 256 MiB, far past any card's caches; 32 MiB on a software renderer, whose copies
        // are slow enough to be timed on less (and past the CPU's caches too).
        let n = if self.software {
            8usize << 20
        } else {
            64 << 20
        };
        let make = || {
            Buffer::<[f32]>::empty_unsized(&self.ctx, BufferType::ShaderStorageBuffer, 4 * n, mode)
                .ok()
        };
        let (src, mut dst) = (make()?, make()?);
        let copy = |dst: &mut Buffer<[f32]>| -> Option<()> {
            if engine {
                src.copy_to(dst).ok()
            } else {
                run(
                    &self.k.copy,
                    self.dims(),
                    n,
                    uniform! { Src: &src, Dst: &*dst },
                );
                Some(())
            }
        };
        let mut ok = true;
        let secs = best_copy_secs(&self.ctx, || ok &= copy(&mut dst).is_some());
        ok.then(|| 2.0 * (4 * n) as f64 / secs / 1e9)
    }

    /// GB/s of a copy kernel of `wg` invocations a work group, each copying one float (or,
    /// with `vec4`, four), between two immutable buffers of 256 MiB: what the work-group
    /// size and the width of an access cost on this card (compared with `copy.comp`'s 64
    /// and one float). Timed as [`Engine::copy_bandwidth`]; `None` where it cannot run.
    pub fn copy_variant_gb_s(&self, wg: u32, vec4: bool) -> Option<f64> {
        use glium::buffer::BufferMode;
        let ty = if vec4 { "vec4" } else { "float" };
        let src = format!(
            "#version 430\nlayout(local_size_x = {wg}) in;\n\
             layout(std430) readonly buffer Src {{ {ty} src[]; }};\n\
             layout(std430) writeonly buffer Dst {{ {ty} dst[]; }};\n\
             uniform uint count;\n\
             void main() {{\n\
               uint i = gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * {wg}u;\n\
               if (i < count) dst[i] = src[i];\n\
             }}\n"
        );
        let k = glium::program::ComputeShader::from_source(&self.ctx, &src).ok()?;
        let floats = 64usize << 20;
        let items = if vec4 { floats / 4 } else { floats };
        let groups = (items as u64).div_ceil(u64::from(wg));
        let gx = groups.min(65_534);
        let gy = groups.div_ceil(gx);
        // Both buffers hold 256 MiB, as floats or as vec4s.
        let (ty, mode) = (BufferType::ShaderStorageBuffer, BufferMode::Immutable);
        let (gx, gy, count) = (gx as u32, gy as u32, items as u32);
        let secs = if vec4 {
            let a = Buffer::<[[f32; 4]]>::empty_unsized(&self.ctx, ty, 4 * floats, mode).ok()?;
            let b = Buffer::<[[f32; 4]]>::empty_unsized(&self.ctx, ty, 4 * floats, mode).ok()?;
            best_copy_secs(&self.ctx, || {
                k.execute(uniform! { Src: &a, Dst: &b, count: count }, gx, gy, 1)
            })
        } else {
            let a = Buffer::<[f32]>::empty_unsized(&self.ctx, ty, 4 * floats, mode).ok()?;
            let b = Buffer::<[f32]>::empty_unsized(&self.ctx, ty, 4 * floats, mode).ok()?;
            best_copy_secs(&self.ctx, || {
                k.execute(uniform! { Src: &a, Dst: &b, count: count }, gx, gy, 1)
            })
        };
        Some(2.0 * (4 * floats) as f64 / secs / 1e9)
    }
}

/// Seconds one copy (`go`) takes at best: a first copy touches the memory and is not timed,
/// then three rounds of four copies, each round timed to its end (`glFinish`).
fn best_copy_secs(ctx: &Rc<Context>, mut go: impl FnMut()) -> f64 {
    go();
    ctx.finish();
    let mut best = f64::INFINITY;
    for _ in 0..3 {
        let t = Instant::now();
        for _ in 0..4 {
            go();
        }
        ctx.finish();
        best = best.min(t.elapsed().as_secs_f64() / 4.0);
    }
    best
}
