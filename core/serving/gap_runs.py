"""Inter-token gaps held compactly: explicit gaps with whole-number weights, plus runs of
lockstep decode steps whose step times rise linearly (gap j of a run = first + slope·j,
j = 0..steps−1, each counted `rows` times). A replay of long outputs has tens of millions
of gaps but only as many runs as its series has entries, so the statistics vLLM reports
(mean, median, std, p90, p99) are computed here without expanding the runs:

- the mean and variance in closed form over each run (Σ j and Σ j² of 0..k−1);
- a percentile by selecting the elements at its two ranks: a bisection over the float
  values (as ordered integers), counting per run how many of its gaps are <= a value.
  Each gap is evaluated as the expansion computes it (first + slope·float(j)), so the
  elements selected are the expansion's own and the percentiles equal np.percentile of
  the expanded list bit for bit; mean and std agree to rounding (a different summation).

Small sets are expanded and go through weighted_stats as before (bit for bit the old
figures); EXPAND_MAX bounds what is ever materialised. No Qt here.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

# At most this many gaps are ever built as an array (8 bytes each, a few arrays at once).
EXPAND_MAX = 1 << 21
_SIGN = np.int64(0x7FFF_FFFF_FFFF_FFFF)


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
    out = {"mean": mean, "median": percentile(gaps, 50), "std": math.sqrt(max(var, 0.0))}
    for p in percentiles:
        out[f"p{p}"] = percentile(gaps, p)
    return out


def percentile(gaps: Gaps, q: float) -> float:
    """np.percentile of the expansion (linear interpolation) without building it."""
    selector = _Selector(gaps)
    n = selector.total
    if n == 0:
        return 0.0
    h = q / 100.0 * (n - 1)
    lo = math.floor(h)
    hi = min(lo + 1, n - 1)
    v_lo = selector.at_rank(lo)
    v_hi = v_lo if selector.count_le(v_lo) > hi else selector.next_above(v_lo)
    return float(v_lo + (h - lo) * (v_hi - v_lo))


def _key(x: float) -> int:
    """An integer that orders as the float does (-0.0 just below 0.0)."""
    i = np.array([x], dtype=float).view(np.int64)[0]
    return int(i ^ ((i >> 63) & _SIGN))


def _value(key: int) -> float:
    i = np.int64(key)
    return float(np.array([i ^ ((i >> 63) & _SIGN)], dtype=np.int64).view(float)[0]) + 0.0


class _Selector:
    """Weighted order statistics over explicit gaps and rising or falling runs."""

    def __init__(self, gaps: Gaps):
        values, weights = gaps.flat()
        keep = weights > 0
        order = np.argsort(values[keep], kind="stable")
        self.values = values[keep][order]
        self.ends = np.cumsum(weights[keep][order])
        live = (gaps.rows > 0) & (gaps.steps > 0)
        self.first, self.slope = gaps.first[live], gaps.slope[live]
        self.k, self.n = gaps.steps[live], gaps.rows[live]
        self.total = int(self.ends[-1] if self.ends.size else 0) + int(np.sum(self.k * self.n))

    def _at(self, j: np.ndarray) -> np.ndarray:
        return self.first + self.slope * j.astype(float)  # as Gaps.expanded evaluates it

    def _run_counts(self, x: float) -> np.ndarray:
        """Per run, how many of its gaps are <= x: a prefix of a rising run, a suffix of a
        falling one. An estimate from the line, then corrected on the evaluated gaps."""
        k, s = self.k, self.slope
        rising = s >= 0
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = (x - self.first) / np.where(s != 0, s, 1.0)  # where first + s·j crosses x
        # rising: j = 0..floor(ratio) are <= x; falling: j = ceil(ratio)..k-1 are
        est = np.where(rising, np.floor(ratio) + 1, k - np.maximum(np.ceil(ratio), 0.0))
        c = np.clip(np.nan_to_num(est, nan=0.0, posinf=1e18, neginf=-1e18), 0, k).astype(np.int64)
        flat = s == 0
        c[flat] = np.where(self.first[flat] <= x, k[flat], 0)
        lo, hi = np.zeros_like(k), k.copy()  # the answer lies in [lo, hi]; narrow around c
        for _ in range(2):
            c = self._fix(c, x, rising)
        ok = self._holds(c, x, rising)
        if not np.all(ok):  # the line's estimate was off (a slope below the gaps' rounding): bisect
            bad = ~ok
            lo, hi = lo[bad], hi[bad]
            sub = _Sub(self, bad)
            while np.any(lo < hi):
                mid = (lo + hi + 1) // 2
                good = sub.le(mid, x)
                lo, hi = np.where(good, mid, lo), np.where(good, hi, mid - 1)
            c[bad] = lo
        return c

    def _index(self, c, rising):
        """The gap index of the c-th element counted from the run's low end (1-based)."""
        return np.where(rising, c - 1, self.k - c)

    def _fix(self, c, x, rising):
        inside = c < self.k
        nxt = np.where(inside, self._at(self._index(np.minimum(c + 1, self.k), rising)), np.inf)
        c = np.where(inside & (nxt <= x), c + 1, c)
        cur = np.where(c > 0, self._at(self._index(np.maximum(c, 1), rising)), -np.inf)
        return np.where((c > 0) & (cur > x), c - 1, c)

    def _holds(self, c, x, rising):
        cur_ok = (c == 0) | (self._at(self._index(np.maximum(c, 1), rising)) <= x)
        nxt_ok = (c == self.k) | (self._at(self._index(np.minimum(c + 1, self.k), rising)) > x)
        return cur_ok & nxt_ok

    def count_le(self, x: float) -> int:
        explicit = int(self.ends[np.searchsorted(self.values, x, side="right") - 1]) if (
            self.values.size and self.values[0] <= x) else 0
        return explicit + int(np.sum(self._run_counts(x) * self.n))

    def at_rank(self, r: int) -> float:
        """The (0-based) r-th smallest gap of the expansion."""
        ends = np.concatenate([self.values, self._at(np.zeros_like(self.k)), self._at(self.k - 1)])
        lo, hi = _key(float(ends.min())), _key(float(ends.max()))
        while lo < hi:  # the smallest value with more than r gaps <= it is a gap itself
            mid = (lo + hi) // 2
            if self.count_le(_value(mid)) > r:
                hi = mid
            else:
                lo = mid + 1
        return _value(lo)

    def next_above(self, x: float) -> float:
        """The smallest gap > x."""
        i = np.searchsorted(self.values, x, side="right")
        best = float(self.values[i]) if i < self.values.size else math.inf
        c = self._run_counts(x)
        rising = self.slope >= 0
        more = c < self.k
        if np.any(more):
            nxt = self._at(self._index(np.minimum(c + 1, self.k), rising))
            best = min(best, float(np.min(nxt[more])))
        return best


class _Sub:
    """The runs a mask picks, for the bisection fallback."""

    def __init__(self, sel: _Selector, mask: np.ndarray):
        self.first, self.slope, self.k = sel.first[mask], sel.slope[mask], sel.k[mask]
        self.rising = self.slope >= 0

    def le(self, c: np.ndarray, x: float) -> np.ndarray:
        """Whether the c-th gap from the low end (1-based; c = 0 always) is <= x."""
        j = np.where(self.rising, c - 1, self.k - c)
        return (c == 0) | (self.first + self.slope * np.maximum(j, 0).astype(float) <= x)
