"""Load a Plume export folder into Blender as an animated volume with a fire material.

    blender --python tools/blender/import_plume.py -- RUN_DIR [--render OUT.png]
            [--frame N] [--samples S] [--resolution W H]

RUN_DIR is a folder `plume run --format vdb` wrote (best with
`--fields density,temperature,flame,velocity --up z`, so the smoke rises along Blender's Z).
The script reads RUN_DIR/manifest.json, loads the VDB files as one volume sequence, sets the
scene's frame range and frame rate to the run's, and gives the volume a Principled Volume
material: `density` as density; where the run wrote `flame` and `temperature`, emission of
strength flame × intensity × (T / 1500 K)^4 in the blackbody colour of T (Plume writes
temperature in thousands of kelvin, so T = 1000 K × the grid's value) — the same emission
Plume's own renderer draws. With --render it adds a camera and a light, renders one frame with
Cycles on the CPU, writes OUT.png and exits; either way it prints one JSON line (prefixed
`PLUME_IMPORT`) describing what it built, for scripts and tests.

Blender 3.4 or newer; nothing here is specific to a platform.
"""

import json
import math
import os
import sys

import bpy

# The loading code lives in the add-on (one copy); this script is its command-line face.
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from plume_addon import loader

USAGE = ("usage: blender --python import_plume.py -- RUN_DIR [--render OUT.png] "
         "[--frame N] [--samples S] [--resolution W H]")  # fmt: skip


def parse_args(argv):
    args = argv[argv.index("--") + 1 :] if "--" in argv else []
    if not args or args[0].startswith("--"):
        sys.exit(USAGE)
    opts = {"dir": args[0], "render": None, "frame": None, "samples": 32, "resolution": (480, 480)}
    takes = {"--render": 1, "--frame": 1, "--samples": 1, "--resolution": 2}
    i = 1
    while i < len(args):
        a = args[i]
        if a not in takes:
            sys.exit(f"unknown argument {a!r}\n{USAGE}")
        values = args[i + 1 : i + 1 + takes[a]]
        if len(values) < takes[a]:
            sys.exit(f"{a} needs {takes[a]} value(s)\n{USAGE}")
        i += 1 + takes[a]
        if a == "--render":
            opts["render"] = values[0]
            continue
        try:
            numbers = [int(v) for v in values]
        except ValueError:
            sys.exit(f"{a} takes whole numbers, not {' '.join(values)!r}")
        if any(n < 1 for n in numbers):
            sys.exit(f"{a} takes numbers from 1, not {' '.join(values)!r}")
        if a == "--resolution":
            opts["resolution"] = tuple(numbers)
        else:
            opts[a[2:]] = numbers[0]
    return opts


def main():
    opts = parse_args(sys.argv)
    run_dir = os.path.abspath(opts["dir"])
    scene = bpy.context.scene
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o, do_unlink=True)
    try:
        _obj, info = loader.load(run_dir, frame=opts["frame"])
    except loader.LoadError as e:
        sys.exit(str(e))
    size = info["domain_size"]
    center = info["domain_center"]

    if opts["render"]:
        up_z = info["up"] == "z"
        extent = max(size)
        cam_data = bpy.data.cameras.new("Camera")
        cam = bpy.data.objects.new("Camera", cam_data)
        scene.collection.objects.link(cam)
        # Look at the domain from the front, slightly above, its up axis up in the image.
        dist = 2.4 * extent
        if up_z:
            cam.location = (center[0], center[1] - dist, center[2] + 0.15 * extent)
            cam.rotation_euler = (math.radians(86.0), 0.0, 0.0)
        else:
            cam.location = (center[0], center[1] + 0.15 * extent, center[2] + dist)
            cam.rotation_euler = (math.radians(-4.0), 0.0, 0.0)
        scene.camera = cam
        sun_data = bpy.data.lights.new("Sun", type="SUN")
        sun_data.energy = 6.0
        sun = bpy.data.objects.new("Sun", sun_data)
        sun.rotation_euler = (math.radians(40.0), math.radians(20.0), 0.0)
        scene.collection.objects.link(sun)
        world = bpy.data.worlds.new("World")
        world.use_nodes = True
        world.node_tree.nodes["Background"].inputs["Color"].default_value = (0.02, 0.025, 0.035, 1)
        scene.world = world
        scene.render.engine = "CYCLES"
        scene.cycles.device = "CPU"
        scene.cycles.samples = opts["samples"]
        scene.cycles.use_denoising = False  # some builds (Debian's) lack OpenImageDenoise
        scene.cycles.volume_step_rate = 1.0
        scene.render.resolution_x, scene.render.resolution_y = opts["resolution"]
        scene.render.resolution_percentage = 100
        scene.render.image_settings.file_format = "PNG"
        scene.render.filepath = os.path.abspath(opts["render"])
        bpy.ops.render.render(write_still=True)
        info["rendered"] = scene.render.filepath

    print("PLUME_IMPORT " + json.dumps(info), flush=True)


main()
