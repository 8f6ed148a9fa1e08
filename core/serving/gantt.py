"""Per-request strips for the replay's Gantt view and the TTFT CDF, as arrays.

state_matrix gives each request (row) and time bin (column) a phase code: nothing yet or
done, waiting, prefill (first schedule until first token), decode, preempted (evicted,
waiting to be scheduled again), and for a request whose KV came over a link (a P/D run,
core/serving/disagg: kv_alloc_s / kv_ready_s) transfer, its wait for the decode
instance's blocks before it shown as waiting. Views map codes to colours.
"""
from __future__ import annotations

import numpy as np

from core.serving.engine import ReplayResult

IDLE, WAITING, PREFILL, DECODE, PREEMPTED, TRANSFER = 0, 1, 2, 3, 4, 5
PHASES = {WAITING: "waiting", PREFILL: "prefill", DECODE: "decode", PREEMPTED: "preempted", TRANSFER: "transfer"}
MAX_ROWS = 2000


def state_matrix(result: ReplayResult, t_max: float, bins: int = 800, max_rows: int = MAX_ROWS) -> tuple[np.ndarray, np.ndarray]:
    """(codes[rows, bins] as uint8, request index of each row). Rows in arrival order;
    with more requests than max_rows an evenly spaced subset is shown."""
    n = result.arrival_s.size
    order = np.argsort(result.arrival_s, kind="stable")
    if n > max_rows:
        order = order[np.linspace(0, n - 1, max_rows).astype(np.int64)]
    centers = (np.arange(bins) + 0.5) * (t_max / bins)
    a = result.arrival_s[order, None]
    s = result.first_schedule_s[order, None]
    f = result.first_token_s[order, None]
    e = result.finish_s[order, None]
    codes = np.zeros((order.size, bins), dtype=np.uint8)
    c = centers[None, :]
    codes[(c >= a) & (c < s)] = WAITING
    codes[(c >= s) & (c < f)] = PREFILL
    codes[(c >= f) & (c < e)] = DECODE
    alloc, ready = getattr(result, "kv_alloc_s", None), getattr(result, "kv_ready_s", None)
    if alloc is not None and ready is not None and np.isfinite(alloc).any():
        k0, k1 = alloc[order, None], ready[order, None]  # NaN (no transfer) compares False
        codes[(c >= f) & (c < k0)] = WAITING  # for the decode instance's blocks
        codes[(c >= k0) & (c < k1)] = TRANSFER
    if result.preempt_log:
        row_of = {int(r): i for i, r in enumerate(order)}
        for rid, t0, t1 in result.preempt_log:
            row = row_of.get(int(rid))
            if row is None:
                continue
            end = t1 if np.isfinite(t1) else t_max
            codes[row, (centers >= t0) & (centers < end)] = PREEMPTED
    return codes, order


def cdf(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Sorted values and the fraction of observations at or below each."""
    x = np.sort(np.asarray(values, dtype=float))
    return x, np.arange(1, x.size + 1) / x.size
