"""The event loop of the common replay, flattened: fast mode, arrivals from the workload's
list (no sessions, no router), no prefix cache. Its events are all alike (a run of
lockstep decode steps, or one step with prefill chunks and admissions) and cost a few µs
each, so what is left is Python's call overhead: here the planning, the step, the
closed-form run, finishes and the lockstep group's joins and leaves are written out in
one function, the engine's state in local variables (written back on the way out; a
preemption is one helper call).

The methods this inlines (engine_schedule.py's _plan_grouped, _admit_waiting, _admit and
_preempt, engine_events.py's _try_fast_forward, _advance_decode, _execute and _finish,
engine_lockstep.py's _join, _leave, _crossings, _kth_offset, _finished_members) stay the
reference and run every other kind of replay; the operations are the same in the same order, so the results are
bit for bit theirs (tests/core/test_engine_frozen.py compares both with the frozen engine).
A mixin of engine.Engine (its state lives there).
"""
from __future__ import annotations

import math
import time
from heapq import heappop, heappush

from core.cancel import CancelToken
from core.serving.engine_events import CANCEL_EVERY, SERIES_FLUSH, YIELD_EVERY_S, YIELD_S

INF = math.inf


class FlatLoop:
    def _flat_applies(self) -> bool:
        return self.fast and self.feed is None and self.arrivals is None and self.cache is None

    def _flat_preempt(self, r: int, D: int, now: float) -> tuple[int, int | None]:
        """engine_schedule.py's _preempt with the group's clock passed in: r's blocks go
        back, its counts restart, it returns to the queue's head. Returns (blocks freed,
        r's cb if it was a member, else None); the loop keeps the group's sum and size."""
        cb = None
        if self._jid[r] >= 0:  # a member leaves: its output count back to the list
            cb = self._cb[r]
            self.out[r] = self._ob[r] + D
            self._jid[r] = -1
            self._cnt[cb % self._bs] -= 1
            freed = -(-(cb + D) // self._bs)  # a decoder holds exactly the blocks of its KV
        else:
            freed = self.blocks[r]
        self.blocks[r] = 0
        self.computed[r] = 0
        self.is_dec[r] = False
        self.npreempt[r] += 1
        self.waiting.appendleft(r)
        self._pending_resume[r] = len(self.preempt_log)
        self.preempt_log.append([r, now, math.nan])
        return freed, cb

    def _advance_flat(self, horizon: float, cancel: CancelToken, cooperative: bool) -> None:  # noqa: C901
        if not self._grouped:
            self._regroup()
        arr, n_req = self._arr, self.n
        P, G, out, computed, blocks, is_dec = self._p, self._g, self.out, self.computed, self.blocks, self.is_dec
        running, waiting = self.running, self.waiting
        cnt, cbs, obs, jid, fin, phases = self._cnt, self._cb, self._ob, self._jid, self._fin, self._res
        first_sched, first_token, finish, has_token = self.first_sched, self.first_token, self.finish, self._has_token
        cached, pending_resume, preempt_log = self.cached, self._pending_resume, self.preempt_log
        bs, nb, budget_all, max_seqs = self._bs, self._num_blocks, self._budget, self._max_seqs
        reserve_full = self._reserve_full
        decode_time, step_time = self._times.decode_time, self._times.step_time
        buf = self._buf
        record = buf.append
        exact_until = self._exact_until
        running_index = running.index
        now, free, D, ng, sumcb, joins = self.now, self.free, self._D, self._ng, self._sumcb, self._joins
        steps, dec_tok, pre_tok, closed = self.steps, self.decode_tokens, self.prefill_tokens, self.closed_form_steps
        peak, done, na, events, tick = self.peak_used, self.done, self.next_arrival, self.events, self._tick
        try:
            while now < horizon and done < n_req:
                events += 1
                tick += 1
                if tick >= CANCEL_EVERY:
                    tick = 0
                    if len(buf) >= SERIES_FLUSH:
                        self._flush_series()
                    cancel.check()
                    if cooperative and time.perf_counter() - self._last_yield > YIELD_EVERY_S:
                        time.sleep(YIELD_S)
                        self._last_yield = time.perf_counter()
                while na < n_req and arr[na] <= now:
                    waiting.append(na)
                    na += 1
                n_run = len(running)
                if not n_run and not waiting:
                    now = arr[na] if na < n_req else INF
                    record((now, 0, 0, nb - free, 0, 0, 0))
                    continue
                if ng == n_run and ng:  # all decoding: a closed-form run unless this step is an event
                    need_now = cnt[-D % bs]  # members at a block boundary need a block now
                    k = 0
                    if need_now <= free:
                        k = 1
                        budget_left = budget_all - ng
                        if waiting and budget_left > 0 and ng < max_seqs:
                            h = waiting[0]
                            if reserve_full:
                                gate = -(-(P[h] + out[h]) // bs)
                            else:
                                num = P[h] + out[h] - computed[h]
                                gate = -(-(num if num < budget_left else budget_left) // bs)
                            if gate <= free - need_now:
                                k = 0  # the head can be admitted now
                    if k:
                        top = fin[0]
                        while jid[top[1]] != top[2]:
                            heappop(fin)
                            top = fin[0]
                        k = top[0] - D  # the step in which the first member finishes
                        q, idx = divmod(free, ng)
                        if k > q * bs:  # the (free+1)-th block need cannot be met
                            s0 = -D % bs
                            seen = o = 0
                            for c in cnt[s0::-1]:
                                seen += c
                                if seen > idx:
                                    break
                                o += 1
                            else:
                                for c in cnt[:s0:-1]:
                                    seen += c
                                    if seen > idx:
                                        break
                                    o += 1
                            if q * bs + o < k:
                                k = q * bs + o
                        if not waiting and ng < max_seqs:
                            t_next = arr[na] if na < n_req else INF
                            if t_next < INF:
                                k = min(k, self._steps_until(ng, float(sumcb + ng * D), t_next - now))
                        elif exact_until < INF:
                            k = min(k, self._steps_until(ng, float(sumcb + ng * D), exact_until - now))
                    if k >= 1:
                        closed += k
                        now += decode_time(ng, float(sumcb + ng * D), k)
                        full, rem = divmod(k, bs)
                        if rem:  # offsets 0..rem-1: residues s0 down to s0-rem+1 (mod bs)
                            s0 = -D % bs
                            lo = s0 - rem + 1
                            free -= ng * full + (sum(cnt[lo:s0 + 1]) if lo >= 0 else sum(cnt[:s0 + 1]) + sum(cnt[lo:]))
                        else:
                            free -= ng * full
                        D += k
                        steps += k
                        dec_tok += ng * k
                        used = nb - free
                        if used > peak:
                            peak = used
                        n_dec = ng
                        if fin[0][0] <= D:
                            gone = []
                            while fin and fin[0][0] <= D:
                                _, r, j = heappop(fin)
                                if jid[r] == j:
                                    gone.append(r)
                            if gone:
                                if len(gone) > 1:
                                    gone.sort(key=running_index)
                                for r in gone:  # members leave the group, blocks to the pool
                                    finish[r] = now
                                    cb = cbs[r]
                                    c = cb + D
                                    computed[r] = c
                                    out[r] = obs[r] + D
                                    free += -(-c // bs)
                                    blocks[r] = 0
                                    jid[r] = -1
                                    cnt[cb % bs] -= 1
                                    sumcb -= cb
                                    ng -= 1
                                for r in gone:
                                    running.remove(r)
                                done += len(gone)
                        record((now, len(waiting), len(running), nb - free, n_dec, k, n_dec))
                        continue
                # One step of its own, planned as engine_schedule.py's _plan_grouped: the
                # members, then the request in prefill, then FCFS admission.
                ids: list[int] = []
                chunks: list[int] = []
                victims: list[int] = []  # preempted in this step, most recently admitted first
                n_dec = ng0 = ng
                if ng:
                    phase = -D % bs  # members at a block boundary need a block each
                    need = cnt[phase]
                    if need <= free:
                        free -= need
                    else:  # the pool runs dry among them: the tail goes, in running order
                        member_phases = list(map(phases.__getitem__, running[:ng0]))
                        p = -1
                        for _ in range(need):
                            p = member_phases.index(phase, p + 1)
                            if p >= len(running):  # preempted already: the loop ends before it
                                n_dec = len(running)
                                break
                            while free < 1:  # the most recently admitted goes, down to p itself
                                victims.append(running.pop())
                                freed, cb = self._flat_preempt(victims[-1], D, now)
                                free += freed
                                if cb is not None:  # a member left the group
                                    sumcb -= cb
                                    ng -= 1
                                if len(running) == p:
                                    n_dec = p
                                    break
                            if n_dec < ng0:
                                break
                            free -= 1
                        if n_dec > len(running):  # members past the last needy one may be gone too
                            n_dec = len(running)
                budget = budget_all - n_dec
                i = n_dec
                while n_dec == ng0 and i < len(running) and budget > 0:
                    r = running[i]
                    c = computed[r]
                    num = P[r] + out[r] - c
                    if num > budget:
                        num = budget
                    need = -(-(c + num) // bs) - blocks[r]
                    while need > free:
                        victims.append(running.pop())
                        freed, cb = self._flat_preempt(victims[-1], D, now)
                        free += freed
                        if cb is not None:
                            sumcb -= cb
                            ng -= 1
                        if victims[-1] == r:
                            break
                    if victims and victims[-1] == r:
                        break
                    free -= need
                    blocks[r] += need
                    ids.append(r)
                    chunks.append(num)
                    budget -= num
                    i += 1
                if not victims:  # no preemption in this step: FCFS admission, the head blocks the queue
                    admitted = []
                    seats = max_seqs - len(running)
                    for h in waiting:
                        if budget <= 0 or seats <= 0:
                            break
                        num = P[h] + out[h] - computed[h]
                        if num > budget:
                            num = budget
                        need = -(-num // bs)
                        if (-(-(P[h] + out[h]) // bs) if reserve_full else need) > free:
                            break
                        free -= need
                        blocks[h] += need
                        admitted.append(h)
                        ids.append(h)
                        chunks.append(num)
                        budget -= num
                        seats -= 1
                    for h in admitted:
                        waiting.popleft()
                        running.append(h)
                        if first_sched[h] != first_sched[h]:  # NaN: its first schedule
                            first_sched[h] = now
                            cached[h] = computed[h]
                        if pending_resume:
                            pending = pending_resume.pop(h, None)
                            if pending is not None:
                                preempt_log[pending][2] = now
                # Execute it: its time from the roofline, then tokens, first tokens, finishes.
                rows = logits = n_dec
                kv_tokens = 0.0
                pairs = 0.0
                if n_dec:
                    ctx = float(sumcb + n_dec * D) + n_dec
                    kv_tokens += ctx
                    pairs += ctx
                completes = []
                prefill_rows = 0
                for r, L in zip(ids, chunks):
                    s = computed[r]
                    rows += L
                    if not is_dec[r]:
                        prefill_rows += L
                    kv_tokens += s + L
                    pairs += L * s + L * (L + 1) / 2.0
                    if s + L == P[r] + out[r]:
                        logits += 1
                        completes.append(r)
                used = nb - free
                if used > peak:
                    peak = used
                now += step_time(rows, logits, kv_tokens, pairs)
                steps += 1
                pre_tok += prefill_rows
                dec_tok += rows - prefill_rows - n_dec
                gone = []
                if n_dec:
                    D += 1
                    dec_tok += n_dec
                    while fin and fin[0][0] <= D:
                        _, r, j = heappop(fin)
                        if jid[r] == j:
                            gone.append(r)
                    if len(gone) > 1:
                        gone.sort(key=running_index)
                for r, L in zip(ids, chunks):
                    computed[r] += L
                for r in completes:
                    out[r] += 1
                    if not has_token[r]:
                        has_token[r] = True
                        first_token[r] = now
                    is_dec[r] = True
                    if out[r] >= G[r]:
                        gone.append(r)
                if gone:
                    for r in gone:
                        finish[r] = now
                        if jid[r] >= 0:  # a member leaves the group: its counts back to the lists
                            cb = cbs[r]
                            c = cb + D
                            computed[r] = c
                            out[r] = obs[r] + D
                            blocks[r] = -(-c // bs)
                            jid[r] = -1
                            cnt[cb % bs] -= 1
                            sumcb -= cb
                            ng -= 1
                        free += blocks[r]
                        blocks[r] = 0
                    for r in gone:
                        running.remove(r)
                    done += len(gone)
                if completes:  # requests right after the group whose prefill completed join it
                    k = ng
                    while k < len(running) and is_dec[running[k]]:
                        r = running[k]
                        cb = computed[r] - D
                        ob = out[r] - D
                        cbs[r] = cb
                        obs[r] = ob
                        jid[r] = joins
                        res = cb % bs
                        phases[r] = res
                        cnt[res] += 1
                        sumcb += cb
                        heappush(fin, (G[r] - ob, r, joins))
                        joins += 1
                        ng += 1
                        k += 1
                record((now, len(waiting), len(running), nb - free, rows, 1, rows - prefill_rows))
        finally:
            self.now, self.free, self._D, self._ng, self._sumcb, self._joins = now, free, D, ng, sumcb, joins
            self.steps, self.decode_tokens, self.prefill_tokens, self.closed_form_steps = steps, dec_tok, pre_tok, closed
            self.peak_used, self.done, self.next_arrival, self.events, self._tick = peak, done, na, events, tick
