"""docs/python.md: its reference is what the docstrings generate, its worked example runs, and
the type stubs name exactly what the module has."""

import ast
import os
import pathlib
import re
import subprocess
import sys

import plume

ROOT = pathlib.Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "python.md"
STUBS = ROOT / "crates" / "plume-py" / "python" / "plume" / "__init__.pyi"
sys.path.insert(0, str(ROOT / "crates" / "plume-py" / "tools"))

import reference  # noqa: E402


def test_the_reference_is_generated_from_the_docstrings():
    text = PAGE.read_text()
    begin, end = text.index(reference.BEGIN), text.index(reference.END) + len(reference.END)
    generated = reference.reference().rstrip("\n")
    if os.environ.get("PLUME_BLESS") == "1":
        PAGE.write_text(text[:begin] + generated + text[end:])
        return
    assert text[begin:end] == generated, (
        "docs/python.md's reference differs from the docstrings: "
        "PLUME_BLESS=1 pytest crates/plume-py/tests/test_docs.py rewrites it"
    )


def test_the_worked_example_runs_and_draws(tmp_path):
    text = PAGE.read_text()
    section = text[text.index("## A worked example") :]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    env = dict(os.environ, MPLBACKEND="Agg")
    p = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert p.returncode == 0, p.stderr
    up = float(re.search(r"centroid is ([0-9.]+) units up", p.stdout).group(1))
    assert up > 0.2, f"the smoke rose from the emitter at 0.12: {p.stdout}"
    import numpy as np
    from PIL import Image

    plot = np.asarray(Image.open(tmp_path / "centroid.png"))
    frame = np.asarray(Image.open(tmp_path / "frame.png"))
    assert plot.shape[:2] == (480, 640)
    assert frame.shape[:2] == (360, 480) and frame[..., :3].std() > 2


def stub_names():
    tree = ast.parse(STUBS.read_text())
    names = {"": set()}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            names[""].add(node.name)
        elif isinstance(node, ast.ClassDef):
            members = set()
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    members.add(item.name)
                elif isinstance(item, ast.AnnAssign):
                    members.add(item.target.id)
            names[node.name] = members
    return names


def test_the_stubs_name_what_the_module_has():
    stubs = stub_names()
    assert stubs[""] == {"presets", "run", "wedge", "open_run"}
    for cls in ("Scene", "Simulation", "Emitter", "Obstacle", "Run"):
        runtime = {n for n in vars(getattr(plume, cls)) if not n.startswith("_")}
        public = {n for n in stubs[cls] if not n.startswith("_")}
        assert public == runtime, (cls, public ^ runtime)
        assert getattr(plume, cls).__doc__, cls


def test_help_reads_well():
    import pydoc

    text = pydoc.render_doc(plume.Simulation, renderer=pydoc.plaintext)
    for words in (
        "A running simulation of a scene",
        "step(self, /, n=1)",
        "Density, float32",
        "set_velocity_faces",
    ):
        assert words in text, words
