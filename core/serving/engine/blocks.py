"""The block pool seam, compiled: how the loop takes and gives back KV blocks. Without
prefix caching the pool is a count (S[FREE]); with it, blocks go through pool.py's cache
(settle, lookup, touch, register, release)."""
from __future__ import annotations

from numba import njit

from core.serving.engine.layout import BLOCKS, CACHE, FREE


@njit(cache=True)
def give_back(S, SF, I, F, pool, r, finished):
    """r's blocks go back to the pool (finished, preempted or cancelled)."""
    if S[CACHE]:
        raise NotImplementedError("prefix caching runs in the Python engine until phase 2")
    S[FREE] += I[BLOCKS, r]
    I[BLOCKS, r] = 0
