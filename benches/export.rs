//! Criterion benchmark: writing one 128³ frame (density and velocity) in each format, to a
//! temporary folder, through the same atomic writer the CLI uses; and reading it back from
//! a run folder of each format (`export::read`, what `render --run`, `view --run` and
//! `plume.open_run` do for each frame).

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use plume::export::{self, ExportOptions, Format};
use plume::scene::Scene;
use plume::sim::{Dims, Solver};
use std::sync::OnceLock;

/// The default scene at 128³ after 90 steps, simulated once for both groups.
fn state() -> &'static (Scene, Solver) {
    static STATE: OnceLock<(Scene, Solver)> = OnceLock::new();
    STATE.get_or_init(|| {
        let scene = Scene::default_plume().with_dims(Dims::cube(128));
        let mut s = scene.build().expect("default scene builds");
        for _ in 0..90 {
            s.step();
        }
        (scene, s)
    })
}

fn write(c: &mut Criterion) {
    let frame = export::capture(&state().1, &ExportOptions::default());
    let dir = std::env::temp_dir().join(format!("plume-bench-export-{}", std::process::id()));
    let mut g = c.benchmark_group("write_128");
    g.sample_size(10);
    for (name, format, half) in [
        ("vdb", Format::Vdb, false),
        ("vdb_half", Format::Vdb, true),
        ("vti", Format::Vti, false),
        ("npy", Format::Npy, false),
    ] {
        let opts = ExportOptions {
            formats: vec![format],
            half,
            ..ExportOptions::default()
        };
        let files = export::write_frame(&dir, 1, &frame, &opts).expect("write");
        let bytes: u64 = files
            .iter()
            .map(|f| std::fs::metadata(dir.join(f)).map(|m| m.len()).unwrap_or(0))
            .sum();
        eprintln!("{name}: {:.1} MB per frame", bytes as f64 / 1e6);
        g.bench_function(name, |b| {
            b.iter(|| export::write_frame(&dir, 1, &frame, &opts).expect("write"))
        });
    }
    g.finish();
    std::fs::remove_dir_all(&dir).ok();
}

fn read(c: &mut Criterion) {
    use plume::export::read::RunReader;
    use plume::export::run::{Existing, RunWriter};
    let (scene, s) = state();
    let mut g = c.benchmark_group("read_128");
    g.sample_size(10);
    for (name, format, half) in [
        ("vdb", Format::Vdb, false),
        ("vdb_half", Format::Vdb, true),
        ("vti", Format::Vti, false),
        ("npy", Format::Npy, false),
    ] {
        let dir =
            std::env::temp_dir().join(format!("plume-bench-read-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = ExportOptions {
            formats: vec![format],
            half,
            ..ExportOptions::default()
        };
        let (mut w, _) = RunWriter::create(&dir, scene, &opts, Existing::Refuse).expect("run");
        w.write(&export::capture(s, &opts)).expect("frame");
        drop(w);
        let r = RunReader::open(&dir).expect("opens");
        let fields = opts.fields;
        g.bench_function(name, |b| b.iter(|| r.read(0, fields).expect("read")));
        std::fs::remove_dir_all(&dir).ok();
    }
    g.finish();
}

criterion_group!(benches, write, read);
criterion_main!(benches);
