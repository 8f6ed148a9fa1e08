"""The calculator model.config: a config.json (or a catalog model) → parameters, bytes and
FLOPs per token, counted as the chapter counts Qwen3-8B."""
from __future__ import annotations

from core import model_config as mc
from core.registry import BookRef, BookValue, Calculator, Output, Param

DEFAULT_MODEL = "qwen3-8b"


def _compute(config: str, dtype_bytes: float) -> dict:
    spec = mc.model_spec(config, dtype_bytes, param="config")
    return {out.name: getattr(spec, out.name) for out in MODEL_CONFIG.outputs}  # outputs are ModelSpec fields


MODEL_CONFIG = Calculator(
    name="model.config",
    title="你的模型 · your model from its config.json",
    ref=BookRef("3.1.3", "例题 3-1"),
    byte_system="si",  # the book prints 15.14 GB
    params=(
        Param("config", "", DEFAULT_MODEL, "a Hugging Face config.json (" + ", ".join(mc.FAMILIES)
              + ") or a catalog model", kind="path", choices=mc.config_model_keys() or (DEFAULT_MODEL,)),
        Param("dtype_bytes", "bytes", 2, "bytes per weight and per KV value (BF16: 2, FP8: 1, FP4: 0.5)",
              0, mc.MAX_DTYPE_BYTES, min_exclusive=True),
    ),
    outputs=(
        Output("parameters", "params", "every stored weight; the lm_head once unless tied", "embedding + layers + norms (+ lm_head)"),
        Output("active_parameters", "params", "weights one token uses: only num_experts_per_tok routed experts",
               "parameters − (experts − k) · expert"),
        Output("weights_bytes", "bytes", "all weights at dtype_bytes: what the cards must hold", "parameters · dtype"),
        Output("weights_read_per_step_bytes", "bytes", "weights a decode step reads: all but the input embedding (every expert)",
               "(parameters − vocab·hidden) · dtype"),
        Output("kv_bytes_per_token", "bytes", "KV one token keeps over all layers (MLA: the latent and the RoPE key)",
               "2·kv_heads·head_dim·layers·dtype; MLA (kv_lora_rank + qk_rope)·layers·dtype"),
        Output("linear_flops_per_token", "FLOPs", "matrix FLOPs per token, no embedding, no lm_head", "2 · active matrix weights"),
        Output("lm_head_flops_per_row", "FLOPs", "the output projection on a row that produces logits", "2 · hidden · vocab"),
        Output("attention_flops_per_pair", "FLOPs", "QKᵀ and PV per query-key pair over all layers",
               "4·heads·head_dim·layers; MLA 2·heads·(d_qk + d_v)·layers"),
    ),
    compute=_compute,
    # A card's header tag: short. The rules (2 FLOPs per weight per row; sliding windows
    # noted, not modelled) are in core/model_config/counting.py.
    note="按本章计数规则 · the chapter's counting rules",
    book=(
        BookValue("kv_bytes_per_token", 147456, "Qwen3-8B 每 token KV 144 KiB"),
        BookValue("weights_read_per_step_bytes", 15.14e9, "Qwen3-8B BF16 每步读权重 15.14 GB", rel_tol=3.4e-4),
    ),
)

CALCULATORS = (MODEL_CONFIG,)
