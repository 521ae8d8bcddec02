//! The byte model: what one dispatch of a kernel reads and writes of the arrays it binds, in
//! an ideal cache (each array element read at most once and written at most once a
//! dispatch; a stencil's or a trace's neighbours come from the cache). A lower bound of what
//! the card moves; `bench` sums it into `bytes_per_step` and each stage's floor.
//!
//! By default a kernel's item reads and writes every per-item array it binds
//! ([`bytes_per_item`]). Where a dispatch touches fewer (a phase that reads two of the four
//! arrays bound) or more (an item of eight fine cells), the kernel's source says so in
//! lines of the form
//!
//! ```text
//! // bytes when phase=1 precond=1: Q r, P rw
//! // bytes: U r a cell, V r a cell, Out0 w
//! ```
//!
//! A case applies to a dispatch whose uniforms have every value named after `when` (the first
//! that matches counts; with no `when` it applies to all). Each term names an array the
//! source binds, `r`, `w` or `rw`, an optional `×k` (k elements an item) and an optional
//! `a cell` (read whole by every dispatch, however many items it has: counted a grid cell
//! rather than an item). `none` is a case that moves nothing in the model.

use std::collections::HashMap;

/// Buffers that are not per-item arrays: reductions' partial results and figures, counters,
/// tables, bit masks (a thirty-second of a float a cell). The byte model leaves them out.
const SMALL_BUFFERS: [&str; 13] = [
    "Done",
    "Rows",
    "Active",
    "PartialSum",
    "Largest",
    "Ledger",
    "PartialMax",
    "Scalars",
    "Counter",
    "Table",
    "Levels",
    "Solid",
    "Entries",
];

/// Arrays an item reads or writes instead of another the model counts: `reduce_fields.comp`
/// reads one of F0 to F7 an item (one field a row of work groups), counted as F0;
/// `advect_faces.comp` writes one of Out0 to Out2 (its face's axis), counted as Out0;
/// `advect_cells.comp` reads the faces FaceU to FaceW instead of CellVel where it traces
/// from the faces (12 bytes a cell), counted as CellVel (a `vec4` a cell: 16).
const READ_INSTEAD: [&str; 12] = [
    "F1", "F2", "F3", "F4", "F5", "F6", "F7", "Out1", "Out2", "FaceU", "FaceV", "FaceW",
];

/// Arrays declared as floats whose element in the model is several of them: the cell
/// velocity where it goes three floats a cell (`CELL_VEL_FLOATS`; a `vec4` a cell else).
const FLOATS_AN_ELEMENT: [(&str, u32); 1] = [("CellVel", 3)];

/// How a source declares an array: the passes its qualifier allows (`readonly` or
/// `writeonly`: one kind; neither: both) and its bytes an element.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Decl {
    can_read: bool,
    can_write: bool,
    width: u32,
}

/// The lines of `source`, each with whether the compiler sees it as far as `#define NAME`,
/// `#ifdef`, `#ifndef`, `#else` and `#endif` say (a kernel compiled with `CELL_VEL_FLOATS`
/// declares its cell velocity as floats, not `vec4`s). An `#if` with an expression is not
/// worked out: both of its branches count as seen.
fn compiled_lines(source: &str) -> impl Iterator<Item = (&str, bool)> {
    let mut defined: Vec<&str> = Vec::new();
    // Each open block: (whether the lines around it are compiled, whether its present
    // branch is, whether its condition was worked out).
    let mut open: Vec<(bool, bool, bool)> = Vec::new();
    source.lines().map(move |line| {
        let t = line.trim();
        let on = open.last().is_none_or(|o| o.1);
        let mut words = t.split_whitespace();
        let (head, name) = (words.next().unwrap_or(""), words.next().unwrap_or(""));
        match head {
            "#ifdef" | "#ifndef" => {
                let is = defined.contains(&name) == (head == "#ifdef");
                open.push((on, on && is, true));
            }
            "#if" => open.push((on, on, false)),
            "#else" | "#elif" => {
                if let Some(o) = open.last_mut() {
                    o.1 = o.0 && (!o.2 || !o.1);
                }
            }
            "#endif" => {
                open.pop();
            }
            "#define" if on => defined.push(name),
            _ => {}
        }
        (line, on)
    })
}

