"""The Serving panel's prefill/decode run: the keys `lab simulate serving` takes for it and
the pools' figures drawn from its result. No Qt here (it runs on the job runner).

    raw = pd_raw(choice_inputs, deployment_inputs, coefficients, replay_inputs, pd_fields)
    fig = run_pools(raw)          # or PoolsRefused(field, message)

raw is the panel's replay A as command-line keys (its workload and engine limits off their
defaults), the pickers' model= and hardware= when they are not the book's, the deployment
keys, and the P/D fields (pools=, kv_link=, kv_transfer=). The run is
core.serving.headless.serving_report, the CLI's own, so the panel shows the CLI's numbers.

A pool's series are the sum over its instances (each engine's series is a step function
on its own time grid, sampled here on the union of the grids): waiting and running
requests, and KV use as a share of the pool's blocks. Transfers in flight at time t:
requests whose decode blocks are allocated (the transfer started) and whose KV has not
landed yet."""
from __future__ import annotations

import shlex
from dataclasses import dataclass
from typing import Any, Mapping, NamedTuple

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
    t: np.ndarray
    waiting: np.ndarray
    running: np.ndarray
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
    raw["pools"] = pd["pools"]
    if pd["kv_link"]:
        raw["kv_link"] = pd["kv_link"]
    if pd["kv_transfer"] and pd["kv_transfer"] != "whole":  # the CLI's default left out of the command
        raw["kv_transfer"] = pd["kv_transfer"]
    return raw


def run_pools(raw: dict[str, str], workload=None) -> PoolsFigure | PoolsRefused:
    """The CLI's P/D report for raw and the pools' series (on the job runner)."""
    try:
        report, (result, _work) = serving_report(dict(raw), workload)
    except ParamError as err:
        return PoolsRefused(err.param, err.message)
    extras = result.extras or {}
    engines, names = extras.get("replicas") or [], extras.get("pool_names") or []
    pools = {side: pool_series([e for e, n in zip(engines, names) if n == side]) for side in SIDES}
    t, n = inflight(np.asarray(result.kv_alloc_s, float), np.asarray(result.kv_ready_s, float))
    return PoolsFigure(raw=dict(raw), report=report, pools=pools, inflight_t=t, inflight=n)


def _at(t_engine: np.ndarray, v: np.ndarray, grid: np.ndarray) -> np.ndarray:
    """A step series' value at each grid time (the last sample at or before it; 0 before
    its first)."""
    i = np.searchsorted(t_engine, grid, side="right") - 1
    return np.where(i >= 0, np.asarray(v, float)[np.clip(i, 0, None)], 0.0)


def pool_series(entries: list[dict]) -> PoolSeries:
    """The pool's total over its instances on the union of their time grids."""
    if not entries:
        z = np.zeros(1)
        return PoolSeries(z, z, z, z, 0)
    grid = np.unique(np.concatenate([np.asarray(e["series_t"], float) for e in entries]))
    total = {name: np.zeros(grid.size) for name in ("series_waiting", "series_running", "series_kv_blocks")}
    for e in entries:
        te = np.asarray(e["series_t"], float)
        for name in total:
            total[name] += _at(te, e[name], grid)
    blocks = float(sum(int(e.get("num_blocks") or 0) for e in entries))
    kv = total["series_kv_blocks"] / blocks * 100.0 if blocks else np.zeros(grid.size)
    return PoolSeries(grid, total["series_waiting"], total["series_running"], kv, len(entries))


def inflight(alloc_s: np.ndarray, ready_s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(t, transfers in flight from t on): a step series over the transfers' starts and
    landings (a request that never reached the decode pool has NaN times: left out)."""
    ok = np.isfinite(alloc_s) & np.isfinite(ready_s)
    a, r = np.sort(alloc_s[ok]), np.sort(ready_s[ok])
    t = np.unique(np.concatenate([[0.0], a, r]))
    n = np.searchsorted(a, t, side="right") - np.searchsorted(r, t, side="right")
    return t, n.astype(float)
