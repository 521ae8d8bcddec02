"""Blender objects as a Plume scene: the domain box as `[grid]`, mesh objects (and empty
spheres and cubes) as emitters and obstacles, their animation as key frames.

Axes: Plume is y-up, Blender z-up. A point (x, y, z) in Blender is (x, z, -y) in Plume, so a
run exported with `--up z` (which turns each frame back) lands where the objects are. One
Blender unit is one Plume domain unit. Animation is sampled once per Blender frame (linear
between samples), at the scene's frame rate: Blender's curves, whatever their shape, are
followed to within a frame.
"""

import math
import os

import bpy
from mathutils import Matrix

# Blender -> Plume: (x, y, z) -> (x, z, -y).
TO_PLUME = Matrix(((1, 0, 0), (0, 0, 1), (0, -1, 0)))


class SceneError(Exception):
    """A scene that cannot be written, with a message for the user."""


NO_DOMAIN = "no domain: mark a box-like object as the Plume domain"


def point(v):
    return [float(v.x), float(v.z), float(-v.y)]


def world_box(obj):
    """The object's bounding box in world space, (min, max) in Blender's axes."""
    corners = [obj.matrix_world @ __import__("mathutils").Vector(c) for c in obj.bound_box]
    lo = [min(c[a] for c in corners) for a in range(3)]
    hi = [max(c[a] for c in corners) for a in range(3)]
    return lo, hi


def grid(domain, resolution):
    """`[grid]` of the domain object: its box, `resolution` cells along the longest side."""
    lo, hi = world_box(domain)
    # In Plume's axes: x, z (up), -y.
    p_lo = [lo[0], lo[2], -hi[1]]
    p_hi = [hi[0], hi[2], -lo[1]]
    sides = [p_hi[a] - p_lo[a] for a in range(3)]
    longest = max(sides)
    if longest <= 0:
        raise SceneError(f"the domain '{domain.name}' has no size")
    h = longest / resolution
    dims = [max(3, round(s / h)) for s in sides]
    return {"dims": dims, "size": longest, "origin": p_lo}, (p_lo, p_hi)


def pose(obj):
    """Position, rotation (degrees, x then y then z) and scale of `obj` in Plume's axes."""
    loc, rot, scale = obj.matrix_world.decompose()
    r = TO_PLUME @ rot.to_matrix() @ TO_PLUME.transposed()
    e = r.to_euler("XYZ")
    return (
        point(loc),
        [math.degrees(e.x), math.degrees(e.y), math.degrees(e.z)],
        [float(scale.x), float(scale.z), float(scale.y)],
    )


def deforms(obj):
    kinds = {"ARMATURE", "LATTICE", "CLOTH", "SOFT_BODY", "WAVE", "DISPLACE", "SIMPLE_DEFORM",
             "SHRINKWRAP", "SMOOTH", "CAST", "HOOK", "MESH_DEFORM", "SURFACE_DEFORM"}  # fmt: skip
    if any(m.type in kinds for m in obj.modifiers):
        return True
    keys = getattr(obj.data, "shape_keys", None)
    return bool(keys and keys.animation_data)


def obj_text(obj):
    """The object's mesh in its own frame (Plume's axes), as Wavefront OBJ text."""
    mesh = obj.to_mesh()
    try:
        mesh.calc_loop_triangles()
        lines = [f"# {obj.name}, written by the Plume add-on"]
        for v in mesh.vertices:
            x, y, z = point(v.co)
            lines.append(f"v {x:.6f} {y:.6f} {z:.6f}")
        for t in mesh.loop_triangles:
            a, b, c = (i + 1 for i in t.vertices)
            lines.append(f"f {a} {b} {c}")
        return "\n".join(lines) + "\n"
    finally:
        obj.to_mesh_clear()


def mesh_name(obj, taken):
    """A file name for `obj`'s mesh that no other object of the scene has: its name with
    anything but letters, digits, '-' and '_' as '_' ("Box.001" and "Box_001" both give
    "Box_001"; the second is "Box_001-2"), unique ignoring case (some file systems do)."""
    stem = "".join(c if c.isalnum() or c in "-_" else "_" for c in obj.name) or "mesh"
    name, n = f"{stem}.obj", 1
    while name.lower() in taken:
        n += 1
        name = f"{stem}-{n}.obj"
    taken.add(name.lower())
    return name


