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

REFERENCE_KELVIN = 1500.0  # Plume's blackbody::REFERENCE_KELVIN


def parse_args(argv):
    args = argv[argv.index("--") + 1:] if "--" in argv else []
    if not args:
        sys.exit("usage: blender --python import_plume.py -- RUN_DIR [--render OUT.png] "
                 "[--frame N] [--samples S] [--resolution W H]")
    opts = {"dir": args[0], "render": None, "frame": None, "samples": 32, "resolution": (480, 480)}
    i = 1
    while i < len(args):
        a = args[i]
        if a == "--render":
            opts["render"] = args[i + 1]
            i += 2
        elif a == "--frame":
            opts["frame"] = int(args[i + 1])
            i += 2
        elif a == "--samples":
            opts["samples"] = int(args[i + 1])
            i += 2
        elif a == "--resolution":
            opts["resolution"] = (int(args[i + 1]), int(args[i + 2]))
            i += 3
        else:
            sys.exit(f"unknown argument {a!r}")
    return opts


def load_manifest(run_dir):
    path = os.path.join(run_dir, "manifest.json")
    if not os.path.exists(path):
        sys.exit(f"{path} not found: pass a folder written by `plume run`")
    with open(path) as f:
        m = json.load(f)
    files = []
    for entry in m["frames"]:
        vdbs = [x for x in entry["files"] if x.endswith(".vdb")]
        if vdbs:
            files.append(vdbs[0])
    if not files:
        sys.exit(f"{run_dir} holds no .vdb frames: export with --format vdb")
    return m, files


def fire_material(has_fire, render):
    """The material; `render` is the scene's [render] table from the manifest (Plume's
    defaults where a key is missing), so Blender shows what `plume render` shows."""
    density_scale = render.get("density_scale", 40.0)
    flame_intensity = render.get("flame_intensity", 12.0)
    kelvin_per_unit = render.get("kelvin_per_unit", 1000.0)
    albedo = render.get("smoke_color", [0.92, 0.92, 0.95])
    mat = bpy.data.materials.new("Plume smoke and fire")
    mat.use_nodes = True
    nt = mat.node_tree
    for n in list(nt.nodes):
        nt.nodes.remove(n)
    out = nt.nodes.new("ShaderNodeOutputMaterial")
    pv = nt.nodes.new("ShaderNodeVolumePrincipled")
    pv.inputs["Density Attribute"].default_value = "density"
    # Plume's density_scale is extinction per unit density per domain unit; Blender's
    # Density multiplies the grid the same way (per metre, one domain unit = one metre).
    pv.inputs["Density"].default_value = density_scale
    pv.inputs["Color"].default_value = (*[c ** 2.2 for c in albedo], 1.0)
    pv.inputs["Anisotropy"].default_value = render.get("anisotropy", 0.3)
    pv.inputs["Blackbody Intensity"].default_value = 0.0
    nt.links.new(pv.outputs["Volume"], out.inputs["Volume"])
    if has_fire:
        temp = nt.nodes.new("ShaderNodeAttribute")
        temp.attribute_name = "temperature"
        flame = nt.nodes.new("ShaderNodeAttribute")
        flame.attribute_name = "flame"
        kelvin = nt.nodes.new("ShaderNodeMath")
        kelvin.operation = "MULTIPLY"
        kelvin.inputs[1].default_value = kelvin_per_unit
        nt.links.new(temp.outputs["Fac"], kelvin.inputs[0])
        bb = nt.nodes.new("ShaderNodeBlackbody")
        nt.links.new(kelvin.outputs[0], bb.inputs["Temperature"])
        nt.links.new(bb.outputs["Color"], pv.inputs["Emission Color"])
        # strength = flame × intensity × (T / 1500 K)^4
        ratio = nt.nodes.new("ShaderNodeMath")
        ratio.operation = "DIVIDE"
        ratio.inputs[1].default_value = REFERENCE_KELVIN
        nt.links.new(kelvin.outputs[0], ratio.inputs[0])
        p4 = nt.nodes.new("ShaderNodeMath")
        p4.operation = "POWER"
        p4.inputs[1].default_value = 4.0
        nt.links.new(ratio.outputs[0], p4.inputs[0])
        scaled = nt.nodes.new("ShaderNodeMath")
        scaled.operation = "MULTIPLY"
        scaled.inputs[1].default_value = flame_intensity
        nt.links.new(flame.outputs["Fac"], scaled.inputs[0])
        strength = nt.nodes.new("ShaderNodeMath")
        strength.operation = "MULTIPLY"
        nt.links.new(scaled.outputs[0], strength.inputs[0])
        nt.links.new(p4.outputs[0], strength.inputs[1])
        nt.links.new(strength.outputs[0], pv.inputs["Emission Strength"])
    return mat


def main():
    opts = parse_args(sys.argv)
    run_dir = os.path.abspath(opts["dir"])
    m, files = load_manifest(run_dir)
    scene = bpy.context.scene
    for o in list(bpy.data.objects):
        bpy.data.objects.remove(o, do_unlink=True)

    vol = bpy.data.volumes.new("Plume")
    vol.filepath = os.path.join(run_dir, files[0])
    vol.is_sequence = len(files) > 1
    vol.frame_start = 1
    vol.frame_duration = len(files)
    vol.sequence_mode = "CLIP"
    obj = bpy.data.objects.new("Plume", vol)
    scene.collection.objects.link(obj)

    # One Blender frame per exported frame, at the run's rate.
    seconds_per_frame = m["dt"] * max(1, m.get("every", 1))
    fps = max(1, round(1.0 / seconds_per_frame))
    scene.render.fps = fps
    scene.frame_start = 1
    scene.frame_end = len(files)
    frame = opts["frame"] or len(files)
    scene.frame_set(frame)

    vol.grids.load()
    grids = sorted(g.name for g in vol.grids)
    has_fire = "flame" in grids and "temperature" in grids
    mat = fire_material(has_fire, m.get("scene", {}).get("render", {}))
    vol.materials.append(mat)

    # The domain as Blender sees it (world space, after the files' transforms).
    nx, ny, nz = m["dims"]
    h = m["voxel_size"]
    ox, oy, oz = m["origin"]
    if m.get("up", "y") == "z":
        lo = (ox, -(oz + nz * h), oy)
        size = (nx * h, nz * h, ny * h)
    else:
        lo = (ox, oy, oz)
        size = (nx * h, ny * h, nz * h)
    center = tuple(lo[a] + size[a] / 2 for a in range(3))

    info = {
        "grids": grids,
        "frames": len(files),
        "frame_start": scene.frame_start,
        "frame_end": scene.frame_end,
        "fps": fps,
        "up": m.get("up", "y"),
        "fire": has_fire,
        "domain_center": center,
        "domain_size": size,
    }

    if opts["render"]:
        up_z = m.get("up", "y") == "z"
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
