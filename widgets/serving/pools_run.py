"""The Serving panel's prefill/decode run: the keys `lab simulate serving` takes for it and
the pools' figures drawn from its result. No Qt here (it runs on the job runner).

    raw = pd_raw(choice_inputs, deployment_inputs, coefficients, replay_inputs, pd_fields)
    fig = run_pools(raw)          # or PoolsRefused(field, message)

raw is the panel's replay A as command-line keys (its workload and engine limits off their
defaults), the pickers' model= and hardware= when they are not the book's, the deployment
keys, and the P/D fields (pools=, kv_link=, kv_transfer=). The run is
core.serving.headless.serving_report, the CLI's own, so the panel shows the CLI's numbers.

A pool's requests over time are counted from each request's phase times (the engines'
own series sample after a step, when a prefill-only request has already left: the prefill
pool would read empty): prefill waiting = arrival .. first scheduled, in prefill = first
scheduled .. first token; decode waiting = prefill done .. blocks allocated and KV landed
.. decode start, decoding = decode start .. finish; transfers in flight = blocks
allocated .. KV landed. KV use is the sum over the pool's instances of each engine's
series (a step function on its own time grid, sampled on the union of the grids), as a
share of the pool's blocks."""
from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np

from core.registry import ParamError, get
from core.serving.headless import serving_report
from core.serving.model_choice import BOOK_HARDWARE, BOOK_MODEL
from widgets.kit.param_form import param_text
from widgets.serving.deployment import raw_keys

# Replay A's keys that are the workload or the engine's own limits: what the P/D run takes
# from it (the card's figures come from hardware= and the deployment instead).
REPLAY_KEYS = ("durations_s", "rates_per_s", "shares_long_input", "long_input_in_tokens", "long_input_out_tokens",
               "long_output_in_tokens", "long_output_out_tokens", "arrival", "cv", "seed", "class_order",
               "max_num_seqs", "block_size", "token_budget", "reserve_full_prompt", "prefix_caching")
PD_FIELDS = ("pools", "kv_link", "kv_transfer")
SIDES = ("prefill", "decode")


class PoolsRefused(NamedTuple):
    """Bad keys (not a bug): the field the run names and its message."""

    field: str
    message: str


@dataclass
class PoolSeries:
    t: np.ndarray  # waiting and running: step series from t on
    waiting: np.ndarray
    running: np.ndarray
    kv_t: np.ndarray
    kv_percent: np.ndarray
    instances: int


@dataclass
class PoolsFigure:
    raw: dict
    report: dict  # serving_report's (the CLI's --json)
    pools: dict  # side -> PoolSeries
    inflight_t: np.ndarray
    inflight: np.ndarray

    @property
    def block(self) -> dict:
        return self.report["disaggregation"]

    def command(self) -> str:
        return "lab simulate serving " + " ".join(f"{k}={shlex.quote(str(v))}" for k, v in self.raw.items())


def pd_raw(choice: Mapping[str, Any], deployment: Mapping[str, Any], coefficients: Mapping[str, float],
           replay: Mapping[str, Any], fields: Mapping[str, str]) -> dict[str, str]:
    """The text keys of the panel's P/D run; {} when no P/D field is set (one pool)."""
    pd = {k: str(fields.get(k, "")).strip() for k in PD_FIELDS}
    if not pd["pools"]:
        return {}
    raw = replay_raw(choice, deployment, coefficients, replay)
    raw["pools"] = pd["pools"]
    if pd["kv_link"]:
        raw["kv_link"] = pd["kv_link"]
    if pd["kv_transfer"] and pd["kv_transfer"] != "whole":  # the CLI's default left out of the command
        raw["kv_transfer"] = pd["kv_transfer"]
    return raw


def replay_raw(choice: Mapping[str, Any], deployment: Mapping[str, Any], coefficients: Mapping[str, float],
               replay: Mapping[str, Any]) -> dict[str, str]:
    """Replay A's workload and engine limits off their defaults, the pickers' model= and
    hardware= when not the book's (or with a deployment), and the deployment keys but the
    client's max_concurrency, as the CLI's text keys (the P/D and image runs' base)."""
    raw: dict[str, str] = {}
    deploy = {k: v for k, v in raw_keys(deployment, coefficients).items() if k != "max_concurrency"}
    if deploy or (choice.get("model"), choice.get("hardware")) != (BOOK_MODEL, BOOK_HARDWARE):
        raw.update(model=str(choice["model"]), hardware=str(choice["hardware"]))
    params = {p.name: p for p in get("serving.replay").params}
    for name in REPLAY_KEYS:
        p = params[name]
        if name in replay and replay[name] != p.parse(p.default):
            raw[name] = param_text(p, replay[name])
    raw.update(deploy)
    return raw


def trace_raw(src) -> dict[str, str]:
    """A loaded trace's source (core.serving.trace_source.TraceSource) as the CLI's keys."""
    raw = {"trace": src.path}
    for name, value, off in (("format", src.format, "auto"), ("time_scale", src.time_scale, 1.0),
                             ("limit", src.limit, 0), ("trace_model", src.trace_model, ""),
                             ("trace_log_type", src.trace_log_type, "")):
        if value != off:
            raw[name] = str(value)
    if src.window_s:
        raw["window"] = f"{src.window_s[0]}:{src.window_s[1]}"
    return raw


