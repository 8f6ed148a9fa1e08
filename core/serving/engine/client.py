"""The client and the front end on the engine's arrival and finish paths, compiled.

Client (max_concurrency, S[MAXC] > 0): vllm bench serve's semaphore. Requests are sent
in their schedule's order, request i at max(its scheduled time, the moment a slot is
free), a slot freed when a request has finished at the client. grant() gives the next
requests their slots as finishes free them, writing their send time into ARRIVAL; a
fixed arrival without a slot is not there yet (queues._fixed_next). The fixed arrivals
are the engine ids 0..n-1 in order here (no sessions, no router: the edge refuses them).

Front end (S[FE_ON]; frontend.py says what it models): one CPU, an event loop whose ready
queue is served in order (FIFO) at full speed. A request sent at t (SEND = t) puts the
first of its S[FE_ROUNDS] equal slices of work, (request_s + input_token_s · prompt
tokens) / rounds each, at the queue's tail; a slice done at e puts the next one at the
tail then, and the last one done is when the request reaches the engine's waiting queue
(ARRIVAL). A slice, or a step's output, put at the tail at t is done at
max(t, busy until) + its work: what is put there later is behind it, so its time is known
when it is put (SF[FE_FREE]: busy until). The queue, feq, holds each request's slice in
service as id · MAX_ROUNDS + slice, in order of when they are done (F[ARRIVAL] holds that
time until the last). With many requests in it, all of them advance a slice a round:
processor sharing's round robin, and every output waits one round. One round: FIFO.
Sends and slices done are taken in time order as the clock passes them (fe_commit): at
each event and before a step's output, so a send inside a step is ingested before that
step's tokens; a closed-form run of decode steps ends at the step that passes the next
slice done or send (next_fe_event), so the same holds in it (fe_output_run).
Each step's tokens add output_token_s apiece after the step ends (fe_output); a client
sees them, first token and finish alike, when that work is done (SF[DELIVER]) plus the
front end's latency (SF[FE_LAT]), a wait that takes no CPU; a client's slot is freed then.
Without either, arrivals() and next_arrival() are queues.py's, the same floats.
"""
from __future__ import annotations

import math

import numpy as np

from core.serving.engine.hold import mark_due
from core.serving.engine.jit import kernel
from core.serving.engine.layout import (
    ARRIVAL,
    DELIVER,
    FE_FREE,
    FE_IN,
    FE_LAT,
    FE_ON,
    FE_OUT,
    FE_REQ,
    FE_ROUNDS,
    FEED_HEAD,
    FEED_OPEN,
    FEQ_HEAD,
    FEQ_LEN,
    FIX_I,
    FIX_N,
    GRANTED,
    HEAP_LEN,
    INFLIGHT,
    MAXC,
    NOW,
    ROUTED,
    SEND,
    X_HELD,
    XSTATE,
    P,
)
from core.serving.engine.pricing import decode_time
from core.serving.engine.queues import _fixed_next, admit_arrivals, heap_pop, next_arrival_s, wq_append


@kernel
def grant(S, F, t):
    """Free slots of the limit to the next requests in order: each is sent at
    max(its schedule, t)."""
    while S[GRANTED] < S[FIX_N] and S[INFLIGHT] < S[MAXC]:
        r = S[GRANTED]
        if F[ARRIVAL, r] < t:
            F[ARRIVAL, r] = t
        S[GRANTED] += 1
        S[INFLIGHT] += 1


@kernel
def client_finished(S, F, m, t):
    """m requests finished at the client at t: their slots go to the next ones."""
    if S[MAXC]:
        S[INFLIGHT] -= m
        grant(S, F, t)


MAX_ROUNDS = 64  # slices a request's front-end work may be split in (frontend.py checks)


@kernel
def _slice(S, SF, I, r):
    """One of r's slices of front-end work."""
    return (SF[FE_REQ] + SF[FE_IN] * I[P, r]) / S[FE_ROUNDS]


