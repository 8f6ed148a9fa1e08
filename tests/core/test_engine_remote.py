"""Requests whose KV arrives over a link (workload.RemoteKV, P/D's decode side), by hand
arithmetic: the blocks are allocated at admission and held through the transfer, which
takes no step, no budget and no seat; the request lands at the queue's head with its ready
tokens computed and decodes the remaining G-1 tokens (the prefill instance sampled the
first). Step by step (fast=False) is the reference; the closed-form runs (fast=True) give
the same schedule."""
from __future__ import annotations

import math

import numpy as np
import pytest

from core.registry import ParamError
from core.serving.engine import Engine, EngineConfig, replay, validate
from core.serving.step_cost import StepCost
from core.serving.workload import RemoteKV, Workload

COST = StepCost()
BLOCK_BYTES = 16 * COST.kv_bytes_per_token


def step(kv: int, rows: int = 1) -> float:
    """A step of `rows` one-token decode rows whose KV tokens and query-key pairs are kv."""
    return COST.step_time(rows, rows, kv, kv)


def remote(arrival, prompt, output, ready, xfer) -> Workload:
    return Workload(np.asarray(arrival, float), np.asarray(prompt, np.int64), np.asarray(output, np.int64),
                    remote=RemoteKV(np.asarray(ready, np.int64), np.asarray(xfer, float)))


def both(work, config):
    """(fast, step by step) results, after the edge check."""
    validate(config, work)
    return replay(work, config, fast=True), replay(work, config, fast=False)


