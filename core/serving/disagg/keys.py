"""The keys of a prefill/decode (xPyD) run of `lab simulate serving` and their check.

Any of these makes the run disaggregated:
  pools=2P4D                  the shorthand for prefill_replicas=2 decode_replicas=4
  prefill_replicas=, decode_replicas=
  kv_link=                    core/serving/disagg/links.py (default rdma-400g)
  kv_link_latency_s=, kv_transfer=whole|layerwise
  prefill_router=, decode_router=
  prefill_KEY= / decode_KEY=  one side's own card and engine: KEY one of SIDE_KEYS (the
                              same key without a prefix sets both sides)
Each side is then resolved exactly as a plain run of its keys (issue 12's deployment: the
card's memory sets its KV pool, its dtype its KV bytes); the model and the workload are
shared. replicas= and router= belong to one pool and are refused here. No Qt here.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from core.registry import ParamError
from core.serving.pd_params import NOT_A_SIDES, PD_NAMES, PD_PARAMS, PD_TEXT_KEYS, SIDE_KEYS, SIDES
from core.serving.replay import MAX_REPLICAS
from core.serving.routers import ROUTERS

__all__ = ["NOT_A_SIDES", "PD_NAMES", "PD_PARAMS", "PD_TEXT_KEYS", "SIDE_KEYS", "SIDES"]  # the Params live in pd_params

DEFAULT_LINK = "rdma-400g"
_POOLS = re.compile(r"^\s*(\d+)\s*P\s*(\d+)\s*D\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class PdKeys:
    """The P/D keys of one run, checked: counts, link, routers; each side's raw keys."""

    prefill_replicas: int
    decode_replicas: int
    kv_link: str
    kv_link_latency_s: float | None
    kv_transfer: str
    prefill_router: str
    decode_router: str
    sides: dict  # side -> raw text keys for that side (shared keys + its own, prefix removed)
    own: dict = dataclasses.field(default_factory=dict)  # side -> the keys it was given with its prefix

    @property
    def label(self) -> str:
        return f"{self.prefill_replicas}P{self.decode_replicas}D"


def is_disaggregated(raw: dict) -> bool:
    return any(k in raw for k in PD_NAMES)


def parse_pools(text: str) -> tuple[int, int]:
    m = _POOLS.match(str(text))
    valid = f"valid: xPyD with whole numbers 1..{MAX_REPLICAS} (e.g. 1P1D, 2P4D)"
    if m is None:
        raise ParamError("pools", f"got {text!r}; {valid}")
    x, y = int(m.group(1)), int(m.group(2))
    if not (1 <= x <= MAX_REPLICAS and 1 <= y <= MAX_REPLICAS):
        raise ParamError("pools", f"got {text!r}; {valid}")
    return x, y


def split(raw: dict) -> PdKeys:
    """raw (text values, a P/D run's) -> PdKeys; ParamError naming the field."""
    raw = dict(raw)
    for key in ("replicas", "router"):
        if key in raw:
            raise ParamError(key, f"one pool's key; valid: with P/D keys, prefill_{key}= / decode_{key}=")
    params = {p.name: p for p in PD_PARAMS}
    given = {name: raw.pop(name) for name in list(raw) if name in params}
    got = {name: params[name].parse(value) for name, value in given.items()}
    text = {name: str(raw.pop(name)).strip() for name in list(raw) if name in PD_TEXT_KEYS}
    x = got.get("prefill_replicas", 1)
    y = got.get("decode_replicas", 1)
    if "pools" in text:
        px, py = parse_pools(text["pools"])
        for name, count, implied in (("prefill_replicas", got.get("prefill_replicas"), px),
                                     ("decode_replicas", got.get("decode_replicas"), py)):
            if count is not None and count != implied:
                raise ParamError(name, f"got {count} with pools={text['pools']}; valid: {implied} (or leave it out)")
        x, y = px, py
    sides: dict[str, dict] = {side: dict(raw) for side in SIDES}
    own: dict[str, set] = {side: set() for side in SIDES}
    for side in SIDES:
        for key in SIDE_KEYS:
            if (side, key) in NOT_A_SIDES:
                continue
            name = f"{side}_{key}"
            if name in got:  # checked above; the side's own check reads the text as given
                sides[side][key] = given[name]
                own[side].add(key)
            elif name in text:
                if not text[name]:
                    raise ParamError(name, "got ''; valid: a catalog key or a card TOML")
                sides[side][key] = text[name]
                own[side].add(key)
    return PdKeys(prefill_replicas=int(x), decode_replicas=int(y), kv_link=text.get("kv_link", DEFAULT_LINK),
                  kv_link_latency_s=got.get("kv_link_latency_s"), kv_transfer=got.get("kv_transfer", "whole"),
                  prefill_router=got.get("prefill_router", ROUTERS[0]),
                  decode_router=got.get("decode_router", "least_kv"), sides=sides, own=own)
