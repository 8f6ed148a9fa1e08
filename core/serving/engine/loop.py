"""The engine's one event loop, compiled (numba, cached on disk at the first run).

Each iteration is one event: arrivals join the queue, then either a run of lockstep
decode steps is advanced in closed form (nothing about the schedule changes between
events, so k such steps cost one line sum: their times are sums of two lines, their
block needs follow the group's members by phase, group.py) or one step is planned
(plan.py, the FCFS scheduler) and executed, priced by the step-time model (pricing.py). Events that need a step of their own are prefill chunks, admissions,
finishes and the step where the pool runs dry (preemption).

The state is the structure of arrays of state.py (layout.py names its rows and slots);
every kind of replay goes through this loop: plain arrivals, sessions (a turn arriving
after its predecessor finished), a router's feed (advance to a horizon, exact or not),
step by step (fast=False), prefix caching and tool waits (blocks.py, prefix.py). It
returns to Python every `max_events` events (cancel checks, a GUI's yield) and when its
series or preemption log needs room (ST_GROW). run_events is compiled once: the prefix
cache is always passed (an empty one where the replay caches nothing) and S[CACHE] says
whether the loop uses it; a second specialization would double the first compile.
"""
from __future__ import annotations

import math

import numpy as np

from core.serving.engine.blocks import give_back
from core.serving.engine.borrow import borrow
from core.serving.engine.byref import part, ref
from core.serving.engine.client import (
    arrivals,
    client_finished,
    client_time,
    fe_output,
    fe_output_run,
    next_arrival,
    next_fe_event,
)
from core.serving.engine.control import operation
from core.serving.engine.group import (
    at_offset,
    crossings,
    dissolve,
    extend,
    finished_members,
    first_finish,
    kth_offset,
    regroup,
    sync,
)
from core.serving.engine.hold import hold, keeps_blocks, mark_due, release_due
from core.serving.engine.jit import kernel, njit
from core.serving.engine.layout import (
    AFTER,
    ARRIVAL,
    BS,
    BUDGET,
    CACHE,
    CB,
    CLOSED,
    COMPUTED,
    DEC_TOK,
    DONE,
    DUE_HEAD,
    DYNAMIC,
    EAGER,
    EAGER_MEMBERS,
    ENC_ON,
    ENC_STEP,
    ENC_STEPS,
    ENC_TOTAL,
    EVENTS,
    EXACT_UNTIL,
    FAST,
    FEED_HEAD,
    FEED_OPEN,
    FEED_TAIL,
    FEQ_LEN,
    FINISH,
    FIRST_TOKEN,
    FREE,
    GROUPED,
    HEAP_LEN,
    HELD_N,
    HOLD,
    HOLD_ON,
    IS_DEC,
    LOG_LEN,
    MAX_SEQS,
    N_RUN,
    NB,
    NEXT,
    NG,
    NOW,
    OP_RUN,
    OUT,
    PEAK,
    PRE_TOK,
    ROUTED,
    SER_LEN,
    ST_CHUNK,
    ST_DONE,
    ST_GROW,
    STEPS,
    SUMCB,
    TOOL,
    WOKE,
    WQ_LEN,
    X_HELD,
    XFER_N,
    XSTATE,
    D,
    G,
    N,
    P,
)
from core.serving.engine.one_off import charge, pending
from core.serving.engine.plan import decoding_prefix, gate_blocks, plan_exact, plan_fast
from core.serving.engine.pool import settle
from core.serving.engine.prefix import head_plan, register_filled, steps_before_watched_eviction, watching_any
from core.serving.engine.pricing import decode_time, price_step, steps_until
from core.serving.engine.pyset import set_order
from core.serving.engine.queues import heap_pop, heap_push, wq_get
from core.serving.engine.series import record


@kernel
def work_left(S, ht):
    if not S[ROUTED]:
        return S[DONE] < S[N] or S[HELD_N] > 0
    return S[N_RUN] > 0 or S[WQ_LEN] > 0 or S[FEED_HEAD] < S[FEED_TAIL] or S[HEAP_LEN] > 0 or S[FEQ_LEN] > 0


