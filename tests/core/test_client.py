"""The concurrency-limited client and the front end on the engine's arrival/finish paths
(core/serving/engine/client.py), checked from the result's arrival and finish times."""
import numpy as np
import pytest

from core.serving.engine import Engine, EngineConfig, replay
from core.serving.engine.frontend import FrontEnd
from core.serving.workload import Workload


def _work(n, rate=None, seed=0, p=(64, 700), g=(4, 90)):
    rng = np.random.default_rng(seed)
    t = np.zeros(n) if rate is None else np.cumsum(rng.exponential(1 / rate, n))
    return Workload(t, rng.integers(*p, n).astype(np.int64), rng.integers(*g, n).astype(np.int64))


def _most_in_flight(r):
    events = sorted([(a, 1) for a in r.arrival_s] + [(f, -1) for f in r.finish_s], key=lambda e: (e[0], e[1]))
    level = peak = 0
    for _, d in events:
        level += d
        peak = max(peak, level)
    return peak


def test_one_slot_is_strictly_serial():
    w = _work(30)  # all scheduled at t = 0
    r = replay(w, EngineConfig(max_concurrency=1))
    order = np.argsort(r.arrival_s, kind="stable")
    assert r.arrival_s[order[0]] == 0.0
    assert np.array_equal(r.arrival_s[order[1:]], r.finish_s[order[:-1]])


def test_one_slot_waits_for_the_schedule_when_it_is_later():
    w = Workload(np.array([0.0, 100.0]), np.array([50, 50]), np.array([3, 3]))
    r = replay(w, EngineConfig(max_concurrency=1))
    assert r.arrival_s[1] == 100.0 and r.finish_s[0] < 100.0


@pytest.mark.parametrize("limit", [2, 7, 32])
def test_never_more_than_the_limit_in_flight(limit):
    r = replay(_work(400, rate=50.0, seed=limit), EngineConfig(max_concurrency=limit))
    assert _most_in_flight(r) == limit  # reached (a burst of 50/s saturates) and never passed


def test_a_limit_that_never_binds_is_the_open_loop_bit_for_bit():
    w = _work(300, rate=20.0, seed=4)
    a, b = replay(w, EngineConfig()), replay(w, EngineConfig(max_concurrency=300))
    for name in ("arrival_s", "first_schedule_s", "first_token_s", "finish_s", "series_t"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_front_end_floor_of_ttft_by_hand():
    w = Workload(np.array([0.0]), np.array([100]), np.array([10]))
    alone = replay(w, EngineConfig())
    fe = FrontEnd(request_s=0.004, input_token_s=2e-6, output_token_s=4e-5)
    r = replay(w, EngineConfig(frontend=fe))
    prefill = alone.first_token_s[0]  # the engine's one step, from its arrival at 0
    ingest = 0.004 + 100 * 2e-6
    assert r.arrival_s[0] == 0.0  # the client's send
    assert r.first_schedule_s[0] == pytest.approx(ingest, rel=1e-12)
    assert r.first_token_s[0] == pytest.approx(ingest + prefill + 4e-5, rel=1e-12)
    assert r.finish_s[0] == pytest.approx(ingest + alone.finish_s[0] + 4e-5, rel=1e-12)


def test_a_burst_of_short_requests_queues_in_the_front_end():
    n = 50
    w = Workload(np.zeros(n), np.full(n, 16), np.full(n, 2))
    fe = FrontEnd(request_s=0.004, input_token_s=0.0, output_token_s=0.0, rounds=1)
    engine = Engine(w, EngineConfig(frontend=fe))
    r = engine.run()
    # the k-th request reaches the engine after k front-end services: FIFO at one server
    # (one round; test_frontend_rounds.py: the same burst in several)
    at_engine = engine.arrivals_s()[np.argsort(engine.rows())]
    assert np.allclose(at_engine, 0.004 * np.arange(1, n + 1), rtol=1e-12, atol=0)
    assert np.all(r.first_schedule_s >= at_engine) and np.all(r.arrival_s == 0.0)


def test_a_free_front_end_is_the_engine_alone_bit_for_bit():
    w = _work(500, rate=30.0, seed=9)
    cfg = EngineConfig(kv_pool_bytes=2e9)  # a small pool: preemptions on the way
    a = replay(w, cfg)
    b = replay(w, EngineConfig(kv_pool_bytes=2e9, frontend=FrontEnd(0.0, 0.0, 0.0)))
    assert a.preemptions.sum() > 0
    for name in ("arrival_s", "first_schedule_s", "first_token_s", "finish_s", "series_t", "preemptions"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name


def test_limit_with_front_end_frees_a_slot_when_the_client_sees_the_finish():
    w = _work(20, p=(100, 101), g=(5, 6))
    fe = FrontEnd(request_s=0.01, input_token_s=0.0, output_token_s=0.001)
    r = replay(w, EngineConfig(max_concurrency=1, frontend=fe))
    order = np.argsort(r.arrival_s, kind="stable")
    assert np.array_equal(r.arrival_s[order[1:]], r.finish_s[order[:-1]])
    assert np.all(r.first_schedule_s - r.arrival_s >= 0.01 - 1e-15)
