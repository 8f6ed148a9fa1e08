"""The engine's prefix-caching steps, compiled (vLLM V1's kv_cache_manager): look a
waiting request up at its schedule, take the cached blocks it hits, cache blocks as they
fill, give blocks back to the pool's LRU queue when a request finishes or is preempted
(KV kept or dropped during a tool wait). `cache` = (pool, px): pool.py's pool and keys.py's
arrays, with px[7] the held blocks' uncached flags (px[8] their CSR offsets) and px[9] a
buffer of keys. I[HELD, r]: r's leading full blocks registered so far."""
from __future__ import annotations

import numpy as np

from core.serving.engine import pool as bp
from core.serving.engine.byref import deref, part
from core.serving.engine.jit import kernel
from core.serving.engine.keys import fill
from core.serving.engine.layout import BLOCKS, BS, COMPUTED, FREE, HELD, KEEP, NOW, OUT, RESERVE, TOOL, P


@kernel(nrt=True)  # returns a view
def _flags(px, r):
    return px[7][px[8][r]:px[8][r + 1]]


@kernel
def head_plan(S, SF, I, cache, h, budget):
    """(free blocks needed to admit h now, blocks hit, how many of those are free, tokens
    it computes in this step). The hit is the longest run of cached full blocks, at most
    (tokens − 1) // block_size: at least one token is computed for its logits. A closed-
    form run's gate and the admission right after it look the same head up: the last
    lookup is kept while nothing it saw changed."""
    pool, px = part(cache, 0), deref(cache)[1]
    bs = S[BS]
    bp.settle(pool, S[FREE], SF[NOW])
    total = I[P, h] + I[OUT, h]
    PS = deref(pool)[0]
    if PS[bp.MEMO_H] == h and PS[bp.MEMO_TOTAL] == total and PS[bp.MEMO_EPOCH] == PS[bp.EPOCH]:
        hit, idle = PS[bp.MEMO_HIT], PS[bp.MEMO_IDLE]  # the same head, the cache unchanged since
    else:
        most = (total - 1) // bs
        buf = px[9]
        hit = idle = np.int64(0)
        step = 16  # look up in growing chunks: a long prompt usually misses early
        while hit < most:
            j1 = min(most, hit + step)
            fill(px, h, hit, j1, bs, buf)
            found, free_found = bp.lookup(pool, buf, hit, j1)
            hit += found
            idle += free_found
            if hit < j1:
                break
            step *= 4
        PS[bp.MEMO_H], PS[bp.MEMO_TOTAL], PS[bp.MEMO_EPOCH] = h, total, PS[bp.EPOCH]
        PS[bp.MEMO_HIT], PS[bp.MEMO_IDLE] = hit, idle
    num = min(total - hit * bs, budget)
    whole = total if S[RESERVE] else hit * bs + num
    # Hit blocks that sit in the free queue leave it: they count against the free blocks.
    return -(-whole // bs) - hit + idle, hit, idle, num


@kernel
def take_hit(S, I, cache, h, hit, num):
    """h, admitted, takes its hit and the blocks of its chunk."""
    pool, px = part(cache, 0), deref(cache)[1]
    bs = S[BS]
    deref(pool)[0][bp.MEMO_H] = -1
    fill(px, h, np.int64(0), hit, bs, px[9])
    S[FREE] -= bp.touch(pool, px[9], np.int64(0), hit)
    need = -(-(hit * bs + num) // bs) - hit
    S[FREE] -= need
    I[BLOCKS, h] = hit + need
    I[HELD, h] = hit
    _flags(px, h)[:hit] = 0
    I[COMPUTED, h] = hit * bs


@kernel
def register_filled(S, I, cache, r):
    """Cache the blocks r just filled (prompt or generated tokens)."""
    pool, px = part(cache, 0), deref(cache)[1]
    bs = S[BS]
    h = I[HELD, r]
    full = I[COMPUTED, r] // bs
    if full > h:
        fill(px, r, h, full, bs, px[9])
        bp.register(pool, px[9], h, full, _flags(px, r))
        I[HELD, r] = full


@kernel
def release(S, SF, I, F, cache, r, finished):
    """Give r's blocks back. A finished turn followed by a tool wait keeps its KV cached
    (counted in byte·s until the wait ends or it is evicted) or drops it."""
    pool, px = part(cache, 0), deref(cache)[1]
    register_filled(S, I, cache, r)
    held = I[HELD, r]
    plain = I[BLOCKS, r] - held
    drop = watching = False
    until = 0.0
    now = SF[NOW]
    if finished and F[TOOL, r] > 0:
        if I[KEEP, r]:
            watching = True
            until = now + F[TOOL, r]
        else:
            drop = True
    fill(px, r, np.int64(0), held, S[BS], px[9])
    S[FREE] += bp.release(pool, px[9], _flags(px, r), held, plain, drop, watching, until, now)
    I[HELD, r] = 0


@kernel
def watching_any(cache):
    return deref(cache)[0][0][bp.WATCH_N] > 0


@kernel
def kth_offset(hist, idx):
    """The idx-th smallest (0-based) offset of the members' histogram by offset."""
    seen = np.int64(0)
    for o in range(hist.size):
        seen += hist[o]
        if seen > idx:
            return o
    return hist.size


@kernel
def steps_before_watched_eviction(S, SF, cache, hist, n, k):
    """Lockstep decode steps (at most k) before one would evict a block held for a
    running tool wait. hist: the n members by offset to their next block boundary."""
    bs = S[BS]
    needs = np.int64(0)
    for o in range(bs):
        if hist[o]:
            needs += hist[o] * max(0, (k - o - 1) // bs + 1)
    safe = bp.blocks_before_watched(part(cache, 0), S[FREE], SF[NOW], needs)
    if safe >= needs:
        return k
    q, idx = divmod(safe, n)
    return q * bs + kth_offset(hist, idx)


@kernel
def cached_prefix_blocks(S, I, cache, r):
    """Full blocks of r's prompt the cache holds now; looks, takes nothing."""
    pool, px = part(cache, 0), deref(cache)[1]
    bs = S[BS]
    most = (I[P, r] - 1) // bs
    if most <= 0:
        return 0
    fill(px, r, np.int64(0), most, bs, px[9])
    return bp.lookup(pool, px[9], np.int64(0), most)[0]