/// The per-item arrays a (complete, includes expanded) source binds, by block name: every
/// declaration, since a kernel's variants share its `// bytes` cases (`divergence.comp`'s
/// `X` is declared only where it is compiled with `RESIDUAL`), but of a block declared in
/// several branches (`CellVel` as `vec4`s or floats) the one the compiler sees.
fn declarations(source: &str) -> Vec<(String, Decl)> {
    let mut out: Vec<(String, Decl)> = Vec::new();
    let mut seen: Vec<bool> = Vec::new();
    for (line, compiled) in compiled_lines(source) {
        let Some(rest) = line.trim().strip_prefix("layout(std430)") else {
            continue;
        };
        // (`coherent` says who sees the writes, not which passes are made)
        let rest = rest.trim();
        let rest = rest.strip_prefix("coherent ").unwrap_or(rest).trim();
        let (can_read, can_write, rest) = if let Some(r) = rest.strip_prefix("readonly ") {
            (true, false, r)
        } else if let Some(r) = rest.strip_prefix("writeonly ") {
            (false, true, r)
        } else {
            (true, true, rest)
        };
        let Some(decl) = rest.trim().strip_prefix("buffer ") else {
            continue;
        };
        let name = decl.split_whitespace().next().unwrap_or("");
        if SMALL_BUFFERS.contains(&name) {
            continue;
        }
        // (the cell velocity, CellVel, is a `vec4` a cell, or three floats where its
        // `vec4`s would not fit one buffer: an element like any other)
        let width = if decl.contains("vec4 ") {
            16
        } else if decl.contains("double ") || decl.contains("vec2 ") {
            8
        } else {
            let several = FLOATS_AN_ELEMENT.iter().find(|(n, _)| *n == name);
            4 * several.map_or(1, |(_, k)| *k)
        };
        let d = Decl {
            can_read,
            can_write,
            width,
        };
        match out.iter().position(|(n, _)| n == name) {
            None => {
                out.push((name.to_string(), d));
                seen.push(compiled);
            }
            Some(i) if compiled && !seen[i] => {
                out[i].1 = d;
                seen[i] = true;
            }
            Some(_) => {}
        }
    }
    out
}

/// The bytes one item of a kernel reads and writes by default: each per-item array it binds
/// read once (`readonly`), written once (`writeonly`) or both (neither), a `vec4` for
/// the cell velocity (`CellVel`, one a cell), none for the small buffers (partial sums,
/// counters, tables, masks), one array for each group of arrays an item uses one of.
pub fn bytes_per_item(source: &str) -> u32 {
    declarations(source)
        .iter()
        .filter(|(name, _)| !READ_INSTEAD.contains(&name.as_str()))
        .map(|(_, d)| (u32::from(d.can_read) + u32::from(d.can_write)) * d.width)
        .sum()
}

/// One `// bytes` case of a kernel's source.
#[derive(Clone, Debug, PartialEq)]
pub struct ByteCase {
    /// The uniforms and values a dispatch must have for the case to apply (none: any).
    pub when: Vec<(String, u32)>,
    /// Bytes an item.
    pub per_item: u32,
    /// Bytes a cell of the grid, whatever the items (arrays read whole by every dispatch).
    pub per_cell: u32,
    /// The case as the source writes it, after `bytes`.
    pub text: String,
}

impl ByteCase {
    /// Whether the case applies to a dispatch whose unsigned uniform called `k` is
    /// `value(k)`.
    fn applies(&self, value: &impl Fn(&str) -> Option<u32>) -> bool {
        self.when.iter().all(|(k, v)| value(k) == Some(*v))
    }
}

/// The most uniforms a kernel's cases may look at together (a dispatch collects their values
/// into an array of this size, on the hot path: no allocation).
pub const MAX_KEYS: usize = 4;

