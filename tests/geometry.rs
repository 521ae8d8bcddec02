//! Real geometry: meshes read from OBJ and STL files and voxelised, shapes turned and
//! scaled, and obstacles and emitters that move. Each test measures what the issue asks.

use plume::geometry::{Key, Scale};
use plume::scene::Scene;
use plume::sim::{Boundaries, Dims, Emitter, FluidParams, Grid, Obstacle, ShapeKind, Solver};
mod common;

use common::mesh::{box_mesh, compare, tmp, write_stl_binary};
use std::path::Path;

/// A unit icosphere: an icosahedron subdivided `n` times, its vertices on the unit sphere,
/// faces turned outwards.
fn icosphere(n: usize) -> (Vec<[f64; 3]>, Vec<[usize; 3]>) {
    let t = (1.0 + 5f64.sqrt()) / 2.0;
    let mut v: Vec<[f64; 3]> = vec![
        [-1.0, t, 0.0],
        [1.0, t, 0.0],
        [-1.0, -t, 0.0],
        [1.0, -t, 0.0],
        [0.0, -1.0, t],
        [0.0, 1.0, t],
        [0.0, -1.0, -t],
        [0.0, 1.0, -t],
        [t, 0.0, -1.0],
        [t, 0.0, 1.0],
        [-t, 0.0, -1.0],
        [-t, 0.0, 1.0],
    ];
    let mut f: Vec<[usize; 3]> = vec![
        [0, 11, 5],
        [0, 5, 1],
        [0, 1, 7],
        [0, 7, 10],
        [0, 10, 11],
        [1, 5, 9],
        [5, 11, 4],
        [11, 10, 2],
        [10, 7, 6],
        [7, 1, 8],
        [3, 9, 4],
        [3, 4, 2],
        [3, 2, 6],
        [3, 6, 8],
        [3, 8, 9],
        [4, 9, 5],
        [2, 4, 11],
        [6, 2, 10],
        [8, 6, 7],
        [9, 8, 1],
    ];
    let unit = |p: [f64; 3]| {
        let l = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
        p.map(|x| x / l)
    };
    v = v.into_iter().map(unit).collect();
    for _ in 0..n {
        let mut mid = std::collections::HashMap::new();
        let mut next = Vec::new();
        for t in &f {
            let mut m = [0usize; 3];
            for e in 0..3 {
                let (a, b) = (t[e], t[(e + 1) % 3]);
                m[e] = *mid.entry((a.min(b), a.max(b))).or_insert_with(|| {
                    let p = unit([0, 1, 2].map(|i| 0.5 * (v[a][i] + v[b][i])));
                    v.push(p);
                    v.len() - 1
                });
            }
            next.push([t[0], m[0], m[2]]);
            next.push([t[1], m[1], m[0]]);
            next.push([t[2], m[2], m[1]]);
            next.push(m);
        }
        f = next;
    }
    (v, f)
}

fn write_obj(path: &Path, v: &[[f64; 3]], f: &[[usize; 3]]) {
    let mut s = String::from("# test mesh\n");
    for p in v {
        s += &format!("v {} {} {}\n", p[0], p[1], p[2]);
    }
    for t in f {
        s += &format!("f {} {} {}\n", t[0] + 1, t[1] + 1, t[2] + 1);
    }
    std::fs::write(path, s).expect("write obj");
}

fn write_stl_ascii(path: &Path, v: &[[f64; 3]], f: &[[usize; 3]]) {
    let mut s = String::from("solid test\n");
    for t in f {
        s += "facet normal 0 0 0\n  outer loop\n";
        for &i in t {
            s += &format!("    vertex {} {} {}\n", v[i][0], v[i][1], v[i][2]);
        }
        s += "  endloop\nendfacet\n";
    }
    s += "endsolid test\n";
    std::fs::write(path, s).expect("write stl");
}

fn mesh_obstacle(file: &Path, position: [f32; 3], scale: Scale) -> Obstacle {
    Obstacle {
        shape: ShapeKind::Mesh,
        center: position,
        radius: None,
        size: None,
        file: Some(file.to_string_lossy().into_owned()),
        rotation: None,
        scale: Some(scale),
        ..Obstacle::sphere([0.5; 3], 0.1)
    }
}

