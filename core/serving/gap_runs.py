"""Inter-token gaps held compactly: explicit gaps with whole-number weights, plus runs of
lockstep decode steps whose step times rise linearly (gap j of a run = first + slope·j,
j = 0..steps−1, each counted `rows` times). A replay of long outputs has tens of millions
of gaps but only as many runs as its series has entries, so the statistics vLLM reports
(mean, median, std, p90, p99) are computed here without expanding the runs:

- the mean and variance in closed form over each run (Σ j and Σ j² of 0..k−1);
- a percentile by selecting the elements at its two ranks (core/serving/gap_select.py:
  a bracket of values halved until it holds few enough gaps to sort). Each gap is
  evaluated as the expansion computes it (first + slope·float(j)), so the elements selected are the expansion's own and the percentiles equal np.percentile of
  the expanded list bit for bit; mean and std agree to rounding (a different summation).

Small sets are expanded and go through weighted_stats as before (bit for bit the old
figures); EXPAND_MAX bounds what is ever materialised. No Qt here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from core.serving.gap_select import Selector

# At most this many gaps are ever built as an array (8 bytes each, a few arrays at once).
EXPAND_MAX = 1 << 21


@dataclass(frozen=True)
class Gaps:
    values: np.ndarray  # explicit gaps, s
    weights: np.ndarray  # int64, how often each occurs
    first: np.ndarray  # per run: its first step's gap, s
    slope: np.ndarray  # per run: how much each next step's gap adds, s
    steps: np.ndarray  # int64 per run: its steps (k)
    rows: np.ndarray  # int64 per run: decode rows, each step's weight
    after: np.ndarray = field(default_factory=lambda: np.zeros(0))  # explicit, listed after the runs, s
    after_weights: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int64))

    @classmethod
    def explicit(cls, values, weights) -> Gaps:
        e = np.zeros(0)
        return cls(np.asarray(values, dtype=float), np.asarray(weights, dtype=np.int64), e, e,
                   np.zeros(0, np.int64), np.zeros(0, np.int64))

    def then(self, values, weights) -> Gaps:
        """These gaps and more explicit ones listed after them."""
        return replace(self, after=np.concatenate([self.after, np.asarray(values, dtype=float)]),
                       after_weights=np.concatenate([self.after_weights, np.asarray(weights, dtype=np.int64)]))

    def flat(self) -> tuple[np.ndarray, np.ndarray]:
        """Every explicit gap with its weight."""
        return np.concatenate([self.values, self.after]), np.concatenate([self.weights, self.after_weights])

    @property
    def size(self) -> int:
        """Entries the expansion has (its array length, not Σ weights)."""
        return int(self.values.size + self.after.size + self.steps.sum())

    @property
    def count(self) -> int:
        """Σ weights of the expansion: how many gaps there are."""
        return int(self.weights.sum() + self.after_weights.sum() + np.sum(self.steps * self.rows))

    def expanded(self) -> tuple[np.ndarray, np.ndarray]:
        """(gaps, weights) as arrays: the explicit ones, each run's steps in order, the after ones."""
        k = self.steps
        j = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)  # 0..k-1 within each run
        run = np.repeat(self.first, k) + np.repeat(self.slope, k) * j
        return (np.concatenate([self.values, run, self.after]),
                np.concatenate([self.weights, np.repeat(self.rows, k), self.after_weights]).astype(np.int64))

    def total(self) -> float:
        """Σ gap · weight: the expansion's np.sum when small, closed form otherwise."""
        if self.size <= EXPAND_MAX:
            v, w = self.expanded()
            return float(np.sum(v * w))  # not np.dot: see vllm_metrics.weighted_stats
        k = self.steps.astype(float)
        runs = self.rows * (k * self.first + self.slope * k * (k - 1) / 2)
        values, weights = self.flat()
        return float(np.sum(values * weights) + np.sum(runs))


def gap_stats(gaps: Gaps, stats_of, percentiles) -> dict[str, float]:
    """mean, median, std and the percentiles of the expansion. stats_of: weighted_stats,
    used as is on sets small enough to expand."""
    if gaps.size <= EXPAND_MAX:
        return stats_of(*gaps.expanded())
    total = gaps.count
    if total == 0:
        return stats_of(np.zeros(0), np.zeros(0, np.int64))
    mean = gaps.total() / total
    k, n = gaps.steps.astype(float), gaps.rows.astype(float)
    d = gaps.first - mean
    s1, s2 = k * (k - 1) / 2, (k - 1) * k * (2 * k - 1) / 6  # Σ j, Σ j² over 0..k-1
    runs = n * (k * d * d + 2 * d * gaps.slope * s1 + gaps.slope ** 2 * s2)
    values, weights = gaps.flat()
    var = float((np.sum((values - mean) ** 2 * weights) + np.sum(runs)) / total)
    qs = (50,) + tuple(percentiles)
    at = dict(zip(qs, percentile_list(gaps, qs)))
    out = {"mean": mean, "median": at[50], "std": math.sqrt(max(var, 0.0))}
    for p in percentiles:
        out[f"p{p}"] = at[p]
    return out


def percentile(gaps: Gaps, q: float) -> float:
    """np.percentile of the expansion (linear interpolation) without building it."""
    return percentile_list(gaps, (q,))[0]


def percentile_list(gaps: Gaps, qs) -> list[float]:
    """percentile for each q, sharing one selector (and its sketch)."""
    values, weights = gaps.flat()
    selector = Selector(values, weights, gaps.first, gaps.slope, gaps.steps, gaps.rows)
    n = selector.total
    if n == 0:
        return [0.0 for _ in qs]
    out = []
    for q in qs:
        h = q / 100.0 * (n - 1)
        lo = math.floor(h)
        hi = min(lo + 1, n - 1)
        v_lo = selector.at_rank(lo)
        v_hi = v_lo if selector.count_le(v_lo) > hi else selector.next_above(v_lo)
        out.append(float(v_lo + (h - lo) * (v_hi - v_lo)))
    return out
