"""lab observe's send schedule: the simulator's own draw for the same keys, and the
arithmetic of vllm bench's schedule by hand."""
import math

import numpy as np
import pytest

from core.observe.schedule import plan
from core.registry import ParamError
from core.serving import workloads_bench as wb


def test_keys_draw_the_simulators_workload():
    keys = {"dataset": "random", "num_prompts": "50", "random_input_len": "100", "random_output_len": "20",
            "random_range_ratio": "0.3", "random_prefix_len": "8", "request_rate": "4", "burstiness": "0.5",
            "seed": "7"}
    p = plan(keys)
    w = wb.bench_workload("random", num_prompts=50, request_rate=4.0, burstiness=0.5, seed=7, input_len=100,
                          output_len=20, range_ratio=0.3, prefix_len=8)
    assert np.array_equal(p.send_s, w.arrival_s)
    assert np.array_equal(p.input_tokens, w.input_tokens)
    assert np.array_equal(p.output_tokens, w.output_tokens)
    assert p.prefix_tokens == 8 and p.request_rate == 4.0 and p.burstiness == 0.5 and p.seed == 7


def test_even_gaps_by_hand():
    # burstiness inf: every gap 1/rate; the last send is num_prompts / rate exactly
    p = plan({"dataset": "fixed", "num_prompts": "4", "random_input_len": "10", "random_output_len": "3",
              "request_rate": "2", "burstiness": "inf"})
    assert p.send_s.tolist() == [0.5, 1.0, 1.5, 2.0]
    assert p.input_tokens.tolist() == [10] * 4 and p.output_tokens.tolist() == [3] * 4


def test_rate_inf_sends_all_at_once_and_default_dataset_is_random():
    p = plan({"num_prompts": "3", "random_input_len": "5", "random_output_len": "2", "max_concurrency": "2"})
    assert p.send_s.tolist() == [0.0, 0.0, 0.0]
    assert math.isinf(p.request_rate) and p.max_concurrency == 2
    assert p.input_tokens.tolist() == [5, 5, 5]  # range ratio 0: the lengths exactly


def test_trace_is_sent_at_its_arrivals(tmp_path):
    f = tmp_path / "t.csv"
    f.write_text("TIMESTAMP,ContextTokens,GeneratedTokens\n"
                 "2023-11-16 18:15:46.0,100,10\n2023-11-16 18:15:46.5,200,20\n2023-11-16 18:15:48.0,300,30\n")
    p = plan({"trace": str(f)})
    assert p.send_s.tolist() == [0.0, 0.5, 2.0]
    assert p.input_tokens.tolist() == [100, 200, 300] and p.output_tokens.tolist() == [10, 20, 30]
    fast = plan({"trace": str(f), "time_scale": "2", "limit": "2"})
    assert fast.send_s.tolist() == [0.0, 0.25]


@pytest.mark.parametrize("keys,field", [
    ({"trace": "x.csv", "random_input_len": "5"}, "random_input_len"),
    ({"time_scale": "2"}, "time_scale"),
    ({"bogus": "1"}, "bogus"),
    ({"max_concurrency": "0"}, "max_concurrency"),
    ({"request_rate": "-1"}, "request_rate"),
    ({"random_range_ratio": "1.5"}, "random_range_ratio"),
])
def test_bad_keys_name_the_field(keys, field):
    with pytest.raises(ParamError) as err:
        plan(keys)
    assert err.value.param == field
