"""What stepping from Python costs beside `plume bench`: the same scene, grid and backend,
timed per step from Python (wall time of `sim.step()`) and by `plume bench --json`, in one
process after the other, with the solver's own time per step (`stats()["total_ms"]`) so the
module's share is seen apart from the machine's noise. Also the time to read one field.

    python crates/plume-py/tools/overhead.py [--size 64] [--steps 60] [--plume target/release/plume]
"""

import argparse
import json
import statistics
import subprocess
import time

import plume


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--steps", type=int, default=60)
    ap.add_argument("--read-size", type=int, default=128)
    ap.add_argument("--plume", default="target/release/plume")
    a = ap.parse_args()

    bench = subprocess.run(
        [
            a.plume,
            "bench",
            "--size",
            str(a.size),
            "--backend",
            "cpu",
            "--steps",
            str(a.steps),
            "--json",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    report = json.loads(bench.stdout.strip().splitlines()[-1])

    sim = plume.Simulation(plume.Scene.preset("plume").with_size(a.size), backend="cpu")
    sim.step(5)
    wall, solver = [], []
    for _ in range(a.steps):
        t = time.perf_counter()
        sim.step()
        wall.append((time.perf_counter() - t) * 1e3)
        solver.append(sim.stats()["total_ms"])
    py_ms = statistics.median(wall)
    own = statistics.median(w - s for w, s in zip(wall, solver))

    big = plume.Simulation(plume.Scene.preset("plume").with_size(a.read_size), backend="cpu")
    big.step()
    reads = {}
    for name in ("density", "velocity"):
        times = []
        for _ in range(10):
            t = time.perf_counter()
            getattr(big, name)
            times.append((time.perf_counter() - t) * 1e3)
        reads[name] = statistics.median(times)

    out = {
        "size": a.size,
        "bench_ms_per_step": report.get("ms_per_step", report.get("median_ms")),
        "python_ms_per_step": py_ms,
        "python_solver_ms_per_step": statistics.median(solver),
        "module_ms_per_step": own,
        f"read_ms_{a.read_size}": reads,
    }
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
