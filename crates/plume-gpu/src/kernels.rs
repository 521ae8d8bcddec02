//! The solver's compute shaders: compiled once per context from `shaders/sim/`, each with
//! the shared header, and dispatched over a number of items.

use glium::backend::Context;
use glium::program::ComputeShader;
use glium::uniforms::{AsUniformValue, UniformValue, Uniforms, UniformsStorage};
use std::rc::Rc;

use crate::bytes::{ByteModel, MAX_KEYS};
use crate::clock::KernelClock;
pub(crate) use crate::switches::*;

/// The GLSL each kernel starts with, after `#version` and the work-group size.
const COMMON: &str = include_str!("../../../shaders/sim/common.glsl");

/// Files a kernel may `#include` (by name, textually: GLSL has no includes of its own).
const INCLUDES: [(&str, &str); 25] = [
    (
        "cover.glsl",
        include_str!("../../../shaders/sim/cover.glsl"),
    ),
    ("curl.glsl", include_str!("../../../shaders/sim/curl.glsl")),
    (
        "confinement.glsl",
        include_str!("../../../shaders/sim/confinement.glsl"),
    ),
    (
        "region.glsl",
        include_str!("../../../shaders/sim/region.glsl"),
    ),
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
    (
        "group_max.glsl",
        include_str!("../../../shaders/sim/group_max.glsl"),
    ),
    (
        "group_top.glsl",
        include_str!("../../../shaders/sim/group_top.glsl"),
    ),
    (
        "buoyancy.glsl",
        include_str!("../../../shaders/sim/buoyancy.glsl"),
    ),
    (
        "levels.glsl",
        include_str!("../../../shaders/sim/levels.glsl"),
    ),
    (
        "group_sum.glsl",
        include_str!("../../../shaders/sim/group_sum.glsl"),
    ),
    (
        "cell_velocity.glsl",
        include_str!("../../../shaders/sim/cell_velocity.glsl"),
    ),
    (
        "limit.glsl",
        include_str!("../../../shaders/sim/limit.glsl"),
    ),
    (
        "last_group.glsl",
        include_str!("../../../shaders/sim/last_group.glsl"),
    ),
    (
        "partial_sum.glsl",
        include_str!("../../../shaders/sim/partial_sum.glsl"),
    ),
    (
        "cg_sum.glsl",
        include_str!("../../../shaders/sim/cg_sum.glsl"),
    ),
    (
        "partial_top.glsl",
        include_str!("../../../shaders/sim/partial_top.glsl"),
    ),
    (
        "cg_figures.glsl",
        include_str!("../../../shaders/sim/cg_figures.glsl"),
    ),
    (
        "ledger.glsl",
        include_str!("../../../shaders/sim/ledger.glsl"),
    ),
    (
        "cells.glsl",
        include_str!("../../../shaders/sim/cells.glsl"),
    ),
    ("rows.glsl", include_str!("../../../shaders/sim/rows.glsl")),
    (
        "gradient.glsl",
        include_str!("../../../shaders/sim/gradient.glsl"),
    ),
    (
        "pressure_rows.glsl",
        include_str!("../../../shaders/sim/pressure_rows.glsl"),
    ),
];

/// How many work groups [`run`] lays out for `items` items of `wg` a group (a partial
/// result each where the kernel writes one a group).
pub(crate) fn groups_of(items: usize, wg: u32) -> u32 {
    let (gx, gy) = groups_for(items, wg);
    gx * gy
}

/// A compiled kernel, its work-group size and its byte model (`bytes.rs`).
pub(crate) struct Kernel {
    shader: ComputeShader,
    /// Its file name in `shaders/sim`, without `.comp`.
    pub name: &'static str,
    /// Invocations in a work group (`WG` in its source).
    pub wg: u32,
    /// Items an invocation works on (`PER` in its source; 1 but where it says).
    pub per: u32,
    /// The byte model, with the source's `// bytes` cases.
    model: ByteModel,
    /// The engine's kernel clock, told of every dispatch.
    clock: Rc<KernelClock>,
}

