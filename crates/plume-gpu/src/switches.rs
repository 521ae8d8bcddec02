//! The kernels' sizes and switches: work-group sizes, the V-cycle's fused levels and tiles,
//! cells an invocation, and the environment variables that set them for experiments on a
//! card (re-exported by `kernels`, where the kernels that use them are compiled), and
//! [`ENVIRONMENT`], the table of every variable the backend reads.

use plume_core::environment::{self as env, Setting, Takes};

/// Invocations in a work group of the per-item kernels on a hardware renderer, unless
/// `PLUME_GPU_WG` names another power of two from 32 to 1024 (for measuring the choice on a
/// card; see [`item_wg`]). Measured on an H100 (driver 580, `scripts/gpu-check`, 2026-11-26): a
/// copy kernel moved 782 GB/s in groups of 64, 1734 in groups of 256, 1337 in groups of
/// 1024 (CUDA's copy: 2954); the default scene's 256³ step took 35.6 ms in groups of 64,
/// 35.6 of 128, 32.8 of 256, 29.8 of 512.
pub(crate) const WG: u32 = 512;
/// The same on a software renderer: llvmpipe runs the small grids the tests use 2.5 times
/// slower in groups of 512 (a 16³ step: 26 ms in groups of 64, 64 ms in groups of 512),
/// with the same bits.
pub(crate) const WG_SOFTWARE: u32 = 64;

/// The least and the most `PLUME_GPU_WG` may set.
const WG_LEAST: u32 = 32;
const WG_MOST: u32 = 1024;

/// The per-item kernels' work-group size for a context: `PLUME_GPU_WG` where it is a power
/// of two from 32 to 1024, else [`WG`] on a hardware renderer and [`WG_SOFTWARE`] on a
/// software one. Each [`Kernel`](crate::kernels::Kernel) keeps the size it was compiled with.
pub(crate) fn item_wg(software: bool) -> u32 {
    static FROM_ENV: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    let env = *FROM_ENV.get_or_init(|| {
        env::value("PLUME_GPU_WG").and_then(|v| env::power_of_two(&v, WG_LEAST, WG_MOST))
    });
    env.unwrap_or(if software { WG_SOFTWARE } else { WG })
}

/// Invocations in a work group of the reductions, and the most groups one uses (so the
/// partial results are at most this many).
pub(crate) const REDUCE_WG: u32 = 256;
pub(crate) const REDUCE_GROUPS: u32 = 256;

/// Invocations in a work group of the kernels that write a partial sum a group (the
/// solve's Laplacian, with p·q): the partial results are as many as its groups.
pub(crate) const DOT_WG: u32 = 256;

/// Levels of at most this many cells are worked in one dispatch of one work group (op 7)
/// on a hardware renderer: a pass over one of them is less work than a dispatch's launch and
/// drain on a card (about 8 µs on an H100: some 1000 cells a pass at 2 per invocation of a
/// group of 512). Not yet measured on a card: `PLUME_GPU_FUSE_CELLS` sets another (0: none
/// fused), for the card check to try. A software renderer runs a work group on one thread,
/// so there none are fused (measured on llvmpipe at 24³: steps 10% slower fused).
pub(crate) const FUSED_CELLS: u32 = 1024;

/// The most cells of a fused level where the environment does not say: [`FUSED_CELLS`] on a
/// hardware renderer, none on a software one.
pub(crate) fn default_fused_cells(software: bool) -> u32 {
    if software {
        0
    } else {
        FUSED_CELLS
    }
}

/// `PLUME_GPU_FUSE_CELLS` where it is a whole number.
fn fused_cells_set() -> Option<u32> {
    static FROM_ENV: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *FROM_ENV.get_or_init(|| env::value("PLUME_GPU_FUSE_CELLS").and_then(|v| env::whole(&v)))
}

/// The most cells of a fused level for a `software` renderer or not: `PLUME_GPU_FUSE_CELLS`
/// where it is a whole number, else [`default_fused_cells`].
pub(crate) fn fused_cells(software: bool) -> u32 {
    fused_cells_set().unwrap_or(default_fused_cells(software))
}

/// Whether the environment sets how the V-cycle goes (`PLUME_GPU_FUSE_CELLS` a whole
/// number, `PLUME_GPU_TILED_SMOOTH` 0 or 1, `PLUME_GPU_CELLS_PER_INVOCATION` or
/// `PLUME_GPU_SWEEP_ROWS` for its passes a sweep): then the tuner leaves it so.
pub(crate) fn v_cycle_set() -> bool {
    fused_cells_set().is_some()
        || env_flag("PLUME_GPU_TILED_SMOOTH").is_some()
        || cells_per_invocation().is_some()
        || env_flag("PLUME_GPU_SWEEP_ROWS").is_some()
}

