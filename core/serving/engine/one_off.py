"""Costs a step pays once, from what the engine did before it (the basis kind's
coef_wake_s and coef_shape_s; 0 by default, and then nothing here adds a thing):
- a wake: the first step after the engine waited for work (nothing runnable until an
  arrival, a landing or a release): a sleeping worker and cold caches; S[WOKE] is set by
  the loop's wait() when the clock moves on, cleared by the next step;
- a first size: the first step of a token count the engine never ran before (a kernel
  built for a new shape: vLLM's CPU linears go through oneDNN, whose primitive for a new M
  is made once). `seen` holds a flag per size up to the token budget (step_model.
  shape_seen_size; a step beyond it is not charged), kept for the engine's life: a fresh
  server per replay.
On a GPU both are about 0 (CUDA graphs are captured at start); docs/vllm_cpu.md measures
them on a CPU server.
"""
from __future__ import annotations

from core.serving.engine.jit import kernel
from core.serving.engine.layout import WOKE
from core.serving.engine.step_model import SHAPE_T, WAKE_T


@kernel
def pending(S, coef, seen, rows):
    """True if a step of `rows` tokens now would pay a one-off cost (nothing changes)."""
    if coef.size <= SHAPE_T:  # the roofline kind has none
        return False
    if S[WOKE] and coef[WAKE_T] > 0:
        return True
    return coef[SHAPE_T] > 0 and rows < seen.size and seen[rows] == 0


@kernel
def charge(S, coef, seen, rows):
    """The one-off seconds of the step of `rows` tokens being run; marks it paid."""
    if coef.size <= SHAPE_T:
        return 0.0
    extra = 0.0
    if S[WOKE]:
        S[WOKE] = 0
        extra += coef[WAKE_T]
    if coef[SHAPE_T] > 0 and rows < seen.size and seen[rows] == 0:
        seen[rows] = 1
        extra += coef[SHAPE_T]
    return extra