def run_pools(raw: dict[str, str], workload=None) -> PoolsFigure | PoolsRefused:
    """The CLI's P/D report for raw and the pools' series (on the job runner)."""
    try:
        report, (result, _work) = serving_report(dict(raw), workload)
    except ParamError as err:
        return PoolsRefused(err.param, err.message)
    extras = result.extras or {}
    engines, names = extras.get("replicas") or [], extras.get("pool_names") or []
    cols = extras["request_columns"]
    decoded = cols["decode_instance"] >= 0
    arrival, first, done = (np.asarray(a, float) for a in (result.arrival_s, result.first_schedule_s,
                                                           cols["prefill_done_s"]))
    alloc, ready = np.asarray(result.kv_alloc_s, float), np.asarray(result.kv_ready_s, float)
    start, finish = np.asarray(cols["decode_start_s"], float), np.asarray(result.finish_s, float)
    phases = {"prefill": ((arrival, first), (first, done)),
              "decode": ((np.concatenate([done[decoded], ready[decoded]]),
                          np.concatenate([alloc[decoded], start[decoded]])), (start[decoded], finish[decoded]))}
    pools = {}
    for side in SIDES:
        (w0, w1), (r0, r1) = phases[side]
        t = np.unique(np.concatenate([[0.0], w0, w1, r0, r1]))
        t = t[np.isfinite(t)]
        mine = [e for e, name in zip(engines, names) if name == side]
        kv_t, kv, n = pool_kv(mine)
        if side == "prefill":  # its blocks are back before the step's sample: the prompts' own blocks
            block = int(raw.get("block_size", get("serving.replay").defaults()["block_size"]))
            held = -(-np.asarray(result.input_tokens, np.int64) // block)
            pool = float(sum(int(e.get("num_blocks") or 0) for e in mine)) or 1.0
            # Held until the decode side has read them (vLLM's delayed free), not only to the prefill's end.
            until = np.where(decoded & np.isfinite(ready), np.fmax(ready, done), done)
            kv_t = np.unique(np.concatenate([t, until[np.isfinite(until)]]))
            kv = counts(first, until, kv_t, held) / pool * 100.0
        pools[side] = PoolSeries(t, counts(w0, w1, t), counts(r0, r1, t), kv_t, kv, n)
    t, n = inflight(alloc, ready)
    return PoolsFigure(raw=dict(raw), report=report, pools=pools, inflight_t=t, inflight=n)


def _at(t_engine: np.ndarray, v: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """A step series' value at each grid time (the last sample at or before it; 0 before
    its first)."""
    i = np.searchsorted(t_engine, grid, side="right") - 1
    return np.where(i >= 0, np.asarray(v, float)[np.clip(i, 0, None)], 0.0)


def pool_kv(entries: list[dict]) -> tuple[np.ndarray, np.ndarray, int]:
    """(t, KV use % of the pool's blocks, instances): the pool's total over its instances
    on the union of their time grids."""
    if not entries:
        return np.zeros(1), np.zeros(1), 0
    grid = np.unique(np.concatenate([np.asarray(e["series_t"], float) for e in entries]))
    used = np.zeros(grid.size)
    for e in entries:
        used += _at(np.asarray(e["series_t"], float), e["series_kv_blocks"], grid)
    blocks = float(sum(int(e.get("num_blocks") or 0) for e in entries))
    return grid, (used / blocks * 100.0 if blocks else np.zeros(grid.size)), len(entries)


def counts(starts: np.ndarray, ends: np.ndarray, t: np.ndarray, weights: np.ndarray | None = None) -> np.ndarray:
    """How many [start, end) intervals hold each time of t, or the sum of their weights
    (NaN ends: left out)."""
    starts, ends = np.asarray(starts, float), np.asarray(ends, float)
    ok = np.isfinite(starts) & np.isfinite(ends)
    w = np.ones(starts.size) if weights is None else np.asarray(weights, float)
    a, b = np.argsort(starts[ok], kind="stable"), np.argsort(ends[ok], kind="stable")
    cum_a = np.concatenate([[0.0], np.cumsum(w[ok][a])])
    cum_b = np.concatenate([[0.0], np.cumsum(w[ok][b])])
    return (cum_a[np.searchsorted(starts[ok][a], t, side="right")]
            - cum_b[np.searchsorted(ends[ok][b], t, side="right")])


def inflight(alloc_s: np.ndarray, ready_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(t, transfers in flight from t on): a step series over the transfers' starts and
    landings (a request that never reached the decode pool has NaN times: left out)."""
    ok = np.isfinite(alloc_s) & np.isfinite(ready_s)
    t = np.unique(np.concatenate([[0.0], alloc_s[ok], ready_s[ok]]))
    return t, counts(alloc_s, ready_s, t)
