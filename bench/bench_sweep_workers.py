"""`lab sweep` on 1 and 2 workers, as a user runs it (issue 14: a second worker gained 1.08x
because the cold pool took longer to start than the sweep took). Prints one JSON object;
figures are median/min/max over repeats, ratios per pair of runs.

The hard path: 64 points of a Mooncake conversation trace (400 requests, shared prefixes)
with prefix caching on and KV pools of 18-24 GiB (every point preempts), max_num_seqs x
token_budget. Each run is a fresh `python -m lab sweep ... --workers N --json` into a new
folder; 1 and 2 workers alternate run by run, so a pair sees the same load from the rest of
the machine.

- cli_wall_s_workers_N: the whole command (interpreter start, imports, pool, sweep, files);
- sweep_wall_s_workers_N: the same run less the interpreter start and `import lab.cli`
  (main() alone: parse, start the pool, the points, the files);
- scaling_ratio_cli / scaling_ratio_sweep: wall(1 worker) / wall(2 workers) per pair
  (target >= 1.7 on two free cores; the load average is printed beside it: on a machine
  other processes load, the two workers share what the scheduler gives this session);
- cpu_s_workers_N: CPU of the command and the workers it reaped (a forkserver's workers are
  the server's children, not counted: compare CPU only between runs that fork);
- preempting_points / caching_points: points with preemptions > 0 / cache hits > 0.
--cold-cache: each run with an empty numba cache (the first sweep after the engine's sources
changed, when every cold worker compiled the engine itself: the issue's 24.5 s).

    .venv/bin/python bench/bench_sweep_workers.py [--repeat N] [--root CHECKOUT] [--cold-cache]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchstats import stats

ROOT = Path(__file__).resolve().parents[1]
TRACE = "tests/data/traces/mooncake_conversation_400.jsonl"
GRID = [f"trace={TRACE}", "prefix_caching=true", "kv_pool_bytes=18GiB,20GiB,22GiB,24GiB",
        "max_num_seqs=16:64:16", "token_budget=2048:8192:2048"]
TARGET_RATIO = 1.7
# Run in the child: main()'s own wall beside the process's (stderr, one JSON line).
TIMED_MAIN = """
import json, sys, time
from lab.cli import main
start = time.perf_counter()
code = main(sys.argv[1:])
print(json.dumps({"code": code, "main_s": time.perf_counter() - start}), file=sys.stderr)
"""


def one_run(root: Path, workers: int, out: Path, cache_home: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    if cache_home is not None:  # an empty cache: numba compiles the engine (core/serving/engine/jit.py's folder)
        env["XDG_CACHE_HOME"] = str(cache_home)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", TIMED_MAIN, "sweep", "serving", *GRID, "--out", str(out),
                           "--workers", str(workers), "--json"], cwd=root, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"lab sweep failed ({done.returncode}): {done.stderr[-2000:]}")
    timing = json.loads(done.stderr.strip().splitlines()[-1])
    summary = json.loads(done.stdout)
    assert summary["points"]["computed"] == 64, summary["points"]
    rows = [json.loads(line)["row"] for line in (out / "points.jsonl").read_text().splitlines() if line.strip()]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return {"wall": wall, "main": timing["main_s"], "cpu": cpu, "rows": rows}


def _count(rows: list[dict], key: str) -> int:
    return sum(1 for r in rows if isinstance(r.get(key), (int, float)) and r[key] > 0)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lab` runs (default: this one)")
    ap.add_argument("--cold-cache", action="store_true",
                    help="every run with an empty numba cache (a first sweep after the engine changed)")
    args = ap.parse_args()
    out: dict = {"points": 64, "cpus": os.cpu_count(), "root": str(args.root), "cold_cache": args.cold_cache,
                 "load_avg_1min_before": round(os.getloadavg()[0], 2)}
    runs: dict[int, list[dict]] = {1: [], 2: []}
    with tempfile.TemporaryDirectory(prefix="bench-sweep-workers-") as tmp:
        if not args.cold_cache:
            one_run(args.root, 1, Path(tmp) / "warm-up")  # untimed: numba's cache for this checkout's engine
        for i in range(args.repeat):
            for w in (1, 2):
                cache = Path(tmp) / f"cache-w{w}-{i}" if args.cold_cache else None
                runs[w].append(one_run(args.root, w, Path(tmp) / f"w{w}-{i}", cache))
    for w, got in runs.items():
        out[f"cli_wall_s_workers_{w}"] = stats([r["wall"] for r in got])
        out[f"sweep_wall_s_workers_{w}"] = stats([r["main"] for r in got])
        out[f"cpu_s_workers_{w}"] = stats([r["cpu"] for r in got])
    out["scaling_ratio_cli"] = stats([a["wall"] / b["wall"] for a, b in zip(runs[1], runs[2])], digits=3,
                                     target=TARGET_RATIO, kind="min")
    out["scaling_ratio_sweep"] = stats([a["main"] / b["main"] for a, b in zip(runs[1], runs[2])], digits=3,
                                       target=TARGET_RATIO, kind="min")
    rows = runs[1][0]["rows"]
    out["preempting_points"] = _count(rows, "preemptions")
    out["caching_points"] = _count(rows, "cache_hit_rate")
    out["load_avg_1min_after"] = round(os.getloadavg()[0], 2)
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
