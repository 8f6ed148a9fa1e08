"""Measured against simulated: when the replayed trace is a `vllm bench serve --save-result`
JSON, its measured TTFTs and gaps between tokens (workload.meta["measured"]) are drawn as
distributions beside the replay's own, one axis each for TTFT and ITL.

Both as CDFs (the fraction of samples at or below x, in ms): two sample sets of different
sizes compare directly, and the medians and tails read off the same curve. The replay's
ITL samples come weighted (core.serving.vllm_metrics.itl_samples: a gap and how many
tokens had it), so its CDF is a weighted one; the measured gaps are a plain list.
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from core.serving import vllm_metrics

CDF_POINTS = 800  # points per drawn curve (evenly spaced in rank, the last one kept)
QUANTILES = (50, 90, 99)
X_TAIL_Q = 99  # the x axis runs to the larger of the two p99s (the last 1% would flatten the rest)


def measured_samples(meta: Mapping[str, Any] | None) -> dict[str, np.ndarray] | None:
    """{'ttft': seconds, 'itl': seconds} of a vllm bench run's measured values, or None
    when the workload carries none."""
    measured = (meta or {}).get("measured")
    if not measured:
        return None
    ttft = np.asarray(_or_empty(measured.get("ttfts_s")), dtype=float).ravel()
    gaps = [np.asarray(g, dtype=float).ravel() for g in _or_empty(measured.get("itls_s")) if len(g)]
    itl = np.concatenate(gaps) if gaps else np.zeros(0)
    ttft, itl = ttft[np.isfinite(ttft) & (ttft >= 0)], itl[np.isfinite(itl) & (itl >= 0)]
    if ttft.size == 0 and itl.size == 0:
        return None
    return {"ttft": ttft, "itl": itl}


def _or_empty(values):
    """A list or array as it is, None as an empty list (an array has no truth value)."""
    return [] if values is None else values


def weighted_cdf(values: np.ndarray, weights: np.ndarray | None = None,
                 points: int = CDF_POINTS) -> tuple[np.ndarray, np.ndarray]:
    """(x sorted, fraction of the weight at or below x), at most `points` of them."""
    values = np.asarray(values, dtype=float)
    weights = np.ones(values.size) if weights is None else np.asarray(weights, dtype=float)
    keep = weights > 0
    values, weights = values[keep], weights[keep]
    if values.size == 0:
        return np.zeros(0), np.zeros(0)
    order = np.argsort(values, kind="stable")
    x, cum = values[order], np.cumsum(weights[order])
    y = cum / cum[-1]
    if x.size > points:
        idx = np.unique(np.linspace(0, x.size - 1, points).astype(np.int64))
        x, y = x[idx], y[idx]
    return x, y


def cdf_steps(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The empirical CDF as drawn: flat between samples, a rise at each, from 0 at the first
    (points joined by straight lines would start a 3-sample CDF at 1/3 and slope between)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if x.size == 0:
        return x, y
    return np.repeat(x, 2), np.concatenate(([0.0], np.repeat(y, 2)[:-1]))


def _quantiles(values: np.ndarray, weights: np.ndarray | None) -> list[float]:
    if values.size == 0:
        return [float("nan")] * len(QUANTILES)
    if weights is None:
        return [float(v) for v in np.percentile(values, QUANTILES)]
    return vllm_metrics.weighted_percentiles(values, weights, QUANTILES)


def _panel(name: str, measured: np.ndarray, simulated: np.ndarray, weights: np.ndarray | None) -> dict:
    """One axis: both CDFs in ms, the x range, and a note with p50/p90/p99 of each."""
    m_ms, s_ms = measured * 1e3, simulated * 1e3
    mx, my = weighted_cdf(m_ms)
    sx, sy = weighted_cdf(s_ms, weights)
    mq, sq = _quantiles(m_ms, None), _quantiles(s_ms, weights)
    tails = [q for q in (mq[-1], sq[-1]) if np.isfinite(q)]
    x_max = max(max(tails, default=1.0) * 1.1, 1e-3)
    # Each line a "中文 · English" pair (the panel shows one side; no catalog entry needed).
    parts = [f"p{q}:实测 {_fmt(a)},模拟 {_fmt(b)} ms · p{q}: measured {_fmt(a)}, simulated {_fmt(b)} ms"
             for q, a, b in zip(QUANTILES, mq, sq)]
    return {"name": name, "measured": (mx, my), "simulated": (sx, sy), "x_range": (0.0, x_max),
            "measured_steps": cdf_steps(mx, my), "simulated_steps": cdf_steps(sx, sy),
            "measured_n": int(m_ms.size), "simulated_n": int(s_ms.size if weights is None else np.sum(weights)),
            "quantiles": {"measured": mq, "simulated": sq}, "note": "\n".join(parts)}


def _fmt(v: float) -> str:
    if not np.isfinite(v):
        return "—"
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.1f}"


def overlay_figure(meta: Mapping[str, Any] | None, result, cost=None) -> dict | None:
    """The TTFT and ITL panels of a replay (its ReplayResult) against the measured run in
    meta, or None when there is nothing measured."""
    measured = measured_samples(meta)
    if measured is None:
        return None
    gaps, weights = vllm_metrics.itl_samples(result, cost)
    return {"ttft": _panel("TTFT", measured["ttft"], np.asarray(result.ttft_s, dtype=float), None),
            "itl": _panel("ITL", measured["itl"], np.asarray(gaps, dtype=float), np.asarray(weights))}
