"""The fast prefix-caching paths against the engine frozen in tests/oracles/frozen_engine, bit for
bit: the block pool's list queue (tombs, passed entries dropped, rebuilds), a hash-id
request's own blocks counted instead of cached one by one (and cached after all when it
is preempted), the waiting head's lookup reused. Random workloads with hash_ids and
sessions, caching on, pools small enough to evict and preempt."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from core.registry import ParamError
from core.serving.engine import Engine, EngineConfig, replay, validate
from core.serving.engine_prefix import _NEVER
from core.units import GiB

from tests.core.test_engine_frozen import _queue_view, assert_identical, hash_id_workload
from tests.oracles.frozen_engine import replay as frozen_replay

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
from serving_workloads import sessions_workload  # noqa: E402 - bench/ is not a package


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


def test_the_tight_cases_preempt_and_cache_a_preempted_requests_own_blocks():
    # Without these the comparison above would prove less than it says: some hash-id
    # request with blocks of its own (not cached one by one) is preempted, so they are
    # cached then, and comes back to hit them.
    preempted_lazy = hits_after = 0
    for seed in range(1, 8, 2):
        work, config = _case(seed)
        e = Engine(work, config)
        lazy_before = list(e._lazy)
        r = e.run()
        for q in np.flatnonzero(r.preemptions[e.order] > 0):
            if lazy_before[q] < _NEVER and e._lazy[q] == _NEVER:
                preempted_lazy += 1
                hits_after += int(r.cached_tokens[e.order][q] > 0)
    assert preempted_lazy > 0 and hits_after > 0


def test_a_hash_id_requests_own_blocks_are_queued_as_one_run_when_it_finishes():
    work, config = _case(1)
    e = Engine(work, config)
    e.run()
    assert any(lz < _NEVER for lz in e._lazy)
    # Nothing of a finished request is left cached block by block past its own start:
    # every key still cached belongs to a request that can still ask for it.
    assert len(e.cache.ref) <= e.cfg.num_blocks


@pytest.mark.parametrize("seed", range(4))
def test_the_block_pool_queue_drops_passed_entries_and_rebuilds_without_tombs(seed, monkeypatch):
    # A long random use of the pool with small limits: the head passes many entries (the
    # list's front is dropped, places kept) and tombs pile up (rebuilt), and the pool
    # matches the frozen one at every step.
    from tests.oracles.frozen_engine.prefix_cache import BlockCache as FrozenCache

    from core.serving.engine_block_cache import BlockCache
    monkeypatch.setattr(BlockCache, "COMPACT_AT", 8)
    rebuilds = []
    compact = BlockCache._compact
    monkeypatch.setattr(BlockCache, "_compact", lambda self: rebuilds.append(self._tombs) or compact(self))
    rng = np.random.default_rng(seed)
    blocks = int(rng.integers(30, 80))
    new, old = BlockCache(blocks, 1.0), FrozenCache(blocks, 1.0)
    docs = [[(d + 1) << 32 | j for j in range(int(rng.integers(4, 30)))] for d in range(5)]
    free, now, held, drops = blocks, 0.0, {}, 0
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
        drops += new._base > 0
        assert (new.evicted, new.queued, new.tool_block_s) == (old.evicted, old.queued, old.tool_block_s)
        assert new.refcounts == old.ref
        assert _queue_view(new.queue) == _queue_view(old.queue)
    assert new.evicted > 100 and drops > 0 and rebuilds


@pytest.mark.parametrize("kind", ["hash_ids", "sessions"])
def test_packed_keys_have_the_same_equalities_as_the_wide_ones(kind):
    # Keys below 2**30 (set_bound) name the same blocks as origin << 32 | index: two blocks
    # share a packed key exactly when they share a wide one; past the bound is refused.
    rng = np.random.default_rng(7)
    work = hash_id_workload(300, seed=5) if kind == "hash_ids" else sessions_workload(sessions=30, turns=5, seed=3)
    packed, wide = Engine(work, EngineConfig()).identity, Engine(work, EngineConfig()).identity
    wide._mul, wide._bound = (0 if kind == "hash_ids" else 1 << 32), 1 << 30
    assert packed._mul > 0 and packed._mul != wide._mul
    bs, seen = 16, {}
    for r in rng.permutation(len(work))[:150]:
        r = int(r)
        j1 = int(rng.integers(1, packed._bound + 1))
        for a, b in zip(packed.keys(r, 0, j1, bs), wide.keys(r, 0, j1, bs)):
            assert 0 < a < 1 << 30 and seen.setdefault(a, b) == b
    assert len(set(seen.values())) == len(seen)
    with pytest.raises(ValueError, match="bound"):
        packed.forget(0)
        packed.keys(0, 0, packed._bound + 1, bs)


def test_codes_whose_other_holders_all_finished_are_queued_as_one_run(monkeypatch):
    # A finished request's blocks of a code every other holder of has finished go as one
    # run too (nobody can ask for them again): the equality with the frozen engine above
    # covers it only if it happens.
    from core.serving.prefix_cache import HashIdIdentity
    seen = []
    dynamic = HashIdIdentity.finished_unreachable_from

    def spy(self, r, bs):
        seen.append((dynamic(self, r, bs), self.unreachable_from(r, bs)))
        return seen[-1][0]
    monkeypatch.setattr(HashIdIdentity, "finished_unreachable_from", spy)
    work, config = _case(3)
    assert_identical(replay(work, config), frozen_replay(work, config))
    assert seen and all(d <= s for d, s in seen) and any(d < s for d, s in seen)
