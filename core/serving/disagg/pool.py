"""One pool of a P/D run: N engines of one config behind a router, as core/serving/replicas
runs them (advance every engine to each arrival, ask the router, submit), taking a Router
object so the decode pool's own router fits, and keeping the engine's remote-KV arrays
(kv_alloc_s, kv_ready_s) in the merged result. round_robin looks at nothing: the
k-th arrival goes to engine k mod N and each part is replayed alone. One engine is
replay() itself. hold_s (workload order; NaN: none): each request's finish keeps its
blocks until then (Engine.hold: the prefill pool's KV until the decode side read it).
No Qt here.
"""
from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from core.cancel import NEVER, CancelToken
from core.serving.engine import Engine, EngineConfig, ReplayResult, replay
from core.serving.replicas import merge, subset
from core.serving.routers import Router
from core.serving.workload import Workload

# Per-request arrays the engine may add besides those replicas.merge takes (E15's remote KV).
EXTRA_PER_REQUEST = ("kv_alloc_s", "kv_ready_s")


@dataclass
class PoolRun:
    merged: ReplayResult  # the pool's requests in the pool workload's order
    engine_of: np.ndarray  # int64 per request of the pool workload: the engine that served it
    results: list  # each engine's own result (None: an engine that got nothing)


def run_pool(workload: Workload, config: EngineConfig, n: int, router: Router, cancel: CancelToken = NEVER,
             fast: bool = True, hold_s: np.ndarray | None = None) -> PoolRun:
    if n == 1:
        result = _replay(workload, config, fast, cancel, hold_s)
        return PoolRun(result, np.zeros(len(workload), np.int64), [result])
    if router.name == "round_robin":
        results, engine_of = _partitioned(workload, config, n, cancel, fast, hold_s)
    else:
        results, engine_of = _cosimulated(workload, config, n, router, cancel, fast, hold_s)
    merged = merge(workload, results, engine_of)
    for name in EXTRA_PER_REQUEST:
        parts = [(i, getattr(r, name, None)) for i, r in enumerate(results) if r is not None]
        out = np.full(len(workload), np.nan)
        for i, a in parts:
            if a is not None:
                mine = engine_of == i
                out[mine] = np.asarray(a)[mine]
        setattr(merged, name, out)
    return PoolRun(merged, engine_of, results)


def _replay(workload: Workload, config: EngineConfig, fast: bool, cancel: CancelToken, hold_s) -> ReplayResult:
    if hold_s is None:
        return replay(workload, config, fast, cancel)
    e = Engine(workload, config, fast)
    e.hold(hold_s)
    return e.run(cancel)


def _cosimulated(workload: Workload, config: EngineConfig, n: int, router: Router, cancel: CancelToken, fast: bool,
                 hold_s=None):
    engines = [Engine(workload, config, fast) for _ in range(n)]
    for e in engines:
        if hold_s is not None:
            e.hold(hold_s)
        e.route()
    first = engines[0]
    arrival = first.arrivals_s()
    placed = np.full(len(workload), -1, np.int64)  # engine order
    for r in first.routable().tolist():
        t = float(arrival[r])
        for e in engines:
            e.advance(t, cancel)
        i = router.pick(r, engines)
        engines[i].submit(r)
        placed[r] = i
    for e in engines:
        e.close()
        e.advance(math.inf, cancel)
    engine_of = np.empty(len(workload), np.int64)
    engine_of[first.rows()] = placed
    return [e.result() for e in engines], engine_of


def _partitioned(workload: Workload, config: EngineConfig, n: int, cancel: CancelToken, fast: bool, hold_s=None):
    order = np.argsort(workload.arrival_s, kind="stable")
    engine_of = np.empty(len(workload), np.int64)
    engine_of[order] = np.arange(order.size) % n
    results: list[ReplayResult | None] = []
    for i in range(n):
        rows = np.flatnonzero(engine_of == i)
        if rows.size == 0:
            results.append(None)
            continue
        hold = hold_s[rows] if hold_s is not None else None
        part = _replay(subset(workload, rows), config, fast, cancel, hold)  # remote KV rows travel with it
        results.append(spread(part, rows, len(workload)))
    return results, engine_of


def spread(part: ReplayResult, rows: np.ndarray, n: int) -> ReplayResult:
    """A part's result with every per-request array at its rows of the whole workload
    (others: NaN for times, 0 for counts); series stay the part's own."""
    for f in dataclasses.fields(part):
        a = getattr(part, f.name)
        if f.name.startswith("series_") or not isinstance(a, np.ndarray) or a.shape[:1] != (rows.size,):
            continue
        out = np.full(n, np.nan if a.dtype.kind == "f" else 0, dtype=a.dtype)
        out[rows] = a
        setattr(part, f.name, out)
    if part.cached_tokens is None:
        part.cached_tokens = np.zeros(n, np.int64)
    part.preempt_log = [(int(rows[r]), t0, t1) for r, t0, t1 in part.preempt_log]
    return part
