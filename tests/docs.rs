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

/// The Blender add-on's limits and defaults are the range table's and the default scene's.
#[test]
fn the_blender_addons_ranges_are_what_the_code_generates() {
    let path =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tools/blender/plume_addon/ranges.json");
    let generated = plume::docs::addon_ranges();
    if std::env::var_os("PLUME_BLESS").is_some() {
        std::fs::write(&path, &generated).expect("written");
        return;
    }
    let committed = std::fs::read_to_string(&path).expect("ranges.json; PLUME_BLESS=1 writes it");
    assert!(
        committed == generated,
        "{} differs from what the code generates: PLUME_BLESS=1 cargo test --release --test docs",
        path.display()
    );
    let v: serde_json::Value = serde_json::from_str(&committed).expect("json");
    assert_eq!(v["ranges"]["fluid.vorticity"]["max"], 100.0);
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

#[test]
fn the_gpu_kernel_byte_table_is_what_the_shaders_give() {
    let text = plume::docs::gpu_kernel_reference();
    // Every kernel file is on the page, and a plain one counts what it binds: the copy
    // kernel reads one float and writes one. The Laplacian's cases: an iteration's A·p reads
    // one array and writes one, the residual reads two.
    let files = std::fs::read_dir(PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("shaders/sim"))
        .expect("shaders/sim")
        .filter_map(|e| e.ok())
        .filter(|e| e.path().extension().is_some_and(|x| x == "comp"))
        .count();
    assert_eq!(plume_gpu::kernel_bytes().len(), files);
    assert!(text.contains("| `copy.comp` | 8 |"), "{text}");
    assert!(text.contains("`when residual=0: X r, Out w` (8)"), "{text}");
    assert!(text.contains("`otherwise: X r, B r, Out w` (12)"), "{text}");
    matches_committed("gpu-kernels.md", &text);
}

#[test]
fn the_environment_reference_is_what_the_tables_give() {
    let text = plume::docs::environment_reference();
    for (_, _, table) in plume::ENVIRONMENT {
        for s in table {
            assert!(
                text.contains(&format!("| `{}` |", s.name)),
                "{} missing",
                s.name
            );
        }
    }
    assert!(
        text.contains("| `PLUME_GPU_WG` | a power of two from 32 to 1024 |"),
        "{text}"
    );
    matches_committed("environment.md", &text);
}

/// The grid's cell limit, wherever a page names it, is the binary's (`MAX_TOTAL_CELLS`, as
/// `max_total_cells_text` writes it): no other figure for it stands anywhere.
#[test]
fn every_page_gives_the_cell_limit_the_binary_enforces() {
    let limit = plume::sim::grid::max_total_cells_text();
    assert_eq!(limit, "134 217 728 (512³)");
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut pages: Vec<PathBuf> = ["README.md", "ARCHITECTURE.md"]
        .iter()
        .map(|p| root.join(p))
        .collect();
    for dir in ["docs", "docs/reference"] {
        for e in std::fs::read_dir(root.join(dir)).expect("docs") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "md") {
                pages.push(p);
            }
        }
    }
    let mut naming = 0;
    for page in &pages {
        let text = std::fs::read_to_string(page).expect("readable");
        // Hand-written figures for the limit: "36 M cells", "≤ 36 M in all", "36 million".
        for (i, line) in text.lines().enumerate() {
            let stale = [" M cells", " M in all", "million cells", "million in all"];
            assert!(
                !stale.iter().any(|s| line.contains(s)),
                "{}:{}: a cell limit written by hand: {line}",
                page.display(),
                i + 1
            );
            naming += usize::from(line.contains(&limit));
        }
    }
    assert!(naming >= 4, "the limit is named on {naming} lines");
}

