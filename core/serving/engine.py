"""A request-level, discrete-event model of a vLLM-V1-style continuous-batching engine.

What it models (vLLM V1's scheduler with the default FCFS policy):
- a waiting queue in arrival order and at most `max_num_seqs` running requests;
- KV in blocks of `block_size` tokens from a fixed pool; a request holds
  ceil(tokens with KV / block_size) blocks and allocation is exact (no watermark);
- a waiting request is admitted only when the blocks for its whole prompt are free
  (reserve_full_prompt, vLLM's scheduler_reserve_full_isl; it can be switched off);
- each step first serves the running requests in admission order (a decode takes one
  token of the budget, a request still in prefill takes what is left of its prompt up to
  the budget: chunked prefill), then, if nothing was preempted in this step, admits
  waiting requests while budget, seats and blocks last (the head blocks the queue);
- when a running request cannot get a block, the most recently admitted request is
  preempted by recompute: its blocks are freed, it returns to the head of the queue and
  later re-prefills its prompt plus the tokens it had generated;
- a prefill that completes samples the request's next token; a request with G output
  tokens is done after its G-th token;
- with prefix information in the workload (Mooncake hash_ids or sessions), automatic
  prefix caching (engine_prefix.py, prefix_cache.py): a request starts from the longest
  run of cached full blocks and only computes the rest, which still attends to them;
- sessions: a turn can arrive only after its predecessor finished (session_arrivals.py).
Step times come from `StepCost` (a roofline plus a fixed overhead). The config, the
records and the check at the edge are in engine_records.py; one step's plan (the
scheduler) in engine_schedule.py.

Why it is fast: between events, all running requests decode in lockstep and nothing about
the schedule changes, so runs of such steps are advanced in one go in closed form (their
times are sums of lines, their block needs follow each request's offset to its next
block boundary). Events that need a step of their own are prefill chunks, admissions,
finishes and the step where the pool runs dry (preemption). The decoding requests are one
lockstep group with a shared clock (engine_lockstep.py), so an event costs O(1) Python
work, not numpy calls over every running request (issue 12: about 5x fewer µs per event on
a queued, preempting load, results bit for bit those of the engine frozen in
bench/frozen_engine; bench/bench_engine_speed.py). Per-request counts are plain Python
lists: the engine reads and writes them one at a time. With prefix caching the cost is in
the block cache (prefix_cache.py), per block, not per event.
"""
from __future__ import annotations

import gc
import math
import time
from array import array
from collections import deque

import numpy as np

from core.cancel import NEVER, CancelToken
from core.serving.engine_flat import FlatLoop
from core.serving.engine_prefix import PrefixSteps
from core.serving.engine_cost import StepTimes
from core.serving.engine_feed import RoutedFeed
from core.serving.engine_routed import RoutedUse
from core.serving.engine_lockstep import LockstepGroup
from core.serving.engine_records import EngineConfig, ReplayResult, validate
from core.serving.engine_schedule import StepPlanning
from core.serving.session_arrivals import Arrivals
from core.serving.step_cost import StepCost
from core.serving.workload import Workload

__all__ = ["EngineConfig", "ReplayResult", "StepCost", "replay", "validate"]


SERIES_FLUSH = 4096  # events buffered as tuples before they go to the typed arrays
CANCEL_EVERY = 32  # loop iterations (events or skipped runs of decode steps) between checks
# A replay on a worker thread gives the GIL away for this long at each check, at most every
# YIELD_EVERY_S: the engine's many short numpy calls release and retake the GIL so often
# that a waiting GUI thread can otherwise starve for hundreds of ms (CPython's GIL convoy).
YIELD_S = 2e-4
YIELD_EVERY_S = 2e-3


def replay(workload: Workload, config: EngineConfig = EngineConfig(), fast: bool = True,
           cancel: CancelToken = NEVER) -> ReplayResult:
    """Run the workload through the engine. fast=False takes every step one by one (same
    schedule, same result up to rounding; the reference that checks the closed-form jumps
    and the bulk schedule).

    The config and workload are taken as they are: check them once where they come in
    (`validate`, which serving.replay's inputs and `traces.load_trace` callers run).
    cancel: checked every CANCEL_EVERY iterations of the event loop; raises Cancelled."""
    return Engine(workload, config, fast).run(cancel)


