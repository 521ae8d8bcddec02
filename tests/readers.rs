//! Exported files opened by the readers other tools use, through Debian's Python bindings
//! (installed by `.ci/run`): `.vdb` by OpenVDB 10 (`python3-openvdb`, what Blender and Houdini
//! link), `.vti` by VTK's `vtkXMLImageDataReader` (`python3-vtk9`, what ParaView uses), and
//! `.npy` by NumPy; compared voxel by voxel.

use plume::export::{self, ExportOptions, Format};
use plume::frame::Frame;
use plume::sim::{Dims, Grid};
use std::process::Command;

/// Debian's Python, where the python3-openvdb and python3-vtk9 bindings live.
fn python() -> Command {
    let exe = if std::path::Path::new("/usr/bin/python3").exists() {
        "/usr/bin/python3"
    } else {
        "python3"
    };
    let mut c = Command::new(exe);
    c.env("PYTHONPATH", "/usr/lib/python3/dist-packages");
    c
}

const CHECK: &str = r#"
import sys, json
import numpy as np
import pyopenvdb as vdb
path, dens_npy, vel_npy, h, ox, oy, oz, half = sys.argv[1:9]
h = float(h); half = half == "1"
grids, meta = vdb.readAll(path)
by_name = {g.name: g for g in grids}
assert set(by_name) == {"density", "velocity"}, list(by_name)
dens = np.load(dens_npy)            # (nz, ny, nx)
vel = np.load(vel_npy)              # (nz, ny, nx, 3)
nz, ny, nx = dens.shape
tol = 1e-3 if half else 0.0
for name, want, kind in (("density", dens, "float"), ("velocity", vel, "vec3s")):
    g = by_name[name]
    assert g.gridClass == vdb.GridClass.FOG_VOLUME, g.gridClass
    assert g.valueTypeName == kind, g.valueTypeName
    assert g.metadata["name"] == name
    vs = g.transform.voxelSize()
    assert all(abs(v - h) < 1e-7 for v in vs), vs
    w = g.transform.indexToWorld((0, 0, 0))
    assert max(abs(w[0] - (float(ox) + h / 2)), abs(w[1] - (float(oy) + h / 2)), abs(w[2] - (float(oz) + h / 2))) < 1e-6, w
    shape = (nx, ny, nz) + ((3,) if kind == "vec3s" else ())
    arr = np.zeros(shape, dtype=np.float32)
    g.copyToArray(arr, ijk=(0, 0, 0))          # arr[i, j, k]
    got = np.transpose(arr, (2, 1, 0, 3) if kind == "vec3s" else (2, 1, 0))
    err = np.abs(got - want).max()
    assert err <= tol * max(1.0, np.abs(want).max()), (name, err)
    nonzero = int(np.count_nonzero(np.any(want != 0, axis=-1) if kind == "vec3s" else want != 0))
    assert g.activeVoxelCount() == nonzero, (name, g.activeVoxelCount(), nonzero)
print("OK")
"#;

fn frame() -> Frame {
    let d = Dims::new(19, 23, 11);
    let mut density = vec![0.0f32; d.cells()];
    let mut velocity = vec![[0.0f32; 3]; d.cells()];
    for k in 0..d.nz {
        for j in 0..d.ny {
            for i in 0..d.nx {
                let c = d.idx(i, j, k);
                let r2 =
                    (i as f32 - 12.0).powi(2) + (j as f32 - 9.0).powi(2) + (k as f32 - 5.0).powi(2);
                if r2 < 40.0 {
                    density[c] = 0.5 + 0.013 * (i + 2 * j + 5 * k) as f32;
                    velocity[c] = [0.1 * i as f32, -0.05 * j as f32, 0.3 + k as f32];
                }
            }
        }
    }
    Frame {
        density: Some(density),
        velocity: Some(velocity),
        ..Frame::empty(
            Grid {
                dims: d,
                h: 0.04,
                origin: [0.2, -0.1, 0.0],
            },
            1,
            0.1,
        )
    }
}

