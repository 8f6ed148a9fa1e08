"""A finished request's blocks held until a time (vLLM's KV connectors delay the free of
a P/D prefill's blocks until the decode instance has read them: request_finished says
"delay", get_finished later reports the send done, and the scheduler frees them then).

F[HOLD, r]: NaN, no hold (the blocks go back at the finish, as always); a time, they go
back at the first event at or after it (its entry in the heap of due times); inf, until
the driver says when (Engine.release). Held blocks count as used; the request has left
running and the lockstep group. A hold due by the finish itself is no hold."""
from __future__ import annotations

import math

import numpy as np

from core.serving.engine.blocks import give_back
from core.serving.engine.group import leave
from core.serving.engine.jit import kernel
from core.serving.engine.layout import DUE_HEAD, DUE_LINK, DUE_TAIL, HELD_N, HOLD, JID, X_HELD, X_NONE, XSTATE


@kernel
def keeps_blocks(F, r, now):
    h = F[HOLD, r]
    return not math.isnan(h) and h > now


@kernel
def hold(S, I, F, grp, r):
    """r finished and keeps its blocks (keeps_blocks said so); the caller puts a finite
    due time in the heap."""
    if I[JID, r] >= 0:
        leave(S, I, grp, r)
    I[XSTATE, r] = X_HELD
    S[HELD_N] += 1


@kernel
def unhold(S, SF, I, F, cache, grp, r):
    """r's hold is over (its due time came): its blocks go back to the pool now."""
    I[XSTATE, r] = X_NONE
    S[HELD_N] -= 1
    give_back(S, SF, I, F, cache, grp, r, np.bool_(True))


@kernel
def mark_due(S, I, r):
    """r's release came due (popped from the heap of due times, where the arrival path
    has no pool to give blocks to): in line for release_due, in order."""
    I[DUE_LINK, r] = 0
    if S[DUE_TAIL]:
        I[DUE_LINK, S[DUE_TAIL] - 1] = r + 1
    else:
        S[DUE_HEAD] = r + 1
    S[DUE_TAIL] = r + 1


@kernel
def release_due(S, SF, I, F, cache, grp):
    """The releases that came due give their blocks back, in the order they came due."""
    k = S[DUE_HEAD]
    while k:
        r = k - 1
        k = I[DUE_LINK, r]
        unhold(S, SF, I, F, cache, grp, r)
    S[DUE_HEAD] = 0
    S[DUE_TAIL] = 0


@kernel
def releasable(I, F, r):
    """r is held until the driver releases it."""
    return I[XSTATE, r] == X_HELD and F[HOLD, r] == math.inf
