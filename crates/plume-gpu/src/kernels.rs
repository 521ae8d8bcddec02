//! The solver's compute shaders: compiled once per context from `shaders/sim/`, each with
//! the shared header, and dispatched over a number of items.

use glium::backend::Context;
use glium::program::ComputeShader;
use glium::uniforms::{AsUniformValue, Uniforms, UniformsStorage};
use std::rc::Rc;

/// The GLSL each kernel starts with, after `#version` and the work-group size.
const COMMON: &str = include_str!("../../../shaders/sim/common.glsl");

/// Files a kernel may `#include` (by name, textually: GLSL has no includes of its own).
const INCLUDES: [(&str, &str); 4] = [
    (
        "solid.glsl",
        include_str!("../../../shaders/sim/solid.glsl"),
    ),
    (
        "trace.glsl",
        include_str!("../../../shaders/sim/trace.glsl"),
    ),
    (
        "pressure.glsl",
        include_str!("../../../shaders/sim/pressure.glsl"),
    ),
    (
        "reduce.glsl",
        include_str!("../../../shaders/sim/reduce.glsl"),
    ),
];

/// Invocations in a work group of the per-item kernels, unless `PLUME_GPU_WG` names another
/// power of two from 32 to 1024 (for measuring the choice on a card; see [`wg`]).
pub(crate) const WG: u32 = 64;

/// The per-item kernels' work-group size: [`WG`], or `PLUME_GPU_WG` where it is a power of
/// two from 32 to 1024. Read once.
pub(crate) fn wg() -> u32 {
    static WG_NOW: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *WG_NOW.get_or_init(|| {
        std::env::var("PLUME_GPU_WG")
            .ok()
            .and_then(|v| v.trim().parse::<u32>().ok())
            .filter(|w| w.is_power_of_two() && (32..=1024).contains(w))
            .unwrap_or(WG)
    })
}
/// Invocations in a work group of the reductions, and the most groups one uses (so the
/// partial results are at most this many).
pub(crate) const REDUCE_WG: u32 = 256;
pub(crate) const REDUCE_GROUPS: u32 = 256;

/// Every kernel of the solver.
pub(crate) struct Kernels {
    pub cell_velocity: ComputeShader,
    pub advect_faces: ComputeShader,
    pub advect_cells: ComputeShader,
    pub buoyancy: ComputeShader,
    pub curl: ComputeShader,
    pub confine: ComputeShader,
    pub add_force: ComputeShader,
    pub boundary: ComputeShader,
    pub limit: ComputeShader,
    pub divergence: ComputeShader,
    pub add_constant: ComputeShader,
    pub laplace: ComputeShader,
    pub cg_step: ComputeShader,
    pub cg_scalars: ComputeShader,
    pub gradient: ComputeShader,
    pub reduce: ComputeShader,
    pub outflow: ComputeShader,
    pub cover: ComputeShader,
    pub burn: ComputeShader,
    pub expansion: ComputeShader,
    pub average: ComputeShader,
    pub gather: ComputeShader,
    pub diffuse: ComputeShader,
    pub mg: ComputeShader,
    pub publish: ComputeShader,
    pub flame_light: ComputeShader,
    pub copy: ComputeShader,
}

/// The full source of a kernel: version, work-group size, the common header, the kernel
/// with its includes put in.
pub(crate) fn source(kernel: &str, wg: u32) -> String {
    let mut body = String::new();
    expand(kernel, &mut body, 0);
    format!("#version 430\n#define WG {wg}\nlayout(local_size_x = WG) in;\n{COMMON}\n{body}")
}

/// `text` with its `#include "name"` lines replaced by those files, themselves expanded
/// (include guards in the files keep a file from coming in twice).
fn expand(text: &str, out: &mut String, depth: u32) {
    for line in text.lines() {
        let inc = line
            .trim()
            .strip_prefix("#include \"")
            .and_then(|r| r.strip_suffix('"'));
        match inc.and_then(|name| INCLUDES.iter().find(|(n, _)| *n == name)) {
            Some((_, included)) if depth < 4 => expand(included, out, depth + 1),
            _ => out.push_str(line),
        }
        out.push('\n');
    }
}