/// Cells along a tile's side in `smooth.comp`, and its work group (a tile: 8³ invocations).
pub(crate) const TILE: u32 = 8;
pub(crate) const TILE_WG: u32 = TILE * TILE * TILE;

/// The tiles of a level of `dims` cells.
pub(crate) fn tile_count(dims: [u32; 3]) -> u32 {
    dims.iter().map(|v| v.div_ceil(TILE)).product()
}

/// A switch the environment may set for experiments on a card: `name` as 0 (off) or 1
/// (on), else `None`.
pub(crate) use plume_core::environment::switch_set as env_flag;

/// [`env_flag`], else `default`.
fn env_switch(name: &str, default: bool) -> bool {
    env_flag(name).unwrap_or(default)
}

/// Whether the smoother's sweeps go by tiles (`smooth.comp`: a third of the passes over a
/// level) on a `software` renderer or not: `PLUME_GPU_TILED_SMOOTH` (0 or 1) where set, else
/// by tiles on a software renderer (on llvmpipe the projection took half the time at 64³)
/// and a pass a sweep on a hardware one (on an H200 a V-cycle by tiles took three times as
/// long at every size: 12 152 µs against 4244 at 256³, 2026-11-28). The tuner starts from
/// it (`tune::v_cycles`). The same results either way.
pub(crate) fn tiled_smoothing(software: bool) -> bool {
    static ON: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();
    ON.get_or_init(|| env_flag("PLUME_GPU_TILED_SMOOTH"))
        .unwrap_or(software)
}

/// Whether the vorticity's curl and confinement go in one pass by tiles (`vorticity.comp`:
/// no ω stored, the faces read once and written once) or in two (`curl.comp`, then
/// `confine.comp`), where that is fixed: `PLUME_GPU_TILED_VORTICITY` (0 or 1) where set,
/// else two passes on a hardware renderer, else `None`: the tuner picks (`tune.rs`; tiles
/// where it does not time).
///
/// Mesa gives the two ways the same bits, but NVIDIA's driver did not (an H200, driver
/// 580.159, 2026-11-28: `scripts/gpu-check`'s row, with their arithmetic `precise`; the
/// comparison with 1e-6·|ω| was made so after that run), and the tuner may mix only ways
/// that give the same bits. So on a card the vorticity is not tuned: it goes in two
/// passes, which were the faster there from 128³ up (689 µs a sub-step at 256³ against
/// 1111 by tiles; at 64³ 31 against 26).
pub(crate) fn tiled_vorticity(software: bool) -> Option<bool> {
    static ON: std::sync::OnceLock<Option<bool>> = std::sync::OnceLock::new();
    let set = *ON.get_or_init(|| env_flag("PLUME_GPU_TILED_VORTICITY"));
    set.or((!software).then_some(false))
}

/// Whether the tuner times the ways of doing a piece of work that give the same bits and
/// keeps the faster (`tune.rs`): `PLUME_GPU_TUNE` (0 or 1) where set, else on a hardware
/// renderer (llvmpipe's times say nothing of a card, and its tests count what a step does).
pub(crate) fn tuning(software: bool) -> bool {
    env_switch("PLUME_GPU_TUNE", !software)
}

/// Whether what a dispatch of one work group would finish after a kernel is finished by
/// that kernel's last work group (`last_group.glsl`): the conjugate gradients' figures
/// (`cg_scalars.comp`: a dispatch fewer a solve and three an iteration) and a step's books
/// (`ledger.comp`'s ops after a reduction: three fewer a sub-step). `PLUME_GPU_LAST_GROUP`
/// (0 or 1) where set, else yes. The same results either way. Where no, the kernels are compiled without the last group's code
/// (`NO_LAST_GROUP`), so a card's run with 0 shows what that code costs them in registers
/// as well as what the dispatches cost.
pub(crate) fn finish_in_last_group() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_switch("PLUME_GPU_LAST_GROUP", true))
}

/// Cells an invocation of the kernels that can take several (the conjugate gradients'
/// updates, `cg_step.comp`, the pressure gradient's, `gradient.comp`, the cell-centred
/// velocity, `cell_velocity.comp`, the velocity's advection, `advect_faces.comp` (faces),
/// and the V-cycle's passes a sweep, `mg.comp`'s ops 0 to 2 and 8) where the tuner (`tune.rs`)
/// or [`cells_per_invocation`] says so: each a whole dispatch's invocations past the last,
/// all loaded before the first is stored (`cells.glsl`).
pub(crate) const WIDE_CELLS: u32 = 4;

