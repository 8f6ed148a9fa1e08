"""`lab sweep` on 1 and 2 workers, as a user runs it (issue 14: a second worker gained 1.08x
because the cold pool took longer to start than the sweep took). Prints one JSON object;
figures are median/min/max over repeats, ratios per pair of runs (1 and 2 workers alternate
run by run, so a pair sees the same load from the rest of the machine).

Two 64-point grids (--grid, default both):
- hard: a Mooncake conversation trace (400 requests, shared prefixes) with prefix caching on
  and KV pools of 18-24 GiB (every point preempts), max_num_seqs x token_budget: small
  points, so the serial part (start, imports, the engine's load, the files) bounds the ratio;
- long: the synthetic workload, 300 s at 30 req/s (about 9,000 requests a point), 2 KV
  pools x max_num_seqs x token_budget x 2 seeds: points that dominate.
Each run is a fresh `python bench/bench_sweep_probe.py sweep serving ... --workers N --json`
(lab.cli.main with LocalPool's phases timed) into a new folder. Per grid:
- cli_wall_s / sweep_wall_s: the whole command / main() alone (less interpreter start and imports);
- phases_workers_N: the parent's wall and CPU per phase (startup, pre, warm_up, pool_start,
  points, post: bench_sweep_probe.py says what each holds), medians over runs;
- pool_start_s: the pool's start-up cost in the parent = warm-up + forks (wall, CPU);
- workers_cpu_s_workers_N: each worker's CPU (from /proc before the pool shuts down);
- cpu_s_workers_N: CPU of the command and every worker;
- scaling_ratio_cli / scaling_ratio_sweep: wall(1 worker) / wall(2 workers) per pair;
- scaling_ratio_from_cpu: the same ratio from CPU times, i.e. what a machine with the
  cores free would see: the parent's serial CPU (startup, pre, warm-up, pool start, post)
  plus the parallel part, max(the busiest worker, (all workers + the parent's CPU while
  the points run) / cores). The walls are what this shared machine gave; on a machine
  other processes load, two workers share the cores this session gets, and the wall ratio
  says little (the load average is printed beside it);
- serial_share_workers_1: the parent's serial CPU / the 1-worker estimate; ratio_ceiling:
  1 / (share + (1 - share) / 2), the most two workers can gain over it (Amdahl);
- cores_given_workers_N: CPU of the workers and the parent while the points run / that
  phase's wall: the cores this machine gave the sweep (2 free cores give about N);
- payload_bytes (one point's pickled task) and shared_bytes (the pickled trace: a fork
  sends none, the workers inherit it).
--cold-cache: each run with an empty numba cache (the first sweep after the engine's sources
changed, when every cold worker compiled the engine itself: the issue's 24.5 s).

    .venv/bin/python bench/bench_sweep_workers.py [--repeat N] [--grid hard|long|both] [--root CHECKOUT] [--cold-cache]
"""
from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchstats import stats

ROOT = Path(__file__).resolve().parents[1]
PROBE = Path(__file__).resolve().parent / "bench_sweep_probe.py"
TRACE = "tests/data/traces/mooncake_conversation_400.jsonl"
GRIDS = {
    "hard": [f"trace={TRACE}", "prefix_caching=true", "kv_pool_bytes=18GiB,20GiB,22GiB,24GiB",
             "max_num_seqs=16:64:16", "token_budget=2048:8192:2048"],
    "long": ["durations_s=300", "rates_per_s=30", "shares_long_input=0.3", "kv_pool_bytes=16GiB,24GiB", "max_num_seqs=16:64:16", "token_budget=2048:8192:2048", "seeds=0,1"],
}
TARGET_RATIO = 1.7
SERIAL = ("startup", "pre", "warm_up", "pool_start", "post")


def one_run(root: Path, grid: list[str], workers: int, out: Path, cache_home: Path | None = None) -> dict:
    env = dict(os.environ, PYTHONPATH=str(root))
    if cache_home is not None:  # an empty cache: numba compiles the engine (core/serving/engine/jit.py's folder)
        env["XDG_CACHE_HOME"] = str(cache_home)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, str(PROBE), "sweep", "serving", *grid, "--out", str(out),
                           "--workers", str(workers), "--json"], cwd=root, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"lab sweep failed ({done.returncode}): {done.stderr[-2000:]}")
    probe = json.loads(done.stderr.strip().splitlines()[-1])
    summary = json.loads(done.stdout)
    assert summary["points"]["computed"] == 64, summary["points"]
    assert probe["start_method"] == "fork" and len(probe["workers_cpu_s"]) == workers, probe
    rows = [json.loads(line)["row"] for line in (out / "points.jsonl").read_text().splitlines() if line.strip()]
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)  # the command and its reaped workers
    return {"wall": wall, "main": probe["main_s"], "cpu": cpu, "rows": rows, **probe}