class Engine(FlatLoop, StepPlanning, PrefixSteps, LockstepGroup, RoutedUse):
    """One engine. `replay` runs it over a whole workload; core.serving.replicas drives
    several, routed: route() first, then advance(t) / submit(r) in time order, close(),
    advance(inf) and result(). Request ids r are in the engine's order (`self.order`:
    workload rows sorted by arrival)."""

    def __init__(self, workload: Workload, config: EngineConfig, fast: bool = True):
        self.fast = fast
        self.cfg = config
        self.cost = config.cost
        self._times = StepTimes(config.cost)
        n = len(workload)
        order = np.argsort(workload.arrival_s, kind="stable")
        self.order = order
        self.arrival = workload.arrival_s[order].astype(float)
        self.P = workload.input_tokens[order].astype(np.int64)
        self.G = workload.output_tokens[order].astype(np.int64)
        self.n = n
        self._p = self.P.tolist()  # per-request counts as lists: read one at a time
        self._g = self.G.tolist()
        self._arr = self.arrival.tolist()
        self.computed = [0] * n  # tokens whose KV is in the pool (a decoder's: _computed_of)
        self.out = [0] * n  # output tokens produced so far
        self.blocks = [0] * n
        self.is_dec = [False] * n  # prompt (and any recompute) done: one token per step
        self.first_sched = [math.nan] * n  # times as lists too (numpy's item access is slower)
        self.first_token = [math.nan] * n
        self._has_token = [False] * n
        self.finish = [math.nan] * n
        self.npreempt = [0] * n
        self.cancelled = np.zeros(n, bool)
        self._bs = config.block_size
        self._num_blocks = config.num_blocks
        self._budget = config.token_budget
        self._max_seqs = config.max_num_seqs
        self._reserve_full = config.reserve_full_prompt
        self.preempt_log: list[list] = []
        self._pending_resume: dict[int, int] = {}
        self.free = config.num_blocks
        self.now = 0.0
        self.steps = 0
        self.decode_tokens = 0
        self.closed_form_steps = 0
        self.events = 0
        self.prefill_tokens = 0
        self.peak_used = 0
        self.running: list[int] = []
        self.waiting: deque[int] = deque()
        self.next_arrival = 0
        self.done = 0
        # Series in typed arrays (8 bytes a value, not a Python object each): a long trace
        # has tens of events per request. Each event appends one tuple to _buf, moved into
        # the arrays every SERIES_FLUSH events (one append per event, not seven).
        self._buf: list[tuple] = []
        self._s_t = array("d", [0.0])
        self._s_w = array("q", [0])
        self._s_r = array("q", [0])
        self._s_kv = array("q", [0])
        self._s_tok = array("q", [0])
        self._s_steps = array("q", [0])
        self._s_dec = array("q", [0])
        self.cached = [0] * n  # prompt tokens found cached at the first schedule
        # Sessions: turns that arrive after their predecessor finished (None: all fixed).
        self.arrivals = Arrivals(self.arrival, workload.sessions, order) if workload.sessions is not None else None
        self._setup_prefix(workload)  # self.cache: None without prefix information
        self._eager = self._eager_out.tolist() if self.cache is not None and self._eager_out.any() else None
        self._setup_group(n, self._bs)
        self._tick = 0
        self._last_yield = time.perf_counter()
        self.feed: RoutedFeed | None = None  # set by route(): requests come from a router
        self._exact_until = math.inf  # advance(exact=True): closed-form runs stop here

    # -- helpers -------------------------------------------------------------------
    def _record(self, tokens: int, steps: int = 1, decode_rows: int = 0) -> None:
        self._buf.append((self.now, len(self.waiting), len(self.running), self._num_blocks - self.free,
                          tokens, steps, decode_rows))

    def _flush_series(self) -> None:
        if self._buf:
            columns = zip(*self._buf)
            for series in (self._s_t, self._s_w, self._s_r, self._s_kv, self._s_tok, self._s_steps, self._s_dec):
                series.fromlist(list(next(columns)))  # fromlist: a third faster than extend
            self._buf.clear()

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

    # -- main loop -----------------------------------------------------------------
    def run(self, cancel: CancelToken = NEVER) -> ReplayResult:
        wall = time.perf_counter()
        self.advance(math.inf, cancel)
        result = self._result()
        result.wall_s = time.perf_counter() - wall
        return result

    def advance(self, horizon: float, cancel: CancelToken = NEVER, exact: bool = False) -> None:
        """Run the event loop while the clock is before `horizon` and work is left (below).

        The cyclic garbage collector pauses meanwhile: the loop allocates tuples and lists
        by the million but never a cycle (reference counting frees them all), and the
        collector's passes over them were a tenth of a replay's time. It is switched back on
        even if the loop raises (Cancelled); a pause another thread began is left to it."""
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            self._advance(horizon, cancel, exact)
        finally:
            if paused:
                gc.enable()

    def _advance(self, horizon: float, cancel: CancelToken, exact: bool) -> None:  # noqa: C901
        """Run the event loop while the clock is before `horizon` and work is left.

        A routed engine (core.serving.replicas) learns its requests only as the router
        submits them: it stops at the horizon (the router's next decision) with its clock
        at or past it, and never runs a closed-form decode run past it while a request
        could still be admitted, so a request submitted there is admitted at the same step
        as in a replay that knew it from the start. exact: no closed-form run crosses the
        horizon even with a queue (a cancel due then lands at the first step boundary past
        it; the times differ from a run without the stop only by rounding)."""
        self._exact_until = horizon if exact else math.inf
        cooperative = cancel is not NEVER  # run as a job beside a GUI thread
        fast = self.fast
        self._plain_arrivals = self.feed is None and self.arrivals is None
        arr, n_req = self._arr, self.n
        if self._flat_applies():
            self._advance_flat(horizon, cancel, exact, CANCEL_EVERY, SERIES_FLUSH, YIELD_S, YIELD_EVERY_S, cooperative)
            return
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

    def _result(self) -> ReplayResult:
        self._flush_series()
        inv = np.empty_like(self.order)
        inv[self.order] = np.arange(self.n)

        def back(a):  # arrays are in arrival order; give them back in workload order
            return np.asarray(a)[inv]

        order = self.order.tolist()
        log = [(order[r], t0, t1) for r, t0, t1 in self.preempt_log]
        return ReplayResult(
            arrival_s=back(self.arrival), input_tokens=back(self.P), output_tokens=back(self.G),
            first_schedule_s=back(self.first_sched), first_token_s=back(self.first_token),
            finish_s=back(self.finish), preemptions=back(np.array(self.npreempt, np.int64)), preempt_log=log,
            series_t=np.frombuffer(self._s_t, dtype=np.float64).copy(),
            series_waiting=np.frombuffer(self._s_w, dtype=np.int64).copy(),
            series_running=np.frombuffer(self._s_r, dtype=np.int64).copy(),
            series_kv_blocks=np.frombuffer(self._s_kv, dtype=np.int64).copy(),
            series_tokens=np.frombuffer(self._s_tok, dtype=np.int64).copy(), num_blocks=self.cfg.num_blocks,
            engine_steps=self.steps, decode_tokens=self.decode_tokens,
            prefill_tokens=self.prefill_tokens, kv_peak_blocks=self.peak_used,
            events=self.events, closed_form_steps=self.closed_form_steps,
            cached_tokens=back(np.array(self.cached, np.int64)), extras=self._prefix_extras(),
            series_steps=np.frombuffer(self._s_steps, dtype=np.int64).copy(),
            series_decode_rows=np.frombuffer(self._s_dec, dtype=np.int64).copy(),
        )
