"""Plume from Python: real-time 3D smoke and fire.

Scenes (``plume.Scene``), simulations on the CPU or GPU backend (``plume.Simulation``) with
their fields as NumPy arrays, renders through Plume's raymarcher, and runs written as
``plume run`` writes them (``plume.run``) and read back (``plume.open_run``). See
``docs/python.md``.

::

    import plume

    scene = plume.Scene.preset("plume").with_size(64)
    scene["fluid.vorticity"] = 2.0
    sim = plume.Simulation(scene)
    sim.step(60)
    density = sim.density            # float32, shape (nz, ny, nx)
    image = sim.render(640, 480)     # uint8, shape (480, 640, 3)
"""

import warnings

from ._plume import Emitter, Obstacle, Run, Scene, Simulation, __version__, open_run, run
from .wedge import wedge

# `python -m plume.wedge` runs the module this package has already imported (for
# `plume.wedge`, the function); that is intended, so runpy's warning about it is not shown.
warnings.filterwarnings(
    "ignore", message="'plume.wedge' found in sys.modules", category=RuntimeWarning
)

__all__ = [
    "Emitter",
    "Obstacle",
    "Run",
    "Scene",
    "Simulation",
    "__version__",
    "open_run",
    "presets",
    "run",
    "wedge",
]


def presets() -> list:
    """The names of the built-in scene presets (``Scene.preset(name)`` loads one)."""
    return Scene.presets()