fn solver(n: usize) -> Solver {
    let p = FluidParams {
        smoke_weight: 0.0,
        buoyancy: 0.0,
        fade: 0.0,
        vorticity: 0.0,
        ..FluidParams::default()
    };
    Solver::new(
        Grid::unit(Dims::cube(n)).expect("grid"),
        p,
        Boundaries::closed(),
    )
    .expect("solver")
}

fn mask_of(n: usize, obstacles: Vec<Obstacle>) -> Vec<u8> {
    let mut s = solver(n);
    s.set_obstacles(obstacles).expect("obstacles");
    s.solid_mask().map(<[u8]>::to_vec).unwrap_or_default()
}

#[test]
fn a_mesh_sphere_voxelises_like_the_analytic_sphere_from_obj_and_both_stls() {
    let n = 48;
    let (c, r) = ([0.5f32, 0.47, 0.52], 0.3f32);
    let analytic = mask_of(n, vec![Obstacle::sphere(c, r)]);
    let (v, f) = icosphere(3);
    let files = [
        (
            "sphere.obj",
            write_obj as fn(&Path, &[[f64; 3]], &[[usize; 3]]),
        ),
        ("sphere_bin.stl", write_stl_binary),
        ("sphere_ascii.stl", write_stl_ascii),
    ];
    let h = 1.0 / n as f64;
    for (name, write) in files {
        let path = tmp(name);
        write(&path, &v, &f);
        let mesh = mask_of(n, vec![mesh_obstacle(&path, c, Scale::Uniform(r))]);
        let (agree, differ) = compare(&analytic, &mesh);
        println!(
            "{name}: {:.4} of the solid cells agree, {} differ",
            agree,
            differ.len()
        );
        assert!(agree >= 0.98, "{name}: only {agree} agree");
        for i in differ {
            let p = [i % n, (i / n) % n, i / (n * n)].map(|x| (x as f64 + 0.5) * h);
            let d = (0..3)
                .map(|a| (p[a] - c[a] as f64).powi(2))
                .sum::<f64>()
                .sqrt();
            assert!(
                (d - r as f64).abs() <= h,
                "{name}: cell {p:?} is {d} from the centre"
            );
        }
    }
}

/// A closed box as 8 vertices and 12 outward triangles.
#[test]
fn a_box_mesh_equals_the_box_obstacle_and_lands_where_a_turn_and_a_scale_put_it() {
    let n = 40;
    let (v, f) = box_mesh([-0.1, -0.05, -0.07], [0.1, 0.05, 0.07]);
    let path = tmp("box.obj");
    write_obj(&path, &v, &f);
    let at = [0.51, 0.43, 0.48];
    let plain = mask_of(n, vec![mesh_obstacle(&path, at, Scale::Uniform(1.0))]);
    let analytic = mask_of(n, vec![Obstacle::cuboid(at, [0.2, 0.1, 0.14])]);
    assert!(analytic.iter().filter(|&&x| x != 0).count() > 100);
    assert_eq!(plain, analytic, "the box mesh and the box obstacle differ");
    // Turned 90° about z and scaled ×2: x (0.2 long) becomes y, 0.4 long.
    let mut turned = mesh_obstacle(&path, at, Scale::Uniform(2.0));
    turned.rotation = Some([0.0, 0.0, 90.0]);
    let want = mask_of(n, vec![Obstacle::cuboid(at, [0.2, 0.4, 0.28])]);
    assert_eq!(mask_of(n, vec![turned]), want);
    // The analytic box turns and scales the same way.
    let mut abox = Obstacle::cuboid(at, [0.2, 0.1, 0.14]);
    abox.rotation = Some([0.0, 0.0, 90.0]);
    abox.scale = Some(Scale::Axes([2.0, 2.0, 2.0]));
    assert_eq!(mask_of(n, vec![abox]), want);
}

#[test]
fn a_sphere_mesh_with_holes_and_doubled_faces_is_still_solid_inside() {
    let n = 40;
    let (c, r) = ([0.5f32; 3], 0.3f32);
    let (v, mut f) = icosphere(3);
    // Five faces gone (holes), three doubled.
    for i in [10, 200, 400, 700, 1000] {
        f.remove(i);
    }
    for i in [3, 300, 900] {
        let t = f[i];
        f.push(t);
    }
    let path = tmp("holey.obj");
    write_obj(&path, &v, &f);
    let mesh = mask_of(n, vec![mesh_obstacle(&path, c, Scale::Uniform(r))]);
    let (agree, _) = compare(&mask_of(n, vec![Obstacle::sphere(c, r)]), &mesh);
    assert!(agree >= 0.98, "only {agree} agree");
    // The user is told once that the mesh is not closed.
    let mut scene = Scene::default_plume();
    scene.obstacles = vec![mesh_obstacle(&path, c, Scale::Uniform(r))];
    let notes = scene.notes();
    assert_eq!(notes.len(), 1, "{notes:?}");
    assert!(notes[0].contains("not closed"), "{notes:?}");
}

