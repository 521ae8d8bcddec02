//! The environment variables that change how Plume runs, for experiments and measurements
//! (`PLUME_GPU_…` for the GPU backend's kernels, `PLUME_RENDER_…` for the raymarch): what
//! each takes, in one table a part that reads some keeps beside its readers
//! (`plume_gpu::ENVIRONMENT`, `plume::render::ENVIRONMENT`). They are checked before a run
//! starts, so that a misspelt name or a value a variable does not take is an error that
//! names it, not a run with the default that looks like the experiment. An empty value is
//! as if the variable were not set. The readers parse values with the functions here, so
//! what the check lets through is what they read.

use std::ffi::OsString;

/// What a variable takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Takes {
    /// `0` (off) or `1` (on).
    Switch,
    /// A whole number, 0 or more.
    Whole,
    /// A power of two from the first number to the second.
    PowerOfTwo(u32, u32),
    /// One of these words.
    OneOf(&'static [&'static str]),
    /// A folder (written to).
    Folder,
    /// Anything: being set is what counts.
    Anything,
}

/// One variable: its name, what it takes, and what it does (a line of the reference page).
#[derive(Clone, Copy, Debug)]
pub struct Setting {
    /// The variable's name.
    pub name: &'static str,
    /// What it takes.
    pub takes: Takes,
    /// What it does, and what holds where it is not set.
    pub does: &'static str,
}

