"""Per-card memory and KV blocks of a deployment, by hand arithmetic (vLLM's split)."""
import math

import pytest

from core.hardware_config import load_hardware
from core.model_config import model_spec
from core.serving.deployment import plan
from core.units import GiB

# (layers, hidden, heads, kv_heads, head_dim, ffn, vocab, extra norm values per layer)
SHAPES = {"llama-2-7b": (32, 4096, 32, 32, 128, 11008, 32000, 0),
          "llama-3.1-8b": (32, 4096, 32, 8, 128, 14336, 128256, 0),
          "qwen3-8b": (36, 4096, 32, 8, 128, 12288, 151936, 256)}  # q_norm + k_norm: 2 · head_dim
CARDS = {"a100-80gb": 79.15 * GiB, "h100-sxm": 79.22 * GiB, "l40s": 48e9}


def by_hand(key, tp, memory, token_budget=8192, seqs=64):
    layers, h, heads, kv, d, ffn, vocab, norms = SHAPES[key]
    kv_rank = math.ceil(kv / tp)
    per_layer = 2 * h * (heads // tp) * d + 2 * h * kv_rank * d + 3 * h * ffn // tp + 2 * h + norms
    weights = 2 * (layers * per_layer + 2 * (vocab // tp) * h + h)  # BF16; embedding + lm_head split by rows
    kv_token = layers * 2 * kv_rank * d * 2
    non_torch = {1: 0.5, 2: 3.58, 4: (3.58 + 7.16) / 2}[tp] * GiB  # public logs; tp=4 halfway in log2(tp)
    # the profile's peak: the forward at the token budget, or the sampler after it while
    # the forward's hidden states are still held (deployment_memory.py)
    reserve = max(2 * token_budget * (3 * ffn / tp + 4 * h), 8 * seqs * vocab + 2 * token_budget * h) + non_torch
    pool = 0.9 * memory - weights - reserve
    return weights, kv_token, pool, int(pool // (16 * kv_token))


@pytest.mark.parametrize("key", SHAPES)
@pytest.mark.parametrize("card", CARDS)
@pytest.mark.parametrize("tp", (1, 2, 4))
def test_weights_kv_and_blocks_per_card_by_hand(key, card, tp):
    d = plan(model_spec(key), load_hardware(card), tp=tp)
    weights, kv_token, pool, blocks = by_hand(key, tp, CARDS[card])
    assert d.weights_bytes_per_card == weights
    assert d.kv_bytes_per_token_per_card == kv_token == d.kv_bytes_per_token
    assert d.kv_pool_bytes_per_card == pytest.approx(pool, rel=1e-12)
    assert d.num_blocks == blocks and d.pool_from == "memory"
    assert d.cards == tp


def test_one_card_in_bf16_is_the_published_count():
    # Llama-2-7B: 6,738,415,616 parameters (its model card) at 2 bytes
    assert plan(model_spec("llama-2-7b"), load_hardware("a100-80gb")).weights_bytes_per_card == 6_738_415_616 * 2


def test_blocks_are_near_what_vllm_logged():
    # vllm-project/vllm PR #2031: Llama-2-7B, one A100-80GB, vLLM's defaults then (a 4,096-token
    # profiling batch, 256 sequences): 7,351 GPU blocks.
    d = plan(model_spec("llama-2-7b"), load_hardware("a100-80gb"), token_budget=4096, max_num_seqs=256)
    assert d.num_blocks == pytest.approx(7351, rel=0.01)
    # Llama-3.1-8B on an 80 GB card, 8,192 tokens, 256 sequences: "GPU KV cache size: 447,088
    # tokens" (public vLLM logs; total_gpu_memory 79.11 GiB there, 79.22 here)
    d = plan(model_spec("llama-3.1-8b"), load_hardware("h100-sxm"), max_num_seqs=256)
    assert d.num_blocks * 16 == pytest.approx(447_088, rel=0.015)


def test_a_given_pool_stands_and_the_dtypes_shrink_what_a_card_holds():
    spec, card = model_spec("qwen3-8b"), load_hardware("h100-sxm")
    given = plan(spec, card, kv_pool_bytes=24 * GiB)
    assert given.pool_from == "given" and given.num_blocks == 24 * GiB // (16 * 147456) == 10922
    fp8 = plan(spec, card, quantization="fp8", kv_cache_dtype="fp8")
    bf16 = plan(spec, card)
    layers, h, heads, kv, d, ffn, vocab, norms = SHAPES["qwen3-8b"]
    matrices = layers * (2 * h * heads * d + 2 * h * kv * d + 3 * h * ffn)
    assert bf16.weights_bytes_per_card - fp8.weights_bytes_per_card == matrices * (2 - 1)  # only the layers' matrices
    assert fp8.kv_bytes_per_token == bf16.kv_bytes_per_token / 2
    assert (fp8.compute_dtype, fp8.peak_flops) == ("fp8", 1978.9e12)
    a100 = plan(spec, load_hardware("a100-80gb"), quantization="fp8")
    assert (a100.compute_dtype, a100.peak_flops) == ("bf16", 312e12)  # no FP8 on Ampere: weight-only
    nvfp4 = plan(spec, card, quantization="fp4")
    assert nvfp4.quantization == "nvfp4" and nvfp4.bytes_per_weight == 0.5625
