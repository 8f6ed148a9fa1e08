"""Encoder work per request (workload.EncoderWork, image requests): the step that admits a
request adds its encoder seconds to the step-time model's time (vLLM V1 runs the encoder
in the same step, before the LM forward), and a per-step encoder token budget leaves the
next image request at the queue's head for the next step. Hand arithmetic, fast equals
step by step, and a workload whose encoder work is all zero replays bit for bit as
without it."""
from __future__ import annotations

import numpy as np
import pytest

from core.serving.engine import EngineConfig, replay, validate
from core.serving.step_cost import StepCost
from core.serving.workload import EncoderWork, Workload
from tests.core.test_engine_frozen import assert_identical, hash_id_workload
from tests.core.test_engine_remote import same_schedule

COST = StepCost()
BLOCK_BYTES = 16 * COST.kv_bytes_per_token


def prefill(tokens: int) -> float:
    """One step prefilling a whole prompt from scratch (it samples its first token)."""
    return COST.step_time(tokens, 1, tokens, tokens * (tokens + 1) / 2)


def decode(kv: int) -> float:
    return COST.step_time(1, 1, kv, kv)


def images(work: Workload, seconds, tokens) -> Workload:
    return Workload(work.arrival_s, work.input_tokens, work.output_tokens, prefix=work.prefix,
                    encoder=EncoderWork(np.asarray(seconds, float), np.asarray(tokens, np.int64)))


def both(work, config):
    validate(config, work)
    return replay(work, config, fast=True), replay(work, config, fast=False)


def test_an_image_request_s_first_step_adds_its_encoder_seconds():
    work = images(Workload(np.zeros(1), np.array([100]), np.array([3])), [0.2], [400])
    fast, exact = both(work, EngineConfig())
    first = prefill(100) + 0.2
    assert exact.first_token_s[0] == first
    assert exact.finish_s[0] == first + decode(101) + decode(102)
    assert exact.extras == {"encoder_s": 0.2, "encoder_steps": 1}
    same_schedule(fast, exact)
    assert fast.extras == exact.extras


def test_the_encoder_budget_splits_two_image_requests_into_two_steps():
    work = images(Workload(np.zeros(2), np.array([100, 100]), np.array([3, 3])), [0.1, 0.1], [400, 400])
    # 400 + 400 > 500: the second waits at the head for the next step
    fast, exact = both(work, EngineConfig(max_num_encoder_input_tokens=500))
    step1 = prefill(100) + 0.1
    assert exact.first_token_s[0] == step1 and exact.first_schedule_s[1] == step1
    # step 2: request 0's decode (context 101) and request 1's prompt, and its encoder
    step2 = COST.step_time(101, 2, 101 + 100, 101 + 100 * 101 / 2) + 0.1
    assert exact.first_token_s[1] == step1 + step2
    assert exact.extras == {"encoder_s": 0.2, "encoder_steps": 2}
    same_schedule(fast, exact)
    # unlimited (None, or 0): both in the first step, whose time adds both encoders'
    for budget in (None, 0, 800):
        together = replay(work, EngineConfig(max_num_encoder_input_tokens=budget), fast=False)
        one = COST.step_time(200, 2, 200, 2 * 100 * 101 / 2) + (0.1 + 0.1)
        assert together.first_token_s.tolist() == [one, one]
        assert together.extras["encoder_steps"] == 1


def test_a_request_over_the_budget_alone_still_runs():
    # vLLM sizes the encoder budget to at least the largest item: the first one of a step fits
    work = images(Workload(np.zeros(1), np.array([100]), np.array([2])), [0.1], [5000])
    r = replay(work, EngineConfig(max_num_encoder_input_tokens=500), fast=False)
    assert r.first_token_s[0] == prefill(100) + 0.1


def test_text_requests_are_not_limited_by_the_encoder_budget():
    work = images(Workload(np.zeros(3), np.array([100, 50, 50]), np.array([2, 2, 2])), [0.1, 0, 0], [400, 0, 0])
    r = replay(work, EngineConfig(max_num_encoder_input_tokens=400), fast=False)
    assert r.first_schedule_s.tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("caching", [False, True])
def test_every_admission_pays_its_encoder_once_and_fast_equals_step_by_step(caching):
    # a preempting hash-id workload: a preempted request's recompute runs its encoder again
    # (vLLM frees a preempted request's encoder outputs)
    base = hash_id_workload(300, seed=5)
    rng = np.random.default_rng(5)
    image = rng.random(len(base)) < 0.5
    sec = np.where(image, rng.uniform(0.005, 0.05, len(base)), 0.0)
    tok = np.where(image, rng.integers(100, 1500, len(base)), 0)
    config = EngineConfig(kv_pool_bytes=600 * BLOCK_BYTES, max_num_seqs=32, prefix_caching=caching,
                          max_num_encoder_input_tokens=2048)
    fast, exact = both(images(base, sec, tok), config)
    assert exact.preemptions.sum() > 0
    assert exact.extras["encoder_s"] == pytest.approx(float(np.sum(sec * (1 + exact.preemptions))), rel=1e-12)
    same_schedule(fast, exact)


def test_zero_encoder_work_replays_bit_for_bit_as_none():
    base = hash_id_workload(200, seed=2)
    zero = images(base, np.zeros(len(base)), np.zeros(len(base), np.int64))
    for fast in (True, False):
        with_zero, without = replay(zero, EngineConfig(), fast=fast), replay(base, EngineConfig(), fast=fast)
        assert with_zero.extras.pop("encoder_s") == 0.0 and with_zero.extras.pop("encoder_steps") == 0
        assert_identical(with_zero, without)
