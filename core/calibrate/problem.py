"""The fit's objective over the runs: coefficients in log space, replays cached by the
coefficient vector (a bootstrap refit starts at the point estimate, whose replays, and
its Jacobian's, every draw shares: only the weights differ), cancel polled and progress
reported between replays, and every replay timed.

x_i = log(c_i / c0_i) for each fitted key (c0: the starting value): the time terms and
multipliers are positive and act as factors, so equal steps in x are equal relative
changes; a finite difference of DIFF_STEP in x is that share of the coefficient.

The prior (prior_weight > 0): one more residual per fitted key, prior_weight · x_i, a weak
pull toward the start in log space (the card's measured figures and the published
defaults, or the step log's fit). A direction the data pin moves the data's residuals far
more than this; one they do not (the per-sequence term from steps of one to five
sequences) stays near the start instead of running off along a valley of the loss.
"""
from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Callable

import numpy as np

from core.calibrate import loss
from core.cancel import Cancelled

CACHE_ENTRIES = 1024  # per run: a fit of ~200 evaluations with its Jacobians, and the bootstrap's


class Problem:
    def __init__(self, replays, keys: tuple[str, ...], start: dict[str, float],
                 progress: Callable[[float, str], None] | None = None,
                 cancel: Callable[[], bool] | None = None, planned_replays: int = 1000, logs=(),
                 prior_weight: float = 0.0):
        self.replays = replays
        self.prior_weight = float(prior_weight)
        self.logs = tuple(logs)  # step logs (core/calibrate/step_log.py): priced, not replayed
        self.keys = tuple(keys)
        self.start = {k: float(start[k]) for k in self.keys}
        self.base = dict(start)
        self.progress = progress
        self.cancel = cancel
        self.planned = max(1, planned_replays)
        self.replays_done = 0
        self.replay_s: list[float] = []
        self.stage = "fitting"
        self._cache: list[OrderedDict] = [OrderedDict() for _ in replays]
        self._measured = [loss.measured_arrays(r.run) for r in replays]

    # -- coefficients <-> x ------------------------------------------------------------
    def coefs(self, x) -> dict[str, float]:
        out = dict(self.base)
        for k, xi in zip(self.keys, np.asarray(x, dtype=float)):
            out[k] = self.start[k] * math.exp(float(xi))
        return out

    def x_of(self, coefs: dict) -> np.ndarray:
        return np.array([math.log(coefs[k] / self.start[k]) for k in self.keys])

    def bounds(self, ranges: dict[str, tuple[float, float]]) -> tuple[np.ndarray, np.ndarray]:
        lo = np.array([math.log(ranges[k][0] / self.start[k]) for k in self.keys])
        hi = np.array([math.log(ranges[k][1] / self.start[k]) for k in self.keys])
        return lo, hi

    # -- replays -----------------------------------------------------------------------
    def prediction(self, i: int, x):
        key = tuple(np.round(np.asarray(x, dtype=float), 15).tolist())
        cache = self._cache[i]
        hit = cache.get(key)
        if hit is not None:
            cache.move_to_end(key)
            return hit
        if self.cancel is not None and self.cancel():
            raise Cancelled()
        t0 = time.perf_counter()
        p = self.replays[i].predict(self.coefs(x))
        p.source = None  # the fit reads no ITL samples: the replay's result is not kept
        self.replay_s.append(time.perf_counter() - t0)
        self.replays_done += 1
        if self.progress is not None:
            self.progress(min(self.replays_done / self.planned, 0.99), f"{self.stage}: replay {self.replays_done:,}")
        cache[key] = p
        if len(cache) > CACHE_ENTRIES:
            cache.popitem(last=False)
        return p

    def residuals(self, x, counts: list[np.ndarray], run_weights: np.ndarray,
                  step_counts: list[np.ndarray] | None = None) -> np.ndarray:
        """All runs' residuals, then the step logs'; a run of weight 0 is not replayed (its
        terms are 0). step_counts: each log's bootstrap counts (None: every step once)."""
        parts = []
        if self.logs:
            cost = self.replays[0].cost(self.coefs(x))
            for j, log in enumerate(self.logs):
                parts.append(log.residuals(cost, None if step_counts is None else step_counts[j]))
        for i, replay in enumerate(self.replays):
            if run_weights[i] <= 0:
                parts.append(np.zeros(loss.size(replay.run)))
                continue
            p = self.prediction(i, x)
            parts.append(loss.run_residuals(self._measured[i], loss.predicted_arrays(p), counts[i],
                                            float(run_weights[i])))
        prior = [self.prior_weight * np.asarray(x, dtype=float)] if self.prior_weight > 0 else []
        return np.concatenate(parts[len(self.logs):] + parts[:len(self.logs)] + prior)

    def ones(self) -> tuple[list[np.ndarray], np.ndarray]:
        return [np.ones(len(r.run)) for r in self.replays], np.ones(len(self.replays))
