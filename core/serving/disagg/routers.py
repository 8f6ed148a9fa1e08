"""Routers of the decode pool: the four of core/serving/routers.py, plus least_kv_demand.

A request reaches the decode pool needing its whole prompt's blocks at once (its KV is
already computed), so the decode pool's load is better seen as the blocks it has promised
than as the blocks in use now: least_kv (blocks in use) sends a burst of prefilled
requests to the same instance until the first of them is admitted there.

  least_kv_demand   fewest blocks in use + blocks the requests waiting there for their
                    first allocation will take (⌈(prompt + 1) / block_size⌉ each, the
                    engine's rule for a remote request); ties: fewest outstanding, then
                    in turn.
Deterministic; reads the engines only through their public methods. No Qt here.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from core.registry import ParamError
from core.serving.pd_params import DECODE_ROUTER_NOTES, DECODE_ROUTERS, DEMAND
from core.serving.routers import ROUTERS, Router, make_router

__all__ = ["DECODE_ROUTERS", "DECODE_ROUTER_NOTES", "DEMAND", "LeastKvDemand", "decode_router"]


class LeastKvDemand(Router):
    name = DEMAND

    def __init__(self, replicas: int, blocks_needed: np.ndarray):
        super().__init__(replicas)
        self.blocks_needed = blocks_needed  # by engine id

    def pick(self, r: int, engines: Sequence) -> int:
        def score(i: int):
            e = engines[i]
            waiting = [w for w in e.waiting_ids() if math.isnan(e.kv_alloc_s(w))]  # not yet holding blocks
            promised = int(self.blocks_needed[waiting].sum()) if waiting else 0
            return (e.kv_used_blocks() + promised, e.outstanding())

        return self._best(list(range(self.replicas)), score)


def decode_router(name: str, replicas: int, prompt_tokens: np.ndarray, block_size: int) -> Router:
    """prompt_tokens: by engine id (the decode engines' order)."""
    if name == DEMAND:
        need = (np.asarray(prompt_tokens, np.int64) + 1 + block_size - 1) // block_size
        return LeastKvDemand(replicas, need)
    if name not in ROUTERS:
        raise ParamError("decode_router", f"got {name!r}; valid: {', '.join(DECODE_ROUTERS)}")
    return make_router(name, replicas)
