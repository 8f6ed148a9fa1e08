"""core/calibrate/summaries.py: calibration on summary figures (a run's mean/median TTFT,
TPOT, ITL, E2E and throughput, no per-request data)."""
from __future__ import annotations

import json
import math
import os
import sys

import numpy as np
import pytest

from core.calibrate.profile import load_profile
from core.calibrate.summaries import (
    SCORED,
    SummaryProblem,
    SummaryReplay,
    SummaryRun,
    calibrate_summaries,
    replays_of,
    residuals_of,
    run_table,
    summary,
)
from core.calibrate.summary_profile import cli_run, load_summary_runs
from core.calibrate.summary_select import leave_one_out, select_keys
from core.registry import ParamError
from core.serving.headless import serving_report

BENCH = os.path.join(os.path.dirname(__file__), "..", "..", "bench")

# Small bursts of one model on one card: a prefill-bound run, a decode-bound one, and a
# thousand-token run between (each a few hundred engine steps).
BASE = {"model": "qwen3-8b", "hardware": "h100-sxm", "dataset": "random", "request_rate": "inf", "seed": "1"}
SHAPES = {"prefill": {"random_input_len": "3000", "random_output_len": "16", "num_prompts": "48"},
          "decode": {"random_input_len": "128", "random_output_len": "256", "num_prompts": "64"},
          "mixed": {"random_input_len": "1000", "random_output_len": "64", "num_prompts": "96"}}


def keys_of(shape: str) -> dict:
    return dict(BASE, **SHAPES[shape])


def run_at(shape: str, coefs: dict | None = None, **measured_override) -> SummaryRun:
    """A run whose 'measured' figures are the replay's own at coefs (defaults: none)."""
    replay = SummaryReplay(SummaryRun(shape, keys_of(shape), {m: 1.0 for m in SCORED}))
    figures = replay.predict(coefs or {})
    figures.update(measured_override)
    return SummaryRun(shape, keys_of(shape), figures)


def test_residuals_by_hand():
    # Two scored figures, the first predicted at twice its measured value: √(1/2)·[log 2, 0].
    r = residuals_of({"mean_ttft_ms": 200.0, "output_throughput": 5.0}, {"mean_ttft_ms": 100.0, "output_throughput": 5.0},
                     ("mean_ttft_ms", "output_throughput"))
    assert r == pytest.approx([math.log(2.0) / math.sqrt(2.0), 0.0], abs=1e-15)
    # A bootstrap count of 4 scales them by √4.
    r4 = residuals_of({"mean_ttft_ms": 50.0}, {"mean_ttft_ms": 100.0}, ("mean_ttft_ms",), weight=4.0)
    assert r4 == pytest.approx([2.0 * math.log(0.5)], abs=1e-15)


def test_constructed_run_residuals_through_the_replay():
    """A run measured at 2× the replay's TTFT and 0.8× its throughput, the rest exact: its
    residuals at the defaults are log(1/2)/√n and log(1/0.8)/√n, the others 0."""
    exact = run_at("mixed")
    measured = dict(exact.measured, mean_ttft_ms=2.0 * exact.measured["mean_ttft_ms"],
                    output_throughput=0.8 * exact.measured["output_throughput"])
    replay = SummaryReplay(SummaryRun("mixed", keys_of("mixed"), measured))
    problem = SummaryProblem([replay], (), replay.defaults)
    r = problem.residuals(np.zeros(0))
    n = len(SCORED)
    assert replay.scored == SCORED and len(r) == n
    expect = {m: 0.0 for m in SCORED}
    expect["mean_ttft_ms"] = math.log(0.5) / math.sqrt(n)
    expect["output_throughput"] = math.log(1 / 0.8) / math.sqrt(n)
    assert r == pytest.approx([expect[m] for m in SCORED], abs=1e-12)
    # Weight 0: not replayed, residuals 0.
    assert np.all(problem.residuals(np.zeros(0), None, np.zeros(1)) == 0.0)
    # The table's error %: 100·(pred − meas)/meas = −50% and +25%.
    t = run_table(replay, replay.defaults, replay.defaults)["figures"]
    assert t["mean_ttft_ms"]["error_before_pct"] == pytest.approx(-50.0, abs=1e-9)
    assert t["output_throughput"]["error_after_pct"] == pytest.approx(25.0, abs=1e-9)
    assert summary([run_table(replay, replay.defaults, replay.defaults)], "before")["worst_error_pct"] == -50.0


