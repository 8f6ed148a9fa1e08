"""The one summary every benchmark prints for a repeated figure: median, min and max of the
runs, and, against a target, whether the median misses it (`"over_target": true`), so a
figure over its target is flagged rather than printed plainly. Not a benchmark itself."""
from __future__ import annotations

import statistics
import time


def stats(samples, scale: float = 1.0, digits: int | None = 3, target: float | None = None,
          kind: str = "max", runs: bool = False, unit: str = "") -> dict:
    """samples × scale summarised. kind says how a target is missed: 'max' (the median is
    over it), 'min' (the median is under it, e.g. fps) or 'none_over' (any run is over it,
    e.g. chunks late). runs=True keeps every run's value too."""
    values = [float(v) * scale for v in samples if v is not None]
    if not values:
        return {"n": 0}

    def rounded(x: float) -> float:
        return x if digits is None else round(x, digits)

    out = {"median": rounded(statistics.median(values)), "min": rounded(min(values)),
           "max": rounded(max(values)), "n": len(values)}
    if runs:
        out["runs"] = [rounded(v) for v in values]
    if unit:
        out["unit"] = unit
    if target is not None:
        out["target"] = target
        out["over_target"] = {"max": out["median"] > target, "min": out["median"] < target,
                              "none_over": out["max"] > target}[kind]
    return out


def timed(fn, repeats: int, warm_up: bool = False):
    """fn() run repeats times: (its last result, each run's wall seconds). warm_up: one
    untimed call first (the compiled loop loaded, first-touch costs paid)."""
    if warm_up:
        fn()
    out, walls = None, []
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t)
    return out, walls


def timed_cpu(fn, repeats: int, warm_up: bool = False):
    """As timed(), with each run's CPU seconds of this process too (time.process_time: on a
    shared machine the wall counts the waits for a core): (result, walls, cpus)."""
    if warm_up:
        fn()
    out, walls, cpus = None, [], []
    for _ in range(repeats):
        t, c = time.perf_counter(), time.process_time()
        out = fn()
        walls.append(time.perf_counter() - t)
        cpus.append(time.process_time() - c)
    return out, walls, cpus
