//! Criterion benchmark: voxelising meshes. A 100 000-triangle torus (a 250 × 200 grid of
//! quads), written as a binary STL and placed as an obstacle filling a third of a 128³ grid,
//! rasterised into solid cells (what setting the obstacles does); and the same mesh moving,
//! sampled from its own voxel grid into the 128³ grid (what each sub-step does for a moving
//! mesh).

// criterion_group! generates an undocumented function.
#![allow(missing_docs)]

use criterion::{criterion_group, criterion_main, Criterion};
use plume::geometry::{Key, Scale};
use plume::sim::obstacles::Solids;
use plume::sim::{Dims, Grid, Obstacle, ShapeKind};

/// A torus of `nu × nv` quads (two triangles each), radii 1 and 0.35, as binary STL bytes.
fn torus_stl(nu: usize, nv: usize) -> Vec<u8> {
    let at = |i: usize, j: usize| {
        let (u, v) = (
            std::f32::consts::TAU * i as f32 / nu as f32,
            std::f32::consts::TAU * j as f32 / nv as f32,
        );
        let r = 1.0 + 0.35 * v.cos();
        [r * u.cos(), 0.35 * v.sin(), r * u.sin()]
    };
    let mut b = vec![0u8; 80];
    b.extend(((2 * nu * nv) as u32).to_le_bytes());
    for i in 0..nu {
        for j in 0..nv {
            let q = [at(i, j), at(i + 1, j), at(i + 1, j + 1), at(i, j + 1)];
            for t in [[0, 1, 2], [0, 2, 3]] {
                b.extend([0u8; 12]);
                for k in t {
                    b.extend(q[k].iter().flat_map(|x| x.to_le_bytes()));
                }
                b.extend([0u8; 2]);
            }
        }
    }
    b
}

fn voxelise(c: &mut Criterion) {
    let path = std::env::temp_dir().join(format!("plume-bench-torus-{}.stl", std::process::id()));
    std::fs::write(&path, torus_stl(250, 200)).expect("write the mesh");
    let grid = Grid::unit(Dims::cube(128)).expect("grid");
    let mut o = Obstacle::sphere([0.5; 3], 0.1);
    o.shape = ShapeKind::Mesh;
    o.radius = None;
    o.file = Some(path.to_string_lossy().into_owned());
    o.scale = Some(Scale::Uniform(0.35));
    o.rotation = Some([20.0, 0.0, 10.0]);
    let still = o.body().expect("mesh");
    let mut g = c.benchmark_group("voxelise");
    g.sample_size(10);
    g.bench_function("torus_100k_triangles_at_128", |b| {
        b.iter(|| Solids::build(&grid, std::slice::from_ref(&still), 0.0, 1.0 / 60.0))
    });
    o.keys = vec![
        Key {
            time: 0.0,
            ..Key::default()
        },
        Key {
            time: 2.0,
            rotation: Some([20.0, 180.0, 10.0]),
            ..Key::default()
        },
    ];
    let mut moving = o.body().expect("mesh");
    moving.prepare(grid.h);
    g.bench_function("torus_100k_triangles_moving_at_128", |b| {
        b.iter(|| Solids::build(&grid, std::slice::from_ref(&moving), 0.5, 1.0 / 60.0))
    });
    g.finish();
    let _ = std::fs::remove_file(&path);
}

criterion_group!(benches, voxelise);
criterion_main!(benches);
