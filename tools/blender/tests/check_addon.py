"""Builds a scene with the add-on in headless Blender, bakes it with `plume` and loads it;
prints one line `PLUME_ADDON {json}` of what it found, for tests/blender_addon.rs.

    blender -b --factory-startup --python tools/blender/tests/check_addon.py -- OUT PLUME
"""

import json
import math
import os
import shutil
import sys
import time

import bpy

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import plume_addon  # noqa: E402
from plume_addon import writer  # noqa: E402

out, binary = sys.argv[sys.argv.index("--") + 1 :][:2]
plume_addon.register()
bpy.context.preferences.addons.new().module = "plume_addon"
bpy.context.preferences.addons["plume_addon"].preferences.binary = binary

scene = bpy.context.scene
for o in list(bpy.data.objects):
    bpy.data.objects.remove(o, do_unlink=True)
scene.frame_start, scene.frame_end = 1, 8
scene.render.fps = 24

bpy.ops.mesh.primitive_cube_add(size=2.0, location=(0.0, 0.0, 1.0))
domain = bpy.context.object
domain.name = "Domain"
domain.plume.role = "DOMAIN"
domain.plume.resolution = 16
domain.plume.backend = "cpu"
domain.plume.cache = os.path.join(out, "cache")

bpy.ops.mesh.primitive_uv_sphere_add(radius=0.2, location=(-0.5, 0.0, 0.35))
smoke = bpy.context.object
smoke.name = "Smoke source"
smoke.plume.role = "EMITTER"
smoke.plume.density = 8.0
smoke.keyframe_insert("location", frame=1)
smoke.location.x = 0.5
smoke.keyframe_insert("location", frame=8)

bpy.ops.mesh.primitive_cube_add(size=0.3, location=(0.0, 0.5, 1.2))
post = bpy.context.object
post.name = "Turning box"
post.plume.role = "OBSTACLE"
post.keyframe_insert("rotation_euler", frame=1)
post.rotation_euler.z = math.radians(90)
post.keyframe_insert("rotation_euler", frame=8)

fire = bpy.data.objects.new("Fire", None)
fire.empty_display_type = "SPHERE"
fire.empty_display_size = 0.15
fire.location = (0.0, -0.5, 0.2)
scene.collection.objects.link(fire)
fire.plume.role = "EMITTER"
fire.plume.fuel = 4.0
fire.plume.temperature = 1.4

report = {}
# The written scene: key frames against the objects' positions at those frames.
doc = writer.build(scene, domain.plume.cache)
moving = next(e for e in doc["emitter"] if e["shape"] == "mesh")
keys = moving["key"]
errs = []
for f, k in zip(range(scene.frame_start, scene.frame_end + 1), keys):
    scene.frame_set(f)
    want = writer.point(smoke.matrix_world.translation)
    errs.append(max(abs(a - b) for a, b in zip(k["position"], want)))
report["key_error"] = max(errs)
report["keys"] = len(keys)
report["cell"] = doc["grid"]["size"] / max(doc["grid"]["dims"])
report["dims"] = doc["grid"]["dims"]
report["obstacle_keys"] = len(doc["obstacle"][0]["key"])
report["obstacle_turn"] = doc["obstacle"][0]["key"][-1]["rotation"]
report["fire"] = next(e for e in doc["emitter"] if e["shape"] == "sphere")

# Errors are messages, not tracebacks.
try:
    smoke.location.x = 5.0
    scene.frame_set(1)
    smoke.animation_data_clear()
    smoke.location = (5.0, 0.0, 0.35)
    writer.build(scene, os.path.join(out, "bad"))
    report["outside"] = None
except writer.SceneError as e:
    report["outside"] = str(e)
report["bad_written"] = os.path.exists(os.path.join(out, "bad"))
smoke.location = (-0.5, 0.0, 0.35)
smoke.keyframe_insert("location", frame=1)
smoke.location.x = 0.5
smoke.keyframe_insert("location", frame=8)

# Objects whose names give the same file name ("Post.001", "Post_001") get a mesh each.
bpy.ops.mesh.primitive_cube_add(size=0.2, location=(0.5, 0.5, 1.5))
a = bpy.context.object
a.name = "Post.001"
bpy.ops.mesh.primitive_uv_sphere_add(radius=0.1, location=(-0.5, 0.5, 1.5))
b = bpy.context.object
b.name = "Post_001"
for o in (a, b):
    o.plume.role = "OBSTACLE"
names = os.path.join(out, "names")
doc = writer.build(scene, names)
files = {o["file"] for o in doc["obstacle"] if o.get("file", "").startswith("Post")}


