"""Issue 24 "One engine, compiled": today's engine (core/serving/engine/, one numba-compiled
event loop) against the engine frozen at issue 12's start (tests/oracles/frozen_engine),
in the same process and run. Every pair of results is checked bit for bit first.

Workloads: the book's shapes (serving.replay's two classes, its engine) and a BurstGPT-like
stream (bench/serving_workloads.py) at 200k requests; prefix caching on multi-turn
sessions with tool waits and on Mooncake-like hash ids (a pool small enough to evict and
preempt), and on the Mooncake conversation excerpt in tests/data/traces; a 1M-request
BurstGPT-like point (today's engine alone: the frozen one takes minutes); the first
compile (a fresh numba cache, in a child process) and a start with the cache on disk.

Prints JSON: per workload the frozen and the new CPU time of one core (median/min/max over
the runs; process time, since two shared cores make wall time noisy), the ratio
frozen/new of each pair of runs taken back to back (median/min/max) against its target,
wall times, and microseconds per engine event.

    PYTHONPATH=. .venv/bin/python bench/bench_engine_speed.py [--quick] [--runs N] [--big-runs N]
        [--prefix-only] [--no-compile]
"""
from __future__ import annotations

import argparse
import gc
import json
import os
import resource
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from benchstats import stats
from serving_workloads import sessions_workload, synthetic_trace

from core.registry import get
from core.serving import replay as rp
from core.serving.engine import EngineConfig, replay, validate
from core.units import GiB
from tests.oracles.frozen_engine import replay as frozen_replay

TARGET = 20.0  # frozen / new at 200k requests, without prefix caching
TARGET_PREFIX = 10.0
TARGET_1M_CPU_S = 3.0
TARGET_COMPILE_S = 10.0
EXCERPT = os.path.join(os.path.dirname(__file__), "..", "tests", "data", "traces", "mooncake_conversation_400.jsonl")


def _timed(fn, work, config):
    gc.collect()
    w0, c0 = time.perf_counter(), time.process_time()
    result = fn(work, config)
    return time.process_time() - c0, time.perf_counter() - w0, result


def _identical(new, old) -> bool:
    from tests.core.test_engine_frozen import assert_identical
    try:
        assert_identical(new, old)
    except AssertionError:
        return False
    return True


def compare(label: str, work, config, runs: int, target: float) -> dict:
    validate(config, work)
    replay(work, config)  # the compiled loop loaded once before timing
    # Alternate the engines run by run so drift of the machine (2 cores shared) hits both;
    # each pair's ratio is taken from two runs back to back.
    old_cpu, new_cpu, old_wall, new_wall, old, new = [], [], [], [], None, None
    for _ in range(runs):
        c, w, old = _timed(frozen_replay, work, config)
        old_cpu.append(c)
        old_wall.append(w)
        c, w, new = _timed(replay, work, config)
        new_cpu.append(c)
        new_wall.append(w)
    ratios = stats([o / n for o, n in zip(old_cpu, new_cpu)], digits=1, target=target, kind="min")
    return {"workload": label, "requests": len(work), "events": new.events, "engine_steps": new.engine_steps,
            "preemptions": int(new.preemptions.sum()), "cache_hit_rate": new.extras.get("cache_hit_rate"),
            "bit_identical": _identical(new, old),
            "frozen_cpu_s": stats(old_cpu, unit="s"), "new_cpu_s": stats(new_cpu, unit="s"),
            "ratio": ratios, "wall_ratio": stats([o / n for o, n in zip(old_wall, new_wall)], digits=1),
            "frozen_us_per_event": round(stats(old_cpu)["median"] / old.events * 1e6, 2),
            "new_us_per_event": round(stats(new_cpu)["median"] / new.events * 1e6, 3)}


def book(requests: int):
    """The book's run (serving.replay's defaults: two classes, 4 req/s, its engine) stretched
    to `requests` (even arrivals, interleaved classes: the shapes, for longer)."""
    values = get("serving.replay").resolve()
    seconds = requests / 4.0 / 2
    values = dict(values, durations_s=(seconds, seconds))
    return rp.workload_from(values), rp.config_from(values)


def mooncake_like(n: int, seed: int):
    from tests.core.test_engine_frozen import hash_id_workload
    return hash_id_workload(n, seed=seed)


def prefix_rows(runs: int, quick: bool) -> list[dict]:
    from core.serving.traces import load_trace
    sessions = 500 if quick else 2_000
    rows = [compare(f"sessions_prefix_caching_{sessions * 10 // 1000}k", sessions_workload(sessions=sessions, turns=10,
                                                                                            seed=2),
                    EngineConfig(), runs, TARGET_PREFIX),
            compare("mooncake_like_hash_ids_tight_pool_4k", mooncake_like(4_000, 11),
                    EngineConfig(kv_pool_bytes=2 * GiB, max_num_seqs=32), runs, TARGET_PREFIX),
            compare("mooncake_conversation_excerpt_400", load_trace(EXCERPT), EngineConfig(), runs, TARGET_PREFIX)]
    return rows


