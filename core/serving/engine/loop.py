"""The engine's one event loop, compiled (numba, cached on disk at the first run).

Each iteration is one event: arrivals join the queue, then either a run of lockstep
decode steps is advanced in closed form (nothing about the schedule changes between
events, so k such steps cost one line sum: their times are sums of two lines, their
block needs follow each request's offset to its next block boundary) or one step is
planned (plan.py, the FCFS scheduler) and executed, priced by the step-time model
(pricing.py). Events that need a step of their own are prefill chunks, admissions,
finishes and the step where the pool runs dry (preemption).

The state is the structure of arrays of state.py (layout.py names its rows and slots);
every kind of replay goes through this loop: plain arrivals, sessions (a turn arriving
after its predecessor finished), a router's feed (advance to a horizon, exact or not),
step by step (fast=False), prefix caching and tool waits (blocks.py, pool.py). It returns
to Python every `max_events` events (cancel checks, a GUI's yield) and when its series
or preemption log needs room (ST_GROW).
"""
from __future__ import annotations

import math

import numpy as np
from numba import njit

from core.serving.engine.blocks import give_back
from core.serving.engine.layout import (AFTER, ARRIVAL, BLOCKS, BS, BUDGET, CACHE, CLOSED, COMPUTED, DEC_TOK, DONE,
                                        DYNAMIC, EAGER, EVENTS, EXACT_UNTIL, FAST, FEED_HEAD, FEED_OPEN, FEED_TAIL,
                                        FINISH, FIRST_TOKEN, FREE, G, HEAP_LEN, IS_DEC, LOG_LEN, MAX_SEQS, N,
                                        N_RUN, NB, NEXT, NOW, OUT, P, PEAK, PRE_TOK, RESERVE, ROUTED, S_DEC,
                                        S_KV, S_RUNNING, S_STEPS, S_TOKENS, S_WAITING, SER_LEN, ST_CHUNK,
                                        ST_DONE, ST_GROW, STEPS, TOOL, WQ_LEN)
from core.serving.engine.plan import ceil_div, decoding_prefix, gate_blocks, plan_exact, plan_fast
from core.serving.engine.pool import settle
from core.serving.engine.prefix import head_plan, register_filled, steps_before_watched_eviction, watching_any
from core.serving.engine.pricing import decode_time, step_time, steps_until
from core.serving.engine.pyset import set_order
from core.serving.engine.queues import admit_arrivals, heap_push, next_arrival_s, wq_get


@njit(cache=True)
def record(S, SF, ser_t, ser, tokens, steps, decode_rows):
    j = S[SER_LEN]
    ser_t[j] = SF[NOW]
    ser[S_WAITING, j] = S[WQ_LEN]
    ser[S_RUNNING, j] = S[N_RUN]
    ser[S_KV, j] = S[NB] - S[FREE]
    ser[S_TOKENS, j] = tokens
    ser[S_STEPS, j] = steps
    ser[S_DEC, j] = decode_rows
    S[SER_LEN] = j + 1


@njit(cache=True)
def remove_running(S, run, r):
    n = S[N_RUN]
    for i in range(n):
        if run[i] == r:
            for j in range(i, n - 1):
                run[j] = run[j + 1]
            S[N_RUN] = n - 1
            return True
    return False


@njit(cache=True)
def work_left(S, ht):
    if not S[ROUTED]:
        return S[DONE] < S[N]
    return S[N_RUN] > 0 or S[WQ_LEN] > 0 or S[FEED_HEAD] < S[FEED_TAIL] or S[HEAP_LEN] > 0


@njit(cache=True)
def finish(S, SF, I, F, run, pool, ht, hi, gone, k, scratch):
    """These requests finished at the current clock: in the frozen engine's order (a set's),
    their blocks back to the pool, a session's next turn due after its waits."""
    m = set_order(gone, k, scratch)
    now = SF[NOW]
    for j in range(m):
        r = scratch[j]
        F[FINISH, r] = now
        give_back(S, SF, I, F, pool, r, True)
        s = I[NEXT, r]
        if s >= 0 and I[DYNAMIC, s]:
            F[ARRIVAL, s] = now + F[TOOL, r] + F[AFTER, s]
            heap_push(S, ht, hi, F[ARRIVAL, s], s)
    w = 0
    for i in range(S[N_RUN]):  # running keeps its order
        r = run[i]
        if math.isnan(F[FINISH, r]):
            run[w] = r
            w += 1
    S[N_RUN] = w
    S[DONE] += m


