"""Wedges from Python, here and on a real Dask cluster (LocalCluster, worker processes): the
same folder as `plume wedge`, a worker killed mid-variant, a variant failing on its own, one
driver a folder."""

import filecmp
import json
import os
import signal
import subprocess
import sys
import threading
import time

import plume
import pytest

VARY = {"fluid.vorticity": [0, 3], "emitter.0.temperature": [1.0, 2.0]}
CLI_VARY = ["--vary", "fluid.vorticity=0,3", "--vary", "emitter.0.temperature=1:2:2"]


def cli_wedge(cli, out, frames=3):
    cli(
        "wedge",
        "plume",
        *CLI_VARY,
        "--size",
        "16",
        "--frames",
        frames,
        "--every",
        "4",
        "--format",
        "npy",
        "--backend",
        "cpu",
        "--out",
        out,
    )


def py_wedge(out, frames=3, **kw):
    scene = plume.Scene.preset("plume").with_size(16)
    kw.setdefault("progress", False)
    return plume.wedge(
        scene, VARY, frames=frames, every=4, out=out, formats="npy", backend="cpu", **kw
    )


def same_tree(a, b):
    """Every file under `a` and `b` byte for byte (their lock files aside)."""
    c = filecmp.dircmp(a, b, ignore=[".plume.lock"])
    assert not c.left_only and not c.right_only, (c.left_only, c.right_only)
    _, mismatch, errors = filecmp.cmpfiles(a, b, c.common_files, shallow=False)
    assert not mismatch and not errors, (mismatch, errors)
    for d in c.common_dirs:
        same_tree(os.path.join(a, d), os.path.join(b, d))


@pytest.fixture(scope="module")
def client():
    from dask.distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    )
    c = Client(cluster)
    yield c
    c.close()
    cluster.close()


def test_a_local_wedge_is_the_command_lines(tmp_path, cli):
    cli_wedge(cli, tmp_path / "cli")
    index = py_wedge(tmp_path / "py")
    assert [v["state"] for v in index["variants"]] == ["done"] * 4
    assert index["variants"][1]["values"] == {"fluid.vorticity": 0, "emitter.0.temperature": 2.0}
    same_tree(tmp_path / "cli", tmp_path / "py")


def test_a_wedge_on_a_dask_cluster_is_the_command_lines(tmp_path, cli, client):
    cli_wedge(cli, tmp_path / "cli")
    seen = []
    index = py_wedge(tmp_path / "dask", client=client, progress=seen.append)
    assert [v["state"] for v in index["variants"]] == ["done"] * 4
    assert sorted(e["index"] for e in seen) == [1, 2, 3, 4]
    assert seen[-1]["done"] == 4 and seen[-1]["running"] == 0
    same_tree(tmp_path / "cli", tmp_path / "dask")
    # Both workers took part.
    workers = {w for w in client.run(os.getpid).values()}
    assert len(workers) == 2


def test_a_worker_killed_mid_variant_still_gives_the_whole_wedge(tmp_path, cli, client):
    frames = 40
    cli_wedge(cli, tmp_path / "cli", frames=frames)
    out = tmp_path / "dask"
    result = {}

    def go():
        result["index"] = py_wedge(out, frames=frames, client=client)

    t = threading.Thread(target=go)
    t.start()
    # Once a variant has written a frame, kill the worker running it (SIGKILL: no cleanup).
    deadline = time.time() + 120
    killed = None
    while killed is None and time.time() < deadline:
        for folder in ("v0001", "v0002", "v0003", "v0004"):
            if (out / folder / "plume_density_0002.npy").exists():
                busy = {addr for addr, keys in client.processing().items() if keys}
                pids = client.run(os.getpid)
                victims = [pids[a] for a in busy if a in pids]
                if victims:
                    killed = victims[0]
                    os.kill(killed, signal.SIGKILL)
                break
        time.sleep(0.005)
    assert killed, "no variant was seen running"
    t.join(timeout=300)
    assert not t.is_alive()
    index = result["index"]
    assert [v["state"] for v in index["variants"]] == ["done"] * 4, index
    same_tree(tmp_path / "cli", out)


def test_a_failing_variant_is_reported_while_the_others_complete(tmp_path, client):
    out = tmp_path / "w"
    (out / "v0003").mkdir(parents=True)
    (out / "v0003" / "plume_density_0001.npy").write_bytes(b"not Plume's")
    index = py_wedge(out, client=client)
    states = [v["state"] for v in index["variants"]]
    assert states == ["done", "done", "failed", "done"]
    assert "no Plume manifest lists" in index["variants"][2]["message"]
    assert (out / "v0003" / "plume_density_0001.npy").read_bytes() == b"not Plume's"
    assert (out / "contact.png").exists()
    with pytest.raises(FileExistsError, match="resume=True"):
        py_wedge(out)


