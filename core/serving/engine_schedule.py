"""One engine step planned exactly as vLLM V1's scheduler plans it: the running requests
first (chunked prefill, a block per decode that crosses a block boundary, preemption of
the most recently admitted when the pool runs dry), then FCFS admission from the waiting
queue while budget, seats and blocks last.

A mixin of engine.Engine (its state lives there); split out so each file reads on its own.
The decoding requests are the lockstep group (engine_lockstep.py): the common plan counts
their block needs from the group; the exact plan (preemption, fast=False) dissolves it and
goes request by request.
"""
from __future__ import annotations

import math


class StepPlanning:
    # -- one step, exactly as the scheduler would take it -----------------------------
    def _step(self) -> None:
        if self.fast:
            plan = self._plan_without_preemption()
            exact = plan is None
            if exact:
                plan = self._plan_preempting()
        else:
            plan = self._plan_exact()
            exact = True
        n_dec, ids, chunks = plan
        self._execute(n_dec, ids, chunks, exact)

    def _plan_without_preemption(self):
        """The schedule when every running request gets its blocks (the common case).
        Returns None, touching nothing, if some request would need a preemption."""
        budget = self._budget
        bs = self._bs
        n_dec = self._ng
        free = self.free
        ids: list[int] = []
        chunks: list[int] = []
        if n_dec:
            need = self._at_offset(0)  # decodes at a block boundary take a block each
            if need > free:
                return None
            free -= need
            budget -= n_dec
        P, out, computed, blocks = self._p, self.out, self.computed, self.blocks
        allocs: list[tuple[int, int]] = []
        for r in self.running[n_dec:]:
            if budget <= 0:
                break
            c = computed[r]
            num = min(P[r] + out[r] - c, budget)
            need = -(-(c + num) // bs) - blocks[r]
            if need > free:
                return None
            free -= need
            allocs.append((r, need))
            ids.append(r)
            chunks.append(num)
            budget -= num
        # No preemption in this step: commit (the group's blocks follow its computed
        # counts), then admit.
        for r, need in allocs:
            blocks[r] += need
        self.free = free
        self._admit_waiting(budget, ids, chunks)
        return (n_dec, ids, chunks)

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

    def _plan_preempting(self):
        """_plan_exact with the lockstep group kept: its members take one token each in
        running order and only those at a block boundary need a block, so only they are
        visited; when the pool runs dry the most recently admitted are preempted (the
        tail of running), down to the member itself. Then the requests in prefill,
        request by request as in _plan_exact. Same schedule, same order of preemptions."""
        running = self.running
        ng = self._ng
        bs = self._bs
        # Positions of the members at a block boundary ((cb + D) % bs == 0): found at C
        # speed in their phases (the group counts how many there are).
        phase = -self._D % bs
        phases = list(map(self._res.__getitem__, running[:ng]))
        needy = []
        p = -1
        for _ in range(self._cnt[phase]):
            p = phases.index(phase, p + 1)
            needy.append(p)
        preempted = False
        scheduled = ng  # members that get their token: running[:scheduled]
        for p in needy:
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
        return (scheduled, ids, chunks)

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
