"""Frozen copies of the few types the frozen engine needs, so it imports nothing of live
core: the step cost's formulas (StepCost at f7c3f1a, its coefficients read from whatever
cost object the caller's config carries) and the records it returns (ReplayResult)."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

COST_FIELDS = ("weights_bytes", "kv_bytes_per_token", "matrix_flops_per_token", "lm_head_flops_per_row",
               "attention_flops_per_pair", "bandwidth_bytes_per_s", "peak_flops", "bandwidth_efficiency",
               "prefill_mfu", "overhead_s")


class Never:
    """A cancel token that never fires."""

    def check(self) -> None:
        return None


NEVER = Never()


@dataclass(frozen=True)
class StepCost:
    weights_bytes: float
    kv_bytes_per_token: float
    matrix_flops_per_token: float
    lm_head_flops_per_row: float
    attention_flops_per_pair: float
    bandwidth_bytes_per_s: float
    peak_flops: float
    bandwidth_efficiency: float
    prefill_mfu: float
    overhead_s: float

    @classmethod
    def of(cls, cost) -> StepCost:
        return cls(**{name: getattr(cost, name) for name in COST_FIELDS})

    @property
    def seconds_per_byte(self) -> float:
        return 1.0 / (self.bandwidth_bytes_per_s * self.bandwidth_efficiency)

    @property
    def seconds_per_flop(self) -> float:
        return 1.0 / (self.peak_flops * self.prefill_mfu)

    def step_time(self, rows: float, logit_rows: float, kv_tokens: float, pairs: float) -> float:
        memory = (self.weights_bytes + self.kv_bytes_per_token * kv_tokens) * self.seconds_per_byte
        compute = (self.matrix_flops_per_token * rows + self.lm_head_flops_per_row * logit_rows
                   + self.attention_flops_per_pair * pairs) * self.seconds_per_flop
        return self.overhead_s + (memory if memory > compute else compute)

    def decode_lines(self, n: int, context_sum: float) -> tuple[float, float, float, float]:
        spb, spf = self.seconds_per_byte, self.seconds_per_flop
        a_mem = (self.weights_bytes + self.kv_bytes_per_token * context_sum) * spb
        b_mem = self.kv_bytes_per_token * n * spb
        a_cmp = ((self.matrix_flops_per_token + self.lm_head_flops_per_row) * n
                 + self.attention_flops_per_pair * context_sum) * spf
        b_cmp = self.attention_flops_per_pair * n * spf
        return a_mem, b_mem, a_cmp, b_cmp

    def decode_time(self, n: int, context_sum: float, k: int) -> float:
        if k <= 0:
            return 0.0
        a1, b1, a2, b2 = self.decode_lines(n, context_sum)
        return self.overhead_s * k + _sum_of_max(a1, b1, a2, b2, k)


def _sum_lin(a: float, b: float, j0: int, j1: int) -> float:
    if j1 < j0:
        return 0.0
    count = j1 - j0 + 1
    return a * count + b * (j0 + j1) * count / 2.0


def _sum_of_max(a1: float, b1: float, a2: float, b2: float, k: int) -> float:
    first1, last1 = a1 + b1, a1 + b1 * k
    first2, last2 = a2 + b2, a2 + b2 * k
    if first1 >= first2 and last1 >= last2:
        return _sum_lin(a1, b1, 1, k)
    if first2 >= first1 and last2 >= last1:
        return _sum_lin(a2, b2, 1, k)
    cross = int((a2 - a1) / (b1 - b2))
    cross = min(max(cross, 0), k)
    if first1 >= first2:
        return _sum_lin(a1, b1, 1, cross) + _sum_lin(a2, b2, cross + 1, k)
    return _sum_lin(a2, b2, 1, cross) + _sum_lin(a1, b1, cross + 1, k)


@dataclass
class ReplayResult:
    arrival_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    first_schedule_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    preemptions: np.ndarray
    preempt_log: list
    series_t: np.ndarray
    series_waiting: np.ndarray
    series_running: np.ndarray
    series_kv_blocks: np.ndarray
    series_tokens: np.ndarray
    num_blocks: int
    engine_steps: int
    decode_tokens: int
    prefill_tokens: int
    kv_peak_blocks: int
    wall_s: float = 0.0
    events: int = 0
    closed_form_steps: int = 0
    cached_tokens: np.ndarray | None = None
    series_steps: np.ndarray | None = None
    series_decode_rows: np.ndarray | None = None
    extras: dict = field(default_factory=dict)