impl Kernel {
    /// The bytes of a dispatch over `items` items of the grid of `dims` with the uniforms
    /// `u`, in the byte model (its first `// bytes` case that matches `u`'s unsigned
    /// uniforms, else every array bound once an item).
    /// (Issued with every dispatch: the values the cases look at are collected into an
    /// array, nothing allocated.)
    pub(crate) fn bytes_of(&self, items: usize, dims: [u32; 3], u: &impl Uniforms) -> u64 {
        let keys = self.model.keys();
        let mut found = [None; MAX_KEYS];
        if !keys.is_empty() {
            u.visit_values(|name, v| {
                if let (UniformValue::UnsignedInt(x), Some(i)) =
                    (v, keys.iter().position(|k| k == name))
                {
                    found[i] = Some(x);
                }
            });
        }
        let cells = dims.iter().map(|&v| u64::from(v)).product();
        self.model.bytes_given(items as u64, cells, |k| {
            keys.iter().position(|q| q == k).and_then(|i| found[i])
        })
    }

    /// Issues `f`, a dispatch of this kernel over `items` items that moves `bytes` in the
    /// byte model: counted (`cost::dispatch`) and timed where the kernel clock is on.
    pub(crate) fn dispatch<R>(&self, items: usize, bytes: u64, f: impl FnOnce() -> R) -> R {
        let r = crate::cost::dispatch(bytes, f);
        self.clock.after(self.name, items as u64, bytes);
        r
    }
}

impl std::ops::Deref for Kernel {
    type Target = ComputeShader;
    fn deref(&self) -> &ComputeShader {
        &self.shader
    }
}

/// Every kernel's file name and byte model (its default bytes an item and its `// bytes`
/// cases), from the sources (no context needed). A case that contradicts its source's
/// declarations panics: `kernels_byte_cases_agree_with_their_declarations` checks them all.
pub fn kernel_bytes() -> Vec<(&'static str, ByteModel)> {
    SOURCES
        .iter()
        .map(|(name, text)| {
            let mut body = String::new();
            expand(text, &mut body, 0);
            let model =
                ByteModel::of(&body).unwrap_or_else(|e| panic!("shaders/sim/{name}.comp: {e}"));
            (*name, model)
        })
        .collect()
}

/// Every kernel's source, by file name.
const SOURCES: [(&str, &str); 36] = [
    (
        "cell_velocity",
        include_str!("../../../shaders/sim/cell_velocity.comp"),
    ),
    (
        "advect_faces",
        include_str!("../../../shaders/sim/advect_faces.comp"),
    ),
    (
        "advect_cells",
        include_str!("../../../shaders/sim/advect_cells.comp"),
    ),
    (
        "buoyancy",
        include_str!("../../../shaders/sim/buoyancy.comp"),
    ),
    ("curl", include_str!("../../../shaders/sim/curl.comp")),
    ("confine", include_str!("../../../shaders/sim/confine.comp")),
    (
        "boundary",
        include_str!("../../../shaders/sim/boundary.comp"),
    ),
    ("limit", include_str!("../../../shaders/sim/limit.comp")),
    (
        "divergence",
        include_str!("../../../shaders/sim/divergence.comp"),
    ),
    (
        "add_constant",
        include_str!("../../../shaders/sim/add_constant.comp"),
    ),
    ("laplace", include_str!("../../../shaders/sim/laplace.comp")),
    ("cg_step", include_str!("../../../shaders/sim/cg_step.comp")),
    (
        "cg_scalars",
        include_str!("../../../shaders/sim/cg_scalars.comp"),
    ),
    (
        "gradient",
        include_str!("../../../shaders/sim/gradient.comp"),
    ),
    ("reduce", include_str!("../../../shaders/sim/reduce.comp")),
    (
        "reduce_fields",
        include_str!("../../../shaders/sim/reduce_fields.comp"),
    ),
    ("outflow", include_str!("../../../shaders/sim/outflow.comp")),
    ("cover", include_str!("../../../shaders/sim/cover.comp")),
    ("burn", include_str!("../../../shaders/sim/burn.comp")),
    (
        "expansion",
        include_str!("../../../shaders/sim/expansion.comp"),
    ),
    ("average", include_str!("../../../shaders/sim/average.comp")),
    ("gather", include_str!("../../../shaders/sim/gather.comp")),
    ("diffuse", include_str!("../../../shaders/sim/diffuse.comp")),
    ("mg", include_str!("../../../shaders/sim/mg.comp")),
    ("mg_rows", include_str!("../../../shaders/sim/mg_rows.comp")),
    (
        "gradient_rows",
        include_str!("../../../shaders/sim/gradient_rows.comp"),
    ),
    (
        "divergence_rows",
        include_str!("../../../shaders/sim/divergence_rows.comp"),
    ),
    (
        "laplace_rows",
        include_str!("../../../shaders/sim/laplace_rows.comp"),
    ),
    ("smooth", include_str!("../../../shaders/sim/smooth.comp")),
    ("publish", include_str!("../../../shaders/sim/publish.comp")),
    (
        "flame_light",
        include_str!("../../../shaders/sim/flame_light.comp"),
    ),
    ("copy", include_str!("../../../shaders/sim/copy.comp")),
    ("ledger", include_str!("../../../shaders/sim/ledger.comp")),
    ("active", include_str!("../../../shaders/sim/active.comp")),
    (
        "vorticity",
        include_str!("../../../shaders/sim/vorticity.comp"),
    ),
    ("emit", include_str!("../../../shaders/sim/emit.comp")),
];

