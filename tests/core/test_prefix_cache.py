"""Prefix caching in the engine (vLLM V1 semantics), checked by hand on small cases."""
from __future__ import annotations

import numpy as np
import pytest

from core.serving.engine import EngineConfig, replay
from core.serving.prefix_cache import BlockCache, HashIdIdentity
from core.serving.step_cost import StepCost
from core.serving.workload import PrefixBlocks, Workload

COST = StepCost()
BLOCK_BYTES = 16 * COST.kv_bytes_per_token


def config(blocks: int, seqs: int = 4, **kw) -> EngineConfig:
    return EngineConfig(max_num_seqs=seqs, block_size=16, kv_pool_bytes=blocks * BLOCK_BYTES, token_budget=8192, **kw)


def hashed(arrival, prompt, output, ids_per_request, block_tokens=64) -> Workload:
    """A workload whose request i's prompt is the hash blocks ids_per_request[i]."""
    ids = np.array([h for ids in ids_per_request for h in ids], np.int64)
    offsets = np.cumsum([0] + [len(x) for x in ids_per_request]).astype(np.int64)
    return Workload(np.asarray(arrival, float), np.asarray(prompt, np.int64), np.asarray(output, np.int64),
                    prefix=PrefixBlocks(ids, offsets, block_tokens))


@pytest.mark.parametrize("fast", [True, False])
def test_same_prompt_later_hits_all_but_the_last_block(fast):
    # 64 tokens = 4 blocks of 16; at least one token is computed, so 63 // 16 = 3 blocks hit.
    work = hashed([0.0, 10.0], [64, 64], [4, 4], [[7], [7]])
    r = replay(work, config(64), fast=fast)
    assert r.cached_tokens.tolist() == [0, 48]
    assert r.prefill_tokens == 64 + 16
    assert r.extras["cache_hit_rate"] == pytest.approx(48 / 128)
    # A 70-token prompt: 69 // 16 = 4 whole blocks can be served.
    work = hashed([0.0, 10.0], [70, 70], [4, 4], [[7, 8], [7, 8]])
    assert replay(work, config(64), fast=fast).cached_tokens.tolist() == [0, 64]


def test_the_computed_suffix_attends_to_the_cached_prefix():
    work = hashed([0.0, 10.0], [64, 64], [1, 1], [[7], [7]])
    r = replay(work, config(64))
    # One step: 16 new rows that read 48 cached keys plus their own causal 16·17/2 pairs.
    step = COST.step_time(16, 1, 64, 16 * 48 + 16 * 17 / 2)
    assert r.ttft_s[1] == pytest.approx(step, rel=1e-12)
    assert r.ttft_s[0] == pytest.approx(COST.step_time(64, 1, 64, 64 * 65 / 2), rel=1e-12)


def test_different_content_does_not_hit_and_no_prefix_info_is_todays_engine():
    work = hashed([0.0, 10.0], [64, 64], [4, 4], [[7], [9]])
    assert replay(work, config(64)).cached_tokens.tolist() == [0, 0]
    same = hashed([0.0, 1.0, 2.0], [64, 64, 100], [40, 40, 3], [[7], [7], [7, 8]])
    plain = Workload(same.arrival_s, same.input_tokens, same.output_tokens)
    off = replay(same, config(64, prefix_caching=False))
    base = replay(plain, config(64))
    assert off.cached_tokens.tolist() == [0, 0, 0] and np.array_equal(off.finish_s, base.finish_s)
    assert off.extras == {"cache_hit_rate": 0.0, "evicted_blocks": 0}


def test_a_running_requests_blocks_are_shared_not_copied():
    # B arrives while A decodes and shares A's 3 first blocks: the pool holds them once.
    work = hashed([0.0, 0.05], [64, 64], [40, 40], [[7], [7]])
    r = replay(work, config(64))
    assert r.cached_tokens.tolist() == [0, 48]
    # A: ceil((64 + 39) / 16) = 7 blocks at its end; B adds 7 − 3 of its own.
    assert r.kv_peak_blocks == 7 + 4
    off = replay(work, config(64, prefix_caching=False))
    assert off.kv_peak_blocks == 14


def test_lru_queue_evicts_the_least_recently_freed_tail_first():
    cache = BlockCache(num_blocks=4, block_bytes=1.0)
    free = 0  # a request takes all 4 blocks, fills 3 and caches them
    cache.settle(free, 0.0)
    held = cache.register([11, 12, 13])
    free += cache.release(held, plain=1)  # queue: plain, 13, 12, 11 (tail first)
    assert free == 4 and cache.lookup([11, 12, 13]) == (3, 3)
    free -= 2  # two new blocks: the plain one, then 13 is evicted
    cache.settle(free, 1.0)
    assert cache.evicted == 1 and cache.lookup([11, 12, 13]) == (2, 2)
    assert cache.touch([11, 12]) == 2  # in use again: out of the queue, referenced
    free -= 2
    assert cache.lookup([11, 12]) == (2, 0) and free == 0 and not cache.queue
    free += cache.release([11, 12], plain=2)  # freed again: plain ones first, then 12, 11
    assert list(cache.queue.values())[-2:] == [None, None] and list(cache.queue)[-2:] == [12, 11]


