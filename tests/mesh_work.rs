//! Voxelising is bounded (issue 47, item 5): a mesh of many large overlapping triangles is
//! voxelised within `voxel::MAX_WORK` ray tests, on coarser cells, and said once.

mod common;

use common::mesh::{box_mesh, compare, tmp, write_stl_binary};
use plume::scene::Scene;

/// A pile of large overlapping boxes (50 000 of them, 600 000 triangles, closed and
/// consistently turned): voxelising it at the grid's cells would take hundreds of millions
/// of ray tests (the 4 000 000 overlapping triangles took 42 s at 16³, most of it
/// crossings kept and sorted per ray). The work is bounded (`voxel::MAX_WORK`): it is
/// voxelised on coarser cells, the user is told so once, and the result is still the union
/// of the boxes at that scale.
#[test]
fn a_pile_of_overlapping_triangles_is_voxelised_within_the_work_bound_and_said() {
    let n = 32;
    let mut v = Vec::new();
    let mut f = Vec::new();
    let mut r = 12345u64;
    let mut unit = || {
        r ^= r << 13;
        r ^= r >> 7;
        r ^= r << 17;
        (r >> 11) as f64 / (1u64 << 53) as f64
    };
    let mut boxes = Vec::new();
    for _ in 0..50_000 {
        let lo = [0, 1, 2].map(|_| 0.05 + 0.15 * unit());
        let hi = lo.map(|x| x + 0.4 + 0.1 * unit());
        boxes.push((lo, hi));
        let (bv, bf) = box_mesh(lo, hi);
        let base = v.len();
        v.extend(bv);
        f.extend(bf.into_iter().map(|t| t.map(|i| i + base)));
    }
    let path = tmp("pile.stl");
    write_stl_binary(&path, &v, &f);
    let text = format!(
        "name = \"pile\"\n[grid]\ndims = [{n}, {n}, {n}]\n[[obstacle]]\nshape = \"mesh\"\n\
         file = \"{}\"\nposition = [0.0, 0.0, 0.0]\n",
        path.display()
    );
    let scene = Scene::from_toml(&text, None).expect("scene");
    let notes = scene.notes();
    assert!(
        notes
            .iter()
            .any(|n| n.contains("times coarser") && n.contains("600000 triangles")),
        "{notes:?}"
    );
    let s = scene.build().expect("builds");
    let mask = s.solid_mask().expect("solid").to_vec();
    // The union of the boxes, cell centres inside any.
    let want: Vec<u8> = (0..n * n * n)
        .map(|c| {
            let p = [c % n, (c / n) % n, c / (n * n)].map(|x| (x as f64 + 0.5) / n as f64);
            u8::from(
                boxes
                    .iter()
                    .any(|(lo, hi)| (0..3).all(|a| p[a] >= lo[a] && p[a] <= hi[a])),
            )
        })
        .collect();
    let (iou, _) = compare(&mask, &want);
    assert!(
        iou > 0.8,
        "the coarser voxels still make the union: {iou:.3}"
    );
    // And a mesh of the same triangles' size, not piled, keeps the grid's own cells.
    let (bv, bf) = box_mesh([0.2; 3], [0.7; 3]);
    let one = tmp("one-box.stl");
    write_stl_binary(&one, &bv, &bf);
    let text = text.replace(&path.display().to_string(), &one.display().to_string());
    let notes = Scene::from_toml(&text, None).expect("scene").notes();
    assert!(!notes.iter().any(|n| n.contains("coarser")), "{notes:?}");
    let _ = std::fs::remove_file(&path);
}
