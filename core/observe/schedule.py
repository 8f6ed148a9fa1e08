"""The requests `lab observe` sends and when: from a trace file, or from the vllm bench
keys `lab simulate serving` takes (dataset=random random_input_len= ... request_rate=
burstiness= seed=), drawn by the same code (core/serving/bench_keys.py ->
workloads_bench.py), so a measured run and the simulator's replay of those keys share
their requests: the same lengths in the same order, sent at the same offsets.

A trace is sent at its own arrivals (relative to its first request; time_scale= window=
limit= as `lab simulate serving` reads them); request_rate= then does not apply.
max_concurrency= (or --max-concurrency) is the client's limit on requests in flight, as
vllm bench's semaphore: a request is sent at its time or when a slot frees, whichever is
later.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from core.registry import ParamError
from core.serving import bench_keys
from core.serving.workload import PrefixBlocks

TRACE_KEYS = ("time_scale", "window", "limit", "format")
PROMPT_KEYS = ("prompt_words", "prompt_special_tokens")
OWN_KEYS = ("trace", "seed", "max_concurrency", *TRACE_KEYS, *PROMPT_KEYS)


@dataclass(frozen=True)
class Plan:
    """One request a row: its send offset (s from the run's start), prompt and output
    tokens as the workload asks, and the shared prefix (tokens) every prompt starts with."""

    send_s: np.ndarray  # float64, non-decreasing
    input_tokens: np.ndarray  # int64, prefix included
    output_tokens: np.ndarray  # int64, >= 1
    prefix_tokens: int = 0
    max_concurrency: int | None = None
    request_rate: float = math.inf  # what the result's request_rate says (inf: all at once, or a trace)
    burstiness: float = 1.0
    seed: int = 0
    label: str = ""
    blocks: PrefixBlocks | None = None  # a trace's PrefixBlocks (hash ids per request), else None
    meta: dict = field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.send_s)


def _int_key(got: dict, name: str, low: int) -> int | None:
    if name not in got:
        return None
    try:
        value = int(str(got[name]).strip())
    except ValueError:
        raise ParamError(name, f"got {got[name]!r}; valid: a whole number >= {low}") from None
    if value < low:
        raise ParamError(name, f"got {value}; valid: >= {low}")
    return value


def plan(got: dict) -> Plan:
    """The Plan the keys describe (text values, as the command line gives them)."""
    seed = _int_key(got, "seed", 0) or 0
    limit = _int_key(got, "max_concurrency", 1)
    if "trace" in got:
        return _from_trace(got, seed, limit)
    for name in TRACE_KEYS:
        if name in got:
            raise ParamError(name, "applies to a trace; valid: with trace=FILE")
    keys = {k: v for k, v in got.items() if k not in OWN_KEYS}
    keys.setdefault("dataset", "random")
    parsed = {}
    for name, text in keys.items():
        if name == "dataset":
            parsed[name] = bench_keys.param("dataset").parse(text)
        elif name == "lengths":
            parsed[name] = text
        elif name in bench_keys.DATASET_KEYS:
            parsed[name] = bench_keys.parse(name, text)
        else:
            valid = ", ".join(("dataset", *bench_keys.DATASET_KEYS, *OWN_KEYS))
            raise ParamError(name, f"unknown key; valid: {valid}")
    bench_keys.check(parsed)
    work = bench_keys.workload(parsed, seed)
    value = {p.name: parsed.get(p.name, p.default) for p in bench_keys.PARAMS}
    prefix = int(value["random_prefix_len"]) if parsed["dataset"] in ("random", "fixed") else 0
    return Plan(send_s=np.asarray(work.arrival_s, float), input_tokens=np.asarray(work.input_tokens, np.int64),
                output_tokens=np.asarray(work.output_tokens, np.int64), prefix_tokens=prefix, max_concurrency=limit,
                request_rate=float(value["request_rate"]), burstiness=float(value["burstiness"]), seed=seed,
                label=work.label, meta=dict(work.meta))


def _from_trace(got: dict, seed: int, limit: int | None) -> Plan:
    for name in got:
        if name in bench_keys.DATASET_KEYS or name == "dataset":
            raise ParamError(name, "a trace is a workload already; valid: trace= or the dataset keys, not both")
        if name not in OWN_KEYS:
            raise ParamError(name, f"unknown key; valid with trace=: {', '.join(OWN_KEYS)}")
    from core.serving import traces  # reads files: only when asked

    window = None
    if "window" in got:
        start, sep, end = str(got["window"]).partition(":")
        try:
            window = (float(start), float(end)) if sep else None
        except ValueError:
            window = None
        if window is None:
            raise ParamError("window", f"got {got['window']!r}; valid: START:END seconds")
    work = traces.load_trace(got["trace"], format=got.get("format", "auto"),
                             time_scale=float(got.get("time_scale", 1.0)), window=window,
                             limit=_int_key(got, "limit", 1))
    t = np.asarray(work.arrival_s, float)
    if work.sessions is not None:
        raise ParamError("trace", "a sessions trace waits on its own replies; valid: a trace of independent requests")
    order = np.argsort(t, kind="stable")
    if not np.array_equal(order, np.arange(len(t))):
        raise ParamError("trace", "its requests are not in arrival order; valid: a trace sorted by arrival")
    meta = dict(work.meta)
    if limit is None:  # a vllm bench result's own limit is how it was sent
        own = meta.get("max_concurrency")
        limit = own if isinstance(own, int) and not isinstance(own, bool) and own >= 1 else None
    return Plan(send_s=t - (t[0] if len(t) else 0.0), input_tokens=np.asarray(work.input_tokens, np.int64),
                output_tokens=np.maximum(np.asarray(work.output_tokens, np.int64), 1), max_concurrency=limit,
                seed=seed, label=work.label or str(got["trace"]), blocks=work.prefix, meta=meta)
