"""Simulations from Python: the same bits as the command line, fields in and out, renders,
statistics, the interpreter lock released, and errors as exceptions."""

import os
import signal
import subprocess
import sys
import threading
import time

import numpy as np
import plume
import pytest


def test_a_step_from_python_gives_the_command_lines_bits(tmp_path, cli, small_scene):
    scene, path = small_scene
    out = tmp_path / "cli"
    cli(
        "run",
        "--scene",
        path,
        "--backend",
        "cpu",
        "--frames",
        "2",
        "--every",
        "3",
        "--format",
        "npy",
        "--fields",
        "density,temperature,velocity",
        "--out",
        out,
    )
    sim = plume.Simulation(scene, backend="cpu")
    for frame in (1, 2):
        sim.step(3)
        for name in ("density", "temperature", "velocity"):
            expected = np.load(out / f"plume_{name}_{frame:04}.npy")
            got = getattr(sim, name)
            assert got.dtype == np.float32 and got.shape == expected.shape, name
            assert np.array_equal(got, expected), f"{name} of frame {frame} differs"
    assert sim.steps == 6 and sim.time == pytest.approx(6 * scene["fluid.dt"])


def test_fields_round_trip_through_set(small_scene):
    scene, _ = small_scene
    sim = plume.Simulation(scene, backend="cpu")
    sim.step(2)
    nx, ny, nz = sim.dims
    rng = np.random.default_rng(7)
    d = rng.random((nz, ny, nx), dtype=np.float32)
    t = rng.random((nz, ny, nx), dtype=np.float32)
    sim.set_density(d)
    sim.set_temperature(t)
    assert np.array_equal(sim.density, d) and np.array_equal(sim.temperature, t)
    u, v, w = (rng.random(a.shape, dtype=np.float32) for a in sim.velocity_faces)
    sim.set_velocity_faces(u, v, w)
    for a, b in zip(sim.velocity_faces, (u, v, w)):
        assert np.array_equal(a, b)
    uniform = np.broadcast_to(np.float32([0.1, -0.2, 0.3]), (nz, ny, nx, 3))
    sim.set_velocity(np.ascontiguousarray(uniform))
    assert np.allclose(sim.velocity, uniform, atol=1e-7)
    # A non-contiguous view is read in its logical order.
    sim.set_density(np.ascontiguousarray(d.T).T)
    assert np.array_equal(sim.density, d)
    before = sim.density.sum()
    sim.step()
    assert sim.density.sum() != before, "the solver goes on from the fields set"


def test_arrays_of_the_wrong_kind_are_refused(small_scene):
    scene, _ = small_scene
    sim = plume.Simulation(scene, backend="cpu")
    nx, ny, nz = sim.dims
    before = sim.density
    with pytest.raises(TypeError, match="float32 array, not float64"):
        sim.set_density(np.zeros((nz, ny, nx)))
    with pytest.raises(ValueError, match=rf"shape \({nz}, {ny}, {nx}\), not \(3, 3\)"):
        sim.set_density(np.zeros((3, 3), np.float32))
    bad = np.zeros((nz, ny, nx), np.float32)
    bad[1, 2, 3] = np.nan
    with pytest.raises(ValueError, match="1 value that is not finite"):
        sim.set_temperature(bad)
    with pytest.raises(ValueError, match="cannot be negative"):
        sim.set_density(np.full((nz, ny, nx), -1.0, np.float32))
    with pytest.raises(TypeError, match="NumPy float32 array"):
        sim.set_density([[0.0]])
    with pytest.raises(ValueError, match=r"shape"):
        sim.set_velocity(np.zeros((nz, ny, nx), np.float32))
    assert np.array_equal(sim.density, before), "nothing changed"


def test_paint_stats_and_reset(small_scene):
    scene, _ = small_scene
    sim = plume.Simulation(scene, backend="cpu")
    sim.paint((0.5, 0.5, 0.5), radius=0.1, density=5.0, velocity=(0.0, 1.0, 0.0))
    assert sim.density.max() > 0
    sim.step(3)
    s = sim.stats()
    assert s["steps"] == 3 and s["backend"] == "cpu"
    assert s["total_ms"] > 0 and s["pressure_iterations"] > 0
    assert {st["name"] for st in s["stages"]} >= {"project", "advect"} or s["stages"]
    assert s["total_density"] > 0
    sim.reset()
    assert sim.steps == 0 and sim.time == 0.0 and sim.density.max() == 0.0
    with pytest.raises(ValueError, match="radius"):
        sim.paint((0.5, 0.5, 0.5), radius=0.0)
    with pytest.raises(ValueError, match="steps cannot be negative"):
        sim.step(-1)


def test_render_matches_plume_render(tmp_path, cli, small_scene):
    from PIL import Image

    scene, path = small_scene
    png = tmp_path / "cli.png"
    cli(
        "render",
        "--scene",
        path,
        "--backend",
        "cpu",
        "--steps",
        "20",
        "--width",
        "160",
        "--height",
        "120",
        "--out",
        png,
    )
    sim = plume.Simulation(scene, backend="cpu")
    sim.step(20)
    img = sim.render(160, 120)
    assert img.shape == (120, 160, 3) and img.dtype == np.uint8
    expected = np.asarray(Image.open(png).convert("RGB"))
    diff = np.abs(img.astype(int) - expected.astype(int))
    assert diff.max() <= 1, f"largest difference {diff.max()}"
    assert img.std() > 2, "a picture, not a flat colour"
    turned = sim.render(160, 120, camera=(120.0, 30.0, 2.0))
    assert not np.array_equal(turned, img)
    with pytest.raises(ValueError, match="width = 0"):
        sim.render(0, 10)
    with pytest.raises(ValueError, match="pitch"):
        sim.render(16, 16, camera=(0.0, 95.0, 2.0))


