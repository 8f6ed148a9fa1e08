"""A hash table of positive int64 keys in two arrays (keys, values), open addressing with
linear probing and deletion by backward shift: the block pool's key -> entry map and
its tool-wait watch list. numba's typed dict costs a call, a key comparison by memcmp
and reference counting per operation; this is a few instructions. The table's size is a
power of two fixed when it is made (the pool bounds how many keys it holds); EMPTY marks
a free slot (keys are positive)."""
from __future__ import annotations

import numpy as np

from core.serving.engine.jit import kernel

EMPTY = -1
_GOLD = np.uint64(11400714819323198485)  # 2**64 / golden ratio: Fibonacci hashing


def make(at_least: int, dtype) -> tuple[np.ndarray, np.ndarray]:
    """An empty table with room for at_least keys at half load."""
    size = 8
    while size < 2 * at_least:
        size *= 2
    return np.full(size, EMPTY, np.int64), np.zeros(size, dtype)


@kernel
def _home(keys, key):
    """The key's first slot: the high half of key · 2**64/φ (tables stay below 2**32 slots)."""
    return np.int64(((np.uint64(key) * _GOLD) >> np.uint64(32)) & np.uint64(keys.size - 1))


@kernel
def find(keys, key):
    """key's slot, -1 if absent."""
    mask = keys.size - 1
    i = _home(keys, key)
    while keys[i] != EMPTY:
        if keys[i] == key:
            return i
        i = (i + 1) & mask
    return -1


@kernel
def put(keys, vals, key, val):
    """Set key's value; True if key was new (the caller counts keys: it must leave room)."""
    mask = keys.size - 1
    i = _home(keys, key)
    while keys[i] != EMPTY and keys[i] != key:
        i = (i + 1) & mask
    new = keys[i] == EMPTY
    keys[i] = key
    vals[i] = val
    return new


@kernel
def remove(keys, vals, i):
    """Empty slot i, shifting back the entries that probed past it."""
    mask = keys.size - 1
    j = i
    while True:
        j = (j + 1) & mask
        if keys[j] == EMPTY:
            break
        k = _home(keys, keys[j])
        # the entry at j stays if its home lies cyclically in (i, j]
        if (i <= j and i < k <= j) or (i > j and (k > i or k <= j)):
            continue
        keys[i] = keys[j]
        vals[i] = vals[j]
        i = j
    keys[i] = EMPTY
