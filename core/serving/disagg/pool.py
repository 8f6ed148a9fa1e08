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

from dataclasses import dataclass

import numpy as np

from core.cancel import NEVER, CancelToken
from core.serving.engine import EngineConfig, ReplayResult
from core.serving.replicas import cosimulated, merge, partitioned, replay_held
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
        result = replay_held(workload, config, fast, cancel, hold_s)
        return PoolRun(result, np.zeros(len(workload), np.int64), [result])
    if router.name == "round_robin":
        results, engine_of = partitioned(workload, config, n, cancel, fast, hold_s)
    else:
        engines, engine_of = cosimulated(workload, config, n, router, cancel, fast, hold_s)
        results = [e.result() for e in engines]
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
