//! Every field to Blender: `plume run --fields density,temperature,flame,fuel,velocity` writes
//! VDB grids under the names Blender's Principled Volume reads, OpenVDB (Debian's
//! python3-openvdb, what Blender links) reads them back equal to the `.npy` copies, `--up z`
//! turns the volume so the smoke rises along Z, and `tools/blender/import_plume.py` loads the
//! sequence into Blender headless (Debian's `blender`) with the fire material and renders it.

mod common;

use std::path::Path;
use std::process::Command;

fn plume(args: &[&str]) {
    let out = Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(args)
        .output()
        .expect("plume runs");
    assert!(
        out.status.success(),
        "plume {args:?} failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn python() -> Command {
    let mut c = Command::new(if Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    });
    c.env("PYTHONPATH", "/usr/lib/python3/dist-packages");
    c
}

/// Runs the campfire at 24 cells across into `dir`: `frames` frames `every` steps apart,
/// with `fields`, in `formats`, turned `up`.
fn campfire(dir: &Path, frames: &str, every: &str, formats: &str, fields: &str, up: &str) {
    let out = dir.to_str().expect("UTF-8 temp path");
    plume(&[
        "run", "--scene", "campfire", "--size", "24", "--frames", frames, "--every", every,
        "--format", formats, "--fields", fields, "--up", up, "--out", out,
    ]);
}

/// Exports one campfire frame (after 40 steps) with every field, as VDB and NumPy.
fn export(dir: &Path, up: &str) {
    let all = "density,temperature,flame,fuel,velocity";
    campfire(dir, "1", "40", "vdb,npy", all, up);
}

const CHECK: &str = r#"
import sys, json
import numpy as np
import pyopenvdb as vdb
ydir, zdir = sys.argv[1:3]
def load(d):
    grids, _ = vdb.readAll(d + "/plume_0001.vdb")
    return {g.name: g for g in grids}, json.load(open(d + "/manifest.json"))
names = ["density", "temperature", "flame", "fuel", "velocity"]
centroids = {}
for d, up in ((ydir, "y"), (zdir, "z")):
    g, m = load(d)
    assert sorted(g) == sorted(names), sorted(g)
    assert m["up"] == up and m["fields"] == names, (m["up"], m["fields"])
    for name in names:
        grid = g[name]
        assert grid.metadata["name"] == name
        assert grid.gridClass == vdb.GridClass.FOG_VOLUME
        want = np.load(f"{d}/plume_{name}_0001.npy")      # (nz, ny, nx[, 3]) as written
        nz, ny, nx = want.shape[:3]
        vec = name == "velocity"
        arr = np.zeros((nx, ny, nz) + ((3,) if vec else ()), dtype=np.float32)
        grid.copyToArray(arr, ijk=(0, 0, 0))
        got = np.transpose(arr, (2, 1, 0, 3) if vec else (2, 1, 0))
        # Equal, but for leaves whose values all lie within the default cutoff (1e-6), which
        # the sparse tree leaves out.
        assert np.abs(got - want).max() <= 1e-6, (up, name, float(np.abs(got - want).max()))
    # The flame is real: it burns in this frame, and is hot where it burns.
    flame = np.load(f"{d}/plume_flame_0001.npy")
    temp = np.load(f"{d}/plume_temperature_0001.npy")
    assert flame.max() > 0.05, flame.max()
    hot = float((temp * flame).sum() / flame.sum())
    assert hot > 1.0, hot
    # World centroid of the density, through the grid's own transform.
    dens = g["density"]
    acc, w = np.zeros(3), 0.0
    for value, (lo, hi), active in [(it.value, (it.min, it.max), it.active) for it in dens.citerOnValues()]:
        if lo != hi:
            continue
        p = np.array(dens.transform.indexToWorld(lo))
        acc += value * p
        w += value
    centroids[up] = acc / w
    # The z-up npy is the y-up one turned: B[k, j, i] = A[nz − 1 − j, k, i].
a = np.load(ydir + "/plume_density_0001.npy")
b = np.load(zdir + "/plume_density_0001.npy")
assert np.array_equal(b, np.flip(a, axis=0).transpose(1, 0, 2)), "z-up is not the turned y-up"
cy, cz = centroids["y"], centroids["z"]
turned = np.array([cy[0], -cy[2], cy[1]])
assert np.abs(turned - cz).max() < 1e-4, (cy, cz)
# Smoke rises from the burner (centred 0.07 up, 0.06 tall): along y in the y-up file, along
# z in the z-up one.
assert cy[1] > 0.12 and cz[2] > 0.12, (cy, cz)
print("OK", json.dumps({"y": list(cy), "z": list(cz)}))
"#;