fn key(time: f32, position: [f32; 3]) -> Key {
    Key {
        time,
        position: Some(position),
        ..Key::default()
    }
}

/// Largest |normal velocity − want| on the faces of solid cells along `axis`.
fn face_error(s: &Solver, axis: usize, want: f32) -> f32 {
    let d = s.dims();
    let mask = s.solid_mask().expect("solid");
    let u = s.velocity(axis);
    let fd = d.faces(axis);
    let mut worst = 0.0f32;
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                if mask[d.idx(i, j, k)] == 0 {
                    continue;
                }
                let mut p = [i, j, k];
                for side in 0..2 {
                    p[axis] = [i, j, k][axis] + side;
                    worst = worst.max((u[fd.idx(p[0], p[1], p[2])] - want).abs());
                }
            }
        }
    }
    worst
}

#[test]
fn a_box_moving_through_still_air_carries_its_speed_keeps_the_flow_divergence_free_and_the_smoke() {
    let n = 32;
    let v = 0.5f32;
    let (from, to) = ([0.25f32, 0.5, 0.5], [0.75f32, 0.5, 0.5]);
    let trip = (to[0] - from[0]) / v;
    let mut moving = Obstacle::cuboid(from, [0.15, 0.2, 0.2]);
    moving.keys = vec![key(0.0, from), key(trip, to)];
    let mut s = solver(n);
    let mut p = s.params().clone();
    p.pressure_tolerance = 1e-6;
    s.set_params(p).expect("params");
    s.set_obstacles(vec![moving]).expect("obstacles");
    // Smoke in the lower half of the box.
    let d = s.dims();
    for k in 0..n {
        for j in 0..n / 2 {
            for i in 0..n {
                s.density_mut()[d.idx(i, j, k)] = 1.0;
            }
        }
    }
    s.set_obstacles(s.obstacles().to_vec())
        .expect("clear the smoke inside");
    let before = s.total_density();
    let h = 1.0 / n as f32;
    let steps = (trip / s.params().dt).round() as usize - 1;
    let mut worst = [0.0f32; 4];
    for _ in 0..steps {
        let st = s.step().clone();
        worst[0] = worst[0].max(face_error(&s, 0, v) / v);
        worst[1] = worst[1].max(face_error(&s, 1, 0.0).max(face_error(&s, 2, 0.0)) / v);
        worst[2] = worst[2].max(st.divergence_after * h / v);
        worst[3] = worst[3].max(s.max_divergence() * h / v);
    }
    let after = s.total_density();
    println!(
        "normal velocity error {:.2e} (x faces) {:.2e} (others), divergence·h/v {:.2e} (solver) {:.2e} (measured), mass {before:.5} -> {after:.5}",
        worst[0], worst[1], worst[2], worst[3]
    );
    assert!(worst[0] <= 1e-3, "x faces: {}", worst[0]);
    assert!(worst[1] <= 1e-3, "y and z faces: {}", worst[1]);
    assert!(worst[3] <= 1e-3, "divergence: {}", worst[3]);
    assert!(
        (after / before - 1.0).abs() <= 0.02,
        "mass {before} -> {after}"
    );
    // It went where its keys say: the solid cells' centroid moved by the trip.
    let mask = s.solid_mask().expect("solid");
    let xs: Vec<f64> = (0..mask.len())
        .filter(|&c| mask[c] != 0)
        .map(|c| ((c % n) as f64 + 0.5) / n as f64)
        .collect();
    let cx = xs.iter().sum::<f64>() / xs.len() as f64;
    let expect = f64::from(from[0]) + f64::from(v) * (s.time() - f64::from(s.params().dt));
    assert!(
        (cx - expect).abs() <= 1.0 / n as f64,
        "box at {cx}, expected {expect}"
    );
}

