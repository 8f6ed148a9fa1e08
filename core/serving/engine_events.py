"""The engine's event loop, the general one: every kind of replay (sessions, a router's
feed, prefix caching, fast=False) and the reference the flattened loop of the common
replay (engine_flat.py) is written out from. Each iteration is one event: arrivals join
the queue, then either a run of lockstep decode steps is taken in closed form
(_try_fast_forward) or one step is planned (engine_schedule.py) and executed.

A mixin of engine.Engine (its state lives there).
"""
from __future__ import annotations

import math
import time

from core.cancel import CancelToken

SERIES_FLUSH = 4096  # events buffered as tuples before they go to the typed arrays
CANCEL_EVERY = 32  # loop iterations (events or skipped runs of decode steps) between checks
# A replay on a worker thread gives the GIL away for this long at each check, at most every
# YIELD_EVERY_S: the engine's many short numpy calls release and retake the GIL so often
# that a waiting GUI thread can otherwise starve for hundreds of ms (CPython's GIL convoy).
YIELD_S = 2e-4
YIELD_EVERY_S = 2e-3


class EventLoop:
    def _next_arrival_s(self) -> float:
        if self.feed is not None:
            return self.feed.next_time(self.arrivals)
        if self.arrivals is not None:
            return self.arrivals.next_time()
        return self._arr[self.next_arrival] if self.next_arrival < self.n else math.inf

    def _admit_arrivals(self) -> None:
        if self.feed is not None:
            self.feed.pop_due(self.now, self.waiting, self.arrivals)
            return
        if self.arrivals is not None:
            self.arrivals.pop_due(self.now, self.waiting)
            return
        arrival, n = self._arr, self.n
        i = self.next_arrival
        while i < n and arrival[i] <= self.now:
            self.waiting.append(i)
            i += 1
        self.next_arrival = i

    def _advance(self, horizon: float, cancel: CancelToken, cooperative: bool) -> None:  # noqa: C901
        """Run the event loop while the clock is before `horizon` and work is left.

        A routed engine (core.serving.replicas) learns its requests only as the router
        submits them: it stops at the horizon (the router's next decision) with its clock
        at or past it, and never runs a closed-form decode run past it while a request
        could still be admitted, so a request submitted there is admitted at the same step
        as in a replay that knew it from the start. advance(exact=True) (_exact_until): no
        closed-form run crosses the horizon even with a queue (a cancel due then lands at
        the first step boundary past it; the times differ from a run without the stop only
        by rounding).
        cooperative: run as a job beside a GUI thread (give the GIL away now and then)."""
        fast = self.fast
        self._plain_arrivals = self.feed is None and self.arrivals is None
        arr, n_req = self._arr, self.n
        if self.feed is not None:
            self.feed.horizon = horizon
        while self.now < horizon and (self.done < self.n if self.feed is None else self._routed_work_left()):
            self.events += 1
            self._tick += 1
            if self._tick >= CANCEL_EVERY:
                self._tick = 0
                if len(self._buf) >= SERIES_FLUSH:
                    self._flush_series()
                cancel.check()
                if cooperative and time.perf_counter() - self._last_yield > YIELD_EVERY_S:
                    time.sleep(YIELD_S)
                    self._last_yield = time.perf_counter()
            if self._plain_arrivals:  # inline: the common case of a replay without sessions
                i = self.next_arrival
                if i < n_req and arr[i] <= self.now:
                    self._admit_arrivals()
            else:
                self._admit_arrivals()
            if self.cache is not None:  # blocks taken in the last step leave the queue now
                self.cache.settle(self.free, self.now)
            if not self.running and not self.waiting:
                self.now = self._next_arrival_s()
                self._record(0, 0)
                continue
            if fast:
                if not self._grouped:
                    self._regroup()
                n = self._ng
                if n == len(self.running) and n > 0 and self._try_fast_forward(n):
                    continue
            self._step()

    def _try_fast_forward(self, n: int) -> bool:
        """Advance a run of pure-decode steps in one go; False if this step is an event."""
        bs = self._bs
        need_now = self._at_offset(0)  # members at a block boundary need a block in this step
        free = self.free
        if need_now > free:
            return False  # the pool runs dry in this very step: preemption
        budget_left = self._budget - n
        if self.waiting and budget_left > 0 and n < self._max_seqs:
            h = self.waiting[0]
            if self.cache is not None:
                gate = self._gate_cached(h, budget_left)
            elif self._reserve_full:
                gate = -(-(self._p[h] + self.out[h]) // bs)
            else:
                gate = self._gate_blocks(h, min(self._p[h] + self.out[h] - self.computed[h], budget_left), bs)
            if gate <= free - need_now:
                return False  # the head can be admitted now
        k = self._first_finish()  # the step in which the first finishes
        # The (free+1)-th block need is the first one that cannot be met: at step
        # q·bs + (sorted offsets)[idx] + 1, never before q·bs + 1.
        q, idx = divmod(free, n)
        if k > q * bs:
            k = min(k, q * bs + self._kth_offset(idx))
        if self.cache is not None and self.cache.tool_watch and k > 0:
            k = min(k, self._steps_before_watched_eviction(k))
        if not self.waiting and n < self._max_seqs:
            t_next = self._next_arrival_s()
            if t_next < math.inf:
                k = min(k, self._steps_until(n, float(self._sumcb + n * self._D), t_next - self.now))
        elif self._exact_until < math.inf:
            k = min(k, self._steps_until(n, float(self._sumcb + n * self._D), self._exact_until - self.now))
        if k < 1:
            return False
        self._advance_decode(n, k)
        return True

    def _steps_until(self, n: int, context_sum: float, gap: float) -> int:
        """Fewest lockstep steps after which the clock has moved on by at least gap (>= 1)."""
        cost = self._times
        if gap <= 0:
            return 1
        lo, hi = 1, 1
        while cost.decode_time(n, context_sum, hi) < gap:
            lo, hi = hi, hi * 2
            if hi > 1 << 40:
                break
        while lo < hi:  # smallest k with decode_time(k) >= gap
            mid = (lo + hi) // 2
            if cost.decode_time(n, context_sum, mid) >= gap:
                hi = mid
            else:
                lo = mid + 1
        return lo

    def _advance_decode(self, n: int, k: int) -> None:
        self.closed_form_steps += k
        self.now += self._times.decode_time(n, float(self._sumcb + n * self._D), k)
        self.free -= self._crossings(k)
        self._D += k
        if self._eager_members:
            self._register(self._eager_crossed(k))
        self.steps += k
        self.decode_tokens += n * k
        used = self._num_blocks - self.free
        if used > self.peak_used:
            self.peak_used = used
        if self._fin[0][0] <= self._D:
            finished = self._finished_members()
            if finished:
                self._finish(finished)
        self._record(n, k, n)  # tokens per step of the run

    def _finish(self, ids) -> None:
        gone = set(ids)  # the frozen engine's order of release (the pool's LRU queue sees it)
        for i in gone:
            self.finish[i] = self.now
            self._give_back(i, finished=True)
            if self.arrivals is not None:
                self.arrivals.finished(i, self.now, self._tool_wait_s(i))
        running = self.running
        for i in gone:  # a few of at most max_num_seqs: remove() runs at C speed
            running.remove(i)
        self.done += len(gone)

    def _execute(self, n_dec: int, ids: list[int], chunks: list[int], exact: bool = False) -> None:
        """Run the step: its time from the roofline, then tokens, first tokens, finishes.
        n_dec: the lockstep group (running[:n_dec]) decodes in this step too. exact: the
        step was planned request by request, as the frozen engine's _plan_exact, which
        caches every scheduled request's filled blocks (a fast step only the eager ones).
        The float sums below add integer-valued terms, exact in any grouping."""
        P, G, out, computed = self._p, self._g, self.out, self.computed
        rows = n_dec
        logits = n_dec
        kv_tokens = 0.0
        pairs = 0.0
        if n_dec:
            ctx = float(self._sumcb + n_dec * self._D) + n_dec
            kv_tokens += ctx
            pairs += ctx
        completes: list[int] = []
        is_dec = self.is_dec
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
        used = self._num_blocks - self.free
        if used > self.peak_used:
            self.peak_used = used
        self.now += self._times.step_time(rows, logits, kv_tokens, pairs)
        self.steps += 1
        self.prefill_tokens += prefill_rows
        self.decode_tokens += rows - prefill_rows - n_dec
        finished: list[int] = []
        if n_dec:
            self._D += 1
            self.decode_tokens += n_dec
            finished.extend(self._finished_members())
        for r, L in zip(ids, chunks):
            computed[r] += L
        if self.cache is not None:
            if exact:
                self._register(self.running[:n_dec] + ids if n_dec else ids)
            else:
                self._register(ids)
                if n_dec and self._eager_members:
                    self._register(self._eager_crossed(1))
        now = self.now
        has_token = self._has_token
        for r in completes:
            out[r] += 1
            if not has_token[r]:
                has_token[r] = True
                self.first_token[r] = now
            is_dec[r] = True
            if out[r] >= G[r]:
                finished.append(r)
        if finished:
            self._finish(finished)
        if completes and self._grouped:
            self._extend_group()
        # Decode rows: a step planned with preemption (_plan_exact) carries its decodes as
        # chunks of one token (rows - prefill_rows counts them as well as plan_dec).
        self._record(rows, 1, rows - prefill_rows)
