#!/usr/bin/env python3
"""Writes the meshes that ship with Plume (scenes/meshes/). Run from the repository root.

chimney.obj: a small house — a box, a gabled roof and a chimney, three closed parts that
overlap (Plume voxelises their union) — 1 unit wide, its origin at the middle of its floor,
+y up. Made for Plume; MIT like the rest of the project.
"""


def box(lo, hi):
    """Eight corners and twelve outward-facing triangles (1-based, relative)."""
    v = [[hi[a] if (i >> a) & 1 else lo[a] for a in range(3)] for i in range(8)]
    quads = [
        (0, 4, 6, 2),  # -x
        (1, 3, 7, 5),  # +x
        (0, 1, 5, 4),  # -y
        (2, 6, 7, 3),  # +y
        (0, 2, 3, 1),  # -z
        (4, 5, 7, 6),  # +z
    ]
    f = []
    for q in quads:
        f += [(q[0], q[1], q[2]), (q[0], q[2], q[3])]
    return v, f


def prism(x0, x1, y0, y1, z0, z1):
    """A gabled roof: ridge along x at height y1 over z = (z0+z1)/2."""
    zm = 0.5 * (z0 + z1)
    v = [
        [x0, y0, z0], [x0, y0, z1], [x0, y1, zm],
        [x1, y0, z0], [x1, y0, z1], [x1, y1, zm],
    ]
    f = [
        (0, 2, 1),        # -x gable
        (3, 4, 5),        # +x gable
        (0, 1, 4), (0, 4, 3),  # floor (-y)
        (1, 2, 5), (1, 5, 4),  # +z slope
        (0, 3, 5), (0, 5, 2),  # -z slope
    ]
    return v, f


def write(path, parts, comment):
    with open(path, "w") as out:
        out.write(f"# {comment}\n")
        base = 1
        for name, (v, f) in parts:
            out.write(f"o {name}\n")
            for p in v:
                out.write("v {:.4f} {:.4f} {:.4f}\n".format(*p))
            for t in f:
                out.write("f {} {} {}\n".format(*(base + i for i in t)))
            base += len(v)


if __name__ == "__main__":
    write(
        "scenes/meshes/chimney.obj",
        [
            ("walls", box([-0.5, 0.0, -0.35], [0.5, 0.6, 0.35])),
            ("roof", prism(-0.55, 0.55, 0.6, 0.95, -0.42, 0.42)),
            ("chimney", box([0.2, 0.55, -0.08], [0.36, 1.1, 0.08])),
        ],
        "A house with a chimney, made for Plume by scripts/make_meshes.py (MIT).",
    )