@kernel
def finish(S, SF, I, F, run, cache, grp, ht, hi, gone, k, scratch):
    """These requests finished at the current clock: in the frozen engine's order (a set's),
    their blocks back to the pool, a session's next turn due after its waits. Their finish
    is when the client sees it (the front end's, client.py), which frees a client's slot.
    One whose hold is not yet due keeps its blocks (hold.py)."""
    m = set_order(gone, k, scratch)
    now = client_time(S, SF)
    for j in range(m):
        r = scratch[j]
        F[FINISH, r] = now
        if S[HOLD_ON] and keeps_blocks(F, r, now):
            hold(S, I, F, grp, r)
            if F[HOLD, r] < math.inf:
                heap_push(S, ht, hi, F[HOLD, r], r)
        else:
            give_back(S, SF, I, F, cache, grp, r, np.bool_(True))
        s = I[NEXT, r]
        if s >= 0 and I[DYNAMIC, s]:
            F[ARRIVAL, s] = now + F[TOOL, r] + F[AFTER, s]
            heap_push(S, ht, hi, F[ARRIVAL, s], s)
    w = np.int64(0)
    for i in range(S[N_RUN]):  # running keeps its order
        r = run[i]
        if math.isnan(F[FINISH, r]):
            run[w] = r
            w += 1
    S[N_RUN] = w
    S[DONE] += m
    client_finished(S, F, m, now)


@kernel
def _register_eager(S, I, run, cache, k):
    """Members caching generated blocks as they fill whose count crossed a block boundary
    in the last k steps (the clock advanced already), in running order."""
    bs, d = S[BS], S[D]
    for i in range(S[NG]):
        r = run[i]
        if I[EAGER, r] and (I[CB, r] + d) // bs > (I[CB, r] + d - k) // bs:
            sync(S, I, r)
            register_filled(S, I, cache, r)


@kernel
def _time_bound(S, SF, I, F, fixed, feed, ht, hi, feq, coef, horizon, n, csum, k):
    """k, or fewer steps: a run ends at the step where the next arrival could be admitted
    (a seat free, nobody waiting), at an exact horizon, or where a remote request's KV
    lands (it joins the queue's head and may get in even while others wait)."""
    now = SF[NOW]
    if not S[WQ_LEN] and n < S[MAX_SEQS]:
        t_next = next_arrival(S, SF, I, F, fixed, feed, ht, hi, feq, horizon)
        if t_next < math.inf:
            k = min(k, steps_until(coef, n, csum, t_next - now))
    elif SF[EXACT_UNTIL] < math.inf:
        k = min(k, steps_until(coef, n, csum, SF[EXACT_UNTIL] - now))
    if S[XFER_N] and S[WQ_LEN] and n < S[MAX_SEQS]:
        k = min(k, steps_until(coef, n, csum, ht[0] - now))
    if S[HELD_N] and S[HEAP_LEN]:  # held blocks come back then: the pool's count changes
        k = min(k, steps_until(coef, n, csum, ht[0] - now))
    t_fe = next_fe_event(S, SF, F, fixed, feed, ht, hi, feq)  # taken in between steps' outputs (client.py)
    if t_fe < math.inf:
        k = min(k, steps_until(coef, n, csum, t_fe - now))
    return k


