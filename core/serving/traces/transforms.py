"""From the rows a format read to the Workload the engine replays: the per-request bound,
times relative to the first request, then the transforms in this order:

1. window=(start_s, end_s): keep requests arriving in [start_s, end_s) seconds of the trace
   (after rebasing to its first request, before time_scale), shifted so start_s becomes 0;
2. limit=n: keep the first n requests in arrival order;
3. time_scale=k: arrivals are divided by k, so time_scale=2 replays the trace twice as fast
   (twice the request rate) and 0.5 at half the rate (BurstGPT's README suggests scaling the
   rate this way). Sessions: think times are divided too; tool waits are not.

Sessions are kept whole: a session is in the window when its first turn is, and limit
keeps whole sessions, in order of their first turn, while the rows fit (at least one).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from core.registry import ParamError
from core.serving.traces.guard import fail
from core.serving.workload import MAX_REQUESTS, PrefixBlocks, Sessions, Workload


@dataclass
class Parsed:
    """Requests as a format read them, in file order, before the transforms."""

    arrival_s: np.ndarray  # float64 seconds, any origin
    input_tokens: np.ndarray  # int64
    output_tokens: np.ndarray  # int64
    rows: np.ndarray  # the file's row (or line) number of each request, for messages
    fmt: str
    rows_read: int  # data rows in the file, dropped ones included
    word: str = "row"
    dropped: dict = field(default_factory=dict)  # reason -> rows left out
    prefix: tuple[np.ndarray, np.ndarray] | None = None  # (ids, offsets) CSR, file order
    block_tokens: int = 512
    sessions: Sessions | None = None
    measured: dict | None = None  # {"ttfts_s": array, "itls_s": list of lists}
    extra: dict = field(default_factory=dict)  # more meta (a vllm-bench run's settings ...)
    images: list | None = None  # per request: its images column (images.py), file order


def check_options(time_scale, window, limit) -> tuple[float, tuple[float, float] | None, int | None]:
    try:
        scale = float(time_scale)
    except (TypeError, ValueError):
        scale = math.nan
    if not math.isfinite(scale) or not 1e-6 <= scale <= 1e6:
        raise ParamError("time_scale", f"got {time_scale!r}; valid: a number in [1e-06, 1e+06] (2 = twice as fast)")
    if window is not None:
        try:
            start, end = (float(x) for x in window)
        except (TypeError, ValueError):
            raise ParamError("window", f"got {window!r}; valid: (start_s, end_s) seconds, start < end") from None
        if not (math.isfinite(start) and math.isfinite(end) and 0 <= start < end):
            raise ParamError("window", f"got {window!r}; valid: 0 <= start_s < end_s, finite seconds")
        window = (start, end)
    if limit is not None:
        if isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or not 1 <= limit <= MAX_REQUESTS:
            raise ParamError("limit", f"got {limit!r}; valid: a whole number of rows in [1, {MAX_REQUESTS:,}]")
        limit = int(limit)
    return scale, window, limit


def finish(parsed: Parsed, max_request_tokens, time_scale=1.0, window=None, limit=None,
           checked: bool = False) -> Workload:
    """The transforms in their order. checked: the options come from trace_options."""
    scale, window, limit = (time_scale, window, limit) if checked else check_options(time_scale, window, limit)
    n = parsed.arrival_s.size
    if n == 0:
        raise fail(f"the file has no requests; valid: at least one {'data row' if parsed.word == 'row' else 'JSON line'}"
                   + (f" (left out: {_dropped_text(parsed.dropped)})" if parsed.dropped else ""))
    if n > MAX_REQUESTS:
        raise fail(f"more than {MAX_REQUESTS:,} rows; valid: at most {MAX_REQUESTS:,}")
    p, g = parsed.input_tokens, parsed.output_tokens
    t = parsed.arrival_s - parsed.arrival_s.min()
    span = float(t.max())
    order = np.lexsort((parsed.sessions.turn, parsed.sessions.session, t)) if parsed.sessions is not None \
        else np.argsort(t, kind="stable")
    in_window = _select(order, t, parsed.sessions, window, None)
    if in_window.size == 0:
        raise ParamError("window", f"no request arrives in [{window[0]:g}, {window[1]:g}) s; valid: a window "
                         f"within the trace's [0, {span:,.3f}] s")
    keep = _select(order, t, parsed.sessions, window, limit)
    if max_request_tokens is not None:  # only the requests kept: limit=/window= can leave a huge one out
        over = keep[p[keep] + g[keep] > max_request_tokens]
        if over.size:
            i = int(over[np.argmin(parsed.rows[over])])
            raise fail(f"{parsed.word} {int(parsed.rows[i])}: input_tokens + output_tokens = {int(p[i] + g[i]):,} tokens; "
                       f"valid: at most {int(max_request_tokens):,}, what the KV pool holds for one request")
    dropped = dict(parsed.dropped)
    for reason, count in (("outside window", n - in_window.size), ("beyond limit", in_window.size - keep.size)):
        if count:
            dropped[reason] = int(count)
    shift = window[0] if window is not None else 0.0
    meta = {"format": parsed.fmt, "rows": parsed.rows_read, "requests": int(keep.size), "dropped": dropped,
            "span_s": span, "time_scale": 1.0, "window": window, "limit": limit, **parsed.extra}
    if parsed.images is not None:  # the images column, per kept request (core/serving/multimodal/ reads it)
        meta["images"] = [parsed.images[i] for i in keep]
    if parsed.measured is not None:
        meta["measured"] = {"ttfts_s": [float(parsed.measured["ttfts_s"][i]) for i in keep],
                            "itls_s": [list(parsed.measured["itls_s"][i]) for i in keep]}
    work = Workload(arrival_s=t[keep] - shift, input_tokens=p[keep], output_tokens=g[keep], label="trace",
                    prefix=_prefix_subset(parsed, keep), sessions=_sessions_subset(parsed.sessions, keep), meta=meta)
    return _scaled(work, scale)


def time_scaled(work: Workload, time_scale: float) -> Workload:
    """The last transform (3.): arrivals, the span and sessions' think times divided by
    time_scale. `work` must be a trace read with time_scale=1 (meta["time_scale"] == 1), so a
    trace loaded once and scaled here equals the one loaded with time_scale=k, bit for bit
    (a sweep loads a trace once and scales it per point: core.serving.headless.serving_report)."""
    scale, _, _ = check_options(time_scale, None, None)
    return _scaled(work, scale)


def _scaled(work: Workload, scale: float) -> Workload:
    meta = dict(work.meta or {})
    if float(meta.get("time_scale", 1.0)) != 1.0:
        raise ParamError("time_scale", f"the workload is already scaled by {meta['time_scale']!r}; valid: "
                         "a trace read with time_scale=1")
    meta["time_scale"] = scale
    if "span_s" in meta:
        meta["span_s"] = meta["span_s"] / scale
    sessions = work.sessions
    if sessions is not None:
        sessions = replace(sessions, think_time_s=sessions.think_time_s / scale)
    return replace(work, arrival_s=work.arrival_s / scale, sessions=sessions, meta=meta)


def _select(order: np.ndarray, t: np.ndarray, sessions: Sessions | None, window, limit) -> np.ndarray:
    """Indices of the kept requests, in arrival order."""
    if sessions is None:
        if window is not None:
            order = order[(t[order] >= window[0]) & (t[order] < window[1])]
        return order[:limit] if limit is not None else order
    # Whole sessions, by their first turn's arrival.
    first_turn = order[sessions.turn[order] == 0]
    if window is not None:
        first_turn = first_turn[(t[first_turn] >= window[0]) & (t[first_turn] < window[1])]
    chosen = sessions.session[first_turn]
    if limit is not None:
        sizes = np.bincount(sessions.session)[chosen]  # session ids are 0..S-1 (sessions.py)
        fits = np.cumsum(sizes) <= limit
        chosen = chosen[: max(int(fits.sum()), 1)] if chosen.size else chosen
    return order[np.isin(sessions.session[order], chosen)]


def _prefix_subset(parsed: Parsed, keep: np.ndarray) -> PrefixBlocks | None:
    if parsed.prefix is None:
        return None
    ids, offsets = parsed.prefix
    if keep.size == offsets.size - 1 and np.array_equal(keep, np.arange(keep.size)):  # every request, in file order
        return PrefixBlocks(ids=ids.astype(np.int64, copy=False), offsets=offsets, block_tokens=parsed.block_tokens)
    starts, lengths = offsets[keep], offsets[keep + 1] - offsets[keep]
    new_offsets = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    gather = np.repeat(starts - new_offsets[:-1], lengths) + np.arange(int(new_offsets[-1]))
    return PrefixBlocks(ids=ids[gather].astype(np.int64), offsets=new_offsets, block_tokens=parsed.block_tokens)


def _sessions_subset(sessions: Sessions | None, keep: np.ndarray) -> Sessions | None:
    if sessions is None:
        return None
    return replace(sessions, session=sessions.session[keep], turn=sessions.turn[keep],
                   new_input_tokens=sessions.new_input_tokens[keep],
                   shared_prefix_tokens=sessions.shared_prefix_tokens[keep],
                   think_time_s=sessions.think_time_s[keep], tool_wait_s=sessions.tool_wait_s[keep],
                   keep_kv_during_tool=sessions.keep_kv_during_tool[keep])


def _dropped_text(dropped: dict) -> str:
    return ", ".join(f"{count:,} {reason}" for reason, count in dropped.items())