/// The `// bytes` cases of a source, checked against its declarations: an error names the
/// line and what is wrong (an array it does not bind, a pass its qualifier forbids, a term
/// that does not read).
pub fn byte_cases(source: &str) -> Result<Vec<ByteCase>, String> {
    let decls: HashMap<String, Decl> = declarations(source).into_iter().collect();
    let mut cases = Vec::new();
    for line in source.lines() {
        let Some(rest) = line.trim().strip_prefix("// bytes") else {
            continue;
        };
        let Some((head, terms)) = rest.split_once(':') else {
            return Err(format!("`{}`: no ':' after the case", line.trim()));
        };
        let head = head.trim();
        let when = if head.is_empty() {
            Vec::new()
        } else {
            let conds = head
                .strip_prefix("when ")
                .ok_or_else(|| format!("`{}`: expected `when` or ':'", line.trim()))?;
            conds
                .split_whitespace()
                .map(|c| {
                    let (k, v) = c
                        .split_once('=')
                        .ok_or_else(|| format!("`{}`: `{c}` is not name=value", line.trim()))?;
                    let v = v
                        .parse::<u32>()
                        .map_err(|_| format!("`{}`: `{v}` is not a whole number", line.trim()))?;
                    Ok((k.to_string(), v))
                })
                .collect::<Result<Vec<_>, String>>()?
        };
        let (mut per_item, mut per_cell) = (0, 0);
        let terms = terms.trim();
        if terms != "none" {
            for term in terms.split(',') {
                let words: Vec<&str> = term.split_whitespace().collect();
                let bad = |why: &str| format!("`{}`: `{}` {why}", line.trim(), term.trim());
                let (name, access) = match words.as_slice() {
                    [name, access, ..] => (*name, *access),
                    _ => return Err(bad("is not `array r|w|rw`")),
                };
                let d = decls
                    .get(name)
                    .ok_or_else(|| bad("names no array the kernel binds"))?;
                let (reads, writes) = match access {
                    "r" => (true, false),
                    "w" => (false, true),
                    "rw" => (true, true),
                    _ => return Err(bad("has no pass r, w or rw")),
                };
                if (reads && !d.can_read) || (writes && !d.can_write) {
                    return Err(bad("makes a pass its qualifier forbids"));
                }
                let mut times = 1;
                let mut a_cell = false;
                match &words[2..] {
                    [] => {}
                    ["a", "cell"] => a_cell = true,
                    [k] | [k, "a", "cell"] => {
                        times = k
                            .strip_prefix('×')
                            .and_then(|k| k.parse::<u32>().ok())
                            .ok_or_else(|| bad("has a factor other than ×k"))?;
                        a_cell = words.len() == 5;
                    }
                    _ => return Err(bad("ends in words other than ×k or `a cell`")),
                }
                let bytes = (u32::from(reads) + u32::from(writes)) * d.width * times;
                if a_cell {
                    per_cell += bytes;
                } else {
                    per_item += bytes;
                }
            }
        }
        cases.push(ByteCase {
            when,
            per_item,
            per_cell,
            text: rest.trim().to_string(),
        });
    }
    Ok(cases)
}

/// A kernel's byte model: its cases and the default for dispatches none applies to.
#[derive(Clone, Debug, PartialEq)]
pub struct ByteModel {
    /// Bytes an item where no case applies: every per-item array bound ([`bytes_per_item`]).
    pub default_per_item: u32,
    /// The source's `// bytes` cases, in its order.
    pub cases: Vec<ByteCase>,
    /// The uniforms the cases look at, each once (at most [`MAX_KEYS`]).
    keys: Vec<String>,
}

impl ByteModel {
    /// The model of a complete source (includes expanded).
    pub fn of(source: &str) -> Result<Self, String> {
        let cases = byte_cases(source)?;
        let mut keys: Vec<String> = Vec::new();
        for (k, _) in cases.iter().flat_map(|c| &c.when) {
            if !keys.contains(k) {
                keys.push(k.clone());
            }
        }
        if keys.len() > MAX_KEYS {
            return Err(format!(
                "the `// bytes` cases look at {} uniforms ({}); at most {MAX_KEYS}",
                keys.len(),
                keys.join(", ")
            ));
        }
        Ok(Self {
            default_per_item: bytes_per_item(source),
            cases,
            keys,
        })
    }

    /// The bytes of a dispatch of `items` items over a grid of `cells` cells whose unsigned
    /// uniforms are `values`.
    pub fn bytes(&self, items: u64, cells: u64, values: &HashMap<String, u32>) -> u64 {
        self.bytes_given(items, cells, |k| values.get(k).copied())
    }

    /// [`ByteModel::bytes`] with the unsigned uniform called `k` given as `value(k)`.
    pub fn bytes_given(&self, items: u64, cells: u64, value: impl Fn(&str) -> Option<u32>) -> u64 {
        match self.cases.iter().find(|c| c.applies(&value)) {
            Some(c) => items * u64::from(c.per_item) + cells * u64::from(c.per_cell),
            None => items * u64::from(self.default_per_item),
        }
    }

    /// The uniforms the cases look at, each once.
    pub fn keys(&self) -> &[String] {
        &self.keys
    }