#[test]
fn vdb_grids_carry_blenders_names_and_turn_z_up() {
    let (yd, zd) = (common::temp_dir("fire-y"), common::temp_dir("fire-z"));
    export(&yd, "y");
    export(&zd, "z");
    let out = python()
        .arg("-c")
        .arg(CHECK)
        .arg(&yd)
        .arg(&zd)
        .output()
        .expect("python3 runs");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.starts_with("OK"),
        "OpenVDB check failed (needs Debian's python3-openvdb and python3-numpy):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    for d in [yd, zd] {
        std::fs::remove_dir_all(d).ok();
    }
}

#[test]
fn blender_imports_the_sequence_with_a_fire_material_and_renders_it() {
    let dir = common::temp_dir("blender");
    campfire(
        &dir,
        "3",
        "20",
        "vdb",
        "density,temperature,flame,velocity",
        "z",
    );
    let png = dir.join("blender.png");
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/blender/import_plume.py");
    let out = Command::new("blender")
        .args(["-b", "--factory-startup", "--python", script, "--"])
        .arg(&dir)
        .args(["--render"])
        .arg(&png)
        .args(["--samples", "8", "--resolution", "96", "128"])
        .output()
        .expect("blender runs (Debian's blender package; scripts/test installs it)");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let line = stdout
        .lines()
        .find_map(|l| l.strip_prefix("PLUME_IMPORT "))
        .unwrap_or_else(|| {
            panic!(
                "no PLUME_IMPORT line:\n{stdout}\n{}",
                String::from_utf8_lossy(&out.stderr)
            )
        });
    let info: serde_json::Value = serde_json::from_str(line).expect("JSON");
    assert_eq!(
        info["grids"],
        serde_json::json!(["density", "flame", "temperature", "velocity"])
    );
    assert_eq!(info["frames"], 3);
    assert_eq!(info["frame_start"], 1);
    assert_eq!(info["frame_end"], 3);
    assert_eq!(info["fps"], 3, "20 steps of 1/60 s a frame");
    assert_eq!(info["fire"], true);
    assert_eq!(info["up"], "z");
    // The picture: a warm glow (the flame) somewhere, over the dark world.
    let dec = png::Decoder::new(std::fs::File::open(&png).expect("Blender wrote the PNG"));
    let mut reader = dec.read_info().expect("a valid PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("PNG data");
    let channels = info.color_type.samples();
    assert!(channels >= 3 && info.bit_depth == png::BitDepth::Eight);
    let warm = buf[..info.buffer_size()]
        .chunks(channels)
        .filter(|p| p[0] > 90 && f32::from(p[0]) > 1.6 * f32::from(p[2]).max(1.0))
        .count();
    assert!(warm >= 10, "only {warm} warm pixels in Blender's render");
    std::fs::remove_dir_all(dir).ok();
}

/// `import_plume.py`'s arguments: each mistake is one line naming it and exit status 1, never
/// a Python traceback, and nothing is loaded.
#[test]
fn import_plume_refuses_bad_arguments_with_a_message() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/tools/blender/import_plume.py");
    let dir = common::temp_dir("import-args");
    let cases: [(&[&str], &str); 6] = [
        (
            &["--frame", "abc"],
            "--frame takes whole numbers, not 'abc'",
        ),
        (&["--frame"], "--frame needs 1 value(s)"),
        (&["--resolution", "10"], "--resolution needs 2 value(s)"),
        (&["--samples", "0"], "--samples takes numbers from 1"),
        (&["--bogus"], "unknown argument '--bogus'"),
        (&[], "manifest.json not found"),
    ];
    for (args, want) in cases {
        let out = Command::new("blender")
            .args(["-b", "--factory-startup", "--python", script, "--"])
            .arg(&dir)
            .args(args)
            .output()
            .expect("blender runs (Debian's blender package; scripts/test installs it)");
        let all = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(1), "{args:?}: {all}");
        assert!(all.contains(want), "{args:?}: {all}");
        assert!(!all.contains("Traceback"), "{args:?}: {all}");
        assert!(!all.contains("PLUME_IMPORT"), "{args:?}: {all}");
    }
}