/// Cells in a row of the kernels in rows (`mg_rows.comp`, `laplace_rows.comp`): a `vec4`,
/// not a setting.
pub(crate) const ROW_CELLS: u32 = 4;

/// What `PLUME_GPU_CELLS_PER_INVOCATION` takes: 1 or [`WIDE_CELLS`].
const CELLS_WORDS: &[&str] = &["1", "4"];

/// Cells an invocation of the kernels that can take several: `PLUME_GPU_CELLS_PER_INVOCATION`
/// where it is 1 or [`WIDE_CELLS`], else `None`: the tuner times both on the card and keeps
/// the faster for each kernel (`tune.rs`; one cell where it does not time). An H100's copy
/// kernel moved 1843 GB/s at one float an invocation where CUDA's copy moved 2954
/// (2026-11-26); `bench`'s `copy_bandwidths` times copies of four elements an invocation
/// beside it; on the H200 one float an invocation moved 1530 GB/s, four 3193 and a `vec4`
/// 4127 (2026-11-28). Where set, it fixes the V-cycle's passes a sweep too (and so its way:
/// [`v_cycle_set`]). The same results either way.
pub(crate) fn cells_per_invocation() -> Option<u32> {
    static FROM_ENV: std::sync::OnceLock<Option<u32>> = std::sync::OnceLock::new();
    *FROM_ENV.get_or_init(|| {
        env::value("PLUME_GPU_CELLS_PER_INVOCATION")
            .and_then(|v| env::one_of(&v, CELLS_WORDS))
            .and_then(env::whole)
    })
}

/// `PLUME_GPU_DUMP_PROGRAMS`: a folder where every kernel, as it is compiled, leaves the
/// driver's program binary (`glGetProgramBinary`), for `scripts/gpu-check` to read what the
/// driver made of it (on NVIDIA's, the registers an invocation takes: a program takes those
/// of its widest path, and the more each takes, the fewer run at once). See
/// `dump::dump_program`.
pub(crate) fn dump_programs_dir() -> Option<std::path::PathBuf> {
    std::env::var_os("PLUME_GPU_DUMP_PROGRAMS")
        .filter(|v| !v.is_empty())
        .map(std::path::PathBuf::from)
}

/// Whether the V-cycle's passes a sweep work its first two sweeps (the first from zero) in
/// one pass (`mg.comp`'s op 8: a pass over each level fewer, the first sweep's values worked
/// out where the second reads them) or in two (ops 0 and 1): `PLUME_GPU_FIRST_SWEEPS_TOGETHER`
/// (0 or 1) where set, else in one. The same results either way.
pub(crate) fn first_sweeps_together() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_switch("PLUME_GPU_FIRST_SWEEPS_TOGETHER", true))
}

/// `PLUME_GPU_MG_WHOLE=1`: `mg.comp` compiled whole (every op in one program, `MG_PART` 9)
/// for each of its parts, as before it was compiled in parts: for the card check to time
/// both in one run (`MGWHOLE="0 1"`). The same results either way.
pub(crate) fn mg_whole() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_switch("PLUME_GPU_MG_WHOLE", false))
}

/// Whether the V-cycle's passes a sweep go in rows of four cells an invocation, loaded and
/// stored as `vec4`s (`mg_rows.comp`, on the levels whose rows are whole vec4s; `mg.comp`
/// on the others), where the environment fixes its way: `PLUME_GPU_SWEEP_ROWS` (0 or 1)
/// where set, else not (the tuner times them on a card). The same results either way.
pub(crate) fn sweep_rows() -> bool {
    env_flag("PLUME_GPU_SWEEP_ROWS").unwrap_or(false)
}

/// Whether an iteration's A·p goes in rows of four cells as `vec4`s (`laplace_rows.comp`)
/// or a cell an invocation, where the environment fixes it: `PLUME_GPU_LAPLACE_ROWS` (0
/// or 1) where set, else `None` (the tuner's pick on a card, a cell an invocation where it
/// does not time). The same results either way.
pub(crate) fn laplace_rows() -> Option<bool> {
    env_flag("PLUME_GPU_LAPLACE_ROWS")
}

/// Whether the pressure gradient's pass goes in rows of four cells as `vec4`s
/// (`gradient_rows.comp`), where the environment fixes it: `PLUME_GPU_GRADIENT_ROWS` (`0`
/// or `1`) where set, else `None` (the tuner's pick on a card among a cell an invocation,
/// four and rows; a cell an invocation where it does not time; with `0`, as
/// `PLUME_GPU_CELLS_PER_INVOCATION` says where that is set). The same results either way.
pub(crate) fn gradient_rows() -> Option<bool> {
    env_flag("PLUME_GPU_GRADIENT_ROWS")
}

