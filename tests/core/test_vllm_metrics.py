"""vLLM bench serve's metrics of a replay: a three-request replay computed by hand, the
names vLLM saves, goodput, ITL gaps against the step-by-step engine, AIPerf records."""
import dataclasses
import math

import numpy as np
import pytest

from core.registry import ParamError
from core.serving import replay as rp
from core.serving import vllm_metrics as vm
from core.serving.engine import EngineConfig, replay
from core.serving.headless import serving_report
from core.serving.step_cost import StepCost
from core.serving.workload import Workload

MS = 1e-3

# Steps whose time is 10 ms + 1 ms per row processed: no memory term to speak of (the
# bandwidth is huge), 1 FLOP per row at 1 kFLOP/s, nothing for lm_head or attention.
TOY_COST = StepCost(weights_bytes=0.0, kv_bytes_per_token=1.0, matrix_flops_per_token=1.0, lm_head_flops_per_row=0.0,
                    attention_flops_per_pair=0.0, bandwidth_bytes_per_s=1e18, peak_flops=1e3,
                    bandwidth_efficiency=1.0, prefill_mfu=1.0, overhead_s=10 * MS)
TOY = EngineConfig(max_num_seqs=4, block_size=16, kv_pool_bytes=1600.0, token_budget=64, cost=TOY_COST)


def tiny():
    """A (t=0, 4 → 3 tokens), B (t=0, 4 → 1), C (t=25 ms, 4 → 2). By hand:
    step 1  0→18 ms: A and B prefill (8 rows): first tokens of A and B; B is done.
    step 2 18→29 ms: A decodes (1 row).          C arrived at 25 ms and waits.
    step 3 29→44 ms: A decodes, C prefills (5 rows): A's last token, C's first.
    step 4 44→55 ms: C decodes (1 row): C's last token."""
    work = Workload(np.array([0.0, 0.0, 0.025]), np.array([4, 4, 4]), np.array([3, 1, 2]))
    return replay(work, TOY), work


def test_the_tiny_replay_runs_as_computed_by_hand():
    result, _ = tiny()
    assert result.first_token_s == pytest.approx([18 * MS, 18 * MS, 44 * MS], abs=1e-9)
    assert result.finish_s == pytest.approx([44 * MS, 18 * MS, 55 * MS], abs=1e-9)
    gaps, weights = vm.itl_samples(result, TOY_COST)
    assert sorted(np.repeat(gaps, weights)) == pytest.approx([11 * MS, 11 * MS, 15 * MS], abs=1e-9)


def test_bench_metrics_of_the_tiny_replay_by_hand():
    result, work = tiny()
    m = vm.bench_metrics(result, work, cost=TOY_COST)
    d = 55 * MS  # first arrival (0) to last finish
    assert m["duration"] == pytest.approx(d)
    assert (m["completed"], m["failed"], m["total_input_tokens"], m["total_output_tokens"]) == (3, 0, 12, 6)
    assert m["request_throughput"] == pytest.approx(3 / d)
    assert m["output_throughput"] == pytest.approx(6 / d)
    assert m["total_token_throughput"] == pytest.approx(18 / d)
    assert m["request_goodput"] is None  # no SLO given, as vLLM saves it
    expected = {  # ms: values per request, then mean, median, std, p90, p99 by hand
        "ttft": (18 + 1 / 3, 18, math.sqrt(2 / 9), 18.8, 18.98),  # 18, 18, 19
        "tpot": (12, 12, 1, 12.8, 12.98),  # A (44 − 18) / 2 = 13, C (30 − 19) / 1 = 11; B has one token
        "itl": (37 / 3, 11, math.sqrt(32 / 9), 14.2, 14.92),  # A 11, 15; C 11
        "e2el": (92 / 3, 30, math.sqrt(((44 - 92 / 3) ** 2 + (18 - 92 / 3) ** 2 + (30 - 92 / 3) ** 2) / 3), 41.2, 43.72),
    }
    for name, values in expected.items():
        got = tuple(m[f"{s}_{name}_ms"] for s in ("mean", "median", "std", "p90", "p99"))
        assert got == pytest.approx(values, abs=1e-6), name


def test_goodput_counts_requests_meeting_every_slo():
    result, work = tiny()
    d = 55 * MS
    # ttft 18, 18, 19 ms; tpot 13, (0: one token), 11 ms; e2el 44, 18, 30 ms
    assert vm.goodput(result, slo_ttft_ms=18.5) == pytest.approx(2 / d)
    assert vm.goodput(result, slo_tpot_ms=12) == pytest.approx(2 / d)  # B counts with tpot 0, as vLLM
    assert vm.goodput(result, slo_ttft_ms=18.5, slo_tpot_ms=12) == pytest.approx(1 / d)
    assert vm.goodput(result, slo_e2el_ms=31) == pytest.approx(2 / d)
    assert vm.bench_metrics(result, work, slo_e2el_ms=31)["request_goodput"] == pytest.approx(2 / d)
    assert list(vm.meets_slo(result, slo_ttft_ms=19.5, slo_e2el_ms=40)) == [False, True, True]
    assert list(vm.meets_slo(result)) == [True, True, True]  # no SLO: every request is good