def test_replay_at_defaults_equals_lab_simulate_serving_bit_for_bit():
    run = run_at("mixed")
    report, _ = serving_report(keys_of("mixed"))
    for m in SCORED:
        assert run.measured[m] == float(report[m]), m
    # A coefficient moved: the replay equals simulate given that key.
    moved = SummaryReplay(run).predict({"coef_prefill_compute": 1.3, "frontend_request_ms": 6.0})
    report, _ = serving_report(dict(keys_of("mixed"), coef_prefill_compute="1.3", frontend_request_ms="6"))
    for m in SCORED:
        assert moved[m] == float(report[m]), m


def test_recovers_generating_coefficients_within_2_percent():
    """simulate at known coefficients -> take the summaries as measured -> calibrate from the
    defaults: each within 2% (the issue's self-check)."""
    truth = {"coef_prefill_compute": 1.25, "coef_decode_weights": 0.8, "frontend_request_ms": 8.0}
    runs = [run_at(s, truth) for s in SHAPES]
    cal = calibrate_summaries(runs, fit_keys=tuple(truth), scan=False)
    assert cal.converged, cal.message
    assert set(cal.fit_keys) == set(truth)
    for k, v in truth.items():
        assert abs(cal.coefficients[k] - v) / v < 0.02, (k, cal.coefficients[k], v)
    assert cal.defaults["coef_prefill_compute"] == 1.0  # the fit started elsewhere
    assert summary(cal.per_run, "after")["median_abs_error_pct"] < summary(cal.per_run, "before")[
        "median_abs_error_pct"]
    # What was not fitted stays at its default exactly.
    assert cal.coefficients["coef_step_s"] == cal.defaults["coef_step_s"]


def test_a_front_end_key_with_the_front_end_off_is_not_fitted_and_said_so():
    run = SummaryRun("decode", dict(keys_of("decode"), frontend="off"), run_at("decode").measured)
    cal = calibrate_summaries([run], fit_keys=("coef_decode_weights", "frontend_request_ms"), scan=False)
    assert cal.frozen["frontend_request_ms"] == "the front end is off in these runs (frontend=off)"
    assert cal.fit_keys == ("coef_decode_weights",) and "frontend_request_ms" not in cal.coefficients


def test_bad_input():
    with pytest.raises(ParamError, match="coefficient given"):
        SummaryReplay(SummaryRun("x", dict(keys_of("decode"), coef_step_s="1ms"), {"mean_ttft_ms": 1.0}))
    with pytest.raises(ParamError, match="no scored figure"):
        SummaryReplay(SummaryRun("x", keys_of("decode"), {"duration_s": 3.0}))
    with pytest.raises(ParamError, match="dataset"):
        SummaryReplay(SummaryRun("x", {"model": "qwen3-8b", "hardware": "h100-sxm"}, {"mean_ttft_ms": 1.0}))
    with pytest.raises(ParamError, match="fit_keys"):
        calibrate_summaries([run_at("decode")], fit_keys=("coef_nothing",))
    # A prompt the pool cannot hold (Qwen3-32B on one H100: 2,122 blocks, 33,952 tokens): the
    # run is refused and listed, the others fitted.
    big = SummaryRun("too-long", dict(keys_of("decode"), model="qwen3-32b", random_input_len="40000",
                                      num_prompts="1"), {"mean_ttft_ms": 1.0})
    replays, refused = replays_of([run_at("decode"), big])
    assert len(replays) == 1 and "too-long" in refused and "kv_pool_bytes" in refused["too-long"]


def test_bench_scores_what_the_fidelity_check_scores():
    sys.path.insert(0, BENCH)
    try:
        from fidelity_public import SCORED as fidelity_scored
    finally:
        sys.path.remove(BENCH)
    assert SCORED == fidelity_scored


