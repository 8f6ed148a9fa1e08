"""The block pool seam, compiled: how the loop takes and gives back KV blocks. Without
prefix caching the pool is a count (S[FREE]); with it (S[CACHE]), blocks go through the
prefix cache (prefix.py over pool.py: settle, lookup, touch, register, release)."""
from __future__ import annotations

from core.serving.engine.group import leave
from core.serving.engine.jit import kernel
from core.serving.engine.layout import BLOCKS, CACHE, FREE, JID
from core.serving.engine.prefix import release


@kernel
def give_back(S, SF, I, F, cache, grp, r, finished):
    """r's blocks go back to the pool (finished, preempted or cancelled); r leaves the group."""
    if I[JID, r] >= 0:
        leave(S, I, grp, r)
    if S[CACHE]:
        release(S, SF, I, F, cache, r, finished)
    else:
        S[FREE] += I[BLOCKS, r]
    I[BLOCKS, r] = 0
