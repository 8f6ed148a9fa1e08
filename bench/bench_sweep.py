"""`lab sweep` benchmark. Prints one JSON object; figures are median/min/max over repeats.

- sweep_64: a 64-point sweep of the book scenario (scenario uniform|shift x max_num_seqs
  16..64 x token_budget 2048..8192 x kv_pool_bytes 16|24 GiB), in memory, on a warm
  LocalPool of 1 and of 2 workers (the pool started before timing: steady state), and the
  scaling ratio wall(1) / wall(2) (target >= 1.7 on 2 free cores; the machine's load is
  printed beside it, since other processes share the cores);
- worker_cpu_share: CPU seconds the workers got / (wall x workers): 1.0 is a core each the
  whole time; below it the cores were shared with other processes and the ratio says less;
  worker_cpu_ms_per_point: the CPU a point costs in the workers (the same for 1 and 2
  workers when the pool adds no work: then on free cores the ratio is near 2);
- cold_start_s: the same sweep once on a fresh pool (worker start-up included);
- per_point_overhead_ms: LocalPool(1) minus in-process wall per point (pickling, IPC);
- search: capacity search of one setting (the book's, slo_ttft_ms=2000, tolerance 0.02):
  replays needed and wall.

    .venv/bin/python bench/bench_sweep.py [--repeat N]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

from benchstats import stats

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from core.sweep.executors import InProcess, LocalPool  # noqa: E402
from core.sweep.run import parse_sweep, run_sweep  # noqa: E402

GRID = {"scenario": "uniform,shift", "max_num_seqs": "16:64:16", "token_budget": "2048:8192:2048",
        "kv_pool_bytes": "16GiB,24GiB"}
SEARCH = {"search": "max_rate", "slo_ttft_ms": "2000", "tolerance": "0.02"}
TARGET_RATIO = 1.7
TICKS = os.sysconf("SC_CLK_TCK")


def cpu_s(pids) -> float:
    """CPU seconds (user + system) the processes have used so far (/proc/PID/stat)."""
    total = 0
    for pid in pids:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / TICKS


def timed(spec, executor) -> float:
    start = time.perf_counter()
    summary = run_sweep(spec, None, executor)
    assert summary["points"]["done"] == len(spec.points)
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    spec = parse_sweep("serving", GRID)
    assert len(spec.points) == 64
    out: dict = {"points": len(spec.points), "cpus": os.cpu_count(), "load_avg_1min_before": os.getloadavg()[0]}

    cold = LocalPool(2)
    out["cold_start_s"] = {"workers_2": round(timed(spec, cold), 3)}
    cold.close()

    walls = {}
    for workers in (1, 2):
        pool = LocalPool(workers)
        timed(parse_sweep("serving", {"max_num_seqs": ",".join(str(8 + i) for i in range(workers))}), pool)  # warm
        pids = pool.live_pids()
        before = cpu_s(pids)
        walls[workers] = [timed(spec, pool) for _ in range(args.repeat)]
        # The share of the workers' wall they got a core: < 1 when other processes hold the cores.
        used = cpu_s(pids) - before
        out[f"worker_cpu_share_workers_{workers}"] = round(used / (sum(walls[workers]) * workers), 3)
        # Work per point, whoever ran it: equal for 1 and 2 workers = the pool adds no work per point.
        out[f"worker_cpu_ms_per_point_workers_{workers}"] = round(used * 1e3 / (len(spec.points) * args.repeat), 1)
        pool.close()
        out[f"sweep_64_workers_{workers}_s"] = stats(walls[workers])
        out[f"per_point_ms_workers_{workers}"] = stats(walls[workers], scale=1e3 / len(spec.points), digits=2)
    ratios = [a / b for a, b in zip(walls[1], walls[2])]
    out["scaling_ratio_1_vs_2"] = stats(ratios, digits=3, target=TARGET_RATIO, kind="min")
    inproc = [timed(spec, InProcess()) for _ in range(max(3, args.repeat // 2))]
    out["sweep_64_inprocess_s"] = stats(inproc)
    out["per_point_overhead_ms"] = stats([(a - b) * 1e3 / len(spec.points) for a, b in zip(walls[1], inproc)], digits=2)

    search = parse_sweep("serving", SEARCH)
    search_walls, replays = [], None
    for _ in range(args.repeat):
        start = time.perf_counter()
        rows = []
        run_sweep(search, None, InProcess(), on_row=rows.append)
        search_walls.append(time.perf_counter() - start)
        replays = rows[0]["search.replays"]
        rate = rows[0]["search.max_rate_per_s"]
    out["search_one_setting"] = {"replays": replays, "max_rate_per_s": rate, "wall_s": stats(search_walls),
                                 "per_replay_ms": stats(search_walls, scale=1e3 / replays, digits=1)}
    out["load_avg_1min_after"] = os.getloadavg()[0]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
