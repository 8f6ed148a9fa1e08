"""What the Serving panel's Calibrate section draws, as plain data (no Qt): the measured
run's TTFT and ITL distributions beside the replay's before and after the fit (CDFs), the
per-run metrics table (measured, before, after, errors) and the coefficients with their
bands (p5-p95). Made on the job runner from a core.calibrate Calibration."""
from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from core.cancel import NEVER, CancelToken

CDF_POINTS = 800  # a CDF's drawn steps, at most (a run's ITL has tens of thousands of samples)
# The per-run metrics shown, in core.calibrate's names, with their labels.
METRICS = (("median_ttft_ms", "TTFT p50"), ("p90_ttft_ms", "TTFT p90"), ("median_tpot_ms", "TPOT p50"),
           ("median_itl_ms", "ITL p50"), ("median_e2el_ms", "E2EL p50"), ("p90_e2el_ms", "E2EL p90"))
METRIC_COLUMNS = ("实测 · measured", "校准前 · before", "误差 · error", "校准后 · after", "误差 · error ")
COEF_COLUMNS = ("默认 · default", "拟合 · fitted", "p5", "p95")


@dataclass(frozen=True)
class Cdf:
    x_ms: np.ndarray
    y: np.ndarray
    n: int


@dataclass(frozen=True)
class CompareFigure:
    """One run's measured TTFT and ITL against its replay before and after the fit."""

    run: str
    ttft: Mapping[str, Cdf]  # "measured", "before", "after"
    itl: Mapping[str, Cdf]

    def x_range(self, key: str) -> tuple[float, float]:
        """The range every curve of the panel shows, cut at the 99th percentile of the
        largest (a long tail would squash the rest to the left edge)."""
        panel = getattr(self, key)
        ends = [float(np.interp(0.99, c.y, c.x_ms)) for c in panel.values() if c.n]
        return 0.0, max(ends, default=1.0) * 1.05 or 1.0


def cdf(values_s, weights=None, points: int = CDF_POINTS) -> Cdf:
    """The empirical CDF of values (seconds, drawn in ms; nan dropped), weighted when
    weights are given (ITL gaps counted as vllm bench counts them), at most `points` steps."""
    v = np.asarray(values_s, dtype=float)
    w = np.ones(v.size) if weights is None else np.asarray(weights, dtype=float)
    keep = np.isfinite(v) & (w > 0)
    v, w = v[keep], w[keep]
    if v.size == 0:
        return Cdf(np.zeros(0), np.zeros(0), 0)
    order = np.argsort(v, kind="stable")
    v, y = v[order], np.cumsum(w[order]) / np.sum(w)
    if v.size > points:  # the steps at evenly spaced fractions: the curve's shape, not its samples
        at = np.searchsorted(y, np.linspace(0, 1, points), side="left").clip(0, v.size - 1)
        at = np.unique(np.append(at, v.size - 1))
        v, y = v[at], y[at]
    return Cdf(v * 1e3, y, int(keep.sum()))


def compare_figure(run, before, after) -> CompareFigure:
    """run: a core.calibrate MeasuredRun; before, after: its replay's Predictions."""
    measured_itl = np.concatenate(run.itl_s) if len(run.itl_s) else np.zeros(0)
    return CompareFigure(
        run=run.label,
        ttft={"measured": cdf(run.ttft_s), "before": cdf(before.ttft_s), "after": cdf(after.ttft_s)},
        itl={"measured": cdf(measured_itl), "before": cdf(before.itl_gaps_s, before.itl_weights),
             "after": cdf(after.itl_gaps_s, after.itl_weights)})


def first_run_figure(cal, paths: Sequence[str], raw: Mapping[str, str],
                     cancel: CancelToken = NEVER) -> CompareFigure | None:
    """The first run replayed with the defaults and with the fitted coefficients (two
    replays, on the worker); None when the calibration kept the defaults."""
    from core.calibrate.replayer import RunReplay
    from core.calibrate.runs import load_runs

    run = load_runs(list(paths[:1]))[0]
    replayer = RunReplay(run, dict(raw))
    cancel.check()
    before = replayer.predict(dict(cal.defaults))
    cancel.check()
    after = replayer.predict(dict(cal.coefficients)) if cal.converged else before
    return compare_figure(run, before, after)


def _ms(value) -> str:
    return "—" if value is None or not math.isfinite(float(value)) else f"{float(value):,.1f}"


def _pct(value) -> str:
    return "—" if value is None or not math.isfinite(float(value)) else f"{float(value):+.1f}%"


def metric_rows(per_run: Sequence[Mapping]) -> list[tuple[str, tuple[str, ...]]]:
    """(row label, cells) for each run and metric: measured, before and its error, after
    and its error (ms; error = (predicted − measured) / measured)."""
    rows = []
    for entry in per_run:
        for name, label in METRICS:
            b = entry["before"].get(name)
            a = entry["after"].get(name) if entry.get("after") else None
            if b is None:
                continue
            a = a or {}
            rows.append((f"{entry['run']} · {label}" if len(per_run) > 1 else label,
                         (_ms(b["measured"]), _ms(b["predicted"]), _pct(b["error_pct"]),
                          _ms(a.get("predicted")), _pct(a.get("error_pct")))))
    return rows


def coef_text(value) -> str:
    """A coefficient in 4 significant figures (seconds in engineering form: 9.00e-04)."""
    if value is None or not math.isfinite(float(value)):
        return "—"
    v = float(value)
    return f"{v:.3e}" if v != 0 and (abs(v) < 1e-2 or abs(v) >= 1e4) else f"{v:.4g}"


def coefficient_rows(defaults: Mapping[str, float], fitted: Mapping[str, float],
                     bands: Mapping[str, Sequence[float]]) -> list[tuple[str, tuple[str, ...]]]:
    """(name, cells) of each fitted coefficient: its default, fitted value, p5 and p95."""
    rows = []
    for name in [k for k in fitted if k in bands] + [k for k in fitted if k not in bands]:
        band = bands.get(name)
        p5, p95 = (band[0], band[-1]) if band else (None, None)
        rows.append((name, (coef_text(defaults.get(name)), coef_text(fitted[name]), coef_text(p5), coef_text(p95))))
    return rows


def median_abs_error(per_run: Sequence[Mapping], side: str) -> float | None:
    """The median |error| (%) over every run's metrics on one side ("before" or "after")."""
    errs = [abs(float(m["error_pct"])) for entry in per_run for m in (entry.get(side) or {}).values()
            if math.isfinite(float(m["error_pct"]))]
    return float(np.median(errs)) if errs else None
