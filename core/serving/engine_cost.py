"""StepCost's two formulas with its coefficients read once: the engine calls them at every
event, and StepCost recomputes its seconds-per-byte and -per-FLOP properties and goes
through three helper calls each time. Same operations in the same order, so the same
floats bit for bit (tests/core/test_engine_frozen.py checks it). A cost model of another
type keeps its own methods."""
from __future__ import annotations

from core.serving.step_cost import StepCost, _sum_of_max


class StepTimes:
    def __init__(self, cost):
        self.cost = cost
        if type(cost) is not StepCost:  # a subclass may price steps its own way
            self.step_time = cost.step_time
            self.decode_time = cost.decode_time
            return
        self.wb = cost.weights_bytes
        self.kvb = cost.kv_bytes_per_token
        self.mf = cost.matrix_flops_per_token
        self.lm = cost.lm_head_flops_per_row
        self.att = cost.attention_flops_per_pair
        self.spb = cost.seconds_per_byte
        self.spf = cost.seconds_per_flop
        self.overhead = cost.overhead_s
        self.mf_lm = cost.matrix_flops_per_token + cost.lm_head_flops_per_row

    def step_time(self, rows: float, logit_rows: float, kv_tokens: float, pairs: float) -> float:
        memory = (self.wb + self.kvb * kv_tokens) * self.spb
        compute = (self.mf * rows + self.lm * logit_rows + self.att * pairs) * self.spf
        return self.overhead + (memory if memory > compute else compute)

    def decode_time(self, n: int, context_sum: float, k: int) -> float:
        if k <= 0:
            return 0.0
        spb, spf, kvb, att = self.spb, self.spf, self.kvb, self.att
        a1 = (self.wb + kvb * context_sum) * spb
        b1 = kvb * n * spb
        a2 = (self.mf_lm * n + att * context_sum) * spf
        b2 = att * n * spf
        # _sum_of_max written out for the usual case (one line above the other over all k
        # steps: _sum_lin(a, b, 1, k)); lines that cross go through it.
        if a1 + b1 >= a2 + b2 and a1 + b1 * k >= a2 + b2 * k:
            return self.overhead * k + (a1 * k + b1 * (1 + k) * k / 2.0)
        if a2 + b2 >= a1 + b1 and a2 + b2 * k >= a1 + b1 * k:
            return self.overhead * k + (a2 * k + b2 * (1 + k) * k / 2.0)
        return self.overhead * k + _sum_of_max(a1, b1, a2, b2, k)