@njit(cache=True)
def try_fast_forward(S, SF, I, F, run, wq, fixed, feed, ht, hi, coef, horizon, pool, ser_t, ser, gone, scratch,
                     hist):
    """Advance a run of pure-decode steps in one go; False if this step is an event."""
    bs = S[BS]
    n = S[N_RUN]
    free = S[FREE]
    hist[:] = 0  # members by their offset to the next block boundary, (-computed) % bs
    csum = 0
    k = 1 << 62
    for i in range(n):
        r = run[i]
        c = I[COMPUTED, r]
        hist[(-c) % bs] += 1
        csum += c
        left = I[G, r] - I[OUT, r]
        if left < k:
            k = left  # the step in which the first finishes
    need_now = hist[0]
    if need_now > free:
        return False  # the pool runs dry in this very step: preemption
    budget_left = S[BUDGET] - n
    if S[WQ_LEN] and budget_left > 0 and n < S[MAX_SEQS]:
        h = wq_get(S, wq, 0)
        if S[CACHE]:
            gate = head_plan(S, SF, I, pool, h, budget_left)[0]
        else:
            gate = gate_blocks(S, I, h, min(I[P, h] + I[OUT, h] - I[COMPUTED, h], budget_left))
        if gate <= free - need_now:
            return False  # the head can be admitted now
    # The (free+1)-th block need is the first one that cannot be met: at step
    # q·bs + (sorted offsets)[idx] + 1.
    q, idx = divmod(free, n)
    seen = 0
    o = 0
    while True:
        seen += hist[o]
        if seen > idx:
            break
        o += 1
    k = min(k, q * bs + o)
    if S[CACHE] and k > 0 and watching_any(pool):
        k = min(k, steps_before_watched_eviction(S, SF, pool, hist, n, k))
    now = SF[NOW]
    if not S[WQ_LEN] and n < S[MAX_SEQS]:
        t_next = next_arrival_s(S, F, fixed, feed, ht, horizon)
        if t_next < math.inf:
            k = min(k, steps_until(coef, n, float(csum), t_next - now))
    elif SF[EXACT_UNTIL] < math.inf:
        k = min(k, steps_until(coef, n, float(csum), SF[EXACT_UNTIL] - now))
    if k < 1:
        return False
    # The run: k steps of n decodes.
    S[CLOSED] += k
    SF[NOW] = now + decode_time(coef, n, float(csum), k)
    nf = 0
    for i in range(n):
        r = run[i]
        c = I[COMPUTED, r] + k
        b = ceil_div(c, bs)
        free -= b - I[BLOCKS, r]
        I[BLOCKS, r] = b
        I[COMPUTED, r] = c
        if S[CACHE] and I[EAGER, r] and c // bs > (c - k) // bs:
            register_filled(S, I, pool, r)  # a next turn with a fixed arrival may hit them now
        I[OUT, r] += k
        if I[OUT, r] >= I[G, r]:
            gone[nf] = r
            nf += 1
    S[FREE] = free
    S[STEPS] += k
    S[DEC_TOK] += n * k
    used = S[NB] - free
    if used > S[PEAK]:
        S[PEAK] = used
    if nf:
        finish(S, SF, I, F, run, pool, ht, hi, gone, nf, scratch)
    record(S, SF, ser_t, ser, n, k, n)  # tokens per step of the run
    return True


