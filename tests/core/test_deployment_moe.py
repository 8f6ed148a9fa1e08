"""MoE decode reads: the expected distinct experts of top-k routing against a Monte Carlo."""
import numpy as np
import pytest

from core.hardware_config import load_hardware
from core.model_config import model_spec
from core.serving.deployment import plan
from core.serving.deployment_moe import expected_distinct_experts, expected_distinct_skewed, routing_shares


@pytest.mark.parametrize("experts, k", ((128, 8), (8, 2)))
@pytest.mark.parametrize("tokens", (1, 4, 16, 64, 256))
def test_distinct_experts_match_a_monte_carlo_of_top_k_routing(experts, k, tokens):
    rng = np.random.default_rng(20261201 + experts * 1000 + tokens)
    trials = 2000
    # each token picks k of E without replacement (the first k of a random permutation)
    picks = np.argsort(rng.random((trials, tokens, experts)), axis=2)[:, :, :k]
    touched = np.zeros((trials, experts), dtype=bool)
    np.put_along_axis(touched, picks.reshape(trials, -1), True, axis=1)
    counts = touched.sum(axis=1)
    # 4 standard errors of the mean: the experts' untouched indicators are negatively associated
    # (k of E without replacement, tokens independent), so Var(count) <= E · u · (1 - u).
    u = ((experts - k) / experts) ** tokens
    tolerance = 4 * np.sqrt(experts * u * (1 - u) / trials)
    assert abs(counts.mean() - expected_distinct_experts(experts, k, tokens)) <= tolerance + 1e-12
    assert expected_distinct_experts(experts, k, 1) == pytest.approx(k)


def test_uniform_shares_are_the_uniform_formula_and_skew_touches_fewer():
    uniform = routing_shares(np.ones(128), 8)
    assert np.allclose(uniform, 8 / 128)
    assert expected_distinct_skewed(uniform, 32) == pytest.approx(expected_distinct_experts(128, 8, 32))
    skewed = routing_shares(np.r_[np.full(16, 20.0), np.ones(112)], 8)
    assert skewed.sum() == pytest.approx(8) and skewed.max() <= 1
    assert expected_distinct_skewed(skewed, 32) < expected_distinct_experts(128, 8, 32)


def test_a_step_reads_the_dense_part_and_the_touched_experts():
    d = plan(model_spec("qwen3-30b-a3b"), load_hardware("h100-sxm"))
    moe = d.moe
    assert (moe.experts, moe.top_k, moe.moe_layers, moe.experts_per_card) == (128, 8, 48, 128)
    assert moe.expert_bytes == 3 * 2048 * 768 * 2
    assert moe.bytes_per_step(1) == pytest.approx(moe.dense_bytes + 48 * 8 * moe.expert_bytes)
    # a large batch touches every expert: the roofline's all-experts figure, today's weights_bytes
    assert moe.bytes_per_step(10_000) == pytest.approx(moe.all_experts_bytes) == d.weights_read_per_step_bytes
    # FLOPs by the active experts (k a token), not the touched ones
    assert d.matrix_flops_per_token == model_spec("qwen3-30b-a3b").linear_flops_per_token
    loads = plan(model_spec("qwen3-30b-a3b"), load_hardware("h100-sxm"), expert_loads=np.r_[np.full(8, 50.0), np.ones(120)])
    assert loads.moe.bytes_per_step(16) < moe.bytes_per_step(16)