@kernel
def try_fast_forward(S, SF, I, F, run, wq, fixed, feed, ht, hi, feq, coef, horizon, cache, grp, ser_t, ser, gone,
                     scratch, hist, seen):
    """Advance a run of pure-decode steps of the group in one go; False if this step is an event
    (a step with a one-off cost is one: one_off.py)."""
    bs = S[BS]
    n = S[NG]
    if pending(S, coef, seen, n):
        return False
    free = S[FREE]
    need_now = at_offset(S, grp, np.int64(0))  # members at a block boundary need a block in this step
    if need_now > free:
        return False  # the pool runs dry in this very step: preemption
    budget_left = S[BUDGET] - n
    if S[WQ_LEN] and budget_left > 0 and n < S[MAX_SEQS]:
        h = wq_get(S, wq, np.int64(0))
        if S[CACHE]:
            gate = head_plan(S, SF, I, cache, h, budget_left)[0]
        else:
            gate = gate_blocks(S, I, h, min(I[P, h] + I[OUT, h] - I[COMPUTED, h], budget_left))
        if gate <= free - need_now:
            return False  # the head can be admitted now
    k = first_finish(S, I, grp)  # the step in which the first finishes
    # The (free+1)-th block need is the first one that cannot be met: at step
    # q·bs + (sorted offsets)[idx] + 1, never before q·bs + 1.
    q, idx = divmod(free, n)
    if k > q * bs:
        k = min(k, q * bs + kth_offset(S, grp, idx))
    if S[CACHE] and k > 0 and watching_any(cache):
        for o in range(bs):
            hist[o] = at_offset(S, grp, o)
        k = min(k, steps_before_watched_eviction(S, SF, cache, hist, n, k))
    now = SF[NOW]
    csum = float(S[SUMCB] + n * S[D])
    k = _time_bound(S, SF, I, F, fixed, feed, ht, hi, feq, coef, horizon, n, csum, k)
    if k < 1:
        return False
    # The run: k steps of n decodes.
    S[CLOSED] += k
    SF[NOW] = now + decode_time(coef, n, csum, k)
    fe_output_run(S, SF, I, F, coef, n, csum, k, now, (fixed, feed, feq, wq), ht, hi)
    free -= crossings(S, grp, k)
    S[FREE] = free
    S[D] += k
    if S[CACHE] and S[EAGER_MEMBERS]:
        _register_eager(S, I, run, cache, k)
    S[STEPS] += k
    S[DEC_TOK] += n * k
    used = S[NB] - free
    if used > S[PEAK]:
        S[PEAK] = used
    nf = finished_members(S, I, run, grp, gone, np.int64(0))
    if nf:
        finish(S, SF, I, F, run, cache, grp, ht, hi, gone, nf, scratch)
    record(S, SF, ser_t, ser, n, k, n)  # tokens per step of the run
    return True


@kernel
def _register_step(S, I, run, cache, ids, m, n_dec):
    """Cache the blocks this step filled: the computing requests', then the members' that
    cache generated blocks as they fill (the frozen engine's order)."""
    for j in range(m):
        register_filled(S, I, cache, ids[j])
    if n_dec and S[EAGER_MEMBERS]:
        _register_eager(S, I, run, cache, np.int64(1))


@kernel
def step_seconds(S, SF, coef, I, ids, chunks, m, n_dec, rows, logits, kv_tokens, pairs, seen):
    """The planned step's time: the step-time model's, plus its one-off costs (one_off.py) and
    the encoder seconds of the requests it admitted (the encoder runs in the step, before
    the LM forward)."""
    dt = price_step(coef, I, ids, chunks, m, n_dec, rows, logits, kv_tokens, pairs)
    extra = charge(S, coef, seen, rows)
    if extra:
        dt += extra
    if S[ENC_ON] and SF[ENC_STEP] > 0:
        dt += SF[ENC_STEP]
        SF[ENC_TOTAL] += SF[ENC_STEP]
        SF[ENC_STEP] = 0.0
        S[ENC_STEPS] += 1
    return dt


