"""Each pool of a P/D run resolved from its keys, exactly as a plain `lab simulate serving`
run of those keys resolves (core/serving/simulate_keys.py: scenario, model=, hardware=,
the deployment keys, the step-time model), and the shared workload read once.

The prefill pool keeps the API server in front (its default as a plain run's: on where a
deployment is priced by the basis step model); the decode pool runs without one (the
request is already in the system: its tokens' detokenization is not priced there) and
without a client limit: max_concurrency= (a closed loop that waits for the decode finish)
is refused. No Qt here.
"""
from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from core import catalog
from core.hardware_config import load_hardware
from core.registry import ParamError, get
from core.serving import bench_keys, traces
from core.serving import replay as rp
from core.serving import simulate_keys as keys
from core.serving.engine import EngineConfig
from core.serving.model_choice import BOOK_HARDWARE, BOOK_MODEL
from core.serving.traces.transforms import time_scaled

# As core.serving.headless.NEUTRAL_WINDOWS (a test holds them equal): a trace replaces the
# windows, so the book's 8,448-token request is not checked against a small pool.
NEUTRAL_WINDOWS = {"durations_s": "1", "rates_per_s": "1", "shares_long_input": "0", "long_input_in_tokens": "1",
                   "long_input_out_tokens": "1", "long_output_in_tokens": "1", "long_output_out_tokens": "1"}


@dataclass(frozen=True)
class Side:
    name: str  # "prefill" or "decode"
    expanded: Any  # simulate_keys.Expanded
    values: Mapping[str, Any]  # serving.replay's resolved values
    config: EngineConfig

    @property
    def deployment(self):
        return self.expanded.deployment

    @property
    def card(self):
        """What the link figures are read from: the deployment (its card's), else the book's card."""
        return self.deployment if self.deployment is not None else load_hardware(BOOK_HARDWARE)

    @property
    def cards_per_instance(self) -> int:
        return self.deployment.cards if self.deployment is not None else 1

    @property
    def price_per_card_hour(self) -> float | None:
        return None if self.expanded.price_note is None else float(self.values["price_per_card_hour"])

    @property
    def kv_bytes_per_token(self) -> float:
        """The whole instance's KV per prompt token (every TP rank's share, all stages)."""
        d = self.deployment
        if d is None:
            return float(self.values["kv_bytes_per_token"])
        return float(d.kv_bytes_per_token) * d.tp

    @property
    def kv_bytes_per_token_per_card(self) -> float:
        d = self.deployment
        return float(self.values["kv_bytes_per_token"]) if d is None else float(d.kv_bytes_per_token_per_card)

    @property
    def layers(self) -> int:
        d = self.deployment
        return int(d.num_layers) if d is not None else int(catalog.model(BOOK_MODEL)["num_layers"])


def resolve_side(name: str, raw: dict, replicas: int, own: frozenset = frozenset()) -> Side:
    """own: the keys given with this side's prefix: a refusal of one of them names it so
    (decode_tp, not tp); a refusal of a deployment figure names the side's tp when the side
    set its own card or parallelism."""
    try:
        return _resolve_side(name, raw, replicas)
    except ParamError as err:
        if err.param in own:
            raise ParamError(f"{name}_{err.param}", err.message) from None
        raise


def _resolve_side(name: str, raw: dict, replicas: int) -> Side:
    calc = get("serving.replay")
    e = keys.expand_checked(raw, lambda: f"unknown parameter of lab simulate serving ({name} pool); valid: "
                            + ", ".join([p.name for p in calc.params] + list(keys.names())))
    if e.got.get("max_concurrency"):
        raise ParamError("max_concurrency", "a closed-loop client waits for each request's decode finish, across the "
                                            "pools: not modelled with prefill/decode pools; valid: 0 (open loop)")
    values = calc.resolve(dict(NEUTRAL_WINDOWS, **e.raw)) if "trace" in e.got else calc.resolve(e.raw)
    config = rp.config_from(values, e.step_cost(values))
    if name == "prefill":
        on_by_default = e.deployment is not None and e.step_coefs is not None
        config = bench_keys.with_client(config, e.got, on_by_default, replicas, False)
    else:
        config = dataclasses.replace(config, frontend=None, max_concurrency=0)
    return Side(name, e, values, config)


def shared_workload(side: Side, preloaded=None, progress=None):
    """The run's workload from the prefill side's keys (the workload keys are shared)."""
    got, values = side.expanded.got, side.values
    if "trace" in got:
        if preloaded is not None:
            return time_scaled(preloaded, got.get("time_scale", 1.0))
        bar = progress(f"reading {Path(got['trace']).name}") if progress is not None else None
        try:
            return traces.load_trace(got["trace"], **keys.load_kwargs(got, bar))
        finally:
            if bar is not None and hasattr(bar, "close"):
                bar.close()
    if "dataset" in got:
        return bench_keys.workload(got, int(values["seed"]))
    return rp.workload_from(values)


def load_once(raw: dict):
    """The trace raw names read at time_scale 1 (as headless.load_shared_trace: its other
    reading keys applied), for runs of several settings; None without trace=."""
    got = keys.pop_extras(dict(raw))
    if "trace" not in got:
        return None
    got.pop("time_scale", None)
    return traces.load_trace(got["trace"], **keys.load_kwargs(got, None))
