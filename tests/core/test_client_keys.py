"""lab simulate serving's vllm bench keys (core/serving/bench_keys.py) through the headless report."""
import json

import numpy as np
import pytest

from core.registry import ParamError
from core.serving.headless import serving_report

SMALL = {"dataset": "random", "random_input_len": "256", "random_output_len": "16", "num_prompts": "40"}


def test_bench_workload_with_a_limit_reports_the_client():
    report, (result, work) = serving_report(dict(SMALL, request_rate="inf", max_concurrency="4"))
    assert report["requests"] == 40 and report["client"]["max_concurrency"] == 4
    assert report["client"]["workload"]["request_rate"] == "inf"
    assert report["client"]["frontend"].startswith("off")  # no deployment: the engine alone
    assert (work.arrival_s == 0).all() and result.arrival_s.max() > 0  # sends wait for slots


def test_front_end_is_on_with_a_deployment_and_off_on_request():
    serial = dict(SMALL, model="qwen3-8b", hardware="h100-sxm", max_concurrency="1")  # each request alone
    on, _ = serving_report(serial)
    off, _ = serving_report(dict(serial, frontend="off"))
    assert on["client"]["frontend"]["request_ms"] == 4.0 and off["client"]["frontend"].startswith("off")
    # alone, the front end adds its request time, 256 prompt tokens and the first token's time
    floor_ms = 4.0 + 256 * 2e-3 + 40e-3
    assert on["median_ttft_ms"] - off["median_ttft_ms"] == pytest.approx(floor_ms, rel=1e-6)
    # its CPU time: 40 requests x (4 ms + 256 x 2 us) + 40 x 16 output tokens x 40 us
    assert on["client"]["frontend"]["busy_s"] == pytest.approx(40 * (4e-3 + 256 * 2e-6) + 640 * 40e-6, rel=1e-12)


def test_front_end_off_is_todays_report_bit_for_bit():
    a, _ = serving_report({"scenario": "uniform"})
    b, _ = serving_report({"scenario": "uniform", "frontend": "off"})
    assert {k: v for k, v in a.items() if k != "wall_s"} == {k: v for k, v in b.items() if k != "wall_s"}


@pytest.mark.parametrize("raw, name, words", [
    ({"max_concurency": "4"}, "max_concurency", "did you mean max_concurrency"),
    ({"num_prompts": "10", "trace": "t.csv"}, "num_prompts", "not to a trace; valid: without trace="),
    (dict(SMALL, random_range_ratio="1"), "random_range_ratio", "0 <= r < 1"),
    (dict(SMALL, request_rate="0"), "request_rate", "or inf"),
    (dict(SMALL, max_concurrency="2", replicas="2"), "max_concurrency", "replicas=1"),
    (dict(SMALL, frontend="off", frontend_request_ms="3"), "frontend_request_ms", "frontend=off"),
    ({"dataset": "trace_lengths"}, "lengths", "lengths=FILE"),
])
def test_bad_keys_are_refused_naming_them(raw, name, words):
    with pytest.raises(ParamError) as err:
        serving_report(raw)
    assert err.value.param == name and words in str(err.value)


def test_a_vllm_bench_result_is_replayed_with_its_own_max_concurrency(tmp_path):
    n = 6
    run = {"backend": "openai", "num_prompts": n, "request_rate": "inf", "burstiness": 1.0, "max_concurrency": 2,
           "input_lens": [300] * n, "output_lens": [8] * n, "ttfts": [0.05] * n, "itls": [[0.02] * 7] * n}
    path = tmp_path / "bench.json"
    path.write_text(json.dumps(run))
    report, (result, _) = serving_report({"trace": str(path)})
    assert report["client"]["max_concurrency"] == 2
    order = np.argsort(result.arrival_s, kind="stable")
    # two at t = 0, then each send when one of the two in flight has finished
    assert np.array_equal(result.arrival_s[order[:2]], [0.0, 0.0])
    assert set(result.arrival_s[order[2:]].tolist()) <= set(result.finish_s.tolist())
    given, _ = serving_report({"trace": str(path), "max_concurrency": "6"})
    assert given["client"]["max_concurrency"] == 6


def test_the_endpoint_sets_the_request_time_and_a_lone_request_pays_it_once():
    serial = dict(SMALL, model="qwen3-8b", hardware="h100-sxm", max_concurrency="1")  # each request alone
    off, _ = serving_report(dict(serial, frontend="off"))
    chat, _ = serving_report(dict(serial, endpoint="/v1/chat/completions"))
    fe = chat["client"]["frontend"]
    assert fe["request_ms"] == pytest.approx(10.0, rel=1e-12) and fe["rounds"] == 5
    assert fe["latency_ms"] == pytest.approx(35.0, rel=1e-12)
    # alone, its five slices run back to back: 10 ms + 256 prompt tokens + the first token's
    # time, and the chat path's latency after them
    floor_ms = 10.0 + 256 * 2e-3 + 40e-3 + 35.0
    assert chat["median_ttft_ms"] - off["median_ttft_ms"] == pytest.approx(floor_ms, rel=1e-6)
    given, _ = serving_report(dict(serial, endpoint="/v1/chat/completions", frontend_request_ms="7"))
    assert given["client"]["frontend"]["request_ms"] == pytest.approx(7.0, rel=1e-12)  # a given time wins


def test_frontend_rounds_one_is_first_come_first_served():
    burst = dict(SMALL, model="qwen3-8b", hardware="h100-sxm", request_rate="inf", frontend_request_ms="10",
                 frontend_input_token_us="0", frontend_output_token_us="0")
    _, (fifo, _) = serving_report(dict(burst, frontend_rounds="1"))
    _, (rr, _) = serving_report(burst)
    # 40 requests sent at 0 to an idle engine: FIFO lets the first in after 10 ms, five
    # rounds of 2 ms slices after four full rounds and one slice
    assert fifo.first_schedule_s.min() == pytest.approx(0.010, rel=1e-9)
    assert rr.first_schedule_s.min() == pytest.approx((4 * 40 + 1) * 0.002, rel=1e-9)


@pytest.mark.parametrize("raw, name", [({"frontend_rounds": "0"}, "frontend_rounds"),
                                       ({"frontend_rounds": "65"}, "frontend_rounds"),
                                       ({"endpoint": "/v1/embeddings"}, "endpoint")])
def test_bad_front_end_keys_are_refused(raw, name):
    with pytest.raises(ParamError) as err:
        serving_report(dict(SMALL, model="qwen3-8b", hardware="h100-sxm", **raw))
    assert err.value.param == name