def same_schedule(a, b) -> None:
    for name in ("preemptions", "input_tokens", "output_tokens"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    for name in ("first_schedule_s", "first_token_s", "finish_s", "kv_alloc_s", "kv_ready_s"):
        np.testing.assert_allclose(getattr(a, name), getattr(b, name), rtol=1e-12, atol=0, err_msg=name)
    assert (a.engine_steps, a.decode_tokens, a.prefill_tokens) == (b.engine_steps, b.decode_tokens, b.prefill_tokens)


def test_one_remote_request_decodes_from_its_landing():
    # P = 100 ready, transfer 0.5 s: allocated at its arrival (t = 0), lands at 0.5, then
    # G - 1 = 4 one-token steps over contexts 101..104 (token 1 came from the prefill side).
    fast, exact = both(remote([0.0], [100], [5], [100], [0.5]), EngineConfig())
    t = 0.5
    ends = []
    for kv in (101, 102, 103, 104):
        t += step(kv)
        ends.append(t)
    assert exact.kv_alloc_s[0] == 0.0 and exact.kv_ready_s[0] == 0.5
    assert exact.first_schedule_s[0] == 0.5  # joins running at its landing: no step before it
    assert exact.first_token_s[0] == ends[0]  # the decode side's first token: token 2
    assert exact.finish_s[0] == ends[-1]
    assert (exact.engine_steps, exact.decode_tokens, exact.prefill_tokens) == (4, 4, 0)
    assert exact.cached_tokens[0] == 100  # as vLLM's num_cached_tokens counts a connector's tokens
    same_schedule(fast, exact)
    assert fast.finish_s[0] == pytest.approx(ends[-1], rel=1e-12)


def test_a_pool_too_small_for_two_waits_for_blocks_and_transfers_when_admitted():
    # Each takes ceil((100 + 1) / 16) = 7 blocks of a 10-block pool: the second waits in
    # the queue until the first finishes (7 blocks back), its transfer starts only then.
    config = EngineConfig(kv_pool_bytes=10 * BLOCK_BYTES, max_num_seqs=4)
    fast, exact = both(remote([0.0, 0.0], [100, 100], [5, 5], [100, 100], [0.5, 0.5]), config)
    first = 0.5 + step(101) + step(102) + step(103) + step(104)
    assert exact.finish_s[0] == first
    assert exact.kv_alloc_s[1] == first and exact.kv_ready_s[1] == first + 0.5
    t = first + 0.5
    for kv in (101, 102, 103, 104):
        t += step(kv)
    assert exact.finish_s[1] == t
    assert exact.kv_peak_blocks == 7
    same_schedule(fast, exact)


def test_a_transfer_holds_no_seat():
    # max_num_seqs = 1: the remote request is allocated at t = 0 and the ordinary one
    # behind it is admitted in the same step; the remote one, landed at 0.5, waits for
    # that seat until the ordinary one finishes.
    config = EngineConfig(max_num_seqs=1, token_budget=8192)
    work = remote([0.0, 0.0], [100, 200], [5, 400], [100, 0], [0.5, 0.0])
    fast, exact = both(work, config)
    assert exact.kv_alloc_s[0] == 0.0 and exact.first_schedule_s[1] == 0.0
    assert math.isnan(exact.kv_alloc_s[1]) and math.isnan(exact.kv_ready_s[1])
    assert exact.finish_s[1] > 0.5
    assert exact.first_schedule_s[0] == exact.finish_s[1]
    t = exact.finish_s[1]
    for kv in (101, 102, 103, 104):
        t += step(kv)
    assert exact.finish_s[0] == t
    same_schedule(fast, exact)


def test_a_landing_joins_a_closed_form_run_at_the_next_step_boundary():
    # An ordinary request decodes alone (a closed-form run in fast mode) while the remote
    # one's KV moves; the queue's head behind it waits for blocks, so the run is bounded
    # by the landing, not by an arrival. In a 15-block pool the ordinary one takes 4 blocks
    # (8 at its end), remote 1 six (7 at its end) and lands at 0.3, admitted at the first
    # step boundary at or after it; remote 2 (7 blocks) waits for blocks until 1 finishes.
    config = EngineConfig(kv_pool_bytes=15 * BLOCK_BYTES, max_num_seqs=4)
    work = remote([0.0, 0.0, 0.0], [50, 90, 100], [70, 20, 5], [0, 90, 100], [0.0, 0.3, 0.3])
    fast, exact = both(work, config)
    assert exact.kv_alloc_s[1] == 0.0 and exact.kv_ready_s[1] == 0.3
    assert exact.kv_alloc_s[2] == exact.finish_s[1]  # its 7 blocks free only then
    assert exact.finish_s[0] > exact.first_schedule_s[1]  # the ordinary one was still decoding
    # the landing waits for the step in flight at 0.3 to end: less than one step later
    assert 0.3 <= exact.first_schedule_s[1] < 0.3 + step(120)
    assert exact.preemptions.sum() == 0
    same_schedule(fast, exact)


def test_a_preempted_remote_request_recomputes_locally():
    # Prompts of 96 tokens (6 full blocks) land holding 7 blocks each, the whole 14-block
    # pool. At 112 computed tokens both need an 8th block: the later admitted (1) is
    # preempted with 17 tokens out (token 1 from the prefill side, 16 here) and re-prefills
    # its 96 + 17 = 113 tokens here (8 blocks) once 0 finishes.
    config = EngineConfig(kv_pool_bytes=14 * BLOCK_BYTES, max_num_seqs=4)
    fast, exact = both(remote([0.0, 0.0], [96, 96], [40, 40], [96, 96], [0.5, 0.5]), config)
    assert exact.preemptions.tolist() == [0, 1]
    assert exact.prefill_tokens == 113
    (row, at, back), = exact.preempt_log
    assert row == 1 and back == exact.finish_s[0] and at < back
    assert exact.kv_alloc_s.tolist() == [0.0, 0.0]  # its transfer happened once, at the start
    same_schedule(fast, exact)


def test_routed_transfers_count_as_work_and_cancel_gives_blocks_back():
    work = remote([0.0, 0.1], [100, 100], [5, 5], [100, 100], [0.5, 0.5])
    e = Engine(work, EngineConfig())
    e.route()
    e.advance(0.0)
    e.submit(0)
    e.advance(0.1)
    assert e.transferring() == 1 and e.outstanding() == 1 and e.kv_used_blocks() == 7
    assert e.kv_alloc_s(0) == 0.0 and e.kv_ready_s(0) == 0.5 and math.isnan(e.kv_ready_s(1))
    e.submit(1)
    e.advance(0.2)
    assert e.transferring() == 2 and e.kv_used_blocks() == 14
    assert e.cancel(1)  # in transfer: its blocks go back, its landing finds it gone
    assert e.kv_used_blocks() == 7 and e.is_cancelled(1)
    e.close()
    e.advance(math.inf)
    assert e.outstanding() == 0 and e.transferring() == 0 and e.kv_used_blocks() == 0
    res = e.result()
    assert res.finish_s[0] == replay(remote([0.0], [100], [5], [100], [0.5]), EngineConfig()).finish_s[0]
    assert res.finish_s[1] == pytest.approx(0.2, abs=step(104))


def test_a_partly_remote_prompt_prefills_the_rest_here():
    # 64 of 100 tokens arrive: the other 36 are one chunk here, which samples token 1.
    fast, exact = both(remote([0.0], [100], [3], [64], [0.25]), EngineConfig())
    t1 = 0.25 + COST.step_time(36, 1, 100, 36 * 64 + 36 * 37 / 2)
    assert exact.first_token_s[0] == t1 and exact.prefill_tokens == 36
    assert exact.finish_s[0] == t1 + step(101) + step(102)
    same_schedule(fast, exact)


def test_random_remote_mixes_fast_equals_step_by_step():
    rng = np.random.default_rng(7)
    n = 300
    prompt = rng.integers(20, 1500, n)
    out = rng.integers(2, 300, n)
    ready = np.where(rng.random(n) < 0.7, prompt, 0)
    config = EngineConfig(kv_pool_bytes=400 * BLOCK_BYTES, max_num_seqs=16, token_budget=2048)
    work = remote(np.sort(rng.exponential(0.02, n).cumsum()), prompt, out, ready, rng.uniform(0, 0.2, n))
    fast, exact = both(work, config)
    assert exact.preemptions.sum() > 0 and np.isfinite(exact.finish_s).all()
    same_schedule(fast, exact)
    moved = ready > 0
    assert np.all(exact.kv_alloc_s[moved] >= work.arrival_s[moved])
    assert np.all(exact.first_schedule_s[moved] >= exact.kv_ready_s[moved])


def test_the_edge_refuses_what_the_decode_side_cannot_do():
    with pytest.raises(ParamError, match="remote"):  # its only token was sampled where it was prefilled
        validate(EngineConfig(), remote([0.0], [100], [1], [100], [0.1]))
    with pytest.raises(ParamError, match="remote"):
        validate(EngineConfig(), remote([0.0], [100], [5], [101], [0.1]))
    with pytest.raises(ParamError, match="remote"):
        validate(EngineConfig(), remote([0.0], [100], [5], [100], [-1.0]))