def vertices(name):
    with open(os.path.join(names, name)) as f:
        return sum(line.startswith("v ") for line in f)


report["mesh_files"] = sorted(files)
report["mesh_vertices"] = sorted(vertices(n) for n in files)
report["names_listing"] = sorted(os.listdir(names))
for o in (a, b):
    bpy.data.objects.remove(o, do_unlink=True)

# A cache folder that cannot be made (a file is in its place) is a report, not a traceback.
blocked = os.path.join(out, "a file")
with open(blocked, "w") as f:
    f.write("mine")
domain.plume.cache = blocked
try:
    bpy.ops.plume.bake(wait=True)
    report["blocked"] = None
except RuntimeError as e:
    report["blocked"] = str(e)
with open(blocked) as f:
    report["blocked_kept"] = f.read()
domain.plume.cache = os.path.join(out, "cache")

r = bpy.ops.plume.bake(wait=True)
report["bake"] = sorted(r)
report["cache_listing"] = sorted(os.listdir(domain.plume.cache))
r = bpy.ops.plume.load()
report["load"] = sorted(r)
vol = bpy.data.objects.get("Domain smoke")
if vol is not None:
    vol.data.grids.load()
    report["grids"] = sorted(g.name for g in vol.data.grids)
    report["frames"] = vol.data.frame_duration
    lo, hi = writer.world_box(vol)
    report["volume_box"] = [lo, hi]
report["domain_box"] = list(writer.world_box(domain))

# A Cycles render of the loaded volume, and of the empty domain, for the test to compare.
cam = bpy.data.objects.new("Camera", bpy.data.cameras.new("Camera"))
scene.collection.objects.link(cam)
cam.location = (0.0, -4.5, 1.2)
cam.rotation_euler = (math.radians(88.0), 0.0, 0.0)
scene.camera = cam
sun = bpy.data.objects.new("Sun", bpy.data.lights.new("Sun", type="SUN"))
sun.data.energy = 5.0
scene.collection.objects.link(sun)
scene.render.engine = "CYCLES"
scene.cycles.device = "CPU"
scene.cycles.samples = 8
scene.cycles.use_denoising = False
scene.render.resolution_x, scene.render.resolution_y = 96, 96
scene.render.image_settings.file_format = "PNG"
domain.hide_render = True
for o in (smoke, post, fire):
    o.hide_render = True
scene.frame_set(scene.frame_end)
scene.render.filepath = os.path.join(out, "smoke.png")
bpy.ops.render.render(write_still=True)
vol.hide_render = True
scene.render.filepath = os.path.join(out, "empty.png")
bpy.ops.render.render(write_still=True)

# A scene that starts at frame 101, at 25 frames a second, baked and loaded again: the
# sequence starts at 101, the scene keeps its range and rate, the one volume object is loaded
# again in place and the material an artist renamed stays.
vol.data.materials[0].name = "My smoke"
scene.frame_start, scene.frame_end = 101, 108
scene.render.fps = 25
report["rebake"] = sorted(bpy.ops.plume.bake(wait=True))
scene.collection.objects.unlink(vol)  # taken out of the scene, still in the file
scene.frame_set(50)  # before the sequence: Load still finds its grids
report["reload"] = sorted(bpy.ops.plume.load())
report["reload_frame"] = scene.frame_current
report["reload_linked"] = scene.objects.get("Domain smoke") is not None
again = bpy.data.objects.get("Domain smoke")
report["reload_objects"] = sorted(o.name for o in bpy.data.objects if o.type == "VOLUME")
report["reload_range"] = [again.data.frame_start, again.data.frame_duration]
report["reload_scene"] = [scene.frame_start, scene.frame_end, scene.render.fps]
report["reload_material"] = [m.name for m in again.data.materials]
# Loaded afresh while the frame is before the sequence: its fire is still found.
bpy.data.objects.remove(again, do_unlink=True)
scene.frame_set(50)
bpy.ops.plume.load()
fresh = bpy.data.objects["Domain smoke"].data.materials[0]
report["fresh_blackbody"] = any(n.type == "BLACKBODY" for n in fresh.node_tree.nodes)
scene.frame_start, scene.frame_end = 1, 8
scene.render.fps = 24

# A manifest that is not Plume's, and one whose frames are gone: Load's reports.
baked = os.path.join(domain.plume.cache, "frames", "manifest.json")
for case, text in (("garbled", "{not json"), ("gone", None)):
    folder = os.path.join(out, case, "frames")
    os.makedirs(folder)
    if text is None:
        shutil.copy(baked, folder)
    else:
        with open(os.path.join(folder, "manifest.json"), "w") as f:
            f.write(text)
    domain.plume.cache = os.path.join(out, case)
    try:
        bpy.ops.plume.load()
        report["load_" + case] = None
    except RuntimeError as e:
        report["load_" + case] = str(e)