@pytest.mark.parametrize("key, value", [("slo_ttft_ms", 0), ("slo_tpot_ms", -1.0), ("slo_e2el_ms", math.nan),
                                        ("slo_ttft_ms", 2e9)])
def test_bad_slo_is_refused_naming_it(key, value):
    result, work = tiny()
    with pytest.raises(ParamError) as err:
        vm.bench_metrics(result, work, **{key: value})
    assert err.value.param == key and "valid: (0, 1e+09] ms" in err.value.message


def test_names_are_the_ones_vllm_bench_serve_saves():
    # vllm/benchmarks/serve.py: the result dict and process_one_metric with --metric-percentiles 90,99
    vllm = {"duration", "completed", "failed", "total_input_tokens", "total_output_tokens", "request_throughput",
            "request_goodput", "output_throughput", "total_token_throughput"}
    for metric in ("ttft", "tpot", "itl", "e2el"):
        vllm |= {f"mean_{metric}_ms", f"median_{metric}_ms", f"std_{metric}_ms", f"p90_{metric}_ms", f"p99_{metric}_ms"}
    result, work = tiny()
    assert set(vm.bench_metrics(result, work)) == vllm == set(vm.NAMES)


def test_weighted_statistics_equal_numpy_on_the_expanded_list():
    rng = np.random.default_rng(3)
    for size in (1, 2, 5, 40):
        values = rng.normal(30, 10, size).round(1)  # ties included
        weights = rng.integers(0, 6, size)
        weights[0] = max(weights[0], 1)
        expanded = np.repeat(values, weights)
        stats = vm.weighted_stats(values, weights)
        assert stats["mean"] == pytest.approx(np.mean(expanded))
        assert stats["median"] == pytest.approx(np.median(expanded))
        assert stats["std"] == pytest.approx(np.std(expanded), abs=1e-9)
        for q in (0, 1, 25, 50, 90, 95, 99, 99.9, 100):
            assert vm.weighted_percentile(values, weights, q) == pytest.approx(np.percentile(expanded, q)), (size, q)
    assert vm.weighted_stats([], []) == {s: 0.0 for s in vm.STATS}  # vLLM: np.mean(x or 0)


def _small_book_run():
    values = rp.REPLAY.resolve({"durations_s": "20", "rates_per_s": "3", "shares_long_input": "0.5"})
    work, config = rp.workload_from(values), rp.config_from(values)
    return work, config


def test_itl_gaps_inside_skipped_runs_equal_the_step_by_step_engine():
    work, config = _small_book_run()
    fast, slow = replay(work, config), replay(work, config, fast=False)
    assert fast.preemptions.sum() > 0  # the recompute path is exercised too
    reference = np.sort(np.repeat(*vm.itl_samples(slow, config.cost)))
    exact = np.sort(np.repeat(*vm.itl_samples(fast, config.cost)))
    assert exact.size == reference.size == int(np.sum(work.output_tokens - 1))
    assert np.max(np.abs(exact - reference)) < 1e-9
    # Without the step cost a run of k steps is k gaps of its mean: the same sum, a coarser spread.
    even = np.sort(np.repeat(*vm.itl_samples(fast)))
    assert even.sum() == pytest.approx(reference.sum(), rel=1e-12)
    assert 1e-6 < np.max(np.abs(even - reference)) < 5e-3


def test_itl_gaps_add_up_to_the_request_times_with_preemptions():
    values = rp.REPLAY.resolve()
    result, work, config = rp.run_replay(values)
    assert result.preemptions.sum() == 62
    gaps, weights = vm.itl_samples(result, config.cost)
    g = result.output_tokens
    assert weights.sum() == np.sum(g - 1)
    assert np.dot(gaps, weights) == pytest.approx(np.sum(result.finish_s - result.first_token_s), rel=1e-12)
    assert np.all(gaps > 0)
    tpot = vm.tpot_s(result)
    # Mean ITL (over tokens) and mean TPOT (over requests) weigh requests differently, not the total.
    assert np.dot(gaps, weights) == pytest.approx(np.sum(tpot * (g - 1)), rel=1e-12)


