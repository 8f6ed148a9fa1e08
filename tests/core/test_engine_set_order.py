"""The compiled loop releases a step's finished requests in the order CPython's set gives
them (the frozen engine's order, which the prefix cache's LRU queue sees): the emulation
in core/serving/engine/pyset.py against `set` itself."""
from __future__ import annotations

import numpy as np

from core.serving.engine.pyset import set_order


def test_set_order_is_cpythons():
    rng = np.random.default_rng(0)
    out = np.empty(200, np.int64)
    for _ in range(5000):
        n = int(rng.integers(1, 120))
        high = int(rng.choice([8, 64, 1000, 10**5, 10**7]))
        ids = rng.integers(0, high, n).astype(np.int64)
        m = set_order(ids, n, out)
        assert out[:m].tolist() == list(set(ids.tolist()))
