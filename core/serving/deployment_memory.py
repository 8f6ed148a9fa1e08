"""One card's share of a model, split as vLLM splits it, and the memory vLLM sets aside.

Tensor parallelism (tp ranks), per layer:
- attention: query heads and the output projection split by heads (heads / tp each);
  K/V heads split too, and replicated when kv_heads < tp: each rank holds
  ⌈kv_heads / tp⌉ heads' K/V projections and cache (vLLM's QKVParallelLinear, and the
  KV cache of its attention layers). MLA: the latent projection and its cache are held
  whole on every rank; the per-head up-projections split by heads.
- a dense FFN: its width split (intermediate / tp); norms and biases counted whole on
  every rank (a few KB a layer).
- MoE: the router whole on every rank; shared experts split like a dense FFN; routed
  experts each split by width across tp (ep = 1), or under expert parallelism (ep > 1)
  held whole, ⌈E / ep⌉ of them per card.
- embedding and lm_head: vocab rows padded to a multiple of 64 and split across tp
  (VocabParallelEmbedding / ParallelLMHead, padding size 64).
Pipeline parallelism (pp stages): layers in consecutive ranges, vLLM's get_pp_indices
(vllm/distributed/utils.py): L // pp each, the remainder one each to the stages before the
last, from the end; the input embedding on the first stage, the final norm and lm_head on
the last. Dense layers are taken to come first (DeepSeek's first_k_dense_replace; the MoE
families here have all their dense layers first or none).

The activation and CUDA reserve (what vLLM's profiling run measures besides weights):
    activation peak = max(forward, sampler)
    forward = 2 B · T · (3 · W_ffn + 4 · hidden)
    sampler = 8 B · S · vocab + 2 B · T · hidden
T = the token budget (max_num_batched_tokens, the profiling run's tokens), W_ffn the
widest FFN intermediate one token has on a card (intermediate / tp; for MoE
k · moe_intermediate / tp, or / ep under expert parallelism, plus the shared experts'
width / tp): the gate/up output (2·W), the activation's output (W) and four hidden-wide
BF16 tensors (residual, normed input, attention output, the FFN's output) of every token;
S = max_num_seqs rows of FP32 logits and probabilities (8 B per vocab entry) for the
sampler. The larger of the two, not their sum: vLLM V1's GPUModelRunner.profile_run
(vllm/v1/worker/gpu_model_runner.py, v0.11) runs the forward at T tokens, which frees its
activations when it returns, then the dummy sampler on its output while only the
forward's hidden states (T × hidden, BF16) are still held, and the profile takes the
peak over both. Plus non_torch_bytes(tp) for what PyTorch's allocator does not see (cuBLAS, NCCL
and custom all-reduce buffers), read off public vLLM logs of non_torch_memory: 0.09 to
1.79 GiB on one card (0.5 GiB taken), 3.58 GiB at tp=2 (PR #10511), 7.16 GiB at tp=8 on
H200 (a public 8-card log); between them linear in log2(tp), flat beyond (NCCL's buffers
grow with the ranks a card talks to). An estimate: give kv_pool_bytes= from your own
engine's log where it matters.
Check: Llama-3.1-8B with T = 8192 and S = 256 gives 0.91 GiB (the forward; the sampler's
0.31 GiB comes after it) against the 1.19 to 1.26 GiB "PyTorch activation peak memory" of
vLLM's logs on 80 GB cards (vllm-project/vllm PR #10511 and its successors): the forward's
estimate is low by about 0.3 GiB there, some 2,400 tokens of the 447,088 (the blocks
stay within 1%). Where the sum of the two stood, Qwen3-32B on one H100 (1,825 blocks) could
not hold one 32,000-token prompt, which vLLM 0.11 served there with its default
max_model_len of 40,960 (GPUStack's performance lab): its own start-up check asks the pool
for one such request, so vLLM's pool was at least 2,560 blocks, the lab's is 2,122. CUDA graphs are captured after the KV cache is allocated and
live in the 1 − gpu_memory_utilization margin, as in vLLM.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

from core.model_config.architecture import Architecture, GroupedAttention
from core.model_config.counting import attention_weights
from core.units import GiB

VOCAB_PADDING = 64  # vLLM's DEFAULT_VOCAB_PADDING_SIZE
# (tp, GiB of non-torch memory per card): the module's note says where each is from.
NON_TORCH_GIB_BY_TP = ((1, 0.5), (2, 3.58), (8, 7.16))


def pp_partitions(layers: int, pp: int) -> tuple[int, ...]:
    """Layers per stage, vLLM's get_pp_indices without VLLM_PP_LAYER_PARTITION."""
    parts = [layers // pp] * pp
    for i in range(2, layers % pp + 2):
        parts[-i] += 1
    return tuple(parts)


def kv_heads_per_rank(kv_heads: int, tp: int) -> int:
    """⌈kv_heads / tp⌉: replicated (one head a rank) when kv_heads < tp."""
    return -(-kv_heads // tp)


@dataclass(frozen=True)
class Shard:
    """One TP rank's matrices (weights) per layer, and the small replicated parts."""

    attention: int  # attention matrices of one layer
    dense_ffn: int  # a dense layer's FFN
    moe_always: int  # a MoE layer's router + shared experts
    expert: int  # one routed expert on this card (a 1/tp slice, or whole under EP)
    experts_per_card: int
    active_experts: float  # routed experts' work one token does on this card, in experts
    small_per_layer: int  # norms and biases (whole on every rank)
    dense_bias: int
    vocab_rows: int  # embedding (and lm_head) rows on this rank
    kv_values_per_layer: int  # KV cache values per token per layer on this rank
    ffn_width: float  # the widest FFN intermediate of one token on this card

    def layer_matrices(self, sparse: bool) -> int:
        if sparse:
            return self.attention + self.moe_always + self.experts_per_card * self.expert
        return self.attention + self.dense_ffn

    def layer_active_matrices(self, sparse: bool) -> float:
        if sparse:
            return self.attention + self.moe_always + self.active_experts * self.expert
        return self.attention + self.dense_ffn


def shard(arch: Architecture, tp: int, ep: int) -> Shard:
    """One rank's share (tp divides the heads; the caller checks)."""
    h, a = arch.hidden_size, arch.attention
    att = attention_weights(arch)
    if isinstance(a, GroupedAttention):
        kvr = kv_heads_per_rank(a.kv_heads, tp)
        attention = 2 * h * (a.heads // tp) * a.head_dim + 2 * h * kvr * a.head_dim
        kv_values = 2 * kvr * a.head_dim
    else:  # MLA: latent path whole, per-head up-projections split
        qk = a.qk_nope_head_dim + a.qk_rope_head_dim
        latent = a.kv_lora_rank + a.qk_rope_head_dim
        heads = a.heads // tp
        q = h * heads * qk if a.q_lora_rank is None else h * a.q_lora_rank + a.q_lora_rank * heads * qk
        attention = q + h * latent + a.kv_lora_rank * heads * (a.qk_nope_head_dim + a.v_head_dim) + heads * a.v_head_dim * h
        kv_values = latent
    gated = 3 * h
    dense_ffn = gated * arch.intermediate_size // tp if tp > 1 else gated * arch.intermediate_size
    e = arch.experts
    moe_always = expert = per_card = 0
    active = 0.0
    width = arch.intermediate_size / tp if arch.dense_layers else 0.0
    if e is not None:
        shared = gated * e.shared_intermediate_size
        moe_always = h * e.count + (shared // tp if tp > 1 else shared)
        if ep > 1:
            expert, per_card = gated * e.intermediate_size, -(-e.count // ep)
            active = e.per_token * per_card / e.count
            moe_width = e.per_token * e.intermediate_size / ep
        else:
            expert = gated * e.intermediate_size // tp if tp > 1 else gated * e.intermediate_size
            per_card, active = e.count, float(e.per_token)
            moe_width = e.per_token * e.intermediate_size / tp
        width = max(width, moe_width + e.shared_intermediate_size / tp)
    padded = -(-arch.vocab_size // VOCAB_PADDING) * VOCAB_PADDING
    rows = -(-padded // tp)
    dense_bias = (2 * arch.intermediate_size + h) if arch.mlp_bias else 0
    return Shard(attention, dense_ffn, moe_always, expert, per_card, active, att.biases + att.norms + 2 * h,
                 dense_bias, rows, kv_values, width)


@dataclass(frozen=True)
class Stage:
    """One PP stage on one TP rank: its layers and what it holds."""

    layers: int
    dense_layers: int
    matrices: int  # quantized: the layers' matrices
    plain: int  # BF16: norms, biases, embedding / lm_head rows on this stage
    embedding: int  # input-embedding values held here (0 but on the first stage)
    active_matrices: float  # matrix weights one token passes through on this stage
    has_lm_head: bool

    def weights_bytes(self, bytes_per_weight: float, plain_bytes: float) -> float:
        return self.matrices * bytes_per_weight + self.plain * plain_bytes


def stages(arch: Architecture, s: Shard, pp: int) -> tuple[Stage, ...]:
    h = arch.hidden_size
    out, start = [], 0
    parts = pp_partitions(arch.num_layers, pp)
    for i, n in enumerate(parts):
        dense = max(0, min(start + n, arch.dense_layers) - start)
        sparse = n - dense
        first, last = i == 0, i == len(parts) - 1
        embedding = s.vocab_rows * h if first else 0
        head = s.vocab_rows * h if last and (pp > 1 or not arch.tie_word_embeddings) else 0
        plain = n * s.small_per_layer + dense * s.dense_bias + embedding + head + (h if last else 0)
        matrices = dense * s.layer_matrices(False) + sparse * s.layer_matrices(True)
        active = dense * s.layer_active_matrices(False) + sparse * s.layer_active_matrices(True)
        out.append(Stage(n, dense, matrices, plain, embedding, active, last))
        start += n
    return tuple(out)


def non_torch_bytes(tp: int) -> float:
    """Memory outside PyTorch's allocator on one card of a tp-way group (the module's note)."""
    x = math.log2(max(tp, 1))
    points = [(math.log2(t), gib) for t, gib in NON_TORCH_GIB_BY_TP]
    if x >= points[-1][0]:
        return points[-1][1] * GiB
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x <= x1:
            return (y0 + (y1 - y0) * (x - x0) / (x1 - x0)) * GiB
    return points[0][1] * GiB


def reserve_bytes(arch: Architecture, s: Shard, token_budget: int, max_num_seqs: int, tp: int = 1) -> float:
    """The activation peak and non-torch memory of one card (the module's note)."""
    padded = -(-arch.vocab_size // VOCAB_PADDING) * VOCAB_PADDING
    forward = 2.0 * token_budget * (3.0 * s.ffn_width + 4.0 * arch.hidden_size)
    sampler = 8.0 * max_num_seqs * padded + 2.0 * token_budget * arch.hidden_size
    return max(forward, sampler) + non_torch_bytes(tp)
