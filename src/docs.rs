//! The reference pages in `docs/reference/`, generated from the code they describe: the
//! scene-file keys from the one range table (`plume_core::ranges`, each entry's unit,
//! default, allowed range and doc comment) and the command line from clap's own help.
//! `tests/docs.rs` fails when a committed page differs from what this generates
//! (`PLUME_BLESS=1 cargo test --release --test docs` rewrites them).

use crate::ranges::{self, Param};
use clap::CommandFactory;

/// The tables of a scene file and the range-table entries each holds.
pub const TABLES: [(&str, &str, &[Param]); 6] = [
    (
        "[fluid]",
        "The fluid (`FluidParams`): every key optional.",
        ranges::fluid::LIST,
    ),
    (
        "[[emitter]]",
        "An emitter (any number of them); `center` is required. `center`, `size` and \
         `velocity` take three numbers, each in the range; `pulse = { period, duty }`.",
        ranges::emitter::LIST,
    ),
    (
        "[fire]",
        "Combustion: every key optional; only emitters with fuel or flame make fire.",
        ranges::fire::LIST,
    ),
    (
        "[render]",
        "How the viewer and `plume render` draw the volume: every key optional.",
        ranges::render::LIST,
    ),
    (
        "[grid], [camera], [boundaries]",
        "Keys of the other tables that take a number (written here as table.key; an inflow \
         face is `x_min = { inflow = SPEED }`).",
        ranges::scene::LIST,
    ),
    (
        "[detail]",
        "The up-resolution pass: every key optional (`--upres N` sets `enabled` and \
         `factor`).",
        ranges::detail::LIST,
    ),
];

