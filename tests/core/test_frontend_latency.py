"""The front end's latency (FrontEnd.latency_s, client.py's SF[FE_LAT]): a wait on every
request that holds no CPU, so the client sees each of its tokens that much later and a
client's slot is freed that much later. Checked against the same run without it."""
import numpy as np
import pytest

from core.serving import bench_keys
from core.serving.engine import EngineConfig, replay
from core.serving.engine.frontend import CHAT_LATENCY_S, FrontEnd
from core.serving.workload import Workload

FE = dict(request_s=0.004, input_token_s=2e-6, output_token_s=4e-5, rounds=5)


def test_a_lone_request_is_seen_later_by_the_latency_and_nothing_else_moves():
    w = Workload(np.array([0.0]), np.array([300]), np.array([20]))
    base = replay(w, EngineConfig(frontend=FrontEnd(**FE)))
    lat = 0.035
    r = replay(w, EngineConfig(frontend=FrontEnd(**FE, latency_s=lat)))
    assert r.first_schedule_s[0] == base.first_schedule_s[0]  # the engine sees it when it did
    assert r.first_token_s[0] == pytest.approx(base.first_token_s[0] + lat, rel=1e-12)
    assert r.finish_s[0] == pytest.approx(base.finish_s[0] + lat, rel=1e-12)


def test_a_burst_is_not_queued_by_it():
    # No CPU is held: a burst reaches the engine as without the latency (a CPU share of
    # the same size would put n × 35 ms before the last one).
    n = 50
    w = Workload(np.zeros(n), np.full(n, 128), np.full(n, 4))
    base = replay(w, EngineConfig(frontend=FrontEnd(**FE)))
    r = replay(w, EngineConfig(frontend=FrontEnd(**FE, latency_s=0.035)))
    assert np.array_equal(r.first_schedule_s, base.first_schedule_s)
    assert np.allclose(r.first_token_s, base.first_token_s + 0.035, rtol=1e-12, atol=0)
    assert np.allclose(r.finish_s, base.finish_s + 0.035, rtol=1e-12, atol=0)


def test_one_slot_waits_for_the_latency_before_the_next_send():
    # max_concurrency 1: request i+1 is sent when the client sees request i finish, its
    # latency included, so each send comes k · latency later than without it.
    n, lat = 6, 0.02
    w = Workload(np.zeros(n), np.full(n, 200), np.full(n, 10))
    base = replay(w, EngineConfig(max_concurrency=1, frontend=FrontEnd(**FE)))
    r = replay(w, EngineConfig(max_concurrency=1, frontend=FrontEnd(**FE, latency_s=lat)))
    order = np.argsort(r.arrival_s, kind="stable")
    assert np.allclose(r.arrival_s[order], base.arrival_s[order] + lat * np.arange(n), rtol=1e-12, atol=1e-15)
    assert np.allclose(r.finish_s[order], base.finish_s[order] + lat * np.arange(1, n + 1), rtol=1e-12, atol=1e-15)


def test_latency_zero_is_the_front_end_as_before_bit_for_bit():
    w = Workload(np.zeros(20), np.full(20, 100), np.full(20, 8))
    a = replay(w, EngineConfig(frontend=FrontEnd(**FE)))
    b = replay(w, EngineConfig(frontend=FrontEnd(**FE, latency_s=0.0)))
    assert np.array_equal(a.first_token_s, b.first_token_s) and np.array_equal(a.finish_s, b.finish_s)


def test_the_default_is_by_endpoint_and_a_key_wins():
    chat = bench_keys.frontend({"endpoint": "/v1/chat/completions"}, True)
    assert chat.latency_s == CHAT_LATENCY_S
    assert bench_keys.frontend({}, True).latency_s == 0.0  # /v1/completions: none measured
    given = bench_keys.frontend({"endpoint": "/v1/chat/completions", "frontend_latency_ms": 5.0}, True)
    assert given.latency_s == pytest.approx(0.005)


@pytest.mark.parametrize("bad", [-1e-3, float("inf"), float("nan")])
def test_a_bad_latency_is_refused(bad):
    with pytest.raises(ValueError, match="latency"):
        FrontEnd(latency_s=bad)
