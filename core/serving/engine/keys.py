"""Block keys computed on the fly (core.serving.prefix_cache builds the arrays): engine
block j of request r is named by what it holds and everything before it, as vLLM chains
block hashes. px[0] = (kind, hash block tokens); hash ids: px[1], px[2] the CSR of each
request's interned chain codes, px[3] the tokens they cover; sessions: px[4], px[5], px[6]
the CSR of (end token, owner) segments. A key is origin << 32 | j, origin r + 1 for a
block of r's own (the frozen engine's keys)."""
from __future__ import annotations

import numpy as np

from core.serving.engine import hashtab
from core.serving.engine.jit import kernel, njit

HASH_IDS = 0
SESSIONS = 1
_SHIFT = 32


@kernel
def key(px, r, j, bs):
    if px[0][0] == HASH_IDS:
        off, codes, covered = px[1], px[2], px[3]
        if j < covered[r] // bs:
            holder = min(((j + 1) * bs - 1) // px[0][1], off[r + 1] - off[r] - 1)
            return (codes[off[r] + holder] << _SHIFT) | j
        return ((r + 1) << _SHIFT) | j
    seg_off, seg_end, seg_owner = px[4], px[5], px[6]
    for s in range(seg_off[r], seg_off[r + 1]):  # the first segment reaching past block j
        if j < seg_end[s] // bs:
            return ((seg_owner[s] + 1) << _SHIFT) | j
    return ((r + 1) << _SHIFT) | j


@kernel
def fill(px, r, j0, j1, bs, out):
    """out[j] = r's key of block j for j0 <= j < j1."""
    for j in range(j0, j1):
        out[j] = key(px, r, j, bs)


@njit(cache=True, _nrt=True)  # returns an array it allocates
def intern_chains(raw, off, first, low, table_keys, table_vals):
    """Each position's chain code (prefix_cache._intern_chains): the pair (previous code,
    id) looked up in a hash table, a new code for a new pair, in request order. The pair
    packs into one key: (previous + 1) << 32 | (id − low), ids spanning under 2**32."""
    codes = np.empty(raw.size, np.int64)
    made = np.int64(0)
    for r in range(off.size - 1):
        prev = np.int64(-1)
        for i in range(off[r], off[r + 1]):
            pair = ((prev + 1) << 32) | (raw[i] - low)
            s = hashtab.find(table_keys, pair)
            if s >= 0:
                prev = table_vals[s]
            else:
                prev = first + made
                made += 1
                hashtab.put(table_keys, table_vals, pair, prev)
            codes[i] = prev
    return codes