/// The keys that are not a single number of the range table, with what they mean (their
/// defaults come from the default scene as it writes itself).
pub const OTHER: &[(&str, &str)] = &[
    ("name", "The scene's name, 1–200 characters (required)."),
    ("description", "What the scene shows (optional)."),
    ("[grid].dims", "Cells along x, y (up) and z: 3..=1024 each, at most 134 217 728 (512³) in all (required)."),
    ("[grid].origin", "World position of the grid's minimum corner, domain units."),
    ("[fluid].advection", "How density and temperature are carried: `semi_lagrangian` or `maccormack`."),
    ("[fluid].velocity_advection", "How the velocity is carried: `semi_lagrangian` or `maccormack` (about 3× the stage's cost)."),
    ("[fluid].pressure_method", "`multigrid` (multigrid-preconditioned conjugate gradients) or `red_black_sor`; `--pressure` on the command line."),
    ("[boundaries].x_min", "A face: `wall`, `open` (alias `outflow`) or `{ inflow = SPEED }` (needs an open face somewhere). A face not named is a wall; a scene without `[boundaries]` has walls and an open top. The same for `x_max`, `y_min`, `y_max`, `z_min`, `z_max`."),
    ("[boundaries].x_max", "As `x_min`."),
    ("[boundaries].y_min", "As `x_min`."),
    ("[boundaries].y_max", "As `x_min`."),
    ("[boundaries].z_min", "As `x_min`."),
    ("[boundaries].z_max", "As `x_min`."),
    ("[[emitter]].shape", "`sphere` (takes `radius`), `box` (takes `size`, three edge lengths) or `mesh` (takes `file`)."),
    ("[[emitter]].end", "Off from this second, after `start` (optional: on for good)."),
    ("[[emitter]].position", "The same as `center` (either name): where the shape's centre, or the mesh's origin, stands."),
    ("[[emitter]].file", "For `shape = \"mesh\"`: a Wavefront OBJ or STL (ASCII or binary) file, relative to the scene file's folder (or `builtin:meshes/chimney.obj`, the mesh that ships inside Plume). At most 4 000 000 triangles; a mesh that is not closed is voxelised by votes of rays along x, y and z, and you are told once."),
    ("[[emitter]].rotation", "Degrees about x, then y, then z (Blender's XYZ Euler), three numbers; any shape."),
    ("[[emitter]].scale", "A number, or three (one per axis of the shape's own), each in (0, 10000]; any shape."),
    ("[[emitter]].emit", "`volume` (the default: every covered cell) or `surface` (a layer one cell thick at the shape's surface)."),
    ("[[emitter]].loop", "Repeat the key frames' span for ever (default false)."),
    ("[[emitter]].smooth", "Ease in and out between key frames instead of moving at constant speed (default false)."),
    ("[[emitter]].key.time", "`[[emitter.key]]` tables make the emitter move: at `time` (seconds, increasing from key to key) it stands at the key's `position`, `rotation` and `scale` (a field left out keeps the emitter's own), linearly in between (or `smooth`), held before the first key and after the last (or `loop`)."),
    ("[[emitter]].key.position", "See `key.time`."),
    ("[[emitter]].key.rotation", "See `key.time`."),
    ("[[emitter]].key.scale", "See `key.time`."),
    ("[[obstacle]].shape", "At most 16 obstacles: `sphere` (takes `radius`), `box` (takes `size`) or `mesh` (takes `file`); `center` (or `position`) is required; the other keys are an emitter's. A moving obstacle (two keys or more) pushes the fluid: its faces carry its velocity into the projection."),
    ("[[obstacle]].center", "As an emitter's."),
    ("[[obstacle]].position", "As an emitter's."),
    ("[[obstacle]].radius", "As an emitter's."),
    ("[[obstacle]].size", "As an emitter's."),
    ("[[obstacle]].file", "As an emitter's."),
    ("[[obstacle]].rotation", "As an emitter's."),
    ("[[obstacle]].scale", "As an emitter's."),
    ("[[obstacle]].loop", "As an emitter's."),
    ("[[obstacle]].smooth", "As an emitter's."),
    ("[[obstacle]].key.time", "As an emitter's (`[[obstacle.key]]` tables)."),
    ("[[obstacle]].key.position", "As an emitter's."),
    ("[[obstacle]].key.rotation", "As an emitter's."),
    ("[[obstacle]].key.scale", "As an emitter's."),
    ("[camera].yaw", "Where the viewer and `plume render` start: degrees around the vertical axis (`target`, three numbers, is optional: the domain's centre)."),
    ("[render].light_dir", "Direction towards the light, three numbers (normalised)."),
    ("[render].light_color", "The light's colour, three numbers (each in the `color` range)."),
    ("[render].smoke_color", "The smoke's albedo, three numbers (each in the `color` range)."),
    ("[render].background_bottom", "The background gradient's bottom colour."),
    ("[render].background_top", "The background gradient's top colour."),
    ("[render].obstacle_color", "The obstacles' colour."),
    ("[render].outline_color", "The domain outline's colour and opacity, four numbers."),
    ("[render].shadows", "Self-shadowing on or off (`--no-shadows`)."),
    ("[render].outline", "The domain's outline on or off (`--no-outline`)."),
    ("[render].jitter", "Jittered ray starts (no banding) on or off."),
    ("[render].tone_map", "The filmic tone map on or off."),
    ("[detail].enabled", "The up-resolution pass on or off (default off; `--upres N` turns it on)."),
    ("[detail].seed", "The noise tile's seed (default 1)."),
];

