"""A `vllm bench serve --save-result` JSON (with per-request data: `--save-detailed` in
recent vLLM, always in older ones): the requests' input_lens and output_lens, and the run's
measured ttfts and itls (seconds) kept in meta["measured"] for overlay.

Arrivals: a result with start_times (recent vllm bench, and `lab observe`) gives each
request's send time, taken as its arrival (relative to the first request). Without them,
with a finite request_rate the n-th request arrives at n / request_rate (evenly spaced at
the run's mean rate; vLLM drew Gamma gaps with its `burstiness`, which are not saved);
with request_rate "inf" (or none) every request arrives at 0, as vLLM sends them. max_concurrency is kept in meta; `lab simulate
serving` replays it as the client's limit (core/serving/bench_keys.py).
Failed requests (an error, or output_lens 0) are left out and counted.

A `lab observe` result (its "lab_observe" block) that sent a shared prefix
(random_prefix_len) gives the replay prefix blocks as the server could cache them: in
blocks of the server's block_size (its /metrics' cache_config_info; vLLM's 16 without
it), the prefix's full blocks shared by every request, every other block its own.
"""
from __future__ import annotations

import json
import math

import numpy as np

from core.serving.traces.guard import check_tokens, fail, short
from core.serving.traces.transforms import Parsed

SIGNATURE = ("input_lens", "output_lens", "ttfts", "itls", "request_throughput", "backend", "num_prompts")


def looks_like(obj) -> bool:
    return isinstance(obj, dict) and sum(k in obj for k in SIGNATURE) >= 2


def _rate(value) -> float | None:
    if value in (None, "inf", "Infinity"):
        return None
    try:
        rate = float(value)
    except (TypeError, ValueError):
        raise fail(f"request_rate is {short(value)}; valid: a number of requests/s or \"inf\"") from None
    if math.isinf(rate):
        return None
    if not math.isfinite(rate) or rate <= 0:
        raise fail(f"request_rate is {short(value)}; valid: a number > 0 or \"inf\"")
    return rate


def read_vllm_bench(text: str) -> Parsed:
    try:
        obj = json.loads(text)
    except ValueError as exc:
        extra = " (several results: --append-result?)" if getattr(exc, "msg", "") == "Extra data" else ""
        raise fail(f"not one JSON object ({getattr(exc, 'msg', exc)}){extra}; valid: one vllm bench serve result") from None
    if not looks_like(obj):
        raise fail("not a vllm bench serve result; valid: a JSON object with input_lens, output_lens, ttfts, itls")
    if "input_lens" not in obj or "output_lens" not in obj:
        raise fail("the result has no per-request input_lens/output_lens; valid: a result saved with --save-detailed")
    p, g = obj["input_lens"], obj["output_lens"]
    if not isinstance(p, list) or not isinstance(g, list) or len(p) != len(g) or not p:
        raise fail(f"input_lens and output_lens are {short(p)} and {short(g)}; valid: two lists of one length >= 1")
    n = len(p)
    errors = obj.get("errors") or [""] * n
    ttfts = obj.get("ttfts")
    itls = obj.get("itls")
    starts = obj.get("start_times")
    for name, seq in (("errors", errors), ("ttfts", ttfts), ("itls", itls), ("start_times", starts)):
        if seq is not None and (not isinstance(seq, list) or len(seq) != n):
            raise fail(f"{name} has {len(seq) if isinstance(seq, list) else short(seq)} entries for {n:,} requests; "
                       "valid: one per request")
    rows = np.arange(n, dtype=np.int64)
    failed = np.array([bool(e) or (type(x) in (int, float) and x == 0) for e, x in zip(errors, g)])
    keep = np.flatnonzero(~failed)
    rate = _rate(obj.get("request_rate"))
    if starts is not None:
        sent = _numbers(starts, "start_times", rows + 1)
        arrival = sent - sent.min()
    else:
        arrival = rows / rate if rate is not None else np.zeros(n)
    p_arr = _numbers(p, "input_lens", rows + 1)  # messages count requests from 1
    g_arr = _numbers(g, "output_lens", rows + 1)
    facts = {"request_rate": rate if rate is not None else "inf", "burstiness": obj.get("burstiness"),
             "max_concurrency": obj.get("max_concurrency"), "duration_s": obj.get("duration"),
             "model_id": obj.get("model_id"),
             "arrivals": "the requests' start_times" if starts is not None else
             f"evenly spaced at {rate:g}/s" if rate is not None else "all at 0 (request_rate inf)"}
    measured = None
    if ttfts is not None and itls is not None:
        measured = {"ttfts_s": _numbers([ttfts[i] for i in keep], "ttfts", keep + 1, lower=0.0),
                    "itls_s": [_numbers(itls[i], f"itls[{i}]", np.full(len(itls[i]) if isinstance(itls[i], list) else 1, i + 1),
                                        lower=0.0).tolist() for i in keep]}
    word = "request"
    prefix, block = _observed_prefix(obj.get("lab_observe"), p_arr[keep])
    return Parsed(arrival_s=arrival[keep],
                  input_tokens=check_tokens(p_arr[keep], "input_lens", keep + 1, lambda i: p[keep[i]], word=word),
                  output_tokens=check_tokens(g_arr[keep], "output_lens", keep + 1, lambda i: g[keep[i]], word=word),
                  rows=keep + 1, fmt="vllm_bench", rows_read=n, word=word,
                  dropped={"failed requests": int(failed.sum())} if failed.any() else {}, measured=measured, extra=facts,
                  prefix=prefix, block_tokens=block)


def _observed_prefix(lab, inputs: np.ndarray) -> tuple[tuple[np.ndarray, np.ndarray] | None, int]:
    """(ids, offsets) of a lab observe run's shared prefix, and the block size (module docstring)."""
    shared = lab.get("prefix_tokens") if isinstance(lab, dict) else None
    if type(shared) is not int or shared <= 0 or not len(inputs):
        return None, 512
    config = ((lab.get("metrics") or {}).get("cache_config") or {}) if isinstance(lab.get("metrics"), dict) else {}
    try:
        block = int(config.get("block_size", 16))
    except (TypeError, ValueError):
        block = 16
    block = block if block >= 1 else 16
    per = np.ceil(inputs / block).astype(np.int64)  # a request's blocks, the last one partial
    full = min(shared // block, int(per.min()))
    offsets = np.concatenate(([0], np.cumsum(per))).astype(np.int64)
    ids = np.arange(offsets[-1], dtype=np.int64) + full  # every block its own id ...
    starts = offsets[:-1]
    for j in range(full):  # ... but the prefix's full blocks, one id each for every request
        ids[starts + j] = j
    return (ids, offsets), block


def _numbers(seq, name: str, rows: np.ndarray, lower: float | None = None) -> np.ndarray:
    """Finite numbers (>= lower if given); the first that is not is refused with its index."""
    if not isinstance(seq, list):
        raise fail(f"{name} is {short(seq)}; valid: a list of numbers")
    for v, r in zip(seq, rows):
        ok = type(v) in (int, float) and math.isfinite(v) and (lower is None or v >= lower)
        if not ok:
            raise fail(f"request {int(r)}: {name} is {short(v)}; valid: a finite number"
                       + (f" >= {lower:g}" if lower is not None else ""))
    return np.array(seq, dtype=float)
