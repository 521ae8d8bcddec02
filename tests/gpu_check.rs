//! `scripts/gpu-check --quick`, the card check at small sizes, runs here on llvmpipe as it
//! runs on a card, so that it cannot rot between the times a card is at hand: every part
//! runs and passes, the JSON and the Markdown table hold what the card's run reports, and
//! nothing but its own files lands in the output folder.

mod common;

use std::path::Path;
use std::process::Command;

fn python() -> Command {
    Command::new(if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    })
}

fn gpu_check(args: &[&str]) -> std::process::Output {
    python()
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gpu-check"))
        .args(["--binary", env!("CARGO_BIN_EXE_plume")])
        .args(args)
        // The script starts its own X server for the viewer where there is no display.
        .env_remove("DISPLAY")
        .output()
        .expect("python3 runs scripts/gpu-check")
}

/// What `code` prints (JSON) with scripts/gpu-check loaded as the module `m` (its path in
/// `sys.argv[1]`, `args` after it), for the script's functions that need a card's output.
fn script_says(code: &str, args: &[&str]) -> serde_json::Value {
    let head = r#"
import importlib.machinery, importlib.util, json, sys
loader = importlib.machinery.SourceFileLoader("gpu_check", sys.argv[1])
spec = importlib.util.spec_from_loader("gpu_check", loader)
m = importlib.util.module_from_spec(spec)
loader.exec_module(m)
"#;
    // (-B: no bytecode cache written beside the script)
    let out = python()
        .args(["-B", "-c", &format!("{head}{code}")])
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/gpu-check"))
        .args(args)
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

#[test]
fn the_card_check_runs_quick_on_llvmpipe_and_reports_every_part() {
    let out_dir = common::temp_dir("gpu-check");
    let out = gpu_check(&["--quick", "--out", out_dir.to_str().expect("utf-8")]);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "gpu-check --quick failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = std::fs::read_to_string(out_dir.join("gpu-check.json")).expect("the JSON");
    let j: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    assert_eq!(j["passed"], true, "{text}");
    let env = &j["environment"];
    assert!(env["gl_renderer"].as_str().is_some_and(|r| !r.is_empty()));
    assert!(env["gl_version"].as_str().is_some_and(|v| !v.is_empty()));
    assert!(env["auto"]
        .as_str()
        .is_some_and(|a| a.starts_with("backend: ")));
    // The experiment switches it ran with: none here (the test's environment sets none).
    assert_eq!(env["switches"], serde_json::json!({}), "{env}");
    // The clocks during the speed runs: sampled where nvidia-smi is, null here.
    assert!(
        env.as_object()
            .is_some_and(|o| o.contains_key("clocks_during_speed"))
            && (env["clocks_during_speed"].is_null()
                || env["clocks_during_speed"]["samples"].as_u64() > Some(0)),
        "{env}"
    );
    // The card's time a dependent dispatch: reported (null on llvmpipe, where the host
    // cannot get ahead of the work), and named in the table.
    let chain = &env["card_us_per_dependent_dispatch"];
    assert!(
        env.as_object()
            .is_some_and(|o| o.contains_key("card_us_per_dependent_dispatch"))
            && (chain.is_null() || chain.as_f64().is_some_and(|v| v > 0.0)),
        "{env}"
    );
    // The speed rows carry the step's host cost and the bandwidth floor.
    let gpu = j["speed"]["gpu"].as_array().expect("GPU rows");
    assert_eq!(gpu.len(), 2, "{text}");
    for row in gpu {
        assert_eq!(row["ok"], true, "{row}");
        for key in [
            "ms_per_60th_second",
            "gpu_dispatches_per_step",
            "gpu_waits_per_step",
            "host_issue_ms",
            "bandwidth_floor_ms",
            "x_floor",
        ] {
            assert!(row[key].as_f64().is_some_and(|v| v > 0.0), "{key}: {row}");
        }
        assert!(
            row["pressure_iterations"]
                .as_f64()
                .is_some_and(|v| v >= 1.0),
            "{row}"
        );
        assert!(row["stages"]["project"].as_f64().is_some(), "{row}");
    }
    // Every kernel on the card's clock, in rows that add up to the stages' time.
    let kernels = &j["kernels"][0];
    assert_eq!(kernels["ok"], true, "{kernels}");
    assert!(
        kernels["rows"].as_array().is_some_and(|r| r.len() >= 10),
        "{kernels}"
    );
    assert_eq!(j["speed"]["cpu"][0]["ok"], true, "{text}");
    assert!(j["speed"]["cpu"][0]["gpu_dispatches_per_step"].is_null());
    // The largest grid again with fewer, longer sub-steps (`--set fluid.max_cfl=4`).
    let fewer = &j["fewer_substeps"][0];
    assert_eq!(fewer["ok"], true, "{fewer}");
    assert_eq!(fewer["size"], 24, "{fewer}");
    assert_eq!(fewer["max_cfl"].as_f64(), Some(4.0), "{fewer}");
    assert!(
        fewer["ms_per_60th_second"]
            .as_f64()
            .is_some_and(|v| v > 0.0),
        "{fewer}"
    );
    // Every correctness part ran: the closed box, GPU against CPU, the switches that give
    // the same bits, the pictures, the campfire, the viewer.
    let names: Vec<&str> = j["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    for part in [
        "bench --kernels 16³ runs",
        "bench gpu 24³ with max_cfl 4 runs",
        "kernel clock 16³ agrees",
        "closed box",
        "GPU against CPU",
        "same bits: the smoother a pass a sweep",
        "same bits: the smoother by tiles",
        "same bits: no coarse level fused",
        "same bits: coarse levels up to 4096 cells fused",
        "same bits: the solve's figures and the books",
        "same bits: the conjugate gradients' updates, the gradient, the cell velocity",
        "same bits: the V-cycle's kernel whole",
        "same bits: the V-cycle's first two sweeps in two passes",
        "same bits: the V-cycle's passes a sweep and its transfers in rows of four",
        "same bits: the solve's A·p in rows of four",
        "same bits: the pressure gradient's pass in rows of four",
        "same bits: the projection's right-hand side (and starting residual) in rows of four",
        "same bits: the V-cycle's coarsest sweeps and fused cycle on their levels in the buffer",
        "same bits: the tuner on",
        "the vorticity by tiles against two passes",
        "render --backend gpu",
        "campfire",
        "viewer",
    ] {
        assert!(
            names.iter().any(|n| n.starts_with(part)),
            "{part} missing from {names:?}"
        );
    }
    // Mesa gives the vorticity's two ways the same bits (NVIDIA's driver did not, so a card
    // does not tune it; there they need only agree to within rounding).
    let vorticity = j["checks"]
        .as_array()
        .expect("checks")
        .iter()
        .find(|c| {
            c["name"]
                .as_str()
                .is_some_and(|n| n.starts_with("the vorticity by tiles"))
        })
        .expect("the vorticity's row");
    assert_eq!(
        vorticity["value"], "density: identical; velocity: identical",
        "{vorticity}"
    );
    let viewer = &j["viewer"][0];
    assert_eq!(viewer["draws_gpu_textures"], true, "{viewer}");
    assert_eq!(viewer["texture_uploads"], 0, "{viewer}");
    let md = std::fs::read_to_string(out_dir.join("gpu-check.md")).expect("the table");
    assert!(md.contains("| gpu | 16³ |"), "{md}");
    assert!(
        md.contains("- switches set in the environment: none (every way its default)"),
        "{md}"
    );
    assert!(
        md.contains("fewer, longer sub-steps (`--set fluid.max_cfl=4`"),
        "{md}"
    );
    assert!(md.contains("## Checks"), "{md}");
    assert!(md.contains("a dependent dispatch"), "{md}");
    assert!(md.contains("Kernels at 16³ on the card's clock"), "{md}");
    assert!(md.contains("| project | laplace |"), "{md}");
    // The viewer's frame in parts, which add up to the mean frame.
    let parts = viewer["frame_parts_mean_ms"]
        .as_object()
        .unwrap_or_else(|| panic!("{viewer}"));
    assert!(
        parts.contains_key("present") && parts.contains_key("view"),
        "{viewer}"
    );
    assert!(
        md.contains("The viewer's frame, mean ms in each part"),
        "{md}"
    );
    // Every kernel's program binary from the driver, kept (Mesa's hold no card code, so no
    // registers here), the V-cycle's parts among them.
    let programs = j["programs"].as_array().expect("programs");
    assert!(programs.len() >= 40, "{programs:?}");
    for name in [
        "mg+MG_PART=0",
        "mg+MG_PART=3",
        "mg+MG_PART=5",
        "laplace+DIRECTION",
    ] {
        let p = programs
            .iter()
            .find(|p| p["program"] == name)
            .unwrap_or_else(|| panic!("{name} missing from {programs:?}"));
        assert!(p["bytes"].as_u64() > Some(0), "{p}");
    }
    // ... and the binaries themselves in one archive, every one the JSON names.
    let listed = Command::new("tar")
        .arg("-tzf")
        .arg(out_dir.join("programs.tar.gz"))
        .output()
        .expect("tar runs");
    let listed = String::from_utf8_lossy(&listed.stdout);
    for p in programs {
        let name = p["program"].as_str().expect("a name");
        assert!(
            listed.lines().any(|l| l == format!("programs/{name}.bin")),
            "{name} not in the archive:\n{listed}"
        );
    }
    // The two pictures the render check compares, side by side (CPU | GPU), twice as wide
    // as one (320 × 200).
    let png = std::fs::read(out_dir.join("render.png")).expect("render.png");
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(
        u32::from_be_bytes([png[16], png[17], png[18], png[19]]),
        640
    );
    assert_eq!(
        u32::from_be_bytes([png[20], png[21], png[22], png[23]]),
        200
    );
    assert!(
        md.contains("The kernels' programs as the driver compiled them"),
        "{md}"
    );
    // Only the check's own files: no scratch run folders left behind.
    let mut files: Vec<String> = std::fs::read_dir(&out_dir)
        .expect("out")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    assert_eq!(
        files,
        [
            "gpu-check.json",
            "gpu-check.log",
            "gpu-check.md",
            "programs.tar.gz",
            "render.png",
            "view-16.png"
        ],
        "{files:?}"
    );
    let _ = std::fs::remove_dir_all(&out_dir);
}

#[test]
fn the_card_check_refuses_bad_arguments_before_running_anything() {
    let out_dir = common::temp_dir("gpu-check-bad");
    let missing = gpu_check(&[
        "--quick",
        "--out",
        out_dir.to_str().expect("utf-8"),
        "--skip",
        "nothing",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&missing.stderr).contains("unknown part"));
    assert!(
        !out_dir.exists(),
        "nothing written for a refused command line"
    );
    for (name, text) in [
        ("missing", None),
        ("not-json", Some("mine")),
        ("other", Some("[1]")),
    ] {
        let earlier = common::temp_dir(&format!("gpu-check-against-{name}"));
        if let Some(t) = text {
            std::fs::write(&earlier, t).expect("a file");
        }
        let bad = gpu_check(&[
            "--quick",
            "--out",
            out_dir.to_str().expect("utf-8"),
            "--against",
            earlier.to_str().expect("utf-8"),
        ]);
        assert_eq!(bad.status.code(), Some(2), "{name}");
        let said = String::from_utf8_lossy(&bad.stderr);
        assert!(said.contains("--against"), "{name}: {said}");
        assert!(!out_dir.exists(), "{name}: nothing written");
        let _ = std::fs::remove_file(&earlier);
    }
    let file = common::temp_dir("gpu-check-file");
    std::fs::write(&file, b"mine").expect("a file");
    let not_dir = gpu_check(&["--quick", "--out", file.to_str().expect("utf-8")]);
    assert_eq!(not_dir.status.code(), Some(2));
    assert_eq!(std::fs::read(&file).expect("kept"), b"mine");
    let _ = std::fs::remove_file(&file);
}

/// What the card check makes of nvidia-smi's clock samples (taken during the speed runs on
/// a card; there is no nvidia-smi here): lines as `--format=csv,noheader,nounits` writes
/// them, those it cannot read left out, and the Markdown's words for none.
/// The switches a card's run was made with are in its report, so that figures with one set
/// (an exported `PLUME_GPU_TUNE=0` left over) are not taken for the defaults'.
#[test]
fn the_card_check_names_the_switches_it_ran_with() {
    let j = script_says(
        "env = {'PLUME_GPU_TUNE': '0', 'PLUME_RENDER_SKIP_EMPTY': '1', 'PLUME_GPU_WG': '', \
         'PLUME_BIN': '/x', 'HOME': '/'}\n\
         s = m.switches_set(env)\n\
         print(json.dumps([s, m.switches_line(s), m.switches_line({})]))",
        &[],
    );
    assert_eq!(
        j[0],
        serde_json::json!({"PLUME_GPU_TUNE": "0", "PLUME_RENDER_SKIP_EMPTY": "1"}),
        "{j}"
    );
    let line = j[1].as_str().expect("a line");
    assert!(
        line.contains("`PLUME_GPU_TUNE=0`, `PLUME_RENDER_SKIP_EMPTY=1`"),
        "{line}"
    );
    assert!(line.contains("not the defaults"), "{line}");
    assert!(j[2].as_str().is_some_and(|l| l.contains("none")), "{j}");
}

#[test]
fn the_card_checks_clock_summary_reads_nvidia_smis_lines() {
    let j = script_says(
        r#"
lines = ["1980, 2619, 1980, 2619, P0", "345, 2619, 1980, 2619, P0",
         "1755, 1593, 1980, 2619, P2", "[N/A], 1, 2, 3, P0", "garbage", ""]
print(json.dumps([m.summarize_clocks(lines), m.summarize_clocks([]),
                  m.clocks_line(m.summarize_clocks(lines)), m.clocks_line(None)]))
"#,
        &[],
    );
    let k = &j[0];
    assert_eq!(k["samples"], 3, "{k}");
    assert_eq!(k["sm_mhz"], serde_json::json!([345.0, 1755.0, 1980.0]));
    assert_eq!(k["mem_mhz"], serde_json::json!([1593.0, 2619.0, 2619.0]));
    assert_eq!(k["max_sm_mhz"], 1980.0);
    assert_eq!(k["max_mem_mhz"], 2619.0);
    assert_eq!(k["pstates"], serde_json::json!({"P0": 2, "P2": 1}));
    assert!(j[1].is_null());
    assert_eq!(
        j[2],
        "SM 345/1755/1980 MHz (min/median/max) of 1980; memory 1593/2619/2619 MHz of 2619; \
         3 samples; P0 ×2, P2 ×1"
    );
    assert!(
        j[3].as_str().is_some_and(|s| s.starts_with("–")),
        "{}",
        j[3]
    );
}

/// The card check's table of the tuner's choices, from what `bench --json` reports with the
/// tuner on (`PLUME_GPU_TUNE=1`; on a card it is on by default): each way's best time, the
/// way taken in bold, and the text `bench` prints beside it.
#[test]
fn the_card_checks_tuning_table_shows_what_bench_reports() {
    let bench = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args([
            "bench",
            "--backend",
            "gpu",
            "--size",
            "16",
            "--warmup",
            "40",
            "--steps",
        ])
        .args(["1", "--json"])
        .env("PLUME_GPU_TUNE", "1")
        .output()
        .expect("plume runs");
    assert!(
        bench.status.success(),
        "{}",
        String::from_utf8_lossy(&bench.stderr)
    );
    let report: serde_json::Value = serde_json::from_slice(&bench.stdout).expect("JSON");
    let tuning = report["gpu_tuning"].as_array().expect("gpu_tuning");
    assert_eq!(tuning.len(), 8, "{tuning:?}");
    let cells: Vec<String> = serde_json::from_value(script_says(
        "print(json.dumps([m.tuning_cell(c) for c in json.loads(sys.argv[2])]))",
        &[&serde_json::to_string(tuning).expect("JSON")],
    ))
    .expect("strings");
    for (c, cell) in tuning.iter().zip(&cells) {
        let picked = c["picked"].as_u64().expect("decided after 40 steps") as usize;
        let way = &c["ways"][picked];
        let taken = format!(
            "**{} {:.1}**",
            way["name"].as_str().expect("name"),
            way["best_us"].as_f64().expect("a time")
        );
        assert!(cell.contains(&taken), "{cell} lacks {taken}");
        assert_eq!(cell.matches("**").count(), 2, "{cell}");
        assert!(
            !cell.contains("(timing)") && !cell.contains("(fixed)"),
            "{cell}"
        );
    }
}

/// `--against`: what changed since an earlier card run, here the H200's committed JSON
/// against itself with the 256³ step and one kernel made twice as fast and a kernel row
/// added: each grid and kernel then and now, × then ÷ now, the rows ordered by time, and
/// the Markdown section saying it.
#[test]
fn the_card_check_compares_with_an_earlier_run() {
    let earlier = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("docs/measurements/gpu-check-h200-2026-11-28.json");
    let j = script_says(
        r#"
earlier = json.load(open(sys.argv[2]))
now = json.loads(json.dumps(earlier))
for r in now["speed"]["gpu"]:
    if r["size"] == 256:
        r["ms_per_60th_second"] /= 2
k = [k for k in now["kernels"] if k["size"] == 256][0]
k["rows"][0]["ms_per_step"] /= 2
k["rows"].append(dict(k["rows"][-1], kernel="new_kernel", ms_per_step=0.001))
a = m.against(now, earlier, "then.json")
print(json.dumps({"a": a, "md": "\n".join(m.against_lines(a))}))
"#,
        &[earlier.to_str().expect("utf-8")],
    );
    let a = &j["a"];
    assert_eq!(a["renderer"], "NVIDIA H200/PCIe/SSE2", "{a}");
    let speed = a["speed"].as_array().expect("speed");
    assert_eq!(speed.len(), 4, "{speed:?}");
    for r in speed {
        let x = r["x"].as_f64().expect("x");
        let want = if r["size"] == 256 { 2.0 } else { 1.0 };
        assert!((x - want).abs() < 1e-9, "{r}");
    }
    let k256 = a["kernels"]
        .as_array()
        .expect("kernels")
        .iter()
        .find(|k| k["size"] == 256)
        .expect("256³ kernels");
    let rows = k256["rows"].as_array().expect("rows");
    // The V-cycle's finest passes, 12.7 ms then, halved now: still the first row.
    assert_eq!(rows[0]["kernel"], "mg", "{rows:?}");
    assert!((rows[0]["x"].as_f64().expect("x") - 2.0).abs() < 1e-9);
    let added = rows
        .iter()
        .find(|r| r["kernel"] == "new_kernel")
        .expect("the added row");
    assert!(
        added["then_ms"].is_null() && added["x"].is_null(),
        "{added}"
    );
    let times: Vec<f64> = rows
        .iter()
        .map(|r| {
            r["then_ms"]
                .as_f64()
                .unwrap_or(0.0)
                .max(r["now_ms"].as_f64().unwrap_or(0.0))
        })
        .collect();
    assert!(times.windows(2).all(|w| w[0] >= w[1]), "{times:?}");
    let md = j["md"].as_str().expect("markdown");
    assert!(
        md.contains("## Against then.json (NVIDIA H200/PCIe/SSE2, 2026-11-28"),
        "{md}"
    );
    assert!(md.contains("| 256³ | 31.015 | 15.507 | 2.00 |"), "{md}");
    assert!(md.contains("| 128³ | 2.963 | 2.963 | 1.00 |"), "{md}");
}

#[test]
fn the_card_check_reads_registers_from_a_programs_elf() {
    // A driver's binary as NVIDIA's are laid out: a header, then an ELF whose `.text.main`
    // section has the registers in its sh_info's top byte, and 3 KiB of shared memory; and
    // one whose registers are said only by an `.nv.info` attribute (EIATTR_REGCOUNT).
    let j = script_says(
        r#"
import struct
def elf(secs):
    names = b"\0.shstrtab\0" + b"".join(n.encode() + b"\0" for n, _, _ in secs)
    body, heads, at, off = b"", [bytes(64)], 11, 64 + len(names)
    heads.append(struct.pack("<IIQQQQIIQQ", 1, 3, 0, 0, 64, len(names), 0, 0, 0, 0))
    for name, data, info in secs:
        size = data if isinstance(data, int) else len(data)
        put = b"" if isinstance(data, int) else data
        heads.append(struct.pack("<IIQQQQIIQQ", at, 1, 0, 0, off + len(body), size, 0, info,
                                 0, 0))
        body += put
        at += len(name) + 1
    e = bytearray(64)
    e[0:6] = b"\x7fELF\x02\x01"
    struct.pack_into("<Q", e, 0x28, 64 + len(names) + len(body))
    struct.pack_into("<HHH", e, 0x3A, 64, len(heads), 1)
    return bytes(e) + names + body + b"".join(heads)
one = elf([(".text.main", 96, (40 << 24) | 7), (".nv.shared.main", 3072, 0)])
info = bytes([4, 0x0A, 8, 0]) + bytes(8) + bytes([4, 0x2F, 8, 0]) + struct.pack("<II", 3, 72)
two = elf([(".text.main", 96, 7), (".nv.info.main", info, 0)])
print(json.dumps([m.program_figures(b"driver header!!" + one),
                  m.program_figures(b"another" + two),
                  m.program_figures(b"no code here")]))
"#,
        &[],
    );
    assert_eq!(j[0]["registers"], 40, "{j}");
    assert_eq!(j[0]["shared_bytes"], 3072, "{j}");
    assert_eq!(j[0]["elves"], 1, "{j}");
    assert_eq!(j[1]["registers"], 72, "{j}");
    assert_eq!(j[1]["elves"], 1, "{j}");
    assert!(j[2]["registers"].is_null(), "{j}");
    assert_eq!(j[2]["elves"], 0, "{j}");
}

/// The card run carries `.gpucheck` (scripts/gpu-check-pack: about 49 MiB with the GPU
/// tests' binaries on 2026-12-02) beside the working tree, and the device tool takes at most
/// 64 MiB of the two together; a tree that grows past what is left would have the next card
/// run refused before it starts (on 2026-12-02 the two had reached 64.1 MiB). So the tree
/// (tracked files and untracked ones git does not ignore, as the tool counts it) is held to
/// 12 MiB: 64 less the pack, less 3 for the binaries' growth. The pack itself prints the sum
/// and fails above 64.
#[test]
fn the_working_tree_leaves_room_for_the_card_pack() {
    const TREE_BUDGET: u64 = 12 << 20;
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = Command::new("git")
        .args(["ls-files", "-z", "-co", "--exclude-standard"])
        .current_dir(root)
        .output()
        .expect("git runs (the card run's size is counted from git's files)");
    assert!(out.status.success(), "git ls-files: {out:?}");
    let files: Vec<&[u8]> = out
        .stdout
        .split(|&b| b == 0)
        .filter(|f| !f.is_empty())
        .collect();
    assert!(
        files.len() > 100,
        "git lists the tree: {} files",
        files.len()
    );
    let mut sizes: Vec<(u64, String)> = files
        .iter()
        .filter_map(|f| {
            let name = String::from_utf8_lossy(f).into_owned();
            // A tracked file deleted in the working tree does not travel.
            let m = std::fs::symlink_metadata(root.join(&name)).ok()?;
            Some((m.len(), name))
        })
        .collect();
    let total: u64 = sizes.iter().map(|(s, _)| s).sum();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    assert!(
        total <= TREE_BUDGET,
        "the working tree is {:.1} MiB, over the {} MiB that leave room for the card run's \
         pack within the device tool's 64 MiB; the largest: {:?}",
        total as f64 / f64::from(1 << 20),
        TREE_BUDGET >> 20,
        &sizes[..5.min(sizes.len())]
    );
}
