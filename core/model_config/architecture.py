"""A decoder's shape as the counting needs it, read from a Hugging Face config.json.

Families and the fields each reads (defaults are the transformers config classes' own):
- llama, mistral, qwen2, qwen3: hidden_size, num_hidden_layers, num_attention_heads,
  num_key_value_heads (default: num_attention_heads), head_dim (default: hidden_size /
  num_attention_heads), intermediate_size, vocab_size, tie_word_embeddings (default false).
  qwen2 has q/k/v biases; qwen3 has q_norm and k_norm; llama's attention_bias and mlp_bias
  add biases; mistral's sliding_window is noted, and its KV counted for every position.
- qwen3_moe: the qwen3 attention, num_experts, num_experts_per_tok, moe_intermediate_size,
  decoder_sparse_step and mlp_only_layers (those layers use intermediate_size).
- mixtral: num_local_experts, num_experts_per_tok; each expert is intermediate_size wide.
- deepseek_v3 (and deepseek_v2): multi-head latent attention (q_lora_rank, kv_lora_rank,
  qk_nope_head_dim, qk_rope_head_dim, v_head_dim) and MoE (n_routed_experts,
  n_shared_experts, num_experts_per_tok, moe_intermediate_size, first_k_dense_replace,
  moe_layer_freq). num_nextn_predict_layers (the MTP module) is not part of the model.
A multimodal config (Qwen3-VL) is read through its text_config.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from core.model_config.reading import Fields

DENSE = ("llama", "mistral", "qwen2", "qwen3")
FAMILIES = DENSE + ("qwen3_moe", "mixtral", "deepseek_v3", "deepseek_v2")
# The language model inside multimodal configs, by its text_config model_type.
ALIASES = {"qwen3_vl_text": "qwen3", "qwen3_vl": "qwen3", "qwen2_5_vl_text": "qwen2",
           "qwen2_vl_text": "qwen2", "qwen3_vl_moe_text": "qwen3_moe", "kimi_k2": "deepseek_v3"}
VALID = ("a Hugging Face config.json of " + ", ".join(FAMILIES)
         + " (model_type, hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size, ...)")

# Bounds far above any released model, low enough that nothing overflows or hangs.
MAX_WIDTH = 1 << 20
MAX_LAYERS = 10_000
MAX_VOCAB = 1 << 24
MAX_EXPERTS = 1 << 16


@dataclass(frozen=True)
class GroupedAttention:
    """Multi-head attention with grouped K/V heads (MHA when kv_heads == heads)."""

    heads: int
    kv_heads: int
    head_dim: int
    qk_norm: bool = False
    qkv_bias: bool = False
    o_bias: bool = False


@dataclass(frozen=True)
class LatentAttention:
    """DeepSeek's multi-head latent attention: K and V come from one cached latent of
    kv_lora_rank plus a shared RoPE key of qk_rope_head_dim."""

    heads: int
    q_lora_rank: int | None
    kv_lora_rank: int
    qk_nope_head_dim: int
    qk_rope_head_dim: int
    v_head_dim: int
    bias: bool = False


@dataclass(frozen=True)
class Experts:
    """The MoE feed-forward of a sparse layer (every expert a gated MLP)."""

    count: int
    per_token: int
    intermediate_size: int
    shared_intermediate_size: int = 0  # always-on shared experts, as one MLP this wide


@dataclass(frozen=True)
class Architecture:
    name: str
    family: str
    hidden_size: int
    num_layers: int
    vocab_size: int
    tie_word_embeddings: bool
    attention: GroupedAttention | LatentAttention
    intermediate_size: int  # dense layers' FFN width (0 when every layer is sparse)
    mlp_bias: bool = False
    experts: Experts | None = None
    sparse_layers: int = 0  # layers whose FFN is the experts
    sliding_window: int | None = None
    notes: tuple[str, ...] = ()

    @property
    def dense_layers(self) -> int:
        return self.num_layers - self.sparse_layers


def architecture(config: Fields, name: str) -> Architecture:
    """The architecture a config describes, or ParamError naming the field."""
    text = config.child("text_config")
    lm = text if text is not None and not config.has("hidden_size") else config
    family = lm.text("model_type") or config.text("model_type")
    if family is None:
        raise config.missing("model_type")
    family = ALIASES.get(family, family)
    if family not in FAMILIES:
        raise lm.refuse("model_type", f"{family!r} is not a family the lab counts",
                        "one of " + ", ".join(FAMILIES))
    h = lm.whole("hidden_size", 1, MAX_WIDTH)
    layers = lm.whole("num_hidden_layers", 1, MAX_LAYERS)
    vocab = lm.whole("vocab_size", 1, MAX_VOCAB)
    # A multimodal config may keep tie_word_embeddings at the top level only.
    tie = lm.flag("tie_word_embeddings", config.flag("tie_word_embeddings", False))
    heads = lm.whole("num_attention_heads", 1, MAX_WIDTH)
    common: dict[str, Any] = dict(name=name, family=family, hidden_size=h, num_layers=layers, vocab_size=vocab,
                  tie_word_embeddings=tie)
    if family in ("deepseek_v3", "deepseek_v2"):
        return _deepseek(lm, common, heads)
    attention = _grouped_attention(lm, family, h, heads)
    notes = []
    window = _sliding_window(lm, family)
    if window is not None:
        notes.append(f"sliding_window {window:,}: KV counted for every position (no window modelled)")
    if family == "qwen3_moe":
        experts, sparse, dense_width = _qwen3_moe(lm, layers)
    elif family == "mixtral":
        width = lm.whole("intermediate_size", 1, MAX_WIDTH)
        count = lm.whole("num_local_experts", 1, MAX_EXPERTS)
        experts = Experts(count, _per_token(lm, count), width)
        sparse, dense_width = layers, 0
    else:
        experts, sparse, dense_width = None, 0, lm.whole("intermediate_size", 1, MAX_WIDTH)
    mlp_bias = family == "llama" and lm.flag("mlp_bias", False)
    return Architecture(**common, attention=attention, intermediate_size=dense_width, mlp_bias=mlp_bias,
                        experts=experts, sparse_layers=sparse, sliding_window=window, notes=tuple(notes))


def _grouped_attention(lm: Fields, family: str, h: int, heads: int) -> GroupedAttention:
    kv_heads = lm.whole("num_key_value_heads", 1, MAX_WIDTH, default=heads)
    if heads % kv_heads:
        raise lm.refuse("num_key_value_heads", f"{kv_heads:,} does not divide num_attention_heads {heads:,}",
                        "a divisor of num_attention_heads")
    if lm.has("head_dim"):
        head_dim = lm.whole("head_dim", 1, MAX_WIDTH)
    elif h % heads:
        raise lm.missing("head_dim")  # hidden_size / heads is not whole: the file must say
    else:
        head_dim = h // heads
    bias = lm.flag("attention_bias", False)
    if family == "qwen2":  # Qwen2 always has q/k/v biases and none on o_proj
        return GroupedAttention(heads, kv_heads, head_dim, qkv_bias=True)
    if family == "mistral":
        return GroupedAttention(heads, kv_heads, head_dim)
    qk_norm = family in ("qwen3", "qwen3_moe")
    return GroupedAttention(heads, kv_heads, head_dim, qk_norm=qk_norm, qkv_bias=bias, o_bias=bias)


def _sliding_window(lm: Fields, family: str) -> int | None:
    if family == "mistral":
        return lm.whole("sliding_window", 1, 1 << 40, required=False)
    if family in ("qwen2", "qwen3", "qwen3_moe") and lm.flag("use_sliding_window", False):
        return lm.whole("sliding_window", 1, 1 << 40, required=False)
    return None


def _per_token(lm: Fields, count: int) -> int:
    k = lm.whole("num_experts_per_tok", 1, MAX_EXPERTS)
    if k > count:
        raise lm.refuse("num_experts_per_tok", f"{k:,} is more than the {count:,} experts",
                        f"a whole number in [1, {count:,}]")
    return k


def _qwen3_moe(lm: Fields, layers: int) -> tuple[Experts, int, int]:
    count = lm.whole("num_experts", 1, MAX_EXPERTS)
    experts = Experts(count, _per_token(lm, count), lm.whole("moe_intermediate_size", 1, MAX_WIDTH))
    step = lm.whole("decoder_sparse_step", 1, MAX_LAYERS, default=1)
    dense_only = set(lm.whole_list("mlp_only_layers", 0, layers - 1, MAX_LAYERS))
    # transformers Qwen3MoeDecoderLayer: sparse unless listed, and only every step-th layer.
    sparse = sum(1 for i in range(layers) if i not in dense_only and (i + 1) % step == 0)
    dense_width = lm.whole("intermediate_size", 1, MAX_WIDTH) if sparse < layers else 0
    return experts, sparse, dense_width


def _deepseek(lm: Fields, common: dict, heads: int) -> Architecture:
    q_rank = lm.whole("q_lora_rank", 1, MAX_WIDTH, required=False)  # null: a full q_proj (V2-Lite)
    attention = LatentAttention(
        heads=heads, q_lora_rank=q_rank,
        kv_lora_rank=lm.whole("kv_lora_rank", 1, MAX_WIDTH),
        qk_nope_head_dim=lm.whole("qk_nope_head_dim", 0, MAX_WIDTH),
        qk_rope_head_dim=lm.whole("qk_rope_head_dim", 0, MAX_WIDTH),
        v_head_dim=lm.whole("v_head_dim", 1, MAX_WIDTH),
        bias=lm.flag("attention_bias", False))
    if attention.qk_nope_head_dim + attention.qk_rope_head_dim == 0:
        raise lm.refuse("qk_nope_head_dim", "qk_nope_head_dim + qk_rope_head_dim is 0", "a positive sum")
    layers = common["num_layers"]
    count = lm.whole("n_routed_experts", 1, MAX_EXPERTS, required=False)
    experts, sparse = None, 0
    if count is not None:
        width = lm.whole("moe_intermediate_size", 1, MAX_WIDTH)
        shared = lm.whole("n_shared_experts", 0, MAX_EXPERTS, required=False) or 0
        experts = Experts(count, _per_token(lm, count), width, shared * width)
        first = lm.whole("first_k_dense_replace", 0, layers, default=0)
        freq = lm.whole("moe_layer_freq", 1, MAX_LAYERS, default=1)
        # transformers DeepseekV3 / the reference model: MoE from layer first_k_dense_replace on.
        sparse = sum(1 for i in range(first, layers) if i % freq == 0)
    dense_width = lm.whole("intermediate_size", 1, MAX_WIDTH) if sparse < layers else 0
    notes = ("MLA attention FLOPs per pair: 2·heads·(qk_nope + qk_rope) for QKᵀ + 2·heads·v_head_dim for PV "
             "(the non-absorbed form prefill kernels run)",)
    return Architecture(**common, attention=attention, intermediate_size=dense_width, experts=experts,
                        sparse_layers=sparse, notes=notes)