    /// Whether any case looks at the uniforms (so a dispatch must be asked for them).
    pub fn needs_uniforms(&self) -> bool {
        !self.keys.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: &str = "\
layout(std430) buffer X { float x[]; };
layout(std430) readonly buffer Q { float q[]; };
layout(std430) writeonly buffer O { float o[]; };
layout(std430) readonly buffer CellVel { vec4 cell_vel[]; };
layout(std430) readonly buffer Scalars { double scalars[]; };
layout(std430) coherent readonly buffer K { float k[]; };
layout(std430) coherent buffer Done { uint done[]; };
// bytes when phase=1 mode=2: X rw, Q r
// bytes when phase=1: Q r ×8, O w
// bytes when phase=3: none
// bytes: CellVel r a cell, O w
";

    fn values(pairs: &[(&str, u32)]) -> HashMap<String, u32> {
        pairs.iter().map(|(k, v)| (k.to_string(), *v)).collect()
    }

    #[test]
    fn the_default_counts_every_per_item_array_bound() {
        // X read and written, Q read, O written, the cell velocity's vec4 read, K read
        // (`coherent` as any other); Scalars and Done are small.
        assert_eq!(bytes_per_item(SOURCE), 8 + 4 + 4 + 16 + 4);
    }

    #[test]
    fn the_first_case_whose_uniforms_match_counts() {
        let m = ByteModel::of(SOURCE).expect("the cases parse");
        assert_eq!(m.cases.len(), 4);
        let b = |pairs: &[(&str, u32)]| m.bytes(10, 100, &values(pairs));
        assert_eq!(b(&[("phase", 1), ("mode", 2)]), 10 * 12);
        assert_eq!(b(&[("phase", 1), ("mode", 0)]), 10 * (32 + 4));
        assert_eq!(b(&[("phase", 3)]), 0);
        // The last case has no `when`: every other dispatch, the cell velocity a cell.
        assert_eq!(b(&[("phase", 0)]), 10 * 4 + 100 * 16);
        assert_eq!(b(&[]), 10 * 4 + 100 * 16);
        assert!(m.needs_uniforms());
    }

    #[test]
    fn without_cases_the_default_counts() {
        let src = "layout(std430) readonly buffer Q { float q[]; };\n";
        let m = ByteModel::of(src).expect("no cases");
        assert!(!m.needs_uniforms());
        assert_eq!(m.bytes(7, 1000, &HashMap::new()), 28);
    }

    #[test]
    fn a_vec4_is_sixteen_bytes_an_element() {
        // (`mg_rows.comp`: an item a row of four cells, a vec4 of each array)
        let src = "layout(std430) readonly buffer Q { vec4 q[]; };
                   layout(std430) writeonly buffer O { vec4 o[]; };
";
        assert_eq!(bytes_per_item(src), 32);
    }

    #[test]
    fn of_a_block_declared_in_branches_the_one_compiled_counts() {
        let src = "\
#ifndef GUARD
#define GUARD
#ifdef CELL_VEL_FLOATS
layout(std430) readonly buffer CellVel { float cell_vel[]; };
#else
layout(std430) readonly buffer CellVel { vec4 cell_vel[]; };
#endif
#if PER > 1
layout(std430) readonly buffer Q { float q[]; };
#else
layout(std430) readonly buffer R { float r[]; };
#endif
#endif
#ifdef GUARD
layout(std430) writeonly buffer O { float o[]; };
#endif
";
        // The cell velocity's vec4 read, Q and R (an expression: both seen), O written.
        assert_eq!(bytes_per_item(src), 16 + 4 + 4 + 4);
        // A block declared only where a kernel is compiled otherwise counts all the same.
        let skipped = "#ifdef RESIDUAL\nlayout(std430) readonly buffer X { float x[]; };\n#endif\n";
        assert_eq!(bytes_per_item(skipped), 4);
        let floats = format!("#define CELL_VEL_FLOATS\n{src}");
        let d = declarations(&floats);
        let cell_vel: Vec<u32> = d
            .iter()
            .filter(|(n, _)| n == "CellVel")
            .map(|(_, d)| d.width)
            .collect();
        // (three floats a cell: an element of the model)
        assert_eq!(cell_vel, [12]);
        assert_eq!(bytes_per_item(&floats), 12 + 4 + 4 + 4);
    }

    #[test]
    fn a_case_that_contradicts_the_declarations_is_refused_by_name() {
        let decls = "layout(std430) readonly buffer Q { float q[]; };\n\
                     layout(std430) writeonly buffer O { float o[]; };\n";
        for (case, why) in [
            ("// bytes: Z r", "names no array"),
            ("// bytes: Q w", "forbids"),
            ("// bytes: O rw", "forbids"),
            ("// bytes: Q", "is not `array"),
            ("// bytes: Q x", "no pass"),
            ("// bytes: Q r ×k", "factor"),
            ("// bytes: Q r twice over", "ends in words"),
            ("// bytes when phase: Q r", "name=value"),
            ("// bytes when phase=one: Q r", "whole number"),
            ("// bytes if phase=1: Q r", "`when`"),
            ("// bytes Q r", "no ':'"),
        ] {
            let err = byte_cases(&format!("{decls}{case}\n")).expect_err(case);
            assert!(err.contains(why), "{case}: {err}");
            assert!(err.contains(case.trim()), "{case}: {err}");
        }
    }
}
