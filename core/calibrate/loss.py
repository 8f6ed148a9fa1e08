"""The calibration's loss: what a fit makes small, as residuals for least squares.

Per run, per completed request, for TTFT, TPOT (requests with more than one output token)
and E2E: log(predicted / measured), scaled by √(w_i / Σw) (w: the request's bootstrap
count, 1 for the point fit), so each run's per-request part is the mean of its squared
log errors whatever its size. Plus, per run, log(predicted / measured) of the median and
p90 of each of the three (weighted percentiles): the figures a user reads. Each
metric's terms carry METRIC_WEIGHTS; each run's RUN_WEIGHT (a bootstrap count for runs).

Why logs: errors are relative (a TTFT of 20 ms off by 10 ms is as wrong as one of 2 s off
by 1 s), and a step-time multiplier enters a latency as a factor. Why robust (least
squares' soft_l1 with f_scale ROBUST_SCALE): a request that stalled on a busy host (the
shared 2-core machine moved medians 1.7-2.9× run to run) counts linearly, not squared.
A request delivered in one chunk counts by its E2E alone (measured_arrays). ITL is
reported but not fitted: the replay's gaps are per step, not per request (a request
bootstrap cannot reweight them); TPOT carries each request's mean gap.
"""
from __future__ import annotations

import numpy as np

from core.calibrate.replayer import EPS_S, Prediction
from core.serving.vllm_metrics import weighted_percentile

FITTED = ("ttft", "tpot", "e2e")
METRIC_WEIGHTS = {"ttft": 1.0, "tpot": 1.0, "e2e": 1.0}
PERCENTILE_WEIGHT = 1.0
PERCENTILES = (50, 90)
ROBUST_SCALE = 0.1  # log units: beyond ~10% off a term counts linearly


def measured_arrays(run) -> dict[str, np.ndarray]:
    """The run's latencies as the fit reads them: a request whose tokens all came in one chunk
    (every gap 0: the API server or the client read them together) measured its end, not its
    first token or its pace, so its TTFT and TPOT are left out (nan) and its E2E kept."""
    one = np.array([len(g) > 0 and not np.any(np.asarray(g) > 0) for g in run.itl_s], dtype=bool) \
        if len(run.itl_s) == len(run) else np.zeros(len(run), dtype=bool)
    ttft = np.where(one, np.nan, np.asarray(run.ttft_s, dtype=float))
    tpot = np.where(one, np.nan, np.asarray(run.tpot_s, dtype=float))
    return {"ttft": ttft, "tpot": tpot, "e2e": np.asarray(run.e2e_s, dtype=float)}


def predicted_arrays(p: Prediction) -> dict[str, np.ndarray]:
    return {"ttft": p.ttft_s, "tpot": p.tpot_s, "e2e": p.e2e_s}


def size(run) -> int:
    """The residuals one run gives: one per request per metric, two percentiles each."""
    return len(run) * len(FITTED) + len(FITTED) * len(PERCENTILES)


def run_residuals(measured: dict, predicted: dict, counts: np.ndarray, run_weight: float = 1.0) -> np.ndarray:
    """Residuals of one run (length size(run)); counts: per-request weights (0: left out)."""
    parts = []
    counts = np.asarray(counts, dtype=float)
    for name in FITTED:
        meas = np.asarray(measured[name], dtype=float)
        pred = np.asarray(predicted[name], dtype=float)
        ok = np.isfinite(meas) & np.isfinite(pred)
        w = np.where(ok, counts, 0.0)
        total = w.sum()
        r = np.zeros(meas.size)
        if total > 0:
            r[ok] = np.log(np.maximum(pred[ok], EPS_S) / np.maximum(meas[ok], EPS_S))
            r *= np.sqrt(w / total)
        parts.append(METRIC_WEIGHTS[name] * r)
    for name in FITTED:
        meas = np.asarray(measured[name], dtype=float)
        pred = np.asarray(predicted[name], dtype=float)
        ok = np.isfinite(meas) & np.isfinite(pred) & (counts > 0)
        out = np.zeros(len(PERCENTILES))
        if ok.any():
            w = counts[ok].astype(np.int64)
            for i, q in enumerate(PERCENTILES):
                a = weighted_percentile(meas[ok], w, q)
                b = weighted_percentile(pred[ok], w, q)
                out[i] = np.log(max(b, EPS_S) / max(a, EPS_S))
        parts.append(PERCENTILE_WEIGHT * METRIC_WEIGHTS[name] * out)
    return np.sqrt(run_weight) * np.concatenate(parts)


def robust_cost(residuals: np.ndarray) -> float:
    """least_squares' soft_l1 cost of these residuals at ROBUST_SCALE (its .cost)."""
    z = (np.asarray(residuals) / ROBUST_SCALE) ** 2
    return float(0.5 * ROBUST_SCALE ** 2 * np.sum(2.0 * (np.sqrt(1.0 + z) - 1.0)))
