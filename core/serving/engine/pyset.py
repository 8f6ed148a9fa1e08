"""The order CPython's set gives a handful of request ids: the frozen engine releases a
step's finished requests in `set(ids)` order, and with prefix caching that order is the
pool's LRU order, so the compiled loop replays it. This is CPython's set insertion for
non-negative ints (hash = the int): open addressing with linear probes of 9 when they fit,
then the perturbed jump, a table of 8 slots grown to 4x the entries when 3/5 full
(Objects/setobject.c); tests/core/test_engine_set_order.py checks it against `set`."""
from __future__ import annotations

import numpy as np

from core.serving.engine.jit import kernel

_LINEAR = 9
_SHIFT = 5


@kernel
def _insert(table, mask, key):
    """Place key (not yet in the table); False if an equal key is there."""
    perturb = key
    i = key & mask
    while True:
        probes = _LINEAR if i + _LINEAR <= mask else 0
        e = i
        while True:
            if table[e] < 0:
                table[e] = key
                return True
            if table[e] == key:
                return False
            if probes == 0:
                break
            probes -= 1
            e += 1
        perturb >>= _SHIFT
        i = (i * 5 + 1 + perturb) & mask


@kernel(nrt=True)  # its table is allocated here
def set_order(keys, k, out):
    """out[:m] = list(set(keys[:k])); returns m."""
    size = 8
    table = np.full(size, -1, np.int64)
    fill = np.int64(0)
    for j in range(k):
        mask = size - 1
        if not _insert(table, mask, keys[j]):
            continue
        fill += 1
        if fill * 5 >= mask * 3:
            minused = fill * 2 if fill > 50000 else fill * 4
            while size <= minused:
                size <<= 1
            grown = np.full(size, -1, np.int64)
            for e in table:
                if e >= 0:
                    _insert(grown, size - 1, e)
            table = grown
    m = np.int64(0)
    for e in table:
        if e >= 0:
            out[m] = e
            m += 1
    return m
