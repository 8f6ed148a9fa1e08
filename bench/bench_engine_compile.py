"""Issue 24 "first compile ≤ 10 s": the compiled engine's first replays in a fresh process
with an empty numba cache (the compile, paid once per machine), then with the cache that
run wrote (every later start). Each child times its entry points' first calls in turn:
import, a plain replay, a sessions replay with prefix caching, a Mooncake-like hash-id
replay, a cancel, a router's cached-prefix look; numba's compile events (numba.core.event)
say how much of that CPU time each top-level compile took (a cancel and the look are
operations of the loop's one entry point, run_events, since abbd470: no compile of their own).

Prints JSON: CPU time of the child (resource.getrusage of the children, so numba's worker
threads count too) and its wall time, median/min/max over the repeats, and the per-phase
seconds of each cold run.

    PYTHONPATH=. .venv/bin/python bench/bench_engine_compile.py [--runs N] [--warm-runs N]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))

from benchstats import stats

TARGET_COMPILE_S = 10.0
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")

# The child: each phase's CPU and wall seconds, and the CPU of numba's outermost compiles.
_CHILD = r"""
import json, time
phases = {}
def phase(name, fn):
    c, w = time.process_time(), time.perf_counter()
    fn()
    phases[name] = [round(time.process_time() - c, 3), round(time.perf_counter() - w, 3)]
compiles = {}
def listen():
    from numba.core import event
    depth = [0]
    class L(event.Listener):
        def on_start(self, ev):
            depth[0] += 1
            if depth[0] == 1:
                self.t = time.process_time()
        def on_end(self, ev):
            depth[0] -= 1
            if depth[0] == 0:
                name = str(ev.data["dispatcher"].py_func.__qualname__)
                compiles[name] = round(compiles.get(name, 0.0) + time.process_time() - self.t, 3)
    event.register("numba:compile", L())
def imports():
    global np, E, Workload, Sessions, replay, EngineConfig
    import numpy as np
    from core.serving import engine as E
    from core.serving.engine import EngineConfig, replay
    from core.serving.workload import Sessions, Workload
    listen()
phase("import", imports)
def plain():
    replay(Workload(np.zeros(2), np.array([100, 100]), np.array([5, 5])), EngineConfig())
def sessions():
    s = Sessions(np.zeros(2, np.int64), np.arange(2), np.array([100, 20]), np.array([0, 105]),
                 np.array([np.nan, 1.0]), np.zeros(2), np.ones(2, bool))
    replay(Workload(np.zeros(2), np.array([100, 125]), np.array([5, 5]), sessions=s), EngineConfig())
def hash_ids():
    from tests.core.test_engine_frozen import hash_id_workload
    replay(hash_id_workload(20, seed=1), EngineConfig())
def cancel_and_look():
    from tests.core.test_engine_frozen import hash_id_workload
    for work in (Workload(np.zeros(2), np.array([100, 100]), np.array([5, 5])), hash_id_workload(4, seed=1)):
        e = E.Engine(work, EngineConfig())
        e.route()
        e.submit(0)
        e.advance(0.01)
        e.cached_prefix_blocks(1)
        e.cancel(0)
phase("replay_plain", plain)
phase("replay_sessions_caching", sessions)
phase("replay_hash_ids", hash_ids)
phase("cancel_and_prefix_look", cancel_and_look)
print(json.dumps({"phases": phases, "compiles_cpu_s": compiles}))
"""


def child(cache: str) -> dict:
    env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=ROOT)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    import time
    wall = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _CHILD], env=env, capture_output=True, text=True, check=True,
                         cwd=ROOT).stdout
    wall = time.perf_counter() - wall
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return dict(json.loads(out.splitlines()[-1]), cpu_s=cpu, wall_s=wall)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3, help="cold starts (each with an empty cache)")
    ap.add_argument("--warm-runs", type=int, default=3, help="starts with the cache on disk")
    args = ap.parse_args()
    cold, warm = [], []
    for _ in range(args.runs):
        with tempfile.TemporaryDirectory() as cache:
            cold.append(child(cache))
            if not warm:
                warm = [child(cache) for _ in range(args.warm_runs)]
    out = {"cpus": os.cpu_count(), "load_average": os.getloadavg(),
           "first_compile_cpu_s": stats([r["cpu_s"] for r in cold], unit="s", target=TARGET_COMPILE_S),
           "first_compile_wall_s": stats([r["wall_s"] for r in cold], unit="s"),
           "cached_start_cpu_s": stats([r["cpu_s"] for r in warm], unit="s"),
           "cached_start_wall_s": stats([r["wall_s"] for r in warm], unit="s"),
           "cold_phases_cpu_wall_s": [r["phases"] for r in cold],
           "cold_compiles_cpu_s": [r["compiles_cpu_s"] for r in cold]}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
