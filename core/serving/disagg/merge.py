"""The P/D run's one ReplayResult from its two pools' (workload order).

Per request: arrival, first schedule and first token (TTFT) from the prefill pool, finish
from the decode pool (a request with one output token is done at its prefill), preemptions
of both, cached tokens of the prefill pool (the decode pool has no prefix cache), kv_alloc_s
and kv_ready_s from the decode pool. Series: both pools' summed as replicas.merge sums its
replicas' (levels at each time of the union grid; per-step counts per time); num_blocks is
both pools' blocks together. No Qt here.
"""
from __future__ import annotations

import numpy as np

from core.serving.engine import ReplayResult

LEVELS = ("series_waiting", "series_running", "series_kv_blocks")
COUNTS = ("series_tokens", "series_steps", "series_decode_rows")


def sum_series(results: list[ReplayResult]) -> dict[str, np.ndarray]:
    grid = np.unique(np.concatenate([r.series_t for r in results]))
    out: dict[str, np.ndarray] = {"series_t": grid}
    for name in LEVELS:
        total = np.zeros(grid.size, np.int64)
        for r in results:
            at = np.searchsorted(r.series_t, grid, side="right") - 1
            total += getattr(r, name)[np.maximum(at, 0)]
        out[name] = total
    for name in COUNTS:
        total = np.zeros(grid.size, np.int64)
        for r in results:
            a = getattr(r, name)
            if a is not None:
                np.add.at(total, np.searchsorted(grid, r.series_t), a)
        out[name] = total
    return out


def merged_result(workload, prefill: ReplayResult, decode: ReplayResult | None, rows: np.ndarray) -> ReplayResult:
    """prefill: in workload order; decode: in the decode workload's order, whose request k
    is workload row rows[k] (None: no request decoded)."""
    n = len(workload)
    finish = prefill.finish_s.copy()
    preemptions = prefill.preemptions.astype(np.int64).copy()
    log = list(prefill.preempt_log)
    pools = [prefill]
    if decode is not None:
        finish[rows] = decode.finish_s
        preemptions[rows] += decode.preemptions
        log += [(int(rows[r]), t0, t1) for r, t0, t1 in decode.preempt_log]
        pools.append(decode)
    log.sort(key=lambda e: e[1])
    series = sum_series(pools)
    result = ReplayResult(
        arrival_s=prefill.arrival_s.copy(), input_tokens=np.asarray(workload.input_tokens, np.int64).copy(),
        output_tokens=np.asarray(workload.output_tokens, np.int64).copy(),
        first_schedule_s=prefill.first_schedule_s.copy(), first_token_s=prefill.first_token_s.copy(),
        finish_s=finish, preemptions=preemptions, preempt_log=log, num_blocks=sum(p.num_blocks for p in pools),
        engine_steps=sum(p.engine_steps for p in pools), decode_tokens=sum(p.decode_tokens for p in pools),
        prefill_tokens=sum(p.prefill_tokens for p in pools), kv_peak_blocks=int(series["series_kv_blocks"].max()),
        events=sum(p.events for p in pools), closed_form_steps=sum(p.closed_form_steps for p in pools),
        cached_tokens=(prefill.cached_tokens.copy() if prefill.cached_tokens is not None else np.zeros(n, np.int64)),
        series_t=series["series_t"], series_waiting=series["series_waiting"], series_running=series["series_running"],
        series_kv_blocks=series["series_kv_blocks"], series_tokens=series["series_tokens"],
        series_steps=series["series_steps"], series_decode_rows=series["series_decode_rows"])
    for name in ("kv_alloc_s", "kv_ready_s"):
        out = np.full(n, np.nan)
        if decode is not None and getattr(decode, name, None) is not None:
            out[rows] = getattr(decode, name)
        setattr(result, name, out)
    return result
