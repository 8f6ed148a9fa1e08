"""The weights' and KV cache's data types of a deployment: bytes per value, and which of
the card's dense peaks the matrix work runs at.

Bytes per weight, scales included (the layers' matrices; embeddings, lm_head, norms and
biases stay BF16, as vLLM's quantized checkpoints keep them):
- bf16: 2.
- fp8: 1, one FP32 scale per tensor (vLLM's `--quantization fp8`, W8A8): its overhead is
  one number a matrix, counted as nothing.
- nvfp4: 4-bit values (0.5) + one FP8 E4M3 scale per 16 values (1/16) = 0.5625
  (NVIDIA's NVFP4; the per-tensor FP32 scale counted as nothing).
- mxfp4: 4-bit values (0.5) + one E8M0 scale per 32 values (1/32) = 0.53125 (OCP MX).
- int4 (awq, gptq): 4-bit values (0.5) + per group of 128 one FP16 scale (2) and one
  packed 4-bit zero point (0.5): 0.5 + 2.5/128 = 0.51953125 (the usual group size 128).
Compute: fp8 runs at the card's FP8 peak where it has one (W8A8), nvfp4/mxfp4 at its FP4
peak; a card without that peak, and int4 (W4A16), dequantize to BF16: the BF16 peak.
The KV cache: auto is the activations' dtype, BF16 for every weights dtype here (vLLM's
kv_cache_dtype=auto: the model's dtype); fp8 is 1 byte a value.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class WeightsDtype:
    name: str
    bytes_per_weight: float
    peak: str  # the dtype of the card's peak the matrix work uses where the card has it


QUANTIZATIONS = {
    "bf16": WeightsDtype("bf16", 2.0, "bf16"),
    "fp8": WeightsDtype("fp8", 1.0, "fp8"),
    "nvfp4": WeightsDtype("nvfp4", 0.5 + 1 / 16, "fp4"),
    "mxfp4": WeightsDtype("mxfp4", 0.5 + 1 / 32, "fp4"),
    "awq": WeightsDtype("awq", 0.5 + 2.5 / 128, "bf16"),
    "gptq": WeightsDtype("gptq", 0.5 + 2.5 / 128, "bf16"),
}
# Other names people give the same formats.
QUANTIZATION_ALIASES = {"fp4": "nvfp4", "int4": "awq", "none": "bf16"}
QUANTIZATION_CHOICES = tuple(QUANTIZATIONS) + tuple(QUANTIZATION_ALIASES)
KV_CACHE_DTYPES = {"auto": 2.0, "bf16": 2.0, "fp8": 1.0,
                   "bfloat16": 2.0, "fp8_e4m3": 1.0, "fp8_e5m2": 1.0}  # vLLM --kv-cache-dtype's names of the same
UNQUANTIZED_BYTES = 2.0  # embeddings, lm_head, norms, biases and the activations: BF16


def weights_dtype(name: str) -> WeightsDtype:
    return QUANTIZATIONS[QUANTIZATION_ALIASES.get(name, name)]


def compute_peak(dtype: WeightsDtype, peaks: dict) -> tuple[str, float]:
    """(the dtype whose dense peak the matrix work runs at, that peak) of a card's peaks."""
    if dtype.peak in peaks:
        return dtype.peak, float(peaks[dtype.peak])
    return "bf16", float(peaks["bf16"])