/// Whether the projection's right-hand side (and the solve's starting residual where it
/// goes in the same pass) is worked out in rows of four cells as `vec4`s
/// (`divergence_rows.comp`) or a cell an invocation, where the environment fixes it:
/// `PLUME_GPU_DIVERGENCE_ROWS` (`0` or `1`) where set, else `None` (the tuner's pick on a
/// card, a cell an invocation where it does not time). The same results either way.
pub(crate) fn divergence_rows() -> Option<bool> {
    env_flag("PLUME_GPU_DIVERGENCE_ROWS")
}

/// The most values of the levels that the V-cycle's coarsest sweeps and fused cycle
/// (`mg.comp`'s ops 6 and 7) keep in shared memory: 24 KB, within the 32 KB every
/// OpenGL 4.3 driver gives a work group. The fused cycle's levels of up to
/// [`FUSED_CELLS`] cells take about 2300 at 256³ (8³ and 4³, four arrays each).
pub(crate) const SHARED_FLOATS: u32 = 6144;

/// `mg.comp`'s defines for ops 6 and 7 in shared memory (its part 6).
pub(crate) fn shared_levels() -> String {
    format!("#define MG_PART 6\n#define SHARED_LEVELS\n#define SHARED_FLOATS {SHARED_FLOATS}\n")
}

/// Whether the V-cycle's coarsest sweeps and fused cycle work their levels in shared
/// memory where they fit in [`SHARED_FLOATS`] (copied in and back out by the one work
/// group), or in the buffer: `PLUME_GPU_SHARED_LEVELS` (0 or 1) where set, else in shared
/// memory. On a card each of their passes otherwise waits on the second-level cache for
/// the pass before it: at 128³ on an H200 the fused cycle took 55 µs, about a quarter of the
/// V-cycle's passes below the finest level (2026-11-28). The same results either way.
pub(crate) fn levels_in_shared() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| env_switch("PLUME_GPU_SHARED_LEVELS", true))
}

