"""Runs from Python: the same folder as `plume run`, resumable by it, with its folder rules,
Ctrl-C between steps, and Simulation.export through the same writer."""

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import plume
import pytest


def files(folder):
    return sorted(p.name for p in folder.iterdir() if p.name != ".plume.lock")


def test_plume_run_writes_what_plume_run_writes(tmp_path, cli, small_scene):
    scene, path = small_scene
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
        "--format",
        "npy,vti",
        "--fields",
        "density,velocity",
        "--out",
        tmp_path / "cli",
    )
    result = plume.run(
        scene,
        frames=3,
        every=2,
        out=tmp_path / "py",
        formats=["npy", "vti"],
        fields=["density", "velocity"],
        backend="cpu",
    )
    assert result["written"] == 3 and result["backend"] == "cpu"
    assert files(tmp_path / "cli") == files(tmp_path / "py")
    for name in files(tmp_path / "cli"):
        a = (tmp_path / "cli" / name).read_bytes()
        b = (tmp_path / "py" / name).read_bytes()
        if name == "manifest.json":
            ma, mb = json.loads(a), json.loads(b)
            assert ma["frames"] == mb["frames"]
        else:
            assert a == b, name


def test_a_python_run_is_resumed_by_the_command_line(tmp_path, cli, small_scene):
    scene, path = small_scene
    plume.run(scene, frames=2, every=2, out=tmp_path / "run", formats="npy", backend="cpu")
    p = cli(
        "run",
        "--scene",
        path,
        "--backend",
        "cpu",
        "--frames",
        "4",
        "--every",
        "2",
        "--format",
        "npy",
        "--resume",
        "--out",
        tmp_path / "run",
    )
    assert "resuming after frame 2 of 4" in p.stderr
    cli(
        "run",
        "--scene",
        path,
        "--backend",
        "cpu",
        "--frames",
        "4",
        "--every",
        "2",
        "--format",
        "npy",
        "--out",
        tmp_path / "whole",
    )
    for n in range(1, 5):
        name = f"plume_density_{n:04}.npy"
        assert np.array_equal(np.load(tmp_path / "run" / name), np.load(tmp_path / "whole" / name))
    # And the other way: the command line's run continued from Python.
    cli(
        "run",
        "--scene",
        path,
        "--backend",
        "cpu",
        "--frames",
        "1",
        "--every",
        "2",
        "--format",
        "npy",
        "--out",
        tmp_path / "half",
    )
    r = plume.run(
        scene, frames=4, every=2, out=tmp_path / "half", formats="npy", backend="cpu", resume=True
    )
    assert r["resumed_after"] == 1 and r["written"] == 3
    assert np.array_equal(
        np.load(tmp_path / "half" / "plume_density_0004.npy"),
        np.load(tmp_path / "whole" / "plume_density_0004.npy"),
    )


def test_folders_are_refused_as_the_command_line_refuses_them(tmp_path, small_scene):
    scene, _ = small_scene
    out = tmp_path / "out"
    plume.run(scene, frames=1, out=out, formats="npy", backend="cpu")
    with pytest.raises(FileExistsError, match="overwrite=True"):
        plume.run(scene, frames=1, out=out, formats="npy", backend="cpu")
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "plume_density_0001.npy").write_bytes(b"my own data")
    with pytest.raises(FileExistsError, match="cannot prove it wrote"):
        plume.run(scene, frames=1, out=mine, formats="npy", backend="cpu", overwrite=True)
    assert (mine / "plume_density_0001.npy").read_bytes() == b"my own data"
    r = plume.run(scene, frames=2, out=out, formats="npy", backend="cpu", overwrite=True)
    assert r["written"] == 2
    with pytest.raises(ValueError, match="choose one"):
        plume.run(scene, frames=1, out=out, resume=True, overwrite=True)
    with pytest.raises(ValueError, match="unknown"):
        plume.run(scene, frames=1, out=tmp_path / "x", formats="tiff")
    with pytest.raises(ValueError):
        plume.run(scene, frames=1, out=tmp_path / "x", fields=["smoke"])


def test_progress_is_reported_per_frame(tmp_path, small_scene):
    scene, _ = small_scene
    seen = []
    plume.run(
        scene,
        frames=3,
        out=tmp_path / "p",
        formats="npy",
        backend="cpu",
        progress=lambda n, total, t: seen.append((n, total, round(t, 4))),
    )
    dt = scene["fluid.dt"]
    assert seen == [(n, 3, round(n * dt, 4)) for n in (1, 2, 3)]


def test_ctrl_c_leaves_the_folder_as_plume_run_leaves_it(tmp_path, cli, small_scene):
    _scene, path = small_scene
    out = tmp_path / "stopped"
    code = (
        "import sys, plume\n"
        "scene = plume.Scene.load(sys.argv[1])\n"
        "try:\n"
        "    plume.run(scene, frames=400, every=4, out=sys.argv[2], formats='npy', backend='cpu',\n"
        "              progress=lambda n, total, t: print('frame', n, flush=True))\n"
        "except KeyboardInterrupt as e:\n"
        "    print('KeyboardInterrupt:', e, flush=True)\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code, str(path), str(out)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    line = p.stdout.readline()
    assert line.startswith("frame"), line + p.stderr.read()
    time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    stdout, stderr = p.communicate(timeout=60)
    assert p.returncode == 0, stderr
    assert "KeyboardInterrupt: interrupted by Ctrl-C" in stdout, stdout + stderr
    assert "resume=True continues the run" in stdout
    manifest = json.loads((out / "manifest.json").read_text())
    held = len(manifest["frames"])
    assert held >= 1
    assert not [
        f for f in os.listdir(out) if ".tmp" in f or (f.startswith(".") and f != ".plume.lock")
    ], "no temporaries left"
    names = {f for f in os.listdir(out) if f.endswith(".npy")}
    assert len(names) == 2 * held, "every listed frame whole, nothing else"
    done = cli(
        "run",
        "--scene",
        path,
        "--backend",
        "cpu",
        "--frames",
        str(held + 2),
        "--every",
        "4",
        "--format",
        "npy",
        "--resume",
        "--out",
        out,
    )
    assert f"resuming after frame {held}" in done.stderr


def test_export_appends_frames_to_a_run_folder(tmp_path, small_scene):
    scene, _ = small_scene
    sim = plume.Simulation(scene, backend="cpu")
    out = tmp_path / "snap"
    for _ in range(3):
        sim.step(2)
        written = sim.export(out, format=["npy", "vdb"], fields=["density"])
        assert all(p.exists() for p in written)
    manifest = json.loads((out / "manifest.json").read_text())
    assert [f["frame"] for f in manifest["frames"]] == [1, 2, 3]
    assert np.array_equal(np.load(out / "plume_density_0003.npy"), sim.density)
    with pytest.raises(OSError, match="being written"):
        plume.Simulation(scene, backend="cpu").export(out, format="npy", fields=["density"])
    del sim  # lets go of the folder
    with pytest.raises(FileExistsError, match="overwrite=True"):
        plume.Simulation(scene, backend="cpu").export(out, format="npy", fields=["density"])
