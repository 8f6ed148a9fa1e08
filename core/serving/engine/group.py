"""The running requests in decode, kept as one lockstep group with a shared clock.

Every decode step gives each of them one token, so instead of adding 1 to each request's
computed and output counts the group keeps one decode clock S[D]: a member's computed
tokens are I[CB] + D and its outputs I[OB] + D. What a step or a run of k steps needs
from the group is kept up to date as requests join (their prefill completes) and leave
(finish, preemption, cancel), so a closed-form run costs O(block size), not O(members):
- how many members sit at each phase (CB mod block size): how many need a new block in
  the next step and in the next k steps (a member needs one each time its computed count
  crosses a block boundary), and the sorted offsets to those boundaries;
- S[SUMCB] = Σ CB (the context sum is SUMCB + NG·D, an exact integer);
- a heap of the clock at which each member finishes (G − OB), stale entries skipped.
The group is the decoding prefix of `running`. The per-request rows hold a member's
true counts only after it leaves. A step planned request by request (preemption, or
fast=False) dissolves the group first and it is rebuilt at the next event.

grp = (cnt: members by phase, and the finish heap's clocks, ids, join ids), passed by
reference inside the loop (byref.py: deref(grp) is the tuple).
"""
from __future__ import annotations

import numpy as np

from core.serving.engine.byref import deref
from core.serving.engine.jit import kernel
from core.serving.engine.layout import (
    BLOCKS,
    BS,
    CB,
    COMPUTED,
    EAGER,
    EAGER_MEMBERS,
    FIN_LEN,
    GROUPED,
    IS_DEC,
    JID,
    JOINS,
    N_RUN,
    NG,
    OB,
    OUT,
    RES,
    SUMCB,
    D,
    G,
)


@kernel
def _fin_swap(fc, fr, fj, a, b):
    fc[a], fc[b] = fc[b], fc[a]
    fr[a], fr[b] = fr[b], fr[a]
    fj[a], fj[b] = fj[b], fj[a]


@kernel
def _sift_down(fc, fr, fj, i, n):
    while True:
        a, b, m = 2 * i + 1, 2 * i + 2, i
        if a < n and fc[a] < fc[m]:
            m = a
        if b < n and fc[b] < fc[m]:
            m = b
        if m == i:
            return
        _fin_swap(fc, fr, fj, i, m)
        i = m


@kernel
def _fin_pop(S, grp):
    fc, fr, fj = deref(grp)[1:]
    n = S[FIN_LEN] - 1
    S[FIN_LEN] = n
    fc[0], fr[0], fj[0] = fc[n], fr[n], fj[n]
    _sift_down(fc, fr, fj, np.int64(0), n)


@kernel
def _fin_push(S, I, grp, c, r, j):
    fc, fr, fj = deref(grp)[1:]
    n = S[FIN_LEN]
    if n == fc.size:  # full of stale entries: keep the live ones, heapify again
        w = np.int64(0)
        for i in range(n):
            if I[JID, fr[i]] == fj[i]:
                fc[w], fr[w], fj[w] = fc[i], fr[i], fj[i]
                w += 1
        n = w
        for i in range(n // 2 - 1, -1, -1):
            _sift_down(fc, fr, fj, i, n)
    fc[n], fr[n], fj[n] = c, r, j
    S[FIN_LEN] = n + 1
    i = n
    while i > 0:
        p = (i - 1) // 2
        if not fc[i] < fc[p]:
            break
        _fin_swap(fc, fr, fj, i, p)
        i = p


@kernel
def join(S, I, grp, r):
    d = S[D]
    cb = I[COMPUTED, r] - d
    ob = I[OUT, r] - d
    I[CB, r] = cb
    I[OB, r] = ob
    j = S[JOINS]
    S[JOINS] = j + 1
    I[JID, r] = j
    res = cb % S[BS]
    I[RES, r] = res
    deref(grp)[0][res] += 1
    S[SUMCB] += cb
    _fin_push(S, I, grp, I[G, r] - ob, r, j)
    S[NG] += 1
    if I[EAGER, r]:
        S[EAGER_MEMBERS] += 1


@kernel
def leave(S, I, grp, r):
    """r stops decoding in lockstep: its counts go back to its rows."""
    d = S[D]
    cb = I[CB, r]
    c = cb + d
    I[COMPUTED, r] = c
    I[OUT, r] = I[OB, r] + d
    I[BLOCKS, r] = -(-c // S[BS])  # a decoder holds exactly the blocks of its KV
    I[JID, r] = -1
    deref(grp)[0][I[RES, r]] -= 1
    S[SUMCB] -= cb
    S[NG] -= 1
    if I[EAGER, r]:
        S[EAGER_MEMBERS] -= 1


@kernel
def sync(S, I, r):
    """A member's computed and output counts written to its rows (it stays a member)."""
    I[COMPUTED, r] = I[CB, r] + S[D]
    I[OUT, r] = I[OB, r] + S[D]


@kernel
def dissolve(S, I, run, grp):
    """Every member's counts back to its rows (a step planned request by request follows)."""
    if S[GROUPED]:
        ng = S[NG]
        for i in range(ng):
            leave(S, I, grp, run[i])
        S[FIN_LEN] = 0
        S[GROUPED] = 0


@kernel
def regroup(S, I, run, grp):
    """The group again from running: its prefix up to the last decoding request."""
    k = S[N_RUN]
    while k > 0 and not I[IS_DEC, run[k - 1]]:
        k -= 1
    for i in range(k):
        join(S, I, grp, run[i])
    S[GROUPED] = 1


@kernel
def extend(S, I, run, grp):
    """Requests right after the group whose prefill just completed join it."""
    k = S[NG]
    while k < S[N_RUN] and I[IS_DEC, run[k]]:
        join(S, I, grp, run[k])
        k += 1


@kernel
def at_offset(S, grp, o):
    """Members whose next block boundary is o steps (plus one) away."""
    return deref(grp)[0][(-o - S[D]) % S[BS]]


@kernel
def crossings(S, grp, k):
    """New blocks the members need over the next k lockstep steps."""
    bs = S[BS]
    full, rem = divmod(k, bs)
    if not rem:
        return S[NG] * full
    cnt = deref(grp)[0]
    s0 = (-S[D]) % bs
    part = np.int64(0)
    for i in range(rem):  # offsets 0..rem-1: phases s0, s0-1, ..., s0-rem+1 (mod bs)
        part += cnt[(s0 - i) % bs]
    return S[NG] * full + part


@kernel
def kth_offset(S, grp, idx):
    """The idx-th smallest (0-based) offset to a member's next block boundary."""
    seen = np.int64(0)
    for o in range(S[BS]):
        seen += at_offset(S, grp, o)
        if seen > idx:
            return o
    return S[BS]


@kernel
def first_finish(S, I, grp):
    """Lockstep steps until the first member finishes."""
    fc, fr, fj = deref(grp)[1:]
    while I[JID, fr[0]] != fj[0]:
        _fin_pop(S, grp)
    return fc[0] - S[D]


@kernel
def finished_members(S, I, run, grp, gone, nf):
    """Members done at the current clock appended to gone[nf:], in running order; returns nf."""
    fc, fr, fj = deref(grp)[1:]
    d = S[D]
    any_done = False
    while S[FIN_LEN] and fc[0] <= d:
        if I[JID, fr[0]] == fj[0]:
            any_done = True
        _fin_pop(S, grp)
    if any_done:
        for i in range(S[NG]):
            r = run[i]
            if I[OB, r] + d >= I[G, r]:
                gone[nf] = r
                nf += 1
    return nf
