//! End to end: the real viewer window under Xvfb (Debian package `xvfb`, installed by
//! `.ci/run`) runs frames with the panel and the slice view on, writes its screenshot and
//! exits 0. The picture must hold the panel and the smoke.

use std::process::Command;

#[test]
fn viewer_window_runs_and_screenshots_panel_and_smoke() {
    let dir = std::env::temp_dir().join(format!("plume-view-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let shot = dir.join("viewer.png");
    let rec = dir.join("frames");
    let out = Command::new("xvfb-run")
        .args([
            "-a",
            "-s",
            "-screen 0 1280x1024x24",
            env!("CARGO_BIN_EXE_plume"),
        ])
        .args([
            "view",
            "--size",
            "24",
            "--frames",
            "25",
            "--slice",
            "--window",
            "1100x700",
            "--screenshot",
        ])
        .arg(&shot)
        .arg("--record")
        .arg(&rec)
        .output()
        .unwrap_or_else(|e| panic!("cannot run xvfb-run (install the Debian package xvfb): {e}"));
    assert!(
        out.status.success(),
        "viewer failed: {}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let dec = png::Decoder::new(std::fs::File::open(&shot).expect("screenshot written"));
    let mut reader = dec.read_info().expect("PNG");
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).expect("pixels");
    let (w, h) = (info.width as usize, info.height as usize);
    assert_eq!((w, h), (1100, 700));
    let px = |x: usize, y: usize| {
        let i = 4 * (y * w + x);
        [buf[i], buf[i + 1], buf[i + 2]]
    };
    let luma = |p: [u8; 3]| (p[0] as u32 * 3 + p[1] as u32 * 6 + p[2] as u32) / 10;
    // Not blank: many distinct colours.
    let mut colours = std::collections::HashSet::new();
    for y in (0..h).step_by(3) {
        for x in (0..w).step_by(3) {
            colours.insert(px(x, y));
        }
    }
    assert!(
        colours.len() > 200,
        "only {} colours: blank picture?",
        colours.len()
    );
    // The side panel on the left: a flat panel colour with light text on it.
    let panel: Vec<[u8; 3]> = (40..h - 40)
        .step_by(2)
        .flat_map(|y| (5..200).step_by(2).map(move |x| (x, y)))
        .map(|(x, y)| px(x, y))
        .collect();
    let mut counts = std::collections::HashMap::new();
    for p in &panel {
        *counts.entry(*p).or_insert(0usize) += 1;
    }
    let (fill, n) = counts
        .iter()
        .max_by_key(|e| e.1)
        .map(|(c, n)| (*c, *n))
        .expect("pixels");
    assert!(
        n * 2 > panel.len(),
        "no uniform panel background on the left ({fill:?} covers {n} of {})",
        panel.len()
    );
    let text = panel.iter().filter(|p| luma(**p) > luma(fill) + 80).count();
    assert!(text > 200, "no text in the panel ({text} bright pixels)");
    // The smoke: bright, low-saturation pixels in the middle of the 3D view.
    let smoke = (h / 6..h * 5 / 6)
        .flat_map(|y| (w * 3 / 10..w * 7 / 10).map(move |x| (x, y)))
        .map(|(x, y)| px(x, y))
        .filter(|p| {
            luma(*p) > 150 && p.iter().max().unwrap_or(&0) - p.iter().min().unwrap_or(&0) < 40
        })
        .count();
    assert!(
        smoke > 300,
        "no smoke in the 3D view ({smoke} bright grey pixels)"
    );
    // The recording ran on the background writer and finished its queue on exit: numbered
    // .vdb frames and a manifest that lists exactly them.
    let mut vdbs: Vec<String> = std::fs::read_dir(&rec)
        .expect("recording folder")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".vdb"))
        .collect();
    vdbs.sort();
    assert!(vdbs.len() >= 2, "recorded only {vdbs:?}");
    assert_eq!(vdbs[0], "plume_0001.vdb");
    let m: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(rec.join("manifest.json")).expect("manifest"),
    )
    .expect("JSON");
    let steps: Vec<u64> = m["frames"]
        .as_array()
        .expect("frames")
        .iter()
        .map(|f| f["step"].as_u64().expect("step"))
        .collect();
    assert_eq!(steps.len(), vdbs.len());
    assert!(
        steps.iter().all(|s| s % 2 == 0),
        "every 2nd step: {steps:?}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
