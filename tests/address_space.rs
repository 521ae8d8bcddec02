//! The default backend under an address-space limit (`ulimit -v`): `auto`'s GPU probe runs
//! in a child process, so the OpenGL driver it loads takes nothing from the run; `auto`
//! never refuses what `--backend cpu` completes, and every refusal gives true figures.

use std::process::Command;

/// `plume ARGS` under `ulimit -v kib`: (succeeded, standard error).
fn limited(kib: u64, args: &str) -> (bool, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v {kib} && exec \"{}\" {args}",
            env!("CARGO_BIN_EXE_plume")
        ))
        .output()
        .expect("sh runs");
    (
        out.status.success(),
        format!("{}\n({})", String::from_utf8_lossy(&out.stderr), out.status),
    )
}

#[test]
fn auto_completes_whatever_the_cpu_backend_completes_under_an_address_space_limit() {
    let dir = std::env::temp_dir().join(format!("plume-ulimit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch");
    let d = dir.display();
    let commands = [
        (
            "run",
            "run --size 16 --frames 1 --format npy --out {d}/run-{b}-{k}",
        ),
        ("simulate", "simulate --size 16 --seconds 0.1"),
        (
            "render",
            "render --size 16 --steps 2 --width 64 --height 48 --out {d}/render-{b}-{k}.png",
        ),
    ];
    let mut auto_ran = 0;
    // The limits (500000 and 700000 KiB refused the default backend before), not
    // the band of 150000–250000 KiB where a 16³ run's own check sits at its threshold: there
    // whether the worker threads got their allocator arenas (64 MiB of address space each)
    // varies from run to run, for either backend.
    for kib in [300_000u64, 500_000, 650_000, 700_000, 900_000, 1_500_000] {
        for (name, args) in commands {
            let with = |b: &str| {
                let a = args
                    .replace("{d}", &d.to_string())
                    .replace("{b}", b)
                    .replace("{k}", &kib.to_string());
                let backend = if b == "default" {
                    String::new()
                } else {
                    format!(" --backend {b}")
                };
                limited(kib, &format!("{a}{backend}"))
            };
            let (cpu_ok, cpu_err) = with("cpu");
            let (auto_ok, auto_err) = with("default");
            assert!(
                auto_ok || !cpu_ok,
                "{name} at {kib} KiB: --backend cpu completed, the default refused:\n{auto_err}"
            );
            auto_ran += usize::from(auto_ok);
            for err in [&cpu_err, &auto_err] {
                // A refusal names what it needs and what is free, never "0 … 0".
                assert!(!err.contains("panicked"), "{name} at {kib} KiB: {err}");
                if err.contains("needs about") {
                    assert!(
                        !err.contains("needs about 0 ") && !err.contains("only 0 "),
                        "{name} at {kib} KiB: {err}"
                    );
                }
            }
            if auto_ok && err_backend(&auto_err).is_some_and(|l| l.contains("auto:")) {
                // The probe's reason is on the backend line (the CPU here: llvmpipe, or no
                // GL at all under the tightest limits).
                assert!(auto_err.contains("backend: cpu (auto: "), "{auto_err}");
            }
        }
    }
    assert!(
        auto_ran >= 12,
        "the default backend ran only {auto_ran} times"
    );
    // Where the old build refused the default backend's 16³ run ("needs about 0 MiB but
    // only 0 MiB is free"), it runs.
    let (ok, err) = limited(
        500_000,
        &format!("run --size 16 --frames 1 --format npy --out {d}/again"),
    );
    assert!(ok, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

fn err_backend(stderr: &str) -> Option<&str> {
    stderr.lines().find(|l| l.starts_with("backend:"))
}

#[test]
fn the_probes_child_answers_for_a_scene_on_its_input() {
    // The child `auto` starts: a scene on standard input, one answer on standard output.
    let scene = plume::scene::Scene::default_plume()
        .to_toml()
        .expect("toml");
    let (ok, text) = probe(scene.as_bytes());
    assert!(ok);
    // llvmpipe here: the CPU, with the reason.
    assert!(
        text.starts_with("cpu ") && text.contains("software rasteriser"),
        "{text}"
    );
    // A scene it cannot read is a reason too, not a crash.
    let (_, text) = probe(b"[grid]\ndims = \"x\"\n");
    assert!(
        text.starts_with("cpu the probe could not read its scene"),
        "{text}"
    );
}

/// The probe's child given `input`: (exited well, its answer).
fn probe(input: &[u8]) -> (bool, String) {
    use std::io::Write;
    let mut child = Command::new(env!("CARGO_BIN_EXE_plume"))
        .env("PLUME_AUTO_PROBE", "1")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .expect("plume starts");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(input)
        .expect("written");
    let out = child.wait_with_output().expect("answer");
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
    )
}