@njit(cache=True)
def execute(S, SF, I, F, run, coef, pool, ht, hi, ser_t, ser, n_dec, ids, chunks, m, gone, scratch):
    """Run the planned step: its time from the step-time model, then tokens, first tokens,
    finishes. The float sums add integer-valued terms in the frozen engine's order."""
    rows = n_dec
    logits = n_dec
    kv_tokens = 0.0
    pairs = 0.0
    if n_dec:
        csum = 0
        for i in range(n_dec):
            csum += I[COMPUTED, run[i]]
        ctx = float(csum) + n_dec
        kv_tokens += ctx
        pairs += ctx
    prefill_rows = 0
    for j in range(m):
        r, L = ids[j], chunks[j]
        s = I[COMPUTED, r]
        rows += L
        if not I[IS_DEC, r]:
            prefill_rows += L
        kv_tokens += s + L
        pairs += L * s + L * (L + 1) / 2.0
    used = S[NB] - S[FREE]
    if used > S[PEAK]:
        S[PEAK] = used
    SF[NOW] += step_time(coef, rows, logits + _completing(I, ids, chunks, m), kv_tokens, pairs)
    S[STEPS] += 1
    S[PRE_TOK] += prefill_rows
    S[DEC_TOK] += rows - prefill_rows - n_dec
    nf = 0
    if n_dec:
        for i in range(n_dec):
            r = run[i]
            I[COMPUTED, r] += 1
            I[OUT, r] += 1
        S[DEC_TOK] += n_dec
        for i in range(n_dec):
            r = run[i]
            if I[OUT, r] >= I[G, r]:
                gone[nf] = r
                nf += 1
    # Which chunks complete a prompt (their logits), judged before computed moves on.
    nc = 0
    for j in range(m):
        r, L = ids[j], chunks[j]
        if I[COMPUTED, r] + L == I[P, r] + I[OUT, r]:
            scratch[nc] = r
            nc += 1
        I[COMPUTED, r] += L
    if S[CACHE]:
        for j in range(m):
            register_filled(S, I, pool, ids[j])
        for i in range(n_dec):
            r = run[i]
            if I[EAGER, r] and I[COMPUTED, r] % S[BS] == 0:
                register_filled(S, I, pool, r)
    now = SF[NOW]
    for j in range(nc):
        r = scratch[j]
        I[OUT, r] += 1
        if math.isnan(F[FIRST_TOKEN, r]):
            F[FIRST_TOKEN, r] = now
        I[IS_DEC, r] = 1
        if I[OUT, r] >= I[G, r]:
            gone[nf] = r
            nf += 1
    if nf:
        finish(S, SF, I, F, run, pool, ht, hi, gone, nf, scratch)
    record(S, SF, ser_t, ser, rows, 1, rows - prefill_rows)


@njit(cache=True)
def _completing(I, ids, chunks, m):
    """Chunks that complete their request's prompt: each samples a token (a logit row)."""
    c = 0
    for j in range(m):
        r = ids[j]
        if I[COMPUTED, r] + chunks[j] == I[P, r] + I[OUT, r]:
            c += 1
    return c


@njit(cache=True, nogil=True)
def run_events(S, SF, I, F, run, wq, fixed, feed, ht, hi, ser_t, ser, log_r, log_t, coef, pool, horizon, max_events):
    """Events while the clock is before horizon and work is left, at most max_events."""
    cap = run.size + 1
    ids = np.empty(cap, np.int64)
    chunks = np.empty(cap, np.int64)
    gone = np.empty(2 * cap, np.int64)
    scratch = np.empty(2 * cap, np.int64)
    hist = np.zeros(S[BS], np.int64)
    fast = S[FAST] != 0
    events = 0
    while SF[NOW] < horizon and work_left(S, ht):
        if events >= max_events:
            return ST_CHUNK
        if S[SER_LEN] + 2 > ser_t.size or S[LOG_LEN] + cap > log_r.size:
            return ST_GROW
        events += 1
        S[EVENTS] += 1
        admit_arrivals(S, F, fixed, feed, ht, hi, wq, SF[NOW])
        if S[CACHE]:  # blocks taken in the last step leave the queue now
            settle(pool[0], S[FREE], SF[NOW])
        if S[N_RUN] == 0 and S[WQ_LEN] == 0:
            SF[NOW] = next_arrival_s(S, F, fixed, feed, ht, horizon)
            record(S, SF, ser_t, ser, 0, 0, 0)
            continue
        n_dec = decoding_prefix(I, run, S[N_RUN])
        if fast and n_dec == S[N_RUN] and n_dec > 0:
            if try_fast_forward(S, SF, I, F, run, wq, fixed, feed, ht, hi, coef, horizon, pool, ser_t, ser, gone,
                                scratch, hist):
                continue
        m = plan_fast(S, SF, I, F, run, wq, log_t, pool, n_dec, ids, chunks) if fast else -1
        if m < 0:
            m = plan_exact(S, SF, I, F, run, wq, log_r, log_t, ids, chunks, pool)
            n_dec = 0
        execute(S, SF, I, F, run, coef, pool, ht, hi, ser_t, ser, n_dec, ids, chunks, m, gone, scratch)
    return ST_DONE
