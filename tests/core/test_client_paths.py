"""The front end on every arrival path the engine has (session turns due after their
predecessor, a router's feed) and the client's limit where it does not apply."""
import os
import sys

import numpy as np
import pytest

from core.serving.engine import Engine, EngineConfig, replay
from core.serving.engine.frontend import FrontEnd
from core.serving.replicas import replay_replicas
from core.serving.workload import Workload

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "bench"))
from serving_workloads import sessions_workload

FREE = FrontEnd(0.0, 0.0, 0.0)
NAMES = ("arrival_s", "first_schedule_s", "first_token_s", "finish_s", "preemptions", "cached_tokens")


def _same(a, b):
    for name in NAMES:
        assert np.array_equal(getattr(a, name), getattr(b, name), equal_nan=True), name


def test_a_free_front_end_keeps_sessions_and_their_prefix_cache_bit_for_bit():
    w = sessions_workload(sessions=60, turns=4, seed=3, rate_per_s=2.0)
    cfg = EngineConfig(kv_pool_bytes=3e9)
    _same(replay(w, cfg), replay(w, EngineConfig(kv_pool_bytes=3e9, frontend=FREE)))


def test_a_free_front_end_behind_a_router_is_the_engines_alone():
    rng = np.random.default_rng(5)
    n = 300
    w = Workload(np.cumsum(rng.exponential(0.05, n)), rng.integers(50, 900, n), rng.integers(2, 60, n))
    a = replay_replicas(w, EngineConfig(), 3, "least_outstanding")
    b = replay_replicas(w, EngineConfig(frontend=FREE), 3, "least_outstanding")
    _same(a, b)
    assert np.array_equal(a.extras["replica_of"], b.extras["replica_of"])


def test_the_front_end_delays_a_session_turn_by_its_predecessors_delivery():
    w = sessions_workload(sessions=1, turns=2, seed=1)
    fe = FrontEnd(request_s=0.01, input_token_s=0.0, output_token_s=0.0, rounds=1)  # one slice: exact sums
    r = replay(w, EngineConfig(frontend=fe))
    think, tool = w.sessions.think_time_s[1], w.sessions.tool_wait_s[0]
    assert r.arrival_s[1] == pytest.approx(r.finish_s[0] + tool + think, rel=1e-12)
    assert r.first_schedule_s[1] >= r.arrival_s[1] + 0.01


def test_the_limit_is_refused_with_sessions_and_behind_a_router():
    with pytest.raises(ValueError, match="sessions"):
        Engine(sessions_workload(sessions=2, turns=2), EngineConfig(max_concurrency=1))
    w = Workload(np.zeros(4), np.full(4, 10), np.full(4, 2))
    with pytest.raises(ValueError, match="router"):
        Engine(w, EngineConfig(max_concurrency=1)).route()
