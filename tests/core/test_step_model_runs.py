"""The basis step-time model in the engine: closed-form decode runs equal step-by-step
sums, MoE reads between the dense part and every expert, PP's micro-batches and EP's
all-to-all, and the deployment's model as lab simulate serving builds it."""
from dataclasses import replace

import numpy as np
import pytest

from core.hardware_config import load_hardware
from core.model_config import model_spec
from core.serving.deployment import plan
from core.serving.engine import EngineConfig, replay
from core.serving.step_basis import from_deployment
from core.serving.workload import Workload

pytest.importorskip("core.serving.engine.pricing")
from core.serving.engine.pricing_basis import weights_read
from core.serving.engine.step_model import coefficients


def _cost(model, card="h100-sxm", **how):
    d = plan(model_spec(model), load_hardware(card), **how)
    hw = load_hardware(card)
    values = dict(d.replay_values(), bandwidth_bytes_per_s=hw.bandwidth_bytes_per_s, bandwidth_efficiency=0.85,
                  prefill_mfu=0.5)
    return d, from_deployment(d, values)


def _random_workload(seed, n=300):
    rng = np.random.default_rng(seed)
    arrival = np.cumsum(rng.exponential(1 / 20.0, n))
    return Workload(arrival, rng.integers(16, 3000, n), rng.integers(1, 400, n))


@pytest.mark.parametrize("model, how", [("llama-3.1-8b", {"tp": 2}), ("qwen3-30b-a3b", {"tp": 2}),
                                        ("llama-3.1-70b", {"tp": 4, "pp": 2})])
def test_closed_form_decode_runs_equal_step_by_step_sums(model, how):
    d, cost = _cost(model, **how)
    config = EngineConfig(max_num_seqs=64, kv_pool_bytes=d.engine_kv_pool_bytes, token_budget=2048, cost=cost)
    work = _random_workload(7)
    fast, slow = replay(work, config, fast=True), replay(work, config, fast=False)
    assert fast.closed_form_steps > 0  # runs were summed in closed form
    assert fast.engine_steps == slow.engine_steps
    np.testing.assert_allclose(fast.finish_s, slow.finish_s, rtol=1e-9)
    np.testing.assert_allclose(fast.first_token_s, slow.first_token_s, rtol=1e-9)


def test_moe_reads_lie_between_the_dense_part_and_every_expert_and_rise_with_the_batch():
    d, cost = _cost("qwen3-30b-a3b")
    moe = d.moe
    c = coefficients(cost)
    reads = [cost.weights_read(b) for b in (1, 2, 8, 32, 128, 1024)]
    assert all(moe.dense_bytes < r <= moe.all_experts_bytes for r in reads)
    assert all(a < b for a, b in zip(reads[:-1], reads[1:-1]))  # 1,024 tokens touch (nearly) every expert
    assert reads[-2] < moe.all_experts_bytes and reads[-1] == pytest.approx(moe.all_experts_bytes, rel=1e-9)
    for b, r in zip((1, 2, 8, 32, 128, 1024), reads):
        assert weights_read(c, float(b)) == pytest.approx(r, rel=1e-12)
        assert r == pytest.approx(moe.bytes_per_step(b), rel=1e-12)
    # one token touches its k experts a layer
    one = moe.dense_bytes + moe.moe_layers * moe.top_k * moe.expert_bytes
    assert cost.weights_read(1) == pytest.approx(one, rel=1e-12)
    # a batch's decode step is cheaper than the roofline's read of every expert
    assert cost.step_time(8, 8, 8000, 8000) < replace(cost, moe=None, weights_bytes=moe.all_experts_bytes).step_time(
        8, 8, 8000, 8000)


def test_pipeline_micro_batches_fill_the_stages_and_a_lone_sequence_waits_for_all():
    d, cost = _cost("llama-3.1-70b", tp=4, pp=2)
    # one sequence: one micro-batch through both stages; many: pp micro-batches share the KV and FLOPs
    lone = cost.step_time(1, 1, 2000, 2000, seqs=1)
    assert cost.micro_batches(1) == 1 and cost.micro_batches(64) == 2
    kv = 64 * 2000
    many = cost.step_time(64, 64, kv, kv, seqs=64)
    serial = replace(cost, pp=1).step_time(64, 64, kv, kv, seqs=64)  # one micro-batch for everything
    assert lone < many < serial + cost.pp_s_per_row * 64 + cost.pp_latency_s
    assert cost.pp_latency_s == pytest.approx(1.25 * 1 * 3e-6)  # one hand-off between two stages


def test_expert_parallel_beyond_tp_pays_the_all_to_all():
    _, same = _cost("mixtral-8x7b", tp=2, ep=2)
    _, wide = _cost("mixtral-8x7b", tp=1, ep=2, dp=2)
    assert same.ep_s_per_row == 0.0 and same.ep_latency_s == 0.0  # ep = tp: the all-reduce does it
    assert wide.ep_remote_fraction == 0.5
    per_row = 1.25 * 32 * 2 * 2 * 0.5 * 4096 * 2 / 450e9  # layers · (dispatch, combine) · top-2 · remote
    assert wide.ep_s_per_row == pytest.approx(per_row, rel=1e-12)


def test_lab_simulate_serving_prices_a_deployment_with_the_basis_model(capsys):
    import json

    from lab.cli import main
    argv = ["simulate", "serving", "model=llama-3.1-70b", "hardware=h100-sxm", "tp=4", "durations_s=10",
            "rates_per_s=2", "shares_long_input=0.5", "coef_tp_comm=2", "--json"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["step_model"]["kind"] == "basis" and report["step_model"]["coef_tp_comm"] == 2.0
    assert main(argv[:-2] + ["step_model=roofline", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["step_model"] == {"kind": "roofline"}
    assert main(argv[:-2] + ["coef_tp_comm=-1", "--json"]) == 2
    assert "coef_tp_comm" in capsys.readouterr().err
