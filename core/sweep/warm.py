"""Warm-ups of a sweep kind's evaluator: what a worker would otherwise do at its first point
(load the compiled engine from numba's cache, or compile it), done once in the process the
workers are forked from (core.sweep.executors.worker_context). A warm-up computes nothing
a row keeps: rows are the same with and without it."""
from __future__ import annotations

import numpy as np

from core.registry import get

# A replay of two requests: every serving point runs the same compiled loop (one loop for
# caching and not caching a prefix), so this loads it.
TINY_REPLAY = {"durations_s": "1", "rates_per_s": "2", "shares_long_input": "0.5"}


def warm_serving() -> None:
    get("serving.replay").run(TINY_REPLAY)
    _warm_hash_ids()


def _warm_hash_ids() -> None:
    """A trace with hash ids (Mooncake) under prefix caching interns its block chains with a
    compiled function of its own, outside the loop: two requests of int64 ids, the types
    the driver passes, load it (each forked worker otherwise loaded it at its first point)."""
    from core.serving.prefix_cache import HashIdIdentity

    ids = np.array([7, 8, 7], np.int64)
    offsets = np.array([0, 2, 3], np.int64)
    HashIdIdentity(ids, offsets, 16, np.arange(2, dtype=np.int64), np.array([32, 16], np.int64))
