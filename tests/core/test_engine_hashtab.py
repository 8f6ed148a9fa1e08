"""The block pool's hash table (core/serving/engine/hashtab.py) against a dict: random
puts, finds and removals (backward-shift deletion keeps every probe chain whole), with
keys shaped like the pool's (origin << 32 | block) and crowded into few home slots."""
from __future__ import annotations

import numpy as np

from core.serving.engine import hashtab as ht


def test_the_table_behaves_as_a_dict():
    rng = np.random.default_rng(0)
    keys, vals = ht.make(300, np.int64)
    model: dict[int, int] = {}
    universe = [(int(o) << 32) | int(j) for o in rng.integers(1, 40, 200) for j in rng.integers(0, 8, 3)]
    for step in range(20000):
        key = universe[int(rng.integers(0, len(universe)))]
        slot = ht.find(keys, key)
        assert (slot >= 0) == (key in model)
        if slot >= 0:
            assert vals[slot] == model[key]
            if rng.random() < 0.5:
                ht.remove(keys, vals, slot)
                del model[key]
        elif len(model) < 300:
            assert ht.put(keys, vals, key, step)
            model[key] = step
    live = keys >= 0
    assert dict(zip(keys[live].tolist(), vals[live].tolist())) == model and len(model) > 100
