"""N replicas of one engine config behind a router (core/serving/routers.py).

replay_replicas runs N routed Engines side by side: for each request in arrival order it
advances every engine to that arrival, asks the router (which sees the engines as they
are at that moment), and submits the request to the one picked. A session's later turns
that wait for their predecessor stay on the replica that served it (the engine learns
their arrival only there). round_robin looks at nothing, so it needs no co-simulation:
without sessions the workload is split k mod N and each part is replayed on its own.

The merged ReplayResult is in workload order, each request's records from its replica.
Series are on the union of the replicas' time grids: queue, running and KV blocks are
summed levels (each replica's last value at or before the time); tokens, steps and
decode rows are summed per time. num_blocks is the pool of all replicas together, so the
KV fractions are of the pooled KV. extras["replica_of"] (workload order) and
extras["replicas"] (per replica: requests, series, steps, preemptions, KV peak) say who
did what. Remote KV's kv_alloc_s / kv_ready_s come from each request's replica; the
encoder's extras (encoder_s, encoder_steps) are summed. One replica with any router is replay() itself, bit for bit. No Qt here.
"""
from __future__ import annotations

import dataclasses
import math
import time
from typing import Any

import numpy as np

from core.cancel import NEVER, CancelToken
from core.registry import ParamError
from core.serving.engine import Engine, EngineConfig, ReplayResult, replay
from core.serving.routers import ROUTERS, Router, make_router
from core.serving.session_arrivals import hit_rate_by_turn
from core.serving.workload import PrefixBlocks, Workload, rows_of

MAX_REPLICAS = 256
# A co-simulated router keeps every replica's engine over the whole workload and stops each
# at every arrival: work and memory grow with replicas x requests (64 x 20k: ~20 s, ~0.4 GB).
MAX_ROUTED_WORK = 2_000_000
LEVELS = ("series_waiting", "series_running", "series_kv_blocks")  # states: summed as levels
COUNTS = ("series_tokens", "series_steps", "series_decode_rows")  # per-step amounts: summed per time
PER_REQUEST = ("arrival_s", "first_schedule_s", "first_token_s", "finish_s", "preemptions", "cached_tokens")
KV_TIMES = ("kv_alloc_s", "kv_ready_s")  # remote KV's times: NaN where a request has none
ENCODER_SUMS = ("encoder_s", "encoder_steps")  # extras of a workload with encoder work: summed


def replay_replicas(workload: Workload, config: EngineConfig, replicas: int, router: str = "round_robin",
                    cancel: CancelToken = NEVER, fast: bool = True) -> ReplayResult:
    """The workload through `replicas` engines of `config` behind `router` (ROUTERS)."""
    if isinstance(replicas, bool) or not isinstance(replicas, (int, np.integer)) or not 1 <= replicas <= MAX_REPLICAS:
        raise ParamError("replicas", f"got {replicas!r}; valid: a whole number in [1, {MAX_REPLICAS}]")
    if router not in ROUTERS:
        raise ParamError("router", f"got {router!r}; valid: {', '.join(ROUTERS)}")
    replicas = int(replicas)
    check_routed_work(replicas, router, len(workload))
    wall = time.perf_counter()
    if router == "round_robin" and (replicas == 1 or workload.sessions is None):
        if replicas == 1:
            return replay(workload, config, fast, cancel)
        results, replica_of = partitioned(workload, config, replicas, cancel, fast)
    else:
        engines, replica_of = cosimulated(workload, config, replicas, make_router(router, replicas), cancel, fast)
        results = [e.result() for e in engines]
        if replicas == 1:  # the single engine's own result, untouched
            results[0].wall_s = time.perf_counter() - wall
            return results[0]
    merged = merge(workload, results, replica_of)
    merged.wall_s = time.perf_counter() - wall
    return merged


def check_routed_work(replicas: int, router: str, requests: int) -> None:
    """Refuse a co-simulation too large to finish quickly (round_robin splits, so it is free)."""
    if router != "round_robin" and replicas > 1 and replicas * requests > MAX_ROUTED_WORK:
        raise ParamError("replicas", f"{replicas} replicas x {requests:,} requests behind {router}: over "
                         f"{MAX_ROUTED_WORK:,}; valid: replicas x requests <= {MAX_ROUTED_WORK:,} "
                         "(or router=round_robin)")


