"""Capacity search: the highest rate multiplier at which a setting still meets its SLOs,
by bracketing then bisection.

`attains(m)` replays the setting at m times the offered rate (a trace's time axis scaled,
or a synthetic workload's rates_per_s) and says whether the share of requests within
every SLO is >= the attainment asked; it may return None for a rate it cannot replay (more
requests than a replay takes): above the start that rate counts as not met and the result
is `capped`; below it (too few requests to replay) the search stops going down.

Start at 1x; double until a rate fails (or halve until one passes), then bisect the
bracket [lo passes, hi fails] until (hi - lo) / lo <= tolerance. Assumes attainment falls
as the rate rises (a queue only grows with load); the answer is the last passing rate
seen, so it is never a rate that failed.
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from core.cancel import NEVER, CancelToken

MIN_MULTIPLIER = 2.0 ** -10
MAX_MULTIPLIER = 2.0 ** 10


@dataclass
class SearchResult:
    multiplier: float  # the highest passing multiplier found (0.0 when none passed)
    info: Any  # what attains returned for it (the report at that rate), None when none passed
    upper: float | None  # the lowest failing multiplier (None: never failed up to MAX_MULTIPLIER)
    replays: int
    capped: bool  # the upper end is a limit (MAX_MULTIPLIER or a rate too large to replay), not the SLO
    tried: list[tuple[float, bool | None]] = field(default_factory=list)

    @property
    def found(self) -> bool:
        return self.info is not None


def max_multiplier(attains: Callable[[float], tuple[bool | None, Any]], tolerance: float,
                   cancel: CancelToken = NEVER) -> SearchResult:
    tried: list[tuple[float, bool | None]] = []
    best: tuple[float, Any] | None = None

    def test(m: float) -> bool | None:
        nonlocal best
        cancel.check()
        ok, info = attains(m)
        tried.append((m, ok))
        if ok and (best is None or m > best[0]):
            best = (m, info)
        return ok

    lo: float | None = None
    hi: float | None = None
    m = 1.0
    if test(m):
        lo = m
        while m < MAX_MULTIPLIER:
            m *= 2.0
            if not test(m):
                hi = m
                break
            lo = m
    else:
        hi = m
        while m > MIN_MULTIPLIER:
            m /= 2.0
            ok = test(m)
            if ok is None:  # too few requests to replay this slowly: no lower rate to try
                break
            if ok:
                lo = m
                break
            hi = m
    if lo is not None and hi is not None:
        while (hi - lo) / lo > tolerance:
            mid = 0.5 * (lo + hi)
            if test(mid):
                lo = mid
            else:
                hi = mid
    # The upper end is a limit, not the SLO: never failed, or failed only as too large to replay.
    capped = hi is None or any(t == hi and ok is None for t, ok in tried)
    if best is None:
        return SearchResult(0.0, None, hi, len(tried), capped, tried)
    return SearchResult(best[0], best[1], hi, len(tried), capped, tried)
