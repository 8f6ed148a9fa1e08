"""lab calibrate's fit (core/calibrate/fit.py): simulate with known coefficients → write the
run as a vllm bench result → calibrate it as if measured → the generating coefficients
come back within 2%; a replay here equals `lab simulate serving trace=` bit for bit; the
fit's bookkeeping (frozen keys, bands, leave-one-out, progress, cancel)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from core.calibrate.fit import FIT_KEYS, calibrate
from core.calibrate.replayer import RunReplay
from core.calibrate.runs import load_runs
from core.calibrate.synthetic import bench_result
from core.cancel import Cancelled
from core.registry import ParamError
from core.serving.headless import serving_report

BASE = {"model": "qwen3-8b", "hardware": "h100-sxm"}
TRUTH = {"coef_step_s": "0.0015", "coef_seq_s": "3e-05", "coef_prefill_compute": "1.4", "coef_request_s": "0.0003",
         "coef_decode_kv": "1.3"}


def write_run(path, coefs=TRUTH, concurrency=8, prompts=80, input_len=1024, output_len=64):
    report, (result, work) = serving_report(dict(BASE, **coefs, dataset="random", num_prompts=str(prompts),
                                                 random_input_len=str(input_len), random_output_len=str(output_len),
                                                 random_range_ratio="0.8", request_rate="inf",
                                                 max_concurrency=str(concurrency)))
    path.write_text(json.dumps(bench_result(result, work, model_id="qwen3-8b", max_concurrency=concurrency)))
    return report


@pytest.fixture(scope="module")
def two_runs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("runs")
    paths = [folder / "low.json", folder / "high.json"]
    write_run(paths[0], concurrency=4)
    write_run(paths[1], concurrency=16)
    return [str(p) for p in paths]


def test_recovers_the_generating_coefficients_within_2_percent(two_runs):
    cal = calibrate(two_runs, BASE, bootstrap=4, seed=1)
    assert cal.converged, cal.message
    assert cal.fit_keys == FIT_KEYS  # every default key identified by these two runs
    for key in FIT_KEYS:
        assert cal.coefficients[key] == pytest.approx(float(TRUTH[key]), rel=0.02), key
    # The defaults were off: the fit moved every one of them by more than the tolerance.
    for key in FIT_KEYS:
        assert abs(cal.defaults[key] / float(TRUTH[key]) - 1) > 0.02, key
    assert cal.cost_after < cal.cost_before
    for row in cal.per_run:  # after the fit the run is reproduced: TTFT, TPOT and E2E medians
        for metric in ("median_ttft_ms", "median_tpot_ms", "median_e2el_ms", "p90_ttft_ms"):
            assert abs(row["after"][metric]["error_pct"]) < 0.5, (row["run"], metric)
        assert abs(row["before"]["median_tpot_ms"]["error_pct"]) > 2
    assert len(cal.samples) == 4 and set(cal.samples[0]) == set(FIT_KEYS)
    for p5, p50, p95 in cal.bands.values():
        assert p5 <= p50 <= p95
    assert [r["run"] for r in cal.loo] == ["low", "high"]
    for r in cal.loo:  # the other run's fit predicts this one (the same coefficients made both)
        assert r["median_abs_error_pct"] < 1.0
    assert cal.profile.coefficients == cal.coefficients
    assert cal.profile.samples == cal.samples


def test_a_replay_equals_lab_simulate_serving_on_the_same_trace(two_runs):
    run = load_runs(two_runs[:1])[0]
    replay = RunReplay(run, BASE)
    coefs = {k: float(v) for k, v in TRUTH.items()}
    p = replay.predict(coefs)
    report, (result, _) = serving_report(dict(BASE, **TRUTH, trace=two_runs[0]))
    assert np.array_equal(p.ttft_s, result.ttft_s)
    assert np.array_equal(p.e2e_s, result.finish_s - result.arrival_s)
    # and the measured run was made with these coefficients: its TTFTs come back exactly
    assert np.allclose(p.ttft_s, run.ttft_s, rtol=1e-12, atol=0)


# (4, 2048, 64): at 32 outputs a request's decode context barely moves, so coef_step_s and
# coef_decode_kv are nearly one term; with an H100's own decode reads (step_defaults.
# CARD_DECODE_READ) the fit stopped 7% off on coef_step_s there.
@pytest.mark.parametrize("concurrency, input_len, output_len", [(4, 2048, 64), (8, 512, 128), (16, 512, 32)])
def test_one_run_recovers_too_and_has_no_leave_one_out(tmp_path, concurrency, input_len, output_len):
    path = tmp_path / "one.json"
    write_run(path, concurrency=concurrency, prompts=60, input_len=input_len, output_len=output_len)
    cal = calibrate([str(path)], BASE, bootstrap=0)
    assert cal.converged and cal.loo == [] and cal.samples == [] and cal.bands == {}
    assert cal.fit_keys == FIT_KEYS
    for key in cal.fit_keys:
        assert cal.coefficients[key] == pytest.approx(float(TRUTH[key]), rel=0.02), key


def test_a_key_given_stays_fixed_and_unfittable_keys_are_said(two_runs):
    cal = calibrate(two_runs, dict(BASE, coef_seq_s="3e-05"),
                    fit_keys=("coef_step_s", "coef_seq_s", "coef_tp_comm"), bootstrap=0)
    assert cal.coefficients["coef_seq_s"] == 3e-05
    assert "explicit" in cal.frozen["coef_seq_s"]
    assert "not identified" in cal.frozen["coef_tp_comm"]  # tp = 1: no all-reduce to scale
    assert cal.fit_keys == ("coef_step_s",)


def test_fit_keys_misspelt_named_with_a_suggestion(two_runs):
    with pytest.raises(ParamError) as err:
        calibrate(two_runs, BASE, fit_keys=("coef_step",), bootstrap=0)
    assert err.value.param == "fit_keys" and "did you mean coef_step_s" in err.value.message


def test_progress_reaches_one_and_cancel_stops_between_replays(two_runs):
    seen = []
    calibrate(two_runs, BASE, bootstrap=1, progress=lambda f, text: seen.append((f, text)))
    fractions = [f for f, _ in seen]
    assert fractions[-1] == 1.0 and all(0 <= f <= 1 for f in fractions)
    calls = []

    def cancel():
        calls.append(1)
        return len(calls) > 3

    with pytest.raises(Cancelled):
        calibrate(two_runs, BASE, bootstrap=0, cancel=cancel)
    assert len(calls) == 4  # polled once a replay, stopped at the first True


def test_model_and_hardware_are_required(two_runs):
    with pytest.raises(ParamError) as err:
        calibrate(two_runs, {"model": "qwen3-8b"})
    assert err.value.param == "hardware"


def test_the_front_end_coefficients_are_fittable_and_frozen_when_off(tmp_path, two_runs):
    path = tmp_path / "fe.json"
    # The API server as the bottleneck: 4 streams x 4 ms of its time per output token is 16 ms
    # of it per engine step of ~8.6 ms (median TPOT 13.4 ms against 8.6 at the default). (The
    # 400 us this test had was a bottleneck while the H100's compute ran at its datasheet
    # peak; at its achieved one, step_defaults.CARD_COMPUTE_EFFICIENCY, steps are slower and
    # 400 us moves the latencies by 2-3% only.)
    write_run(path, coefs=dict(TRUTH, frontend_output_token_us="4000"), concurrency=4, prompts=60, input_len=512,
              output_len=64)
    # The step terms given: only the API server's time per output token is fitted. At its
    # default it is no bottleneck (no effect on any latency): found by its far ends.
    keys = dict(BASE, **TRUTH)
    cal = calibrate([str(path)], keys, fit_keys=("frontend_output_token_us",), bootstrap=0)
    assert cal.defaults["frontend_output_token_us"] == 40.0
    assert cal.converged and cal.coefficients["frontend_output_token_us"] == pytest.approx(4000.0, rel=0.02)
    off = calibrate(two_runs[:1], dict(BASE, frontend="off"), fit_keys=("coef_step_s", "frontend_request_ms"),
                    bootstrap=0)
    assert "front end is off" in off.frozen["frontend_request_ms"] and off.fit_keys == ("coef_step_s",)
