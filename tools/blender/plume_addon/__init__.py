"""Plume in Blender: mark a box as the domain and meshes (or empty spheres and cubes) as
emitters and obstacles, bake them with the `plume` binary, and load the result as a volume.

The panel is in Properties > Physics > Plume. See docs/blender.md.
"""

import atexit
import json
import os
import shutil
import signal
import subprocess
import threading
from typing import ClassVar

import bpy
from bpy.props import (
    EnumProperty,
    FloatProperty,
    FloatVectorProperty,
    IntProperty,
    PointerProperty,
    StringProperty,
)

from . import loader, writer

bl_info = {
    "name": "Plume smoke and fire",
    "author": "Plume",
    "version": (0, 1, 0),
    "blender": (3, 4, 0),
    "location": "Properties > Physics > Plume",
    "description": "Bake smoke and fire with Plume and load the result as a volume",
    "category": "Physics",
}

FACE = [("WALL", "Wall", "Fluid does not cross it"), ("OPEN", "Open", "Smoke leaves through it")]

# Limits and defaults are Plume's own: ranges.json is generated from Plume's range table and
# default scene (src/docs.rs; tests/docs.rs keeps it current).
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "ranges.json")) as _f:
    PLUME = json.load(_f)


def number(key, name, default=None, **kw):
    """A FloatProperty spanning the range-table entry `key` (`fluid.vorticity`, …)."""
    r = PLUME["ranges"][key]
    return FloatProperty(name=name, min=r["min"], max=r["max"],
                         default=r["default"] if default is None else default, **kw)  # fmt: skip


FLUID = PLUME["defaults"]["fluid"]
EMITTER = PLUME["defaults"]["emitter"]
_v = EMITTER.get("velocity", [0.0, 0.0, 0.0])
EMITTER_VELOCITY = (_v[0], -_v[2], _v[1])  # Plume's (x, y up, z) in Blender's axes


def plume_binary(context):
    """The `plume` binary: the add-on's preference, else PATH, else the repository's build."""
    prefs = context.preferences.addons.get(__name__)
    path = prefs.preferences.binary if prefs else ""
    if path:
        return bpy.path.abspath(path)
    found = shutil.which("plume")
    if found:
        return found
    here = os.path.dirname(os.path.abspath(__file__))
    built = os.path.normpath(os.path.join(here, "..", "..", "..", "target", "release", "plume"))
    return built if os.path.exists(built) else "plume"


class PlumePreferences(bpy.types.AddonPreferences):
    bl_idname = __name__
    binary: StringProperty(
        name="plume binary",
        subtype="FILE_PATH",
        description="The plume command (empty: found on PATH or in the repository's build)",
    )

    def draw(self, context):
        self.layout.prop(self, "binary")


class PlumeSettings(bpy.types.PropertyGroup):
    role: EnumProperty(
        name="Role",
        items=[
            ("NONE", "None", "Not part of the Plume scene"),
            ("DOMAIN", "Domain", "The box the fluid fills"),
            ("EMITTER", "Emitter", "Adds smoke, heat and fuel"),
            ("OBSTACLE", "Obstacle", "A solid the fluid flows around"),
        ],
        default="NONE",
    )
    # Domain.
    resolution: IntProperty(
        name="Resolution",
        default=PLUME["grid"]["default_cells"],
        min=PLUME["grid"]["min_cells"],
        max=PLUME["grid"]["max_cells"],
        description="Cells along the domain's longest side",
    )
    upres: IntProperty(
        name="Detail",
        default=0,
        min=0,
        max=int(PLUME["ranges"]["detail.factor"]["max"]),
        description="Up-resolution factor (0: off; otherwise that many times finer)",
    )
    vorticity: number("fluid.vorticity", "Vorticity", FLUID["vorticity"])
    buoyancy: number("fluid.buoyancy", "Buoyancy", FLUID["buoyancy"])
    fade: number("fluid.fade", "Fade", FLUID["fade"])
    cooling: number("fluid.cooling", "Cooling", FLUID["cooling"])
    smoke_weight: number("fluid.smoke_weight", "Smoke weight", FLUID["smoke_weight"])
    face_x_min: EnumProperty(name="-X", items=FACE, default="WALL")
    face_x_max: EnumProperty(name="+X", items=FACE, default="WALL")
    face_y_min: EnumProperty(name="Bottom (-Z)", items=FACE, default="WALL")
    face_y_max: EnumProperty(name="Top (+Z)", items=FACE, default="OPEN")
    face_z_min: EnumProperty(name="+Y", items=FACE, default="WALL")
    face_z_max: EnumProperty(name="-Y", items=FACE, default="WALL")
    cache: StringProperty(name="Cache", subtype="DIR_PATH", default="//plume_cache")
    backend: EnumProperty(
        name="Backend",
        items=[("auto", "Auto", ""), ("cpu", "CPU", ""), ("gpu", "GPU", "")],
        default="auto",
    )
    # Emitter.
    density: number("emitter.density", "Smoke", EMITTER.get("density"))
    temperature: number("emitter.temperature", "Temperature", EMITTER.get("temperature"))
    fuel: number("emitter.fuel", "Fuel")
    velocity: FloatVectorProperty(
        name="Velocity",
        default=EMITTER_VELOCITY,
        min=PLUME["ranges"]["emitter.velocity"]["min"],
        max=PLUME["ranges"]["emitter.velocity"]["max"],
        subtype="VELOCITY",
    )
    frame_start: IntProperty(name="Start", default=1)
    frame_end: IntProperty(name="End", default=0, description="0: until the end")