def test_refused_values_and_the_shell_entry_point(tmp_path, cli):
    scene = plume.Scene.preset("plume").with_size(16)
    with pytest.raises(ValueError, match=r"\[0, 100\]"):
        plume.wedge(scene, {"fluid.vorticity": [1, 500]}, frames=1, out=tmp_path / "x")
    with pytest.raises(ValueError, match="did you mean"):
        plume.wedge(scene, {"fluid.vortcity": [1]}, frames=1, out=tmp_path / "x")
    assert not (tmp_path / "x" / "wedge.json").exists()
    out = tmp_path / "shell"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "plume.wedge",
            "plume",
            *CLI_VARY,
            "--size",
            "16",
            "--frames",
            "3",
            "--every",
            "4",
            "--format",
            "npy",
            "--backend",
            "cpu",
            "--out",
            str(out),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert "RuntimeWarning" not in p.stderr
    cli_wedge(cli, tmp_path / "cli")
    same_tree(tmp_path / "cli", out)


def test_ctrl_c_on_the_client_cancels_what_is_queued(tmp_path, client):
    out = tmp_path / "w"
    args = [
        sys.executable,
        "-m",
        "plume.wedge",
        "plume",
        "--vary",
        "fluid.vorticity=0:3:8",
        "--size",
        "16",
        "--frames",
        "60",
        "--every",
        "4",
        "--format",
        "npy",
        "--backend",
        "cpu",
        "--out",
        str(out),
        "--scheduler",
        client.scheduler.address,
    ]
    p = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    while not (out / "v0001" / "plume_density_0003.npy").exists():
        assert time.time() < deadline and p.poll() is None, "the wedge did not get going"
        time.sleep(0.005)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=120)
    assert p.returncode == 130, err
    assert "--resume continues" in err
    states = [v["state"] for v in json.loads((out / "wedge.json").read_text())["variants"]]
    assert "interrupted" in states and set(states) <= {"done", "interrupted"}, states
    # Nothing queued starts after the client has gone.
    time.sleep(1.0)
    started = sorted(d.name for d in out.iterdir() if d.is_dir())
    time.sleep(1.0)
    assert sorted(d.name for d in out.iterdir() if d.is_dir()) == started
    assert len(started) < 8, started
    # And --resume completes it.
    r = subprocess.run([*args, "--resume"], capture_output=True, text=True, check=False)
    assert r.returncode == 0, r.stderr
    states = [v["state"] for v in json.loads((out / "wedge.json").read_text())["variants"]]
    assert states == ["done"] * 8


def test_one_driver_a_wedge_folder(tmp_path, cli):
    """While plume.wedge runs a folder, `plume wedge` on it is refused with this process's id
    before it starts a variant; the Python wedge completes and lets the folder go."""
    out = tmp_path / "w"
    result = {}
    t = threading.Thread(target=lambda: result.update(index=py_wedge(out, frames=150)))
    t.start()
    deadline = time.time() + 120
    while not (out / "v0001" / "manifest.json").exists():
        assert time.time() < deadline, "the wedge did not get going"
        time.sleep(0.005)
    p = cli(
        "wedge", "plume", *CLI_VARY, "--size", "16", "--frames", 150, "--every", "4",
        "--format", "npy", "--backend", "cpu", "--out", out, "--resume", check=False,
    )  # fmt: skip
    assert t.is_alive(), "the Python wedge ended before the second driver was tried"
    assert p.returncode != 0
    assert "being written by another plume" in p.stderr, p.stderr
    assert f"process {os.getpid()}" in p.stderr, p.stderr
    assert "variant 1 of 4" not in p.stderr, p.stderr
    # A second plume.wedge in this same process is refused too, and says so.
    with pytest.raises(OSError, match=f"another writer in this process \\({os.getpid()}\\)"):
        py_wedge(out, frames=150, resume=True)
    assert t.is_alive(), "the Python wedge ended before the third driver was tried"
    t.join(timeout=300)
    assert [v["state"] for v in result["index"]["variants"]] == ["done"] * 4
    assert not (out / ".plume.lock").exists()
    # Let go: the command line resumes the finished wedge (nothing left to do).
    p = cli(
        "wedge", "plume", *CLI_VARY, "--size", "16", "--frames", 150, "--every", "4",
        "--format", "npy", "--backend", "cpu", "--out", out, "--resume",
    )  # fmt: skip
    assert "variant 1 of 4" not in p.stderr, p.stderr
