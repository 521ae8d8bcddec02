//! Every shader Plume compiles passes Khronos' reference GLSL compiler (`glslangValidator`,
//! Debian's `glslang-tools`), as the driver is given it: the solver's kernels in every
//! variant a run compiles (dumped by `PLUME_GPU_DUMP_PROGRAMS`, in the groups of 512 a card
//! takes, with the cell velocity as `vec4`s and as floats, with and without the last work
//! group's code), and the renderer's shaders. Mesa's compiler, which CI runs, takes some
//! sources the standard does not; a card's driver may not, and a card is at hand only now
//! and then. A missing `glslangValidator` fails the test: it is among the packages
//! `bash scripts/packages.sh` lists.

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// What the reference compiler says of `file` (a full source, its stage from its ending):
/// `None` where it takes it, else its messages.
fn rejected(file: &Path) -> Option<String> {
    let out = Command::new("glslangValidator")
        .arg(file)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "glslangValidator (Debian's glslang-tools, among `bash scripts/packages.sh`) \
                 does not run: {e}"
            )
        });
    let said = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (!out.status.success() || said.contains("ERROR") || said.contains("WARNING"))
        .then(|| format!("{}: {}", file.display(), said.trim()))
}

#[test]
fn the_solvers_kernels_pass_the_reference_compiler() {
    let root = common::temp_dir("glsl-kernels");
    let ways: [(&str, &[(&str, &str)]); 3] = [
        ("card", &[("PLUME_GPU_WG", "512")]),
        ("floats", &[("PLUME_GPU_CELL_VEL_FLOATS", "1")]),
        ("no_last_group", &[("PLUME_GPU_LAST_GROUP", "0")]),
    ];
    let mut sources = Vec::new();
    for (way, env) in ways {
        let dir = root.join(way);
        let out = Command::new(env!("CARGO_BIN_EXE_plume"))
            .args(["bench", "--backend", "gpu", "--size", "8", "--warmup", "1"])
            .args(["--steps", "1", "--json"])
            .env("PLUME_GPU_DUMP_PROGRAMS", &dir)
            .envs(env.iter().copied())
            .output()
            .expect("plume runs");
        assert!(
            out.status.success(),
            "{way}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let mut here: Vec<PathBuf> = std::fs::read_dir(&dir)
            .expect("the dumped programs")
            .map(|e| e.expect("an entry").path())
            .filter(|p| p.extension().is_some_and(|e| e == "comp"))
            .collect();
        here.sort();
        // (every kernel at least once: 40 files in shaders/sim hold them)
        assert!(here.len() >= 40, "{way}: only {} sources", here.len());
        sources.extend(here);
    }
    let floats = sources
        .iter()
        .filter(|p| p.to_string_lossy().contains("CELL_VEL_FLOATS"))
        .count();
    assert!(
        floats >= 4,
        "the cell velocity's kernels as floats: {floats}"
    );
    let bad: Vec<String> = sources.iter().filter_map(|p| rejected(p)).collect();
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    let _ = std::fs::remove_dir_all(&root);
}

#[test]
fn the_renderers_shaders_pass_the_reference_compiler() {
    let shaders = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let march = std::fs::read_to_string(shaders.join("light_march.glsl")).expect("a shader");
    let dir = common::temp_dir("glsl-render");
    std::fs::create_dir_all(&dir).expect("a folder");
    let mut checked = 0;
    let mut bad = Vec::new();
    for e in std::fs::read_dir(&shaders).expect("shaders/") {
        let p = e.expect("an entry").path();
        let Some(ext) = p.extension().and_then(|e| e.to_str()) else {
            continue;
        };
        if !["vert", "frag", "comp"].contains(&ext) {
            continue;
        }
        // (the include `render/light.rs` puts in, the one the renderer's shaders have)
        let text = std::fs::read_to_string(&p)
            .expect("a shader")
            .replace("#include \"light_march.glsl\"", &march);
        let full = dir.join(p.file_name().expect("a name"));
        std::fs::write(&full, text).expect("written");
        checked += 1;
        bad.extend(rejected(&full));
    }
    assert!(checked >= 12, "{checked} shaders");
    assert!(bad.is_empty(), "{}", bad.join("\n\n"));
    let _ = std::fs::remove_dir_all(&dir);
}