def test_forward_selection_by_leave_one_run_out_takes_the_moved_key_only():
    """Runs generated with only the prefill term moved (×1.3): at the defaults every run
    is off; a fit of coef_prefill_compute to two runs predicts the third (≈ 0 error), so
    it is taken first, and coef_decode_weights then gains nothing and is not."""
    runs = [run_at(s, {"coef_prefill_compute": 1.3}) for s in SHAPES]
    none = leave_one_out(runs, ())
    assert none["median_abs_error_pct"] > 1.0 and len(none["errors_pct"]) == 3 * len(SCORED)
    one = leave_one_out(runs, ("coef_prefill_compute",))
    assert one["median_abs_error_pct"] < 0.5
    keys, rounds = select_keys(runs, ("coef_decode_weights", "coef_prefill_compute"))
    assert keys == ("coef_prefill_compute",)
    assert rounds[1]["took"] == "coef_prefill_compute" and rounds[2]["took"] is None


def _runs_toml(runs: list[SummaryRun], split_last: bool = False) -> str:
    out = []
    for i, r in enumerate(runs):
        k = dict(r.keys)
        work = {n: k.pop(n) for n in list(k) if n not in ("model", "hardware")}
        out.append("[[runs]]\n" f'id = "{r.id}"\nmodel = "{k["model"]}"\nhardware = "{k["hardware"]}"\n'
                   + ('split = "validation"\n' if split_last and i == len(runs) - 1 else "")
                   + "workload = {" + ", ".join(f'{n} = "{v}"' for n, v in work.items()) + "}\n"
                   + "measured = {" + ", ".join(f"{m} = {v!r}" for m, v in r.measured.items()) + "}\n")
    return "\n".join(out)


def test_summaries_file_to_a_profile_that_simulate_takes(tmp_path, capsys):
    """A runs file (public_runs' layout) -> a profile: its coefficients recover the ones the
    'measured' figures were simulated at, and hardware=PROFILE.toml replays as those keys."""
    truth = {"coef_prefill_compute": 1.25, "coef_decode_weights": 0.8, "frontend_request_ms": 8.0}
    runs = [run_at(s, truth) for s in SHAPES] + [run_at("decode")]  # the last: validation, not fitted
    path = tmp_path / "runs.toml"
    path.write_text(_runs_toml(runs, split_last=True))
    assert [r.id for r in load_summary_runs(str(path))] == list(SHAPES)
    out = tmp_path / "p.toml"
    assert cli_run(str(path), str(out), True, ",".join(truth), 0) == 0
    printed = json.loads(capsys.readouterr().out)
    assert printed["converged"] and printed["profile"] == str(out)
    prof = load_profile(out)
    assert prof.model == "qwen3-8b" and prof.hardware == "h100-sxm"
    for k, v in truth.items():
        assert abs(prof.coefficients[k] - v) / v < 0.02
    report, _ = serving_report(dict(keys_of("mixed"), hardware=str(out)))
    want = SummaryReplay(runs[2]).predict(prof.coefficients)
    for m in SCORED:
        assert float(report[m]) == want[m], m


def test_summaries_file_of_two_models_is_refused(tmp_path):
    runs = [run_at("decode"), SummaryRun("b", dict(keys_of("decode"), model="qwen3-14b"), run_at("decode").measured)]
    path = tmp_path / "runs.toml"
    path.write_text(_runs_toml(runs))
    with pytest.raises(ParamError, match="different models"):
        cli_run(str(path), None, True, None, 0)
    with pytest.raises(ParamError, match="no 'measured'"):
        (tmp_path / "bad.toml").write_text('[[runs]]\nmodel = "qwen3-8b"\nhardware = "h100-sxm"\nworkload = {}\n')
        load_summary_runs(str(tmp_path / "bad.toml"))


def test_bootstrap_over_runs_of_exact_figures_draws_the_truth():
    """Every resampling of runs simulated at one coefficient is fitted by that coefficient:
    each draw, and so the p5-p95 band, within 2% of it."""
    runs = [run_at(s, {"coef_prefill_compute": 1.25}) for s in ("prefill", "mixed")]
    cal = calibrate_summaries(runs, fit_keys=("coef_prefill_compute",), bootstrap=4, scan=False)
    assert len(cal.samples) == 4 and set(cal.samples[0]) == {"coef_prefill_compute"}
    for s in cal.samples:
        assert abs(s["coef_prefill_compute"] - 1.25) / 1.25 < 0.02
    lo, mid, hi = cal.bands["coef_prefill_compute"]
    assert lo <= mid <= hi and abs(lo - 1.25) / 1.25 < 0.02 and abs(hi - 1.25) / 1.25 < 0.02
