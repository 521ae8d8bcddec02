//! Meshes for the geometry tests: files written in a scratch folder, boxes, and masks
//! compared.

use std::path::{Path, PathBuf};

/// A path in this test process's scratch folder.
pub fn tmp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("plume-geometry-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Writes a binary STL of the faces `f` over the vertices `v`.
pub fn write_stl_binary(path: &Path, v: &[[f64; 3]], f: &[[usize; 3]]) {
    let mut b = vec![0u8; 80];
    b.extend((f.len() as u32).to_le_bytes());
    for t in f {
        b.extend([0f32; 3].iter().flat_map(|x| x.to_le_bytes()));
        for &i in t {
            b.extend(v[i].iter().flat_map(|&x| (x as f32).to_le_bytes()));
        }
        b.extend([0u8; 2]);
    }
    std::fs::write(path, b).expect("write stl");
}

/// A box's 12 triangles, faces turned outwards.
pub fn box_mesh(lo: [f64; 3], hi: [f64; 3]) -> (Vec<[f64; 3]>, Vec<[usize; 3]>) {
    let v = (0..8)
        .map(|i| [0, 1, 2].map(|a| if i >> a & 1 == 0 { lo[a] } else { hi[a] }))
        .collect();
    let mut f = Vec::new();
    for q in [
        [0, 4, 6, 2],
        [1, 3, 7, 5],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 2, 3, 1],
        [4, 5, 7, 6],
    ] {
        f.push([q[0], q[1], q[2]]);
        f.push([q[0], q[2], q[3]]);
    }
    (v, f)
}

/// Cells solid in both over cells solid in either, and the cells that disagree.
pub fn compare(a: &[u8], b: &[u8]) -> (f64, Vec<usize>) {
    let (mut both, mut either) = (0usize, 0usize);
    let mut differ = Vec::new();
    for (i, (&x, &y)) in a.iter().zip(b).enumerate() {
        both += usize::from(x != 0 && y != 0);
        either += usize::from(x != 0 || y != 0);
        if (x != 0) != (y != 0) {
            differ.push(i);
        }
    }
    (both as f64 / either.max(1) as f64, differ)
}
