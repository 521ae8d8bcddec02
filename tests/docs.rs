//! The reference pages cannot drift: each committed page in `docs/reference/` equals what
//! the code generates now (`PLUME_BLESS=1` rewrites them instead of failing), and the
//! generated pages cover every entry of the range table and every command.

use std::path::PathBuf;

fn page(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("docs/reference")
        .join(name)
}

fn matches_committed(name: &str, generated: &str) {
    let path = page(name);
    if std::env::var_os("PLUME_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().expect("a folder")).expect("docs/reference");
        std::fs::write(&path, generated).expect("written");
        return;
    }
    let committed = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e}; PLUME_BLESS=1 writes it", path.display()));
    if committed != generated {
        let line = committed
            .lines()
            .zip(generated.lines())
            .position(|(a, b)| a != b)
            .map_or(
                committed.lines().count().min(generated.lines().count()),
                |l| l,
            );
        panic!(
            "{} differs from what the code generates, from line {}:\n  committed: {:?}\n  \
             generated: {:?}\nrun PLUME_BLESS=1 cargo test --release --test docs and commit it",
            path.display(),
            line + 1,
            committed.lines().nth(line),
            generated.lines().nth(line)
        );
    }
}

#[test]
fn the_scene_file_reference_is_what_the_range_table_generates() {
    let text = plume::docs::scene_reference();
    // Every entry of the one range table is on the page, with its range.
    let listed: usize = plume::docs::TABLES.iter().map(|t| t.2.len()).sum();
    assert_eq!(
        listed,
        plume::ranges::ALL.len(),
        "a table's entries are not all listed"
    );
    for p in plume::ranges::ALL {
        let row = format!("| `{}` |", p.key);
        assert!(text.contains(&row), "{} missing", p.key);
        assert!(
            text.contains(&p.range_text()),
            "{}: {}",
            p.key,
            p.range_text()
        );
        assert!(!p.doc.trim().is_empty(), "{} has no meaning", p.key);
    }
    matches_committed("scene-file.md", &text);
}

#[test]
fn the_command_line_reference_is_what_clap_generates() {
    let text = plume::docs::cli_reference();
    for cmd in ["view", "run", "simulate", "bench", "render"] {
        assert!(text.contains(&format!("## plume {cmd}\n")), "{cmd} missing");
    }
    assert!(text.contains("--upres") && text.contains("--fps"));
    matches_committed("command-line.md", &text);
}
