"""What a driver does to a running engine from outside, compiled: a client going away
(cancel, a voice barge-in) and the routers' look at a prefix cache. Both are operations
of the loop's one entry point (loop.run_events' `op`), not entry points of their own: each
entry point is optimized and emitted with all the kernels it calls, so a second one
would compile the block pool's code again."""
from __future__ import annotations

import math

import numpy as np

from core.serving.engine.blocks import give_back
from core.serving.engine.hold import releasable
from core.serving.engine.jit import kernel
from core.serving.engine.layout import (
    BLOCKS,
    CANCELLED,
    DONE,
    FEED_HEAD,
    FEED_TAIL,
    FINISH,
    HOLD,
    N_RUN,
    NOW,
    OP_CANCEL,
    OP_RELEASE,
    PENDING,
    ROUTED,
    X_MOVING,
    XSTATE,
)
from core.serving.engine.prefix import cached_prefix_blocks
from core.serving.engine.queues import heap_push, wq_remove
from core.serving.engine.series import record


@kernel
def operation(S, SF, I, F, run, wq, feed, ht, hi, ser_t, ser, cache, grp, op, r, t):
    """cancel_request (1 or 0), the release of r's held blocks at t (1, or 0: not held
    until released), or cached_prefix_blocks of r."""
    if op == OP_CANCEL:
        return np.int64(cancel_request(S, SF, I, F, run, wq, feed, ser_t, ser, cache, grp, r))
    if op == OP_RELEASE:
        if not releasable(I, F, r):
            return np.int64(0)
        F[HOLD, r] = max(t, SF[NOW])  # due at the next event at or after t
        heap_push(S, ht, hi, F[HOLD, r], r)
        return np.int64(1)
    return cached_prefix_blocks(S, I, cache, r)


@kernel
def remove_running(S, run, r):
    n = S[N_RUN]
    for i in range(n):
        if run[i] == r:
            for j in range(i, n - 1):
                run[j] = run[j + 1]
            S[N_RUN] = n - 1
            return True
    return False



@kernel
def cancel_request(S, SF, I, F, run, wq, feed, ser_t, ser, pool, grp, r):
    """r leaves the engine now, its blocks back to the pool (cached full blocks stay cached,
    as vLLM frees an aborted request); False if it finished or was never submitted here."""
    if not math.isnan(F[FINISH, r]):
        return False
    if remove_running(S, run, r):
        give_back(S, SF, I, F, pool, grp, r, np.bool_(False))
    elif I[XSTATE, r] == X_MOVING:  # its KV in transfer: its landing finds it cancelled
        give_back(S, SF, I, F, pool, grp, r, np.bool_(False))
    elif wq_remove(S, wq, r):
        if I[BLOCKS, r]:  # landed remote KV waiting for a seat
            give_back(S, SF, I, F, pool, grp, r, np.bool_(False))
    else:
        found = False
        if S[ROUTED]:
            for i in range(S[FEED_HEAD], S[FEED_TAIL]):
                if feed[i] == r:
                    for j in range(i, S[FEED_TAIL] - 1):
                        feed[j] = feed[j + 1]
                    S[FEED_TAIL] -= 1
                    found = True
                    break
        if not found:
            return False
    I[PENDING, r] = -1
    F[FINISH, r] = SF[NOW]
    I[CANCELLED, r] = 1
    S[DONE] += 1
    record(S, SF, ser_t, ser, np.int64(0), np.int64(0), np.int64(0))
    return True
