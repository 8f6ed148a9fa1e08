"""The front end as one CPU whose ready queue is served in order (core/serving/engine/client.py):
a request's work in `rounds` slices, each put at the tail when the previous one is done,
every step's output at the tail when the step ends. Checked by hand arithmetic."""
import numpy as np
import pytest

from core.serving.engine import Engine, EngineConfig, replay
from core.serving.engine.frontend import FrontEnd
from core.serving.workload import Workload


def _at_engine(w, fe):
    engine = Engine(w, EngineConfig(frontend=fe))
    r = engine.run()
    return r, engine.arrivals_s()[np.argsort(engine.rows())]


@pytest.mark.parametrize("rounds", [1, 2, 5])
def test_a_burst_goes_round_robin(rounds):
    # n requests sent at 0: request i's slice j is done at (j·n + i + 1)·c/rounds, so the
    # last slices come out one by one after (rounds − 1) full rounds.
    n, c = 40, 0.005
    w = Workload(np.zeros(n), np.full(n, 16), np.full(n, 2))
    r, at = _at_engine(w, FrontEnd(request_s=c, input_token_s=0.0, output_token_s=0.0, rounds=rounds))
    want = ((rounds - 1) * n + np.arange(1, n + 1)) * c / rounds
    assert np.allclose(at, want, rtol=1e-12, atol=0)
    assert np.all(r.arrival_s == 0.0) and np.all(r.first_schedule_s >= at)


def test_a_lone_request_pays_its_work_once_whatever_the_rounds():
    w = Workload(np.array([0.0]), np.array([100]), np.array([10]))
    alone = replay(w, EngineConfig())
    fe = FrontEnd(request_s=0.004, input_token_s=2e-6, output_token_s=4e-5, rounds=4)
    r = replay(w, EngineConfig(frontend=fe))
    ingest = 0.004 + 100 * 2e-6
    assert r.first_schedule_s[0] == pytest.approx(ingest, rel=1e-12)
    assert r.first_token_s[0] == pytest.approx(ingest + alone.first_token_s[0] + 4e-5, rel=1e-12)
    assert r.finish_s[0] == pytest.approx(ingest + alone.finish_s[0] + 4e-5, rel=1e-12)


def test_an_output_waits_for_the_slices_queued_before_it():
    # A runs alone; a burst of m requests is sent just before A's last step ends: that
    # step's token is put behind the m first slices (each c/rounds), none done yet. Step by
    # step (fast=False): a closed-form run of decode steps takes a send inside it after
    # the run's output (client.py).
    c, rounds, m = 0.04, 4, 30
    a = Workload(np.array([0.0]), np.array([64]), np.array([6]))
    alone = replay(a, EngineConfig(), fast=False)
    last_step = alone.finish_s[0] - alone.first_token_s[0]  # A's decode steps: 5 of them
    t_send = c + alone.finish_s[0] - last_step / 50  # inside the last step, before it ends
    assert last_step / 50 < c / rounds  # no slice of the burst is done when the step ends
    w = Workload(np.concatenate([[0.0], np.full(m, t_send)]), np.full(m + 1, 64), np.full(m + 1, 6))
    fe = FrontEnd(request_s=c, input_token_s=0.0, output_token_s=0.0, rounds=rounds)
    r = replay(w, EngineConfig(frontend=fe), fast=False)
    assert r.first_token_s[0] == pytest.approx(c + alone.first_token_s[0], rel=1e-9)  # nothing queued then
    assert r.finish_s[0] == pytest.approx(t_send + m * c / rounds, rel=1e-12)


def test_rounds_are_checked():
    for bad in (0, 65, 2.5):
        with pytest.raises(ValueError, match="rounds"):
            FrontEnd(rounds=bad)
