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

/// Every relative link of the README, ARCHITECTURE.md and the guide leads to a file that
/// exists (pictures included), so moving a page cannot leave a dead link behind.
#[test]
fn every_relative_link_in_the_docs_resolves() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut pages = vec![root.join("README.md"), root.join("ARCHITECTURE.md")];
    for dir in ["docs", "docs/reference"] {
        for e in std::fs::read_dir(root.join(dir)).expect("docs/") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "md") {
                pages.push(p);
            }
        }
    }
    assert!(pages.len() >= 12, "{pages:?}");
    let mut dead = vec![];
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("readable");
        for (at, _) in text.match_indices("](") {
            let rest = &text[at + 2..];
            let Some(end) = rest.find(')') else { continue };
            let target = &rest[..end];
            if target.starts_with("http") || target.starts_with('#') || target.contains(' ') {
                continue;
            }
            let file = target.split('#').next().unwrap_or(target);
            let full = page.parent().expect("a folder").join(file);
            if !full.exists() {
                dead.push(format!("{}: {target}", page.display()));
            }
        }
    }
    assert!(dead.is_empty(), "dead links: {dead:#?}");
}

/// The README's `sh` blocks' `plume …` commands, as written.
fn readme_commands() -> Vec<Vec<String>> {
    let text =
        std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).expect("README");
    let mut out = vec![];
    let mut in_sh = false;
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        let cmd = line.split(" #").next().unwrap_or("").trim();
        if in_sh && cmd.starts_with("plume ") {
            out.push(cmd.split_whitespace().skip(1).map(String::from).collect());
        }
    }
    out
}

/// Every `plume …` command the README shows runs and succeeds, at a small size: the grid,
/// steps, frames and image shrunk, files written into a scratch folder, the viewer on a
/// virtual screen for two frames. A documented command that stops working fails here.
#[test]
fn the_readmes_commands_run() {
    let cmds = readme_commands();
    assert!(cmds.len() >= 5, "{cmds:?}");
    let dir = std::env::temp_dir().join(format!("plume-readme-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    for cmd in cmds {
        let mut args: Vec<String> = vec![];
        let mut it = cmd.iter().peekable();
        while let Some(a) = it.next() {
            match a.as_str() {
                "--steps" | "--frames" | "--size" | "--width" | "--height" => {
                    it.next();
                }
                "--out" => {
                    let name = it.next().expect("--out takes a path");
                    args.push(a.clone());
                    args.push(dir.join(name).display().to_string());
                }
                _ => args.push(a.clone()),
            }
        }
        let sub = args[0].clone();
        let small: &[&str] = match sub.as_str() {
            "view" => &["--size", "12", "--frames", "2"],
            "run" => &["--size", "12", "--frames", "2"],
            "render" if args.iter().any(|a| a == "--every") => &[
                "--size", "12", "--steps", "8", "--width", "48", "--height", "32",
            ],
            "render" => &[
                "--size", "12", "--steps", "4", "--width", "48", "--height", "32",
            ],
            "bench" => &["--size", "12", "--steps", "2", "--warmup", "1"],
            _ => &["--size", "12"],
        };
        args.extend(small.iter().map(|s| s.to_string()));
        let bin = env!("CARGO_BIN_EXE_plume");
        let out = if sub == "view" {
            std::process::Command::new("xvfb-run")
                .args(["-a", "-s", "-screen 0 1280x800x24", bin])
                .args(&args)
                .output()
                .expect("xvfb-run runs (the Debian package xvfb; scripts/test installs it)")
        } else {
            std::process::Command::new(bin)
                .args(&args)
                .output()
                .expect("plume runs")
        };
        assert!(
            out.status.success(),
            "plume {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The scenes whose keys the reference must cover: every preset, and the default with the
/// detail pass on (a default `[detail]` is not written).
fn every_scene() -> Vec<plume::scene::Scene> {
    let mut scenes: Vec<plume::scene::Scene> = plume::scene::Scene::preset_names()
        .iter()
        .filter_map(|n| plume::scene::Scene::preset(n))
        .collect();
    let mut d = plume::scene::Scene::default_plume();
    d.detail.enabled = true;
    scenes.push(d);
    scenes
}

/// Every key a scene file can hold (as the presets write them) is on the reference page:
/// a number in its table's rows or a row of the other keys. A key added to the scene types
/// without its line on the page fails here.
#[test]
fn every_key_the_scenes_write_is_on_the_reference() {
    let keys = plume::docs::scene_keys(&every_scene());
    assert!(keys.len() > 60, "{}", keys.len());
    for (path, _) in keys {
        assert!(
            plume::docs::covered(&path),
            "{path} is not on docs/reference/scene-file.md"
        );
    }
}
