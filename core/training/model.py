"""Dense decoder shapes from the catalog, and the counting rules of the chapter.

Conventions (shared/data/README.md, checked against the book's printed figures):
- a matrix costs 2 FLOPs per weight per row (one multiply-add) in the forward pass;
- the input embedding table is a lookup, no matrix product;
- the untied lm_head counts only on rows that produce logits;
- attention costs 2 · heads · head_dim FLOPs per query-key pair for QK^T and the same
  again for PV, per layer; causal pairs of L tokens are L(L+1)/2; a decode step at
  context c attends c+1 keys;
- training = 3 x forward (forward, gradient of the input, gradient of the weight).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import TypeVar

import numpy as np

from core import catalog
from core.model_config.as_catalog import model_or_config, refuse_unless_dense

# A count of rows or pairs: one number, or an array of them (one per round, per request).
Count = TypeVar("Count", float, np.ndarray)

# Keys a catalog entry needs to be counted as a dense decoder.
_SHAPE_KEYS = ("hidden_size", "num_layers", "num_attention_heads", "num_kv_heads", "head_dim",
               "intermediate_size", "vocab_size")

TRAINING_PASSES = 3  # forward + input gradient + weight gradient, each as costly as the forward


@dataclass(frozen=True)
class DecoderShape:
    key: str
    hidden_size: int
    num_layers: int
    num_attention_heads: int
    num_kv_heads: int
    head_dim: int
    intermediate_size: int
    vocab_size: int
    tie_word_embeddings: bool = False
    qk_norm: bool = False
    layer_bias_weights: int = 0  # q/k/v (Qwen2) or Llama's attention/MLP biases: stored, not matrix work

    # --- parameters -------------------------------------------------------------------
    @property
    def layer_matrix_weights(self) -> int:
        """q, k, v, o projections and the gated FFN (gate, up, down) of one layer."""
        h, q_width, kv_width = self.hidden_size, self.num_attention_heads * self.head_dim, self.num_kv_heads * self.head_dim
        attention = h * q_width + 2 * h * kv_width + q_width * h
        ffn = 3 * h * self.intermediate_size
        return attention + ffn

    @property
    def layer_norm_weights(self) -> int:
        norms = 2 * self.hidden_size  # before attention and before the FFN
        if self.qk_norm:
            norms += 2 * self.head_dim  # q_norm, k_norm act per head and share weights
        return norms

    @property
    def matrix_weights(self) -> int:
        """Layer matrices, excluding the input embedding and the lm_head."""
        return self.num_layers * self.layer_matrix_weights

    @property
    def embedding_weights(self) -> int:
        return self.vocab_size * self.hidden_size

    @property
    def lm_head_weights(self) -> int:
        """Weights of the output projection (shared with the embedding when tied)."""
        return self.vocab_size * self.hidden_size

    @property
    def parameters(self) -> int:
        untied_head = 0 if self.tie_word_embeddings else self.lm_head_weights
        final_norm = self.hidden_size
        return (self.matrix_weights + self.num_layers * (self.layer_norm_weights + self.layer_bias_weights)
                + final_norm + self.embedding_weights + untied_head)

    # --- forward FLOPs ----------------------------------------------------------------
    @property
    def flops_per_pair_per_layer(self) -> int:
        """QK^T plus PV for one query-key pair in one layer, forward."""
        return 2 * 2 * self.num_attention_heads * self.head_dim

    def matrix_forward_flops(self, rows: Count) -> Count:
        """Layer projections and FFN over `rows` token rows (no embedding, no lm_head)."""
        return 2.0 * self.matrix_weights * rows

    def lm_head_forward_flops(self, logit_rows: float) -> float:
        return 2.0 * self.lm_head_weights * logit_rows

    def attention_forward_flops(self, pairs: Count) -> Count:
        return float(self.flops_per_pair_per_layer) * self.num_layers * pairs

    def layer_forward_flops(self, rows: float, pairs: float) -> float:
        """One layer: its matrices on every row plus its attention over the pairs."""
        return 2.0 * self.layer_matrix_weights * rows + float(self.flops_per_pair_per_layer) * pairs

    def teacher_forcing_forward_flops(self, tokens: int) -> float:
        """One forward over a known sequence of `tokens` rows, logits on every row."""
        return (self.matrix_forward_flops(tokens) + self.lm_head_forward_flops(tokens)
                + self.attention_forward_flops(causal_pairs(tokens)))

    def generation_flops(self, prompt_tokens: int, output_tokens: int) -> float:
        """Prefill of P rows (logits on the last row only), then G-1 decode steps.

        Decode step j (j = 0 .. G-2) starts at context P + j and attends P + j + 1 keys.
        """
        prefill = (self.matrix_forward_flops(prompt_tokens) + self.lm_head_forward_flops(1)
                   + self.attention_forward_flops(causal_pairs(prompt_tokens)))
        steps = max(output_tokens - 1, 0)
        # Σ_{j=0}^{steps-1} (P + j + 1) keys, in closed form.
        keys = steps * (prompt_tokens + 1) + steps * (steps - 1) // 2
        decode = (steps * (self.matrix_forward_flops(1) + self.lm_head_forward_flops(1))
                  + self.attention_forward_flops(keys))
        return prefill + decode

    # --- memory -----------------------------------------------------------------------
    def activation_bytes_per_token_per_layer(self, dtype_bytes: int = 2) -> int:
        """An estimate of what one layer keeps for its backward, per token (BF16).

        The book gives no figure; this counts the tensors a fused (flash) attention layer
        with a gated FFN saves: the layer input, both normed inputs, q and k before and
        after their norms, v, the attention output, the FFN input, gate, up and their
        product. Softmax scores are not kept (flash attention recomputes them).
        """
        h = self.hidden_size
        q = self.num_attention_heads * self.head_dim
        kv = self.num_kv_heads * self.head_dim
        elements = (h          # layer input (residual stream) for the first norm
                    + h        # normed input, shared by q/k/v projections
                    + q + kv   # q, k before their norms
                    + q + 2 * kv  # q, k (after norm and rope), v for attention backward
                    + q        # attention output, the o projection's input
                    + h        # input of the second norm
                    + h        # normed input of gate and up
                    + 3 * self.intermediate_size)  # gate, up, and act(gate)*up for down
        if not self.qk_norm:
            elements -= q + kv
        return elements * dtype_bytes


def causal_pairs(tokens: float) -> float:
    """Query-key pairs of one causal sequence: L(L+1)/2."""
    return tokens * (tokens + 1) // 2 if float(tokens).is_integer() else tokens * (tokens + 1) / 2


def shape(key: str) -> DecoderShape:
    """A catalog model by key, or a dense decoder's config.json by path (read each time, so
    an edited file counts anew; refused with ParamError('model') naming file and field)."""
    if key in catalog.model_keys():
        return _catalog_shape(key)
    m = model_or_config(key, param="model")
    refuse_unless_dense(m, "model")
    h, q, kv, inner = m["hidden_size"], m["num_attention_heads"] * m["head_dim"], m["num_kv_heads"] * m["head_dim"], m["intermediate_size"]
    biases = ((q + 2 * kv) if m.get("qkv_bias") else 0) + (h if m.get("o_bias") else 0) + ((2 * inner + h) if m.get("mlp_bias") else 0)
    return DecoderShape(key=m.key, **{k: int(m[k]) for k in _SHAPE_KEYS}, tie_word_embeddings=bool(m["tie_word_embeddings"]),
                        qk_norm=bool(m["qk_norm"]), layer_bias_weights=biases)


@cache
def _catalog_shape(key: str) -> DecoderShape:
    m = catalog.model(key)
    missing = [k for k in _SHAPE_KEYS if m.get(k) is None]
    if missing:
        raise KeyError(f"model {key!r} lacks {', '.join(missing)} in the catalog")
    return DecoderShape(key=key, **{k: int(m[k]) for k in _SHAPE_KEYS},
                        tie_word_embeddings=bool(m.get("tie_word_embeddings", False)),
                        qk_norm=bool(m.get("qk_norm", False)))


def dense_model_keys() -> tuple[str, ...]:
    """Catalog models with the full dense decoder shape (usable by the training counts)."""
    keys = []
    for key in catalog.model_keys():
        m = catalog.model(key)
        if all(m.get(k) is not None for k in _SHAPE_KEYS):
            keys.append(key)
    return tuple(keys)


def memory_hardware_keys() -> tuple[str, ...]:
    return tuple(k for k in catalog.hardware_keys() if catalog.hardware(k).memory_bytes)
