"""The block pool of automatic prefix caching, compiled (vLLM V1's block_pool.py): cached
blocks with their reference counts and the free-block queue in LRU order. The seam the
loop uses: settle, lookup, touch, register, release (and blocks_before_watched for tool
waits), over arrays of block keys (keys.py gives a request's keys).

The queue is a doubly-linked list of entries: a cached free block (its key) or a run of
uncached free blocks (a count), in queue order. `ref` (a hash table, hashtab.py) maps each
cached key to its entry: its reference count there, and, when the count is 0, its place in the
queue, so a block taken back into use leaves the queue's middle in O(1). The engine keeps
its own count of free blocks and only lowers it when it allocates; settle then takes
those blocks from the queue's head, evicting the cached ones among them, before anything
looks the cache up. `watch` maps a key to the end of the tool wait its KV is kept for:
until then (or until evicted) it counts in Σ blocks × seconds. The frozen engine's
BlockCache, operation for operation (its OrderedDict is this list).

The pool is a tuple of arrays (make_pool): PS (int64 slots below), PF (float64: the Σ
block·s), the entry arrays, the entry stack, ref's keys and entries, watch's keys and ends.
A watched key stays listed until it is evicted (the frozen engine's rule); one whose wait
has ended can no longer count, so a full watch list drops those.
"""
from __future__ import annotations

import numpy as np

from core.serving.engine import hashtab as ht
from core.serving.engine.byref import deref
from core.serving.engine.jit import kernel
from core.serving.engine.layout import POOL_EVICTED as EVICTED
from core.serving.engine.layout import POOL_HEAD as HEAD
from core.serving.engine.layout import POOL_QUEUED as QUEUED
from core.serving.engine.layout import POOL_STACK_N as STACK_N
from core.serving.engine.layout import POOL_TAIL as TAIL

EPOCH = 5  # counts changes to what a lookup sees (keys cached, which are free)
# The waiting head's last lookup (prefix.head_plan): request, tokens, epoch, blocks hit, free among them.
MEMO_H, MEMO_TOTAL, MEMO_EPOCH, MEMO_HIT, MEMO_IDLE = 6, 7, 8, 9, 10
WATCH_N = 11  # keys in the watch list
NPS = 12


def make_pool(num_blocks: int, entries: int):
    """An empty pool of num_blocks free blocks with room for `entries` queue entries and
    cached keys (at most three per block: in use, queued, and a step's not yet settled)."""
    PS = np.zeros(NPS, np.int64)
    PF = np.zeros(1)
    e_key = np.full(entries, -1, np.int64)
    e_ref = np.zeros(entries, np.int64)
    e_cnt = np.zeros(entries, np.int64)
    e_prev = np.full(entries, -1, np.int64)
    e_next = np.full(entries, -1, np.int64)
    stack = np.arange(entries - 1, -1, -1, dtype=np.int64)
    PS[STACK_N] = entries
    PS[HEAD] = PS[TAIL] = -1
    PS[MEMO_H] = -1
    ref_k, ref_v = ht.make(entries, np.int64)
    watch_k, watch_v = ht.make(max(entries, 64), np.float64)
    pool = (PS, PF, e_key, e_ref, e_cnt, e_prev, e_next, stack, ref_k, ref_v, watch_k, watch_v)
    if num_blocks > 0:  # the queue: one run of plain free blocks (_new and _link_tail's first entry)
        PS[STACK_N] -= 1
        e = stack[PS[STACK_N]]
        e_cnt[e] = num_blocks
        PS[HEAD] = PS[TAIL] = e
    PS[QUEUED] = num_blocks
    return pool


# -- entries and the list ----------------------------------------------------------------
@kernel
def _new(pool, key):
    PS, e_key, e_ref, e_cnt, stack = deref(pool)[0], deref(pool)[2], deref(pool)[3], deref(pool)[4], deref(pool)[7]
    if PS[STACK_N] == 0:
        raise MemoryError("block pool: out of entries")
    PS[STACK_N] -= 1
    e = stack[PS[STACK_N]]
    e_key[e] = key
    e_ref[e] = 0
    e_cnt[e] = 0
    return e


