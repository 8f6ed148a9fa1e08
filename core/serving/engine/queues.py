"""The engine's queues as compiled helpers over plain arrays (their counts in S, layout.py):
the waiting queue (a ring with appendleft for a preempted request), the session turns
due after their predecessor finished (a binary heap on (time, id), as heapq orders its
tuples), and arrivals: the fixed ones in arrival order (a replay's list, or what a router
submitted to a routed engine) merged in time order with that heap, a fixed arrival before
a session turn at the same time. While a router's feed is open, the next arrival may come
at its next decision (the horizon). A client's concurrency limit holds back the fixed
arrivals without a slot (client.py gives the slots)."""
from __future__ import annotations

import math

import numpy as np

from core.serving.engine.hold import mark_due
from core.serving.engine.jit import kernel
from core.serving.engine.layout import (
    ARRIVAL,
    CANCELLED,
    COMPUTED,
    FEED_HEAD,
    FEED_OPEN,
    FEED_TAIL,
    FIX_I,
    FIX_N,
    GRANTED,
    HEAP_LEN,
    IS_DEC,
    MAXC,
    OUT,
    READY,
    ROUTED,
    WQ_HEAD,
    WQ_LEN,
    X_HELD,
    X_LANDED,
    X_MOVING,
    X_NONE,
    XFER_N,
    XSTATE,
    P,
)


# -- waiting: a ring over wq ---------------------------------------------------------------
@kernel
def wq_get(S, wq, i):
    return wq[(S[WQ_HEAD] + i) % wq.size]


@kernel
def wq_append(S, wq, r):
    wq[(S[WQ_HEAD] + S[WQ_LEN]) % wq.size] = r
    S[WQ_LEN] += 1


@kernel
def wq_appendleft(S, wq, r):
    S[WQ_HEAD] = (S[WQ_HEAD] - 1) % wq.size
    wq[S[WQ_HEAD]] = r
    S[WQ_LEN] += 1


@kernel
def wq_popleft(S, wq):
    r = wq[S[WQ_HEAD]]
    S[WQ_HEAD] = (S[WQ_HEAD] + 1) % wq.size
    S[WQ_LEN] -= 1
    return r


@kernel
def wq_remove(S, wq, r):
    """Take r out of the queue (a cancel); False if it is not there."""
    n = S[WQ_LEN]
    for i in range(n):
        if wq_get(S, wq, i) == r:
            for j in range(i, n - 1):
                wq[(S[WQ_HEAD] + j) % wq.size] = wq[(S[WQ_HEAD] + j + 1) % wq.size]
            S[WQ_LEN] -= 1
            return True
    return False


@kernel
def land(S, I, wq, r):
    """r's remote KV landed: it waits at the queue's head (behind requests that landed
    before it) with its ready tokens computed; a whole prompt's first token was sampled
    by the instance that prefilled it (OUT = 1: it decodes the rest)."""
    S[XFER_N] -= 1
    if I[CANCELLED, r]:  # cancelled in transfer: its blocks went back then
        I[XSTATE, r] = X_NONE
        return
    I[COMPUTED, r] = I[READY, r]
    if I[READY, r] == I[P, r]:
        I[OUT, r] = 1
        I[IS_DEC, r] = 1
    I[XSTATE, r] = X_LANDED
    k = np.int64(0)
    while k < S[WQ_LEN] and I[XSTATE, wq_get(S, wq, k)] == X_LANDED:
        k += 1
    wq_appendleft(S, wq, r)
    for j in range(k):  # r moves behind the k landed before it
        a, b = (S[WQ_HEAD] + j) % wq.size, (S[WQ_HEAD] + j + 1) % wq.size
        wq[a], wq[b] = wq[b], wq[a]


# -- dynamic turns and landings: a heap on (time, id) ----------------------------------------------------
@kernel
def _less(ht, hi, a, b):
    return ht[a] < ht[b] or (ht[a] == ht[b] and hi[a] < hi[b])


@kernel
def _swap(ht, hi, a, b):
    ht[a], ht[b] = ht[b], ht[a]
    hi[a], hi[b] = hi[b], hi[a]


@kernel
def heap_push(S, ht, hi, t, r):
    i = S[HEAP_LEN]
    S[HEAP_LEN] = i + 1
    ht[i] = t
    hi[i] = r
    while i > 0:
        p = (i - 1) // 2
        if not _less(ht, hi, i, p):
            break
        _swap(ht, hi, i, p)
        i = p


@kernel
def heap_pop(S, ht, hi):
    r = hi[0]
    n = S[HEAP_LEN] - 1
    S[HEAP_LEN] = n
    ht[0] = ht[n]
    hi[0] = hi[n]
    i = np.int64(0)
    while True:
        a, b, m = 2 * i + 1, 2 * i + 2, i
        if a < n and _less(ht, hi, a, m):
            m = a
        if b < n and _less(ht, hi, b, m):
            m = b
        if m == i:
            return r
        _swap(ht, hi, i, m)
        i = m


# -- arrivals ------------------------------------------------------------------------------
@kernel
def _fixed_next(S, F, fixed, feed):
    """The next fixed (or submitted) arrival's id, -1: none."""
    if S[ROUTED]:
        return feed[S[FEED_HEAD]] if S[FEED_HEAD] < S[FEED_TAIL] else -1
    if S[MAXC] and S[FIX_I] >= S[GRANTED]:  # the client's limit: not sent until a slot frees
        return -1
    return fixed[S[FIX_I]] if S[FIX_I] < S[FIX_N] else -1


@kernel
def next_arrival_s(S, F, fixed, feed, ht, horizon):
    """When the next request may arrive (a routed engine's open feed: by the horizon)."""
    r = _fixed_next(S, F, fixed, feed)
    t = F[ARRIVAL, r] if r >= 0 else math.inf
    if S[HEAP_LEN] and ht[0] < t:
        t = ht[0]
    if S[ROUTED] and S[FEED_OPEN] and horizon < t:
        return horizon
    return t


@kernel
def admit_arrivals(S, I, F, fixed, feed, ht, hi, wq, now):
    """Append what arrived by now to waiting, in arrival order (a landing: at the head; a
    held request's release due: in line for release_due)."""
    while True:
        r = _fixed_next(S, F, fixed, feed)
        tf = F[ARRIVAL, r] if r >= 0 else math.inf
        if S[HEAP_LEN] and ht[0] < tf and ht[0] <= now:
            h = heap_pop(S, ht, hi)
            if I[XSTATE, h] == X_MOVING:
                land(S, I, wq, h)
            elif I[XSTATE, h] == X_HELD:
                mark_due(S, I, h)
            else:
                wq_append(S, wq, h)
        elif tf <= now:
            wq_append(S, wq, r)
            if S[ROUTED]:
                S[FEED_HEAD] += 1
            else:
                S[FIX_I] += 1
        else:
            return