/// The pages that list the presets list every one `scene::PRESETS` holds, in its order:
/// the command-line page (as code) and the developers' layout (as words).
#[test]
fn every_list_of_the_presets_names_them_all() {
    let names = plume::scene::Scene::preset_names();
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let flat = |page: &str| {
        std::fs::read_to_string(root.join(page))
            .expect("readable")
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    };
    let code: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    let commands = flat("docs/commands.md");
    let want = format!("a preset name: {};", code.join(", "));
    assert!(
        commands.contains(&want),
        "docs/commands.md should say: {want}"
    );
    let dev = flat("docs/development.md");
    let want = format!("the presets ({})", names.join(", "));
    assert!(
        dev.contains(&want),
        "docs/development.md should say: {want}"
    );
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
    run_small(
        "readme",
        &cmds
            .into_iter()
            .map(|c| ("README.md".to_string(), c))
            .collect::<Vec<_>>(),
    );
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

/// The commands the guide shows (`docs/*.md`, inline or in code blocks, as `plume …` or
/// `cargo run --release -- …`, with at least one flag), placeholders filled in: `N` and
/// `20|45|120` take a value, `[--upres N]` its value, `DIR`, `FILE`, `IMAGE`, `…` a scratch
/// path or a preset. The bare name of a command (`plume render`) is a reference, not a
/// command.
fn guide_commands() -> Vec<(String, Vec<String>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let mut out = vec![];
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root.join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    pages.sort();
    for page in pages {
        let text = std::fs::read_to_string(&page).expect("readable");
        let mut spans: Vec<String> = vec![];
        let mut in_block = false;
        for line in text.lines() {
            if line.starts_with("```") {
                in_block = !in_block;
                continue;
            }
            if in_block {
                spans.push(line.to_string());
            }
        }
        let mut rest = text.as_str();
        while let Some(a) = rest.find('`') {
            let after = &rest[a + 1..];
            let Some(b) = after.find('`') else { break };
            spans.push(after[..b].to_string());
            rest = &after[b + 1..];
        }
        for span in spans {
            let span = span.split(" # ").next().unwrap_or("").replace('\n', " ");
            let span = span.trim();
            let command = ["plume ", "cargo run --release -- ", "xvfb-run "];
            if !command.iter().any(|c| span.starts_with(c)) {
                continue;
            }
            let words: Vec<&str> = span.split_whitespace().collect();
            let start = words
                .iter()
                .position(|w| *w == "plume")
                .map(|i| i + 1)
                .or_else(|| {
                    words
                        .windows(3)
                        .position(|w| w == ["run", "--release", "--"])
                        .map(|i| i + 3)
                });
            let Some(start) = start else { continue };
            if words
                .first()
                .is_some_and(|w| *w == "$" || w.starts_with('('))
            {
                continue;
            }
            let args: Vec<String> = words[start..].iter().map(|w| w.to_string()).collect();
            // A synopsis (`[--size N | --dims X,Y,Z]`) is not a command either.
            let synopsis = args.iter().any(|a| a == "|" || a == "[view");
            if !args.iter().any(|a| a.starts_with("--")) || synopsis {
                continue;
            }
            out.push((page.display().to_string(), args));
        }
    }
    out
}

/// Every command the guide shows runs and succeeds at a small size.
#[test]
fn the_guides_commands_run() {
    let cmds = guide_commands();
    assert!(cmds.len() >= 15, "{cmds:?}");
    run_small("guide", &cmds);
}

/// A run folder of two small frames in `dir` (written the first time it is asked for), for
/// the guide's commands that read one back.
fn guide_run(dir: &std::path::Path) -> String {
    let run = dir.join("guide-run");
    if !run.join("manifest.json").is_file() {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_plume"))
            .args([
                "run", "--size", "12", "--frames", "2", "--every", "2", "--out",
            ])
            .arg(&run)
            .output()
            .expect("plume runs");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    run.display().to_string()
}

/// Runs each `(where it is shown, arguments)` at a small size and asserts it succeeds: the
/// grid, steps, frames, image and intervals shrunk, placeholders filled in, files written
/// into a scratch folder, the viewer on a virtual screen for two frames.
fn run_small(tag: &str, cmds: &[(String, Vec<String>)]) {
    let dir = std::env::temp_dir().join(format!("plume-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    let sized = [
        "--steps",
        "--frames",
        "--size",
        "--dims",
        "--width",
        "--height",
        "--seconds",
        "--warmup",
        "--window",
        "--every",
    ];
    for (n, (page, cmd)) in cmds.iter().enumerate() {
        let mut args: Vec<String> = vec![];
        let mut it = cmd.iter().map(|a| a.trim_matches(|c| c == '[' || c == ']'));
        let mut every = false;
        while let Some(a) = it.next() {
            if sized.contains(&a) {
                every |= a == "--every";
                it.next();
                continue;
            }
            let value =
                |v: Option<&str>| v.unwrap_or("").split('|').next().unwrap_or("").to_string();
            match a {
                "--out" | "--screenshot" | "--record" => {
                    let v = value(it.next());
                    let name = std::path::Path::new(&v)
                        .file_name()
                        .map_or("out".into(), |f| f.to_string_lossy().into_owned());
                    let is_render = cmd.first().is_some_and(|c| c == "render");
                    let name = if name == "…" || name == "DIR" || name.is_empty() {
                        match is_render && !cmd.iter().any(|c| c == "--every") {
                            true => format!("out{n}.png"),
                            false => format!("out{n}"),
                        }
                    } else {
                        format!("{n}-{}", name.replace("NAME", "plume"))
                    };
                    args.push(a.to_string());
                    args.push(dir.join(name).display().to_string());
                }
                "--scene" => {
                    let v = value(it.next());
                    args.push(a.to_string());
                    args.push(if v == "NAME" || v == "FILE" {
                        "plume".into()
                    } else {
                        v
                    });
                }
                "--upres" => {
                    it.next();
                    args.extend(["--upres".to_string(), "2".to_string()]);
                }
                // A run folder to play back or draw: one written here once.
                "--run" => {
                    it.next();
                    args.extend(["--run".to_string(), guide_run(&dir)]);
                }
                "--frame" => {
                    it.next();
                    args.extend(["--frame".to_string(), "-1".to_string()]);
                }
                "…" | "" => {}
                _ => args.push(a.to_string()),
            }
        }
        let sub = match args.first().map(String::as_str) {
            Some(s) if !s.starts_with("--") => s.to_string(),
            _ => {
                args.insert(0, "view".into());
                "view".into()
            }
        };
        let mut small: Vec<&str> = match sub.as_str() {
            "view" => vec!["--size", "12", "--frames", "2"],
            "run" => vec!["--size", "12", "--frames", "2"],
            "wedge" => vec!["--size", "12", "--frames", "2"],
            "render" => vec![
                "--size", "12", "--steps", "4", "--width", "48", "--height", "32",
            ],
            "bench" => vec!["--size", "12", "--steps", "2", "--warmup", "1"],
            "simulate" => vec!["--size", "12", "--seconds", "0.1"],
            _ => vec!["--size", "12"],
        };
        if args.iter().any(|a| a == "--run") {
            // The run's grid and steps are what it wrote.
            small.retain(|a| !["--size", "12", "--steps", "4"].contains(a));
            if every {
                small.extend(["--every", "1"]);
            }
        } else if every {
            small.extend(["--every", "2"]);
        }
        args.extend(small.iter().map(|s| s.to_string()));
        if sub == "run" && !args.iter().any(|a| a == "--out") {
            args.extend([
                "--out".to_string(),
                dir.join(format!("run{n}")).display().to_string(),
            ]);
        }
        if sub == "render" && !args.iter().any(|a| a == "--out") {
            args.extend([
                "--out".to_string(),
                dir.join(format!("r{n}.png")).display().to_string(),
            ]);
        }
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
            "{page}: plume {} failed: {}",
            args.join(" "),
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
