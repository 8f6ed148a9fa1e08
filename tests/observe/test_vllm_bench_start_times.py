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


def test_an_observed_shared_prefix_becomes_the_servers_blocks():
    lab = {"prefix_tokens": 40, "metrics": {"cache_config": {"block_size": "16"}}}
    got = read_vllm_bench(json.dumps(BASE | {"input_lens": [50, 33, 48], "lab_observe": lab}))
    ids, offsets = got.prefix
    assert got.block_tokens == 16
    assert offsets.tolist() == [0, 4, 7, 10]  # ceil(50/16), ceil(33/16), ceil(48/16) blocks
    # the prefix's two full blocks are ids 0 and 1 in every request; every other block its own
    assert ids.tolist() == [0, 1, 4, 5, 0, 1, 8, 0, 1, 11]


def test_no_prefix_without_lab_observe():
    assert read_vllm_bench(json.dumps(BASE)).prefix is None
