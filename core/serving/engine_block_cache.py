"""The block pool of automatic prefix caching (vLLM V1's block_pool.py): cached blocks with
their reference counts and the free-block queue in LRU order (prefix_cache.py says how
blocks get their keys; engine_prefix.py drives it).

Its cost is per block (a long trace caches, frees and evicts millions), so every
per-block operation here runs at C speed, through map/compress/filter over lists and
dicts: no Python loop visits a block on the common paths. Keys are positive ints.
"""
from __future__ import annotations

from bisect import bisect_left
from collections import OrderedDict, deque
from itertools import accumulate, compress, count, repeat
from operator import add, eq, gt, lt, setitem, sub

# A run of cached blocks nobody can ask for again (a finished request's own) is queued as
# -(_UNREACHABLE + count): evicted like cached blocks, counted, but not one by one.
_UNREACHABLE = 1 << 40
_TOMB = 0  # a queue entry whose block was taken back into use (keys are positive)
_ZERO, _ONE = repeat(0), repeat(1)  # operator functions over map(): a third the cost of bound methods


def _drain(it) -> None:
    deque(it, maxlen=0)


class BlockCache:
    """Cached blocks (`ref`: key -> reference count, or -(s + 1) for a free one, s its
    place in the queue: index s - _base of `_fifo`) and the free-block queue in LRU order.

    The queue is a list (`_fifo`) read from `_head`: cached free blocks (their key), runs
    of uncached free blocks (minus their count) and runs of unreachable cached ones (a
    finished request's blocks nobody can ask for again: release's `unreachable_from`).
    A free block's count says where it is in the queue (no second dict to keep): a block
    taken back into use from the middle leaves a tomb there (0), skipped when the head
    reaches it; the list is rebuilt without tombs and consumed entries when they are half
    of it (at C speed). Entries the head has passed are dropped without touching `ref`
    (`_base` moves on). The engine
    keeps its own count of free blocks and only lowers it when it allocates; `settle` then
    takes those blocks from the queue's head, evicting the cached ones among them, before
    anything looks the cache up."""

    COMPACT_AT = 4096  # consumed entries and tombs before the list may be rebuilt
    REBUILD_SHARE = 0.75  # tombs' share of the queue that rebuilds it (a live entry is
    # rewritten a third of a time per tomb: sessions hit most blocks back out of the queue)

    def __init__(self, num_blocks: int, block_bytes: float):
        self.ref: dict[int, int] = {}
        self._fifo: list[int] = [-num_blocks] if num_blocks > 0 else []
        self._head = 0
        self._base = 0  # places in the queue of the entries dropped from _fifo's front
        self._tombs = 0  # tombs at or after _head
        self.queued = num_blocks
        self.evicted = 0
        self.epoch = 0  # counts changes to `ref` (what a lookup sees)
        self.block_bytes = block_bytes
        self.tool_watch: dict[int, float] = {}  # key -> end of the tool wait it is counted in
        self.tool_block_s = 0.0

    @property
    def refcounts(self) -> dict[int, int]:
        """key -> reference count (0: free, in the queue), as a copy."""
        return {key: max(n, 0) for key, n in self.ref.items()}

    # -- the queue ---------------------------------------------------------------------
    @property
    def queue(self) -> OrderedDict:
        """The free queue from its head, as a copy: key -> None for a cached block, a run
        id (< 0) -> count for plain ones, ("unreachable", i) -> count for cached ones
        nobody asks for (for tests and a look inside)."""
        out = OrderedDict()
        for e in self._from_head():
            if e <= -_UNREACHABLE:
                out[("unreachable", len(out))] = -e - _UNREACHABLE
            elif e < 0:
                out[-1 - len(out)] = -e
            elif e != _TOMB:
                out[e] = None
        return out

    def settle(self, free: int, now: float) -> None:
        """Take the blocks allocated since the last call from the head of the queue."""
        owed = self.queued - free
        self.queued = free
        fifo, h, ref, watch = self._fifo, self._head, self.ref, self.tool_watch
        while owed > 0:
            e = fifo[h]
            if e < 0:
                if e > -_UNREACHABLE:  # plain blocks
                    if -e > owed:
                        fifo[h] = e + owed
                        break
                    owed += e
                    h += 1
                    continue
                n = -e - _UNREACHABLE  # cached ones nobody asks for: evicted, counted
                take = min(n, owed)
                self.evicted += take
                owed -= take
                if n > take:
                    fifo[h] = e + take
                else:
                    h += 1
                continue
            if e == _TOMB:  # a run of tombs passed at C speed (compress keeps the truthy)
                seg = fifo[h:h + 512]
                k = next(compress(count(), seg), len(seg))
                h += k
                self._tombs -= k
                continue
            if owed < 32:  # a few: one by one (the C-speed path costs more to set up)
                h += 1
                owed -= 1
                del ref[e]
                self.epoch += 1
                self.evicted += 1
                if watch:
                    end = watch.pop(e, None)
                    if end is not None and end > now:
                        self.tool_block_s -= end - now
                continue
            # Keys (and tombs) up to the next run entry, at most the owed keys.
            seg = fifo[h:h + owed]
            cut = next(compress(count(), map(lt, seg, _ZERO)), None)
            if cut is not None:
                del seg[cut:]
            if _TOMB in seg:
                live = list(accumulate(map(gt, seg, _ZERO)))
                if live[-1] > owed:
                    del seg[bisect_left(live, owed) + 1:]
                keys = list(filter(None, seg))
                self._tombs -= len(seg) - len(keys)
            else:
                if len(seg) > owed:
                    del seg[owed:]
                keys = seg
            h += len(seg)
            if keys:
                owed -= len(keys)
                self._evict(keys, now)
        self._head = h
        if h > self.COMPACT_AT and 2 * h > len(fifo):  # passed entries: dropped, places kept
            del fifo[:h]
            self._base += h
            self._head = 0
        if self._tombs > self.COMPACT_AT and self._tombs > self.REBUILD_SHARE * (len(fifo) - self._head):
            self._compact()

    def _evict(self, keys: list[int], now: float) -> None:
        _drain(map(self.ref.pop, keys))  # pop: a builtin method, twice as fast as __delitem__
        self.epoch += 1
        self.evicted += len(keys)
        watch = self.tool_watch
        if watch:  # in queue order: the float sum is the one-by-one one
            for end in filter(None, map(watch.pop, keys, repeat(None))):
                if end > now:
                    self.tool_block_s -= end - now

    def _from_head(self):
        it = iter(self._fifo)
        it.__setstate__(self._head)  # no walk over the entries before it
        return it

    def _compact(self) -> None:
        """The queue from its head without tombs, same order (a C-speed rebuild)."""
        fifo = list(filter(None, self._from_head()))
        self._fifo = fifo
        self._head = 0
        self._base = 0
        self._tombs = 0
        self.ref.update(zip(compress(fifo, map(gt, fifo, _ZERO)), compress(count(-1, -1), map(gt, fifo, _ZERO))))

    def blocks_before_watched(self, free: int, now: float, limit: int) -> int:
        """How many blocks can be allocated (at most `limit`) before one would evict a
        block whose tool wait is still running; the engine ends a skipped decode run there
        so that eviction gets its own step (and its time)."""
        if not self.tool_watch:
            return limit
        skip = self.queued - free  # allocated already, not yet taken from the queue
        watch = self.tool_watch
        seen = 0
        for e in self._from_head():
            if e < 0:
                seen += -e if e > -_UNREACHABLE else -e - _UNREACHABLE
            elif e == _TOMB:
                continue
            else:
                if seen >= skip:
                    end = watch.get(e)
                    if end is not None and end > now:
                        return seen - skip
                seen += 1
            if seen - skip >= limit:
                return limit
        return limit

    def _append_plain(self, n: int) -> None:
        if n <= 0:
            return
        fifo = self._fifo
        if len(fifo) > self._head and -_UNREACHABLE < fifo[-1] < 0:
            fifo[-1] -= n
        else:
            fifo.append(-n)

    def _append_unreachable(self, n: int) -> None:
        fifo = self._fifo
        if len(fifo) > self._head and fifo[-1] <= -_UNREACHABLE:
            fifo[-1] -= n
        else:
            fifo.append(-_UNREACHABLE - n)

    def _append_cached(self, keys: list[int]) -> None:
        fifo = self._fifo
        base = -(self._base + len(fifo)) - 1
        fifo.extend(keys)
        self.ref.update(zip(keys, range(base, base - len(keys), -1)))

    # -- requests ------------------------------------------------------------------------
    def lookup(self, keys: list[int]) -> tuple[int, int]:
        """(blocks hit: the longest run of cached keys from the first, how many of those
        are free, i.e. leave the free queue when the request takes them)."""
        counts = list(map(self.ref.get, keys))
        hit = counts.index(None) if None in counts else len(counts)
        return hit, sum(map(lt, counts[:hit], _ZERO))

    def touch(self, keys: list[int]) -> int:
        """A request takes cached blocks; returns how many left the free queue."""
        ref = self.ref
        if not keys:
            return 0
        self.epoch += 1
        counts = list(map(ref.__getitem__, keys))
        if max(counts) < 0:  # all free: the common case
            at = counts
            ref.update(dict.fromkeys(keys, 1))
        else:  # a free one's count becomes 1, one in use gets one more
            at = list(compress(counts, map(lt, counts, _ZERO)))
            ref.update(zip(keys, map(max, map(add, counts, _ONE), _ONE)))
        if at:  # their entries in the queue become tombs
            _drain(map(setitem, repeat(self._fifo), map(sub, repeat(-1 - self._base), at), repeat(_TOMB)))
            self._tombs += len(at)
        self.queued -= len(at)
        return len(at)

    def register(self, keys: list[int]) -> list:
        """A request's blocks just became full: cache them. Returns the keys, None where an
        equal block was cached already (this copy stays uncached)."""
        ref = self.ref
        self.epoch += 1
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
                now: float = 0.0, unreachable_from: int | None = None, unreachable_more: int = 0) -> int:
        """A request frees its blocks: `held` (its leading full blocks' keys, None where
        uncached) and `plain` more after them, tail first. Cached blocks nobody else uses
        join the queue still cached, or as plain blocks with drop=True. watch_until: a tool
        wait ends then; the cached blocks count toward the byte·s held until then or until
        evicted. unreachable_from: held[unreachable_from:] are blocks nobody can ask for
        again (held by this request alone): they join as one run. unreachable_more: that
        many blocks of the request's own after `held`, never cached one by one (the
        engine's lazy ones), join that run first. Returns the blocks that joined the queue."""
        ref, watch = self.ref, self.tool_watch
        self.epoch += 1
        freed = plain + unreachable_more
        self._append_plain(plain)
        rev = held[::-1]
        if not drop and None not in rev:
            # The common case, at C speed: no uncached copies among the held blocks.
            gone = 0
            if unreachable_from is not None and watch_until is None and unreachable_from < len(held):
                gone = len(held) - unreachable_from  # the tail, which goes first
                _drain(map(ref.pop, rev[:gone]))
                freed += gone
                rev = rev[gone:]
            if gone or unreachable_more:
                self._append_unreachable(gone + unreachable_more)
            counts = list(map(ref.__getitem__, rev))
            if counts.count(1) == len(rev):
                last = rev
            else:  # some are shared with running requests: they stay in use
                last = list(compress(rev, map(eq, counts, _ONE)))
                ref.update(zip(rev, map(sub, counts, _ONE)))
            self._append_cached(last)  # their counts: where they are in the queue
            if watch_until is not None:
                watch.update(dict.fromkeys(last, watch_until))
                self.tool_block_s += len(rev) * (watch_until - now)
            self.queued += freed + len(last)
            return freed + len(last)
        if unreachable_more:
            self._append_unreachable(unreachable_more)
        if drop and None not in rev:  # dropped (a tool wait without its KV), at C speed
            counts = list(map(ref.__getitem__, rev))
            ones = counts.count(1)  # nobody else uses them: uncached, one plain run
            if ones == len(rev):
                _drain(map(ref.pop, rev))
            else:
                shared = list(map(gt, counts, _ONE))
                _drain(map(ref.pop, compress(rev, map(eq, counts, _ONE))))
                ref.update(zip(compress(rev, shared), map(sub, compress(counts, shared), _ONE)))
            self._append_plain(ones)
            self.queued += freed + ones
            return freed + ones
        still_cached = 0
        for key in rev:
            if key is None:
                self._append_plain(1)
                freed += 1
                continue
            n = ref[key] - 1
            if n > 0:
                ref[key] = n
                still_cached += 1
                continue
            freed += 1
            if drop:
                del ref[key]
                self._append_plain(1)
                continue
            self._append_cached([key])
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
