import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.request import calculator as request
from core.request import cost, metrics
from core.request import occupancy as state
from core.units import GiB


def test_request_anatomy_book_rule():
    out = request.ANATOMY.run({"context_tokens": 100, "input_tokens": 1024, "output_tokens": 1024})
    assert out["decode_steps"] == 1023
    assert out["first_decode_context"] == 1124
    assert out["last_decode_context"] == 100 + 1024 + 1022
    contexts = request.decode_contexts(100, 1024, 1024)
    assert contexts[0] == 1124 and contexts[-1] == out["last_decode_context"] and contexts.size == 1023


def test_single_token_answer_has_no_decode():
    out = request.ANATOMY.run({"output_tokens": 1})
    assert out["decode_steps"] == 0 and out["first_decode_context"] is None


def test_exercise_3_1_lockstep_shares_weight_reads():
    one = request.SPLIT.run({"requests": 1})
    eight = request.SPLIT.run({"requests": 8})
    assert (one["prefill_calls"], one["decode_steps_total"], one["weight_read_rounds"]) == (1, 1023, 1024)
    assert (eight["prefill_calls"], eight["prefill_batches"], eight["decode_steps_total"]) == (8, 1, 1016)
    assert eight["weight_read_rounds"] == 128


def test_latency_definitions():
    out = metrics.LATENCY.run({"t_arrival_s": 1, "t_first_s": 3, "t_last_s": 13, "output_tokens": 11})
    assert out == {"ttft_s": 2, "t_request_s": 12, "t_token_s": 1}


def test_latency_refuses_time_running_backwards():
    from core.registry import ParamError
    with pytest.raises(ParamError) as err:
        metrics.LATENCY.run({"t_first_s": 7})
    assert err.value.param == "t_last_s"


def test_queue_moves_ttft_and_request_time_not_token_interval():
    base = metrics.TIMELINE.run()
    longer = metrics.TIMELINE.run({"queue_s": 5.6})
    assert longer["ttft_s"] - base["ttft_s"] == pytest.approx(5.0)
    assert longer["t_request_s"] - base["t_request_s"] == pytest.approx(5.0)
    assert longer["t_token_s"] == pytest.approx(base["t_token_s"])


def test_reasoning_first_useful_output_comes_after_thinking():
    out = metrics.TIMELINE.run({"thinking_tokens": 200})
    assert out["first_useful_s"] == pytest.approx(out["ttft_s"] + 200 * 0.05)


def test_nearest_rank_book_examples():
    assert metrics.nearest_rank(480, 0.95) == 456
    assert metrics.nearest_rank(4, 0.95) == 4
    assert metrics.percentile([5, 1, 9, 3], 0.95)["value"] == 9


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300), st.floats(0.01, 1.0))
def test_percentile_is_an_observation_at_ceil_rank(values, q):
    out = metrics.percentile(values, q)
    assert out["value"] in values
    assert out["rank"] == max(1, math.ceil(round(q * len(values), 9)))
    assert sum(v <= out["value"] for v in values) >= out["rank"]


def test_illustrative_batch_puts_long_waits_in_the_queue():
    obs = metrics.illustrative_observations()
    q95 = {k: metrics.percentile(v.tolist(), 0.95)["value"] for k, v in obs.items()}
    q50 = {k: metrics.percentile(v.tolist(), 0.5)["value"] for k, v in obs.items()}
    assert q95["queue_s"] / q50["queue_s"] > q95["completion_s"] / q50["completion_s"]


def test_state_area_exercise_3_2():
    out = state.AREA.run({"wait_s": 30})
    assert out["mean_waiting_tasks"] == 60
    assert out["mean_occupancy_bytes"] == 60 * GiB


def test_occupancy_series_settles_at_lambda_m0_tau():
    t, m = state.occupancy_series(2.0, GiB, 10.0, 40.0)
    settled = m[(t > 12) & (t < 39)]
    assert np.all(settled == 20 * GiB)
    area = np.trapezoid(m, t) if hasattr(np, "trapezoid") else np.trapz(m, t)
    assert area == pytest.approx(20 * GiB * (40 - 10) + 20 * GiB * 10 / 2, rel=0.03)


def test_zero_successes_report_consumption_not_a_success_cost():
    out = cost.SUCCESS.run({"successes": 0})
    assert out["cost_per_success"] is None
    assert out["total_cost"] == 100 and out["failures"] == 100


def test_compare_break_even():
    out = cost.COMPARE.run({"c2": 1.5})
    assert out["break_even_p2"] == pytest.approx(0.75)
    at_break_even = cost.COMPARE.run({"c2": 1.5, "p2": 0.75})
    assert at_break_even["cost_per_success_2"] == pytest.approx(at_break_even["cost_per_success_1"])


def test_nearest_rank_guards_the_float_product():
    # 0.28 · 25 is 7.000000000000001 in binary floating point: still rank 7.
    assert 0.28 * 25 > 7
    assert metrics.nearest_rank(25, 0.28) == 7
    assert metrics.nearest_rank(1, 0.01) == 1


def test_nearest_rank_value_on_lists_and_arrays():
    values = [5.0, 1.0, 9.0, 3.0]
    assert metrics.nearest_rank_value(values, 0.95) == 9.0
    assert metrics.nearest_rank_value(np.array(values), 0.5) == 3.0
    assert metrics.nearest_rank_value(np.arange(1, 481, dtype=float), 0.95) == 456.0
    assert metrics.nearest_rank_value([], 0.95) is None


@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=1, max_size=300), st.floats(0.01, 1.0))
def test_nearest_rank_value_agrees_with_percentile(values, q):
    assert metrics.nearest_rank_value(np.array(values), q) == metrics.percentile(values, q)["value"]


def test_percentile_calculator_takes_latencies_not_negative_times():
    with pytest.raises(metrics.ParamError, match="values"):
        metrics.PERCENTILE.resolve({"values": "1,-2,3"})


def test_cost_compare_refuses_rates_that_would_make_infinite_costs():
    for field in ("p1", "p2", "c1", "c2"):
        with pytest.raises(cost.ParamError, match=field):
            cost.COMPARE.resolve({field: 1e-308})
    lowest = cost.COMPARE.run({"p1": cost.MIN_SUCCESS_RATE, "p2": cost.MIN_SUCCESS_RATE,
                               "c1": cost.MIN_COST, "c2": 1e15})
    assert all(math.isfinite(v) for v in lowest.values())