/// Every kernel of the solver.
pub(crate) struct Kernels {
    pub cell_velocity: Kernel,
    /// The same, [`WIDE_CELLS`] cells an invocation (see [`cells_per_invocation`]).
    pub cell_velocity_wide: Kernel,
    pub advect_faces: Kernel,
    /// The same, [`WIDE_CELLS`] faces an invocation.
    pub advect_faces_wide: Kernel,
    /// Its phase 2 (MacCormack's last step) compiled on its own (`FINISH`), one face an
    /// invocation and [`WIDE_CELLS`].
    pub advect_faces_finish: Kernel,
    pub advect_faces_finish_wide: Kernel,
    pub advect_cells: Kernel,
    /// The same, its traces taking the cell-centred velocity from the faces.
    pub advect_cells_from_faces: Kernel,
    pub buoyancy: Kernel,
    pub curl: Kernel,
    pub confine: Kernel,
    /// The curl and the confinement in one pass by tiles (`vorticity.comp`).
    pub vorticity: Kernel,
    pub boundary: Kernel,
    pub limit: Kernel,
    pub divergence: Kernel,
    /// The same, the solve's starting residual worked out in the pass (`RESIDUAL`).
    pub divergence_residual: Kernel,
    /// The same two in rows of four cells, `vec4`s (`divergence_rows.comp`).
    pub divergence_rows: Kernel,
    pub divergence_rows_residual: Kernel,
    pub add_constant: Kernel,
    pub laplace: Kernel,
    /// The same, an iteration's new search direction worked out in the pass (`DIRECTION`).
    pub laplace_direction: Kernel,
    /// The same, b − A·x: the solve's residual (`RESIDUAL`; the others are an iteration's).
    pub laplace_residual: Kernel,
    /// An iteration's A·p in rows of four cells, `vec4`s, without the new direction and with
    /// it (`laplace_rows.comp`; in groups of a quarter of [`DOT_WG`] rows: as many partial
    /// sums as `laplace`'s).
    pub laplace_rows: Kernel,
    pub laplace_rows_direction: Kernel,
    pub cg_step: Kernel,
    /// The same, [`WIDE_CELLS`] cells an invocation (see [`cells_per_invocation`]).
    pub cg_step_wide: Kernel,
    pub cg_scalars: Kernel,
    pub gradient: Kernel,
    /// The same, [`WIDE_CELLS`] cells an invocation (see [`cells_per_invocation`]).
    pub gradient_wide: Kernel,
    /// The same in rows of four cells, `vec4`s (`gradient_rows.comp`).
    pub gradient_rows: Kernel,
    pub reduce: Kernel,
    pub reduce_fields: Kernel,
    pub outflow: Kernel,
    pub cover: Kernel,
    /// An emitter's sources, every field in one dispatch (`emit.comp`).
    pub emit: Kernel,
    pub burn: Kernel,
    pub expansion: Kernel,
    pub average: Kernel,
    pub gather: Kernel,
    pub diffuse: Kernel,
    /// `mg.comp` in its parts (`MG_PART`), each compiled with its ops' code only: the
    /// sweeps and residual (ops 0 to 2 and 8), the restriction (3), the prolongation (4), and the
    /// copy with the one-group ops (5 to 7); see [`Kernels::mg_for`].
    pub mg_sweeps: Kernel,
    pub mg_restrict: Kernel,
    pub mg_prolong: Kernel,
    pub mg_group: Kernel,
    /// Ops 6 and 7 with their levels in shared memory (`SHARED_LEVELS`, part 6), where
    /// they fit in [`SHARED_FLOATS`] (`mg` on the kernel clock, as every part).
    pub mg_shared: Kernel,
    /// The sweeps and residual, [`WIDE_CELLS`] cells an invocation.
    pub mg_wide: Kernel,
    /// The finest level's last sweep with r·z's partial sums, in groups of [`DOT_WG`]
    /// (`RZ_SUMS`; the host's ops 9 and 10 in `mg_for`).
    pub mg_last: Kernel,
    /// The sweeps and residual in rows of four cells, `vec4`s (`mg_rows.comp`), and its
    /// last sweep with r·z's partial sums (`RZ_SUMS`, in groups of a quarter of [`DOT_WG`]
    /// rows: [`DOT_WG`] cells, as `mg_last`'s); see [`Kernels::mg_rows_for`].
    pub mg_rows: Kernel,
    pub mg_rows_last: Kernel,
    /// The restriction in rows of four coarse cells (`mg_rows.comp` with `RESTRICT_ROWS`: a
    /// program of its own, as `mg.comp`'s part 3).
    pub mg_rows_restrict: Kernel,
    /// The smoother's sweeps by tiles (`smooth.comp`).
    pub smooth: Kernel,
    pub publish: Kernel,
    pub flame_light: Kernel,
    pub copy: Kernel,
    pub ledger: Kernel,
    /// The scalars' active region (`active.comp`).
    pub active: Kernel,
}