/// Whether the reference page covers key `path` (`[table].key`, `[[emitter]].key`, nested
/// keys with dots): a number of the range table, or one of [`OTHER`].
pub fn covered(path: &str) -> bool {
    if path == "obstacle" || OTHER.iter().any(|(k, _)| *k == path) {
        return true;
    }
    let (table, rest) = path.split_once('.').unwrap_or(("", path));
    let last = rest.rsplit('.').next().unwrap_or(rest);
    let numeric = |list: &[Param], key: &str| list.iter().any(|p| p.key == key);
    match table {
        "[fluid]" => numeric(ranges::fluid::LIST, last),
        "[[emitter]]" => numeric(ranges::emitter::LIST, last),
        "[fire]" => numeric(ranges::fire::LIST, last),
        "[render]" => numeric(ranges::render::LIST, last),
        "[detail]" => numeric(ranges::detail::LIST, last),
        "[grid]" | "[camera]" => {
            let t = table.trim_matches(|c| c == '[' || c == ']');
            numeric(ranges::scene::LIST, &format!("{t}.{last}"))
        }
        "[boundaries]" => last == "inflow",
        _ => false,
    }
}

/// A number as the page writes it: whole numbers plainly, others to six significant digits.
fn number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        return format!("{v}");
    }
    let s = format!("{v:.6e}");
    let parsed: f64 = s.parse().unwrap_or(v);
    let plain = format!("{parsed}");
    if plain.len() <= 12 {
        plain
    } else {
        format!("{parsed:e}")
    }
}

/// `docs/reference/scene-file.md`.
pub fn scene_reference() -> String {
    let mut out = String::from(
        "# Scene-file reference\n\n\
         Generated from `crates/plume-core/src/ranges.rs` by `src/docs.rs`; do not edit by \
         hand (`PLUME_BLESS=1 cargo test --release --test docs` rewrites it, and the test \
         fails when it differs). A value outside its range is refused with a message naming \
         the key, the value and the range; a key left out takes the default. Units: `u` is \
         the domain unit (the grid's `size` is its longest side), `s` seconds.\n",
    );
    for (table, about, list) in TABLES {
        out.push_str(&format!(
            "\n## {table}\n\n{about}\n\n| key | unit | default | allowed | meaning |\n|---|---|---|---|---|\n"
        ));
        for p in list {
            let meaning = p.doc.split_whitespace().collect::<Vec<_>>().join(" ");
            let whole = if p.integer { ", whole numbers" } else { "" };
            out.push_str(&format!(
                "| `{}` | {} | {} | {}{whole} | {} |\n",
                p.key,
                p.unit,
                number(p.default),
                p.range_text(),
                meaning.replace('|', "\\|")
            ));
        }
    }
    out.push_str(
        "\n## Keys that are not a single number\n\nDefaults as a scene file that gives only \
         `name` and `[grid].dims` holds them (— where the key is optional or required).\n\n| key | default | meaning |\n|---|---|---|\n",
    );
    // A scene file with only what is required: every other key as the types default it.
    let minimal =
        crate::scene::Scene::from_toml("name = \"defaults\"\n[grid]\ndims = [8, 8, 8]\n", None);
    let defaults = scene_keys(&minimal.ok().into_iter().collect::<Vec<_>>());
    for (key, meaning) in OTHER {
        let d = defaults
            .iter()
            .filter(|_| !meaning.contains("(required)"))
            .find(|(k, _)| k == key)
            .map_or("—".to_string(), |(_, v)| format!("`{v}`"));
        out.push_str(&format!(
            "| `{key}` | {d} | {} |\n",
            meaning.replace('|', "\\|")
        ));
    }
    out
}

/// `docs/reference/command-line.md`.
pub fn cli_reference() -> String {
    let mut cmd = crate::cli::Cli::command();
    cmd.build();
    let mut out = String::from(
        "# Command-line reference\n\n\
         Generated from the command line's definition (`src/cli.rs`, through clap) by \
         `src/docs.rs`; do not edit by hand (`PLUME_BLESS=1 cargo test --release --test docs` \
         rewrites it, and the test fails when it differs). `plume COMMAND --help` prints the \
         same.\n\n## plume\n\n```text\n",
    );
    out.push_str(&cmd.render_long_help().to_string());
    out.push_str("```\n");
    for sub in cmd.get_subcommands_mut() {
        if sub.get_name() == "help" {
            continue;
        }
        let name = sub.get_name().to_string();
        out.push_str(&format!("\n## plume {name}\n\n```text\n"));
        out.push_str(&sub.render_long_help().to_string());
        out.push_str("```\n");
    }
    out
}

