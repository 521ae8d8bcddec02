"""Shared fixtures: the `plume` binary the Python results are compared with, and a runner."""

import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def plume_binary() -> pathlib.Path:
    """The command-line binary built from the same tree (`PLUME_BIN` or target/release)."""
    return pathlib.Path(os.environ.get("PLUME_BIN", ROOT / "target" / "release" / "plume"))


@pytest.fixture(scope="session")
def plume_bin() -> pathlib.Path:
    path = plume_binary()
    if not path.exists():
        # Never a silent skip: the comparisons with the command line are the point.
        pytest.fail(f"{path} is missing: build it first (cargo build --release)")
    return path


@pytest.fixture
def cli(plume_bin):
    """Runs `plume ARGS...`; returns the completed process (stdout and stderr as text)."""

    def run(*args, check=True, env=None):
        merged = dict(os.environ, **(env or {}))
        p = subprocess.run(
            [str(plume_bin), *map(str, args)], capture_output=True, text=True, env=merged
        )
        if check and p.returncode != 0:
            raise AssertionError(f"plume {' '.join(map(str, args))} failed:\n{p.stderr}")
        return p

    return run


@pytest.fixture
def small_scene(tmp_path):
    """The default scene on a 24-cell grid, saved as a file; returns (scene, path)."""
    import plume

    scene = plume.Scene.preset("plume").with_size(24)
    path = tmp_path / "small.toml"
    scene.save(path)
    return scene, path
