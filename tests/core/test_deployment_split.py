"""How a deployment splits the model: KV heads, stages, experts; one card is today's figures."""
import pytest

from core.hardware_config import load_hardware
from core.model_config import model_spec
from core.registry import ParamError
from core.serving.deployment import plan
from core.serving.deployment_memory import pp_partitions

H100 = load_hardware("h100-sxm")


@pytest.mark.parametrize("key", ("qwen3-8b", "llama-3.1-8b", "qwen3-30b-a3b", "mixtral-8x7b"))
def test_one_card_in_bf16_gives_the_counted_figures_exactly(key):
    spec = model_spec(key)
    d = plan(spec, load_hardware("b200"))
    assert d.replay_values() == dict(spec.replay_params(), peak_flops=2.25e15)
    assert d.weights_bytes_per_card == spec.weights_bytes


def test_kv_heads_are_replicated_when_fewer_than_tp():
    spec = model_spec("llama-3.1-70b")  # 8 KV heads of 128 over 80 layers
    for tp, heads in ((4, 2), (8, 1), (16, 1)):
        d = plan(spec, H100, tp=tp)
        assert d.kv_heads_per_rank == heads
        assert d.kv_bytes_per_token_per_card == 80 * 2 * heads * 128 * 2
    moe = plan(model_spec("qwen3-30b-a3b"), H100, tp=8)  # 4 KV heads: each one on two ranks
    assert moe.kv_heads_per_rank == 1 and moe.kv_bytes_per_token == 48 * 2 * 1 * 128 * 2


def test_a_tp_the_heads_cannot_take_is_refused():
    with pytest.raises(ParamError) as err:
        plan(model_spec("llama-3.1-8b"), H100, tp=3)
    assert err.value.param == "tp" and "32 attention heads, 8 KV heads" in err.value.message
    with pytest.raises(ParamError) as err:
        plan(model_spec("qwen3-8b"), H100, ep=2)
    assert err.value.param == "ep" and "no experts" in err.value.message


def test_stages_split_the_layers_as_vllm_does():
    # vllm/distributed/utils.py get_pp_indices: the remainder to the stages before the last
    assert pp_partitions(80, 3) == (27, 27, 26)
    assert pp_partitions(30, 4) == (7, 8, 8, 7)
    assert pp_partitions(32, 2) == (16, 16)
    spec = model_spec("llama-3.1-70b")
    one, two = plan(spec, H100, tp=4), plan(spec, H100, tp=2, pp=2)
    assert two.stage_layers == (40, 40) and two.kv_bytes_per_token_per_card == 40 * 2 * 4 * 128 * 2
    # The engine sees one TP rank through both stages: all 80 layers' KV, the fewest blocks's bytes
    assert two.kv_bytes_per_token == 80 * 2 * 4 * 128 * 2
    assert two.engine_kv_pool_bytes == two.num_blocks * 16 * two.kv_bytes_per_token
    # Both hold 1/4 of the layers' weights; the stages hold the embedding and lm_head whole over tp=2
    assert two.weights_read_per_step_bytes > one.weights_read_per_step_bytes


def test_experts_spread_over_ep_ranks():
    spec = model_spec("qwen3-30b-a3b")  # 128 experts of 3 · 2048 · 768 weights, 48 MoE layers
    tp8 = plan(spec, H100, tp=8)
    ep8 = plan(spec, H100, tp=8, ep=8)
    assert tp8.moe.experts_per_card == 128 and tp8.moe.expert_bytes == 3 * 2048 * 768 // 8 * 2
    assert ep8.moe.experts_per_card == 16 and ep8.moe.expert_bytes == 3 * 2048 * 768 * 2
    # the same expert bytes per card either way (128 slices of 1/8 or 16 whole experts)
    assert tp8.weights_bytes_per_card == ep8.weights_bytes_per_card
    with pytest.raises(ParamError) as err:
        plan(spec, H100, tp=4, ep=2)
    assert err.value.param == "ep"
    assert plan(spec, H100, tp=1, ep=4, dp=4).moe.experts_per_card == 32  # DP attention, EP experts


def test_the_communication_figures_are_there_for_the_step_time_model():
    d = plan(model_spec("llama-3.1-70b"), H100, tp=4)
    assert (d.num_layers, d.hidden_size, d.activation_bytes_per_token) == (80, 8192, 8192 * 2)
    assert (d.link_kind, d.link_bandwidth_bytes_per_s) == ("nvlink", 450e9) and d.link_latency_s > 0
