"""Automatic prefix caching as vLLM V1 does it (block_pool.py, kv_cache_manager.py).

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

The pool (BlockCache) keeps vLLM's free-block queue: freed blocks go to its tail (a
request's blocks in reverse, so a prefix outlives its tail), allocation takes from its
head and evicts the cached block it takes. A cached block in use has a reference count
and is shared, not duplicated. One simplification: a block a request computed itself
while an equal one was already cached stays uncached (vLLM keeps both copies cached).
"""
from __future__ import annotations

from collections import OrderedDict, deque

import numpy as np

_SHIFT = 32  # key = origin << _SHIFT | block index


class SessionIdentity:
    """Block keys of a sessions workload (arrays in the engine's request order)."""

    def __init__(self, prev: np.ndarray, shared_tokens: np.ndarray, turn_order: np.ndarray):
        n = prev.size
        # segments[r]: (end_token, origin) runs; block j belongs to the first run whose end
        # is at or past its last token + 1; past all of them it is r's own.
        self.segments: list[list[tuple[int, int]]] = [[] for _ in range(n)]
        for r in turn_order:  # parents first
            p = int(prev[r])
            s = int(shared_tokens[r])
            if p < 0 or s <= 0:
                continue
            segs: list[tuple[int, int]] = []
            for end, origin in self.segments[p] + [(s, p)]:
                segs.append((min(end, s), origin))
                if end >= s:
                    break
            self.segments[r] = segs

        self._arrays: dict[int, np.ndarray] = {}  # keys of requests in flight, built once

    def keys(self, r: int, j0: int, j1: int, bs: int) -> list[int]:
        arr = self._arrays.get(r)
        if arr is None or arr.size < j1:
            size = max(j1, 2 * (arr.size if arr is not None else 0))
            origin = np.full(size, r + 1, np.int64)
            start = 0
            for end, owner in self.segments[r]:
                stop = min(end // bs, size)
                origin[start:stop] = owner + 1
                start = max(start, stop)
            arr = (origin << _SHIFT) | np.arange(size, dtype=np.int64)
            self._arrays[r] = arr
        return arr[j0:j1].tolist()

    def forget(self, r: int) -> None:
        self._arrays.pop(r, None)


class HashIdIdentity:
    """Block keys from Mooncake hash_ids (arrays in the engine's request order)."""

    def __init__(self, ids: np.ndarray, offsets: np.ndarray, block_tokens: int, order: np.ndarray,
                 prompt_tokens: np.ndarray):
        n = order.size
        self.block_tokens = int(block_tokens)
        self.covered = np.zeros(n, np.int64)
        self.chains: list[list[int]] = []
        interned: dict[tuple[int, int], int] = {}
        first = n + 1  # chain codes above every request's own origin code
        for r in range(n):
            w = int(order[r])
            raw = ids[offsets[w]:offsets[w + 1]].tolist()
            chain, prev = [], -1
            for h in raw:
                prev = interned.setdefault((prev, h), first + len(interned))
                chain.append(prev)
            self.chains.append(chain)
            self.covered[r] = min(int(prompt_tokens[r]), len(raw) * self.block_tokens)

        self._arrays: dict[int, np.ndarray] = {}  # keys of requests in flight, built once

    def keys(self, r: int, j0: int, j1: int, bs: int) -> list[int]:
        arr = self._arrays.get(r)
        if arr is None or arr.size < j1:
            j = np.arange(max(j1, 2 * (arr.size if arr is not None else 0)), dtype=np.int64)
            chain = np.asarray(self.chains[r] or [0], np.int64)
            shared = j < int(self.covered[r]) // bs
            holder = np.minimum(((j + 1) * bs - 1) // self.block_tokens, chain.size - 1)
            arr = np.where(shared, chain[holder] << _SHIFT, (r + 1) << _SHIFT) | j
            self._arrays[r] = arr
        return arr[j0:j1].tolist()

    def forget(self, r: int) -> None:
        self._arrays.pop(r, None)


class BlockCache:
    """Cached blocks (key -> reference count) and the free-block queue in LRU order.

    The queue holds cached free blocks (key -> None) and runs of uncached free blocks
    (negative run id -> count). The engine keeps its own count of free blocks and only
    lowers it when it allocates; `settle` then takes those blocks from the queue's head,
    evicting the cached ones among them, before anything looks the cache up."""

    def __init__(self, num_blocks: int, block_bytes: float):
        self.ref: dict[int, int] = {}
        self.queue: OrderedDict[int, int | None] = OrderedDict({-1: num_blocks})
        self.queued = num_blocks
        self._runs = 1
        self.evicted = 0
        self.block_bytes = block_bytes
        self.tool_watch: dict[int, float] = {}  # key -> end of the tool wait it is counted in
        self.tool_block_s = 0.0

    # -- the queue ---------------------------------------------------------------------
    def settle(self, free: int, now: float) -> None:
        """Take the blocks allocated since the last call from the head of the queue."""
        owed = self.queued - free
        queue, ref, watch = self.queue, self.ref, self.tool_watch
        self.queued = free
        while owed > 0:
            key, count = queue.popitem(last=False)
            if key < 0:
                take = min(count, owed)
                owed -= take
                if count > take:
                    queue[key] = count - take
                    queue.move_to_end(key, last=False)
                continue
            owed -= 1
            del ref[key]
            self.evicted += 1
            if watch:
                end = watch.pop(key, None)
                if end is not None and end > now:
                    self.tool_block_s -= end - now

    def blocks_before_watched(self, free: int, now: float, limit: int) -> int:
        """How many blocks can be allocated (at most `limit`) before one would evict a
        block whose tool wait is still running; the engine ends a skipped decode run there
        so that eviction gets its own step (and its time)."""
        if not self.tool_watch:
            return limit
        skip = self.queued - free  # allocated already, not yet taken from the queue
        watch = self.tool_watch
        seen = 0
        for key, count in self.queue.items():
            if key < 0:
                seen += count
            else:
                if seen >= skip:
                    end = watch.get(key)
                    if end is not None and end > now:
                        return seen - skip
                seen += 1
            if seen - skip >= limit:
                return limit
        return limit

    def _append_plain(self, count: int) -> None:
        if count <= 0:
            return
        queue = self.queue
        if queue:
            last = next(reversed(queue))
            if last < 0:
                queue[last] += count
                return
        self._runs += 1
        queue[-self._runs] = count

    # -- requests ------------------------------------------------------------------------
    def lookup(self, keys: list[int]) -> tuple[int, int]:
        """(blocks hit: the longest run of cached keys from the first, how many of those
        are free, i.e. leave the free queue when the request takes them)."""
        counts = list(map(self.ref.get, keys))
        hit = counts.index(None) if None in counts else len(counts)
        return hit, counts[:hit].count(0)

    def touch(self, keys: list[int]) -> int:
        """A request takes cached blocks; returns how many left the free queue."""
        ref, queue = self.ref, self.queue
        counts = list(map(ref.__getitem__, keys))
        if not any(counts):  # the common case: nobody else holds them
            deque(map(queue.__delitem__, keys), maxlen=0)  # a loop at C speed
            ref.update(dict.fromkeys(keys, 1))
            taken = len(keys)
        else:
            taken = 0
            for key, count in zip(keys, counts):
                if count == 0:
                    del queue[key]
                    taken += 1
                ref[key] = count + 1
        self.queued -= taken
        return taken

    def register(self, keys: list[int]) -> list:
        """A request's blocks just became full: cache them. Returns the keys, None where an
        equal block was cached already (this copy stays uncached)."""
        ref = self.ref
        if ref.keys().isdisjoint(keys):
            ref.update(dict.fromkeys(keys, 1))
            return keys
        out = []
        for key in keys:
            if key in ref:
                out.append(None)
            else:
                ref[key] = 1
                out.append(key)
        return out

    def release(self, held: list, plain: int, drop: bool = False, watch_until: float | None = None,
                now: float = 0.0) -> int:
        """A request frees its blocks: `held` (its leading full blocks' keys, None where
        uncached) and `plain` more after them, tail first. Cached blocks nobody else uses
        join the queue still cached, or as plain blocks with drop=True. watch_until: a tool
        wait ends then; the cached blocks count toward the byte·s held until then or until
        evicted. Returns the blocks that joined the queue."""
        ref, queue, watch = self.ref, self.queue, self.tool_watch
        freed = plain
        self._append_plain(plain)
        rev = held[::-1]
        if not drop and None not in rev:
            # The common case, at C speed: no uncached copies among the held blocks.
            counts = list(map(ref.__getitem__, rev))
            if counts.count(1) == len(rev):
                last = rev
            else:  # some are shared with running requests: they stay in use
                last = [key for key, count in zip(rev, counts) if count == 1]
                ref.update((key, count - 1) for key, count in zip(rev, counts) if count > 1)
            ref.update(dict.fromkeys(last, 0))
            queue.update(dict.fromkeys(last))
            if watch_until is not None:
                watch.update(dict.fromkeys(last, watch_until))
                self.tool_block_s += len(rev) * (watch_until - now)
            self.queued += freed + len(last)
            return freed + len(last)
        still_cached = 0
        for key in rev:
            if key is None:
                self._append_plain(1)
                freed += 1
                continue
            count = ref[key] - 1
            if count > 0:
                ref[key] = count
                still_cached += 1
                continue
            freed += 1
            if drop:
                del ref[key]
                self._append_plain(1)
                continue
            ref[key] = 0
            queue[key] = None
            still_cached += 1
            if watch_until is not None:
                watch[key] = watch_until
        if watch_until is not None:
            self.tool_block_s += still_cached * (watch_until - now)
        self.queued += freed
        return freed

    @property
    def tool_wait_kv_byte_s(self) -> float:
        return self.tool_block_s * self.block_bytes
