"""Automatic prefix caching as vLLM V1 does it (block_pool.py, kv_cache_manager.py): how
blocks get their keys, and the pool as Python sees it.

A full block of `block_size` tokens is identified by its content and everything before it
(vLLM chains the block hashes). Without token ids, the identity comes from the workload:

- Mooncake `hash_ids` (PrefixBlocks): hash block b covers tokens [b·T, (b+1)·T), T =
  block_tokens; its chained identity is the run of ids 0..b (interned to one integer).
  Engine block j (tokens [j·bs, (j+1)·bs)) gets the identity of the hash block holding its
  last token, plus j. A block of the prompt's last, partial hash block is shared when the
  ids are equal: an id is a hash of the block's tokens, so equal ids mean equal tokens.
  Blocks past the covered tokens (the output, or a prompt longer than its ids) are the
  request's own.
- Sessions: turn k's first shared_prefix_tokens tokens are the first tokens of turn k−1's
  prompt + output. Engine block j lying wholly inside that shared part has the identity
  turn k−1 gave it (recursively, back to the turn that computed it first); every other
  block (the new input, the output) is the turn's own.

The identities here build the arrays the compiled engine computes keys from on the fly
(core/serving/engine/keys.py); `keys` gives the same keys in Python. The pool itself is
compiled (core/serving/engine/pool.py: vLLM's free-block queue in LRU order, freed blocks
to its tail, a request's blocks in reverse so a prefix outlives its tail, allocation from
its head evicting the cached block it takes; a cached block in use is shared, not
duplicated). BlockCache is that pool driven from Python, one call at a time. One
simplification: a block a request computed itself while an equal one was already cached
stays uncached (vLLM keeps both copies cached).
"""
from __future__ import annotations

from collections import OrderedDict

import numpy as np

_SHIFT = 32  # key = origin << _SHIFT | block index (origin r + 1 for r's own blocks)