@kernel
def _next_send(S, F, fixed, feed, ht, hi):
    """(time, id) of the next send not yet in the front end; (inf, -1): none."""
    r = _fixed_next(S, F, fixed, feed)
    t = F[ARRIVAL, r] if r >= 0 else math.inf
    if S[HEAP_LEN] and ht[0] < t:
        return ht[0], hi[0]
    return t, r


@kernel
def _enqueue(S, SF, I, F, feq, r, j, t):
    """r's slice j goes to the queue's tail at t: done at max(t, busy until) + a slice."""
    e = max(t, SF[FE_FREE]) + _slice(S, SF, I, r)
    SF[FE_FREE] = e
    F[ARRIVAL, r] = e
    feq[(S[FEQ_HEAD] + S[FEQ_LEN]) % feq.size] = r * MAX_ROUNDS + j
    S[FEQ_LEN] += 1


@kernel
def _done_slice(S, F, feq, now):
    """The queue's head if its slice is done by now (its code), else -1."""
    if not S[FEQ_LEN]:
        return np.int64(-1)
    code = feq[S[FEQ_HEAD]]
    if F[ARRIVAL, code // MAX_ROUNDS] <= now:
        return code
    return np.int64(-1)


@kernel
def fe_commit(S, SF, I, F, fixed, feed, ht, hi, feq, wq, now):
    """Sends and slices done up to now, in time order (a slice done first at a tie, a
    fixed send before a heap one): a send puts its first slice at the tail, a slice done
    its next one, a last slice done puts the request in waiting. A held request's release
    due is put in line for release_due."""
    while True:
        code = _done_slice(S, F, feq, now)
        r = _fixed_next(S, F, fixed, feed)
        tf = F[ARRIVAL, r] if r >= 0 else math.inf
        heap_first = S[HEAP_LEN] and ht[0] < tf
        ts = ht[0] if heap_first else tf
        if code >= 0 and F[ARRIVAL, code // MAX_ROUNDS] <= ts:
            q, j = code // MAX_ROUNDS, code % MAX_ROUNDS
            t = F[ARRIVAL, q]
            S[FEQ_HEAD] = (S[FEQ_HEAD] + 1) % feq.size
            S[FEQ_LEN] -= 1
            if j + 1 < S[FE_ROUNDS]:
                _enqueue(S, SF, I, F, feq, q, j + 1, t)
            else:
                wq_append(S, wq, q)
            continue
        if ts > now:
            return
        if heap_first:
            r = heap_pop(S, ht, hi)
            if I[XSTATE, r] == X_HELD:
                mark_due(S, I, r)
                continue
        elif S[ROUTED]:
            S[FEED_HEAD] += 1
        else:
            S[FIX_I] += 1
        F[SEND, r] = ts
        _enqueue(S, SF, I, F, feq, r, np.int64(0), ts)


@kernel
def arrivals(S, SF, I, F, fixed, feed, ht, hi, wq, feq, now):
    """Append what reached the engine by now to waiting, in arrival order."""
    if not S[FE_ON]:
        admit_arrivals(S, I, F, fixed, feed, ht, hi, wq, now)
        return
    fe_commit(S, SF, I, F, fixed, feed, ht, hi, feq, wq, now)


@kernel
def _first_in(S, SF, I, F, feq):
    """No request in the front end reaches the engine before this: the head's slices left
    run one after another from its slice's end at the earliest (what is put at the tail
    meanwhile only delays them), and any other is done no sooner than the second in
    line. Alone in it, with nothing sent meanwhile, exactly the head's arrival (the same
    sums fe_commit makes)."""
    code = feq[S[FEQ_HEAD]]
    q = code // MAX_ROUNDS
    t = F[ARRIVAL, q]
    s = _slice(S, SF, I, q)
    for _ in range(S[FE_ROUNDS] - 1 - code % MAX_ROUNDS):
        t = t + s
    if S[FEQ_LEN] > 1:
        t = min(t, F[ARRIVAL, feq[(S[FEQ_HEAD] + 1) % feq.size] // MAX_ROUNDS])
    return t


@kernel
def next_arrival(S, SF, I, F, fixed, feed, ht, hi, feq, horizon):
    """When the next request may reach the engine (never later than it will): the front
    end's first (_first_in), or the next send's slices through an idle-by-then front
    end."""
    if not S[FE_ON]:
        return next_arrival_s(S, F, fixed, feed, ht, horizon)
    t = _first_in(S, SF, I, F, feq) if S[FEQ_LEN] else math.inf
    ts, r = _next_send(S, F, fixed, feed, ht, hi)
    if r >= 0:
        if I[XSTATE, r] == X_HELD:  # a release: no service
            e = ts
        else:  # its slices one after another, from the first's end at the earliest
            s = _slice(S, SF, I, r)
            e = max(ts, SF[FE_FREE]) + s
            for _ in range(S[FE_ROUNDS] - 1):
                e = e + s
        if e < t:
            t = e
    if S[ROUTED] and S[FEED_OPEN] and horizon < t:
        return horizon
    return t


@kernel
def fe_output(S, SF, I, F, arrive, ht, hi, tokens):
    """One step that ended now put out `tokens` tokens: the client sees them at DELIVER.
    Sends and slices done during the step are taken before its output (arrive: the
    loop's fixed, feed, front-end queue and waiting arrays)."""
    if S[FE_ON]:
        fe_commit(S, SF, I, F, arrive[0], arrive[1], ht, hi, arrive[2], arrive[3], SF[NOW])
        SF[FE_FREE] = max(SF[FE_FREE], SF[NOW]) + tokens * SF[FE_OUT]
        SF[DELIVER] = SF[FE_FREE]


@kernel
def next_fe_event(S, SF, F, fixed, feed, ht, hi, feq):
    """When the front end next takes something in: its queue's head done, or the next
    send (inf: neither, or a front end that takes no time, whose order of sends and
    outputs moves no time). A closed-form run ends at the step that passes it."""
    if not S[FE_ON] or SF[FE_REQ] + SF[FE_IN] + SF[FE_OUT] == 0:
        return math.inf
    t = F[ARRIVAL, feq[S[FEQ_HEAD]] // MAX_ROUNDS] if S[FEQ_LEN] else math.inf
    return min(t, _next_send(S, F, fixed, feed, ht, hi)[0])


@kernel
def fe_output_run(S, SF, I, F, coef, n, csum, k, start, arrive, ht, hi):
    """k lockstep steps of n tokens each from start (contexts summing to csum), the last
    ending now, with no send or slice done before the last one's step (next_fe_event).
    Their work arrives at each step's end; with steps that never shorten, the front end's
    backlog after the first j is max(max(busy, t_first) + j·w, t_j + w) (w = n tokens'
    time). What came in during the last step is taken before its output, as fe_output."""
    if S[FE_ON]:
        w = n * SF[FE_OUT]
        if k > 1:
            t_first = start + decode_time(coef, n, csum, np.int64(1))
            t_before = start + decode_time(coef, n, csum, k - 1)
            SF[FE_FREE] = max(max(SF[FE_FREE], t_first) + (k - 1) * w, t_before + w)
        fe_commit(S, SF, I, F, arrive[0], arrive[1], ht, hi, arrive[2], arrive[3], SF[NOW])
        SF[FE_FREE] = max(SF[FE_FREE], SF[NOW]) + w
        SF[DELIVER] = SF[FE_FREE]


@kernel
def client_time(S, SF):
    """When the client sees what the last step or run put out: with a front end, when
    its work is done plus its latency (SF[FE_LAT]: every token of a request, first and
    last alike, arrives that much later; no CPU is held for it)."""
    return SF[DELIVER] + SF[FE_LAT] if S[FE_ON] else SF[NOW]