def million(runs: int) -> dict:
    """One 1M-request BurstGPT-like point through the book's engine (today's engine alone)."""
    values = get("serving.replay").resolve()
    config = rp.config_from(values)
    work = synthetic_trace(1_000_000, seed=1)
    replay(synthetic_trace(1000, seed=1), config)
    cpu, wall, system, result = [], [], [], None
    for _ in range(runs):
        s0 = resource.getrusage(resource.RUSAGE_SELF).ru_stime
        c, w, result = _timed(replay, work, config)
        system.append(resource.getrusage(resource.RUSAGE_SELF).ru_stime - s0)
        cpu.append(c)
        wall.append(w)
    # system_s: the kernel's share of cpu_s, its page faults mostly (engine/pages.py)
    return {"requests": len(work), "events": result.events, "engine_steps": result.engine_steps,
            "cpu_s": stats(cpu, unit="s", target=TARGET_1M_CPU_S), "system_s": stats(system, unit="s"),
            "wall_s": stats(wall, unit="s"),
            "us_per_event": round(stats(cpu)["median"] / result.events * 1e6, 3)}


_CHILD = ("import time; t = time.perf_counter(); c = time.process_time(); import numpy as np; "
          "from core.serving.engine import replay, EngineConfig; from core.serving.workload import Workload; "
          "replay(Workload(np.zeros(2), np.array([100, 100]), np.array([5, 5])), EngineConfig()); "
          "from core.serving.workload import Sessions; "
          "s = Sessions(np.zeros(2, np.int64), np.arange(2), np.array([100, 20]), np.array([0, 105]), "
          "np.array([np.nan, 1.0]), np.zeros(2), np.ones(2, bool)); "
          "replay(Workload(np.zeros(2), np.array([100, 125]), np.array([5, 5]), sessions=s), EngineConfig()); "
          "print(time.perf_counter() - t, time.process_time() - c)")


def compile_times() -> dict:
    """The first replay in a fresh process: with an empty numba cache (the compile, once per
    machine), then with the cache it wrote (every later start), both kinds of replay (one
    without prefix caching, one with: one compiled loop serves both). CPU time of the
    child (its wall time too: on shared cores that waits for the others).
    bench/bench_engine_compile.py times each entry point's first call."""
    root = os.path.join(os.path.dirname(__file__), "..")
    with tempfile.TemporaryDirectory() as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache, PYTHONPATH=root)
        run = [sys.executable, "-c", _CHILD]

        def child() -> tuple[float, float]:
            wall, cpu = subprocess.run(run, env=env, capture_output=True, text=True, check=True).stdout.split()[-2:]
            return float(wall), float(cpu)
        cold_wall, cold_cpu = child()
        warm = [child() for _ in range(3)]
    return {"first_compile_cpu_s": round(cold_cpu, 2), "first_compile_wall_s": round(cold_wall, 2),
            "target_s": TARGET_COMPILE_S, "over_target": cold_cpu > TARGET_COMPILE_S,
            "cached_start_cpu_s": stats([c for _, c in warm], unit="s"),
            "cached_start_wall_s": stats([w for w, _ in warm], unit="s")}


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="20k requests instead of 200k (a smoke run)")
    ap.add_argument("--runs", type=int, default=5, help="runs of each engine on the smaller workloads")
    ap.add_argument("--big-runs", type=int, default=3, help="runs of each engine at 200k requests")
    ap.add_argument("--prefix-only", action="store_true", help="only the prefix-caching workloads")
    ap.add_argument("--no-compile", action="store_true", help="skip the compile-time children")
    args = ap.parse_args()
    out: dict = {"cpus": os.cpu_count(), "load_average": os.getloadavg()}
    if not args.prefix_only:
        big = 20_000 if args.quick else 200_000
        work, config = book(big)
        hard = EngineConfig(kv_pool_bytes=6 * GiB, max_num_seqs=64)
        out["at_200k"] = [
            compare(f"book_shapes_{big // 1000}k", work, config, args.big_runs, TARGET),
            compare(f"burstgpt_like_{big // 1000}k_book_engine", synthetic_trace(big, seed=1), config, args.big_runs,
                    TARGET),
            compare(f"burstgpt_like_{big // 1000}k_preempting", synthetic_trace(big, seed=1, rate_per_s=8.0), hard,
                    args.big_runs, TARGET),
        ]
        out["million"] = million(1 if args.quick else 3)
    out["prefix"] = prefix_rows(args.runs, args.quick)
    if not args.no_compile:
        out["compile"] = compile_times()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
