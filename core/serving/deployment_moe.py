"""MoE decode: the experts a batch's tokens touch, and the bytes a step reads for them.

A token's router picks k of a layer's E experts, without replacement. Under uniform
routing each k-subset is equally likely, so one expert is left out by one token with
probability C(E−1, k) / C(E, k) = (E − k) / E. Tokens route independently, so it is
left out by all b tokens of a step with probability ((E − k) / E)^b, and by linearity of
expectation the expected number of distinct experts the step touches is

    D(b) = E · (1 − ((E − k) / E)^b)        (D(1) = k; D(b) → E as b grows)

A measured skew: give each expert's share of the routing (p_j, the probability a token
picks expert j; Σ p_j = k, each ≤ 1: loads are scaled to that sum); expert j is untouched
by one token with probability 1 − p_j (its marginal, whatever the joint law of the k
picks), so D(b) = Σ_j (1 − (1 − p_j)^b), which is the formula above when p_j = k / E.
A step's weight bytes per card: the dense part (attention, dense layers, router, shared
experts, embeddings' lm_head) + moe_layers · D_card(b) · bytes of one expert on the card,
where D_card is the expected distinct experts among the card's own (E / ep of them under
expert parallelism: by symmetry D(b) · local / E; the card that gets most is not modelled).
FLOPs follow the active experts (k per token), not the touched ones.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def expected_distinct_experts(experts: int, top_k: int, tokens: float) -> float:
    """D(b) under uniform top-k routing (0 for no tokens)."""
    if tokens <= 0:
        return 0.0
    return experts * (1.0 - ((experts - top_k) / experts) ** tokens)


def routing_shares(loads, top_k: int) -> np.ndarray:
    """Per-expert probabilities a token picks each expert, from measured relative loads
    (any positive scale): scaled to sum to top_k, each at most 1 (the excess of a share
    over 1 goes to the others in proportion, as a token cannot pick one expert twice)."""
    p = np.asarray(loads, dtype=float)
    if p.ndim != 1 or p.size < top_k or np.any(p < 0) or not np.any(p > 0):
        raise ValueError("loads: one non-negative figure per expert, at least top_k of them, not all 0")
    p = p / p.sum() * top_k
    for _ in range(p.size):
        over = p > 1.0
        if not over.any():
            break
        free = ~over & (p > 0)
        excess = float(np.sum(p[over] - 1.0))
        p[over] = 1.0
        if not free.any():
            break
        p[free] += excess * p[free] / p[free].sum()
    return p


def expected_distinct_skewed(shares: np.ndarray, tokens: float) -> float:
    """D(b) = Σ_j (1 − (1 − p_j)^b) for routing shares p (routing_shares)."""
    if tokens <= 0:
        return 0.0
    return float(np.sum(1.0 - (1.0 - np.asarray(shares, dtype=float)) ** tokens))


@dataclass(frozen=True)
class MoeReads:
    """The per-deployment constants of a MoE model's weight reads, per card: a step reads
    dense_bytes + moe_layers · D_card(b) · expert_bytes (bytes_per_step)."""

    experts: int  # routed experts per MoE layer (E)
    top_k: int  # experts a token picks (k)
    moe_layers: int  # MoE layers on the cards one step passes through
    experts_per_card: int  # routed experts a card holds per layer (E, or ⌈E / ep⌉)
    expert_bytes: float  # one routed expert's weights on one card (a 1/tp slice, or whole)
    dense_bytes: float  # everything else a step reads per card
    shares: tuple[float, ...] | None = None  # measured routing shares (None: uniform)

    def distinct_per_card(self, tokens: float) -> float:
        if self.shares is not None:
            total = expected_distinct_skewed(np.asarray(self.shares), tokens)
        else:
            total = expected_distinct_experts(self.experts, self.top_k, tokens)
        return total * self.experts_per_card / self.experts

    def bytes_per_step(self, tokens: float) -> float:
        """Weight bytes one card reads in a step over `tokens` batch tokens."""
        return self.dense_bytes + self.moe_layers * self.distinct_per_card(tokens) * self.expert_bytes

    @property
    def all_experts_bytes(self) -> float:
        """What a step reads when it touches every expert (the roofline's old figure)."""
        return self.dense_bytes + self.moe_layers * self.experts_per_card * self.expert_bytes
