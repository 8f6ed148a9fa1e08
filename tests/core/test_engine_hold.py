"""A finished request's blocks held until a time or the driver's release (Engine.hold,
Engine.release: vLLM's connectors delay the free of a P/D prefill's blocks until the
decode instance has read them), by hand arithmetic: held blocks count as used and keep
the queue's head waiting; a hold due by the finish is no hold, bit for bit."""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.serving.engine import Engine, EngineConfig, replay
from core.serving.step_cost import StepCost
from core.serving.workload import Workload
from tests.core.test_engine_frozen import assert_identical, hash_id_workload
from tests.core.test_engine_remote import same_schedule

COST = StepCost()
BLOCK_BYTES = 16 * COST.kv_bytes_per_token
# Prompts of 100 tokens take ceil(100 / 16) = 7 blocks: a 14-block pool fits two.
TWO_PROMPTS = EngineConfig(kv_pool_bytes=14 * BLOCK_BYTES, max_num_seqs=4)
THREE = Workload(np.zeros(3), np.full(3, 100, np.int64), np.ones(3, np.int64))  # prefill only: G = 1


def prefill(k: int, tokens: int = 100) -> float:
    """One step prefilling k whole prompts of `tokens` from scratch, each sampling a token."""
    return COST.step_time(k * tokens, k, k * tokens, k * tokens * (tokens + 1) / 2)


def held_run(work, config, until, fast):
    e = Engine(work, config, fast)
    e.hold(np.asarray(until, float))
    return e.run()


@pytest.mark.parametrize("fast", [True, False])
def test_the_third_prompt_waits_for_the_first_ones_held_blocks(fast):
    t1 = prefill(2)
    res = held_run(THREE, TWO_PROMPTS, [1.0, 5.0, np.nan], fast)
    plain = replay(THREE, TWO_PROMPTS, fast)
    assert plain.finish_s.tolist() == [t1, t1, t1 + prefill(1)]  # blocks back at the finish
    assert res.finish_s[:2].tolist() == [t1, t1] and t1 < 1.0
    assert res.first_schedule_s[2] == 1.0  # request 0's 7 blocks come back at its hold
    assert res.finish_s[2] == 1.0 + prefill(1)
    at = np.searchsorted(res.series_t, [t1, 1.0 + prefill(1), 5.0], side="right") - 1  # the last at or before
    assert res.series_kv_blocks[at].tolist() == [14, 7, 0]  # held: used; 2's back at its finish, 1's at 5
    assert res.series_t[-1] == 5.0 and res.kv_peak_blocks == 14


def test_fast_equals_step_by_step_with_holds_on_a_busy_pool():
    work = hash_id_workload(200, seed=4)
    cfg = EngineConfig(kv_pool_bytes=400 * BLOCK_BYTES, max_num_seqs=16)
    free = replay(work, cfg, fast=False)
    until = free.finish_s + 0.05 * np.arange(len(work)) % 0.4  # each held up to 0.35 s past its finish
    fast, exact = held_run(work, cfg, until, True), held_run(work, cfg, until, False)
    same_schedule(fast, exact)
    assert exact.finish_s.max() > free.finish_s.max()  # the holds bound: the pool's work ends later


@pytest.mark.parametrize("fast", [True, False])
def test_a_hold_due_by_the_finish_is_no_hold_bit_for_bit(fast):
    work = hash_id_workload(150, seed=2)
    cfg = EngineConfig(kv_pool_bytes=300 * BLOCK_BYTES, max_num_seqs=16)
    plain = replay(work, cfg, fast)
    assert_identical(held_run(work, cfg, plain.finish_s, fast), plain)
    assert_identical(held_run(work, cfg, np.full(len(work), np.nan), fast), plain)


def test_the_driver_releases_held_blocks():
    e = Engine(THREE, TWO_PROMPTS)
    e.hold(np.full(3, math.inf))
    e.route()
    for r in range(3):
        e.submit(r)
    e.close()
    e.advance(math.inf)  # returns with the third waiting for blocks nobody has released
    t1 = prefill(2)
    assert e.held() == 2 and e.kv_used_blocks() == 14 and e.waiting_ids() == [2] and e.clock() == t1
    assert not e.release(2, 0.0)  # not finished: nothing to release
    assert e.release(0, 0.7)
    assert not e.release(0, 0.8)  # already due
    e.advance(math.inf)
    assert e.finish_s(2) == 0.7 + prefill(1) and e.held() == 2  # the third is held too
    assert e.release(1, 0.0) and e.release(2, 3.0)  # 1: past, at once (the next event)
    e.advance(math.inf)
    assert e.held() == 0 and e.kv_used_blocks() == 0 and e.clock() == 3.0
    res = e.result()
    assert res.first_schedule_s[2] == 0.7