def partitioned(workload: Workload, config: EngineConfig, n: int, cancel: CancelToken, fast: bool,
                hold_s: np.ndarray | None = None):
    """round_robin without sessions: the k-th arrival to replica k mod n, each part replayed
    alone (with its rows' hold times). Each result is spread back to full length (rows of
    other replicas: NaN / 0)."""
    order = np.argsort(workload.arrival_s, kind="stable")
    replica_of = np.empty(len(workload), np.int64)
    replica_of[order] = np.arange(order.size) % n
    results: list[ReplayResult | None] = []  # None: a replica no request went to
    for i in range(n):
        rows = np.flatnonzero(replica_of == i)
        if rows.size == 0:
            results.append(None)
            continue
        hold = hold_s[rows] if hold_s is not None else None
        part = replay_held(subset(workload, rows), config, fast, cancel, hold)  # remote KV rows travel with it
        results.append(spread(part, rows, len(workload)))
    return results, replica_of


def replay_held(workload: Workload, config: EngineConfig, fast: bool, cancel: CancelToken,
                hold_s: np.ndarray | None = None) -> ReplayResult:
    """replay(), with each request's blocks held hold_s after it finishes (Engine.hold)."""
    if hold_s is None:
        return replay(workload, config, fast, cancel)
    e = Engine(workload, config, fast)
    e.hold(hold_s)
    return e.run(cancel)


def cosimulated(workload: Workload, config: EngineConfig, n: int, router: Router, cancel: CancelToken, fast: bool,
                hold_s: np.ndarray | None = None):
    """n engines side by side, router placing each arrival: (engines, replica of each request)."""
    engines = [Engine(workload, config, fast) for _ in range(n)]
    for e in engines:
        if hold_s is not None:
            e.hold(hold_s)
        e.route()
    first = engines[0]
    # The router places the requests with a fixed arrival; session turns that wait for
    # their predecessor arrive on its replica by themselves.
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
    if workload.sessions is not None:  # a waiting turn ran where its arrival time became known
        for i, e in enumerate(engines):
            placed[(placed < 0) & np.isfinite(e.arrivals_s())] = i
    replica_of = np.empty(len(workload), np.int64)
    replica_of[first.rows()] = placed
    return engines, replica_of


def subset(workload: Workload, rows: np.ndarray) -> Workload:
    """The requests `rows` (sorted workload indices) as a workload of their own (no sessions)."""
    prefix = None
    if workload.prefix is not None:
        ids, offsets = workload.prefix.ids, workload.prefix.offsets
        starts, lengths = offsets[rows], offsets[rows + 1] - offsets[rows]
        new_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        gather = np.repeat(starts - new_offsets[:-1], lengths) + np.arange(int(new_offsets[-1]))
        prefix = PrefixBlocks(ids=ids[gather].astype(np.int64), offsets=new_offsets,
                              block_tokens=workload.prefix.block_tokens)
    return Workload(arrival_s=workload.arrival_s[rows], input_tokens=workload.input_tokens[rows],
                    output_tokens=workload.output_tokens[rows], label=workload.label, prefix=prefix,
                    meta=workload.meta, remote=rows_of(workload.remote, rows), encoder=rows_of(workload.encoder, rows))


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


