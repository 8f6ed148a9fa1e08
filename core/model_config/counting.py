"""Parameters, bytes and FLOPs of an Architecture, by the chapter's counting rules
(shared/data/README.md, as core/training/model.py and core/serving/step_cost.py count):

- a matrix costs 2 FLOPs per weight per row; the input embedding is a lookup (no FLOPs);
  the lm_head (tied or not) costs 2·hidden·vocab on each row that produces logits;
- linear FLOPs per token = 2 × the matrix weights one token passes through: attention
  projections, the dense FFN, and in a sparse layer the router, the shared experts and
  num_experts_per_tok routed experts. Biases and norms are not matrix work;
- attention per query-key pair per layer: QKᵀ 2·heads·d_qk and PV 2·heads·d_v, i.e.
  4·heads·head_dim for grouped attention; for MLA d_qk = qk_nope + qk_rope and d_v =
  v_head_dim (the non-absorbed form);
- KV per token: 2·kv_heads·head_dim per layer; MLA caches (kv_lora_rank + qk_rope_head_dim);
- decode reads every weight but the input embedding once per step. For MoE that is every
  expert: a decode batch of tens of sequences touches most of them;
- parameters count every stored weight (norms and biases too), the lm_head once unless
  tied; active parameters are the same with only num_experts_per_tok routed experts.
"""
from __future__ import annotations

from dataclasses import dataclass

from core.model_config.architecture import Architecture, GroupedAttention, LatentAttention


@dataclass(frozen=True)
class ModelSpec:
    """What the lab needs of a model. Sizes in bytes at dtype_bytes per value."""

    name: str
    family: str
    dtype_bytes: float
    parameters: int
    active_parameters: int
    embedding_parameters: int
    matrix_weights: int  # active layer matrices: no embedding, no lm_head
    weights_bytes: float  # every parameter: what the card must hold
    weights_read_per_step_bytes: float  # every parameter but the input embedding
    kv_bytes_per_token: float
    linear_flops_per_token: float
    lm_head_flops_per_row: float
    attention_flops_per_pair: float
    architecture: Architecture
    source: str = ""
    notes: tuple[str, ...] = ()

    def replay_params(self) -> dict[str, float]:
        """serving.replay's model parameters (StepCost's names)."""
        return {
            "weights_bytes": float(self.weights_read_per_step_bytes),
            "kv_bytes_per_token": float(self.kv_bytes_per_token),
            "matrix_flops_per_token": self.linear_flops_per_token,
            "lm_head_flops_per_row": self.lm_head_flops_per_row,
            "attention_flops_per_pair": self.attention_flops_per_pair,
        }


@dataclass(frozen=True)
class _Layer:
    matrices: int
    biases: int
    norms: int


def attention_weights(arch: Architecture) -> _Layer:
    """One layer's attention: projections, their biases, and the norms inside it."""
    h, a = arch.hidden_size, arch.attention
    if isinstance(a, GroupedAttention):
        q, kv = a.heads * a.head_dim, a.kv_heads * a.head_dim
        matrices = h * q + 2 * h * kv + q * h
        biases = (q + 2 * kv if a.qkv_bias else 0) + (h if a.o_bias else 0)
        norms = 2 * a.head_dim if a.qk_norm else 0  # q_norm, k_norm: one weight per head dim
        return _Layer(matrices, biases, norms)
    qk = a.qk_nope_head_dim + a.qk_rope_head_dim
    latent = a.kv_lora_rank + a.qk_rope_head_dim
    if a.q_lora_rank is None:
        q_matrices, q_norm = h * a.heads * qk, 0
    else:
        q_matrices, q_norm = h * a.q_lora_rank + a.q_lora_rank * a.heads * qk, a.q_lora_rank
    matrices = (q_matrices + h * latent + a.kv_lora_rank * a.heads * (a.qk_nope_head_dim + a.v_head_dim)
                + a.heads * a.v_head_dim * h)
    biases = ((a.q_lora_rank or 0) + latent + h) if a.bias else 0
    return _Layer(matrices, biases, q_norm + a.kv_lora_rank)


def kv_values_per_token_per_layer(arch: Architecture) -> int:
    a = arch.attention
    if isinstance(a, LatentAttention):
        return a.kv_lora_rank + a.qk_rope_head_dim
    return 2 * a.kv_heads * a.head_dim


def attention_flops_per_pair_per_layer(arch: Architecture) -> int:
    a = arch.attention
    if isinstance(a, LatentAttention):
        return 2 * a.heads * (a.qk_nope_head_dim + a.qk_rope_head_dim) + 2 * a.heads * a.v_head_dim
    return 4 * a.heads * a.head_dim


def count(arch: Architecture, dtype_bytes: float = 2, source: str = "") -> ModelSpec:
    h, layers = arch.hidden_size, arch.num_layers
    att = attention_weights(arch)
    gated = 3 * h  # gate, up, down per unit of FFN width
    dense_ffn = gated * arch.intermediate_size
    dense_bias = (2 * arch.intermediate_size + h) if arch.mlp_bias else 0
    sparse_all = sparse_active = 0
    e = arch.experts
    if e is not None:
        always = h * e.count + gated * e.shared_intermediate_size  # router + shared experts
        sparse_all = always + e.count * gated * e.intermediate_size
        sparse_active = always + e.per_token * gated * e.intermediate_size
    dense, sparse = arch.dense_layers, arch.sparse_layers
    shared_matrices = layers * att.matrices + dense * dense_ffn
    matrices_all = shared_matrices + sparse * sparse_all
    matrices_active = shared_matrices + sparse * sparse_active
    small = layers * (att.biases + att.norms + 2 * h) + dense * dense_bias + h  # + the final norm
    embedding = arch.vocab_size * h
    head = 0 if arch.tie_word_embeddings else arch.vocab_size * h
    parameters = matrices_all + small + embedding + head
    active = matrices_active + small + embedding + head
    return ModelSpec(
        name=arch.name, family=arch.family, dtype_bytes=dtype_bytes,
        parameters=parameters, active_parameters=active, embedding_parameters=embedding,
        matrix_weights=matrices_active,
        weights_bytes=parameters * dtype_bytes,
        weights_read_per_step_bytes=(parameters - embedding) * dtype_bytes,
        kv_bytes_per_token=kv_values_per_token_per_layer(arch) * layers * dtype_bytes,
        linear_flops_per_token=2.0 * matrices_active,
        lm_head_flops_per_row=2.0 * arch.vocab_size * h,
        attention_flops_per_pair=float(attention_flops_per_pair_per_layer(arch) * layers),
        architecture=arch, source=source, notes=arch.notes)
