"""The nightly-size calculator fuzz (issue 9, "Hostile input"): >= 20,000 cases drawn from
every calculator's spec, the same generator and checks as tests/core/test_fuzz_calculators.py
(tests/core/fuzz_inputs.py, fuzz_cases.py), plus the per-case time bound a test must not assert: every case under 2 s and 500 MB.
Prints one JSON object. Not a test.

    .venv/bin/python bench/bench_fuzz.py            # 20,000 cases (LAB_FUZZ_CASES to change)

Cases run in-process without tracemalloc, so times are honest; memory is the growth of the
peak resident set over each case. Each calculator's slowest case is then run REPEATS more
times (median/min/max); `"over_target": true` when that median is over 2 s. Timings are wall
clock on whatever else the machine is doing: compare figures of one run.
"""
from __future__ import annotations

import collections
import json
import math
import os
import statistics
import sys
import time
from functools import partial
from pathlib import Path

from benchstats import stats as summary

stats = partial(summary, digits=6)  # median/min/max, target flags

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
os.environ.setdefault("LAB_FUZZ_CASES", "20000")

CASE_TARGET_S = 2.0
REPEATS = 5


def main() -> None:
    from core.registry import registry
    from tests.core import fuzz_cases as fz  # the test's generator and checks

    total_cases = int(os.environ["LAB_FUZZ_CASES"])
    names = registry().names()
    per_calculator = math.ceil(total_cases / len(names))
    started = time.perf_counter()
    cases_run = refused = 0
    failures: collections.Counter = collections.Counter()
    failing: dict[str, dict] = {}
    slowest: dict[str, dict] = {}
    single_shot_over = []
    peak_bytes = 0
    with fz.Fuzzing(trace_memory=False):
        for name in names:
            calc = registry().get(name)
            cases = fz.fuzz(calc, per_calculator)
            cases_run += len(cases)
            refused += sum(c.refused for c in cases)
            peak_bytes = max(peak_bytes, max(c.peak_bytes for c in cases))
            bad = [c for c in cases if c.kind]
            failures.update(c.kind for c in bad)
            if bad:
                kinds = collections.Counter(c.kind for c in bad)
                failing[name] = {
                    kind: {"cases": count, "example": f"lab calc {name} " + fz.show(fz.minimal(calc, first)),
                           "detail": first.detail}
                    for kind, count in kinds.items()
                    for first in [next(c for c in bad if c.kind == kind)]
                }
            single_shot_over += [f"{name}: {c.seconds:.2f} s" for c in cases if c.seconds > CASE_TARGET_S]
            worst = max(cases, key=lambda c: c.seconds)
            # A runaway (stopped by the watchdog) is not timed again: it would only hit the watchdog.
            again = 0 if worst.kind == "runaway" else REPEATS - 1
            times = [worst.seconds] + [fz.run_case(calc, worst.raw).seconds for _ in range(again)]
            slowest[name] = {**stats(times, target=CASE_TARGET_S),
                             "case_median_s": round(statistics.median(c.seconds for c in cases), 6),
                             "peak_memory_bytes": max(c.peak_bytes for c in cases),
                             "input": fz.show({k: v for k, v in worst.raw.items() if v != calc.param(k).default})[:400]}
            if slowest[name]["over_target"]:
                failures["slow"] += 1
                failing.setdefault(name, {})["slow"] = {"cases": 1, "example": f"lab calc {name} " + slowest[name]["input"],
                                                        "detail": f"median {slowest[name]['median']} s of {REPEATS}"}
            print(f"{name}: {len(cases)} cases, slowest {slowest[name]['median']} s", file=sys.stderr, flush=True)

    overall = max(slowest, key=lambda n: slowest[n]["median"])
    print(json.dumps({
        "cases": cases_run,
        "calculators": len(names),
        "refused_with_param_error": refused,
        "failures": dict(failures),
        "failing": failing,
        "slowest_case": {"calculator": overall, **slowest[overall]},
        "slowest_by_calculator": slowest,
        "single_shot_over_2s": single_shot_over,
        "peak_memory_bytes": peak_bytes,
        "peak_memory_calculator": max(slowest, key=lambda n: slowest[n]["peak_memory_bytes"]),
        "memory_limit_bytes": fz.MEMORY_LIMIT_BYTES,
        "over_target": sorted(n for n, v in slowest.items() if v["over_target"]),
        "seconds_total": round(time.perf_counter() - started, 1),
        "note": "shared machine; in-process; memory = peak RSS growth per case",
    }))


if __name__ == "__main__":
    main()
