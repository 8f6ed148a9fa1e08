"""The basis model's one-off step costs (core/serving/engine/one_off.py), by hand: a step
after the engine waited for work pays coef_wake_s once, a step of a token count the engine
never ran pays coef_shape_s once; closed-form decode runs give the same times as step by
step. Both are 0 by default, where the oracle tests hold every replay bit for bit."""
from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from core.serving.engine import EngineConfig, replay, validate
from core.serving.step_basis import BasisCost
from core.serving.step_cost import StepCost
from core.serving.step_defaults import DEFAULTS
from core.serving.workload import Workload
from tests.core.test_engine_remote import same_schedule

BASE = BasisCost(**{k: getattr(StepCost(), k) for k in StepCost.__dataclass_fields__})
WAKE, SHAPE = 3.5e-3, 2.4e-3


def prefill(cost: BasisCost, tokens: int) -> float:
    """One step prefilling a whole prompt from scratch (one sequence; it samples a token)."""
    return cost.step_time(tokens, 1, tokens, tokens * (tokens + 1) / 2, 1, 1)


def decode(cost: BasisCost, kv: int) -> float:
    return cost.step_time(1, 1, kv, kv, 1, 0)


def both(work: Workload, cost: BasisCost):
    config = EngineConfig(cost=cost)
    validate(config, work)
    fast, exact = replay(work, config, fast=True), replay(work, config, fast=False)
    same_schedule(fast, exact)
    return fast, exact


def test_both_default_to_zero():
    assert DEFAULTS["coef_wake_s"] == 0.0 and DEFAULTS["coef_shape_s"] == 0.0


def test_a_step_after_a_wait_pays_the_wake_once():
    # two lone requests, 1 s and 10 s in: the engine waits for each, so each first step wakes
    work = Workload(np.array([1.0, 10.0]), np.array([100, 100]), np.array([3, 3]))
    cost = replace(BASE, coef_wake_s=WAKE)
    fast, exact = both(work, cost)
    first = prefill(cost, 100) + WAKE
    for r, t0 in ((0, 1.0), (1, 10.0)):
        assert exact.first_token_s[r] == pytest.approx(t0 + first, rel=1e-12)
        assert exact.finish_s[r] == pytest.approx(t0 + first + decode(cost, 101) + decode(cost, 102), rel=1e-12)
    assert fast.finish_s == pytest.approx(exact.finish_s, rel=1e-12)


def test_a_first_token_count_pays_the_shape_once():
    # the second request's prompt has the first one's size: only the first pays, and only
    # the first one-token decode step does
    work = Workload(np.array([0.0, 10.0]), np.array([100, 100]), np.array([3, 3]))
    cost = replace(BASE, coef_shape_s=SHAPE)
    fast, exact = both(work, cost)
    d = decode(cost, 101) + decode(cost, 102)
    assert exact.finish_s[0] == pytest.approx(prefill(cost, 100) + SHAPE + d + SHAPE, rel=1e-12)
    assert exact.finish_s[1] == pytest.approx(10.0 + prefill(cost, 100) + d, rel=1e-12)
    assert fast.finish_s == pytest.approx(exact.finish_s, rel=1e-12)


def test_the_terms_move_a_loaded_replay_and_fast_equals_exact():
    rng = np.random.default_rng(3)
    n = 300
    work = Workload(np.sort(rng.uniform(0, 30, n)), rng.integers(20, 600, n), rng.integers(1, 120, n))
    plain, charged = BASE, replace(BASE, coef_wake_s=WAKE, coef_shape_s=SHAPE)
    fast, exact = both(work, charged)
    assert fast.finish_s == pytest.approx(exact.finish_s, rel=1e-9)
    base = replay(work, EngineConfig(cost=plain))
    # each step costs as much or more: the schedule shifts (finishes may reorder), the run ends later
    assert exact.finish_s.max() > base.finish_s.max()
    assert np.mean(exact.finish_s - work.arrival_s) > np.mean(base.finish_s - work.arrival_s)
