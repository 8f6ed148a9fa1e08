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
finishes and the step where the pool runs dry (preemption).
"""
from __future__ import annotations

import math
import time
from array import array
from collections import deque

import numpy as np

from .engine_prefix import PrefixSteps
from .engine_schedule import StepPlanning
from .records import NEVER, ReplayResult, StepCost
from .session_arrivals import Arrivals

__all__ = ["replay"]


CANCEL_EVERY = 32  # loop iterations (events or skipped runs of decode steps) between checks
# A replay on a worker thread gives the GIL away for this long at each check, at most every
# YIELD_EVERY_S: the engine's many short numpy calls release and retake the GIL so often
# that a waiting GUI thread can otherwise starve for hundreds of ms (CPython's GIL convoy).
YIELD_S = 2e-4
YIELD_EVERY_S = 2e-3


def replay(workload, config, fast: bool = True, cancel=NEVER) -> ReplayResult:
    """Run the workload through the engine. fast=False takes every step one by one (same
    schedule, same result up to rounding; the reference that checks the closed-form jumps
    and the bulk schedule).

    The config and workload are taken as they are: check them once where they come in
    (`validate`, which serving.replay's inputs and `traces.load_trace` callers run).
    cancel: checked every CANCEL_EVERY iterations of the event loop; raises Cancelled."""
    return _Engine(workload, config, fast).run(cancel)


class _Engine(StepPlanning, PrefixSteps):
    def __init__(self, workload, config, fast: bool = True):
        self.fast = fast
        self.cfg = config
        self.cost = StepCost.of(config.cost)
        n = len(workload)
        order = np.argsort(workload.arrival_s, kind="stable")
        self.order = order
        self.arrival = workload.arrival_s[order].astype(float)
        self.P = workload.input_tokens[order].astype(np.int64)
        self.G = workload.output_tokens[order].astype(np.int64)
        self.n = n
        self.computed = np.zeros(n, np.int64)  # tokens whose KV is in the pool
        self.out = np.zeros(n, np.int64)  # output tokens produced so far
        self.blocks = np.zeros(n, np.int64)
        self.is_dec = [False] * n  # prompt (and any recompute) done: one token per step
        self.first_sched = np.full(n, np.nan)
        self.first_token = np.full(n, np.nan)
        self.finish = np.full(n, np.nan)
        self.npreempt = np.zeros(n, np.int64)
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
        self._dec_cache: np.ndarray | None = None
        # Series in typed arrays (8 bytes a value, not a Python object each): a long trace
        # has tens of events per request.
        self._s_t = array("d", [0.0])
        self._s_w = array("q", [0])
        self._s_r = array("q", [0])
        self._s_kv = array("q", [0])
        self._s_tok = array("q", [0])
        self._s_steps = array("q", [0])
        self._s_dec = array("q", [0])
        self.cached = np.zeros(n, np.int64)  # prompt tokens found cached at the first schedule
        # Sessions: turns that arrive after their predecessor finished (None: all fixed).
        self.arrivals = Arrivals(self.arrival, workload.sessions, order) if workload.sessions is not None else None
        self._setup_prefix(workload)  # self.cache: None without prefix information

    # -- helpers -------------------------------------------------------------------
    def _decoding(self) -> np.ndarray:
        """Ids of running requests in decode, in admission order (a prefix of running:
        requests still in prefill are always the most recently admitted)."""
        if self._dec_cache is None:
            k = len(self.running)
            while k > 0 and not self.is_dec[self.running[k - 1]]:
                k -= 1
            self._dec_cache = np.array(self.running[:k], dtype=np.int64)
        return self._dec_cache

    def _record(self, tokens: int, steps: int = 1, decode_rows: int = 0) -> None:
        self._s_steps.append(steps)
        self._s_dec.append(decode_rows)
        self._s_t.append(self.now)
        self._s_w.append(len(self.waiting))
        self._s_r.append(len(self.running))
        self._s_kv.append(self.cfg.num_blocks - self.free)
        self._s_tok.append(tokens)

    def _next_arrival_s(self) -> float:
        if self.arrivals is not None:
            return self.arrivals.next_time()
        return float(self.arrival[self.next_arrival]) if self.next_arrival < self.n else math.inf

    def _admit_arrivals(self) -> None:
        if self.arrivals is not None:
            self.arrivals.pop_due(self.now, self.waiting)
            return
        arrival, n = self.arrival, self.n
        i = self.next_arrival
        while i < n and arrival[i] <= self.now:
            self.waiting.append(i)
            i += 1
        self.next_arrival = i

    # -- main loop -----------------------------------------------------------------
    def run(self, cancel=NEVER) -> ReplayResult:
        wall = last_yield = time.perf_counter()
        bs = self.cfg.block_size
        tick = 0
        cooperative = cancel is not NEVER  # run as a job beside a GUI thread
        while self.done < self.n:
            self.events += 1
            tick += 1
            if tick >= CANCEL_EVERY:
                tick = 0
                cancel.check()
                if cooperative and time.perf_counter() - last_yield > YIELD_EVERY_S:
                    time.sleep(YIELD_S)
                    last_yield = time.perf_counter()
            self._admit_arrivals()
            if self.cache is not None:  # blocks taken in the last step leave the queue now
                self.cache.settle(self.free, self.now)
            if not self.running and not self.waiting:
                self.now = self._next_arrival_s()
                self._record(0, 0)
                continue
            dec = self._decoding()
            if self.fast and dec.size == len(self.running) and dec.size > 0 and self._try_fast_forward(dec, bs):
                continue
            self._step(dec, bs)
        result = self._result()
        result.wall_s = time.perf_counter() - wall
        return result

    def _try_fast_forward(self, dec: np.ndarray, bs: int) -> bool:
        """Advance a run of pure-decode steps in one go; False if this step is an event."""
        c = self.computed[dec]
        n = dec.size
        offsets = (-c) % bs  # steps before each request's next new block, minus one
        need_now = int(np.count_nonzero(offsets == 0))
        if need_now > self.free:
            return False  # the pool runs dry in this very step: preemption
        budget_left = self.cfg.token_budget - n
        if self.waiting and budget_left > 0 and n < self.cfg.max_num_seqs:
            h = self.waiting[0]
            if self.cache is not None:
                gate = self._gate_cached(h, budget_left)
            else:
                gate = self._gate_blocks(h, min(int(self.P[h] + self.out[h] - self.computed[h]), budget_left), bs)
            if gate <= self.free - need_now:
                return False  # the head can be admitted now
        k = int(np.min(self.G[dec] - self.out[dec]))  # the step in which the first finishes
        # The (free+1)-th block need is the first one that cannot be met.
        q, idx = divmod(self.free, n)
        firsts = np.sort(offsets)
        k_dry = q * bs + int(firsts[idx]) + 1
        k = min(k, k_dry - 1)
        if self.cache is not None and self.cache.tool_watch and k > 0:
            k = min(k, self._steps_before_watched_eviction(offsets, k))
        if not self.waiting and n < self.cfg.max_num_seqs:
            t_next = self._next_arrival_s()
            if t_next < math.inf:
                k = min(k, self._steps_until(n, float(c.sum()), t_next))
        if k < 1:
            return False
        self._advance_decode(dec, c, k)
        return True

    def _steps_until(self, n: int, context_sum: float, t_target: float) -> int:
        """Fewest lockstep steps after which the clock is at or past t_target (>= 1)."""
        gap = t_target - self.now
        cost = self.cost
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

    def _advance_decode(self, dec: np.ndarray, c: np.ndarray, k: int) -> None:
        self.closed_form_steps += k
        bs = self.cfg.block_size
        n = dec.size
        self.now += self.cost.decode_time(n, float(c.sum()), k)
        new_c = c + k
        new_blocks = -(-new_c // bs)
        self.free -= int(new_blocks.sum() - self.blocks[dec].sum())
        self.blocks[dec] = new_blocks
        self.computed[dec] = new_c
        if self.cache is not None:
            self._register_decodes(dec[new_c // bs > c // bs])
        out = self.out[dec] + k
        self.out[dec] = out
        self.steps += k
        self.decode_tokens += n * k
        self.peak_used = max(self.peak_used, self.cfg.num_blocks - self.free)
        finished = dec[out >= self.G[dec]]
        if finished.size:
            self._finish(finished)
        self._record(n, k, n)  # tokens per step of the run

    def _finish(self, ids) -> None:
        gone = set(int(i) for i in ids)
        for i in gone:
            self.finish[i] = self.now
            if self.cache is not None:
                self._release(i, finished=True)
            else:
                self.free += int(self.blocks[i])
            self.blocks[i] = 0
            if self.arrivals is not None:
                self.arrivals.finished(i, self.now, self._tool_wait_s(i))
        self.running = [r for r in self.running if r not in gone]
        self.done += len(gone)
        self._dec_cache = None

    def _execute(self, plan_dec: np.ndarray, ids: list[int], chunks: list[int]) -> None:
        """Run the step: its time from the roofline, then tokens, first tokens, finishes."""
        P, G, out, computed = self.P, self.G, self.out, self.computed
        n_dec = plan_dec.size
        rows = n_dec
        logits = n_dec
        kv_tokens = 0.0
        pairs = 0.0
        if n_dec:
            ctx = float(computed[plan_dec].sum()) + n_dec
            kv_tokens += ctx
            pairs += ctx
        completes: list[int] = []
        is_dec = self.is_dec
        prefill_rows = 0
        for r, L in zip(ids, chunks):
            s = int(computed[r])
            rows += L
            if not is_dec[r]:
                prefill_rows += L
            kv_tokens += s + L
            pairs += L * s + L * (L + 1) / 2.0
            if s + L == P[r] + out[r]:
                logits += 1
                completes.append(r)
        self.peak_used = max(self.peak_used, self.cfg.num_blocks - self.free)
        self.now += self.cost.step_time(rows, logits, kv_tokens, pairs)
        self.steps += 1
        self.prefill_tokens += prefill_rows
        self.decode_tokens += rows - prefill_rows - n_dec
        finished: list[int] = []
        if n_dec:
            computed[plan_dec] += 1
            out[plan_dec] += 1
            self.decode_tokens += n_dec
            done = plan_dec[out[plan_dec] >= G[plan_dec]]
            finished.extend(int(i) for i in done)
        for r, L in zip(ids, chunks):
            computed[r] += L
        if self.cache is not None:
            self._register(ids)
            if n_dec:
                self._register_decodes(plan_dec[computed[plan_dec] % self.cfg.block_size == 0])
        now = self.now
        for r in completes:
            out[r] += 1
            if math.isnan(self.first_token[r]):
                self.first_token[r] = now
            self.is_dec[r] = True
            if out[r] >= G[r]:
                finished.append(r)
        if completes:
            self._dec_cache = None
        if finished:
            self._finish(finished)
        # Decode rows: a step planned with preemption (_plan_exact) carries its decodes as
        # chunks of one token (rows - prefill_rows counts them as well as plan_dec).
        self._record(rows, 1, rows - prefill_rows)

    def _result(self) -> ReplayResult:
        inv = np.empty_like(self.order)
        inv[self.order] = np.arange(self.n)

        def back(a):  # arrays are in arrival order; give them back in workload order
            return a[inv]

        log = [(int(self.order[r]), t0, t1) for r, t0, t1 in self.preempt_log]
        return ReplayResult(
            arrival_s=back(self.arrival), input_tokens=back(self.P), output_tokens=back(self.G),
            first_schedule_s=back(self.first_sched), first_token_s=back(self.first_token),
            finish_s=back(self.finish), preemptions=back(self.npreempt), preempt_log=log,
            series_t=np.frombuffer(self._s_t, dtype=np.float64).copy(),
            series_waiting=np.frombuffer(self._s_w, dtype=np.int64).copy(),
            series_running=np.frombuffer(self._s_r, dtype=np.int64).copy(),
            series_kv_blocks=np.frombuffer(self._s_kv, dtype=np.int64).copy(),
            series_tokens=np.frombuffer(self._s_tok, dtype=np.int64).copy(), num_blocks=self.cfg.num_blocks,
            engine_steps=self.steps, decode_tokens=self.decode_tokens,
            prefill_tokens=self.prefill_tokens, kv_peak_blocks=self.peak_used,
            events=self.events, closed_form_steps=self.closed_form_steps,
            cached_tokens=back(self.cached), extras=self._prefix_extras(),
            series_steps=np.frombuffer(self._s_steps, dtype=np.int64).copy(),
            series_decode_rows=np.frombuffer(self._s_dec, dtype=np.int64).copy(),
        )
