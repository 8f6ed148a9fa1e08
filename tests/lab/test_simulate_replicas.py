"""lab simulate serving: a preloaded trace (workload=) gives the report reading the file
gives, bit for bit; replicas, router and cost in every report."""
from __future__ import annotations

import json
import math

import numpy as np
import pytest

from core.registry import ParamError
from lab.simulate import load_shared_trace, simulate, simulate_serving

SESSIONS = "examples/sessions.jsonl"
MOONCAKE = "/work/brief/traces/mooncake_synthetic_trace.jsonl"
AZURE = "/work/brief/traces/AzureLLMInferenceTrace_code.csv"


def _same(a: dict, b: dict) -> None:
    a, b = dict(a), dict(b)
    a.pop("wall_s"), b.pop("wall_s")
    assert json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


def _arrays_equal(r1, r2) -> None:
    for name in ("arrival_s", "ttft_s", "request_s", "finish_s", "series_t", "series_kv_fraction"):
        assert np.array_equal(getattr(r1, name), getattr(r2, name), equal_nan=True), name


@pytest.mark.parametrize("trace,extra", [
    (SESSIONS, {}),
    (AZURE, {"limit": "300"}),
    (AZURE, {"window": "60:900", "limit": "250"}),
])
@pytest.mark.parametrize("time_scale", [None, "1", "2.5", "0.37"])
def test_preloaded_workload_equals_reading_the_file(trace, extra, time_scale):
    raw = {"trace": trace, **extra}
    if time_scale is not None:
        raw["time_scale"] = time_scale
    shared = load_shared_trace(raw)
    assert shared.meta["time_scale"] == 1.0
    from_file, (res_file, work_file) = simulate_serving(dict(raw))
    preloaded, (res_pre, work_pre) = simulate_serving(dict(raw), workload=shared)
    _same(from_file, preloaded)
    _arrays_equal(res_file, res_pre)
    assert np.array_equal(work_file.arrival_s, work_pre.arrival_s)
    assert work_file.meta["span_s"] == work_pre.meta["span_s"]
    if work_file.sessions is not None:
        assert np.array_equal(work_file.sessions.think_time_s, work_pre.sessions.think_time_s, equal_nan=True)
    # the shared workload is not changed by a point's scale
    assert shared.meta["time_scale"] == 1.0


def test_preloaded_mooncake_hash_ids():
    raw = {"trace": MOONCAKE, "limit": "200", "time_scale": "3"}
    shared = load_shared_trace(raw)
    a, _ = simulate_serving(dict(raw))
    b, _ = simulate_serving(dict(raw), workload=shared)
    _same(a, b)
    assert a["cached_tokens_total"] > 0


def test_preloaded_workload_needs_its_trace_and_scales_once():
    shared = load_shared_trace({"trace": SESSIONS})
    with pytest.raises(ParamError) as err:
        simulate_serving({}, workload=shared)
    assert err.value.param == "trace"
    from core.serving.traces.transforms import time_scaled

    with pytest.raises(ParamError) as err:
        time_scaled(time_scaled(shared, 2.0), 2.0)
    assert err.value.param == "time_scale"
    assert load_shared_trace({"max_num_seqs": "8"}) is None
