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
work, not numpy calls over every running request. What is left is Python's call overhead
per event: the common replay (no sessions, router or prefix cache) runs one flattened
loop, its state in local variables (engine_flat.py); every other replay runs the general
loop (engine_events.py). Per-request counts and times are plain Python lists: the engine
reads and writes them one at a time. Issue 12, bench/bench_engine_speed.py on 2 shared
cores: at 200k requests on a queued, preempting load about 6x faster than the engine
frozen in bench/frozen_engine (median of back-to-back pairs 5.9-6.25 in four runs, worst
pair 5.4; 12.8 s -> 2.06 s, 32 -> 5.2 µs per event), results bit for bit the same. With
prefix caching the cost is in the block pool (engine_block_cache.py), per block, not per
event, every per-block step at C speed: 2.0x (sessions, 50k requests) and 3.3x (Mooncake's
hash ids) the frozen engine (bench_engine_speed.py --prefix-only, medians on loaded cores).
"""
from __future__ import annotations

import gc
import math
import time
from array import array
from collections import deque

import numpy as np

from core.cancel import NEVER, CancelToken
from core.serving.engine_events import EventLoop
from core.serving.engine_flat import FlatLoop
from core.serving.engine_prefix import PrefixSteps
from core.serving.engine_cost import StepTimes
from core.serving.engine_feed import RoutedFeed
from core.serving.engine_routed import RoutedUse
from core.serving.engine_lockstep import LockstepGroup
from core.serving.engine.records import EngineConfig, ReplayResult, validate
from core.serving.engine_schedule import StepPlanning
from core.serving.session_arrivals import Arrivals
from core.serving.step_cost import StepCost
from core.serving.workload import Workload

__all__ = ["EngineConfig", "ReplayResult", "StepCost", "replay", "validate"]


def replay(workload: Workload, config: EngineConfig = EngineConfig(), fast: bool = True,
           cancel: CancelToken = NEVER) -> ReplayResult:
    """Run the workload through the engine. fast=False takes every step one by one (same
    schedule, same result up to rounding; the reference that checks the closed-form jumps
    and the bulk schedule).

    The config and workload are taken as they are: check them once where they come in
    (`validate`, which serving.replay's inputs and `traces.load_trace` callers run).
    cancel: checked every CANCEL_EVERY iterations of the event loop (engine_events.py);
    raises Cancelled."""
    return Engine(workload, config, fast).run(cancel)


class Engine(FlatLoop, EventLoop, StepPlanning, PrefixSteps, LockstepGroup, RoutedUse):
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

    # -- main loop -----------------------------------------------------------------
    def run(self, cancel: CancelToken = NEVER) -> ReplayResult:
        wall = time.perf_counter()
        self.advance(math.inf, cancel)
        result = self._result()
        result.wall_s = time.perf_counter() - wall
        return result

    def advance(self, horizon: float, cancel: CancelToken = NEVER, exact: bool = False) -> None:
        """Run the event loop while the clock is before `horizon` and work is left
        (engine_events.py _advance; the common replay's loop flattened in engine_flat.py).
        exact: no closed-form run crosses the horizon even with a queue.

        The cyclic garbage collector pauses meanwhile: the loop allocates tuples and lists
        by the million but never a cycle (reference counting frees them all), and the
        collector's passes over them were a tenth of a replay's time. It is switched back on
        even if the loop raises (Cancelled); a pause another thread began is left to it."""
        paused = gc.isenabled()
        if paused:
            gc.disable()
        try:
            self._exact_until = horizon if exact else math.inf
            cooperative = cancel is not NEVER  # run as a job beside a GUI thread
            if self._flat_applies():
                self._advance_flat(horizon, cancel, cooperative)
            else:
                self._advance(horizon, cancel, cooperative)
        finally:
            if paused:
                gc.enable()

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

    # -- public reads (as core.serving.engine.driver's; phase 1 of issue 24 only) ----------
    def clock(self) -> float:
        return float(self.now)

    def rows(self) -> np.ndarray:
        return self.order

    def routable(self):
        return self.arrivals.fixed if self.arrivals is not None else np.arange(self.n)

    def arrivals_s(self) -> np.ndarray:
        return self.arrival.copy()

    def arrival_s(self, r: int) -> float:
        return float(self.arrival[r])

    def first_token_s(self, r: int) -> float:
        return float(self.first_token[r])

    def finish_s(self, r: int) -> float:
        return float(self.finish[r])

    def is_cancelled(self, r: int) -> bool:
        return bool(self.cancelled[r])

    def finished(self) -> int:
        return int(self.done)

    def preemption_spans(self, r: int) -> list[tuple[float, float]]:
        return [(float(e[1]), float(e[2])) for e in self.preempt_log if int(e[0]) == r]

    def running_ids(self) -> list[int]:
        return list(self.running)

    def waiting_ids(self) -> list[int]:
        return list(self.waiting)