@kernel
def execute(S, SF, I, F, run, coef, cache, grp, ht, hi, ser_t, ser, n_dec, ids, chunks, m, gone, scratch, arrive,
            seen):
    """Run the planned step: its time from the step-time model, then tokens, first tokens,
    finishes. n_dec: the group (running[:n_dec]) decodes in this step too. The float sums
    add integer-valued terms in the frozen engine's order."""
    rows = n_dec
    logits = n_dec
    kv_tokens = 0.0
    pairs = 0.0
    if n_dec:
        ctx = float(S[SUMCB] + n_dec * S[D]) + n_dec
        kv_tokens += ctx
        pairs += ctx
    prefill_rows = np.int64(0)
    nc = np.int64(0)
    for j in range(m):
        r, L = ids[j], chunks[j]
        s = I[COMPUTED, r]
        rows += L
        if not I[IS_DEC, r]:
            prefill_rows += L
        kv_tokens += s + L
        pairs += L * s + L * (L + 1) / 2.0
        if s + L == I[P, r] + I[OUT, r]:  # its prompt completes: it samples a token
            logits += 1
            scratch[nc] = r
            nc += 1
    used = S[NB] - S[FREE]
    if used > S[PEAK]:
        S[PEAK] = used
    SF[NOW] += step_seconds(S, SF, coef, I, ids, chunks, m, n_dec, rows, logits, kv_tokens, pairs, seen)
    S[STEPS] += 1
    S[PRE_TOK] += prefill_rows
    S[DEC_TOK] += rows - prefill_rows - n_dec
    nf = np.int64(0)
    if n_dec:
        S[D] += 1
        S[DEC_TOK] += n_dec
        nf = finished_members(S, I, run, grp, gone, np.int64(0))
    for j in range(m):
        I[COMPUTED, ids[j]] += chunks[j]
    if S[CACHE]:
        _register_step(S, I, run, cache, ids, m, n_dec)
    fe_output(S, SF, I, F, arrive, ht, hi, n_dec + nc)
    now = client_time(S, SF)  # when the client sees this step's tokens
    # completes sit in scratch[:nc]; finish() reuses scratch, so they go to gone's tail
    base = gone.size // 2
    for j in range(nc):
        gone[base + j] = scratch[j]
    for j in range(nc):
        r = gone[base + j]
        I[OUT, r] += 1
        if math.isnan(F[FIRST_TOKEN, r]):
            F[FIRST_TOKEN, r] = now
        I[IS_DEC, r] = 1
        if I[OUT, r] >= I[G, r]:
            gone[nf] = r
            nf += 1
    if nf:
        finish(S, SF, I, F, run, cache, grp, ht, hi, gone, nf, scratch)
    if nc and S[GROUPED]:
        extend(S, I, run, grp)
    record(S, SF, ser_t, ser, rows, np.int64(1), rows - prefill_rows)


@kernel
def settle_and_release(S, SF, I, F, cache, grp):
    """Blocks taken in the last step leave the prefix cache's queue now; then the held
    blocks whose release came due go back (hold.py)."""
    if S[CACHE]:
        settle(part(cache, 0), S[FREE], SF[NOW])
    if S[DUE_HEAD]:
        release_due(S, SF, I, F, cache, grp)


@kernel
def wait(S, SF, I, F, fixed, feed, ht, hi, feq, ser_t, ser, horizon, cache, grp):
    """No step now: the clock goes to the next arrival, landing or release. False when
    nothing is due (only blocks held until the driver's release): the clock stays."""
    if S[HELD_N] == 0 and not work_left(S, ht):  # the last held blocks just came back
        record(S, SF, ser_t, ser, np.int64(0), np.int64(0), np.int64(0))
        return True
    t = next_arrival(S, SF, I, F, fixed, feed, ht, hi, feq, horizon)
    if t == math.inf and S[HELD_N]:
        return False
    if t > SF[NOW]:
        S[WOKE] = 1
    SF[NOW] = t
    if S[HELD_N]:  # releases due now show in this record
        while S[HEAP_LEN] and ht[0] <= t and I[XSTATE, hi[0]] == X_HELD:
            mark_due(S, I, heap_pop(S, ht, hi))
        settle_and_release(S, SF, I, F, cache, grp)
    record(S, SF, ser_t, ser, np.int64(0), np.int64(0), np.int64(0))
    return True


