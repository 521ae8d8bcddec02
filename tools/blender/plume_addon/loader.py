"""A Plume run folder as a Blender Volume object: the VDB sequence on the run's frame range
and rate, with the smoke-and-fire material (Principled Volume; blackbody emission of the
flame as Plume's own renderer draws it). Used by the add-on's Load button and by
tools/blender/import_plume.py.
"""

import json
import os

import bpy

REFERENCE_KELVIN = 1500.0  # Plume's blackbody::REFERENCE_KELVIN


class LoadError(Exception):
    """A folder that cannot be loaded, with a message for the user."""


def load_manifest(run_dir):
    """The run's manifest and its `.vdb` frame files in order. Raises LoadError where there
    is no manifest, it does not read as Plume's, it lists no `.vdb` frame, or a listed frame
    is missing."""
    path = os.path.join(run_dir, "manifest.json")
    if not os.path.exists(path):
        raise LoadError(f"{path} not found: pass a folder written by `plume run`")
    try:
        with open(path, encoding="utf-8") as f:
            m = json.load(f)
        files = []
        for entry in m["frames"]:
            vdbs = [x for x in entry["files"] if x.endswith(".vdb")]
            if vdbs:
                files.append(vdbs[0])
        absent = [k for k in ("dims", "voxel_size", "origin", "dt") if k not in m]
        if absent:
            raise KeyError(absent[0])
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise LoadError(f"{path} does not read as a Plume manifest ({type(e).__name__}: "
                        f"{e})") from e  # fmt: skip
    if not files:
        raise LoadError(f"{run_dir} holds no .vdb frames: export with --format vdb")
    missing = [x for x in files if not os.path.isfile(os.path.join(run_dir, x))]
    if missing:
        raise LoadError(f"{len(missing)} of the {len(files)} frames manifest.json lists are "
                        f"missing from {run_dir} (the first: {missing[0]})")  # fmt: skip
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
    pv.inputs["Color"].default_value = (*[c**2.2 for c in albedo], 1.0)
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


def load(run_dir, name="Plume", frame=None, start=None):
    """Loads `run_dir` as a Volume object named `name`; returns (object, info).

    Without `start` (the command-line face) the scene takes the run's frame range, from 1,
    and its frame rate. With `start` (the add-on, whose bake follows the scene's own range and
    rate) the sequence's first frame is Blender frame `start`, and the scene's range, rate and
    current frame stay as the user set them. An object named `name` that is already a volume
    is loaded again in place, keeping its material (an artist's edits survive a re-bake)."""
    run_dir = os.path.abspath(run_dir)
    m, files = load_manifest(run_dir)
    scene = bpy.context.scene
    obj = bpy.data.objects.get(name)
    if obj is not None and obj.type == "VOLUME":
        vol = obj.data
        vol.grids.unload()
    else:
        vol = bpy.data.volumes.new(name)
        obj = bpy.data.objects.new(name, vol)
    if scene.objects.get(obj.name) is None:
        scene.collection.objects.link(obj)
    vol.filepath = os.path.join(run_dir, files[0])
    vol.is_sequence = len(files) > 1
    vol.frame_start = 1 if start is None else start
    vol.frame_duration = len(files)
    vol.sequence_mode = "CLIP"

    # One Blender frame per exported frame, at the run's rate.
    seconds_per_frame = m["dt"] * max(1, m.get("every", 1))
    fps = max(1, round(1.0 / seconds_per_frame))
    current = scene.frame_current
    if start is None:
        scene.render.fps = fps
        scene.render.fps_base = 1.0
        scene.frame_start = 1
        scene.frame_end = len(files)
    # The grids are read at a frame of the sequence (the current one may be outside it, where
    # a clipped sequence shows nothing): the one asked for, else its last.
    scene.frame_set(frame or vol.frame_start + len(files) - 1)
    vol.grids.load()
    grids = sorted(g.name for g in vol.grids)
    if start is not None:
        scene.frame_set(current)  # the user's frame is back
    has_fire = "flame" in grids and "temperature" in grids
    if not vol.materials:
        vol.materials.append(fire_material(has_fire, m.get("scene", {}).get("render", {})))

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
        "frame_start": vol.frame_start,
        "frame_end": vol.frame_start + len(files) - 1,
        "fps": fps,
        "up": m.get("up", "y"),
        "fire": has_fire,
        "domain_center": center,
        "domain_size": size,
    }

    return obj, info
