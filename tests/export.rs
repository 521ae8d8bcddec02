//! Export files read back by readers that are not ours: vdb-rs for OpenVDB, npyz for NumPy,
//! roxmltree + base64 for VTK XML image data.

use plume::export::vdb::{encode, VdbOptions};
use plume::export::{self, ExportOptions, Fields, Format};
use plume::frame::Frame;
use plume::sim::{Dims, Grid};
use std::collections::HashMap;
use std::io::Cursor;

fn frame(d: Dims, h: f32, origin: [f32; 3]) -> Frame {
    let mut density = vec![0.0f32; d.cells()];
    let mut velocity = vec![[0.0f32; 3]; d.cells()];
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let c = d.idx(i, j, k);
                // A blob in one corner (so some leaves stay empty) plus a few scattered values.
                let r2 =
                    (i as f32 - 3.0).powi(2) + (j as f32 - 4.0).powi(2) + (k as f32 - 2.0).powi(2);
                if r2 < 30.0 {
                    density[c] = 1.0 + 0.01 * (i + 3 * j + 7 * k) as f32;
                }
                if (i * 7 + j * 3 + k) % 29 == 0 {
                    density[c] = 0.25;
                }
                if r2 < 60.0 {
                    velocity[c] = [i as f32 * 0.1, -(j as f32) * 0.2, k as f32 + 0.5];
                }
            }
        }
    }
    Frame {
        density: Some(density),
        velocity: Some(velocity),
        ..Frame::empty(Grid { dims: d, h, origin }, 7, 0.25)
    }
}

fn read_vdb<T: bytemuck::Pod>(bytes: &[u8], name: &str) -> vdb_rs::Grid<T> {
    let mut r = vdb_rs::VdbReader::new(Cursor::new(bytes.to_vec())).expect("vdb-rs opens the file");
    let mut names = r.available_grids();
    names.sort();
    assert!(names.contains(&name.to_string()), "grids {names:?}");
    r.read_grid::<T>(name).expect("vdb-rs reads the grid")
}

/// Map from VDB index coordinate to value for every active voxel.
fn active<T: Copy>(g: &vdb_rs::Grid<T>) -> HashMap<[i32; 3], T> {
    g.iter()
        .filter(|(_, _, level)| matches!(level, vdb_rs::VdbLevel::Voxel))
        .map(|(p, v, _)| ([p.x as i32, p.y as i32, p.z as i32], v))
        .collect()
}

fn check_transform(g: &vdb_rs::Grid<f32>, h: f32, origin: [f32; 3], offset: [i32; 3]) {
    match &g.transform {
        vdb_rs::Map::ScaleTranslateMap {
            translation,
            voxel_size,
            scale_values_inverse,
            ..
        } => {
            for a in 0..3 {
                assert!(
                    (voxel_size[a] - h as f64).abs() < 1e-9,
                    "voxel size {voxel_size:?}"
                );
                assert!((scale_values_inverse[a] - 1.0 / h as f64).abs() < 1e-6);
                // Index (i,j,k) + offset sits at the centre of cell (i,j,k).
                let want = origin[a] as f64 + (0.5 - offset[a] as f64) * h as f64;
                assert!(
                    (translation[a] - want).abs() < 1e-6,
                    "translation {translation:?}"
                );
            }
        }
        other => panic!("unexpected map {other:?}"),
    }
}

#[test]
fn vdb_density_and_velocity_read_back_exactly() {
    let d = Dims::new(21, 13, 10);
    let f = frame(d, 0.05, [-0.5, 0.0, 0.25]);
    let bytes = encode(&f, &VdbOptions::default());
    let g = read_vdb::<f32>(&bytes, "density");
    assert_eq!(g.descriptor.name, "density");
    assert_eq!(g.descriptor.grid_type, "Tree_float_5_4_3");
    check_transform(&g, 0.05, [-0.5, 0.0, 0.25], [0; 3]);
    let got = active(&g);
    let dens = f.density.as_ref().expect("density");
    let nonzero = dens.iter().filter(|v| **v != 0.0).count();
    assert_eq!(got.len(), nonzero, "active voxel count");
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let want = dens[d.idx(i, j, k)];
                let have = got
                    .get(&[i as i32, j as i32, k as i32])
                    .copied()
                    .unwrap_or(0.0);
                assert_eq!(have, want, "voxel ({i},{j},{k})");
            }
        }
    }
    // vdb-rs reads the root background of every grid as 4 bytes, so it cannot parse vec3
    // grids; the velocity grid is checked with OpenVDB itself in tests/openvdb.rs. Here: it
    // is listed with the right type.
    let r = vdb_rs::VdbReader::new(Cursor::new(bytes.clone())).expect("open");
    let mut names = r.available_grids();
    names.sort();
    assert_eq!(names, ["density", "velocity"]);
}

