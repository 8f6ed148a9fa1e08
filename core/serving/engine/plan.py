"""The scheduler policy, compiled: one engine step planned as vLLM V1's scheduler plans
it with its default FCFS policy. The running requests first (chunked prefill, a block per
decode that crosses a block boundary, preemption of the most recently admitted when the
pool runs dry), then FCFS admission from the waiting queue while budget, seats and blocks
last (the head blocks the queue). A waiting request is admitted only when the blocks of
its whole prompt are free with reserve_full_prompt (vLLM's scheduler_reserve_full_isl).

plan_fast and plan_exact fill ids/chunks (the requests computing in this step and their
tokens, running[:n_dec], the lockstep group, taking its one token each besides them) and
return how many ids they filled. Another policy is another pair with the same contract.

Remote KV (P/D's decode side): a waiting request whose KV comes over a link takes, at the
head, the blocks of its ready tokens and the next token's slot, but no budget and no seat
(vLLM's WAITING_FOR_REMOTE_KVS is not running), and leaves the queue for its transfer
(start_transfer); admission goes on with the next request. It lands back at the queue's
head (queues.land) and is admitted as any request, its blocks already held. Encoder work:
an admitted request's encoder seconds go to this step (SF[ENC_STEP]), and a request with
encoder tokens past what is left of the step's encoder budget waits at the head.
"""
from __future__ import annotations

import math

import numpy as np

from core.serving.engine.blocks import give_back
from core.serving.engine.group import at_offset
from core.serving.engine.jit import kernel
from core.serving.engine.layout import (
    BLOCKS,
    BS,
    BUDGET,
    CACHE,
    CACHED,
    COMPUTED,
    ENC_BUDGET,
    ENC_ON,
    ENC_S,
    ENC_STEP,
    ENC_TOK,
    FIRST_SCHED,
    FREE,
    IS_DEC,
    KV_ALLOC,
    KV_READY,
    LOG_LEN,
    MAX_SEQS,
    N_RUN,
    NOW,
    NPREEMPT,
    OUT,
    PENDING,
    READY,
    RESERVE,
    WQ_LEN,
    X_MOVING,
    X_NEEDS,
    X_NONE,
    XFER_N,
    XSTATE,
    P,
)
from core.serving.engine.prefix import head_plan, take_hit
from core.serving.engine.queues import heap_push, wq_appendleft, wq_get, wq_popleft