def cpu_estimate(run: dict, cores: int) -> tuple[float, float]:
    """(the estimated wall on free cores, its serial part): see the module's docstring."""
    ph = run["phases"]
    serial = sum(ph[name]["cpu"] for name in SERIAL)
    workers = run["workers_cpu_s"]
    parallel = max(max(workers), (sum(workers) + ph["points"]["cpu"]) / cores)
    return serial + parallel, serial


def _count(rows: list[dict], key: str) -> int:
    return sum(1 for r in rows if isinstance(r.get(key), (int, float)) and r[key] > 0)


def _without_wall(row: dict) -> dict:
    return {k: v for k, v in row.items() if k != "wall_s"}


def _phase_medians(got: list[dict]) -> dict:
    out = {}
    for name in got[0]["phases"]:
        out[name] = {k: None if got[0]["phases"][name][k] is None else
                     round(statistics.median(r["phases"][name][k] for r in got), 3) for k in ("wall", "cpu")}
    return out


def bench_grid(args, name: str, tmp: Path) -> dict:
    grid = GRIDS[name]
    cores = os.cpu_count() or 1
    out: dict = {"points": 64, "grid": grid, "load_avg_1min_before": round(os.getloadavg()[0], 2)}
    runs: dict[int, list[dict]] = {1: [], 2: []}
    if not args.cold_cache:
        one_run(args.root, grid, 1, tmp / f"{name}-warm-up")  # untimed: numba's cache for this checkout's engine
    for i in range(args.repeat):
        for w in (1, 2):
            cache = tmp / f"cache-{name}-w{w}-{i}" if args.cold_cache else None
            runs[w].append(one_run(args.root, grid, w, tmp / f"{name}-w{w}-{i}", cache))
    for w, got in runs.items():
        out[f"cli_wall_s_workers_{w}"] = stats([r["wall"] for r in got])
        out[f"sweep_wall_s_workers_{w}"] = stats([r["main"] for r in got])
        out[f"cpu_s_workers_{w}"] = stats([r["cpu"] for r in got])
        out[f"phases_workers_{w}"] = _phase_medians(got)
        out[f"workers_cpu_s_workers_{w}"] = [round(statistics.median(r["workers_cpu_s"][j] for r in got), 3)
                                             for j in range(w)]
        out[f"estimated_wall_s_on_free_cores_workers_{w}"] = stats([cpu_estimate(r, cores)[0] for r in got])
    one = runs[1]
    out["pool_start_s"] = {k: stats([r["phases"]["warm_up"][k] + r["phases"]["pool_start"][k] for r in one])
                           for k in ("wall", "cpu")}
    shares = [cpu_estimate(r, cores)[1] / cpu_estimate(r, cores)[0] for r in one]
    out["serial_share_workers_1"] = stats(shares)
    out["ratio_ceiling"] = stats([1 / (s + (1 - s) / 2) for s in shares])
    for w, got in runs.items():
        out[f"cores_given_workers_{w}"] = stats([(sum(r["workers_cpu_s"]) + r["phases"]["points"]["cpu"])
                                                 / r["phases"]["points"]["wall"] for r in got])
    pairs = list(zip(runs[1], runs[2]))
    out["scaling_ratio_cli"] = stats([a["wall"] / b["wall"] for a, b in pairs], target=TARGET_RATIO, kind="min")
    out["scaling_ratio_sweep"] = stats([a["main"] / b["main"] for a, b in pairs], target=TARGET_RATIO, kind="min")
    out["scaling_ratio_from_cpu"] = stats([cpu_estimate(a, cores)[0] / cpu_estimate(b, cores)[0] for a, b in pairs],
                                          target=TARGET_RATIO, kind="min")
    out["payload_bytes"] = one[0]["payload_bytes"]
    out["shared_bytes"] = one[0]["shared_bytes"]
    rows = one[0]["rows"]
    out["preempting_points"] = _count(rows, "preemptions")
    out["caching_points"] = _count(rows, "cache_hit_rate")
    # Every run's rows, 1 or 2 workers, are the first run's (the point order may differ).
    first = sorted(map(_without_wall, rows), key=lambda r: r["point"])
    out["rows_equal_across_runs"] = all(sorted(map(_without_wall, r["rows"]), key=lambda r: r["point"]) == first
                                        for got in runs.values() for r in got)
    out["load_avg_1min_after"] = round(os.getloadavg()[0], 2)
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--grid", choices=("hard", "long", "both"), default="both")
    ap.add_argument("--root", type=Path, default=ROOT, help="the checkout whose `lab` runs (default: this one)")
    ap.add_argument("--cold-cache", action="store_true",
                    help="every run with an empty numba cache (a first sweep after the engine changed)")
    args = ap.parse_args()
    out: dict = {"cpus": os.cpu_count(), "root": str(args.root), "cold_cache": args.cold_cache}
    with tempfile.TemporaryDirectory(prefix="bench-sweep-workers-") as tmp:
        for name in ("hard", "long") if args.grid == "both" else (args.grid,):
            out[name] = bench_grid(args, name, Path(tmp))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