#[test]
fn vdb_grids_carry_name_and_fog_volume_class() {
    let f = frame(Dims::new(9, 9, 9), 0.1, [0.0; 3]);
    let bytes = encode(&f, &VdbOptions::default());
    let g = read_vdb::<f32>(&bytes, "density");
    let meta = &g.descriptor.meta_data.0;
    let s = |k: &str| match meta.get(k) {
        Some(vdb_rs::MetadataValue::String(s)) => s.clone(),
        other => panic!("metadata {k}: {other:?}"),
    };
    assert_eq!(s("name"), "density");
    assert_eq!(s("class"), "fog volume");
    assert!(!g.descriptor.meta_data.is_half_float());
}

#[test]
fn vdb_half_precision_is_smaller_and_marked() {
    // Half-precision values are checked voxel by voxel by OpenVDB itself (tests/openvdb.rs):
    // vdb-rs 0.6 expects a zero byte count for empty half-float value blocks, which OpenVDB's
    // half writer (and so Blender's reader) does not produce.
    let f = frame(Dims::new(12, 11, 10), 0.1, [0.0; 3]);
    let half = encode(
        &f,
        &VdbOptions {
            half: true,
            ..VdbOptions::default()
        },
    );
    let full = encode(&f, &VdbOptions::default());
    assert!(
        half.len() < full.len(),
        "half {} vs full {}",
        half.len(),
        full.len()
    );
    let r = vdb_rs::VdbReader::new(Cursor::new(half)).expect("header and descriptors parse");
    let names = r.available_grids();
    assert_eq!(names.len(), 2);
}

#[test]
fn an_empty_grid_gives_a_valid_file() {
    let d = Dims::new(8, 8, 8);
    let f = Frame {
        density: Some(vec![0.0; d.cells()]),
        velocity: Some(vec![[0.0; 3]; d.cells()]),
        ..Frame::empty(
            Grid {
                dims: d,
                h: 0.125,
                origin: [0.0; 3],
            },
            0,
            0.0,
        )
    };
    let bytes = encode(&f, &VdbOptions::default());
    let g = read_vdb::<f32>(&bytes, "density");
    assert_eq!(g.tree.root_nodes.len(), 0);
    assert_eq!(g.iter().count(), 0);
}

#[test]
fn a_grid_spanning_several_root_children_reads_back_right() {
    // An index offset puts the grid across the origin of VDB index space, so its voxels fall
    // into eight root children (and several level-1 nodes and leaves of each).
    let d = Dims::new(20, 18, 17);
    let f = frame(d, 0.05, [0.0; 3]);
    let offset = [-6, -9, -3];
    let bytes = encode(
        &f,
        &VdbOptions {
            index_offset: offset,
            ..VdbOptions::default()
        },
    );
    let g = read_vdb::<f32>(&bytes, "density");
    assert_eq!(g.tree.root_nodes.len(), 8, "root children");
    check_transform(&g, 0.05, [0.0; 3], offset);
    let got = active(&g);
    let dens = f.density.as_ref().expect("density");
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let key = [
                    i as i32 + offset[0],
                    j as i32 + offset[1],
                    k as i32 + offset[2],
                ];
                let have = got.get(&key).copied().unwrap_or(0.0);
                assert_eq!(have, dens[d.idx(i, j, k)], "voxel ({i},{j},{k})");
            }
        }
    }
}

#[test]
fn the_cutoff_leaves_out_faint_leaves() {
    let d = Dims::new(16, 8, 8);
    let mut dens = vec![0.0f32; d.cells()];
    dens[d.idx(1, 1, 1)] = 1.0; // leaf at x 0..8: kept
    dens[d.idx(12, 1, 1)] = 1e-5; // leaf at x 8..16: below the cutoff
    let f = Frame {
        density: Some(dens),
        velocity: None,
        ..Frame::empty(
            Grid {
                dims: d,
                h: 0.1,
                origin: [0.0; 3],
            },
            0,
            0.0,
        )
    };
    let bytes = encode(
        &f,
        &VdbOptions {
            cutoff: 1e-3,
            ..VdbOptions::default()
        },
    );
    let got = active(&read_vdb::<f32>(&bytes, "density"));
    assert_eq!(got.len(), 1);
    assert_eq!(got.get(&[1, 1, 1]), Some(&1.0));
}

