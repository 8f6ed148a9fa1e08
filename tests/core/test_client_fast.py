"""Fast mode (closed-form decode runs) equals exact mode (every step one by one) with the
front end on: a send or a slice done inside a run must be taken before that step's
output, as exact mode takes it (client.py's next_fe_event, fe_output_run)."""
import numpy as np
import pytest

from core.serving.engine import EngineConfig, replay
from core.serving.engine import driver as drv
from core.serving.engine.frontend import FrontEnd
from core.serving.workload import Workload

TIMES = ("arrival_s", "first_schedule_s", "first_token_s", "finish_s")


def _work(n, rate, seed):
    """vllm bench serve's random dataset shape: 1024 input and 64 output tokens, range ratio 0.8."""
    rng = np.random.default_rng(seed)
    t = np.zeros(n) if rate is None else np.cumsum(rng.exponential(1 / rate, n))
    return Workload(t, rng.integers(205, 1844, n).astype(np.int64), rng.integers(13, 116, n).astype(np.int64))


def _agree(fast, exact):
    assert fast.engine_steps == exact.engine_steps
    assert np.array_equal(fast.preemptions, exact.preemptions)
    for name in TIMES:
        np.testing.assert_allclose(getattr(fast, name), getattr(exact, name), rtol=1e-9, atol=0, err_msg=name)


@pytest.mark.parametrize("rounds", [1, 5])
@pytest.mark.parametrize("rate,limit", [(None, 4), (4.0, 0), (20.0, 16)])
def test_fast_equals_exact_with_the_front_end(rate, limit, rounds):
    w = _work(80, rate, seed=11)
    cfg = EngineConfig(max_concurrency=limit, frontend=FrontEnd(rounds=rounds))
    fast, exact = replay(w, cfg, fast=True), replay(w, cfg, fast=False)
    assert fast.closed_form_steps > 0  # the runs are what is checked
    _agree(fast, exact)


def test_fast_equals_exact_on_a_deployment_priced_by_the_basis_model(monkeypatch):
    """fx's case: lab simulate serving's defaults for a deployment (the front end on)."""
    from core.serving.headless import serving_report
    raw = {"model": "qwen3-8b", "hardware": "h100-sxm", "dataset": "random", "num_prompts": "80",
           "random_input_len": "1024", "random_output_len": "64", "random_range_ratio": "0.8",
           "request_rate": "inf", "max_concurrency": "4"}
    init = drv.Engine.__init__
    results = []
    for fast in (True, False):
        monkeypatch.setattr(drv.Engine, "__init__", lambda self, w, c, f=True, _m=fast: init(self, w, c, f and _m))
        report, (result, _) = serving_report(raw)
        assert report["deployment"] is not None
        results.append(result)
    _agree(*results)