/// `docs/reference/gpu-kernels.md`: what each of the GPU backend's kernels reads and writes
/// an item, in the byte model `bench` sums into each stage's floor.
pub fn gpu_kernel_reference() -> String {
    let mut out = String::from(
        "# GPU kernels: bytes an item\n\n\
         Generated from the kernels' sources (`shaders/sim/*.comp`, through \
         `plume_gpu::kernel_bytes`) by `src/docs.rs`; do not edit by hand \
         (`PLUME_BLESS=1 cargo test --release --test docs` rewrites it, and the test fails \
         when it differs).\n\n\
         The model (`crates/plume-gpu/src/bytes.rs`): an ideal cache, in which a dispatch \
         reads each array element it needs once and writes each it changes once, a float \
         being 4 bytes (a double 8, a `vec4` 16: the cell velocity is one a cell); the \
         neighbours a stencil or a trace reads come from the cache, and reductions' partial results, \
         counters, tables and bit masks count nothing. By default an item reads once each \
         per-item array its kernel binds `readonly`, writes once each it binds \
         `writeonly`, and both for the others. Where a dispatch touches fewer arrays (a \
         phase that reads two of the four bound) or more (an item of eight fine cells), \
         the kernel's source says so in `// bytes` cases: the first whose uniforms the \
         dispatch has counts, `a cell` marking arrays a dispatch reads whole however many \
         items it has (counted a grid cell). It is a lower bound of what the card moves, \
         with one exception: `advect_cells.comp` is counted as tracing every cell, where \
         the cells outside the scalars' active region read nothing (the host cannot know \
         the region without reading it back). A step's dispatches add their bytes to their \
         stage: `bench --json` reports the sum as `bytes_per_step` and each stage's floor \
         at the measured bandwidth as `stage_floors_ms`, beside the stage's time; `bench \
         --kernels` gives each kernel's.\n\n\
         | kernel | bytes an item by default | cases (bytes an item, + bytes a cell) |\n|---|---|---|\n",
    );
    for (name, model) in plume_gpu::kernel_bytes() {
        let cases: Vec<String> = model
            .cases
            .iter()
            .map(|c| {
                let mut bytes = c.per_item.to_string();
                if c.per_cell > 0 {
                    bytes.push_str(&format!(" + {} a cell", c.per_cell));
                }
                // (a case without `when` is the kernel's every other dispatch)
                let text = match c.text.strip_prefix(':') {
                    Some(terms) if model.cases.len() == 1 => format!("always:{terms}"),
                    Some(terms) => format!("otherwise:{terms}"),
                    None => c.text.clone(),
                };
                format!("`{text}` ({bytes})")
            })
            .collect();
        out.push_str(&format!(
            "| `{name}.comp` | {} | {} |\n",
            model.default_per_item,
            cases.join("<br>")
        ));
    }
    out
}

/// `docs/reference/environment.md`: the environment variables Plume reads for experiments
/// and measurements, from their tables ([`crate::ENVIRONMENT`]).
pub fn environment_reference() -> String {
    let mut out = String::from(
        "# Environment variables\n\n\
         Generated from the tables beside the code that reads them (`plume_gpu::ENVIRONMENT`, \
         `plume::render::ENVIRONMENT`) by `src/docs.rs`; do not edit by hand \
         (`PLUME_BLESS=1 cargo test --release --test docs` rewrites it, and the test fails \
         when it differs).\n\n\
         None is needed to use Plume: they are switches for measuring one way of doing a \
         piece of work against another (`scripts/gpu-check` sets them on a card), and \
         every way they choose gives the same results unless its line says otherwise. A \
         variable whose name starts with a prefix below is checked before anything runs: \
         one Plume does not read (a misspelt name), or a value it does not take, is an \
         error that names it (the command line exits with status 1, the GPU backend and \
         the renderer refuse to be built, in Python and Blender too), never a run with \
         the defaults that looks like the experiment. An empty value is as if the variable \
         were not set.\n",
    );
    for (prefix, reader, table) in crate::ENVIRONMENT {
        out.push_str(&format!("\n## `{prefix}…`: {reader}\n\n"));
        out.push_str(&plume_core::environment::markdown_rows(table));
    }
    out
}

