"""How long one engine step takes: a roofline of the model on the card.

A step moves the weights once plus the KV it reads and writes, and does the matrix and
attention FLOPs of every token it processes. It lasts as long as the slower of the two at
an achievable fraction of the datasheet figure, plus a fixed per-step overhead (scheduler,
input preparation, sampling, kernel launches). Counting follows ../data/README.md: 2 FLOPs
per weight per row, no input embedding, the lm_head only on rows that produce a token,
attention 4 · heads · head_dim FLOPs per query-key pair per layer.

This is serving.replay's model (the book's run, `lab verify`). A deployment (model=,
hardware=, tp=, ...) is priced by core/serving/step_basis.py's BasisCost, this roofline
plus the communication, launch, per-sequence and per-request terms.
"""
from __future__ import annotations

from dataclasses import dataclass

from core import catalog
from core.units import GiB

_QWEN = catalog.model("qwen3-8b")
_CARD = catalog.hardware("rtx-pro-6000-blackwell")

QWEN3_8B_LM_HEAD = _QWEN["hidden_size"] * _QWEN["vocab_size"]

# Calibration knobs: one set for every scenario, never fitted per scenario.
# - Bandwidth: weight GEMV/small-GEMM and paged-attention kernels of a large decode batch
#   stream at about 85% of the datasheet bandwidth (streaming copies reach 85-90%).
BANDWIDTH_EFFICIENCY = 0.85
# - Per-step overhead outside the kernels in vLLM V1 at tens of sequences (schedule,
#   prepare inputs, sample, stream the outputs): about 2 ms.
STEP_OVERHEAD_S = 2.0e-3
# - Prefill MFU: large BF16 GEMMs of an 8B model plus FlashAttention on a workstation
#   Blackwell card reach about half of the 503.8 TFLOP/s dense peak (public range
#   0.5-0.7). Of the round values in that range, 0.5 is the one whose last completion of
#   the book's uniform run is closest to the observed one; that single aggregate is the
#   only comparison the knobs saw. Every other figure of both runs (p95s, the shift
#   scenario, preemption counts) is predicted, not fitted.
PREFILL_MFU = 0.50


@dataclass(frozen=True)
class StepCost:
    """Per-step cost coefficients. Times in seconds, sizes in bytes, work in FLOPs."""

    weights_bytes: float = float(_QWEN["weights_read_per_decode_step_bytes"])
    kv_bytes_per_token: float = float(_QWEN["kv_bytes_per_token"])
    matrix_flops_per_token: float = 2.0 * _QWEN["matrix_weights_excluding_embedding_and_lm_head"]
    lm_head_flops_per_row: float = 2.0 * QWEN3_8B_LM_HEAD
    attention_flops_per_pair: float = 4.0 * _QWEN["num_attention_heads"] * _QWEN["head_dim"] * _QWEN["num_layers"]
    bandwidth_bytes_per_s: float = _CARD.figure("bandwidth_bytes_per_s")
    peak_flops: float = _CARD.figure("bf16_dense_flops")
    bandwidth_efficiency: float = BANDWIDTH_EFFICIENCY
    prefill_mfu: float = PREFILL_MFU
    overhead_s: float = STEP_OVERHEAD_S

    @property
    def seconds_per_byte(self) -> float:
        return 1.0 / (self.bandwidth_bytes_per_s * self.bandwidth_efficiency)

    @property
    def seconds_per_flop(self) -> float:
        return 1.0 / (self.peak_flops * self.prefill_mfu)

    def step_time(self, rows: float, logit_rows: float, kv_tokens: float, pairs: float) -> float:
        """rows: tokens processed; kv_tokens: KV tokens read or written; pairs: query-key pairs."""
        memory = (self.weights_bytes + self.kv_bytes_per_token * kv_tokens) * self.seconds_per_byte
        compute = (self.matrix_flops_per_token * rows + self.lm_head_flops_per_row * logit_rows
                   + self.attention_flops_per_pair * pairs) * self.seconds_per_flop
        return self.overhead_s + (memory if memory > compute else compute)

    def decode_lines(self, n: int, context_sum: float) -> tuple[float, float, float, float]:
        """Step j = 1, 2, ... of n lockstep decodes starting from contexts summing to C
        touches C + n·j keys: memory and compute time are each a + b·j. Returns
        (a_mem, b_mem, a_cmp, b_cmp)."""
        spb, spf = self.seconds_per_byte, self.seconds_per_flop
        a_mem = (self.weights_bytes + self.kv_bytes_per_token * context_sum) * spb
        b_mem = self.kv_bytes_per_token * n * spb
        a_cmp = ((self.matrix_flops_per_token + self.lm_head_flops_per_row) * n
                 + self.attention_flops_per_pair * context_sum) * spf
        b_cmp = self.attention_flops_per_pair * n * spf
        return a_mem, b_mem, a_cmp, b_cmp

    def decode_time(self, n: int, context_sum: float, k: int) -> float:
        """Total time of k lockstep decode steps (closed form, exact for the roofline)."""
        if k <= 0:
            return 0.0
        a1, b1, a2, b2 = self.decode_lines(n, context_sum)
        return self.overhead_s * k + _sum_of_max(a1, b1, a2, b2, k)


def _sum_lin(a: float, b: float, j0: int, j1: int) -> float:
    """Σ_{j=j0..j1} (a + b·j)."""
    if j1 < j0:
        return 0.0
    count = j1 - j0 + 1
    return a * count + b * (j0 + j1) * count / 2.0


def _sum_of_max(a1: float, b1: float, a2: float, b2: float, k: int) -> float:
    """Σ_{j=1..k} max(a1 + b1 j, a2 + b2 j): two lines cross at most once."""
    first1, last1 = a1 + b1, a1 + b1 * k
    first2, last2 = a2 + b2, a2 + b2 * k
    if first1 >= first2 and last1 >= last2:
        return _sum_lin(a1, b1, 1, k)
    if first2 >= first1 and last2 >= last1:
        return _sum_lin(a2, b2, 1, k)
    cross = int((a2 - a1) / (b1 - b2))  # the lines swap order after step `cross`
    cross = min(max(cross, 0), k)
    if first1 >= first2:
        return _sum_lin(a1, b1, 1, cross) + _sum_lin(a2, b2, cross + 1, k)
    return _sum_lin(a2, b2, 1, cross) + _sum_lin(a1, b1, cross + 1, k)


def default_token_budget(gpu_memory_bytes: float, is_a100: bool = False) -> int:
    """vLLM's default max_num_batched_tokens for the OpenAI server on GPUs: 8192 on cards
    with at least 70 GiB other than A100, 2048 on smaller ones."""
    return 8192 if gpu_memory_bytes >= 70 * GiB and not is_a100 else 2048


def default_max_num_seqs(gpu_memory_bytes: float, is_a100: bool = False) -> int:
    """vLLM V1's default max_num_seqs for the OpenAI server on GPUs, from the same branch
    of EngineArgs.get_batch_defaults as the token budget: 1024 on cards with at least
    70 GiB other than A100, 256 on the others (A100 included: PR #17885's regression)."""
    return 1024 if gpu_memory_bytes >= 70 * GiB and not is_a100 else 256