/// The full source of a kernel: version, work-group size, the common header, the kernel
/// with its includes put in. Without [`finish_in_last_group`], `NO_LAST_GROUP` leaves the
/// last work group's code out of every kernel (`last_group.glsl`).
pub(crate) fn source(kernel: &str, wg: u32) -> String {
    let mut body = String::new();
    expand(kernel, &mut body, 0);
    let last = if finish_in_last_group() {
        ""
    } else {
        "#define NO_LAST_GROUP\n"
    };
    format!(
        "#version 430\n#define WG {wg}\n#define REDUCE_WG {REDUCE_WG}\n{last}layout(local_size_x = WG) in;\n{COMMON}\n{body}"
    )
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
    /// Compiles every kernel (the per-item ones in groups of [`item_wg`] for a `software`
    /// renderer or not; with `CELL_VEL_FLOATS` where the cell velocity is three floats a
    /// cell, `cell_vel_floats`); the error names the kernel and carries the compiler's log.
    pub fn new(
        ctx: &Rc<Context>,
        software: bool,
        cell_vel_floats: bool,
        clock: &Rc<KernelClock>,
    ) -> Result<Self, String> {
        let dump = dump_programs_dir();
        let layout = if cell_vel_floats {
            "#define CELL_VEL_FLOATS\n"
        } else {
            ""
        };
        let make_with = |file: &str, wg: u32, defines: &str| {
            let name = file.trim_end_matches(".comp");
            let (name, text) = SOURCES
                .iter()
                .find(|(n, _)| *n == name)
                .copied()
                .ok_or_else(|| format!("shaders/sim/{file} is not among the kernels' sources"))?;
            let defines = format!("{layout}{defines}");
            let src = source(&format!("{defines}{text}"), wg);
            let shader = ComputeShader::from_source(ctx, &src)
                .map_err(|e| format!("compiling shaders/sim/{file}: {e}"))?;
            if let Some(dir) = &dump {
                crate::dump::dump_program(&shader, dir, name, &defines, &src);
            }
            Ok::<_, String>(Kernel {
                shader,
                name,
                wg,
                per: 1,
                model: ByteModel::of(&src).map_err(|e| format!("shaders/sim/{file}: {e}"))?,
                clock: Rc::clone(clock),
            })
        };
        let make = |file: &str, wg: u32| make_with(file, wg, "");
        let per_item = item_wg(software);
        // The same kernel [`WIDE_CELLS`] cells an invocation (`cells.glsl`'s PER).
        let wide_with = |file: &str, defines: &str| {
            let k = make_with(
                file,
                per_item,
                &format!("#define PER {WIDE_CELLS}\n{defines}"),
            )?;
            Ok::<_, String>(Kernel {
                per: WIDE_CELLS,
                ..k
            })
        };
        let wide = |file: &str| wide_with(file, "");
        // `mg.comp`'s part (every part the whole kernel, 9, where `mg_whole`).
        let part_define = |part: u32| {
            let part = if mg_whole() { 9 } else { part };
            format!("#define MG_PART {part}\n")
        };
        let mg_part = |part: u32| make_with("mg.comp", per_item, &part_define(part));
        if dump.is_some() && !mg_whole() {
            // (for the dump only: `mg.comp` whole, every op in one program as before it was
            // compiled in parts, so that a card's registers can be compared with the parts')
            make_with("mg.comp", per_item, "#define MG_PART 9\n")?;
        }
        // (a kernel in rows writing a partial sum a group of DOT_WG cells, in their tree)
        let rows_sums = format!("#define SUM_PER {ROW_CELLS}\n");
        macro_rules! k {
            ($file:literal) => {
                make($file, per_item)?
            };
            ($file:literal, $wg:expr) => {
                make($file, $wg)?
            };
        }
        Ok(Self {
            cell_velocity: k!("cell_velocity.comp"),
            cell_velocity_wide: wide("cell_velocity.comp")?,
            advect_faces: k!("advect_faces.comp"),
            advect_faces_wide: wide("advect_faces.comp")?,
            advect_faces_finish: make_with("advect_faces.comp", per_item, "#define FINISH\n")?,
            advect_faces_finish_wide: wide_with("advect_faces.comp", "#define FINISH\n")?,
            advect_cells: k!("advect_cells.comp"),
            advect_cells_from_faces: make_with(
                "advect_cells.comp",
                per_item,
                "#define TRACE_FROM_FACES\n",
            )?,
            buoyancy: k!("buoyancy.comp"),
            curl: k!("curl.comp"),
            confine: k!("confine.comp"),
            vorticity: k!("vorticity.comp", TILE_WG),
            boundary: k!("boundary.comp"),
            limit: k!("limit.comp"),
            divergence: k!("divergence.comp"),
            divergence_residual: make_with("divergence.comp", DOT_WG, "#define RESIDUAL\n")?,
            divergence_rows: k!("divergence_rows.comp"),
            divergence_rows_residual: make_with(
                "divergence_rows.comp",
                DOT_WG,
                "#define RESIDUAL\n",
            )?,
            add_constant: k!("add_constant.comp"),
            laplace: k!("laplace.comp", DOT_WG),
            laplace_direction: make_with("laplace.comp", DOT_WG, "#define DIRECTION\n")?,
            laplace_residual: make_with("laplace.comp", DOT_WG, "#define RESIDUAL\n")?,
            laplace_rows: make_with("laplace_rows.comp", DOT_WG / ROW_CELLS, &rows_sums)?,
            laplace_rows_direction: make_with(
                "laplace_rows.comp",
                DOT_WG / ROW_CELLS,
                &format!("{rows_sums}#define DIRECTION\n"),
            )?,
            cg_step: k!("cg_step.comp"),
            cg_step_wide: wide("cg_step.comp")?,
            cg_scalars: k!("cg_scalars.comp", REDUCE_WG),
            gradient: k!("gradient.comp"),
            gradient_wide: wide("gradient.comp")?,
            gradient_rows: k!("gradient_rows.comp"),
            reduce: k!("reduce.comp", REDUCE_WG),
            reduce_fields: k!("reduce_fields.comp", REDUCE_WG),
            outflow: k!("outflow.comp", REDUCE_WG),
            cover: k!("cover.comp"),
            emit: k!("emit.comp"),
            burn: k!("burn.comp"),
            expansion: k!("expansion.comp"),
            average: k!("average.comp"),
            gather: k!("gather.comp"),
            diffuse: k!("diffuse.comp"),
            mg_sweeps: mg_part(0)?,
            mg_restrict: mg_part(3)?,
            mg_prolong: mg_part(4)?,
            mg_group: mg_part(5)?,
            mg_shared: make_with("mg.comp", per_item, &shared_levels())?,
            mg_wide: wide_with("mg.comp", &part_define(0))?,
            mg_last: make_with(
                "mg.comp",
                DOT_WG,
                &format!("{}#define RZ_SUMS\n", part_define(0)),
            )?,
            mg_rows: k!("mg_rows.comp"),
            mg_rows_last: make_with(
                "mg_rows.comp",
                DOT_WG / ROW_CELLS,
                &format!("#define RZ_SUMS\n{rows_sums}"),
            )?,
            mg_rows_restrict: make_with("mg_rows.comp", per_item, "#define RESTRICT_ROWS\n")?,
            smooth: k!("smooth.comp", TILE_WG),
            publish: k!("publish.comp"),
            flame_light: k!("flame_light.comp", REDUCE_WG),
            copy: k!("copy.comp"),
            ledger: k!("ledger.comp"),
            active: k!("active.comp"),
        })
    }

    /// The part of `mg.comp` that works op `op`; for the sweeps and residual (ops 0 to 2 and 8)
    /// [`WIDE_CELLS`] cells an invocation where `wide`.
    pub fn mg_for(&self, op: u32, wide: bool) -> &Kernel {
        match op {
            9 | 10 => &self.mg_last,
            0..=2 | 8 if wide => &self.mg_wide,
            0..=2 | 8 => &self.mg_sweeps,
            3 => &self.mg_restrict,
            4 => &self.mg_prolong,
            _ => &self.mg_group,
        }
    }

    /// The kernel in rows (`mg_rows.comp`) that works op `op` (0 to 2, the restriction 3,
    /// the prolongation 4, 8, and the last sweep's 9 and 10), `None` for the others.
    pub fn mg_rows_for(&self, op: u32) -> Option<&Kernel> {
        match op {
            9 | 10 => Some(&self.mg_rows_last),
            3 => Some(&self.mg_rows_restrict),
            0..=2 | 4 | 8 => Some(&self.mg_rows),
            _ => None,
        }
    }
}

