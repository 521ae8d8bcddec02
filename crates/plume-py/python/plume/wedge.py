"""Wedges from Python: many variants of one scene, on this machine or on a Dask cluster.

``plume.wedge(scene, vary={...}, frames=..., out=...)`` runs the variants one after another
here; with ``client=`` (a ``dask.distributed.Client``) it submits one task per variant to the
cluster. Either way the folder is what ``plume wedge`` writes: ``out/v0001/`` … (run folders
with their ``scene.toml``), ``out/wedge.json`` and ``out/contact.png``. Planning, each
variant's run, the index and the contact sheets are Plume's own (the extension's
``_wedge_*`` functions, the same code as ``plume wedge``); this module only schedules.

From a shell::

    python -m plume.wedge plume --vary fluid.vorticity=0,2,4 --frames 60 --out wedge \\
        --scheduler tcp://scheduler:8786
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any, Callable

from . import _plume
from ._plume import Scene

__all__ = ["main", "wedge"]


def _run_variant(
    out: str, index: int, folder: str, scene_toml: str, frames: int, options: dict
) -> tuple:
    """One variant, as a worker runs it: ``(index, state, frames, message)``."""
    state, held, message = _plume._wedge_variant(out, index, folder, scene_toml, frames, **options)
    return index, state, held, message


def wedge(
    scene: Scene,
    vary: dict,
    frames: int,
    out: str | os.PathLike,
    every: int = 1,
    formats: Any = None,
    fields: Any = None,
    backend: str = "auto",
    upres: int = 0,
    up: str = "y",
    half: bool = False,
    prefix: str = "plume",
    resume: bool = False,
    overwrite: bool = False,
    sheet_every: int | None = None,
    client: Any = None,
    retries: int = 2,
    progress: bool | Callable[[dict], Any] = True,
) -> dict:
    """Runs every combination of ``vary``'s values of ``scene`` into ``out``, as
    ``plume wedge`` does, and returns the wedge's index (what ``out/wedge.json`` holds).

    ``vary`` maps a dotted key to its list of values (``{"fluid.vorticity": [0, 2, 4]}``);
    every value is checked against the scene before anything runs. The other arguments are
    ``plume.run``'s, plus ``sheet_every`` (a contact sheet every K frames as well as of the
    last). Without ``client`` the variants run here, one after another. With a
    ``dask.distributed.Client`` each is a task on the cluster (retried ``retries`` times if
    its worker dies; the retry resumes the variant's folder): every worker needs ``plume``
    installed and ``out`` on storage it shares with the client. A variant that fails on its
    own is marked failed in ``wedge.json`` with its message; the others complete. Ctrl-C
    cancels what is queued; finished variants stay listed and ``resume=True`` continues.
    ``progress`` prints a line per variant (or is called with each variant's entry).
    """
    out = os.fspath(out)
    # Checks every argument, then holds the folder for this driver (a second one is refused)
    # until the wedge ends, however it ends.
    hold, todo = _plume._wedge_prepare(
        scene, vary, frames, out, every=every, upres=upres, resume=resume, overwrite=overwrite
    )
    try:
        options = dict(
            every=every,
            formats=formats,
            fields=fields,
            backend=backend,
            up=up,
            half=half,
            prefix=prefix,
            sheet_every=sheet_every,
            overwrite=overwrite,
        )
        total = len(todo)
        say = _reporter(progress)
        if client is None:
            for n, (index, folder, text) in enumerate(todo, 1):
                _plume._wedge_record(out, index, "running")
                say({"index": index, "folder": folder, "state": "running", "n": n, "of": total})
                try:
                    _, state, _held, message = _run_variant(
                        out, index, folder, text, frames, options
                    )
                except KeyboardInterrupt:
                    _plume._wedge_record(out, index, "interrupted")
                    raise
                _plume._wedge_record(out, index, state, message)
                say({"index": index, "folder": folder, "state": state, "message": message})
        else:
            _on_cluster(client, out, todo, frames, options, retries, say)
        return _plume._wedge_finish(out, sheet_every)
    finally:
        hold.release()


def _on_cluster(client, out, todo, frames, options, retries, say) -> None:
    from dask.distributed import as_completed

    futures = {}
    for index, folder, text in todo:
        f = client.submit(
            _run_variant,
            out,
            index,
            folder,
            text,
            frames,
            options,
            key=f"plume-wedge-{folder}-{os.getpid()}-{time.time_ns()}",
            retries=retries,
            pure=False,
        )
        futures[f] = (index, folder)
        _plume._wedge_record(out, index, "running")
    done = failed = 0
    try:
        for f in as_completed(list(futures)):
            index, folder = futures[f]
            try:
                _, state, _held, message = f.result()
            except Exception as e:  # the task itself failed (a worker died too often)
                state, message = "failed", f"{type(e).__name__}: {e}"
            _plume._wedge_record(out, index, state, message)
            done += state == "done"
            failed += state == "failed"
            running = len(futures) - done - failed
            say(
                {
                    "index": index,
                    "folder": folder,
                    "state": state,
                    "message": message,
                    "done": done,
                    "failed": failed,
                    "running": running,
                }
            )
    except KeyboardInterrupt:
        client.cancel(list(futures))
        for f, (index, _) in futures.items():
            if f.status != "finished":
                _plume._wedge_record(out, index, "interrupted")
        raise


def _reporter(progress):
    if callable(progress):
        return progress
    if not progress:
        return lambda entry: None

    def say(e: dict) -> None:
        if "done" in e:
            counts = f" ({e['done']} done, {e['running']} running, {e['failed']} failed)"
        else:
            counts = ""
        why = f": {e['message']}" if e.get("message") else ""
        print(f"variant {e['index']} ({e['folder']}) {e['state']}{why}{counts}", file=sys.stderr)

    return say


def main(argv: list[str] | None = None) -> int:
    """``python -m plume.wedge``: ``plume wedge``'s arguments, plus ``--scheduler``."""
    ap = argparse.ArgumentParser(prog="python -m plume.wedge", description=main.__doc__)
    ap.add_argument("scene", help="a scene file (TOML) or a preset's name")
    ap.add_argument("--vary", action="append", required=True, metavar="KEY=VALUES")
    ap.add_argument("--frames", type=int, required=True)
    ap.add_argument("--every", type=int, default=1)
    ap.add_argument("--out", required=True)
    ap.add_argument("--format", default="vdb")
    ap.add_argument("--fields", default=None)
    ap.add_argument("--size", type=int, default=None)
    ap.add_argument("--backend", default="auto")
    ap.add_argument("--upres", type=int, default=0)
    ap.add_argument("--up", default="y")
    ap.add_argument("--sheet-every", type=int, default=None)
    ap.add_argument("--resume", action="store_true")
    ap.add_argument("--overwrite", action="store_true")
    ap.add_argument("--scheduler", default=None, help="a Dask scheduler, e.g. tcp://host:8786")
    a = ap.parse_args(argv)
    scene = Scene.preset(a.scene) if a.scene in Scene.presets() else Scene.load(a.scene)
    if a.size:
        scene = scene.with_size(a.size)
    vary = dict(_plume._parse_vary(v) for v in a.vary)
    client = None
    if a.scheduler:
        from dask.distributed import Client

        client = Client(a.scheduler)
    try:
        index = wedge(
            scene,
            vary,
            a.frames,
            a.out,
            every=a.every,
            formats=a.format,
            fields=a.fields,
            backend=a.backend,
            upres=a.upres,
            up=a.up,
            sheet_every=a.sheet_every,
            resume=a.resume,
            overwrite=a.overwrite,
            client=client,
        )
    except KeyboardInterrupt:
        print(
            f"interrupted: {a.out}/wedge.json lists each variant's state; --resume continues",
            file=sys.stderr,
        )
        return 130
    failed = [v for v in index["variants"] if v["state"] == "failed"]
    for v in failed:
        print(
            f"error: variant {v['index']} ({v['folder']}) failed: {v['message']}", file=sys.stderr
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