#[test]
fn the_same_box_at_rest_leaves_still_air_still() {
    let mut s = solver(24);
    s.set_obstacles(vec![Obstacle::cuboid([0.5; 3], [0.15, 0.2, 0.2])])
        .expect("obstacles");
    for _ in 0..20 {
        s.step();
    }
    let top = (0..3)
        .flat_map(|a| s.velocity(a).to_vec())
        .fold(0.0f32, |m, x| m.max(x.abs()));
    assert_eq!(top, 0.0);
}

/// Angular momentum of the fluid about the vertical axis through the domain's centre.
fn spin_about_y(s: &Solver) -> (f64, f64) {
    let d = s.dims();
    let n = d.nx as f64;
    let (mut l, mut scale) = (0.0, 0.0);
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let u = s.velocity_at_cell(i, j, k);
                let x = (i as f64 + 0.5) / n - 0.5;
                let z = (k as f64 + 0.5) / n - 0.5;
                l += z * f64::from(u[0]) - x * f64::from(u[2]);
                scale += (x * x + z * z).sqrt() * f64::from(u[0] * u[0] + u[2] * u[2]).sqrt();
            }
        }
    }
    (l, scale)
}

#[test]
fn a_spinning_paddle_sets_the_air_turning_its_way() {
    for turns in [2.0f32, -2.0] {
        let mut s = solver(32);
        let mut paddle = Obstacle::cuboid([0.5; 3], [0.5, 0.3, 0.06]);
        paddle.keys = vec![
            Key {
                time: 0.0,
                rotation: Some([0.0; 3]),
                ..Key::default()
            },
            Key {
                time: 2.0,
                rotation: Some([0.0, 360.0 * turns, 0.0]),
                ..Key::default()
            },
        ];
        s.set_obstacles(vec![paddle]).expect("obstacles");
        for _ in 0..30 {
            s.step();
        }
        let (l, scale) = spin_about_y(&s);
        println!("{turns} turns: angular momentum {l:.4}, of at most {scale:.4}");
        assert!(
            l * f64::from(turns.signum()) > 0.5 * scale,
            "{l} of {scale}"
        );
    }
}

#[test]
fn a_moving_emitter_leaves_its_smoke_along_its_path() {
    let n = 32;
    let mut s = solver(n);
    let mut e = Emitter::sphere([0.25, 0.5, 0.5], 0.05, 4.0);
    e.keys = vec![key(0.0, [0.25, 0.5, 0.5]), key(1.0, [0.75, 0.5, 0.5])];
    s.set_emitters(vec![e]).expect("emitter");
    for _ in 0..60 {
        s.step();
    }
    let c = s.density_centroid().expect("smoke");
    let h = 1.0 / n as f64;
    println!("trail centroid {c:?}");
    // The path's middle is (0.5, 0.5, 0.5) and the smoke was laid evenly along it.
    for (a, want) in c.iter().zip([0.5, 0.5, 0.5]) {
        assert!((a - want).abs() <= h, "centroid {c:?}");
    }
    // Along it, not in one lump: each third of the path holds a fair share.
    let d = s.dims();
    let mut thirds = [0.0f64; 3];
    for k in 0..n {
        for j in 0..n {
            for i in 0..n {
                let x = (i as f64 + 0.5) * h;
                let t = (((x - 0.25) / 0.5 * 3.0).floor()).clamp(0.0, 2.0) as usize;
                thirds[t] += f64::from(s.density()[d.idx(i, j, k)]);
            }
        }
    }
    let total: f64 = thirds.iter().sum();
    assert!(thirds.iter().all(|&x| x > 0.2 * total), "{thirds:?}");
}

/// The error a scene gives, as the CLI prints it (file, line, message).
fn scene_error(toml: &str) -> String {
    let path = tmp("bad_scene.toml");
    std::fs::write(&path, toml).expect("write scene");
    match Scene::load(&path) {
        Ok(_) => panic!("accepted:\n{toml}"),
        Err(e) => e.to_string(),
    }
}

fn mesh_scene(file: &Path, extra: &str) -> String {
    format!(
        "name = \"t\"\n[grid]\ndims = [16, 16, 16]\n\n[[obstacle]]\nshape = \"mesh\"\nfile = \"{}\"\nposition = [0.5, 0.5, 0.5]\nscale = 0.2\n{extra}",
        file.display()
    )
}