/// Runs `k` over `items` items (one invocation each, in its work groups, laid out
/// in two dimensions past 65535 groups), with `dims` and `count` added to `u`.
pub(crate) fn run<'n, T, R>(k: &Kernel, dims: [u32; 3], items: usize, u: UniformsStorage<'n, T, R>)
where
    T: AsUniformValue,
    R: Uniforms,
{
    if items == 0 {
        return;
    }
    let (gx, gy) = groups_for(items.div_ceil(k.per as usize), k.wg);
    crate::cost::launched(u64::from(gx) * u64::from(gy) * u64::from(k.wg));
    let bytes = k.bytes_of(items, dims, &u);
    k.dispatch(items, bytes, || {
        k.execute(u.add("dims", dims).add("count", items as u32), gx, gy, 1)
    });
}

/// Work groups of `wg` invocations along x and y for `items` items: at most 65534 along x
/// (OpenGL guarantees 65535; glium asserts fewer than the limit), the rest in rows along y.
pub(crate) fn groups_for(items: usize, wg: u32) -> (u32, u32) {
    let groups = (items as u64).div_ceil(u64::from(wg)).max(1);
    let gx = groups.min(65_534);
    (gx as u32, groups.div_ceil(gx) as u32)
}

/// The work groups a reduction of `items` items takes: one a [`REDUCE_WG`] items, at most
/// [`REDUCE_GROUPS`] (`reduce_fields.comp` works it out the same way).
pub(crate) fn reduce_groups(items: usize) -> u32 {
    (items as u64)
        .div_ceil(u64::from(REDUCE_WG))
        .clamp(1, u64::from(REDUCE_GROUPS)) as u32
}

