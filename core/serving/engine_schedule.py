"""One engine step planned exactly as vLLM V1's scheduler plans it: the running requests
first (chunked prefill, a block per decode that crosses a block boundary, preemption of
the most recently admitted when the pool runs dry), then FCFS admission from the waiting
queue while budget, seats and blocks last.

A mixin of engine.Engine (its state lives there); split out so each file reads on its own.
The decoding requests are the lockstep group (engine_lockstep.py): the grouped plan (fast
mode) counts their block needs from the group and visits them only when the pool runs dry
among them; the exact plan (fast=False) goes request by request.
"""
from __future__ import annotations

import math


class StepPlanning:
    # -- one step, exactly as the scheduler would take it -----------------------------
    def _step(self) -> None:
        if self.fast:
            n_dec, ids, chunks, preempted = self._plan_grouped()
            exact = preempted  # such a step caches blocks as _plan_exact's (the frozen engine's)
        else:
            n_dec, ids, chunks = self._plan_exact()
            exact = True
        self._execute(n_dec, ids, chunks, exact)

    def _gate_blocks(self, h: int, chunk: int, bs: int) -> int:
        """Free blocks a waiting request needs to be admitted: its first chunk, or with
        reserve_full_prompt (vLLM's scheduler_reserve_full_isl) all its tokens to
        (re)compute, so a long prompt is not let in only to be preempted mid-prefill."""
        if self.cfg.reserve_full_prompt:
            return -(-(self._p[h] + self.out[h]) // bs)
        return -(-chunk // bs)

    def _admit(self, admitted: list[int]) -> None:
        first_sched = self.first_sched
        for h in admitted:
            self.waiting.popleft()
            self.running.append(h)
            if math.isnan(first_sched[h]):
                first_sched[h] = self.now
                self.cached[h] = self.computed[h]
            pending = self._pending_resume.pop(h, None)
            if pending is not None:
                self.preempt_log[pending][2] = self.now

    def _plan_grouped(self):
        """The step's plan with the lockstep group kept (fast mode), as _plan_exact plans
        it: its members take one token each in running order and only those at a block
        boundary need a block, so they are counted (the group keeps them by phase) and
        only visited when the pool runs dry among them: then the most recently admitted
        are preempted (the tail of running), down to the member itself. Then the request
        in prefill, request by request as in _plan_exact, and FCFS admission if nothing
        was preempted. Returns (members scheduled, ids, chunks, whether any was preempted)."""
        running = self.running
        ng = self._ng
        bs = self._bs
        phase = -self._D % bs  # (cb + D) % bs == 0: at a block boundary
        need = self._cnt[phase]
        preempted = False
        scheduled = ng  # members that get their token: running[:scheduled]
        if need <= self.free:
            self.free -= need
        else:
            # Their positions found at C speed in the members' phases.
            phases = list(map(self._res.__getitem__, running[:ng]))
            p = -1
            for _ in range(need):
                p = phases.index(phase, p + 1)
                if p >= len(running):  # preempted already: the loop ends before it
                    scheduled = len(running)
                    break
                while self.free < 1:
                    victim = running.pop()
                    self._preempt(victim)
                    preempted = True
                    if len(running) == p:  # the member itself
                        scheduled = p
                        break
                if scheduled < ng:
                    break
                self.free -= 1
        scheduled = min(scheduled, len(running))  # members past the last needy one may be gone too
        budget = self._budget - scheduled
        P, out, computed, blocks = self._p, self.out, self.computed, self.blocks
        ids: list[int] = []
        chunks: list[int] = []
        i = scheduled
        go_on = scheduled == ng  # else the loop ended among the members
        while go_on and i < len(running) and budget > 0:
            r = running[i]
            num = min(P[r] + out[r] - computed[r], budget)
            need = -(-(computed[r] + num) // bs) - blocks[r]
            stop = False
            while need > self.free:
                victim = running.pop()
                self._preempt(victim)
                preempted = True
                if victim == r:
                    stop = True
                    break
            if stop:
                break
            self.free -= need
            blocks[r] += need
            ids.append(r)
            chunks.append(num)
            budget -= num
            i += 1
        if not preempted:
            self._admit_waiting(budget, ids, chunks)
        return (scheduled, ids, chunks, preempted)

    def _admit_waiting(self, budget: int, ids: list[int], chunks: list[int]) -> None:
        """FCFS admission after a step's running requests are planned without a preemption:
        waiting requests, the head first (it blocks the queue), while budget, seats and
        blocks last; each takes the blocks of its first chunk (ids, chunks grow)."""
        if self.cache is not None:
            self._admit_cached(budget, ids, chunks)
            return
        P, out, computed, blocks, bs = self._p, self.out, self.computed, self.blocks, self._bs
        admitted: list[int] = []
        running_count = len(self.running)
        for h in self.waiting:
            if budget <= 0 or running_count >= self._max_seqs:
                break
            num = min(P[h] + out[h] - computed[h], budget)
            need = -(-num // bs)
            if self._gate_blocks(h, num, bs) > self.free:
                break
            self.free -= need
            blocks[h] += need
            admitted.append(h)
            ids.append(h)
            chunks.append(num)
            budget -= num
            running_count += 1
        self._admit(admitted)

    def _plan_exact(self):
        """vLLM V1's loop over running requests with preemption, request by request."""
        budget = self._budget
        bs = self._bs
        P, out, computed, blocks = self._p, self.out, self.computed, self.blocks
        ids: list[int] = []
        chunks: list[int] = []
        preempted = False
        i = 0
        while i < len(self.running) and budget > 0:
            r = self.running[i]
            num = min(P[r] + out[r] - computed[r], budget)
            need = -(-(computed[r] + num) // bs) - blocks[r]
            scheduled = True
            while need > self.free:
                victim = self.running.pop()
                self._preempt(victim)
                preempted = True
                if victim == r:
                    scheduled = False
                    break
            if not scheduled:
                break
            self.free -= need
            blocks[r] += need
            ids.append(r)
            chunks.append(num)
            budget -= num
            i += 1
        if not preempted:
            self._admit_waiting(budget, ids, chunks)
        return (0, ids, chunks)

    def _give_back(self, r: int, finished: bool) -> None:
        """r's blocks go back to the pool (finished, preempted or cancelled): with prefix
        caching to the LRU queue, its full blocks still cached; r leaves the lockstep group."""
        if self._jid[r] >= 0:
            self._leave(r)
        if self.cache is not None:
            self._release(r, finished=finished)
        else:
            self.free += self.blocks[r]
        self.blocks[r] = 0

    def _preempt(self, r: int) -> None:
        self._give_back(r, finished=False)
        self.computed[r] = 0
        self.is_dec[r] = False
        self.npreempt[r] += 1
        self.waiting.appendleft(r)
        self._pending_resume[r] = len(self.preempt_log)
        self.preempt_log.append([r, self.now, math.nan])
