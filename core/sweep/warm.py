"""Warm-ups of a sweep kind's evaluator: what a worker would otherwise do at its first point
(load the compiled engine from numba's cache, or compile it), done once in the process the
workers are forked from (core.sweep.executors.worker_context). A warm-up computes nothing
a row keeps: rows are the same with and without it."""
from __future__ import annotations

from core.registry import get

# A replay of two requests: every serving point runs the same compiled loop (one loop for
# caching and not caching a prefix), so this loads it.
TINY_REPLAY = {"durations_s": "1", "rates_per_s": "2", "shares_long_input": "0.5"}


def warm_serving() -> None:
    get("serving.replay").run(TINY_REPLAY)