def test_pool_pressure_evicts_the_older_prompt_first():
    # Pool of 10 blocks; A and B (4 full blocks each) finish, then C needs 6 blocks: the 2
    # never used, then A's 4 (freed before B's). B's prompt again hits 3 blocks (its 4th,
    # now at the queue's head, is evicted for the block it computes); A's prompt misses.
    work = hashed([0.0, 1.0, 2.0, 3.0, 4.0], [64, 64, 96, 64, 64], [1, 1, 1, 1, 1],
                  [[1], [2], [3, 4], [2], [1]])
    for fast in (True, False):
        r = replay(work, config(10), fast=fast)
        assert r.cached_tokens.tolist() == [0, 0, 0, 48, 0]
        assert r.extras["evicted_blocks"] == 4 + 1 + 4  # A's by C, B's 4th by D, then E's 4 from the head
    roomy = replay(work, config(20))
    assert roomy.cached_tokens.tolist() == [0, 0, 0, 48, 48] and roomy.extras["evicted_blocks"] == 0


def test_a_preempted_request_finds_its_own_blocks_again():
    # Two 32-token prompts with 200 outputs in a 20-block pool: B is preempted, A takes
    # what it needs from the head of the queue (B's tail), B resumes on its cached prefix.
    work = hashed([0.0, 0.0], [32, 32], [200, 200], [[1], [2]], block_tokens=32)
    on = replay(work, config(20))
    off = replay(work, config(20, prefix_caching=False))
    assert on.preemptions.tolist() == off.preemptions.tolist() == [0, 1]
    _, t_pre, _ = on.preempt_log[0]
    # Without the cache B recomputes everything it had; with it, only past its cached run.
    assert off.prefill_tokens > on.prefill_tokens >= 64 + 1
    assert on.cached_tokens.tolist() == [0, 0]  # vLLM reports the first schedule's hit
    assert np.allclose(replay(work, config(20), fast=False).finish_s, on.finish_s, rtol=1e-9)


def test_hash_ids_map_onto_engine_blocks():
    # 512-token hash blocks, engine blocks of 16: 32 engine blocks per hash block; the
    # second request shares the first hash block only; the prompt covers 600 tokens.
    ident = HashIdIdentity(np.array([5, 6, 5, 9]), np.array([0, 2, 4]), 512, np.array([0, 1]),
                           np.array([600, 600]))
    a = ident.keys(0, 0, 40, 16)
    b = ident.keys(1, 0, 40, 16)
    assert a[:32] == b[:32] and all(x != y for x, y in zip(a[32:], b[32:]))
    # Past the covered tokens (600 // 16 = 37 blocks) the blocks are the request's own.
    assert len(set(a[37:]) & set(ident.keys(1, 37, 40, 16))) == 0


def test_random_workloads_fast_equals_step_by_step():
    rng = np.random.default_rng(3)
    for seed in range(6):
        rng = np.random.default_rng(seed)
        n = 60
        prefixes = rng.integers(0, 4, n)
        ids = [[int(p), int(p) * 100 + int(rng.integers(0, 3))] for p in prefixes]
        work = hashed(np.sort(rng.uniform(0, 3, n)), rng.integers(40, 128, n), rng.integers(1, 120, n), ids)
        cfg = config(int(rng.integers(30, 80)), seqs=8)
        fast, slow = replay(work, cfg), replay(work, cfg, fast=False)
        assert fast.cached_tokens.tolist() == slow.cached_tokens.tolist()
        assert fast.preemptions.tolist() == slow.preemptions.tolist()
        assert fast.engine_steps == slow.engine_steps
        assert np.allclose(fast.finish_s, slow.finish_s, rtol=1e-9)
        assert fast.extras == slow.extras
        assert np.all(fast.series_kv_blocks <= fast.num_blocks)
        assert np.all(fast.cached_tokens <= ((fast.input_tokens - 1) // 16) * 16)
        assert fast.extras["cache_hit_rate"] > 0


def test_hash_ids_that_do_not_match_the_requests_are_refused():
    from core.registry import ParamError
    from core.serving.engine import validate

    work = hashed([0.0, 1.0], [64, 64], [4, 4], [[7], [7]])
    bad = Workload(work.arrival_s, work.input_tokens, work.output_tokens,
                   prefix=PrefixBlocks(work.prefix.ids, work.prefix.offsets[:2], 64))
    validate(config(64), work)
    with pytest.raises(ParamError) as err:
        validate(config(64), bad)
    assert err.value.param == "trace" and "one run per request" in str(err.value)
