//! The Blender add-on (tools/blender/plume_addon) in headless Blender: a scene built in a
//! script (a domain cube, a sphere emitter moving along X, a turning box obstacle, a fire
//! emitter) is written, baked by this `plume` and loaded; tools/blender/tests/check_addon.py
//! reports what it found and this test judges it.

use std::path::Path;
use std::process::Command;

fn check(out: &Path) -> serde_json::Value {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tools/blender/tests/check_addon.py"
    );
    let o = Command::new("blender")
        .args(["-b", "--factory-startup", "--python", script, "--"])
        .arg(out)
        .arg(env!("CARGO_BIN_EXE_plume"))
        .output()
        .expect("blender runs (Debian's blender package; scripts/test installs it)");
    let text = String::from_utf8_lossy(&o.stdout);
    let line = text
        .lines()
        .find_map(|l| l.strip_prefix("PLUME_ADDON "))
        .unwrap_or_else(|| panic!("no report: {text}\n{}", String::from_utf8_lossy(&o.stderr)));
    serde_json::from_str(line).expect("json")
}

fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().expect("number")
}

/// The density-weighted mean x of each `.vdb` frame in `dir` (Debian's OpenVDB bindings).
fn centroids(dir: &Path) -> Vec<f64> {
    let code = r#"
import sys, glob, json
import numpy as np
import pyopenvdb as vdb
out = []
for path in sorted(glob.glob(sys.argv[1] + "/plume_*.vdb")):
    g = vdb.read(path, "density")
    (i0, j0, k0), (i1, j1, k1) = g.evalActiveVoxelBoundingBox()
    a = np.zeros((i1 - i0 + 1, j1 - j0 + 1, k1 - k0 + 1), np.float32)
    g.copyToArray(a, ijk=(i0, j0, k0))
    x = np.array([g.transform.indexToWorld((i, 0, 0))[0] for i in range(i0, i1 + 1)])
    w = a.sum(axis=(1, 2))
    out.append(float((w * x).sum() / w.sum()))
print(json.dumps(out))
"#;
    let o = Command::new("/usr/bin/python3")
        .args(["-c", code])
        .arg(dir)
        .output()
        .expect("python3 runs");
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    serde_json::from_slice(&o.stdout).expect("json")
}

