"""The block pool seam, compiled: how the loop takes and gives back KV blocks. Without
prefix caching the pool is a count (S[FREE]); with it, blocks go through the prefix cache
(prefix.py over pool.py: settle, lookup, touch, register, release)."""
from __future__ import annotations

from core.serving.engine.group import leave
from core.serving.engine.jit import njit
from core.serving.engine.layout import BLOCKS, FREE, JID
from core.serving.engine.prefix import release


@njit(cache=True)
def give_back(S, SF, I, F, cache, grp, r, finished):
    """r's blocks go back to the pool (finished, preempted or cancelled); r leaves the group."""
    if I[JID, r] >= 0:
        leave(S, I, grp, r)
    if cache is not None:
        release(S, SF, I, F, cache, r, finished)
    else:
        S[FREE] += I[BLOCKS, r]
    I[BLOCKS, r] = 0