@njit(cache=True, nogil=True, _nrt=False)
def run_events(S, SF, I, F, run, wq, fixed, feed, ht, hi, feq, ser_t, ser, log_r, log_t, coef, cache, grp, work,
               horizon, max_events, op, r):
    """Events while the clock is before horizon and work is left, at most max_events. The
    arrays are Python's for the whole call: borrowed (borrow.py), and the loop runs on them.
    cache: the prefix cache's arrays, used where S[CACHE] says so (a replay caching nothing
    carries an empty one: one compiled loop for both). op: OP_RUN, or one of control.py's
    operations on request r (a cancel, a look at the prefix cache), which it returns."""
    S, SF, I, F, run, wq = borrow(S), borrow(SF), borrow(I), borrow(F), borrow(run), borrow(wq)
    fixed, feed, ht, hi, feq = borrow(fixed), borrow(feed), borrow(ht), borrow(hi), borrow(feq)
    ser_t, ser, log_r, log_t, coef = borrow(ser_t), borrow(ser), borrow(log_r), borrow(log_t), borrow(coef)
    cache, work = ref(cache), borrow(work)  # by reference, borrowed (byref.py)
    grp = ref(grp)
    S, SF, I, F = ref(S), ref(SF), ref(I), ref(F)  # indexed as the arrays (byref.py)
    if op != OP_RUN:
        return operation(S, SF, I, F, run, wq, feed, ht, hi, ser_t, ser, cache, grp, op, r, horizon)
    cap = run.size + 1
    # scratch: ids, chunks, finished ids, a set's table, offsets
    ids, chunks, gone = work[:cap], work[cap:2 * cap], work[2 * cap:6 * cap]
    scratch, hist = work[6 * cap:8 * cap], work[8 * cap:8 * cap + S[BS]]
    seen = work[8 * cap + S[BS]:]  # step sizes run so far (one_off.py; empty unless a first size costs)
    fast = S[FAST] != 0
    events = np.int64(0)
    while SF[NOW] < horizon and work_left(S, ht):
        if events >= max_events:
            return ST_CHUNK
        if S[SER_LEN] + 2 > ser_t.size or S[LOG_LEN] + cap > log_r.size:
            return ST_GROW
        events += 1
        S[EVENTS] += 1
        arrivals(S, SF, I, F, fixed, feed, ht, hi, wq, feq, SF[NOW])
        if S[CACHE] or S[DUE_HEAD]:
            settle_and_release(S, SF, I, F, cache, grp)
        if S[N_RUN] == 0 and S[WQ_LEN] == 0:
            if not wait(S, SF, I, F, fixed, feed, ht, hi, feq, ser_t, ser, horizon, cache, grp):
                return ST_DONE
            continue
        if fast and not S[GROUPED]:
            regroup(S, I, run, grp)
        n_dec = decoding_prefix(I, run, S[N_RUN])
        if fast and n_dec == S[N_RUN] and n_dec > 0:
            if try_fast_forward(S, SF, I, F, run, wq, fixed, feed, ht, hi, feq, coef, horizon, cache, grp, ser_t, ser,
                                gone, scratch, hist, seen):
                continue
        logged = S[LOG_LEN]
        m = plan_fast(S, SF, I, F, run, wq, log_t, ht, hi, cache, grp, n_dec, ids, chunks) if fast else -1
        if m < 0:
            dissolve(S, I, run, grp)
            m = plan_exact(S, SF, I, F, run, wq, log_r, log_t, ht, hi, ids, chunks, cache, grp)
            n_dec = np.int64(0)
        if m == 0 and S[N_RUN] == 0 and (S[XFER_N] or S[HELD_N]) and S[LOG_LEN] == logged:
            # nothing to compute (the queue waits for blocks in transfer or held): no step
            # until the next arrival, landing or release
            if not wait(S, SF, I, F, fixed, feed, ht, hi, feq, ser_t, ser, horizon, cache, grp):
                return ST_DONE
            continue
        execute(S, SF, I, F, run, coef, cache, grp, ht, hi, ser_t, ser, n_dec, ids, chunks, m, gone, scratch,
                (fixed, feed, feq, wq), seen)
    if S[CACHE] and not work_left(S, ht) and not (S[ROUTED] and S[FEED_OPEN]):
        settle(part(cache, 0), S[FREE], SF[NOW])  # the replay is over: the last step's blocks leave the queue
    return ST_DONE