@kernel
def ceil_div(a, b):
    return -(-a // b)


@kernel
def decoding_prefix(I, run, n_run):
    """Running requests in decode: a prefix of running (those still in prefill are always
    the most recently admitted)."""
    k = n_run
    while k > 0 and not I[IS_DEC, run[k - 1]]:
        k -= 1
    return k


@kernel
def remote_blocks(S, I, h):
    """Blocks a remote request takes for its transfer: its ready tokens' and the slot of
    the token it computes next (so once landed it never waits for a block)."""
    return ceil_div(I[READY, h] + 1, S[BS])


@kernel
def gate_blocks(S, I, h, chunk):
    """Free blocks a waiting request needs to be admitted: its first chunk, or with
    reserve_full_prompt all its tokens to (re)compute (a remote request: remote_gate)."""
    if I[XSTATE, h] != X_NONE:
        return remote_gate(S, I, h, chunk)
    if S[RESERVE]:
        return ceil_div(I[P, h] + I[OUT, h], S[BS])
    return ceil_div(chunk, S[BS])


@kernel
def remote_gate(S, I, h, chunk):
    """gate_blocks of a remote request: before its transfer remote_blocks (with
    reserve_full_prompt at least its whole prompt's); landed, less the blocks it holds."""
    bs = S[BS]
    if I[XSTATE, h] == X_NEEDS:
        need = remote_blocks(S, I, h)
        return max(need, ceil_div(I[P, h], bs)) if S[RESERVE] else need
    if S[RESERVE]:
        return ceil_div(I[P, h] + I[OUT, h], bs) - I[BLOCKS, h]
    return ceil_div(I[COMPUTED, h] + chunk, bs) - I[BLOCKS, h]


@kernel
def start_transfer(S, SF, I, F, wq, ht, hi, need):
    """The head, a remote request, takes `need` blocks (the caller counted them) and
    leaves the queue while its KV is transferred; it lands when the heap says."""
    h = wq_popleft(S, wq)
    I[BLOCKS, h] = need
    I[XSTATE, h] = X_MOVING
    now = SF[NOW]
    F[KV_ALLOC, h] = now
    ready = now + F[KV_READY, h]  # KV_READY held the transfer time until now
    F[KV_READY, h] = ready
    heap_push(S, ht, hi, ready, h)
    S[XFER_N] += 1


@kernel
def encoder_waits(S, I, h, used):
    """h's encoder tokens do not fit in what is left of this step's encoder budget (the
    first encoder request of a step always fits: vLLM sizes the budget to the largest item)."""
    tok = I[ENC_TOK, h]
    return tok > 0 and used > 0 and S[ENC_BUDGET] > 0 and used + tok > S[ENC_BUDGET]


@kernel
def admit(S, SF, I, F, run, wq, log_t, h):
    """The waiting head h joins running (the caller took its blocks)."""
    wq_popleft(S, wq)
    run[S[N_RUN]] = h
    S[N_RUN] += 1
    if math.isnan(F[FIRST_SCHED, h]):
        F[FIRST_SCHED, h] = SF[NOW]
        I[CACHED, h] = I[COMPUTED, h]
    p = I[PENDING, h]
    if p >= 0:
        log_t[1, p] = SF[NOW]
        I[PENDING, h] = -1
    I[XSTATE, h] = X_NONE  # a landed remote request is now an ordinary one
    if S[ENC_ON]:
        SF[ENC_STEP] += F[ENC_S, h]


@kernel
def preempted(S, SF, I, wq, log_r, log_t, r):
    """r's counts restart and it returns to the queue's head (its blocks are back already)."""
    I[BLOCKS, r] = 0
    I[COMPUTED, r] = 0
    I[IS_DEC, r] = 0
    I[NPREEMPT, r] += 1
    wq_appendleft(S, wq, r)
    j = S[LOG_LEN]
    I[PENDING, r] = j
    log_r[j] = r
    log_t[0, j] = SF[NOW]
    log_t[1, j] = math.nan
    S[LOG_LEN] = j + 1


@kernel
def admit_plain(S, SF, I, F, run, wq, log_t, ht, hi, budget, ids, chunks, m, free):
    """FCFS admission without prefix caching: returns (ids filled, free left)."""
    bs = S[BS]
    running_count = S[N_RUN]
    admitted = np.int64(0)
    enc = np.int64(0)
    while admitted < S[WQ_LEN]:
        h = wq_get(S, wq, admitted)
        if budget <= 0 or running_count >= S[MAX_SEQS]:
            break
        if I[XSTATE, h] == X_NEEDS:  # its KV comes over a link: blocks, no budget, no seat
            if gate_blocks(S, I, h, np.int64(0)) > free:
                break
            need = remote_blocks(S, I, h)
            free -= need
            for _ in range(admitted):  # those before it leave the queue first (their order)
                admit(S, SF, I, F, run, wq, log_t, wq_get(S, wq, np.int64(0)))
            admitted = 0
            start_transfer(S, SF, I, F, wq, ht, hi, need)
            continue
        if S[ENC_ON] and encoder_waits(S, I, h, enc):
            break
        num = min(I[P, h] + I[OUT, h] - I[COMPUTED, h], budget)
        need = ceil_div(I[COMPUTED, h] + num, bs) - I[BLOCKS, h]  # a landed one holds some
        if gate_blocks(S, I, h, num) > free:
            break
        enc += I[ENC_TOK, h]
        free -= need
        I[BLOCKS, h] += need
        ids[m] = h
        chunks[m] = num
        m += 1
        budget -= num
        running_count += 1
        admitted += 1
    for _ in range(admitted):
        admit(S, SF, I, F, run, wq, log_t, wq_get(S, wq, np.int64(0)))
    return m, free


@kernel
def admit_cached(S, SF, I, F, run, wq, log_t, cache, budget, ids, chunks, m):
    """FCFS admission with lookups; each admission is committed before the next lookup
    (it may take or evict blocks the next one would hit). Returns the ids filled."""
    seats = S[MAX_SEQS] - S[N_RUN]
    admitted = np.int64(0)
    enc = np.int64(0)
    while admitted < S[WQ_LEN]:
        if budget <= 0 or admitted >= seats:
            break
        h = wq_get(S, wq, admitted)
        if S[ENC_ON] and encoder_waits(S, I, h, enc):
            break
        gate, hit, idle, num = head_plan(S, SF, I, cache, h, budget)
        if gate > S[FREE]:
            break
        enc += I[ENC_TOK, h]
        take_hit(S, I, cache, h, hit, num)
        ids[m] = h
        chunks[m] = num
        m += 1
        budget -= num
        admitted += 1
    for _ in range(admitted):
        admit(S, SF, I, F, run, wq, log_t, wq_get(S, wq, np.int64(0)))
    return m


@kernel
def plan_fast(S, SF, I, F, run, wq, log_t, ht, hi, cache, grp, n_dec, ids, chunks):
    """The schedule when every running request gets its blocks (the common case): the
    decoders, the request in prefill, admission. Returns the ids filled, or -1, touching
    nothing, if a request would need a preemption (plan_exact then plans the step)."""
    bs = S[BS]
    budget = S[BUDGET]
    free = S[FREE]
    if n_dec:  # the group: members at a block boundary need a block each
        need = at_offset(S, grp, np.int64(0))
        if need > free:
            return -1
        free -= need
        budget -= n_dec
    m = np.int64(0)
    for i in range(n_dec, S[N_RUN]):
        if budget <= 0:
            break
        r = run[i]
        num = min(I[P, r] + I[OUT, r] - I[COMPUTED, r], budget)
        need = ceil_div(I[COMPUTED, r] + num, bs) - I[BLOCKS, r]
        if need > free:
            return -1
        free -= need
        ids[m] = r
        chunks[m] = num
        m += 1
        budget -= num
    # Commit: the prefills take their blocks (a member's blocks follow from the group's clock).
    for j in range(m):
        r = ids[j]
        I[BLOCKS, r] = ceil_div(I[COMPUTED, r] + chunks[j], bs)
    if S[CACHE]:
        S[FREE] = free
        return admit_cached(S, SF, I, F, run, wq, log_t, cache, budget, ids, chunks, m)
    m, free = admit_plain(S, SF, I, F, run, wq, log_t, ht, hi, budget, ids, chunks, m, free)
    S[FREE] = free
    return m


@kernel
def plan_exact(S, SF, I, F, run, wq, log_r, log_t, ht, hi, ids, chunks, pool, grp):
    """vLLM V1's loop over running requests with preemption, request by request; every
    running request is a row of ids (its decode a chunk of one). Returns the ids filled."""
    bs = S[BS]
    budget = S[BUDGET]
    m = np.int64(0)
    any_preempted = False
    i = np.int64(0)
    while i < S[N_RUN] and budget > 0:
        r = run[i]
        num = min(I[P, r] + I[OUT, r] - I[COMPUTED, r], budget)
        need = ceil_div(I[COMPUTED, r] + num, bs) - I[BLOCKS, r]
        scheduled = True
        while need > S[FREE]:
            S[N_RUN] -= 1
            victim = run[S[N_RUN]]
            give_back(S, SF, I, F, pool, grp, victim, np.bool_(False))
            preempted(S, SF, I, wq, log_r, log_t, victim)
            any_preempted = True
            if victim == r:
                scheduled = False
                break
        if not scheduled:
            break
        S[FREE] -= need
        I[BLOCKS, r] += need
        ids[m] = r
        chunks[m] = num
        m += 1
        budget -= num
        i += 1
    if not any_preempted and S[CACHE]:
        m = admit_cached(S, SF, I, F, run, wq, log_t, pool, budget, ids, chunks, m)
    elif not any_preempted:
        m, free = admit_plain(S, SF, I, F, run, wq, log_t, ht, hi, budget, ids, chunks, m, S[FREE])
        S[FREE] = free
    return m