#[test]
fn malformed_meshes_and_key_frames_are_refused_with_file_and_line() {
    // A missing file.
    let e = scene_error(&mesh_scene(&tmp("nowhere.obj"), ""));
    assert!(
        e.contains("nowhere.obj") && e.contains("no such file"),
        "{e}"
    );
    // A truncated binary STL.
    let (v, f) = box_mesh([-1.0; 3], [1.0; 3]);
    let stl = tmp("cut.stl");
    write_stl_binary(&stl, &v, &f);
    let bytes = std::fs::read(&stl).expect("read");
    std::fs::write(&stl, &bytes[..bytes.len() - 30]).expect("cut");
    let e = scene_error(&mesh_scene(&stl, ""));
    assert!(
        e.contains("cut.stl") && e.contains("truncated binary STL"),
        "{e}"
    );
    // An OBJ face that refers to a vertex that does not exist (line 11 of the file).
    let obj = tmp("bad_index.obj");
    write_obj(&obj, &v, &f);
    let mut text = std::fs::read_to_string(&obj).expect("read");
    text = text.replacen("f 1 ", "f 99 ", 1);
    std::fs::write(&obj, text).expect("write");
    let e = scene_error(&mesh_scene(&obj, ""));
    assert!(
        e.contains("bad_index.obj, line 10") && e.contains("vertex 99"),
        "{e}"
    );
    // A sheet (an open mesh with no inside) still makes a wall one cell thick.
    let sheet = tmp("sheet.obj");
    write_obj(
        &sheet,
        &[
            [-1.0, 0.01, -1.0],
            [1.0, 0.01, -1.0],
            [1.0, 0.01, 1.0],
            [-1.0, 0.01, 1.0],
        ],
        &[[0, 2, 1], [0, 3, 2]],
    );
    let wall = mask_of(
        32,
        vec![mesh_obstacle(&sheet, [0.5; 3], Scale::Uniform(0.3))],
    );
    let cells = wall.iter().filter(|&&x| x != 0).count();
    assert!(
        (19 * 19..=21 * 21).contains(&cells),
        "a 0.6 × 0.6 sheet gave {cells} cells"
    );
    // NaN and huge coordinates, named by line.
    for (bad, name) in [("nan", "nan.obj"), ("1e12", "huge.obj")] {
        let obj = tmp(name);
        write_obj(&obj, &v, &f);
        let text = std::fs::read_to_string(&obj).expect("read").replacen(
            "v -1 -1 -1",
            &format!("v -1 {bad} -1"),
            1,
        );
        std::fs::write(&obj, text).expect("write");
        let e = scene_error(&mesh_scene(&obj, ""));
        assert!(
            e.contains(&format!("{name}, line 2")) && e.contains("finite"),
            "{e}"
        );
    }
    // Millions of triangles: refused with the number, without reading them.
    let big = tmp("big.stl");
    let mut head = vec![0u8; 80];
    head.extend(5_000_000u32.to_le_bytes());
    std::fs::write(&big, head).expect("write");
    let e = scene_error(&mesh_scene(&big, ""));
    assert!(e.contains("5000000 triangles"), "{e}");
    // Key frames out of order, with the line of the offending key.
    let good = tmp("good.obj");
    write_obj(&good, &v, &f);
    let keys = "[[obstacle.key]]\ntime = 2.0\n\n[[obstacle.key]]\ntime = 1.0\n";
    let e = scene_error(&mesh_scene(&good, keys));
    assert!(e.contains("out of order") && e.contains(":14:"), "{e}");
    // A mesh wholly outside the domain.
    let far =
        mesh_scene(&good, "").replace("position = [0.5, 0.5, 0.5]", "position = [5.0, 0.5, 0.5]");
    let e = scene_error(&far);
    assert!(e.contains("outside"), "{e}");
    // And through the command line: exit 1 and the message, no panic.
    let path = tmp("bad_cli.toml");
    std::fs::write(&path, mesh_scene(&big, "")).expect("write");
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_plume"))
        .args(["simulate", "--seconds", "0.1", "--scene"])
        .arg(&path)
        .output()
        .expect("run plume");
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(
        err.contains("5000000 triangles") && !err.contains("panicked"),
        "{err}"
    );
}