impl Kernels {
    /// Compiles every kernel; the error names the kernel and carries the compiler's log.
    pub fn new(ctx: &Rc<Context>) -> Result<Self, String> {
        let make = |name: &str, text: &str, wg: u32| {
            ComputeShader::from_source(ctx, &source(text, wg))
                .map_err(|e| format!("compiling shaders/sim/{name}: {e}"))
        };
        macro_rules! k {
            ($file:literal) => {
                make(
                    $file,
                    include_str!(concat!("../../../shaders/sim/", $file)),
                    wg(),
                )?
            };
            ($file:literal, $wg:expr) => {
                make(
                    $file,
                    include_str!(concat!("../../../shaders/sim/", $file)),
                    $wg,
                )?
            };
        }
        Ok(Self {
            cell_velocity: k!("cell_velocity.comp"),
            advect_faces: k!("advect_faces.comp"),
            advect_cells: k!("advect_cells.comp"),
            buoyancy: k!("buoyancy.comp"),
            curl: k!("curl.comp"),
            confine: k!("confine.comp"),
            add_force: k!("add_force.comp"),
            boundary: k!("boundary.comp"),
            limit: k!("limit.comp"),
            divergence: k!("divergence.comp"),
            add_constant: k!("add_constant.comp"),
            laplace: k!("laplace.comp"),
            cg_step: k!("cg_step.comp"),
            cg_scalars: k!("cg_scalars.comp", 1),
            gradient: k!("gradient.comp"),
            reduce: k!("reduce.comp", REDUCE_WG),
            outflow: k!("outflow.comp", REDUCE_WG),
            cover: k!("cover.comp"),
            burn: k!("burn.comp"),
            expansion: k!("expansion.comp"),
            average: k!("average.comp"),
            gather: k!("gather.comp"),
            diffuse: k!("diffuse.comp"),
            mg: k!("mg.comp"),
            publish: k!("publish.comp"),
            flame_light: k!("flame_light.comp", REDUCE_WG),
            copy: k!("copy.comp"),
        })
    }
}

/// Runs `k` over `items` items (one invocation each, in work groups of [`WG`], laid out
/// in two dimensions past 65535 groups), with `dims` and `count` added to `u`.
pub(crate) fn run<'n, T, R>(
    k: &ComputeShader,
    dims: [u32; 3],
    items: usize,
    u: UniformsStorage<'n, T, R>,
) where
    T: AsUniformValue,
    R: Uniforms,
{
    if items == 0 {
        return;
    }
    let (gx, gy) = groups_for(items);
    crate::cost::dispatch(|| k.execute(u.add("dims", dims).add("count", items as u32), gx, gy, 1));
}

/// Work groups along x and y for `items` items: at most 65534 along x (OpenGL guarantees
/// 65535; glium asserts fewer than the limit), the rest in rows along y.
pub(crate) fn groups_for(items: usize) -> (u32, u32) {
    let groups = (items as u64).div_ceil(u64::from(wg())).max(1);
    let gx = groups.min(65_534);
    (gx as u32, groups.div_ceil(gx) as u32)
}

/// Runs a reduction kernel over `items` items in at most [`REDUCE_GROUPS`] groups; returns
/// how many partial results it wrote.
pub(crate) fn run_reduce<'n, T, R>(
    k: &ComputeShader,
    dims: [u32; 3],
    items: usize,
    u: UniformsStorage<'n, T, R>,
) -> u32
where
    T: AsUniformValue,
    R: Uniforms,
{
    let groups = (items as u64)
        .div_ceil(u64::from(REDUCE_WG))
        .clamp(1, u64::from(REDUCE_GROUPS)) as u32;
    crate::cost::dispatch(|| k.execute(u.add("dims", dims).add("count", items as u32), groups, 1, 1));
    groups
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dispatches_of_the_largest_grids_stay_within_the_work_group_limits() {
        // 512³ cells, and its cell velocity (three floats a cell): rows along y.
        for items in [
            1usize,
            64,
            65,
            64 * 65_534,
            256usize.pow(3),
            512usize.pow(3),
            3 * 512usize.pow(3),
        ] {
            let (gx, gy) = groups_for(items);
            assert!(gx < 65_535 && gy < 65_535, "{items}: {gx}×{gy}");
            let covered = u64::from(gx) * u64::from(gy) * u64::from(wg());
            assert!(covered >= items as u64, "{items}: {gx}×{gy}");
            // Fewer than a row of groups too many.
            assert!(covered < items as u64 + u64::from(gx) * u64::from(wg()) + u64::from(wg()));
        }
    }
}