/// `0` or `1` as a switch.
pub fn switch(v: &str) -> Option<bool> {
    match v {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

/// A whole number, spaces around it allowed.
pub fn whole(v: &str) -> Option<u32> {
    v.trim().parse().ok()
}

/// A power of two from `lo` to `hi`, spaces around it allowed.
pub fn power_of_two(v: &str, lo: u32, hi: u32) -> Option<u32> {
    whole(v).filter(|w| w.is_power_of_two() && (lo..=hi).contains(w))
}

/// One of `words`, spaces around it allowed.
pub fn one_of(v: &str, words: &[&'static str]) -> Option<&'static str> {
    words.iter().copied().find(|w| *w == v.trim())
}

impl Takes {
    /// Whether `v` is a value this takes (an empty one always is: not set).
    pub fn accepts(&self, v: &str) -> bool {
        v.is_empty()
            || match *self {
                Takes::Switch => switch(v).is_some(),
                Takes::Whole => whole(v).is_some(),
                Takes::PowerOfTwo(lo, hi) => power_of_two(v, lo, hi).is_some(),
                Takes::OneOf(words) => one_of(v, words).is_some(),
                Takes::Folder | Takes::Anything => true,
            }
    }

    /// What this takes, in words.
    pub fn words(&self) -> String {
        match *self {
            Takes::Switch => "0 (off) or 1 (on)".to_string(),
            Takes::Whole => "a whole number".to_string(),
            Takes::PowerOfTwo(lo, hi) => format!("a power of two from {lo} to {hi}"),
            Takes::OneOf(words) => {
                let quoted: Vec<String> = words.iter().map(|w| format!("`{w}`")).collect();
                format!("one of {}", quoted.join(", "))
            }
            Takes::Folder => "a folder".to_string(),
            Takes::Anything => "anything (set at all)".to_string(),
        }
    }
}

/// The value of `name` where it is set and not empty, as text (`None` where it is not
/// text: [`problem`] refuses that before a reader sees it).
pub fn value(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.is_empty())
}

/// The switch `name` (`0` or `1`) where it is set, else `None`: what every reader of a
/// [`Takes::Switch`] variable reads.
pub fn switch_set(name: &str) -> Option<bool> {
    value(name).and_then(|v| switch(&v))
}

/// Of the variables in `vars` whose names start with one of `tables`' prefixes, the first
/// that is not in that prefix's table, or whose value the table's entry does not take: a
/// message that names the variable, its value and what it takes (or the names closest to
/// it). `tables`: (prefix, what reads them, the table).
pub fn problem(
    vars: impl IntoIterator<Item = (OsString, OsString)>,
    tables: &[(&str, &str, &[Setting])],
) -> Option<String> {
    let mut vars: Vec<(OsString, OsString)> = vars.into_iter().collect();
    vars.sort();
    for (name, value) in vars {
        let Some(name) = name.to_str() else { continue };
        let Some((_, reader, table)) = tables.iter().find(|(p, _, _)| name.starts_with(p)) else {
            continue;
        };
        let Some(setting) = table.iter().find(|s| s.name == name) else {
            let mut close: Vec<(usize, &str)> = table
                .iter()
                .map(|s| (crate::scene::keys::edit_distance(s.name, name), s.name))
                .filter(|(d, s)| *d <= (s.len().max(name.len()) / 4).max(2))
                .collect();
            close.sort();
            let known = match close.first() {
                Some((_, s)) => format!("; did you mean {s}?"),
                None => {
                    let all: Vec<&str> = table.iter().map(|s| s.name).collect();
                    format!(" (it reads {})", all.join(", "))
                }
            };
            return Some(format!(
                "the environment variable {name} is not one {reader} reads{known} \
                 (`unset {name}` to run without it)"
            ));
        };
        let Some(text) = value.to_str() else {
            return Some(format!(
                "the environment variable {name} is not text; it takes {}",
                setting.takes.words()
            ));
        };
        if !setting.takes.accepts(text) {
            return Some(format!(
                "the environment variable {name} is {text:?}, which it does not take: it takes \
                 {}; what it sets: {}",
                setting.takes.words(),
                setting.does
            ));
        }
    }
    None
}

/// The reference page's table of `settings`: a row a variable.
pub fn markdown_rows(settings: &[Setting]) -> String {
    let mut out = String::from("| variable | takes | does |\n|---|---|---|\n");
    for s in settings {
        out.push_str(&format!(
            "| `{}` | {} | {} |\n",
            s.name,
            s.takes.words(),
            s.does
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const TABLE: &[Setting] = &[
        Setting {
            name: "PLUME_TEST_WG",
            takes: Takes::PowerOfTwo(32, 1024),
            does: "the group size",
        },
        Setting {
            name: "PLUME_TEST_ON",
            takes: Takes::Switch,
            does: "a switch",
        },
        Setting {
            name: "PLUME_TEST_MODE",
            takes: Takes::OneOf(&["default", "immutable"]),
            does: "a mode",
        },
    ];

    fn check(vars: &[(&str, &str)]) -> Option<String> {
        problem(
            vars.iter()
                .map(|(n, v)| (OsString::from(n), OsString::from(v))),
            &[("PLUME_TEST_", "the test", TABLE)],
        )
    }

    #[test]
    fn values_a_variable_takes_pass_and_others_are_named() {
        assert_eq!(
            check(&[("PLUME_TEST_WG", "512"), ("PLUME_TEST_ON", "0")]),
            None
        );
        // (empty: as if not set; other prefixes are not ours)
        assert_eq!(
            check(&[("PLUME_TEST_WG", ""), ("PLUME_BIN", "x"), ("HOME", "/")]),
            None
        );
        assert_eq!(check(&[("PLUME_TEST_MODE", " default ")]), None);
        let e = check(&[("PLUME_TEST_WG", "500")]).expect("500 is no power of two");
        assert!(e.contains("PLUME_TEST_WG is \"500\""), "{e}");
        assert!(
            e.contains("a power of two from 32 to 1024; what it sets: the group size"),
            "{e}"
        );
        let e = check(&[("PLUME_TEST_WG", "2048")]).expect("out of range");
        assert!(e.contains("\"2048\""), "{e}");
        let e = check(&[("PLUME_TEST_ON", "yes")]).expect("a switch takes 0 or 1");
        assert!(e.contains("0 (off) or 1 (on)"), "{e}");
        let e = check(&[("PLUME_TEST_MODE", "fast")]).expect("not a word it takes");
        assert!(e.contains("one of `default`, `immutable`"), "{e}");
    }

    #[test]
    fn a_misspelt_name_is_refused_with_the_closest() {
        let e = check(&[("PLUME_TEST_WGG", "512")]).expect("no such variable");
        assert!(
            e.contains("PLUME_TEST_WGG is not one the test reads"),
            "{e}"
        );
        assert!(e.contains("did you mean PLUME_TEST_WG?"), "{e}");
        let e = check(&[("PLUME_TEST_SOMETHING_ELSE", "1")]).expect("no such variable");
        assert!(!e.contains("did you mean"), "nothing is close: {e}");
        assert!(
            e.contains("it reads PLUME_TEST_WG, PLUME_TEST_ON, PLUME_TEST_MODE"),
            "{e}"
        );
    }

    #[test]
    fn the_readers_parse_what_the_check_lets_through() {
        assert_eq!(power_of_two(" 256 ", 32, 1024), Some(256));
        assert_eq!(power_of_two("16", 32, 1024), None);
        assert_eq!(whole("4096"), Some(4096));
        assert_eq!(whole("-1"), None);
        assert_eq!(switch("1"), Some(true));
        assert_eq!(switch("true"), None);
        assert_eq!(
            one_of("immutable", &["default", "immutable"]),
            Some("immutable")
        );
    }
}