def domain_of(context):
    for o in context.scene.objects:
        if o.plume.role == "DOMAIN":
            return o
    return None


def reported_domain(op, context):
    """The scene's domain, or None with the error reported on operator `op`."""
    domain = domain_of(context)
    if domain is None:
        op.report({"ERROR"}, writer.NO_DOMAIN)
    return domain


def cache_dir(domain):
    """The domain's cache folder as an absolute path. Raises SceneError where there is none,
    or where it is relative to a .blend file not saved yet (Blender would resolve it against
    whatever folder it was started in)."""
    path = domain.plume.cache
    if not path.strip():
        raise writer.SceneError("no cache folder: set one on the Plume domain")
    if path.startswith("//") and not bpy.data.filepath:
        raise writer.SceneError(f"the cache folder {path} is relative to the .blend file, "
                                "which is not saved yet: save it, or set an absolute cache "
                                "folder on the Plume domain")  # fmt: skip
    return os.path.abspath(bpy.path.abspath(path))


def reported_cache(op, context):
    """The domain and its cache folder, or (None, None) with the error reported on `op`."""
    domain = reported_domain(op, context)
    if domain is None:
        return None, None
    try:
        return domain, cache_dir(domain)
    except writer.SceneError as e:
        op.report({"ERROR"}, str(e))
        return None, None


def run_args(context, domain, folder, resume=False):
    scene = context.scene
    frames = scene.frame_end - scene.frame_start + 1
    args = [plume_binary(context), "run", "--scene", os.path.join(folder, "scene.toml"),
            "--frames", str(frames), "--out", os.path.join(folder, "frames"), "--format", "vdb",
            "--fields", "density,temperature,flame,velocity", "--up", "z",
            "--backend", domain.plume.backend]  # fmt: skip
    args.append("--resume" if resume else "--overwrite")
    return args


class Bake:
    """The one bake running (a subprocess of `plume run`)."""

    process = None
    reader = None
    lines: ClassVar[list] = []


def start_bake(context, resume):
    domain = domain_of(context)
    if domain is None:
        raise writer.SceneError(writer.NO_DOMAIN)
    if Bake.process is not None and Bake.process.poll() is None:
        # Its scene.toml and meshes stay as it read them, and its process stays ours to wait.
        raise writer.SceneError("a bake is running: wait for it or cancel it first")
    folder = cache_dir(domain)
    writer.build(context.scene, folder)
    args = run_args(context, domain, folder, resume)
    try:
        Bake.process = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                        text=True, bufsize=1)  # fmt: skip
    except OSError as e:
        raise writer.SceneError(f"cannot start {args[0]}: {e} (set the binary in the add-on's "
                                "preferences)") from e  # fmt: skip
    Bake.lines = []
    # Plume's progress (a line a frame) is read as it comes, so its pipe never fills.
    Bake.reader = threading.Thread(target=_read, args=(Bake.process,), daemon=True)
    Bake.reader.start()
    return Bake.process


def stop_bake():
    """Stops the running bake, if any, and waits for it: SIGTERM, on which Plume keeps its
    whole frames and leaves the folder resumable. Run when Blender quits and when the add-on
    is disabled, so no bake goes on unseen."""
    p = Bake.process
    if p is not None and p.poll() is None:
        p.send_signal(signal.SIGTERM)
        try:
            p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass


def _read(p):
    for line in p.stdout:
        Bake.lines.append(line.rstrip("\n"))


def finish_bake():
    """Waits for the bake; returns (ok, last line)."""
    p = Bake.process
    p.wait()
    Bake.reader.join()
    Bake.process = None
    last = next((line for line in reversed(Bake.lines) if line.strip()), "")
    return p.returncode == 0, last


class PLUME_OT_bake(bpy.types.Operator):
    """Write the scene and bake it with Plume (resumable)"""

    bl_idname = "plume.bake"
    bl_label = "Bake"
    resume: bpy.props.BoolProperty(default=False)
    wait: bpy.props.BoolProperty(default=False, description="Block until done (scripts)")

    _timer = None

    def execute(self, context):
        try:
            start_bake(context, self.resume)
        except writer.SceneError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        if self.wait or bpy.app.background:
            ok, last = finish_bake()
            if not ok:
                self.report({"ERROR"}, f"the bake failed: {last}")
                return {"CANCELLED"}
            self.report({"INFO"}, last)
            return {"FINISHED"}
        self._timer = context.window_manager.event_timer_add(0.2, window=context.window)
        context.window_manager.modal_handler_add(self)
        return {"RUNNING_MODAL"}

    def modal(self, context, event):
        if event.type != "TIMER" or Bake.process is None:
            return {"PASS_THROUGH"}
        p = Bake.process
        if p.poll() is None:
            if Bake.lines:
                context.workspace.status_text_set(f"Plume: {Bake.lines[-1]}")
            return {"PASS_THROUGH"}
        context.window_manager.event_timer_remove(self._timer)
        context.workspace.status_text_set(None)
        ok, last = finish_bake()
        self.report({"INFO"} if ok else {"ERROR"}, last)
        return {"FINISHED"} if ok else {"CANCELLED"}