domain.plume.cache = os.path.join(out, "cache")

# Cancel mid-bake, then Resume: the test compares the frames with an uninterrupted bake's.
frames_dir = os.path.join(domain.plume.cache, "frames")
scene.frame_end = 30
domain.plume.resolution = 40
report["whole"] = sorted(bpy.ops.plume.bake(wait=True))
shutil.copytree(frames_dir, os.path.join(out, "whole"))
report["freed"] = sorted(bpy.ops.plume.free())
plume_addon.start_bake(bpy.context, resume=False)
while not os.path.exists(os.path.join(frames_dir, "plume_0003.vdb")):
    time.sleep(0.002)
with open(os.path.join(domain.plume.cache, "scene.toml")) as f:
    running_scene = f.read()
domain.plume.resolution = 24
try:
    bpy.ops.plume.bake(wait=True)
    report["second_bake"] = None
except RuntimeError as e:
    report["second_bake"] = str(e)
with open(os.path.join(domain.plume.cache, "scene.toml")) as f:
    report["running_scene_kept"] = f.read() == running_scene
domain.plume.resolution = 40
bpy.ops.plume.cancel()
ok, last = plume_addon.finish_bake()
report["cancelled"] = [ok, last]
report["held"] = len([f for f in os.listdir(frames_dir) if f.endswith(".vdb")])
report["resumed"] = sorted(bpy.ops.plume.bake(resume=True, wait=True))


def vdb_bytes(path):
    """The file with its UUID (bytes 21 to 57 of the header) blanked: each file has its own."""
    data = bytearray(open(path, "rb").read())
    data[21:57] = bytes(36)
    return bytes(data)


whole = sorted(f for f in os.listdir(os.path.join(out, "whole")) if f.endswith(".vdb"))
now = sorted(f for f in os.listdir(frames_dir) if f.endswith(".vdb"))
report["resume_files"] = [len(whole), len(now)]
report["resume_equal"] = whole == now and all(
    vdb_bytes(os.path.join(out, "whole", f)) == vdb_bytes(os.path.join(frames_dir, f))
    for f in whole
)
# Free: a file of the user's in the cache folder stays.
with open(os.path.join(frames_dir, "notes.txt"), "w") as f:
    f.write("mine")
report["free"] = sorted(bpy.ops.plume.free())
report["after_free"] = sorted(os.listdir(frames_dir))


def refused(**op):
    """The message a failing bake reports (Blender raises it as a RuntimeError)."""
    try:
        bpy.ops.plume.bake(wait=True, **op)
    except RuntimeError as e:
        return str(e)
    return None


# A value Plume refuses: its own message is the report.
domain.plume.resolution = 1024
report["refused"] = refused()
domain.plume.resolution = 16
prefs = bpy.context.preferences.addons["plume_addon"].preferences
prefs.binary = os.path.join(out, "no-such-plume")
report["missing"] = refused()
prefs.binary = binary
# A cache folder relative to a .blend file that is not saved yet: Blender would resolve it
# against the folder it was started in.
domain.plume.cache = "//plume_cache"
report["unsaved"] = refused()
report["unsaved_written"] = os.path.exists(os.path.join(os.getcwd(), "plume_cache"))
# Load and Free with nothing baked.
domain.plume.cache = os.path.join(out, "never baked")
try:
    bpy.ops.plume.load()
    report["load_unbaked"] = None
except RuntimeError as e:
    report["load_unbaked"] = str(e)
report["free_unbaked"] = sorted(bpy.ops.plume.free())
report["unbaked_written"] = os.path.exists(domain.plume.cache)
domain.plume.role = "NONE"
report["no_domain"] = refused()
# Blender quits during a bake: the add-on stops it (the test checks the process is gone and
# the folder holds part of the run, resumable).
domain.plume.role = "DOMAIN"
domain.plume.cache = os.path.join(out, "quit")
domain.plume.resolution = 48
scene.frame_end = 200
p = plume_addon.start_bake(bpy.context, resume=False)
while not os.path.exists(os.path.join(out, "quit", "frames", "plume_0001.vdb")):
    assert p.poll() is None, "the bake ended before its first frame"
    time.sleep(0.002)
report["quit_pid"] = p.pid
print("PLUME_ADDON " + json.dumps(report), flush=True)
