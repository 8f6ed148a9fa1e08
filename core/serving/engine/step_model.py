"""The step-time model seam: what the compiled loop asks for a step's time.

The loop passes a step's rows (tokens processed), logit rows (rows that produce a token),
KV tokens read or written and query-key pairs, or a run of k lockstep decode steps of n
requests whose contexts sum to C (closed form). It cannot call Python, so a model is a
kind id and a coefficient array (`coefficients`), priced by pricing.py's kernels, which
dispatch on the kind. Today there is one kind, the roofline of core.serving.step_cost
(StepCost), with its formulas written in the same order so the floats are bit for bit
StepCost's. A new model (issue 12's calibration) adds a kind here and its formulas there.
"""
from __future__ import annotations

import numpy as np

from core.serving.step_cost import StepCost

ROOFLINE = 0  # kind id: StepCost's roofline
# coefficient slots
KIND, WB, KVB, MF, LM, ATT, SPB, SPF, OVERHEAD = range(9)
NCOEF = 9


def coefficients(cost) -> np.ndarray:
    """The float64 coefficients of a step cost model for the compiled loop. A subclass of
    StepCost that prices steps its own way (overrides step_time or decode_time) cannot run
    inside the compiled loop: refused with TypeError, not priced silently as a roofline."""
    if not isinstance(cost, StepCost):
        raise TypeError(f"the engine prices steps with a StepCost; got {type(cost).__name__}")
    for name in ("step_time", "decode_time", "decode_lines", "seconds_per_byte", "seconds_per_flop"):
        if getattr(type(cost), name) is not getattr(StepCost, name):
            raise TypeError(f"{type(cost).__name__}.{name} prices steps its own way; the compiled engine "
                            "knows the roofline only (add a kind to core/serving/engine/step_model.py)")
    c = np.zeros(NCOEF)
    c[KIND] = ROOFLINE
    c[WB] = cost.weights_bytes
    c[KVB] = cost.kv_bytes_per_token
    c[MF] = cost.matrix_flops_per_token
    c[LM] = cost.lm_head_flops_per_row
    c[ATT] = cost.attention_flops_per_pair
    c[SPB] = cost.seconds_per_byte
    c[SPF] = cost.seconds_per_flop
    c[OVERHEAD] = cost.overhead_s
    return c
