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
