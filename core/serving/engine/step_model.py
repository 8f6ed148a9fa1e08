"""The step-time model seam: what the compiled loop asks for a step's time.

The loop passes a step's rows (tokens processed), logit rows (rows that produce a token),
KV tokens read or written and query-key pairs (and, for the basis kind, the step's
sequences and the prompts completing in it), or a run of k lockstep decode steps of n
requests whose contexts sum to C (closed form). It cannot call Python, so a model is a
kind id and a coefficient array (`coefficients`), priced by pricing.py's kernels, which
dispatch on the kind:
- ROOFLINE: core.serving.step_cost.StepCost, its formulas in the same order so the floats
  are bit for bit StepCost's (the book's replay and the frozen oracle);
- BASIS: core.serving.step_basis.BasisCost, the roofline plus the communication, launch,
  per-sequence and per-request terms, each with its coefficient, and two one-off costs
  that depend on what the engine did before the step (one_off.py).
"""
from __future__ import annotations

import numpy as np

from core.serving.step_basis import BasisCost
from core.serving.step_cost import StepCost
from core.serving.step_defaults import CUDA_GRAPH_MAX_TOKENS, EAGER_LAUNCH_FACTOR

ROOFLINE = 0  # kind id: StepCost's roofline
BASIS = 1  # kind id: BasisCost's terms
# coefficient slots (the roofline's first, shared by both kinds)
KIND, WB, KVB, MF, LM, ATT, SPB, SPF, OVERHEAD = range(9)
NCOEF = 9
# the basis kind's: multipliers, ramp rows, pipeline stages, per-layer/sequence/request
# times, all-reduces per step and their per-row and latency times, PP and EP likewise,
# the MoE reads (dense bytes, bytes per distinct expert, E, k, measured shares after
# SHARES), the CUDA-graph bound and the eager factor, the one-off step costs (one_off.py)
(CW, CKV, CPF, CATT, RAMP, PP, LAYER_T, SEQ_T, REQ_T, NAR, TP_ROW, TP_LAT, PP_ROW, PP_LAT, EP_ROW, EP_LAT,
 MOE, MOE_DENSE, MOE_EXPERT, MOE_E, MOE_K, NSHARE, GRAPH_MAX, EAGER, WAKE_T, SHAPE_T, SHARES) = range(9, 36)

_METHODS = ("step_time", "decode_time", "decode_lines", "seconds_per_byte", "seconds_per_flop")


def coefficients(cost) -> np.ndarray:
    """The float64 coefficients of a step cost model for the compiled loop. A StepCost
    subclass other than BasisCost that prices steps its own way (overrides step_time or
    decode_time) cannot run inside the compiled loop: refused with TypeError, not priced
    silently as a roofline."""
    if isinstance(cost, BasisCost) and type(cost) is BasisCost:
        return _basis(cost)
    if not isinstance(cost, StepCost):
        raise TypeError(f"the engine prices steps with a StepCost; got {type(cost).__name__}")
    for name in _METHODS:
        if getattr(type(cost), name) is not getattr(StepCost, name):
            raise TypeError(f"{type(cost).__name__}.{name} prices steps its own way; the compiled engine "
                            "knows the roofline and the basis model only (add a kind to "
                            "core/serving/engine/step_model.py)")
    c = np.zeros(NCOEF)
    _roofline(c, cost)
    return c


def _roofline(c: np.ndarray, cost: StepCost) -> None:
    c[KIND] = ROOFLINE
    c[WB] = cost.weights_bytes
    c[KVB] = cost.kv_bytes_per_token
    c[MF] = cost.matrix_flops_per_token
    c[LM] = cost.lm_head_flops_per_row
    c[ATT] = cost.attention_flops_per_pair
    c[SPB] = cost.seconds_per_byte
    c[SPF] = cost.seconds_per_flop
    c[OVERHEAD] = cost.overhead_s


def _basis(cost: BasisCost) -> np.ndarray:
    moe = cost.moe
    shares = () if moe is None or moe.shares is None else tuple(moe.shares)
    c = np.zeros(SHARES + len(shares))
    _roofline(c, cost)
    c[KIND] = BASIS
    c[CW], c[CKV] = cost.coef_decode_weights, cost.coef_decode_kv
    c[CPF], c[CATT] = cost.coef_prefill_compute, cost.coef_attention
    c[RAMP] = cost.ramp_rows
    c[PP] = cost.pp
    c[LAYER_T] = cost.coef_layer_s * cost.layers
    c[SEQ_T], c[REQ_T] = cost.coef_seq_s, cost.coef_request_s
    c[NAR], c[TP_ROW], c[TP_LAT] = cost.all_reduces, cost.tp_s_per_row, cost.tp_latency_s
    c[PP_ROW], c[PP_LAT] = cost.pp_s_per_row, cost.pp_latency_s
    c[EP_ROW], c[EP_LAT] = cost.ep_s_per_row, cost.ep_latency_s
    c[GRAPH_MAX], c[EAGER] = CUDA_GRAPH_MAX_TOKENS, EAGER_LAUNCH_FACTOR
    c[WAKE_T], c[SHAPE_T] = cost.coef_wake_s, cost.coef_shape_s
    if moe is not None:
        c[MOE] = 1.0
        c[MOE_DENSE] = moe.dense_bytes
        # bytes per distinct expert of the whole model: D_card = D · per_card / E
        c[MOE_EXPERT] = moe.moe_layers * moe.expert_bytes * moe.experts_per_card / moe.experts
        c[MOE_E], c[MOE_K] = moe.experts, moe.top_k
        c[NSHARE] = len(shares)
        c[SHARES:] = shares
    return c


def shape_seen_size(coef: np.ndarray, token_budget: int) -> int:
    """Flags the loop keeps of the step sizes (tokens) run so far: one per size up to the
    token budget where a first size costs something (coef_shape_s > 0), none otherwise."""
    return token_budget + 1 if coef.size > SHAPE_T and coef[SHAPE_T] > 0 else 0