@kernel
def _free(pool, e):
    PS, stack = deref(pool)[0], deref(pool)[7]
    stack[PS[STACK_N]] = e
    PS[STACK_N] += 1


@kernel
def _link_tail(pool, e):
    PS, e_prev, e_next = deref(pool)[0], deref(pool)[5], deref(pool)[6]
    t = PS[TAIL]
    e_prev[e] = t
    e_next[e] = -1
    if t >= 0:
        e_next[t] = e
    else:
        PS[HEAD] = e
    PS[TAIL] = e


@kernel
def _unlink(pool, e):
    PS, e_prev, e_next = deref(pool)[0], deref(pool)[5], deref(pool)[6]
    p, q = e_prev[e], e_next[e]
    if p >= 0:
        e_next[p] = q
    else:
        PS[HEAD] = q
    if q >= 0:
        e_prev[q] = p
    else:
        PS[TAIL] = p


@kernel
def _append_plain(pool, count):
    if count <= 0:
        return
    PS, e_key, e_cnt = deref(pool)[0], deref(pool)[2], deref(pool)[4]
    t = PS[TAIL]
    if t >= 0 and e_key[t] < 0:  # runs next to each other are one run
        e_cnt[t] += count
        return
    e = _new(pool, np.int64(-1))
    e_cnt[e] = count
    _link_tail(pool, e)


@kernel
def _watch(pool, key, until, now):
    """key's KV is kept until `until` (a tool wait)."""
    PS, watch_k, watch_v = deref(pool)[0], deref(pool)[10], deref(pool)[11]
    if 2 * (PS[WATCH_N] + 1) > watch_k.size:  # full: drop the keys whose wait has ended
        _purge(pool, now)
        if 2 * (PS[WATCH_N] + 1) > watch_k.size:
            raise MemoryError("block pool: the tool-wait watch list is full")
    if ht.put(watch_k, watch_v, key, until):
        PS[WATCH_N] += 1


@kernel(nrt=True)  # copies the watch list
def _purge(pool, now):
    PS, watch_k, watch_v = deref(pool)[0], deref(pool)[10], deref(pool)[11]
    keep_k = watch_k.copy()
    keep_v = watch_v.copy()
    watch_k[:] = ht.EMPTY
    n = np.int64(0)
    for i in range(keep_k.size):
        if keep_k[i] != ht.EMPTY and keep_v[i] > now:
            ht.put(watch_k, watch_v, keep_k[i], keep_v[i])
            n += 1
    PS[WATCH_N] = n


# -- the seam --------------------------------------------------------------------------------
@kernel
def settle(pool, free, now):
    """Take the blocks allocated since the last call from the head of the queue."""
    PS, PF, e_key, e_cnt = deref(pool)[0], deref(pool)[1], deref(pool)[2], deref(pool)[4]
    ref_k, ref_v, watch_k, watch_v = deref(pool)[8], deref(pool)[9], deref(pool)[10], deref(pool)[11]
    owed = PS[QUEUED] - free
    PS[QUEUED] = free
    while owed > 0:
        e = PS[HEAD]
        key = e_key[e]
        if key < 0:
            take = min(e_cnt[e], owed)
            owed -= take
            if e_cnt[e] > take:
                e_cnt[e] -= take
            else:
                _unlink(pool, e)
                _free(pool, e)
            continue
        owed -= 1
        _unlink(pool, e)
        _free(pool, e)
        ht.remove(ref_k, ref_v, ht.find(ref_k, key))
        PS[EVICTED] += 1
        PS[EPOCH] += 1
        if PS[WATCH_N]:
            w = ht.find(watch_k, key)
            if w >= 0:
                end = watch_v[w]
                ht.remove(watch_k, watch_v, w)
                PS[WATCH_N] -= 1
                if end > now:
                    PF[0] -= end - now