def write_atomic(path, text):
    """Writes `text` to `path` whole or not at all: into a temporary beside it (Plume's
    pattern, `.<file>.<pid>-<n>.tmp`), synced, then renamed over `path`."""
    folder, name = os.path.split(path)
    write_atomic.count += 1
    tmp = os.path.join(folder, f".{name}.{os.getpid()}-{write_atomic.count}.tmp")
    try:
        with open(tmp, "x", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        if os.path.lexists(tmp):
            os.remove(tmp)
        raise


write_atomic.count = 0


def animated(obj):
    o = obj
    while o is not None:
        if o.animation_data and (o.animation_data.action or o.animation_data.drivers):
            return True
        o = o.parent
    return bool(obj.constraints)


def body(obj, scene, meshes):
    """The shape and pose keys of an emitter or obstacle; a mesh's OBJ text goes into
    `meshes` under its file name."""
    if deforms(obj):
        raise SceneError(
            f"'{obj.name}' deforms (modifiers or shape keys): Plume moves rigid shapes only; "
            "apply the deformation or use another object"
        )
    d = {}
    if obj.type == "EMPTY" and obj.empty_display_type in {"SPHERE", "CUBE"}:
        s = obj.empty_display_size
        d["shape"] = "sphere" if obj.empty_display_type == "SPHERE" else "box"
        if d["shape"] == "sphere":
            d["radius"] = s
        else:
            d["size"] = [2 * s, 2 * s, 2 * s]
    elif obj.type == "MESH":
        name = mesh_name(obj, {n.lower() for n in meshes})
        meshes[name] = obj_text(obj)
        d["shape"] = "mesh"
        d["file"] = name
    else:
        raise SceneError(f"'{obj.name}' is a {obj.type.lower()}: emitters and obstacles are "
                         "meshes, or empties shown as a sphere or a cube")  # fmt: skip
    frame = scene.frame_current
    scene.frame_set(scene.frame_start)
    center, rotation, scale = pose(obj)
    d["center"] = center
    d["rotation"] = rotation
    d["scale"] = scale
    if animated(obj):
        fps = scene.render.fps / scene.render.fps_base
        keys = []
        for f in range(scene.frame_start, scene.frame_end + 1):
            scene.frame_set(f)
            c, r, s = pose(obj)
            keys.append({"time": (f - scene.frame_start) / fps, "position": c,
                         "rotation": r, "scale": s})  # fmt: skip
        d["key"] = keys
    scene.frame_set(frame)
    return d


def role(obj):
    return getattr(obj, "plume", None) and obj.plume.role


def build(scene, folder):
    """Writes `folder/scene.toml` and the meshes for the marked objects of `scene`; returns
    the scene as a dict. Raises SceneError with a message for the user, before writing
    anything where the scene is at fault. Each file is written whole by rename, the meshes
    first, so a `scene.toml` never names a mesh that is not there."""
    domains = [o for o in scene.objects if role(o) == "DOMAIN"]
    if not domains:
        raise SceneError(NO_DOMAIN)
    if len(domains) > 1:
        raise SceneError("more than one domain: " + ", ".join(o.name for o in domains))
    domain = domains[0]
    settings = domain.plume
    g, (lo, hi) = grid(domain, settings.resolution)
    fps = scene.render.fps / scene.render.fps_base
    doc = {"name": domain.name, "grid": g, "fluid": {"dt": 1.0 / fps}}
    for key in ("vorticity", "buoyancy", "fade", "cooling", "smoke_weight"):
        doc["fluid"][key] = float(getattr(settings, key))
    faces = ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max")
    doc["boundaries"] = {face: getattr(settings, "face_" + face).lower() for face in faces}
    if settings.upres:
        doc["detail"] = {"enabled": True, "factor": int(settings.upres)}
    emitters, obstacles, meshes = [], [], {}
    for o in scene.objects:
        r = role(o)
        if r not in {"EMITTER", "OBSTACLE"}:
            continue
        if r == "EMITTER" and o.plume.frame_start < o.plume.frame_end <= scene.frame_start:
            continue  # it stops before the scene's first frame: nothing to emit in the bake
        d = body(o, scene, meshes)
        c = d["center"]
        if not all(lo[a] - 1e-6 <= c[a] <= hi[a] + 1e-6 for a in range(3)):
            raise SceneError(f"'{o.name}' is outside the domain '{domain.name}'")
        if r == "EMITTER":
            e = o.plume
            d["density"] = float(e.density)
            d["temperature"] = float(e.temperature)
            if e.fuel > 0:
                d["fuel"] = float(e.fuel)
            d["velocity"] = point(e.velocity)
            # One that started before the scene's first frame is on from the first.
            d["start"] = (max(e.frame_start, scene.frame_start) - scene.frame_start) / fps
            if e.frame_end > e.frame_start:
                d["end"] = (e.frame_end - scene.frame_start) / fps
            emitters.append(d)
        else:
            obstacles.append(d)
    doc["emitter"] = emitters
    if obstacles:
        doc["obstacle"] = obstacles
    try:
        os.makedirs(folder, exist_ok=True)
        for name, text in meshes.items():
            write_atomic(os.path.join(folder, name), text)
        write_atomic(os.path.join(folder, "scene.toml"), toml(doc))
    except OSError as e:
        where = f" ({e.filename})" if e.filename and e.filename != folder else ""
        raise SceneError(f"cannot write the scene into the cache folder {folder}: "
                         f"{e.strerror or e}{where}") from e  # fmt: skip
    return doc


def toml(doc):
    """`doc` as TOML: tables, arrays of tables (`[[emitter]]`, `[[emitter.key]]`), numbers,
    strings, booleans and arrays of numbers."""
    out = []

    def value(v):
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(float(v)) if isinstance(v, float) else str(v)
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        return "[" + ", ".join(value(x) for x in v) + "]"

    def table(d, prefix):
        for k, v in d.items():
            if not isinstance(v, (dict, list)) or (isinstance(v, list) and v
                                                    and not isinstance(v[0], dict)):  # fmt: skip
                out.append(f"{k} = {value(v)}")
        for k, v in d.items():
            if isinstance(v, dict):
                out.append(f"\n[{prefix}{k}]")
                table(v, f"{prefix}{k}.")
            elif isinstance(v, list) and v and isinstance(v[0], dict):
                for item in v:
                    out.append(f"\n[[{prefix}{k}]]")
                    table(item, f"{prefix}{k}.")

    table(doc, "")
    return "\n".join(out) + "\n"


def bpy_version_ok():
    return bpy.app.version >= (3, 4, 0)
