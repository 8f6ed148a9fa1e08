"""The step-time model's compiled kernels (step_model.py says what the coefficients are).
The roofline kind: StepCost's formulas with the same operations in the same order, the
same floats bit for bit (tests/core/test_engine_frozen.py checks them against StepCost).
The basis kind: BasisCost's (core/serving/step_basis.py), in pricing_basis.py; price_step
and decode_time dispatch on the kind."""
from __future__ import annotations

import numpy as np

from core.serving.engine.jit import kernel
from core.serving.engine.layout import COMPUTED, IS_DEC, OUT, P
from core.serving.engine.pricing_basis import basis_decode_time, basis_step_time, basis_steps_until
from core.serving.engine.step_model import ATT, KIND, KVB, LM, MF, OVERHEAD, ROOFLINE, SPB, SPF, WB


@kernel
def step_time(c, rows, logit_rows, kv_tokens, pairs):
    """One step: rows processed, logit_rows producing a token, KV tokens, query-key pairs."""
    memory = (c[WB] + c[KVB] * kv_tokens) * c[SPB]
    compute = (c[MF] * rows + c[LM] * logit_rows + c[ATT] * pairs) * c[SPF]
    return c[OVERHEAD] + (memory if memory > compute else compute)


@kernel
def price_step(c, I, ids, chunks, m, n_dec, rows, logit_rows, kv_tokens, pairs):
    """The planned step's time: the group's n_dec decodes and the chunks of ids[:m]."""
    if c[KIND] == ROOFLINE:
        return step_time(c, rows, logit_rows, kv_tokens, pairs)
    new = np.int64(0)
    for j in range(m):  # prompts completing in this step (their first token, or a recompute's)
        r = ids[j]
        if not I[IS_DEC, r] and I[COMPUTED, r] + chunks[j] == I[P, r] + I[OUT, r]:
            new += 1
    return basis_step_time(c, float(rows), float(logit_rows), kv_tokens, pairs, float(n_dec + m), float(new))


@kernel
def _sum_lin(a, b, j0, j1):
    if j1 < j0:
        return 0.0
    count = j1 - j0 + 1
    return a * count + b * (j0 + j1) * count / 2.0


@kernel
def decode_time(c, n, context_sum, k):
    """k lockstep decode steps of n requests whose contexts sum to context_sum."""
    if k <= 0:
        return 0.0
    if c[KIND] != ROOFLINE:
        return basis_decode_time(c, n, context_sum, k)
    spb, spf = c[SPB], c[SPF]
    one = np.int64(1)  # a variable, not a literal: one compiled _sum_lin
    a1 = (c[WB] + c[KVB] * context_sum) * spb
    b1 = c[KVB] * n * spb
    a2 = ((c[MF] + c[LM]) * n + c[ATT] * context_sum) * spf
    b2 = c[ATT] * n * spf
    first1, last1 = a1 + b1, a1 + b1 * k
    first2, last2 = a2 + b2, a2 + b2 * k
    if first1 >= first2 and last1 >= last2:
        s = _sum_lin(a1, b1, one, k)
    elif first2 >= first1 and last2 >= last1:
        s = _sum_lin(a2, b2, one, k)
    else:
        x = (a2 - a1) / (b1 - b2)  # the lines swap order after step int(x)
        cross = np.int64(0) if x <= 0 else (k if x >= k else np.int64(x))
        if first1 >= first2:
            s = _sum_lin(a1, b1, one, cross) + _sum_lin(a2, b2, cross + 1, k)
        else:
            s = _sum_lin(a2, b2, one, cross) + _sum_lin(a1, b1, cross + 1, k)
    return c[OVERHEAD] * k + s


@kernel
def steps_until(c, n, context_sum, gap):
    """Fewest lockstep steps after which the clock has moved on by at least gap (>= 1)."""
    if c[KIND] != ROOFLINE:
        return basis_steps_until(c, n, context_sum, gap)
    lo, hi = np.int64(1), np.int64(1)
    if gap <= 0:
        return lo
    while decode_time(c, n, context_sum, hi) < gap:
        lo, hi = hi, hi * 2
        if hi > (1 << 40):
            break
    while lo < hi:
        mid = (lo + hi) // 2
        if decode_time(c, n, context_sum, mid) >= gap:
            hi = mid
        else:
            lo = mid + 1
    return lo
