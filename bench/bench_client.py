"""Issue 12's client and front end (core/serving/engine/client.py): what they cost a
200k-request replay. A vllm bench random workload (512 ± 50% in, 128 ± 50% out, Poisson
at 5/s, below the engine's capacity; core/serving/workloads_bench.py) through the book's engine config:

- open: the engine alone (no client limit, no front end);
- limit_never_binds: max_concurrency = the request count, so the schedule is the open
  one and only the client's path is paid (its results equal open's, checked);
- closed_8: max_concurrency=8, vllm bench's closed loop, binding about as often as not
  (another schedule);
- frontend: the API server in front (frontend.py's default coefficients).

Prints JSON: per case the CPU time of one core (median/min/max over the runs; process
time, two shared cores make wall time noisy) and µs per request, and the ratio
case/open of each pair of runs taken back to back (median/min/max) against the 1.2 target.

    PYTHONPATH=. .venv/bin/python bench/bench_client.py [--runs N] [--requests N]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchstats import stats

from core.serving import workloads_bench as wb
from core.serving.engine import EngineConfig, replay
from core.serving.engine.frontend import FrontEnd

TARGET = 1.2


def _cpu(work, config):
    t = time.process_time()
    result = replay(work, config)
    return time.process_time() - t, result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--requests", type=int, default=200_000)
    args = ap.parse_args()
    n = args.requests
    work = wb.bench_workload("random", num_prompts=n, request_rate=5.0, seed=1, input_len=512, output_len=128,
                             range_ratio=0.5)
    base = EngineConfig()
    cases = {"limit_never_binds": EngineConfig(max_concurrency=n), "closed_8": EngineConfig(max_concurrency=8),
             "frontend": EngineConfig(frontend=FrontEnd())}
    warm = wb.bench_workload("fixed", num_prompts=4)  # compile or load the loop before timing
    replay(warm, base)
    replay(warm, EngineConfig(max_concurrency=2, frontend=FrontEnd()))
    times: dict[str, list[float]] = {"open": []} | {k: [] for k in cases}
    ratios: dict[str, list[float]] = {k: [] for k in cases}
    same = True
    for _ in range(args.runs):
        t_open, open_result = _cpu(work, base)
        times["open"].append(t_open)
        for name, config in cases.items():
            t, result = _cpu(work, config)
            times[name].append(t)
            ratios[name].append(t / t_open)
            if name == "limit_never_binds":
                same = same and all(np.array_equal(getattr(open_result, k), getattr(result, k))
                                    for k in ("arrival_s", "first_token_s", "finish_s"))
    out = {"requests": n, "workload": work.label, "limit_never_binds_equals_open": same,
           "last_completion_s": {"open": float(open_result.finish_s.max()), "last_send_s": float(work.arrival_s[-1])},
           "cpu_s": {k: stats(v) for k, v in times.items()},
           "us_per_request": {k: stats(v, scale=1e6 / n, digits=2) for k, v in times.items()},
           "ratio_to_open": {k: stats(v, target=TARGET) for k, v in ratios.items()}}
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
