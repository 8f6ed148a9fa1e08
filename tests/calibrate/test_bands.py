"""Predictions with uncertainty bands (core/calibrate/bands.py): percentiles by hand, the
probability of meeting the SLOs on constructed cases, and on real replays of constructed
coefficient sets."""
from __future__ import annotations

import numpy as np
import pytest

from core.calibrate import bands
from core.registry import ParamError
from core.serving.headless import serving_report
from core.serving.vllm_metrics import meets_slo

# A light load on one H100 (240 requests over two minutes): TPOT is the fixed per-step time
# plus the weights' read and the prompts' chunks beside the decodes, so it grows with
# coef_step_s and an SLO on it splits the sets. SLO: TPOT <= 30 ms, met by >= 90% of the
# requests of the three fastest sets (100%) and not of the two slowest (60%, 23%), with the
# card's compute at its achieved peak (step_defaults.CARD_COMPUTE_EFFICIENCY, Hopper BF16
# 0.74) and the decode reads held at 1: at an H100's own (CARD_DECODE_READ) the KV reads of
# these long prompts spread the TPOTs so wide that no set has 90% of them under one SLO.
BASE = {"model": "qwen3-8b", "hardware": "h100-sxm", "rates_per_s": "2,2", "coef_decode_weights": "1",
        "coef_decode_kv": "1"}
STEPS = (0.5e-3, 1e-3, 2e-3, 4e-3, 8e-3)  # coef_step_s of five constructed sets, rising
SLO_TPOT_MS = 30.0


def test_percentile_band_is_numpys_linear_interpolation_by_hand():
    band = bands.percentile_band([float(v) for v in range(20, 0, -1)])  # 1..20, unsorted
    # h = q/100 · (n − 1): p5 at 0.95 → 1 + 0.95; p50 at 9.5 → 10.5; p95 at 18.05 → 19.05.
    assert band == pytest.approx({"p5": 1.95, "p50": 10.5, "p95": 19.05}, abs=1e-12)
    assert bands.percentile_band([3.0]) == {"p5": 3.0, "p50": 3.0, "p95": 3.0}
    assert bands.percentile_band([]) is None
    assert bands.percentile_band([None, float("nan"), 2.0, 4.0]) == pytest.approx({"p5": 2.1, "p50": 3.0, "p95": 3.9})


def test_probability_is_the_share_of_sets_whose_run_meets_the_slos():
    runs = [({"median_ttft_ms": 10.0}, s) for s in (1.0, 0.95, 0.85, 0.9, 0.5)]
    out = bands.bands_from_runs(runs, attainment=0.9)
    assert out["meets_slo_probability"] == pytest.approx(3 / 5)  # 1.0, 0.95 and 0.9 (>= is met)
    assert out["band_samples"] == 5 and out["attainment"] == 0.9
    assert out["bands"]["slo_attainment"]["p50"] == 0.9
    assert bands.bands_from_runs(runs, attainment=0.5)["meets_slo_probability"] == 1.0
    no_slo = bands.bands_from_runs([({"median_ttft_ms": 1.0}, None)] * 3)
    assert no_slo["meets_slo_probability"] is None and "slo_attainment" not in no_slo["bands"]


def test_explicit_keys_win_over_a_coefficient_set():
    raw = {"model": "m", "coef_seq_s": "2e-05"}
    out = bands.coefficient_raw(raw, {"coef_seq_s": 1e-5, "overhead_s": 3e-3, "prefill_mfu": 0.4})
    assert out == {"model": "m", "coef_seq_s": "2e-05", "coef_step_s": "0.003", "prefill_mfu": "0.4"}
    assert raw == {"model": "m", "coef_seq_s": "2e-05"}  # not changed in place


def test_band_keys_are_checked_and_popped():
    raw = {"band_samples": "7", "attainment": "0.8", "model": "m"}
    assert bands.parse_band_keys(raw) == (7, 0.8) and raw == {"model": "m"}
    assert bands.parse_band_keys({}) == (bands.DEFAULT_SAMPLES, bands.DEFAULT_ATTAINMENT)
    for key, bad in (("band_samples", "-1"), ("band_samples", "2.5"), ("attainment", "0"), ("attainment", "x")):
        with pytest.raises(ParamError) as err:
            bands.parse_band_keys({key: bad})
        assert err.value.param == key and "valid:" in str(err.value)


def _separate_runs(raw: dict):
    """The five sets replayed one by one, as plain `lab simulate serving` runs."""
    return [serving_report(dict(raw, coef_step_s=repr(c))) for c in STEPS]


def test_bands_over_real_replays_equal_the_separate_runs():
    slo = {"slo_tpot_ms": repr(SLO_TPOT_MS)}
    runs = _separate_runs(dict(BASE, **slo))
    tpots = np.array([r["median_tpot_ms"] for r, _ in runs])
    assert np.all(np.diff(tpots) > 0)  # the sets are ordered: a larger step time, a slower token
    shares = [float(meets_slo(res, slo_tpot_ms=SLO_TPOT_MS).mean()) for _, (res, _) in runs]
    # Constructed so that the three fastest sets meet the SLO (>= 90% of requests) and the two slowest do not.
    assert [s >= 0.9 for s in shares] == [True, True, True, False, False]

    samples = [{"coef_step_s": c} for c in STEPS]
    report, _ = bands.banded_report(dict(BASE, **slo), samples=samples)
    assert report["meets_slo_probability"] == pytest.approx(3 / 5)
    band = report["bands"]["median_tpot_ms"]
    # Five values, sorted as the sets: p5 at h = 0.2, p50 the third, p95 at h = 3.8.
    assert band["p5"] == pytest.approx(tpots[0] + 0.2 * (tpots[1] - tpots[0]), rel=1e-12)
    assert band["p50"] == tpots[2]
    assert band["p95"] == pytest.approx(tpots[3] + 0.8 * (tpots[4] - tpots[3]), rel=1e-12)
    assert report["bands"]["slo_attainment"]["p50"] == sorted(shares)[2]
    # The point estimate is the keys' own replay (default coef_step_s), untouched by the sets.
    plain, _ = serving_report(dict(BASE, **slo))
    assert report["median_tpot_ms"] == plain["median_tpot_ms"]


def test_band_samples_takes_the_first_b_sets_and_explicit_keys_hold_them_fixed():
    samples = [{"coef_step_s": c} for c in STEPS]
    report, _ = bands.banded_report(dict(BASE, band_samples="2", slo_tpot_ms=repr(SLO_TPOT_MS)), samples=samples)
    assert report["band_samples"] == 2 and report["meets_slo_probability"] == 1.0  # the two fastest
    fixed, _ = bands.banded_report(dict(BASE, coef_step_s="0.004"), samples=samples)
    b = fixed["bands"]["median_tpot_ms"]
    assert b["p5"] == b["p50"] == b["p95"] == fixed["median_tpot_ms"]
    none, _ = bands.banded_report(dict(BASE, band_samples="0"), samples=samples)
    assert "bands" not in none


def test_band_keys_without_coefficient_sets_are_refused():
    for key, value in (("band_samples", "5"), ("attainment", "0.8")):
        with pytest.raises(ParamError) as err:
            bands.banded_report(dict(BASE, **{key: value}))
        assert err.value.param == key and "profile=" in str(err.value)


def test_meets_means_the_same_in_simulate_sweep_and_search():
    from core.sweep import spec

    assert bands.DEFAULT_ATTAINMENT == spec.DEFAULT_ATTAINMENT == spec.DEFAULT_CONFIDENCE