class SessionIdentity:
    """Block keys of a sessions workload (arrays in the engine's request order): request
    r's (end token, owner) segments, seg_end/seg_owner[seg_off[r]:seg_off[r + 1]]; block j
    belongs to the first segment whose end // bs is past j, past all of them it is r's own."""

    kind = 1

    def __init__(self, prev: np.ndarray, shared_tokens: np.ndarray, turn_order: np.ndarray):
        n = prev.size
        segments: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        prev_l, shared_l = prev.tolist(), shared_tokens.tolist()
        for r in turn_order.tolist():  # parents first
            p, s = prev_l[r], shared_l[r]
            if p < 0 or s <= 0:
                continue
            segs: list[tuple[int, int]] = []
            for end, origin in segments[p] + [(s, p)]:
                segs.append((min(end, s), origin))
                if end >= s:
                    break
            segments[r] = segs
        counts = np.fromiter(map(len, segments), np.int64, n)
        self.seg_off = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
        flat = [x for segs in segments for x in segs]
        self.seg_end = np.array([e for e, _ in flat], np.int64)
        self.seg_owner = np.array([o for _, o in flat], np.int64)

    def arrays(self) -> tuple:
        e = np.zeros(1, np.int64)
        return (np.array([self.kind, 1], np.int64), e, e, np.zeros(self.seg_off.size - 1, np.int64), self.seg_off,
                self.seg_end, self.seg_owner)

    def keys(self, r: int, j0: int, j1: int, bs: int) -> list[int]:
        j = np.arange(j0, j1, dtype=np.int64)
        origin = np.full(j.size, r + 1, np.int64)
        done = np.zeros(j.size, bool)
        for s in range(self.seg_off[r], self.seg_off[r + 1]):
            mine = ~done & (j < self.seg_end[s] // bs)
            origin[mine] = self.seg_owner[s] + 1
            done |= mine
        return ((origin << _SHIFT) | j).tolist()


def _intern_chains(raw: np.ndarray, off: np.ndarray, first: int) -> np.ndarray:
    """Each position's chain code: one integer per distinct run of ids from a request's
    first hash block to this one, numbered from `first` in order of first appearance
    (request by request), as interning the pairs (previous code, id) one by one does.
    Depth by depth at numpy speed: the pairs at depth d are known once depth d − 1 is coded."""
    total = raw.size
    codes = np.empty(total, np.int64)
    if total == 0:
        return codes
    lengths = np.diff(off)
    starts = off[:-1]
    low = int(raw.min())
    narrow = int(raw.max()) - low < 1 << 32 and first + total < 1 << 30  # a pair packs into one int64
    if narrow:  # one pass, compiled (the engine runs compiled anyway)
        from core.serving.engine import hashtab
        from core.serving.engine.keys import intern_chains
        return intern_chains(raw, off, first, low, *hashtab.make(total, np.int64))
    provisional = 0
    for d in range(int(lengths.max())):
        at = starts[lengths > d] + d
        prev = codes[at - 1] if d else np.full(at.size, -1, np.int64)
        _, inverse = np.unique(np.stack((prev, raw[at]), axis=1), axis=0, return_inverse=True)
        codes[at] = provisional + inverse.reshape(-1)
        provisional += int(inverse.max()) + 1
    seen = np.full(provisional, total, np.int64)  # each code's first position, flat order
    np.minimum.at(seen, codes, np.arange(total))
    rank = np.empty(provisional, np.int64)
    rank[np.argsort(seen, kind="stable")] = np.arange(provisional)
    return first + rank[codes]


class HashIdIdentity:
    """Block keys from Mooncake hash_ids (arrays in the engine's request order): request
    r's interned chain codes codes[off[r]:off[r + 1]] (a code names the run of ids up to
    and including that hash block) and the prompt tokens they cover."""

    kind = 0

    def __init__(self, ids: np.ndarray, offsets: np.ndarray, block_tokens: int, order: np.ndarray,
                 prompt_tokens: np.ndarray):
        n = order.size
        self.block_tokens = int(block_tokens)
        starts, ends = offsets[order], offsets[order + 1]
        lengths = (ends - starts).astype(np.int64)
        self.off = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
        gather = np.repeat(starts - self.off[:-1], lengths) + np.arange(int(self.off[-1]))
        self.codes = _intern_chains(ids[gather].astype(np.int64), self.off, first=n + 1)
        self.covered = np.minimum(np.asarray(prompt_tokens, np.int64), lengths * self.block_tokens)

    def arrays(self) -> tuple:
        e = np.zeros(1, np.int64)
        return (np.array([self.kind, self.block_tokens], np.int64), self.off, self.codes, self.covered,
                np.zeros(self.off.size, np.int64), e, e)

    def keys(self, r: int, j0: int, j1: int, bs: int) -> list[int]:
        j = np.arange(j0, j1, dtype=np.int64)
        chain = self.codes[self.off[r]:self.off[r + 1]]
        if chain.size == 0:
            chain = np.zeros(1, np.int64)
        shared = j < int(self.covered[r]) // bs
        holder = np.minimum(((j + 1) * bs - 1) // self.block_tokens, chain.size - 1)
        return (np.where(shared, chain[holder] << _SHIFT, (r + 1) << _SHIFT) | j).tolist()


class BlockCache:
    """The compiled pool (core/serving/engine/pool.py) driven from Python with lists of
    keys (positive ints), the frozen engine's BlockCache interface: settle, lookup, touch,
    register (None where an equal block was cached), release, blocks_before_watched."""

    def __init__(self, num_blocks: int, block_bytes: float, entries: int | None = None):
        from core.serving.engine import pool as bp
        self._bp = bp
        self.block_bytes = block_bytes
        self.pool = bp.make_pool(num_blocks, entries if entries is not None else 3 * num_blocks + 4096)

    @staticmethod
    def _keys(keys) -> np.ndarray:
        return np.asarray(keys, np.int64).reshape(-1)

    def settle(self, free: int, now: float) -> None:
        self._bp.settle(self.pool, free, now)

    def lookup(self, keys: list[int]) -> tuple[int, int]:
        k = self._keys(keys)
        hit, idle = self._bp.lookup(self.pool, k, 0, k.size)
        return int(hit), int(idle)

    def touch(self, keys: list[int]) -> int:
        k = self._keys(keys)
        return int(self._bp.touch(self.pool, k, 0, k.size))

    def register(self, keys: list[int]) -> list:
        k = self._keys(keys)
        flags = np.zeros(k.size, np.uint8)
        self._bp.register(self.pool, k, 0, k.size, flags)
        return [None if f else key for key, f in zip(k.tolist(), flags.tolist())]

    def release(self, held: list, plain: int, drop: bool = False, watch_until: float | None = None,
                now: float = 0.0) -> int:
        flags = np.array([key is None for key in held], np.uint8)
        k = np.array([0 if key is None else key for key in held], np.int64)
        until = 0.0 if watch_until is None else float(watch_until)
        return int(self._bp.release(self.pool, k, flags, k.size, int(plain), bool(drop), watch_until is not None,
                                    until, float(now)))

    def blocks_before_watched(self, free: int, now: float, limit: int) -> int:
        return int(self._bp.blocks_before_watched(self.pool, free, now, limit))

    @property
    def evicted(self) -> int:
        return int(self.pool[0][self._bp.EVICTED])

    @property
    def queued(self) -> int:
        return int(self.pool[0][self._bp.QUEUED])

    @property
    def tool_block_s(self) -> float:
        return float(self.pool[1][0])

    @property
    def tool_wait_kv_byte_s(self) -> float:
        return self.tool_block_s * self.block_bytes

    @property
    def refcounts(self) -> dict[int, int]:
        """key -> reference count (0: free, in the queue), as a copy."""
        e_ref, keys, entries = self.pool[3], self.pool[8], self.pool[9]
        live = keys >= 0
        return dict(zip(keys[live].tolist(), e_ref[entries[live]].tolist()))

    @property
    def queue(self) -> OrderedDict:
        """The free queue from its head, as a copy: key -> None for a cached block, a run id
        (< 0) -> count for plain ones."""
        PS, e_key, e_cnt, e_next = self.pool[0], self.pool[2], self.pool[4], self.pool[6]
        out: OrderedDict = OrderedDict()
        e = int(PS[self._bp.HEAD])
        while e >= 0:
            if e_key[e] < 0:
                out[-1 - len(out)] = int(e_cnt[e])
            else:
                out[int(e_key[e])] = None
            e = int(e_next[e])
        return out