/// Every key path (`[table].key`, `[[emitter]].key`) the scenes `scenes` write, with the
/// value the first of them that has it writes.
pub fn scene_keys(scenes: &[crate::scene::Scene]) -> Vec<(String, String)> {
    fn walk(prefix: &str, v: &toml::Value, out: &mut Vec<(String, String)>) {
        if let toml::Value::Table(t) = v {
            for (k, x) in t {
                let here = match (prefix, x) {
                    ("", toml::Value::Table(_)) => format!("[{k}]"),
                    ("", toml::Value::Array(a))
                        if a.iter().all(|e| e.is_table()) && !a.is_empty() =>
                    {
                        format!("[[{k}]]")
                    }
                    ("", _) => k.clone(),
                    (p, _) => format!("{p}.{k}"),
                };
                match x {
                    toml::Value::Table(_) => walk(&here, x, out),
                    toml::Value::Array(a) if !a.is_empty() && a.iter().all(|e| e.is_table()) => {
                        for e in a {
                            walk(&here, e, out);
                        }
                    }
                    _ => {
                        if !out.iter().any(|(k, _)| *k == here) {
                            out.push((here, x.to_string()));
                        }
                    }
                }
            }
        }
    }
    let mut out = vec![];
    for s in scenes {
        if let Ok(text) = s.to_toml() {
            if let Ok(t) = toml::from_str::<toml::Table>(&text) {
                walk("", &toml::Value::Table(t), &mut out);
            }
        }
    }
    out
}

/// `tools/blender/plume_addon/ranges.json`: what the Blender add-on's panel takes from
/// Plume: every range-table entry by dotted key (`fluid.vorticity`, `emitter.density`,
/// `detail.factor`, …), the default scene's fluid parameters and emitter, and the cells a
/// grid axis may have. The add-on types no limit or default of its own.
pub fn addon_ranges() -> String {
    use crate::ranges;
    use serde_json::json;
    let mut table = serde_json::Map::new();
    let sections: [(&str, &[ranges::Param]); 6] = [
        ("fluid", ranges::fluid::LIST),
        ("emitter", ranges::emitter::LIST),
        ("fire", ranges::fire::LIST),
        ("render", ranges::render::LIST),
        ("", ranges::scene::LIST),
        ("detail", ranges::detail::LIST),
    ];
    for (section, list) in sections {
        for p in list {
            let key = match section {
                "" => p.key.to_string(),
                s => format!("{s}.{}", p.key),
            };
            table.insert(
                key,
                json!({
                    "min": p.min, "max": p.max, "min_open": p.min_open, "max_open": p.max_open,
                    "default": p.default, "integer": p.integer, "unit": p.unit,
                }),
            );
        }
    }
    let scene = crate::scene::Scene::default_plume();
    let doc = json!({
        "generated_by": "src/docs.rs (addon_ranges); PLUME_BLESS=1 cargo test --release --test docs rewrites it",
        "ranges": table,
        "grid": {
            "min_cells": 3,
            "max_cells": crate::sim::grid::MAX_AXIS_CELLS,
            "default_cells": scene.grid.dims.iter().max(),
        },
        "defaults": {
            "fluid": serde_json::to_value(&scene.fluid).unwrap_or_default(),
            "emitter": serde_json::to_value(crate::sim::Emitter::default()).unwrap_or_default(),
        },
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default() + "\n"
}
