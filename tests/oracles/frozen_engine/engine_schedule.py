"""One engine step planned exactly as vLLM V1's scheduler plans it: the running requests
first (chunked prefill, a block per decode that crosses a block boundary, preemption of
the most recently admitted when the pool runs dry), then FCFS admission from the waiting
queue while budget, seats and blocks last.

A mixin of engine._Engine (its state lives there); split out so each file reads on its own.
"""
from __future__ import annotations

import math

import numpy as np


class StepPlanning:
    # -- one step, exactly as the scheduler would take it -----------------------------
    def _step(self, dec: np.ndarray, bs: int) -> None:
        plan = self._plan_without_preemption(dec, bs) if self.fast else None
        if plan is None:
            plan = self._plan_exact(bs)
        plan_dec, ids, chunks = plan
        self._execute(plan_dec, ids, chunks)

    def _plan_without_preemption(self, dec: np.ndarray, bs: int):
        """The schedule when every running request gets its blocks (the common case).
        Returns None, touching nothing, if some request would need a preemption."""
        budget = self.cfg.token_budget
        n_dec = dec.size
        free = self.free
        ids: list[int] = []
        chunks: list[int] = []
        if n_dec:
            need = int(np.count_nonzero(self.computed[dec] % bs == 0))
            if need > free:
                return None
            free -= need
            budget -= n_dec
        P, out, computed, blocks = self.P, self.out, self.computed, self.blocks
        allocs: list[tuple[int, int]] = []
        for r in self.running[n_dec:]:
            if budget <= 0:
                break
            num = min(int(P[r] + out[r] - computed[r]), budget)
            need = -(-(int(computed[r]) + num) // bs) - int(blocks[r])
            if need > free:
                return None
            free -= need
            allocs.append((r, need))
            ids.append(r)
            chunks.append(num)
            budget -= num
        if self.cache is not None:  # no preemption in this step: commit, then admit with lookups
            if n_dec:
                self.blocks[dec[self.computed[dec] % bs == 0]] += 1
            for r, need in allocs:
                self.blocks[r] += need
            self.free = free
            self._admit_cached(budget, ids, chunks)
            return (dec, ids, chunks)
        # Admission: FCFS, the head blocks the queue.
        admitted: list[int] = []
        max_seqs = self.cfg.max_num_seqs
        running_count = len(self.running)
        for h in self.waiting:
            if budget <= 0 or running_count >= max_seqs:
                break
            num = min(int(P[h] + out[h] - computed[h]), budget)
            need = -(-num // bs)
            if self._gate_blocks(h, num, bs) > free:
                break
            free -= need
            allocs.append((h, need))
            admitted.append(h)
            ids.append(h)
            chunks.append(num)
            budget -= num
            running_count += 1
        # Commit.
        if n_dec:
            grow = dec[self.computed[dec] % bs == 0]
            self.blocks[grow] += 1
        for r, need in allocs:
            self.blocks[r] += need
        self.free = free
        self._admit(admitted)
        return (dec, ids, chunks)

    def _gate_blocks(self, h: int, chunk: int, bs: int) -> int:
        """Free blocks a waiting request needs to be admitted: its first chunk, or with
        reserve_full_prompt (vLLM's scheduler_reserve_full_isl) all its tokens to
        (re)compute, so a long prompt is not let in only to be preempted mid-prefill."""
        if self.cfg.reserve_full_prompt:
            return -(-int(self.P[h] + self.out[h]) // bs)
        return -(-chunk // bs)

    def _admit(self, admitted: list[int]) -> None:
        for h in admitted:
            self.waiting.popleft()
            self.running.append(h)
            if math.isnan(self.first_sched[h]):
                self.first_sched[h] = self.now
                self.cached[h] = self.computed[h]
            pending = self._pending_resume.pop(h, None)
            if pending is not None:
                self.preempt_log[pending][2] = self.now
        if admitted:
            self._dec_cache = None

    def _plan_exact(self, bs: int):
        """vLLM V1's loop over running requests with preemption, request by request."""
        budget = self.cfg.token_budget
        P, out, computed, blocks = self.P, self.out, self.computed, self.blocks
        ids: list[int] = []
        chunks: list[int] = []
        preempted = False
        i = 0
        while i < len(self.running) and budget > 0:
            r = self.running[i]
            num = min(int(P[r] + out[r] - computed[r]), budget)
            need = -(-(int(computed[r]) + num) // bs) - int(blocks[r])
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
        self._dec_cache = None
        if not preempted and self.cache is not None:
            self._admit_cached(budget, ids, chunks)
        elif not preempted:
            admitted: list[int] = []
            running_count = len(self.running)
            for h in self.waiting:
                if budget <= 0 or running_count >= self.cfg.max_num_seqs:
                    break
                num = min(int(P[h] + out[h] - computed[h]), budget)
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
        return (np.zeros(0, np.int64), ids, chunks)

    def _preempt(self, r: int) -> None:
        if self.cache is not None:
            self._release(r, finished=False)
        else:
            self.free += int(self.blocks[r])
        self.blocks[r] = 0
        self.computed[r] = 0
        self.is_dec[r] = False
        self.npreempt[r] += 1
        self.waiting.appendleft(r)
        self._pending_resume[r] = len(self.preempt_log)
        self.preempt_log.append([r, self.now, math.nan])
