"""Runs read back from Python (plume.open_run): the arrays NumPy reads from the .npy files,
the same from .vdb and from z-up files, frames by position and by number, renders that match
the simulation's, a run followed as it is written, and every folder or file Plume did not
write refused with its name."""

import json

import numpy as np
import plume
import pytest


def write(cli, path, out, *extra):
    cli(
        "run",
        "--scene",
        path,
        "--backend",
        "cpu",
        "--frames",
        "3",
        "--every",
        "2",
        "--out",
        out,
        *extra,
    )


def test_npy_frames_read_back_as_numpy_reads_their_files(tmp_path, cli, small_scene):
    _, path = small_scene
    out = tmp_path / "run"
    write(cli, path, out, "--format", "npy", "--fields", "density,temperature,velocity")
    run = plume.open_run(out)
    manifest = json.loads((out / "manifest.json").read_text())
    assert len(run) == 3 and run.format == "npy"
    assert run.fields == ["density", "temperature", "velocity"]
    listed = [{k: f[k] for k in ("frame", "step", "time")} for f in manifest["frames"]]
    assert run.frames == listed
    assert run.dims == tuple(manifest["dims"]) and run.every == 2 and run.up == "y"
    assert run.scene["grid.dims"] == plume.Scene.load(path)["grid.dims"]
    for i, frame in enumerate(run):
        n = frame["frame"]
        assert n == i + 1 and frame["step"] == 2 * n
        for field in ("density", "temperature", "velocity"):
            want = np.load(out / f"plume_{field}_{n:04d}.npy")
            assert frame[field].dtype == np.float32
            assert np.array_equal(frame[field], want), (n, field)
    assert run[-1]["frame"] == 3 and run[0]["frame"] == 1
    with pytest.raises(IndexError, match="out of range"):
        run[3]
    only = run.frame(2, fields="density")
    assert set(only) == {"frame", "step", "time", "density"} and only["frame"] == 2
    with pytest.raises(ValueError, match="did not write flame"):
        run.frame(2, fields=["flame"])
    with pytest.raises(IndexError, match="no frame 7: it lists 3 frames, numbered 1 to 3"):
        run.frame(7)
    assert "3 frames of scene 'plume'" in repr(run)


def test_vdb_and_z_up_runs_give_the_same_arrays(tmp_path, cli, small_scene):
    _, path = small_scene
    fields = ("--fields", "density,velocity")
    write(cli, path, tmp_path / "npy", "--format", "npy", *fields)
    write(cli, path, tmp_path / "vdb", *fields)
    write(cli, path, tmp_path / "z", "--format", "vdb,npy", "--up", "z", *fields)
    exact, vdb, z = (plume.open_run(tmp_path / d) for d in ("npy", "vdb", "z"))
    assert vdb.format == "vdb" and z.format == "npy" and z.up == "z"
    for a, b, c in zip(exact, vdb, z):
        for field in ("density", "velocity"):
            assert b[field].shape == a[field].shape
            # .vdb leaves out leaves whose values are all at or under 1e-6.
            assert np.abs(b[field] - a[field]).max() <= 1e-6, field
            # The z-up files hold the frame turned; it is read back y up, bit for bit.
            assert np.array_equal(c[field], a[field]), field
        assert a["density"].max() > 0.01


def test_a_run_renders_as_the_simulation_at_its_step(tmp_path, small_scene):
    scene, _ = small_scene
    sim = plume.Simulation(scene, backend="cpu")
    for _ in range(2):
        sim.step(3)
        sim.export(tmp_path / "run", format="npy", fields="density,temperature,flame")
    run = plume.open_run(tmp_path / "run")
    assert [f["step"] for f in run.frames] == [3, 6]
    assert np.array_equal(run[-1]["density"], sim.density)
    assert np.array_equal(run.render(-1, 160, 120), sim.render(160, 120))
    assert not np.array_equal(run.render(1, 160, 120), sim.render(160, 120))


def test_a_run_being_written_is_followed_with_refresh(tmp_path, small_scene):
    scene, _ = small_scene
    sim = plume.Simulation(scene, backend="cpu")
    out = tmp_path / "run"
    sim.step(2)
    sim.export(out, format="npy", fields="density")
    run = plume.open_run(out)
    assert len(run) == 1 and run.refresh() == 0
    for _ in range(2):
        sim.step(2)
        sim.export(out, format="npy", fields="density")
    assert len(run) == 1, "what was opened, until refreshed"
    assert run.refresh() == 2
    assert [f["step"] for f in run] == [2, 4, 6]
    assert np.array_equal(run[-1]["density"], sim.density)
    # Another run over it (once this one's writer has let the folder go): refused, and
    # the run keeps its frames.
    del sim
    plume.Simulation(scene, backend="cpu").export(out, format="npy", overwrite=True)
    with pytest.raises(ValueError, match="was replaced since it was opened"):
        run.refresh()
    assert len(run) == 3


def test_what_plume_did_not_write_is_refused(tmp_path, cli, small_scene):
    _, path = small_scene
    with pytest.raises(FileNotFoundError, match="no such folder"):
        plume.open_run(tmp_path / "nothing")
    (tmp_path / "empty").mkdir()
    with pytest.raises(FileNotFoundError, match=r"no manifest\.json"):
        plume.open_run(tmp_path / "empty")
    out = tmp_path / "run"
    write(cli, path, out)
    manifest = (out / "manifest.json").read_text()
    (out / "manifest.json").write_text(manifest[:100])
    with pytest.raises(ValueError, match="does not read as Plume's"):
        plume.open_run(out)
    (out / "manifest.json").write_text(manifest)
    run = plume.open_run(out)
    with open(out / "plume_0002.vdb", "ab") as f:
        f.write(b"\0")
    with pytest.raises(OSError, match=r"plume_0002\.vdb: it has changed since Plume wrote it"):
        run[1]
    (out / "plume_0003.vdb").unlink()
    with pytest.raises(FileNotFoundError, match=r"plume_0003\.vdb: it is missing"):
        run.frame(3)
    assert run[0]["density"].max() > 0
