"""The deployment keys of `lab simulate serving` (and of a sweep's serving points): how the
model runs on its cards. core/serving/simulate_keys.py checks them beside model= and
hardware= and builds the deployment (the book's model and card standing in for one not
given), which sets serving.replay's per-card figures (weights_bytes, kv_bytes_per_token,
the FLOPs, peak_flops and, with hardware=, kv_pool_bytes); the engine itself takes only
those numbers. They are not serving.replay's own parameters: the replay's form (the
Serving panel's) takes the per-card figures as they are, and a field there that changed
nothing would mislead. Defaults are the book's run: one card, BF16 weights and cache.
"""
from __future__ import annotations

from core.registry import Param
from core.serving.deployment import DEFAULT_GPU_MEMORY_UTILIZATION
from core.serving.deployment_dtypes import KV_CACHE_DTYPES, QUANTIZATION_CHOICES

MAX_PARALLEL = 1024
DEPLOYMENT_KEYS = ("tp", "pp", "ep", "quantization", "kv_cache_dtype", "gpu_memory_utilization")

DEPLOYMENT_PARAMS = (
    Param("tp", "cards", 1, "tensor parallelism: cards one layer is split across (vLLM --tensor-parallel-size; "
          "KV heads split, replicated when fewer than tp)", 1, MAX_PARALLEL, kind="int"),
    Param("pp", "stages", 1, "pipeline parallelism: stages the layers are split across (vLLM "
          "--pipeline-parallel-size)", 1, MAX_PARALLEL, kind="int"),
    Param("ep", "cards", 1, "expert parallelism for MoE: cards the routed experts are spread over (1: each expert "
          "split by tp; else a multiple of tp dividing tp · replicas, as vLLM --enable-expert-parallel)", 1,
          MAX_PARALLEL, kind="int"),
    Param("quantization", "", "bf16", "the weights' dtype (bytes per weight with scales: bf16 2, fp8 1, nvfp4 "
          "0.5625, mxfp4 0.53125, awq/gptq int4 0.5195; fp4 = nvfp4, int4 = awq)", kind="choice",
          choices=QUANTIZATION_CHOICES),
    Param("kv_cache_dtype", "", "auto", "the KV cache's dtype (auto: the activations' BF16; fp8: 1 byte a value)",
          kind="choice", choices=tuple(KV_CACHE_DTYPES)),
    Param("gpu_memory_utilization", "ratio", DEFAULT_GPU_MEMORY_UTILIZATION, "share of the card's memory the engine "
          "may use: the KV pool is this × memory − weights − activation reserve (with hardware=, unless "
          "kv_pool_bytes= is given)", 0, 1, min_exclusive=True),
)