class PLUME_OT_cancel(bpy.types.Operator):
    """Stop the bake (its folder stays resumable)"""

    bl_idname = "plume.cancel"
    bl_label = "Cancel"

    def execute(self, context):
        if Bake.process is not None and Bake.process.poll() is None:
            Bake.process.send_signal(signal.SIGTERM)
        return {"FINISHED"}


class PLUME_OT_load(bpy.types.Operator):
    """Load the baked frames as a volume object"""

    bl_idname = "plume.load"
    bl_label = "Load"

    def execute(self, context):
        domain, cache = reported_cache(self, context)
        if cache is None:
            return {"CANCELLED"}
        frames = os.path.join(cache, "frames")
        if not os.path.isfile(os.path.join(frames, "manifest.json")):
            self.report({"ERROR"}, f"nothing is baked in {frames} yet: Bake first")
            return {"CANCELLED"}
        try:
            # The bake followed the scene's own frame range and rate: its first frame is the
            # scene's first, and the scene's timing stays as the user set it.
            obj, _ = loader.load(frames, name=f"{domain.name} smoke",
                                 start=context.scene.frame_start)  # fmt: skip
        except loader.LoadError as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        obj.hide_render = False
        return {"FINISHED"}


class PLUME_OT_free(bpy.types.Operator):
    """Remove the baked frames (`plume free`: only what the run's manifest lists)"""

    bl_idname = "plume.free"
    bl_label = "Free"

    def execute(self, context):
        _, cache = reported_cache(self, context)
        if cache is None:
            return {"CANCELLED"}
        folder = os.path.join(cache, "frames")
        if not os.path.lexists(folder):
            self.report({"INFO"}, f"nothing to free: {folder} holds no bake")
            return {"FINISHED"}
        args = [plume_binary(context), "free", folder]
        try:
            p = subprocess.run(args, capture_output=True, text=True, check=False)
        except OSError as e:
            self.report({"ERROR"}, f"cannot start {args[0]}: {e}")
            return {"CANCELLED"}
        last = (p.stdout + p.stderr).strip().splitlines()
        self.report({"INFO"} if p.returncode == 0 else {"ERROR"}, last[-1] if last else "")
        return {"FINISHED"} if p.returncode == 0 else {"CANCELLED"}


class PLUME_OT_preview(bpy.types.Operator):
    """Open Plume's viewer on the written scene (needs a display)"""

    bl_idname = "plume.preview"
    bl_label = "Preview"

    def execute(self, context):
        _, cache = reported_cache(self, context)
        if cache is None:
            return {"CANCELLED"}
        try:
            writer.build(context.scene, cache)
            path = os.path.join(cache, "scene.toml")
            subprocess.Popen([plume_binary(context), "view", "--scene", path])
        except (writer.SceneError, OSError) as e:
            self.report({"ERROR"}, str(e))
            return {"CANCELLED"}
        return {"FINISHED"}


class PLUME_PT_panel(bpy.types.Panel):
    bl_label = "Plume"
    bl_space_type = "PROPERTIES"
    bl_region_type = "WINDOW"
    bl_context = "physics"

    def draw(self, context):
        obj = context.object
        if obj is None:
            return
        s = obj.plume
        col = self.layout.column()
        col.prop(s, "role")
        if s.role == "DOMAIN":
            for name in ("resolution", "upres", "backend", "vorticity", "buoyancy", "fade",
                         "cooling", "smoke_weight", "cache"):  # fmt: skip
                col.prop(s, name)
            box = col.box()
            box.label(text="Faces")
            for face in ("x_min", "x_max", "y_min", "y_max", "z_min", "z_max"):
                box.prop(s, "face_" + face)
            row = col.row()
            row.operator("plume.bake").resume = False
            row.operator("plume.bake", text="Resume").resume = True
            row.operator("plume.cancel")
            row = col.row()
            row.operator("plume.load")
            row.operator("plume.free")
            row.operator("plume.preview")
        elif s.role == "EMITTER":
            for name in ("density", "temperature", "fuel", "velocity", "frame_start", "frame_end"):
                col.prop(s, name)


CLASSES = (PlumePreferences, PlumeSettings, PLUME_OT_bake, PLUME_OT_cancel, PLUME_OT_load,
           PLUME_OT_free, PLUME_OT_preview, PLUME_PT_panel)  # fmt: skip


def register():
    for c in CLASSES:
        bpy.utils.register_class(c)
    bpy.types.Object.plume = PointerProperty(type=PlumeSettings)
    atexit.register(stop_bake)


def unregister():
    atexit.unregister(stop_bake)
    stop_bake()
    del bpy.types.Object.plume
    for c in reversed(CLASSES):
        bpy.utils.unregister_class(c)
