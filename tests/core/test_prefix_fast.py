"""The compiled prefix cache against the engine frozen in tests/oracles/frozen_engine, bit
for bit: random workloads with hash_ids and sessions, caching on, pools small enough to
evict and preempt; the pool's linked queue over a long churn; the keys computed on the
fly (core/serving/engine/keys.py) equal the frozen identities' keys."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from core.registry import ParamError
from core.serving.engine import EngineConfig, replay, validate
from core.units import GiB
from tests.core.test_engine_frozen import _queue_view, assert_identical, hash_id_workload
from tests.oracles.frozen_engine import replay as frozen_replay

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from serving_workloads import sessions_workload


def _tight(rng, work):
    """A pool, budget and seats drawn small: evictions and preemptions; None if invalid."""
    config = EngineConfig(kv_pool_bytes=float(rng.uniform(0.6, 3.0)) * GiB, max_num_seqs=int(rng.integers(4, 48)),
                          token_budget=int(rng.choice([512, 1024, 2048])), reserve_full_prompt=bool(rng.random() < 0.5))
    try:
        validate(config, work)
    except ParamError:
        return None
    return config


def _case(seed: int):
    rng = np.random.default_rng(1000 + seed)
    while True:
        if seed % 2:
            work = hash_id_workload(int(rng.integers(150, 400)), seed=int(rng.integers(0, 10**6)))
        else:
            work = sessions_workload(sessions=int(rng.integers(10, 40)), turns=int(rng.integers(2, 7)),
                                     seed=int(rng.integers(0, 10**6)), rate_per_s=float(rng.uniform(1.0, 4.0)))
        config = _tight(rng, work)
        if config is not None:
            return work, config


@pytest.mark.parametrize("seed", range(8))
def test_random_tight_pools_equal_frozen(seed):
    work, config = _case(seed)
    for fast in (True, False):
        new = replay(work, config, fast=fast)
        assert_identical(new, frozen_replay(work, config, fast=fast))
    assert new.extras["evicted_blocks"] > 0


def test_the_tight_cases_evict_preempt_and_hit():
    # Without these the comparison above would prove less than it says.
    preempted = evicted = hits = 0
    for seed in range(8):
        work, config = _case(seed)
        r = replay(work, config)
        preempted += int(r.preemptions.sum() > 0)
        evicted += int(r.extras["evicted_blocks"] > 0)
        hits += int(r.extras["cache_hit_rate"] > 0)
    assert preempted >= 4 and evicted == 8 and hits == 8


@pytest.mark.parametrize("seed", range(4))
def test_the_block_pool_queue_over_a_long_churn_equals_the_frozen_one(seed):
    # A long random use of a small pool: entries leave the queue's middle (hits), runs
    # merge and split at the head, blocks are evicted by the hundred; the compiled pool
    # matches the frozen one at every step.
    from core.serving.prefix_cache import BlockCache
    from tests.oracles.frozen_engine.prefix_cache import BlockCache as FrozenCache
    rng = np.random.default_rng(seed)
    blocks = int(rng.integers(30, 80))
    new, old = BlockCache(blocks, 1.0), FrozenCache(blocks, 1.0)
    docs = [[(d + 1) << 32 | j for j in range(int(rng.integers(4, 30)))] for d in range(5)]
    free, now, held = blocks, 0.0, {}
    for r in range(1500):
        now += float(rng.random())
        if rng.random() < 0.5 and len(held) < 6:
            new.settle(free, now)
            old.settle(free, now)
            keys = docs[int(rng.integers(0, len(docs)))][:int(rng.integers(1, 30))]
            keys = keys + [(1000 + r) << 32 | j for j in range(int(rng.integers(0, 12)))]  # its own
            hit, hit_free = new.lookup(keys)
            assert (hit, hit_free) == old.lookup(keys)
            if len(keys) - hit > free - hit_free:
                continue
            assert new.touch(keys[:hit]) == old.touch(keys[:hit])
            free -= hit_free + len(keys) - hit
            new.settle(free, now)
            old.settle(free, now)
            registered = new.register(keys[hit:])
            assert registered == old.register(keys[hit:])
            held[r] = keys[:hit] + registered
        elif held:
            h = held.pop(list(held)[int(rng.integers(0, len(held)))])
            watch = now + 3 * float(rng.random()) if rng.random() < 0.3 else None
            freed = new.release(h, 0, False, watch, now)
            assert freed == old.release(h, 0, False, watch, now)
            free += freed
        assert (new.evicted, new.queued, new.tool_block_s) == (old.evicted, old.queued, old.tool_block_s)
        assert new.refcounts == old.ref
        assert _queue_view(new.queue) == _queue_view(old.queue)
    assert new.evicted > 100


@pytest.mark.parametrize("kind", ["hash_ids", "sessions"])
def test_keys_on_the_fly_equal_the_frozen_identities(kind):
    # The compiled keys (from the CSR arrays), the Python identity's and the frozen
    # engine's are the same integers for every block a request can fill.
    from core.serving.engine.driver import _prefix_cache
    from core.serving.engine.keys import fill
    from core.serving.engine.state import build
    from core.serving.prefix_cache import HashIdIdentity, SessionIdentity
    from core.serving.session_arrivals import links, turn_order
    from tests.oracles.frozen_engine import prefix_cache as frozen
    work = hash_id_workload(300, seed=5) if kind == "hash_ids" else sessions_workload(sessions=30, turns=5, seed=3)
    config = EngineConfig()
    state, order = build(work, config, True)
    _, px = _prefix_cache(work, config, state, order, True)
    P = work.input_tokens[order].astype(np.int64)
    if kind == "hash_ids":
        pb = work.prefix
        mine = HashIdIdentity(pb.ids, pb.offsets, pb.block_tokens, order, P)
        theirs = frozen.HashIdIdentity(pb.ids, pb.offsets, pb.block_tokens, order, P)
    else:
        prev, _ = links(work.sessions, order)
        args = (prev, work.sessions.shared_prefix_tokens[order], turn_order(work.sessions, order))
        mine, theirs = SessionIdentity(*args), frozen.SessionIdentity(*args)
    bs, buf = config.block_size, np.zeros(px[9].size, np.int64)
    for r in range(len(work)):
        j1 = int(P[r] + work.output_tokens[order][r]) // bs
        fill(px, r, 0, j1, bs, buf)
        assert buf[:j1].tolist() == mine.keys(r, 0, j1, bs) == theirs.keys(r, 0, j1, bs)