@kernel
def lookup(pool, keys, j0, j1):
    """(blocks hit: the longest run of cached keys[j0:j1] from the first, how many of
    those are free, i.e. leave the queue when a request takes them)."""
    e_ref, ref_k, ref_v = deref(pool)[3], deref(pool)[8], deref(pool)[9]
    idle = np.int64(0)
    for j in range(j0, j1):
        i = ht.find(ref_k, keys[j])
        if i < 0:
            return j - j0, idle
        if e_ref[ref_v[i]] == 0:
            idle += 1
    return j1 - j0, idle


@kernel
def touch(pool, keys, j0, j1):
    """A request takes the cached blocks keys[j0:j1]; returns how many left the queue."""
    PS, e_ref, ref_k, ref_v = deref(pool)[0], deref(pool)[3], deref(pool)[8], deref(pool)[9]
    taken = np.int64(0)
    if j1 > j0:
        PS[EPOCH] += 1
    for j in range(j0, j1):
        e = ref_v[ht.find(ref_k, keys[j])]
        if e_ref[e] == 0:
            _unlink(pool, e)
            taken += 1
        e_ref[e] += 1
    PS[QUEUED] -= taken
    return taken


@kernel
def register(pool, keys, j0, j1, uncached):
    """A request's blocks keys[j0:j1] just became full: cache them. uncached[j] = 1 where
    an equal block was cached already (this copy stays uncached), else 0."""
    PS, e_ref, ref_k, ref_v = deref(pool)[0], deref(pool)[3], deref(pool)[8], deref(pool)[9]
    PS[EPOCH] += 1
    for j in range(j0, j1):
        key = keys[j]
        if ht.find(ref_k, key) >= 0:
            uncached[j] = 1
        else:
            e = _new(pool, key)
            e_ref[e] = 1
            ht.put(ref_k, ref_v, key, e)
            uncached[j] = 0


@kernel
def release(pool, keys, uncached, held, plain, drop, watching, until, now):
    """A request frees its blocks: its `held` leading full blocks (keys[:held], uncached
    where flagged) and `plain` more after them, tail first. Cached blocks nobody else uses
    join the queue still cached, or as plain blocks with drop. watching: a tool wait ends
    at `until`; the blocks still cached count toward the byte·s held until then or until
    evicted. Returns the blocks that joined the queue."""
    PS, PF, e_ref, ref_k, ref_v = deref(pool)[0], deref(pool)[1], deref(pool)[3], deref(pool)[8], deref(pool)[9]
    PS[EPOCH] += 1
    freed = plain
    _append_plain(pool, plain)
    still = np.int64(0)
    for j in range(held - 1, -1, -1):
        if uncached[j]:
            _append_plain(pool, np.int64(1))
            freed += 1
            continue
        key = keys[j]
        slot = ht.find(ref_k, key)
        e = ref_v[slot]
        if e_ref[e] > 1:
            e_ref[e] -= 1
            still += 1
            continue
        freed += 1
        if drop:
            ht.remove(ref_k, ref_v, slot)
            _free(pool, e)
            _append_plain(pool, np.int64(1))
            continue
        e_ref[e] = 0
        _link_tail(pool, e)
        still += 1
        if watching:
            _watch(pool, key, until, now)
    if watching:
        PF[0] += still * (until - now)
    PS[QUEUED] += freed
    return freed


@kernel
def blocks_before_watched(pool, free, now, limit):
    """How many blocks can be allocated (at most `limit`) before one would evict a block
    whose tool wait is still running; the engine ends a closed-form decode run there so
    that eviction gets its own step (and its time)."""
    PS, e_key, e_cnt, e_next, watch_k, watch_v = deref(pool)[0], deref(pool)[2], deref(pool)[4], deref(pool)[6], deref(pool)[10], deref(pool)[11]
    if PS[WATCH_N] == 0:
        return limit
    skip = PS[QUEUED] - free  # allocated already, not yet taken from the queue
    seen = np.int64(0)
    e = PS[HEAD]
    while e >= 0:
        key = e_key[e]
        if key < 0:
            seen += e_cnt[e]
        else:
            if seen >= skip:
                w = ht.find(watch_k, key)
                if w >= 0 and watch_v[w] > now:
                    return seen - skip
            seen += 1
        if seen - skip >= limit:
            return limit
        e = e_next[e]
    return limit