/// Runs `CHECK`: OpenVDB reads `vdb` as the arrays in `density` and `velocity` (.npy) of
/// `f`'s grid, exactly or (`half`) to half precision.
fn openvdb_check(
    f: &Frame,
    vdb: &std::path::Path,
    density: &std::path::Path,
    velocity: &std::path::Path,
    half: bool,
) -> std::process::Output {
    python()
        .arg("-c")
        .arg(CHECK)
        .args([vdb, density, velocity])
        .args([
            f.grid.h.to_string(),
            f.grid.origin[0].to_string(),
            f.grid.origin[1].to_string(),
            f.grid.origin[2].to_string(),
        ])
        .arg(if half { "1" } else { "0" })
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3: {e}"))
}

#[test]
fn openvdb_reads_our_files_voxel_for_voxel() {
    let f = frame();
    for half in [false, true] {
        let dir = std::env::temp_dir().join(format!("plume-openvdb-{half}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let opts = ExportOptions {
            formats: vec![Format::Vdb, Format::Npy],
            half,
            cutoff: 0.0,
            ..ExportOptions::default()
        };
        let files = export::write_frame(&dir, 1, &f, &opts).expect("write");
        let out = openvdb_check(
            &f,
            &dir.join(&files[0]),
            &dir.join(&files[1]),
            &dir.join(&files[2]),
            half,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.trim() == "OK",
            "OpenVDB check failed (half = {half}); the test needs Debian's python3-openvdb and python3-numpy:\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        // Plume's own reader (what `render --run`, `view --run` and `plume.open_run` use)
        // reads the file as OpenVDB does: exactly, half precision included.
        let d = f.grid.dims;
        let grids = plume::export::vdb_read::decode(
            &std::fs::read(dir.join(&files[0])).expect("vdb"),
            d.as_array(),
            &|_| true,
        )
        .expect("Plume reads its file");
        let mine = dir.join("mine");
        std::fs::create_dir_all(&mine).expect("dir");
        for g in &grids {
            let mut shape = vec![d.nz, d.ny, d.nx];
            if g.components == 3 {
                shape.push(3);
            }
            let mut file =
                std::fs::File::create(mine.join(format!("{}.npy", g.name))).expect("npy");
            plume::export::npy::write_f32(&mut file, &shape, &g.values).expect("npy");
        }
        let out = openvdb_check(
            &f,
            &dir.join(&files[0]),
            &mine.join("density.npy"),
            &mine.join("velocity.npy"),
            false,
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success() && stdout.trim() == "OK",
            "OpenVDB and Plume's reader read the file differently (half = {half}):\n{stdout}\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}

const VTK_CHECK: &str = r#"
import sys
import numpy as np
import vtk
from vtk.util.numpy_support import vtk_to_numpy
path, dens_npy, vel_npy, h, ox, oy, oz = sys.argv[1:8]
r = vtk.vtkXMLImageDataReader()
r.SetFileName(path)
r.Update()
img = r.GetOutput()
dens = np.load(dens_npy)
vel = np.load(vel_npy)
nz, ny, nx = dens.shape
assert img.GetDimensions() == (nx + 1, ny + 1, nz + 1), img.GetDimensions()
assert all(abs(s - float(h)) < 1e-6 for s in img.GetSpacing()), img.GetSpacing()
assert all(abs(a - float(b)) < 1e-6 for a, b in zip(img.GetOrigin(), (ox, oy, oz))), img.GetOrigin()
cd = img.GetCellData()
d = vtk_to_numpy(cd.GetArray("density"))
v = vtk_to_numpy(cd.GetArray("velocity"))
assert np.array_equal(d, dens.ravel()), "density differs"
assert v.shape == (nx * ny * nz, 3), v.shape
assert np.array_equal(v, vel.reshape(-1, 3)), "velocity differs"
assert cd.GetScalars().GetName() == "density" and cd.GetVectors().GetName() == "velocity"
print("OK")
"#;

#[test]
fn vtk_reads_our_image_data_value_for_value() {
    let f = frame();
    let dir = std::env::temp_dir().join(format!("plume-vtk-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = ExportOptions {
        formats: vec![Format::Vti, Format::Npy],
        ..ExportOptions::default()
    };
    let files = export::write_frame(&dir, 1, &f, &opts).expect("write");
    let out = python()
        .arg("-c")
        .arg(VTK_CHECK)
        .args(files.iter().map(|n| dir.join(n)))
        .args([
            f.grid.h.to_string(),
            f.grid.origin[0].to_string(),
            f.grid.origin[1].to_string(),
            f.grid.origin[2].to_string(),
        ])
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.trim() == "OK",
        "VTK check failed; the test needs Debian's python3-vtk9 and python3-numpy:\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// Reads a `.vtp` of streamlines with VTK; prints the numbers of lines and points and each
/// line's point count, and checks the speed array.
const VTP_CHECK: &str = r#"
import sys
import vtk
from vtk.util.numpy_support import vtk_to_numpy
r = vtk.vtkXMLPolyDataReader()
r.SetFileName(sys.argv[1])
r.Update()
pd = r.GetOutput()
speed = vtk_to_numpy(pd.GetPointData().GetArray("speed"))
assert pd.GetPointData().GetScalars().GetName() == "speed"
assert len(speed) == pd.GetNumberOfPoints()
lines = pd.GetLines()
lines.InitTraversal()
ids = vtk.vtkIdList()
counts = []
while lines.GetNextCell(ids):
    counts.append(ids.GetNumberOfIds())
print(pd.GetNumberOfLines(), pd.GetNumberOfPoints(), " ".join(map(str, counts)), float(speed.max()))
"#;

#[test]
fn vtk_reads_our_streamlines_with_the_right_lines_and_points() {
    let scene = plume::scene::Scene::preset("wind_tunnel")
        .expect("preset")
        .with_resolution(32);
    let mut s = scene.build().expect("builds");
    for _ in 0..20 {
        s.try_step().expect("finite");
    }
    let opts = ExportOptions {
        formats: vec![Format::Vtp],
        streamline_count: 24,
        ..ExportOptions::default()
    };
    let f = export::capture(&s, &opts);
    let lines = f.streamlines.clone().expect("traced");
    assert!(lines.len() >= 10, "{} lines", lines.len());
    let dir = std::env::temp_dir().join(format!("plume-vtp-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let files = export::write_frame(&dir, 1, &f, &opts).expect("write");
    assert_eq!(files, vec!["plume_0001.vtp".to_string()]);
    let out = python()
        .arg("-c")
        .arg(VTP_CHECK)
        .arg(dir.join(&files[0]))
        .output()
        .unwrap_or_else(|e| panic!("cannot run python3: {e}"));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "VTK could not read the .vtp (needs python3-vtk9):\n{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let parts: Vec<&str> = stdout.split_whitespace().collect();
    let points: usize = lines.iter().map(|l| l.points.len()).sum();
    assert_eq!(parts[0], lines.len().to_string(), "{stdout}");
    assert_eq!(parts[1], points.to_string(), "{stdout}");
    let per: Vec<String> = lines.iter().map(|l| l.points.len().to_string()).collect();
    assert_eq!(&parts[2..2 + per.len()], &per[..], "points per line");
    let vmax = lines
        .iter()
        .flat_map(|l| l.speed.iter().copied())
        .fold(0.0f32, f32::max);
    let read: f32 = parts[2 + per.len()].parse().expect("speed");
    assert!(
        (read - vmax).abs() <= 1e-6 * vmax.max(1.0),
        "{read} vs {vmax}"
    );
    std::fs::remove_dir_all(&dir).ok();
}