#[test]
fn a_relative_mesh_path_is_taken_from_the_scene_files_folder() {
    let (v, f) = box_mesh([-1.0; 3], [1.0; 3]);
    let dir = tmp("scene_dir");
    std::fs::create_dir_all(dir.join("meshes")).expect("dir");
    write_obj(&dir.join("meshes/cube.obj"), &v, &f);
    let scene = dir.join("s.toml");
    std::fs::write(
        &scene,
        "name = \"t\"\n[grid]\ndims = [16, 16, 16]\n[[obstacle]]\nshape = \"mesh\"\nfile = \"meshes/cube.obj\"\nposition = [0.5, 0.5, 0.5]\nscale = 0.2\n",
    )
    .expect("write");
    let s = Scene::load(&scene).expect("loads from another working directory");
    let mut solver = s.build().expect("build");
    solver.step();
    assert!(solver.solid_cells() > 100);
    // Saved and loaded again, it is the same scene.
    let again = Scene::from_toml(&s.to_toml().expect("toml"), None).expect("reload");
    assert_eq!(again, s);
}

#[test]
fn the_solid_cells_export_as_a_collision_grid_that_readers_open() {
    use plume::export::{self, ExportOptions, Fields, Format};
    let mut s = solver(20);
    s.set_obstacles(vec![Obstacle::cuboid([0.42, 0.5, 0.55], [0.3, 0.2, 0.25])])
        .expect("obstacles");
    s.step();
    let mask = s.solid_mask().expect("solid").to_vec();
    let solid = mask.iter().filter(|&&x| x != 0).count();
    let opts = ExportOptions {
        formats: vec![Format::Vdb, Format::Npy, Format::Vti],
        fields: Fields::parse_list("density,solid").expect("fields"),
        ..ExportOptions::default()
    };
    let frame = export::capture(&s, &opts);
    let dir = tmp("collision");
    let _ = std::fs::remove_dir_all(&dir);
    let files = export::write_frame(&dir, 1, &frame, &opts).expect("write");
    assert_eq!(
        files,
        [
            "plume_0001.vdb",
            "plume_density_0001.npy",
            "plume_collision_0001.npy",
            "plume_0001.vti"
        ]
    );
    // OpenVDB (vdb-rs): a float grid named collision, 1 in exactly the solid cells.
    let bytes = std::fs::read(dir.join(&files[0])).expect("read");
    let mut r = vdb_rs::VdbReader::new(std::io::Cursor::new(bytes)).expect("vdb-rs opens it");
    assert!(r.available_grids().contains(&"collision".to_string()));
    let g = r.read_grid::<f32>("collision").expect("collision grid");
    let ones = g
        .iter()
        .filter(|(_, v, l)| matches!(l, vdb_rs::VdbLevel::Voxel) && *v == 1.0)
        .count();
    assert_eq!(ones, solid);
    // NumPy (npyz): the mask in (z, y, x) order.
    let bytes = std::fs::read(dir.join(&files[2])).expect("read");
    let arr = npyz::NpyFile::new(&bytes[..]).expect("npy");
    assert_eq!(arr.shape(), &[20, 20, 20]);
    let vals: Vec<f32> = arr.into_vec().expect("f32");
    assert_eq!(vals, mask.iter().map(|&m| f32::from(m)).collect::<Vec<_>>());
    // VTK: a cell array named collision.
    let text = std::fs::read_to_string(dir.join(&files[3])).expect("read");
    let doc = roxmltree::Document::parse(&text).expect("XML");
    assert!(doc
        .descendants()
        .any(|n| n.has_tag_name("DataArray") && n.attribute("Name") == Some("collision")));
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn a_mesh_emitter_fills_its_volume_or_coats_its_surface() {
    let n = 32;
    let (v, f) = icosphere(3);
    let path = tmp("emitter_sphere.obj");
    write_obj(&path, &v, &f);
    let r = 0.25f32;
    let amount = |surface: bool| {
        let mut s = solver(n);
        let mut e = Emitter::sphere([0.5; 3], 0.1, 5.0);
        e.shape = ShapeKind::Mesh;
        e.radius = None;
        e.file = Some(path.to_string_lossy().into_owned());
        e.scale = Some(Scale::Uniform(r));
        e.emit = if surface {
            plume::sim::EmitFrom::Surface
        } else {
            plume::sim::EmitFrom::Volume
        };
        s.set_emitters(vec![e]).expect("emitter");
        s.step();
        // Smoke by distance from the centre: the core (< r/2) and the shell (within a cell
        // of r).
        let h = 1.0 / n as f32;
        let d = s.dims();
        let (mut core, mut shell) = (0.0f32, 0.0f32);
        for k in 0..n {
            for j in 0..n {
                for i in 0..n {
                    let p = [i, j, k].map(|x| (x as f32 + 0.5) * h - 0.5);
                    let dist = (p[0] * p[0] + p[1] * p[1] + p[2] * p[2]).sqrt();
                    let v = s.density()[d.idx(i, j, k)];
                    if dist < 0.5 * r {
                        core += v;
                    } else if (dist - r).abs() <= h {
                        shell += v;
                    }
                }
            }
        }
        (core, shell)
    };
    let (core, shell) = amount(false);
    assert!(
        core > 0.0 && shell > 0.0,
        "volume: core {core}, shell {shell}"
    );
    let (core, shell) = amount(true);
    assert!(
        core == 0.0 && shell > 0.0,
        "surface: core {core}, shell {shell}"
    );
}

#[test]
fn a_box_sliding_along_the_floor_lets_nothing_through_the_walls() {
    let n = 24;
    let mut s = solver(n);
    // Resting on the floor (its lowest cells touch y = 0), sliding along x, and turning
    // about z so its faces push against the floor too.
    let mut b = Obstacle::cuboid([0.3, 0.1, 0.5], [0.2, 0.2, 0.2]);
    b.keys = vec![
        key(0.0, [0.3, 0.1, 0.5]),
        Key {
            time: 1.0,
            position: Some([0.7, 0.1, 0.5]),
            rotation: Some([0.0, 0.0, 20.0]),
            ..Key::default()
        },
    ];
    s.set_obstacles(vec![b]).expect("obstacles");
    for _ in 0..20 {
        s.step();
    }
    let d = s.dims();
    let fy = d.faces(1);
    let mut worst = 0.0f32;
    for k in 0..d.nz {
        for i in 0..d.nx {
            worst = worst.max(s.velocity(1)[fy.idx(i, 0, k)].abs());
            worst = worst.max(s.velocity(1)[fy.idx(i, d.ny, k)].abs());
        }
    }
    assert_eq!(worst, 0.0, "flow through the floor or the ceiling");
    assert!(
        s.velocity(0).iter().any(|&u| u.abs() > 0.1),
        "the box moved no air"
    );
}

#[test]
fn no_mesh_file_makes_the_reader_panic() {
    // Every prefix of a valid OBJ, binary STL and ASCII STL, and pseudo-random bytes under
    // both names: each is a mesh or an error, never a panic.
    let (v, f) = box_mesh([-1.0; 3], [1.0; 3]);
    let mut cases: Vec<(String, Vec<u8>)> = Vec::new();
    for (ext, write) in [
        ("obj", write_obj as fn(&Path, &[[f64; 3]], &[[usize; 3]])),
        ("stl", write_stl_binary),
        ("stl", write_stl_ascii),
    ] {
        let p = tmp(&format!("whole.{ext}"));
        write(&p, &v, &f);
        let bytes = std::fs::read(&p).expect("read");
        for cut in (0..bytes.len()).step_by(7) {
            cases.push((ext.to_string(), bytes[..cut].to_vec()));
        }
    }
    let mut x = 12345u32;
    for len in [1usize, 5, 84, 134, 500, 4096] {
        let junk: Vec<u8> = (0..len)
            .map(|_| {
                x = x.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
                (x >> 24) as u8
            })
            .collect();
        cases.push(("obj".into(), junk.clone()));
        cases.push(("stl".into(), junk));
    }
    let (mut ok, mut refused) = (0, 0);
    for (i, (ext, bytes)) in cases.iter().enumerate() {
        let p = tmp(&format!("case{i}.{ext}"));
        std::fs::write(&p, bytes).expect("write");
        match std::panic::catch_unwind(|| plume::geometry::mesh::Mesh::load(&p)) {
            Ok(Ok(_)) => ok += 1,
            Ok(Err(e)) => {
                assert!(e.to_string().contains(&format!("case{i}.{ext}")), "{e}");
                refused += 1
            }
            Err(_) => panic!(
                "reading case {i} ({} bytes of .{ext}) panicked",
                bytes.len()
            ),
        }
        std::fs::remove_file(&p).ok();
    }
    println!("{ok} read, {refused} refused");
    assert!(refused > 0 && ok > 0);
}
