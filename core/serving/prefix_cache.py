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

The pool (BlockCache, engine_block_cache.py) keeps vLLM's free-block queue: freed blocks go to its tail (a
request's blocks in reverse, so a prefix outlives its tail), allocation takes from its
head and evicts the cached block it takes. A cached block in use has a reference count
and is shared, not duplicated. One simplification: a block a request computed itself
while an equal one was already cached stays uncached (vLLM keeps both copies cached).
"""
from __future__ import annotations

from collections import Counter

import numpy as np

from core.serving.engine_block_cache import BlockCache  # noqa: F401 - the pool, imported from here too

_SHIFT = 32  # key = origin << _SHIFT | block index (origin >= 1: keys are positive)
# With a bound on the block index (set_bound), keys are packed below 2**30 when they fit:
# one-digit ints, which dicts hash and compare in about half the time of two-digit ones.
_SMALL = 1 << 30


def _hint(identity, r: int) -> int:
    """Blocks r can ever ask keys for (the engine's hint; 0 without one): its array is
    built once at that size, not regrown as its prompt and output fill."""
    return identity.blocks_hint[r] if identity.blocks_hint is not None else 0


class SessionIdentity:
    """Block keys of a sessions workload (arrays in the engine's request order)."""

    blocks_hint: list[int] | None = None

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

        self._arrays: dict[int, list[int]] = {}  # keys of requests in flight, built once (a list: sliced often)
        self._mul, self._bound = 1 << _SHIFT, _SMALL  # key = origin * _mul + block index

    def set_bound(self, bound: int) -> None:
        """Every block index asked for is below `bound`: pack keys small if they fit."""
        if (len(self.segments) + 2) * bound < _SMALL:
            self._mul, self._bound = bound, bound

    def keys(self, r: int, j0: int, j1: int, bs: int) -> list[int]:
        arr = self._arrays.get(r)
        if arr is None or len(arr) < j1:
            if j1 > self._bound:
                raise ValueError(f"block index {j1 - 1} past the identity's bound {self._bound}")
            size = min(max(j1, 2 * len(arr) if arr is not None else _hint(self, r)), self._bound)
            origin = np.full(size, r + 1, np.int64)
            start = 0
            for end, owner in self.segments[r]:
                stop = min(end // bs, size)
                origin[start:stop] = owner + 1
                start = max(start, stop)
            arr = (origin * self._mul + np.arange(size, dtype=np.int64)).tolist()
            self._arrays[r] = arr
        return arr[j0:j1]

    def forget(self, r: int) -> None:
        self._arrays.pop(r, None)


class HashIdIdentity:
    """Block keys from Mooncake hash_ids (arrays in the engine's request order)."""

    blocks_hint: list[int] | None = None

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
        # Chain codes only one request holds: from the first of them on its chain, every
        # block is its own (a later code extends that one).
        self._users = Counter()
        for chain in self.chains:
            self._users.update(chain)

        self._arrays: dict[int, list[int]] = {}  # keys of requests in flight, built once (a list: sliced often)
        self._codes, self._first = len(interned), first
        self._left: Counter | None = None  # unfinished holders of each code (finished_unreachable_from)
        self._mul, self._bound = 0, _SMALL  # 0: keys as origin << _SHIFT | block index

    def set_bound(self, bound: int, bs: int) -> None:
        """Every block index asked for is below `bound`: pack keys small if they fit. A
        request's own block j: (r + 1)·bound + j; block j of chain code c (hash block b):
        after those, (c − first)·w + j − b·T // bs, w the engine blocks a hash block spans."""
        self._w = self.block_tokens // bs + 2
        if (self._first + 1) * bound + self._codes * self._w < _SMALL:
            self._mul, self._bound = bound, bound

    def keys(self, r: int, j0: int, j1: int, bs: int) -> list[int]:
        arr = self._arrays.get(r)
        if arr is None or len(arr) < j1:
            if j1 > self._bound:
                raise ValueError(f"block index {j1 - 1} past the identity's bound {self._bound}")
            j = np.arange(min(max(j1, 2 * len(arr) if arr is not None else _hint(self, r)), self._bound),
                          dtype=np.int64)
            chain = np.asarray(self.chains[r] or [0], np.int64)
            shared = j < int(self.covered[r]) // bs
            holder = np.minimum(((j + 1) * bs - 1) // self.block_tokens, chain.size - 1)
            if self._mul:
                m = self._mul
                code = self._first * m + (chain[holder] - self._first) * self._w + j - holder * self.block_tokens // bs
                arr = np.where(shared, code, (r + 1) * m + j).tolist()
            else:
                arr = (np.where(shared, chain[holder] << _SHIFT, (r + 1) << _SHIFT) | j).tolist()
            self._arrays[r] = arr
        return arr[j0:j1]

    def forget(self, r: int) -> None:
        self._arrays.pop(r, None)

    def finished_unreachable_from(self, r: int, bs: int) -> int:
        """r finished (each of its codes has one unfinished holder fewer): its first engine
        block no unfinished request can have. Later codes extend earlier ones, so their
        holders are fewer: the blocks from there on are r's tail."""
        left = self._left
        if left is None:
            left = self._left = Counter(self._users)
        chain = self.chains[r]
        first = len(chain)
        for b, code in enumerate(chain):
            n = left[code] - 1
            left[code] = n
            if n == 0 and b < first:
                first = b
        return min(int(self.covered[r]) // bs, first * self.block_tokens // bs)

    def unreachable_from(self, r: int, bs: int) -> int:
        """The first engine block of r no other request can have (its own, or of a chain
        code only r holds): once r has finished, nobody asks for blocks from there on."""
        users = self._users
        first = len(self.chains[r])
        for b, code in enumerate(self.chains[r]):
            if users[code] == 1:
                first = b
                break
        return min(int(self.covered[r]) // bs, first * self.block_tokens // bs)