fn scratch(tag: &str) -> std::path::PathBuf {
    let d = std::env::temp_dir().join(format!("plume-export-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

#[test]
fn npy_files_load_with_npyz_in_numpy_order() {
    let d = Dims::new(5, 4, 3);
    let f = frame(d, 0.1, [0.0; 3]);
    let dir = scratch("npy");
    let opts = ExportOptions {
        formats: vec![Format::Npy],
        ..ExportOptions::default()
    };
    let files = export::write_frame(&dir, 1, &f, &opts).expect("write");
    assert_eq!(files, ["plume_density_0001.npy", "plume_velocity_0001.npy"]);
    let bytes = std::fs::read(dir.join(&files[0])).expect("read");
    let arr = npyz::NpyFile::new(&bytes[..]).expect("npy header");
    assert_eq!(arr.shape(), &[3, 4, 5]);
    assert_eq!(arr.order(), npyz::Order::C);
    let vals: Vec<f32> = arr.into_vec().expect("f32 data");
    assert_eq!(&vals, f.density.as_ref().expect("density"));
    let bytes = std::fs::read(dir.join(&files[1])).expect("read");
    let arr = npyz::NpyFile::new(&bytes[..]).expect("npy header");
    assert_eq!(arr.shape(), &[3, 4, 5, 3]);
    let vals: Vec<f32> = arr.into_vec().expect("f32 data");
    assert_eq!(
        &vals[..],
        f.velocity.as_ref().expect("velocity").as_flattened()
    );
    // The header keeps the data 64-byte aligned, as numpy writes it.
    assert_eq!(bytes.len() - 4 * vals.len(), 128);
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn vti_parses_as_xml_and_decodes_to_the_values() {
    use base64::Engine;
    let d = Dims::new(6, 5, 4);
    let f = frame(d, 0.2, [1.0, -2.0, 0.5]);
    let dir = scratch("vti");
    let opts = ExportOptions {
        formats: vec![Format::Vti],
        ..ExportOptions::default()
    };
    let files = export::write_frame(&dir, 3, &f, &opts).expect("write");
    assert_eq!(files, ["plume_0003.vti"]);
    let text = std::fs::read_to_string(dir.join(&files[0])).expect("read");
    let doc = roxmltree::Document::parse(&text).expect("well-formed XML");
    let root = doc.root_element();
    assert_eq!(root.attribute("type"), Some("ImageData"));
    assert_eq!(root.attribute("header_type"), Some("UInt64"));
    let img = root
        .children()
        .find(|n| n.has_tag_name("ImageData"))
        .expect("ImageData");
    assert_eq!(img.attribute("WholeExtent"), Some("0 6 0 5 0 4"));
    let nums = |s: &str| -> Vec<f32> {
        s.split_whitespace()
            .map(|x| x.parse().expect("number"))
            .collect()
    };
    assert_eq!(
        nums(img.attribute("Spacing").expect("spacing")),
        vec![0.2, 0.2, 0.2]
    );
    assert_eq!(
        nums(img.attribute("Origin").expect("origin")),
        vec![1.0, -2.0, 0.5]
    );
    let arrays: Vec<_> = img
        .descendants()
        .filter(|n| n.has_tag_name("DataArray"))
        .collect();
    assert_eq!(arrays.len(), 2);
    for a in arrays {
        assert_eq!(a.parent().map(|p| p.tag_name().name()), Some("CellData"));
        let raw = base64::engine::general_purpose::STANDARD
            .decode(a.text().expect("data").trim())
            .expect("base64");
        let n = u64::from_le_bytes(raw[..8].try_into().expect("header")) as usize;
        assert_eq!(n, raw.len() - 8, "byte-count header");
        let vals: Vec<f32> = raw[8..]
            .chunks(4)
            .map(|c| f32::from_le_bytes(c.try_into().expect("4 bytes")))
            .collect();
        match a.attribute("Name") {
            Some("density") => {
                assert_eq!(a.attribute("NumberOfComponents"), Some("1"));
                assert_eq!(&vals, f.density.as_ref().expect("density"));
            }
            Some("velocity") => {
                assert_eq!(a.attribute("NumberOfComponents"), Some("3"));
                assert_eq!(
                    &vals[..],
                    f.velocity.as_ref().expect("velocity").as_flattened()
                );
            }
            other => panic!("unexpected array {other:?}"),
        }
    }
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn frames_are_named_for_sequence_detection() {
    let opts = ExportOptions {
        formats: vec![Format::Vdb, Format::Npy, Format::Vti],
        fields: Fields {
            density: true,
            velocity: false,
            ..Fields::NONE
        },
        prefix: "smoke".into(),
        ..ExportOptions::default()
    };
    assert_eq!(
        opts.file_names(12),
        ["smoke_0012.vdb", "smoke_density_0012.npy", "smoke_0012.vti"]
    );
    assert!(ExportOptions {
        prefix: "../x".into(),
        ..ExportOptions::default()
    }
    .validate()
    .is_err());
    assert_eq!(
        Format::parse_list("vdb, NPY,vdb"),
        Ok(vec![Format::Vdb, Format::Npy])
    );
    assert!(Format::parse_list("vdb,obj")
        .expect_err("bad")
        .contains("unknown format 'obj'"));
}
