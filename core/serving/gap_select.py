"""Weighted order statistics over explicit values and monotone runs (core/serving/gap_runs.py's
percentiles): the r-th smallest element of the expansion, found by halving a bracket of values,
counting per run how many of its elements are <= a value, until the bracket holds few
enough elements to sort. Runs that fall wholly below or above the bracket are settled
once and dropped.
A run's element j is first + slope·float(j), evaluated as the expansion evaluates it:
the element found is the expansion's own, bit for bit. No Qt here.
"""
from __future__ import annotations

import math

import numpy as np

_SIGN = np.int64(0x7FFF_FFFF_FFFF_FFFF)
# Bisection stops once the bracket holds at most this many elements; they are sorted.
GATHER = 1 << 18


def _key(x: float) -> int:
    """An integer that orders as the float does (-0.0 just below 0.0)."""
    i = np.array([x], dtype=float).view(np.int64)[0]
    return int(i ^ ((i >> 63) & _SIGN))


def _value(key: int) -> float:
    i = np.int64(key)
    return float(np.array([i ^ ((i >> 63) & _SIGN)], dtype=np.int64).view(float)[0]) + 0.0


class _Runs:
    """Runs j = 0..k-1 of first + slope·j, each element counted n times."""

    def __init__(self, first, slope, k, n):
        self.first, self.slope, self.k, self.n = first, slope, k, n
        self.rising = slope >= 0
        ends = (self.at(np.zeros_like(k)), self.at(k - 1))
        self.low, self.high = np.minimum(*ends), np.maximum(*ends)

    def at(self, j: np.ndarray) -> np.ndarray:
        return self.first + self.slope * j.astype(float)

    def pick(self, mask: np.ndarray) -> _Runs:
        return _Runs(self.first[mask], self.slope[mask], self.k[mask], self.n[mask])

    def _nth(self, c: np.ndarray) -> np.ndarray:
        """The c-th element from the run's low end (1-based, clipped into 1..k)."""
        c = np.clip(c, 1, self.k)
        return self.at(np.where(self.rising, c - 1, self.k - c))

    def counts(self, x: float) -> np.ndarray:
        """Per run, how many of its elements are <= x: an estimate from the line, corrected
        on the evaluated elements, bisected where the estimate was off (a slope below the
        elements' rounding makes plateaus the line does not see)."""
        k, s = self.k, self.slope
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            ratio = (x - self.first) / np.where(s != 0, s, 1.0)  # where first + s·j crosses x
        # rising: j = 0..floor(ratio) are <= x; falling: j = ceil(ratio)..k-1 are
        est = np.where(self.rising, np.floor(ratio) + 1, k - np.maximum(np.ceil(ratio), 0.0))
        est = np.where(s == 0, np.where(self.first <= x, k, 0), est)
        c = np.clip(np.nan_to_num(est, nan=0.0, posinf=1e18, neginf=-1e18), 0, k).astype(np.int64)
        c = np.where((c < k) & (self._nth(c + 1) <= x), c + 1, c)
        c = np.where((c > 0) & (self._nth(c) > x), c - 1, c)
        bad = ~(((c == 0) | (self._nth(c) <= x)) & ((c == k) | (self._nth(c + 1) > x)))
        if np.any(bad):
            c[bad] = self.pick(bad)._bisect(x)
        return c

    def _bisect(self, x: float) -> np.ndarray:
        lo, hi = np.zeros_like(self.k), self.k.copy()
        while np.any(lo < hi):
            mid = (lo + hi + 1) // 2
            good = self._nth(mid) <= x
            lo, hi = np.where(good, mid, lo), np.where(good, hi, mid - 1)
        return lo


class Selector:
    """The weighted expansion of explicit (values, weights) and runs, for selection."""

    def __init__(self, values, weights, first, slope, steps, rows):
        keep = weights > 0
        order = np.argsort(values[keep], kind="stable")
        self.values = values[keep][order]
        self.weights = weights[keep][order]
        self.ends = np.cumsum(self.weights)
        live = (rows > 0) & (steps > 0)
        self.runs = _Runs(first[live], slope[live], steps[live].astype(np.int64), rows[live].astype(np.int64))
        self.total = int(self.ends[-1] if self.ends.size else 0) + int(np.sum(self.runs.k * self.runs.n))

    def _explicit_le(self, x: float) -> int:
        i = np.searchsorted(self.values, x, side="right")
        return int(self.ends[i - 1]) if i > 0 else 0

    def count_le(self, x: float) -> int:
        return self._explicit_le(x) + int(np.sum(self.runs.counts(x) * self.runs.n))

    def at_rank(self, r: int) -> float:
        """The (0-based) r-th smallest element of the expansion: halve a bracket (a, b]
        until it holds at most GATHER elements, then sort just those."""
        runs = self.runs
        bounds = np.concatenate([self.values, runs.low, runs.high])
        a, b = float(np.nextafter(bounds.min(), -np.inf)), float(bounds.max())
        ca, cb = runs.counts(a), runs.counts(b)
        wa = 0  # elements <= a
        settled = 0  # elements of dropped runs, all <= a
        while True:
            below, above = runs.high <= a, runs.low > b
            if np.any(below | above):
                settled += int(np.sum(runs.k[below] * runs.n[below]))
                keep = ~(below | above)
                runs, ca, cb = runs.pick(keep), ca[keep], cb[keep]
            ia, ib = (int(i) for i in np.searchsorted(self.values, (a, b), side="right"))
            if np.nextafter(a, np.inf) >= b:  # nothing lies strictly between: the element is b
                return b
            if int(np.sum(cb - ca)) + (ib - ia) <= GATHER:
                return self._gather(r - wa, runs, ca, cb, ia, ib)
            mid = a + (b - a) / 2
            if not a < mid < b:
                mid = _value((_key(a) + _key(b)) // 2)
            cm = runs.counts(mid)
            wm = self._explicit_le(mid) + settled + int(np.sum(cm * runs.n))
            if wm > r:
                b, cb = mid, cm
            else:
                a, ca, wa = mid, cm, wm

    def _gather(self, r: int, runs: _Runs, ca, cb, ia: int, ib: int) -> float:
        """The r-th smallest (0-based) of the elements in the bracket."""
        take = cb - ca
        which = np.repeat(np.arange(take.size), take)
        c = np.arange(int(take.sum())) - np.repeat(np.cumsum(take) - take, take) + 1 + ca[which]
        values = np.concatenate([self.values[ia:ib], runs.pick(which)._nth(c)])
        weights = np.concatenate([self.weights[ia:ib], runs.n[which]])
        order = np.argsort(values, kind="stable")
        ends = np.cumsum(weights[order])
        return float(values[order][np.searchsorted(ends, r, side="right")])

    def next_above(self, x: float) -> float:
        """The smallest element > x."""
        i = np.searchsorted(self.values, x, side="right")
        best = float(self.values[i]) if i < self.values.size else math.inf
        runs = self.runs
        c = runs.counts(x)
        more = c < runs.k
        if np.any(more):
            best = min(best, float(np.min(runs._nth(c + 1)[more])))
        return best