/// Every environment variable the GPU backend reads, what it takes and what it does
/// (`docs/reference/environment.md` is made from it): checked before a solver is built
/// ([`environment_problem`]), so that a card's run with a misspelt one is refused, not run
/// with the defaults.
pub const ENVIRONMENT: &[Setting] = &[
    Setting {
        name: "PLUME_GPU_WG",
        takes: Takes::PowerOfTwo(WG_LEAST, WG_MOST),
        does: "invocations in a work group of the per-item kernels (else 512 on a card, 64 on a software renderer)",
    },
    Setting {
        name: "PLUME_GPU_TUNE",
        takes: Takes::Switch,
        does: "the tuner, which times the ways that give the same bits on the card and keeps the faster (else on a card, off on a software renderer)",
    },
    Setting {
        name: "PLUME_GPU_FUSE_CELLS",
        takes: Takes::Whole,
        does: "the most cells of a coarse level the V-cycle works in its one fused dispatch, 0 none (else 1024 on a card, 0 on a software renderer)",
    },
    Setting {
        name: "PLUME_GPU_TILED_SMOOTH",
        takes: Takes::Switch,
        does: "the V-cycle's sweeps by tiles (1) or a pass a sweep (0; else by tiles on a software renderer, a pass a sweep on a card, where the tuner starts from it)",
    },
    Setting {
        name: "PLUME_GPU_TILED_VORTICITY",
        takes: Takes::Switch,
        does: "the vorticity in one pass by tiles (1) or two passes (0; else two on a card): the same values, but not the same bits on NVIDIA's driver",
    },
    Setting {
        name: "PLUME_GPU_LAST_GROUP",
        takes: Takes::Switch,
        does: "the solve's figures and a step's books finished by a kernel's last work group (1, the default) or in dispatches of their own (0)",
    },
    Setting {
        name: "PLUME_GPU_CELLS_PER_INVOCATION",
        takes: Takes::OneOf(CELLS_WORDS),
        does: "cells an invocation of the kernels that can take several (else the tuner's pick)",
    },
    Setting {
        name: "PLUME_GPU_FIRST_SWEEPS_TOGETHER",
        takes: Takes::Switch,
        does: "the V-cycle's first two sweeps in one pass (1, the default) or two (0)",
    },
    Setting {
        name: "PLUME_GPU_MG_WHOLE",
        takes: Takes::Switch,
        does: "the V-cycle's kernel compiled whole, every op in one program (1), not in parts (0, the default)",
    },
    Setting {
        name: "PLUME_GPU_SWEEP_ROWS",
        takes: Takes::Switch,
        does: "the V-cycle's passes in rows of four cells as vec4s (1) or not (0; else the tuner's pick on a card, not on a software renderer)",
    },
    Setting {
        name: "PLUME_GPU_LAPLACE_ROWS",
        takes: Takes::Switch,
        does: "the solve's A·p in rows of four cells as vec4s (1) or a cell an invocation (0; else the tuner's pick on a card, a cell on a software renderer)",
    },
    Setting {
        name: "PLUME_GPU_GRADIENT_ROWS",
        takes: Takes::Switch,
        does: "the pressure gradient in rows of four cells as vec4s (1) or not (0; else the tuner's pick on a card, a cell on a software renderer)",
    },
    Setting {
        name: "PLUME_GPU_DIVERGENCE_ROWS",
        takes: Takes::Switch,
        does: "the projection's right-hand side in rows of four cells as vec4s (1) or a cell an invocation (0; else the tuner's pick on a card, a cell on a software renderer)",
    },
    Setting {
        name: "PLUME_GPU_SHARED_LEVELS",
        takes: Takes::Switch,
        does: "the V-cycle's coarsest levels in a work group's shared memory (1, the default) or in the buffer (0)",
    },
    Setting {
        name: "PLUME_GPU_CELL_VEL_FLOATS",
        takes: Takes::Switch,
        does: "the cell velocity three floats a cell (1), not a vec4 (0: only where a grid's vec4s are too large for one buffer)",
    },
    Setting {
        name: "PLUME_GPU_FIELD_BUFFERS",
        takes: Takes::OneOf(FIELD_BUFFER_WORDS),
        does: "the fields in immutable storage the CPU cannot map (`immutable`, the default) or storage it may (`default`)",
    },
    Setting {
        name: "PLUME_GPU_DUMP_PROGRAMS",
        takes: Takes::Folder,
        does: "every kernel's source and the driver's program binary written into this folder as it is compiled",
    },
    Setting {
        name: "PLUME_GPU_TRACE",
        takes: Takes::Anything,
        does: "each pressure solve's figures printed",
    },
    Setting {
        name: "PLUME_GPU_ALL_COPIES",
        takes: Takes::Anything,
        does: "the bench's copy bandwidths measured every way on a software renderer too",
    },
];

/// What `PLUME_GPU_FIELD_BUFFERS` takes.
pub(crate) const FIELD_BUFFER_WORDS: &[&str] = &["immutable", "default"];

/// Where a `PLUME_GPU_…` environment variable is one the backend does not read, or is set
/// to a value it does not take, what is wrong (see [`ENVIRONMENT`]).
pub fn environment_problem() -> Option<String> {
    env::problem(
        std::env::vars_os(),
        &[("PLUME_GPU_", "the GPU backend", ENVIRONMENT)],
    )
}

#[cfg(test)]
mod environment_tests {
    use super::*;

    #[test]
    fn the_tables_words_are_the_readers_values() {
        assert_eq!(CELLS_WORDS, ["1".to_string(), WIDE_CELLS.to_string()]);
        for s in ENVIRONMENT {
            assert!(s.name.starts_with("PLUME_GPU_"), "{}", s.name);
        }
        let mut names: Vec<&str> = ENVIRONMENT.iter().map(|s| s.name).collect();
        names.sort();
        names.dedup();
        assert_eq!(names.len(), ENVIRONMENT.len(), "a name twice");
    }

    /// Every `PLUME_GPU_…` name the crate's code reads is in the table (a new switch not
    /// added to it would be refused as unknown).
    #[test]
    fn every_variable_the_code_reads_is_in_the_table() {
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut read = Vec::new();
        for entry in std::fs::read_dir(&src).expect("src") {
            let text = std::fs::read_to_string(entry.expect("entry").path()).expect("source");
            for (i, _) in text.match_indices("\"PLUME_GPU_") {
                let name: String = text[i + 1..]
                    .chars()
                    .take_while(|c| c.is_ascii_uppercase() || *c == '_' || c.is_ascii_digit())
                    .collect();
                if name != "PLUME_GPU_" {
                    read.push(name);
                }
            }
        }
        assert!(read.len() >= 15, "found {read:?}");
        for name in read {
            assert!(
                ENVIRONMENT.iter().any(|s| s.name == name),
                "{name} is read but not in ENVIRONMENT"
            );
        }
    }
}