/// Runs a reduction kernel over `items` items in at most [`REDUCE_GROUPS`] groups; returns
/// how many partial results it wrote.
pub(crate) fn run_reduce<'n, T, R>(
    k: &Kernel,
    dims: [u32; 3],
    items: usize,
    u: UniformsStorage<'n, T, R>,
) -> u32
where
    T: AsUniformValue,
    R: Uniforms,
{
    let groups = reduce_groups(items);
    let bytes = k.bytes_of(items, dims, &u);
    k.dispatch(items, bytes, || {
        k.execute(u.add("dims", dims).add("count", items as u32), groups, 1, 1)
    });
    groups
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn kernels_byte_cases_agree_with_their_declarations() {
        // Every case names arrays its kernel binds, with passes their qualifiers allow
        // (`ByteModel::of` checks), and looks only at unsigned uniforms the kernel declares
        // (a case on a name the dispatch never sets would never apply).
        let models = kernel_bytes();
        assert_eq!(models.len(), SOURCES.len());
        let mut cases = 0;
        for ((name, model), (_, text)) in models.iter().zip(SOURCES) {
            let mut body = String::new();
            expand(text, &mut body, 0);
            for case in &model.cases {
                for (uniform, _) in &case.when {
                    let decl = format!("uniform uint {uniform};");
                    assert!(
                        body.lines().any(|l| l.trim().starts_with(&decl)),
                        "{name}: `{}` looks at `{uniform}`, which it does not declare as a uint",
                        case.text
                    );
                }
                cases += 1;
            }
        }
        // (the kernels that say more than their bindings: cg_step, laplace, divergence,
        // reduce, mg, smooth, advect_faces, advect_cells, ledger, active)
        assert!(cases >= 30, "{cases} cases");
    }

    #[test]
    fn the_solves_vector_updates_move_what_they_touch() {
        let models: std::collections::HashMap<_, _> = kernel_bytes().into_iter().collect();
        let values = |pairs: &[(&str, u32)]| -> HashMap<String, u32> {
            pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
        };
        let per_item =
            |kernel: &str, pairs: &[(&str, u32)]| models[kernel].bytes(1, 0, &values(pairs));
        // x += α·p, r −= α·q: x and r read and written, p and q read.
        assert_eq!(per_item("cg_step", &[("phase", 0)]), 24);
        // p = z + β·p: z read, p read and written.
        assert_eq!(per_item("cg_step", &[("phase", 1), ("precond", 1)]), 12);
        assert_eq!(per_item("laplace", &[("residual", 0)]), 8);
        assert_eq!(per_item("laplace", &[("residual", 1)]), 12);
        // The restriction reads eight fine cells an item.
        assert_eq!(per_item("mg", &[("op", 3)]), 36);
        // A face of the three axes: its own written, the faces (12 bytes) and cell velocity
        // (a vec4, 16) a cell.
        let faces =
            |items: u64| models["advect_faces"].bytes(items, 1000, &values(&[("phase", 0)]));
        assert_eq!(faces(3000), 3000 * 4 + 1000 * 28);
    }

    #[test]
    fn dispatches_of_the_largest_grids_stay_within_the_work_group_limits() {
        // 512³ cells, and its faces of the three axes: rows along y.
        for items in [
            1usize,
            64,
            65,
            64 * 65_534,
            256usize.pow(3),
            512usize.pow(3),
            3 * 512usize.pow(3),
        ] {
            for wg in [WG_SOFTWARE, WG] {
                let (gx, gy) = groups_for(items, wg);
                assert!(gx < 65_535 && gy < 65_535, "{items}: {gx}×{gy}");
                let covered = u64::from(gx) * u64::from(gy) * u64::from(wg);
                assert!(covered >= items as u64, "{items}: {gx}×{gy}");
                // Fewer than a row of groups too many.
                assert!(covered < items as u64 + u64::from(gx) * u64::from(wg) + u64::from(wg));
            }
        }
    }

    /// Where the environment does not say, a card's vorticity goes in two passes and is not
    /// tuned (NVIDIA's driver rounds its two ways differently), and a software renderer's is
    /// left to the tuner (Mesa gives both the same bits).
    #[test]
    fn a_cards_vorticity_is_fixed_to_two_passes() {
        // (the environment, where an experiment sets it, says for both)
        let set = env_flag("PLUME_GPU_TILED_VORTICITY");
        assert_eq!(tiled_vorticity(false), set.or(Some(false)));
        assert_eq!(tiled_vorticity(true), set);
    }

    /// Where the environment does not say, the smoother goes by tiles on a software renderer
    /// and a pass a sweep on a card, and the tuner's first V-cycle way is that default.
    #[test]
    fn the_smoothers_default_is_the_renderers() {
        for software in [true, false] {
            let want = env_flag("PLUME_GPU_TILED_SMOOTH").unwrap_or(software);
            assert_eq!(tiled_smoothing(software), want);
            let ways = crate::tune::v_cycles(software);
            assert_eq!(ways[0].tiled, software, "{ways:?}");
            assert_eq!(
                ways[0].fused_cells,
                default_fused_cells(software),
                "{ways:?}"
            );
            assert_eq!(ways[0].sweep_cells, 1, "{ways:?}");
            // Different ways (seven on llvmpipe, five on a card: none by tiles there), each
            // named for what it does, one of them the passes a sweep four cells an
            // invocation, one in rows of four.
            for (i, w) in ways.iter().enumerate() {
                assert_eq!(w.name.starts_with("tiles"), w.tiled, "{w:?}");
                let fused = match w.fused_cells {
                    0 => "none fused".to_string(),
                    c => format!("fused up to {c} cells"),
                };
                assert!(w.name.ends_with(&fused), "{w:?}");
                assert_eq!(
                    w.name.contains("4 cells an invocation"),
                    w.sweep_cells == WIDE_CELLS,
                    "{w:?}"
                );
                assert!(!w.tiled || w.sweep_cells == 1, "{w:?}");
                assert_eq!(w.name.contains("tiles below"), w.tiled_coarse, "{w:?}");
                assert_eq!(w.name.contains("rows of 4"), w.rows, "{w:?}");
                assert!(!w.rows || (!w.tiled && w.sweep_cells == 1), "{w:?}");
                let how = |v: &crate::tune::VWay| {
                    (
                        v.tiled,
                        v.fused_cells,
                        v.sweep_cells,
                        v.tiled_coarse,
                        v.rows,
                    )
                };
                assert!(ways[..i].iter().all(|v| how(v) != how(w)), "{ways:?}");
            }
            assert_eq!(ways.len(), if software { 7 } else { 5 }, "{ways:?}");
            assert!(software || ways.iter().all(|w| !w.tiled && !w.tiled_coarse));
            assert!(ways.iter().any(|w| w.sweep_cells == WIDE_CELLS));
            assert!(ways.iter().any(|w| w.rows));
        }
    }
}
