"""vllm bench serve's workloads (core/serving/workloads_bench.py) against its documented rules."""
import math

import numpy as np
import pytest

from core.registry import ParamError
from core.serving import workloads_bench as wb


def test_random_lengths_are_vllms_draws_in_its_bounds():
    p, g = wb.random_lengths(20_000, 1000, 128, range_ratio=0.5, seed=7)
    # bounds: input [floor(1000·0.5), ceil(1000·1.5)], output [floor(128·0.5), ceil(128·1.5)]
    assert p.min() == 500 and p.max() == 1500
    assert g.min() == 64 and g.max() == 192
    assert abs(p.mean() - 1000) < 0.01 * 1000 and abs(g.mean() - 128) < 0.01 * 128
    # the rule: one default_rng(seed); inputs first, then outputs, integers(low, high + 1)
    rng = np.random.default_rng(7)
    assert np.array_equal(p, rng.integers(500, 1501, size=20_000))
    assert np.array_equal(g, rng.integers(64, 193, size=20_000))
    again = wb.random_lengths(20_000, 1000, 128, range_ratio=0.5, seed=7)
    assert np.array_equal(again[0], p) and np.array_equal(again[1], g)


def test_range_ratio_zero_is_fixed_and_prefix_adds():
    p, g = wb.random_lengths(50, 333, 7, range_ratio=0.0, prefix_len=100, seed=1)
    assert np.all(p == 433) and np.all(g == 7)


def test_output_low_is_at_least_one_and_bad_ratio_refused():
    _, g = wb.random_lengths(2000, 20, 1, range_ratio=0.9, seed=0)
    assert g.min() == 1 and g.max() == 2  # [max(1, floor(0.1)), ceil(1.9)]
    with pytest.raises(ParamError, match="random_range_ratio"):
        wb.random_lengths(10, 10, 10, range_ratio=1.0)
    with pytest.raises(ParamError, match="random_input_len"):
        wb.random_lengths(10, 1, 10, range_ratio=0.5)  # floor(0.5) = 0 tokens, no prefix


def test_rate_inf_sends_all_at_zero():
    assert np.array_equal(wb.send_times(100, math.inf), np.zeros(100))


def test_gamma_gaps_mean_and_cv():
    n, rate = 200_000, 8.0
    for burstiness in (1.0, 0.25, 4.0):
        t = wb.send_times(n, rate, burstiness, seed=3)
        gaps = np.diff(np.concatenate(([0.0], t)))
        assert t[-1] == pytest.approx(n / rate, rel=1e-12)  # rescaled to num_prompts / rate
        assert gaps.mean() == pytest.approx(1 / rate, rel=1e-9)
        assert gaps.std() / gaps.mean() == pytest.approx(1 / math.sqrt(burstiness), rel=0.02)


def test_gamma_draws_are_numpys_global_generator_in_request_order():
    """vllm bench calls np.random.gamma once per request after np.random.seed(seed)."""
    n, rate, b = 50, 3.0, 0.5
    np.random.seed(11)
    gaps = [np.random.gamma(shape=b, scale=1.0 / (rate * b)) for _ in range(n)]
    delays = np.cumsum(gaps)
    delays = delays * ((n / rate) / delays[-1])
    assert np.array_equal(wb.send_times(n, rate, b, seed=11), delays)


def test_burstiness_inf_is_evenly_spaced():
    t = wb.send_times(10, 2.0, math.inf)
    assert np.allclose(t, (np.arange(10) + 1) / 2.0, rtol=0, atol=1e-12)


def test_sharegpt_like_inside_vllms_filter_and_resampling_keeps_pairs():
    p, g = wb.sharegpt_like_lengths(5000, seed=2)
    assert p.size == g.size == 5000
    assert p.min() >= 4 and g.min() >= 4 and p.max() <= 1024 and (p + g).max() <= 2048
    src_p, src_g = np.array([10, 20, 30]), np.array([1, 2, 3])
    rp, rg = wb.resampled_lengths(src_p, src_g, 1000, seed=0)
    assert set(zip(rp.tolist(), rg.tolist())) <= {(10, 1), (20, 2), (30, 3)}


def test_bench_workload_datasets():
    w = wb.bench_workload("fixed", num_prompts=4, request_rate=math.inf, input_len=128, output_len=16)
    assert np.all(w.input_tokens == 128) and np.all(w.output_tokens == 16) and np.all(w.arrival_s == 0)
    w = wb.bench_workload("random", num_prompts=100, request_rate=10.0, seed=5, input_len=64, output_len=8,
                          range_ratio=0.25)
    assert np.all(np.diff(w.arrival_s) >= 0) and len(w) == 100
    with pytest.raises(ParamError, match="dataset"):
        wb.bench_workload("nope")
