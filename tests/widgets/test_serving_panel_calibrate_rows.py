"""The Calibrate section's figures and rows by hand: CDFs (weighted, decimated), the
metrics table's cells and errors, the coefficients' text and the median |error|."""
import math

import numpy as np

from widgets.serving.calibrate_rows import METRICS, cdf, coef_text, coefficient_rows, median_abs_error, metric_rows


def test_cdf_by_hand():
    c = cdf([0.003, 0.001, float("nan"), 0.002])
    assert c.n == 3
    assert np.allclose(c.x_ms, [1.0, 2.0, 3.0]) and np.allclose(c.y, [1 / 3, 2 / 3, 1.0])


def test_weighted_cdf_counts_each_gap_its_weight():
    c = cdf([0.010, 0.020], weights=[3, 1])  # three gaps of 10 ms, one of 20 ms
    assert np.allclose(c.x_ms, [10.0, 20.0]) and np.allclose(c.y, [0.75, 1.0])


def test_a_long_cdf_is_drawn_at_most_points_steps_and_ends_at_one():
    c = cdf(np.arange(1, 10_001) / 1000.0, points=100)
    assert len(c.x_ms) <= 101 and c.y[-1] == 1.0 and c.x_ms[-1] == 10_000.0
    assert np.all(np.diff(c.x_ms) > 0) and c.n == 10_000
    # Each kept step is a true point of the full CDF: value k/1000 s has fraction k/10000.
    assert np.allclose(c.y, c.x_ms / 10_000.0)


def _entry(run, measured, before, after):
    def side(p):
        return {name: {"measured": measured, "predicted": p, "error_pct": (p - measured) / measured * 100}
                for name, _ in METRICS}
    return {"run": run, "before": side(before), "after": side(after)}


def test_metric_rows_by_hand():
    rows = metric_rows([_entry("low", 40.0, 30.0, 41.0)])
    assert len(rows) == len(METRICS) and rows[0][0] == "TTFT p50"
    assert rows[0][1] == ("40.0", "30.0", "-25.0%", "41.0", "+2.5%")
    two = metric_rows([_entry("low", 40.0, 30.0, 41.0), _entry("high", 10.0, 12.0, 10.0)])
    assert two[len(METRICS)][0] == "high · TTFT p50" and two[len(METRICS)][1][4] == "+0.0%"


def test_median_abs_error_over_every_metric():
    per_run = [_entry("low", 40.0, 30.0, 41.0), _entry("high", 10.0, 12.0, 10.0)]
    assert math.isclose(median_abs_error(per_run, "before"), (25.0 + 20.0) / 2)
    assert math.isclose(median_abs_error(per_run, "after"), (2.5 + 0.0) / 2)


def test_coefficients_with_their_bands_in_the_fit_s_order():
    rows = coefficient_rows({"coef_step_s": 0.0009, "coef_prefill_compute": 1.0},
                            {"coef_step_s": 0.0018, "coef_prefill_compute": 0.97},
                            {"coef_step_s": (0.0017, 0.0018, 0.0019)})
    assert rows[0] == ("coef_step_s", ("9.000e-04", "1.800e-03", "1.700e-03", "1.900e-03"))
    assert rows[1] == ("coef_prefill_compute", ("1", "0.97", "—", "—"))  # fitted without a band
    assert coef_text(float("nan")) == "—" and coef_text(12345.0) == "1.234e+04"
