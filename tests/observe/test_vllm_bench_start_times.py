"""The vllm bench loader takes a result's start_times as the arrivals (relative to the
first), by hand; without them the old rule (n / request_rate) holds."""
import json

import numpy as np
import pytest

from core.registry import ParamError
from core.serving.traces.vllm_bench import read_vllm_bench

BASE = {"backend": "vllm", "num_prompts": 3, "request_rate": 2.0, "input_lens": [10, 20, 30],
        "output_lens": [4, 5, 6], "ttfts": [0.1, 0.2, 0.3], "itls": [[0.01] * 3, [0.01] * 4, [0.01] * 5],
        "errors": ["", "", ""]}


def test_start_times_are_the_arrivals():
    got = read_vllm_bench(json.dumps(BASE | {"start_times": [100.25, 100.75, 102.25]}))  # perf_counter stamps
    assert got.arrival_s.tolist() == [0.0, 0.5, 2.0]
    assert got.extra["arrivals"] == "the requests' start_times"


def test_without_start_times_the_rate_spaces_them():
    got = read_vllm_bench(json.dumps(BASE))
    assert np.array_equal(got.arrival_s, [0.0, 0.5, 1.0])


def test_bad_start_times_are_named():
    with pytest.raises(ParamError, match="start_times has 2 entries for 3 requests"):
        read_vllm_bench(json.dumps(BASE | {"start_times": [1.0, 2.0]}))
    with pytest.raises(ParamError, match="request 2: start_times is"):
        read_vllm_bench(json.dumps(BASE | {"start_times": [1.0, "x", 2.0]}))
