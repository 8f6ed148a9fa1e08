"""Hostile trace files: valid traces that once cost gigabytes or minutes on the CLI. Each
file is generated here from a small description (nothing large committed) and replayed by
`lab simulate serving` in a subprocess under the corpus's bound (tests/hostile/bounds.py)."""
from __future__ import annotations

import json

import numpy as np
import pytest

from tests.hostile.bounds import run_cli


def long_outputs(path, requests=2000, mean_output=31000, seed=0):
    """~31,000 output tokens each: some 62 M tokens, tens of millions of decode steps."""
    rng = np.random.default_rng(seed)
    arrival = np.sort(rng.uniform(0, 600, requests))
    inputs = rng.integers(100, 2000, requests)
    outputs = rng.integers(mean_output - 1000, mean_output + 1000, requests)
    lines = ["arrival_s,input_tokens,output_tokens"] + [f"{a:.3f},{i},{o}" for a, i, o in zip(arrival, inputs, outputs)]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return int(outputs.sum())


CASES = {
    # (description, extra arguments)
    "long outputs, text report": ((), ()),
    "long outputs, files and AIPerf records": ((), ("--format", "aiperf", "--out", "{out}")),
    "long outputs, json": ((), ("--json",)),
}


@pytest.mark.parametrize("name", CASES)
def test_a_long_output_trace_stays_within_the_bound(tmp_path, name):
    _, extra = CASES[name]
    trace = tmp_path / "long.csv"
    total = long_outputs(trace)
    args = ["simulate", "serving", f"trace={trace}"] + [a.format(out=tmp_path / "out") for a in extra]
    ran = run_cli(args)
    assert ran.within_bounds() is None, (name, ran.within_bounds())
    assert ran.rc == 0, ran.err
    if "--json" in extra:
        report = json.loads(ran.out)
        assert report["total_output_tokens"] == total
        assert report["median_itl_ms"] > 0
    if "--out" in extra:
        lines = (tmp_path / "out" / "requests.csv").read_text(encoding="utf-8").splitlines()
        assert len(lines) == 2001
        assert sum(1 for _ in open(tmp_path / "out" / "profile_export.jsonl", encoding="utf-8")) == 2000
