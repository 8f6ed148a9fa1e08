"""A request's token times, read off the engine's step series.

The engine records one series entry per step it takes and one per run of pure-decode
steps it advances in closed form (series_steps = k, series_tokens = n decodes per step).
A request that decodes gets one token per engine step: its first token at first_token_s,
then one at the end of every later step while it runs. Inside a closed-form run the step
ends follow the roofline's memory line (step j of the run lasts overhead + a + b·j with
b = kv bytes per token · n / bandwidth; a is fitted to the run's length, so the run's last
step ends exactly at its recorded time). Steps while the request was preempted (from its
preemption to its rescheduling) give it nothing; its last token is at finish_s.
"""
from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def step_ends(series_t: np.ndarray, series_steps: np.ndarray, series_tokens: np.ndarray, after_s: float,
              count: int, cost) -> np.ndarray:
    """End times of the first `count` engine steps ending after `after_s` (fewer if the
    series ends first)."""
    i = int(np.searchsorted(series_t, after_s, side="right"))
    out: list[float] = []
    spb = cost.seconds_per_byte
    while i < series_t.size and len(out) < count:
        k = int(series_steps[i])
        if k == 1:
            out.append(float(series_t[i]))
        elif k > 1:
            t0 = float(series_t[i - 1])
            total = float(series_t[i]) - t0
            n = int(series_tokens[i])
            b = cost.kv_bytes_per_token * n * spb
            a = (total - k * cost.overhead_s - b * k * (k + 1) / 2.0) / k
            take = min(k, count - len(out))
            j = np.arange(1, take + 1, dtype=float)
            ends = t0 + j * (cost.overhead_s + a) + b * j * (j + 1) / 2.0
            if take == k:
                ends[-1] = float(series_t[i])  # the run's recorded end, exactly
            out.extend(np.minimum(ends, float(series_t[i])).tolist())
        i += 1
    return np.asarray(out[:count], dtype=float)


def token_times(result, row: int, upto: int, cost, preempted: Sequence[tuple[float, float]] = (),
                cancelled: bool = False) -> np.ndarray:
    """Times of tokens 1..upto of request `row` of a ReplayResult (NaN where it never got
    them: cancelled or never run). Token 1 is the first token (from its prefill)."""
    times = request_tokens(result.series_t, result.series_steps, result.series_tokens,
                           float(result.first_token_s[row]), float(result.finish_s[row]), upto, cost, preempted)
    finish = float(result.finish_s[row])
    G = int(result.output_tokens[row])
    if not cancelled and not math.isnan(finish) and upto >= G:
        times[G - 1] = finish  # the last token is the finish, by definition
    return times


def request_tokens(series_t, series_steps, series_tokens, t1: float, finish: float, upto: int, cost,
                   preempted=()) -> np.ndarray:
    """Tokens 1..upto of a request whose first token came at t1, from a step series (the
    whole run's or the part so far); NaN for tokens not (yet) produced."""
    times = np.full(upto, np.nan)
    if math.isnan(t1) or upto < 1:
        return times
    times[0] = t1
    steps = step_ends(series_t, series_steps, series_tokens, t1,
                      upto - 1 + _lost_steps(series_t, series_steps, preempted), cost)
    for t_pre, t_back in preempted:
        back = math.inf if math.isnan(t_back) else t_back
        steps = steps[(steps <= t_pre) | (steps > back)]
    if not math.isnan(finish):
        steps = steps[steps <= finish + 1e-12]
    got = steps[: upto - 1]
    times[1:1 + got.size] = got
    return times


def _lost_steps(t, series_steps, preempted) -> int:
    """Steps that give the request no token (while preempted): read past them."""
    lost = 0
    for t_pre, t_back in preempted:
        back = float(t[-1]) if math.isnan(t_back) else t_back
        lo, hi = np.searchsorted(t, [t_pre, back], side="right")
        lost += int(np.sum(series_steps[lo:hi + 1]))
    return lost