def merge(workload: Workload, results: list, replica_of: np.ndarray) -> ReplayResult:
    """One ReplayResult from the replicas' (None: a replica that got nothing)."""
    live = [(i, r) for i, r in enumerate(results) if r is not None]
    base = live[0][1]
    per_request = {}
    for name in PER_REQUEST:
        arrays = [getattr(r, name) if getattr(r, name) is not None else np.zeros(len(workload), np.int64)
                  for _, r in live]
        out = arrays[0].copy()
        for (i, _), a in zip(live[1:], arrays[1:]):
            mask = replica_of == i
            out[mask] = a[mask]
        per_request[name] = out
    for name in KV_TIMES:
        per_request[name] = _merged_times([getattr(r, name) for _, r in live], live, replica_of)
    grid = np.unique(np.concatenate([r.series_t for _, r in live]))
    series = {}
    for name in LEVELS:
        total = np.zeros(grid.size, np.int64)
        for _, r in live:
            at = np.searchsorted(r.series_t, grid, side="right") - 1  # every series starts at t=0
            total += getattr(r, name)[np.maximum(at, 0)]
        series[name] = total
    for name in COUNTS:
        total = np.zeros(grid.size, np.int64)
        for _, r in live:
            np.add.at(total, np.searchsorted(grid, r.series_t), getattr(r, name))
        series[name] = total
    log = sorted((entry for _, r in live for entry in r.preempt_log), key=lambda e: e[1])
    n_replicas = len(results)
    result = ReplayResult(
        arrival_s=per_request["arrival_s"], input_tokens=np.asarray(workload.input_tokens, np.int64).copy(),
        output_tokens=np.asarray(workload.output_tokens, np.int64).copy(),
        first_schedule_s=per_request["first_schedule_s"], first_token_s=per_request["first_token_s"],
        finish_s=per_request["finish_s"], preemptions=per_request["preemptions"], preempt_log=log,
        series_t=grid, series_tokens=series["series_tokens"], num_blocks=base.num_blocks * n_replicas,
        series_waiting=series["series_waiting"], series_running=series["series_running"],
        series_kv_blocks=series["series_kv_blocks"],
        engine_steps=sum(r.engine_steps for _, r in live), decode_tokens=sum(r.decode_tokens for _, r in live),
        prefill_tokens=sum(r.prefill_tokens for _, r in live), kv_peak_blocks=int(series["series_kv_blocks"].max()),
        events=sum(r.events for _, r in live), closed_form_steps=sum(r.closed_form_steps for _, r in live),
        cached_tokens=per_request["cached_tokens"], series_steps=series["series_steps"],
        series_decode_rows=series["series_decode_rows"],
        kv_alloc_s=per_request["kv_alloc_s"], kv_ready_s=per_request["kv_ready_s"],
    )
    result.extras = _merged_extras(workload, result, live)
    result.extras["replica_of"] = replica_of
    result.extras["replicas"] = [_replica_summary(i, results[i], replica_of) for i in range(n_replicas)]
    return result


def _merged_times(arrays: list, live: list, replica_of: np.ndarray) -> np.ndarray | None:
    """Each request's time from its replica (None: no replica reported them)."""
    if all(a is None for a in arrays):
        return None
    out = np.full(replica_of.size, np.nan)
    for (i, _), a in zip(live, arrays):
        if a is not None:
            mask = replica_of == i
            out[mask] = a[mask]
    return out


def _merged_extras(workload: Workload, merged: ReplayResult, live: list) -> dict:
    """Prefix-cache figures of the whole run (a replica's own are over the whole workload)
    and the encoder's sums."""
    extras: dict[str, Any] = {}
    for name in ENCODER_SUMS:
        if any(name in r.extras for _, r in live):
            extras[name] = sum(r.extras.get(name, 0) for _, r in live)
    if not any("cache_hit_rate" in r.extras for _, r in live):
        return extras
    prompt = float(np.sum(merged.input_tokens))
    assert merged.cached_tokens is not None  # a replica's cache figures come with its cached tokens
    extras["cache_hit_rate"] = float(np.sum(merged.cached_tokens)) / prompt if prompt else 0.0
    extras["evicted_blocks"] = int(sum(int(r.extras.get("evicted_blocks", 0)) for _, r in live))
    if workload.sessions is not None:
        extras["hit_rate_by_turn"] = hit_rate_by_turn(np.asarray(workload.sessions.turn), merged.cached_tokens,
                                                      merged.input_tokens)
        extras["tool_wait_kv_byte_s"] = float(sum(r.extras.get("tool_wait_kv_byte_s", 0.0) for _, r in live))
    return extras


def _replica_summary(i: int, r: ReplayResult | None, replica_of: np.ndarray) -> dict:
    if r is None:
        empty = np.zeros(1)
        return {"replica": i, "requests": 0, "engine_steps": 0, "preemptions": 0, "kv_peak_blocks": 0,
                "num_blocks": 0, "series_t": empty, "series_waiting": empty.astype(np.int64),
                "series_running": empty.astype(np.int64), "series_kv_blocks": empty.astype(np.int64)}
    return {"replica": i, "requests": int(np.sum(replica_of == i)), "engine_steps": int(r.engine_steps),
            "preemptions": int(np.sum(r.preemptions[replica_of == i])), "kv_peak_blocks": int(r.kv_peak_blocks),
            "num_blocks": int(r.num_blocks), "series_t": r.series_t, "series_waiting": r.series_waiting,
            "series_running": r.series_running, "series_kv_blocks": r.series_kv_blocks,
            # per-step amounts, for trace.json's step slices and each engine's counters
            "series_tokens": r.series_tokens, "series_steps": r.series_steps,
            "series_decode_rows": r.series_decode_rows}