#[test]
fn a_scene_built_in_blender_is_written_baked_loaded_resumed_and_freed() {
    let out = std::env::temp_dir().join(format!("plume-addon-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("scratch");
    let r = check(&out);
    let cell = f(&r["cell"]);
    // The written key frames are where the emitter is at each frame (within half a cell).
    assert_eq!(r["keys"], 8, "{r}");
    assert!(f(&r["key_error"]) <= 0.5 * cell, "{r}");
    // The box turns a quarter turn about Blender's Z: Plume's y.
    assert_eq!(r["obstacle_keys"], 8);
    let turn = &r["obstacle_turn"];
    assert!(
        (f(&turn[1]) - 90.0).abs() < 1e-3 && f(&turn[0]).abs() < 1e-3,
        "{turn}"
    );
    // The empty sphere is a burning sphere emitter, placed in Plume's axes.
    assert_eq!(r["fire"]["shape"], "sphere");
    assert!(f(&r["fire"]["fuel"]) > 0.0);
    assert!(
        (f(&r["fire"]["center"][1]) - 0.2).abs() < 1e-6,
        "Blender's z is Plume's y"
    );
    assert!(r["outside"]
        .as_str()
        .expect("message")
        .contains("outside the domain"));
    // A scene at fault writes nothing; names that clash as file names get a mesh each (the
    // cube's 8 vertices and the sphere's 482), and no temporary stays behind.
    assert_eq!(r["bad_written"], false, "{r}");
    assert_eq!(
        r["mesh_files"],
        serde_json::json!(["Post_001-2.obj", "Post_001.obj"]),
        "{r}"
    );
    assert_eq!(r["mesh_vertices"], serde_json::json!([8, 482]), "{r}");
    let listing =
        |k: &str| -> Vec<String> { serde_json::from_value(r[k].clone()).expect("a listing") };
    for k in ["names_listing", "cache_listing"] {
        assert!(listing(k).iter().all(|n| !n.ends_with(".tmp")), "{k}: {r}");
    }
    assert!(listing("cache_listing").contains(&"scene.toml".to_string()));
    // A cache folder that cannot be made is the bake's report, and the file in its way stays.
    let blocked = r["blocked"].as_str().unwrap_or_default();
    assert!(
        blocked.contains("cannot write the scene into the cache folder")
            && !blocked.contains("Traceback"),
        "{r}"
    );
    assert_eq!(r["blocked_kept"], "mine");
    // A second bake while one runs is refused and leaves the running bake's scene as it was.
    let second = r["second_bake"].as_str().unwrap_or_default();
    assert!(second.contains("a bake is running"), "{r}");
    assert_eq!(r["running_scene_kept"], true, "{r}");
    // Baked and loaded: one volume frame per baked frame, the grids, the domain's box.
    assert_eq!(r["bake"][0], "FINISHED", "{r}");
    assert_eq!(r["load"][0], "FINISHED", "{r}");
    assert_eq!(r["frames"], 8);
    let grids: Vec<&str> = r["grids"]
        .as_array()
        .expect("grids")
        .iter()
        .filter_map(|g| g.as_str())
        .collect();
    assert_eq!(grids, ["density", "flame", "temperature", "velocity"]);
    for side in 0..2 {
        for a in 0..3 {
            let d = f(&r["volume_box"][side][a]) - f(&r["domain_box"][side][a]);
            assert!(d.abs() <= cell, "volume box off by {d} on axis {a}: {r}");
        }
    }
    // The Cycles render shows smoke where the empty domain shows none.
    let smoke = plume::wedge::read_png(&out.join("smoke.png")).expect("smoke.png");
    let empty = plume::wedge::read_png(&out.join("empty.png")).expect("empty.png");
    let changed = smoke
        .rgba
        .chunks(4)
        .zip(empty.rgba.chunks(4))
        .filter(|(a, b)| (0..3).any(|c| a[c].abs_diff(b[c]) > 8))
        .count();
    assert!(
        changed > 50,
        "{changed} pixels differ from the empty domain's render"
    );
    // Loaded again after a re-bake of a scene at frames 101–108, 25 a second: in place, at
    // the scene's frames, the scene's timing and the artist's material kept.
    assert_eq!(r["rebake"], serde_json::json!(["FINISHED"]), "{r}");
    assert_eq!(r["reload"], serde_json::json!(["FINISHED"]), "{r}");
    assert_eq!(
        r["reload_objects"],
        serde_json::json!(["Domain smoke"]),
        "{r}"
    );
    assert_eq!(r["reload_range"], serde_json::json!([101, 8]), "{r}");
    assert_eq!(r["reload_scene"], serde_json::json!([101, 108, 25]), "{r}");
    assert_eq!(r["reload_material"], serde_json::json!(["My smoke"]), "{r}");
    assert_eq!(r["reload_frame"], 50, "the user's frame stays: {r}");
    assert_eq!(r["reload_linked"], true, "{r}");
    assert_eq!(
        r["fresh_blackbody"], true,
        "the fire's grids were found: {r}"
    );
    let said = |k: &str| r[k].as_str().unwrap_or_default().to_string();
    assert!(
        said("load_garbled").contains("does not read as a Plume manifest"),
        "{r}"
    );
    assert!(said("load_gone").contains("are missing from"), "{r}");
    // Cancel mid-bake leaves a resumable folder; Resume gives the uninterrupted bake's files.
    assert_eq!(r["cancelled"][0], false);
    assert!(
        r["cancelled"][1]
            .as_str()
            .expect("line")
            .contains("interrupted by SIGTERM"),
        "{r}"
    );
    assert!(r["held"].as_u64().expect("held") < 30);
    assert_eq!(r["resumed"][0], "FINISHED");
    assert_eq!(r["resume_files"], serde_json::json!([30, 30]));
    assert_eq!(r["resume_equal"], true, "{r}");
    // Free removes what the run's manifest lists and leaves the user's file.
    assert_eq!(r["free"][0], "FINISHED");
    assert_eq!(r["after_free"], serde_json::json!(["notes.txt"]));
    // Errors are messages: Plume's own for a refused value, a missing binary, no domain.
    let msg = |k: &str| r[k].as_str().unwrap_or_default().to_string();
    assert!(
        msg("refused").contains("the bake failed") && msg("refused").contains("cells"),
        "{r}"
    );
    assert!(
        msg("missing").contains("cannot start") && msg("missing").contains("preferences"),
        "{r}"
    );
    assert!(msg("no_domain").contains("no domain"), "{r}");
    assert!(msg("unsaved").contains("not saved yet"), "{r}");
    assert_eq!(r["unsaved_written"], false, "{r}");
    assert!(msg("load_unbaked").contains("Bake first"), "{r}");
    assert_eq!(r["free_unbaked"], serde_json::json!(["FINISHED"]), "{r}");
    assert_eq!(r["unbaked_written"], false, "{r}");
    // Blender quit during a bake: the add-on stopped it and waited, so the process is gone
    // and the folder holds the whole frames written so far, listed (resumable).
    let pid = r["quit_pid"].as_u64().expect("pid");
    assert!(
        !Path::new(&format!("/proc/{pid}")).exists(),
        "the bake (process {pid}) outlived Blender"
    );
    let manifest: serde_json::Value = serde_json::from_slice(
        &std::fs::read(out.join("quit/frames/manifest.json")).expect("manifest"),
    )
    .expect("json");
    let listed = manifest["frames"].as_array().expect("frames").len();
    assert!((1..200).contains(&listed), "{listed} frames listed");
    // The smoke trail follows the emitter along +X while it moves (frames 1 to 8).
    let xs = centroids(&out.join("whole"));
    assert_eq!(xs.len(), 30);
    assert!(
        xs[9] > xs[1] + 0.1,
        "the centroid moves with the emitter: {xs:?}"
    );
}