def test_steps_release_the_interpreter_lock():
    sim = plume.Simulation(plume.Scene.preset("plume").with_size(48), backend="cpu")
    sim.step()
    ticks = []
    stop = threading.Event()

    def count():
        while not stop.is_set():
            ticks.append(1)
            time.sleep(0.001)

    thread = threading.Thread(target=count)
    thread.start()
    time.sleep(0.02)
    before = len(ticks)
    sim.step(20)
    during = len(ticks) - before
    stop.set()
    thread.join()
    assert during > 5, f"the other thread ran {during} times during 20 steps"


def test_backends_and_upres():
    scene = plume.Scene.preset("plume").with_size(16)
    with pytest.raises(ValueError, match="unknown backend"):
        plume.Simulation(scene, backend="tpu")
    with pytest.raises(ValueError, match="upres"):
        plume.Simulation(scene, upres=5)
    with pytest.raises(ValueError, match=r"upres = -1 is outside the allowed range 0\.\.=4"):
        plume.Simulation(scene, upres=-1)
    fine = plume.Simulation(scene, backend="cpu", upres=2)
    fine.step()
    nx, ny, nz = fine.dims
    assert fine.density.shape == (2 * nz, 2 * ny, 2 * nx)
    gpu = plume.Simulation(scene, backend="gpu")  # llvmpipe runs compute shaders
    cpu = plume.Simulation(scene, backend="cpu")
    gpu.step(5)
    cpu.step(5)
    assert gpu.backend == "gpu"
    top = cpu.density.max()
    assert np.abs(gpu.density - cpu.density).max() <= 0.01 * top


def test_no_gpu_is_a_runtime_error_naming_the_way_out():
    code = (
        "import plume\n"
        "try:\n"
        "    plume.Simulation(plume.Scene().with_size(8), backend='gpu')\n"
        "except RuntimeError as e:\n"
        "    print('RuntimeError:', e)\n"
        "s = plume.Simulation(plume.Scene().with_size(8))\n"
        "print('auto:', s.backend, s.why)\n"
    )
    env = dict(
        os.environ, MESA_GL_VERSION_OVERRIDE="3.3", MESA_EXTENSION_OVERRIDE="-GL_ARB_compute_shader"
    )
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    assert "RuntimeError:" in p.stdout and "no compute shaders" in p.stdout, p.stdout
    assert 'backend="cpu"' in p.stdout, p.stdout
    assert "auto: cpu" in p.stdout, p.stdout


def test_a_wrong_experiment_switch_is_a_runtime_error_naming_it():
    code = (
        "import plume\n"
        "scene = plume.Scene().with_size(8)\n"
        "try:\n"
        "    plume.Simulation(scene, backend='gpu')\n"
        "except RuntimeError as e:\n"
        "    print('gpu RuntimeError:', e)\n"
        "sim = plume.Simulation(scene, backend='cpu')\n"
        "sim.step()\n"
        "try:\n"
        "    sim.render(32, 24)\n"
        "except RuntimeError as e:\n"
        "    print('render RuntimeError:', e)\n"
    )
    env = dict(os.environ, PLUME_GPU_WG="500", PLUME_RENDER_SKIP_EMPTY="no")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert p.returncode == 0, p.stderr
    lines = p.stdout.splitlines()
    gpu = [ln for ln in lines if ln.startswith("gpu RuntimeError:")]
    assert gpu and "PLUME_GPU_WG" in gpu[0] and "power of two from 32 to 1024" in gpu[0], p.stdout
    render = [ln for ln in lines if ln.startswith("render RuntimeError:")]
    assert render and "PLUME_GPU_WG" in render[0], p.stdout


def test_a_panic_is_a_runtime_error():
    with pytest.raises(RuntimeError, match="internal error in Plume"):
        plume._plume._panic_for_test()


def test_a_costly_scene_is_said_once_as_a_warning():
    scene = plume.Scene.preset("plume").with_size(16)
    scene["fluid.pressure_method"] = "red_black_sor"
    scene["fluid.pressure_tolerance"] = 1e-7
    scene["fluid.pressure_max_iterations"] = 10000
    scene["fluid.max_substeps"] = 100
    scene["emitter.0.velocity"] = (0.0, 2000.0, 0.0)
    assert scene.notes(), "the scene is dear enough for a note"
    with pytest.warns(UserWarning, match="times the default scene"):
        plume.Simulation(scene, backend="cpu")


def test_ctrl_c_stops_a_long_step_call_between_steps():
    code = (
        "import plume\n"
        "sim = plume.Simulation(plume.Scene().with_size(24), backend='cpu')\n"
        "print('ready', flush=True)\n"
        "try:\n"
        "    sim.step(1_000_000)\n"
        "except KeyboardInterrupt:\n"
        "    print('stopped after', sim.steps, flush=True)\n"
    )
    p = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert p.stdout.readline().strip() == "ready"
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 0, err
    steps = int(out.split("stopped after")[1])
    assert 0 < steps < 1_000_000
