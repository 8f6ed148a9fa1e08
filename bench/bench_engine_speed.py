"""Issue 12 "A faster engine": today's engine (core/serving/engine.py) against the engine
frozen at the issue's start (bench/frozen_engine), in the same process and run, on the
hard path (a queue that builds up and a pool small enough to preempt), a prefix-caching
workload (multi-turn sessions with tool waits) and, if the traces are here, Mooncake's
conversation trace (hash_ids). Every pair of results is checked bit for bit first.

Prints JSON: per workload the frozen and the new wall time (median/min/max over the runs),
the ratio frozen/new of each pair of runs taken back to back (median/min/max; target >= 5
at 200k requests) and of the medians, microseconds per engine event.
--book-step-by-step adds the book's two scenarios step by step (fast=False, one run each;
the tests compare them too). --prefix-only: the prefix-caching hard path alone, the
workloads bench_serving.py times (50k-request sessions, Mooncake's trace) plus hash ids on
a pool small enough to evict and preempt.

    .venv/bin/python bench/bench_engine_speed.py [--quick] [--runs N] [--big-runs N] [--book-step-by-step]
        [--prefix-only]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import sys
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchstats import stats  # noqa: E402
from serving_workloads import TRACES, mooncake_workload, sessions_workload, synthetic_trace  # noqa: E402

from core.registry import get  # noqa: E402
from core.serving import replay as rp  # noqa: E402
from core.serving.engine import EngineConfig, replay, validate  # noqa: E402
from core.units import GiB  # noqa: E402
from tests.oracles.frozen_engine import replay as frozen_replay  # noqa: E402

TARGET_RATIO = 5.0


def _timed(fn, work, config, fast: bool):
    gc.collect()
    t0 = time.perf_counter()
    result = fn(work, config, fast=fast)
    return time.perf_counter() - t0, result


def _identical(new, old) -> bool:
    from tests.core.test_engine_frozen import assert_identical
    try:
        assert_identical(new, old)
    except AssertionError:
        return False
    return True


def compare(label: str, work, config, runs: int, fast: bool = True) -> dict:
    validate(config, work)
    # Alternate the engines run by run so drift of the machine (2 cores shared) hits both;
    # each pair's ratio is taken from two runs back to back.
    old_walls, new_walls, old, new = [], [], None, None
    for _ in range(runs):
        w, old = _timed(frozen_replay, work, config, fast)
        old_walls.append(w)
        w, new = _timed(replay, work, config, fast)
        new_walls.append(w)
    old_med = stats(old_walls)["median"]
    new_med = stats(new_walls)["median"]
    ratios = [o / n for o, n in zip(old_walls, new_walls)]
    return {"workload": label, "fast": fast, "requests": len(work), "events": new.events,
            "engine_steps": new.engine_steps,
            "preemptions": int(new.preemptions.sum()), "cache_hit_rate": new.extras.get("cache_hit_rate"),
            "bit_identical": _identical(new, old),
            "frozen_wall_s": stats(old_walls, unit="s"), "new_wall_s": stats(new_walls, unit="s"),
            "ratio": stats(ratios, digits=2),
            "ratio_of_medians": round(old_med / new_med, 2),
            "frozen_us_per_event": round(old_med / old.events * 1e6, 2),
            "new_us_per_event": round(new_med / new.events * 1e6, 2)}


def prefix_rows(runs: int) -> list[dict]:
    """The prefix-caching hard path: per-block work in the block pool (lookups, hits,
    caching, LRU evictions), the frozen engine against today's, pair by pair."""
    from tests.core.test_engine_frozen import hash_id_workload
    rows = [compare("sessions_prefix_caching_50k", sessions_workload(), EngineConfig(), runs),
            compare("hash_ids_tight_pool_4k", hash_id_workload(4_000, seed=11),
                    EngineConfig(kv_pool_bytes=2 * GiB, max_num_seqs=32), runs)]
    if os.path.exists(os.path.join(TRACES, "mooncake_conversation_trace.jsonl")):
        rows.append(compare("mooncake_hash_ids_12k", mooncake_workload(), EngineConfig(), runs))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="20k requests instead of 200k (a smoke run)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each engine on the smaller workloads")
    ap.add_argument("--big-runs", type=int, default=3, help="runs of each engine at 200k requests")
    ap.add_argument("--book-step-by-step", action="store_true",
                    help="also the book's two scenarios with fast=False (one run each)")
    ap.add_argument("--prefix-only", action="store_true",
                    help="only the prefix-caching workloads (sessions 50k, Mooncake, tight hash ids)")
    args = ap.parse_args()
    if args.prefix_only:
        print(json.dumps({"workloads": prefix_rows(args.runs)}, indent=1))
        return
    big = 20_000 if args.quick else 200_000
    hard = EngineConfig(kv_pool_bytes=6 * GiB, max_num_seqs=64)
    rows = [
        compare("synthetic_queue_preempting_20k", synthetic_trace(20_000, seed=1, rate_per_s=8.0), hard, args.runs),
        compare(f"synthetic_queue_preempting_{big // 1000}k", synthetic_trace(big, seed=1, rate_per_s=8.0), hard,
                args.big_runs),
        # 20k requests: its cost is per cached block, not per event (~100 us an event either
        # engine), so 200k would take minutes and say the same.
        compare("sessions_prefix_caching_20k", sessions_workload(sessions=2_000, turns=10, seed=2),
                EngineConfig(), args.runs),
    ]
    if os.path.exists(os.path.join(TRACES, "mooncake_conversation_trace.jsonl")):
        rows.append(compare("mooncake_hash_ids_12k", mooncake_workload(), EngineConfig(), args.runs))
    if args.book_step_by_step:
        for shares in ("", "0.9,0.1"):
            values = get("serving.replay").resolve({"shares_long_input": shares} if shares else {})
            rows.append(compare(f"book_{'shift' if shares else 'uniform'}_step_by_step", rp.workload_from(values),
                                rp.config_from(values), 1, fast=False))
    at_big = [r for r in rows if r["requests"] == big and r["workload"].startswith("synthetic")][0]
    at_target = {**at_big["ratio"], "target": TARGET_RATIO, "over_target": at_big["ratio"]["median"] < TARGET_RATIO}
    print(json.dumps({"ratio_at_200k": at_target, "workloads": rows}, indent=1))


if __name__ == "__main__":
    main()
