"""The basis kind's compiled kernels: core/serving/step_basis.py's BasisCost, the same
formulas in the same order (its docstring says what each term is). A step's time, and a
run of k lockstep decodes in closed form: every term but the memory and compute lines is
constant in the run (its batch is fixed), and those are lines in the step index."""
from __future__ import annotations

import numpy as np

from core.serving.engine.jit import kernel
from core.serving.engine.step_model import (
    ATT,
    CATT,
    CKV,
    CPF,
    CW,
    EAGER,
    EP_LAT,
    EP_ROW,
    GRAPH_MAX,
    KVB,
    LAYER_T,
    LM,
    MF,
    MOE,
    MOE_DENSE,
    MOE_E,
    MOE_EXPERT,
    MOE_K,
    NAR,
    NSHARE,
    OVERHEAD,
    PP,
    PP_LAT,
    PP_ROW,
    RAMP,
    REQ_T,
    SEQ_T,
    SHARES,
    SPB,
    SPF,
    TP_LAT,
    TP_ROW,
    WB,
)


@kernel
def micro_batches(c, seqs):
    """Micro-batches in flight: min(seqs, pp), at least 1."""
    if c[PP] <= 1.0:
        return 1.0
    m = seqs if seqs < c[PP] else c[PP]
    return m if m > 1.0 else 1.0


@kernel
def weights_read(c, tokens):
    """Weight bytes one micro-batch pass reads (MoE: dense + expected distinct experts)."""
    if c[MOE] == 0.0:
        return c[WB]
    if tokens <= 0:
        return c[MOE_DENSE]
    n = np.int64(c[NSHARE])
    if n == 0:
        e = c[MOE_E]
        distinct = e * (1.0 - ((e - c[MOE_K]) / e) ** tokens)
    else:
        distinct = 0.0
        for j in range(n):
            distinct += 1.0 - (1.0 - c[SHARES + j]) ** tokens
    return c[MOE_DENSE] + c[MOE_EXPERT] * distinct


@kernel
def constant_terms(c, rows, seqs, x):
    """Per-sequence, launch, TP, PP and EP times of a step (constant in a decode run)."""
    factor = c[EAGER] if rows > c[GRAPH_MAX] else 1.0
    layer = c[LAYER_T] * factor
    tp = c[NAR] * (c[TP_ROW] * x + c[TP_LAT])
    pp = c[PP_ROW] * x + c[PP_LAT]
    ep = c[EP_ROW] * x + c[EP_LAT]
    return seqs * c[SEQ_T] + layer + tp + pp + ep


@kernel
def basis_step_time(c, rows, logit_rows, kv_tokens, pairs, seqs, new):
    m = micro_batches(c, seqs)
    x = rows / m
    memory = (c[CW] * weights_read(c, x) + c[CKV] * (c[KVB] * kv_tokens) / m) * c[SPB]
    compute = (c[CPF] * (c[MF] * (x + c[RAMP])) + c[LM] * logit_rows / m
               + c[CATT] * (c[ATT] * pairs) / m) * c[SPF]
    t = c[OVERHEAD] + (memory if memory > compute else compute)
    return t + constant_terms(c, rows, seqs, x) + new * c[REQ_T]


@kernel
def _sum_lin(a, b, j0, j1):
    if j1 < j0:
        return 0.0
    count = j1 - j0 + 1
    return a * count + b * (j0 + j1) * count / 2.0


@kernel
def sum_of_max(a1, b1, a2, b2, k):
    """Σ_{j=1..k} max(a1 + b1 j, a2 + b2 j): two lines cross at most once."""
    one = np.int64(1)
    first1, last1 = a1 + b1, a1 + b1 * k
    first2, last2 = a2 + b2, a2 + b2 * k
    if first1 >= first2 and last1 >= last2:
        return _sum_lin(a1, b1, one, k)
    if first2 >= first1 and last2 >= last1:
        return _sum_lin(a2, b2, one, k)
    x = (a2 - a1) / (b1 - b2)  # the lines swap order after step int(x)
    cross = np.int64(0) if x <= 0 else (k if x >= k else np.int64(x))
    if first1 >= first2:
        return _sum_lin(a1, b1, one, cross) + _sum_lin(a2, b2, cross + 1, k)
    return _sum_lin(a2, b2, one, cross) + _sum_lin(a1, b1, cross + 1, k)


@kernel
def basis_decode_time(c, n, context_sum, k):
    """k lockstep decode steps of n requests whose contexts sum to context_sum."""
    a1, b1, a2, b2 = decode_lines(c, n, context_sum)
    return c[OVERHEAD] * k + sum_of_max(a1, b1, a2, b2, np.int64(k))


@kernel
def basis_steps_until(c, n, context_sum, gap):
    """Fewest lockstep steps after which the clock has moved on by at least gap (>= 1):
    pricing.steps_until's search over the run's lines, computed once."""
    a1, b1, a2, b2 = decode_lines(c, n, context_sum)
    lo, hi = np.int64(1), np.int64(1)
    if gap <= 0:
        return lo
    while c[OVERHEAD] * hi + sum_of_max(a1, b1, a2, b2, hi) < gap:
        lo, hi = hi, hi * 2
        if hi > (1 << 40):
            break
    while lo < hi:
        mid = (lo + hi) // 2
        if c[OVERHEAD] * mid + sum_of_max(a1, b1, a2, b2, mid) >= gap:
            hi = mid
        else:
            lo = mid + 1
    return lo


@kernel
def decode_lines(c, n, context_sum):
    """(a_mem, b_mem, a_cmp, b_cmp) of a run: step j lasts overhead + max of the two lines."""
    nf = float(n)
    m = micro_batches(c, nf)
    x = nf / m
    kc = constant_terms(c, nf, nf, x)
    spb, spf = c[SPB], c[SPF]
    a1 = (c[CW] * weights_read(c, x) + c[CKV] * c[KVB] * context_sum / m) * spb + kc
    b1 = c[CKV] * c[KVB] * x * spb
    # (MF + LM)·x first: with the roofline's coefficients these are its floats bit for bit
    a2 = ((c[CPF] * c[MF] + c[LM]) * x + c[CPF] * c[MF] * c[RAMP] + c[CATT] * c[ATT] * context_sum / m) * spf + kc
    b2 = c[CATT] * c[ATT] * x * spf
    return a1, b1, a2, b2
