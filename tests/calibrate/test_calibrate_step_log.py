"""A step log in the calibration (core/calibrate/step_log.py): the vectorised step times equal
core/observe/steps.py's step by step; a log written from known coefficients is fitted back
to them; a log with too few steps is refused naming steps."""
from __future__ import annotations

import numpy as np
import pytest

from core.calibrate.fit import calibrate
from core.calibrate.replayer import RunReplay
from core.calibrate.runs import load_runs
from core.calibrate.step_log import StepLog
from core.observe.steps import predicted_ms
from core.registry import ParamError

BASE = {"model": "qwen3-8b", "hardware": "h100-sxm"}
STEP_LINE = ("(APIServer pid=1) INFO 12-01 19:35:21.{ms:03d} [loggers.py:199] Engine 000: Iteration({i}): "
             "{cr} context requests, {ct} context tokens, {gr} generation requests, {gt} generation tokens, "
             "iteration elapsed time: {t:.6f} ms, CPU KV cache usage: {kv:.1f}%")
POOL_TOKENS = 65536


def write_log(path, cost, rng, n=60):
    """Steps of random prompts and decodes, each timed by cost exactly (to the µs)."""
    lines = [f"(EngineCore pid=2) INFO 12-01 19:35:00.000 [kv_cache_utils.py:1] CPU KV cache size: {POOL_TOKENS:,} "
             "tokens, Maximum concurrency for 4,096 tokens per request: 8.00x"]
    log = None
    for i in range(n):
        cr = int(rng.integers(0, 3))
        ct = int(cr * rng.integers(64, 1024))
        gr = int(rng.integers(0 if cr else 1, 32))
        kv = float(rng.uniform(5, 60))
        lines.append(STEP_LINE.format(ms=i, i=i, cr=cr, ct=ct, gr=gr, gt=gr, t=1.0, kv=kv))
    path.write_text("\n".join(lines) + "\n")
    log = StepLog(str(path))
    times = log.predicted_ms(cost)
    text = path.read_text().splitlines()
    for j, t in enumerate(times):
        text[j + 1] = text[j + 1].replace("elapsed time: 1.000000 ms", f"elapsed time: {t:.6f} ms")
    path.write_text("\n".join(text) + "\n")
    return str(path)


def synthetic_run(folder) -> str:
    """A vllm bench result of a replay (40 random prompts, 8 at a time) written in folder."""
    import json

    from core.calibrate.synthetic import bench_result
    from core.serving.headless import serving_report

    path = folder / "run.json"
    _, (result, work) = serving_report(dict(BASE, dataset="random", num_prompts="40", random_input_len="512",
                                            random_output_len="64", random_range_ratio="0.5", request_rate="inf",
                                            max_concurrency="8"))
    path.write_text(json.dumps(bench_result(result, work, model_id="qwen3-8b", max_concurrency=8)))
    return str(path)


@pytest.fixture(scope="module")
def run_and_replay(tmp_path_factory):
    path = synthetic_run(tmp_path_factory.mktemp("steps"))
    (run,) = load_runs([path])
    return path, RunReplay(run, BASE)


def test_vectorised_step_times_equal_the_step_by_step_ones(tmp_path, run_and_replay):
    _, replay = run_and_replay
    cost = replay.cost({"coef_step_s": 2e-3, "coef_seq_s": 5e-5})
    log = StepLog(write_log(tmp_path / "s.log", cost, np.random.default_rng(0)))
    assert np.allclose(log.predicted_ms(cost), predicted_ms(log.steps, cost), rtol=1e-12, atol=0)


def test_a_step_log_is_fitted_back_to_its_coefficients(tmp_path, run_and_replay, monkeypatch):
    path, replay = run_and_replay
    truth = {"coef_step_s": 2e-3, "coef_seq_s": 6e-5, "coef_prefill_compute": 1.5}
    log = write_log(tmp_path / "s.log", replay.cost(truth), np.random.default_rng(1), n=120)
    # The run was made with the defaults and the log with `truth`: they disagree, and with
    # the log weighing far more than the run the fit follows the log.
    import core.calibrate.step_log as sl

    monkeypatch.setattr(sl, "STEP_WEIGHT", 30.0)
    cal = calibrate([path], BASE, fit_keys=tuple(truth), bootstrap=0, steps=[log])
    assert cal.converged
    for key, value in truth.items():
        assert cal.coefficients[key] == pytest.approx(value, rel=0.05), key
    after = cal.steps[0]["after"]["all"]
    assert after["median_abs_step_error"] < cal.steps[0]["before"]["all"]["median_abs_step_error"]


def test_a_log_without_steps_is_refused(tmp_path):
    empty = tmp_path / "empty.log"
    empty.write_text("nothing here\n")
    with pytest.raises(ParamError) as err:
        StepLog(str(empty))
    assert err.value.param == "steps" and "Iteration" in err.value.message


def test_with_a_log_the_engine_terms_come_from_the_log_alone(tmp_path, run_and_replay):
    """Stage one fits the log by itself: the per-sequence and prefill terms are the log's
    even where the run (made with the defaults: faster steps) disagrees and the log weighs
    as one run; the runs then move the per-step term alone, down toward their faster steps."""
    path, replay = run_and_replay
    truth = {"coef_step_s": 2e-3, "coef_seq_s": 6e-5, "coef_prefill_compute": 1.5}
    log = write_log(tmp_path / "s.log", replay.cost(truth), np.random.default_rng(1), n=120)
    cal = calibrate([path], BASE, fit_keys=tuple(truth), bootstrap=3, steps=[log])
    assert cal.converged, cal.message
    assert set(cal.from_steps) == set(truth)
    for key in ("coef_seq_s", "coef_prefill_compute"):
        assert cal.coefficients[key] == pytest.approx(truth[key], rel=0.05), key
    engine_coefs = cal.steps[0]["engine_coefficients"]
    assert engine_coefs["coef_step_s"] == pytest.approx(truth["coef_step_s"], rel=0.05)
    assert cal.coefficients["coef_step_s"] < engine_coefs["coef_step_s"]
    engine = cal.steps[0]["engine"]["all"]  # the log's own fit prices its steps near exactly
    assert engine["median_abs_step_error"] < 0.05
    assert len(cal.samples) == 3 and all(set(s) == set(truth) for s in cal.samples)
    assert cal.profile.fit["from_step_logs"] == list(cal.from_steps)


def test_the_prior_is_one_residual_per_key_and_off_in_the_identifiability_check(tmp_path, run_and_replay):
    from core.calibrate.problem import Problem
    from core.calibrate.search import identifiable

    _, replay = run_and_replay
    log = StepLog(write_log(tmp_path / "s.log", replay.cost({}), np.random.default_rng(2)))
    keys = ("coef_seq_s", "coef_tp_comm")  # tp = 1: the TP term does nothing
    start = dict(replay.defaults)
    plain = Problem([replay], keys, start, logs=[log])
    prior = Problem([replay], keys, start, logs=[log], prior_weight=0.05)
    counts, _ = plain.ones()
    off = np.zeros(1)
    x = np.array([0.7, -1.3])
    a, b = plain.residuals(x, counts, off), prior.residuals(x, counts, off)
    assert np.array_equal(b[:-2], a) and np.allclose(b[-2:], 0.05 * x, rtol=0, atol=1e-15)
    kept, why = identifiable(prior, np.zeros(2), counts, off)
    assert kept == ("coef_seq_s",) and "not identified" in why["coef_tp_comm"]
    assert prior.prior_weight == 0.05  # restored after the check