def test_tpot_is_nan_for_a_single_token():
    result, _ = tiny()
    tpot = vm.tpot_s(result)
    assert math.isnan(tpot[1]) and tpot[0] == pytest.approx(13 * MS) and tpot[2] == pytest.approx(11 * MS)


def test_aiperf_records_follow_profile_export_layout():
    result, work = tiny()
    records = vm.aiperf_records(result, work)
    assert len(records) == 3
    first = records[0]
    assert set(first) == {"metadata", "metrics", "error"} and first["error"] is None
    assert set(first["metadata"]) == {"session_num", "x_request_id", "x_correlation_id", "conversation_id", "turn_index",
                                      "request_start_ns", "request_ack_ns", "request_end_ns", "worker_id",
                                      "record_processor_id", "benchmark_phase", "was_cancelled", "cancellation_time_ns"}
    metrics = first["metrics"]
    assert metrics["time_to_first_token"] == {"value": pytest.approx(18.0), "unit": "ms"}
    assert metrics["request_latency"] == {"value": pytest.approx(44.0), "unit": "ms"}
    assert metrics["inter_token_latency"] == {"value": pytest.approx(13.0), "unit": "ms"}
    assert metrics["output_token_throughput_per_user"]["unit"] == "tokens/sec/user"
    assert metrics["input_sequence_length"] == {"value": 4, "unit": "tokens"}
    assert metrics["output_sequence_length"] == {"value": 3, "unit": "tokens"}
    assert records[2]["metadata"]["request_start_ns"] == 25_000_000
    assert records[2]["metadata"]["request_end_ns"] == 55_000_000
    assert "inter_token_latency" not in records[1]["metrics"]  # one output token: no ITL, as AIPerf


def test_the_chat_endpoint_counts_one_more_gap_a_request():
    """The chat stream's role chunk comes just before the first token's: the client takes
    TTFT at it and lists one gap of ~0 more per request (B, one token, too)."""
    result, work = tiny()
    completions = vm.bench_metrics(result, work, cost=TOY_COST)
    chat = vm.bench_metrics(result, work, cost=TOY_COST, endpoint=vm.CHAT_ENDPOINT)
    # ITL lists 0, 0, 0 (A, B, C) and 11, 15, 11 (ms)
    assert chat["mean_itl_ms"] == pytest.approx(37 / 6, abs=1e-9)
    assert chat["median_itl_ms"] == pytest.approx(5.5, abs=1e-9)
    assert chat["p90_itl_ms"] == pytest.approx(11 + 0.5 * 4, abs=1e-9)  # rank 4.5 of 0, 0, 0, 11, 11, 15
    for name in ("ttft", "tpot", "e2el"):  # the same times, only the gap list differs
        assert chat[f"mean_{name}_ms"] == completions[f"mean_{name}_ms"]
    tagged = Workload(work.arrival_s, work.input_tokens, work.output_tokens, meta={"endpoint": vm.CHAT_ENDPOINT})
    assert vm.bench_metrics(result, tagged, cost=TOY_COST)["mean_itl_ms"] == chat["mean_itl_ms"]


def test_itl_follows_the_spans_the_client_saw():
    """A front end that delays A's last token by 5 ms after the engine made it: the client's
    gaps sum to A's span (31 ms) and C's (11 ms), so mean ITL = 42 / 3 ms."""
    result, work = tiny()
    late = dataclasses.replace(result, finish_s=result.finish_s + np.array([5 * MS, 0.0, 0.0]))
    m = vm.bench_metrics(late, work, cost=TOY_COST)
    assert m["mean_itl_ms"] == pytest.approx(14.0, abs=1e-9)
    assert m["mean_tpot_ms"] == pytest.approx((31 / 2 + 11) / 2, abs=1e-9)
    assert m["median_itl_ms"] == pytest.approx(11 * 42 / 37, abs=1e-9)  # the engine's spread, scaled


def test_with_a_front_end_equal_outputs_give_mean_itl_equal_to_mean_tpot():
    """Every request 4 tokens: Σ spans / Σ 3 (mean ITL) = mean of span / 3 (mean TPOT), however
    the front end's queue shifts the tokens; on the chat endpoint 3 of the 4 gaps."""
    keys = {"model": "qwen3-14b", "hardware": "h100-sxm", "dataset": "fixed", "random_input_len": "128",
            "random_output_len": "4", "num_prompts": "300"}
    plain, _ = serving_report(keys)
    assert plain["mean_itl_ms"] == pytest.approx(plain["mean_tpot_ms"], rel=1e-12)
    chat, _ = serving_report(dict(keys, endpoint=vm.CHAT_ENDPOINT))
    assert chat["mean_itl_ms"] == pytest.approx(chat["mean_tpot_ms"] * 3 / 4, rel=1e-12)
