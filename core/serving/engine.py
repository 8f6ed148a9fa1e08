"""A request-level, discrete-event model of a vLLM-V1-style continuous-batching engine.

What it models (vLLM V1's scheduler with the default FCFS policy, prefix caching off):
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
  tokens is done after its G-th token.
Step times come from `StepCost` (a roofline plus a fixed overhead).

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
from dataclasses import dataclass, field

import numpy as np

from core.cancel import NEVER, CancelToken
from core.registry import ParamError
from core.serving.step_cost import StepCost
from core.serving.workload import Workload
from core.units import GiB


@dataclass(frozen=True)
class EngineConfig:
    max_num_seqs: int = 64
    block_size: int = 16
    kv_pool_bytes: float = 24 * GiB
    token_budget: int = 8192
    # Admit a waiting request only if its whole prompt (plus any generated tokens to
    # recompute) fits in the free blocks, not just its first chunk: vLLM's
    # scheduler_reserve_full_isl, on by default in recent releases. Without it, long
    # prompts get in on their first chunk and are preempted mid-prefill far more often.
    reserve_full_prompt: bool = True
    cost: StepCost = field(default_factory=StepCost)

    @property
    def block_bytes(self) -> float:
        return self.block_size * self.cost.kv_bytes_per_token

    @property
    def num_blocks(self) -> int:
        return int(self.kv_pool_bytes // self.block_bytes)


@dataclass
class ReplayResult:
    """Per-request records (arrays over requests, in arrival order) and time series."""

    arrival_s: np.ndarray
    input_tokens: np.ndarray
    output_tokens: np.ndarray
    first_schedule_s: np.ndarray
    first_token_s: np.ndarray
    finish_s: np.ndarray
    preemptions: np.ndarray
    preempt_log: list  # (request, t_preempted, t_rescheduled or nan)
    series_t: np.ndarray
    series_waiting: np.ndarray
    series_running: np.ndarray
    series_kv_blocks: np.ndarray
    series_tokens: np.ndarray  # tokens processed in the step that ended at t (per step, in a skipped run)
    num_blocks: int
    engine_steps: int
    decode_tokens: int
    prefill_tokens: int
    kv_peak_blocks: int
    wall_s: float = 0.0
    events: int = 0  # turns of the event loop (one step taken, or one run of decode steps skipped)
    closed_form_steps: int = 0  # decode steps advanced in closed form, within those runs
    # Prefix caching (zeros / empty when off or without prefix information):
    cached_tokens: np.ndarray | None = None  # per request: prompt tokens served from the cache (vLLM num_cached_tokens)
    series_steps: np.ndarray | None = None  # engine steps in each series entry (a skipped decode run is k steps)
    series_decode_rows: np.ndarray | None = None  # running decodes that got a token in each of those steps
    extras: dict = field(default_factory=dict)  # e.g. tool_wait_kv_byte_s, hit_rate_by_turn (sessions)

    @property
    def ttft_s(self) -> np.ndarray:
        return self.first_token_s - self.arrival_s

    @property
    def request_s(self) -> np.ndarray:
        return self.finish_s - self.arrival_s

    @property
    def first_schedule_wait_s(self) -> np.ndarray:
        return self.first_schedule_s - self.arrival_s

    @property
    def series_kv_fraction(self) -> np.ndarray:
        return self.series_kv_blocks / self.num_blocks


def validate(config: EngineConfig, workload: Workload) -> None:
    """Inputs the engine cannot run with raise ParamError naming the field.

    Called once, at the edge (serving.replay's cross-field check, a loaded trace); the
    engine itself takes its config and workload as they are."""
    if len(workload) == 0:
        raise ParamError("trace", "no requests; valid: at least one request")
    if config.num_blocks < 1:
        raise ParamError("kv_pool_bytes", f"got {config.kv_pool_bytes:,.0f} bytes, less than one block of "
                         f"{config.block_bytes:,.0f}; valid: >= {config.block_bytes:,.0f}")
    # In floats: a sum of two int64 near their limit must not wrap to a small number.
    largest = int(np.max(workload.input_tokens.astype(float) + workload.output_tokens.astype(float)))
    need = -(-largest // config.block_size)
    if need > config.num_blocks:
        smallest_pool = need * config.block_bytes
        raise ParamError("kv_pool_bytes", f"a pool of {config.num_blocks} blocks cannot hold one request of "
                         f"{largest:,} tokens ({need} blocks); valid: >= {smallest_pool:,.0f} bytes")
    if config.max_num_seqs > config.num_blocks:
        raise ParamError("max_num_seqs", f"got {config.max_num_seqs} for a pool of {config.num_blocks} blocks; "
                         f"valid: 1..{config.num_blocks} (each running sequence needs a block)")
    if config.token_budget < config.max_num_seqs:
        raise ParamError("token_budget", f"got {config.token_budget}; valid: >= max_num_seqs ({config.max_num_seqs}), "
                         "so every running decode fits in a step")


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
    return _Engine(workload, config, fast).run(cancel)


class _Engine:
    def __init__(self, workload: Workload, config: EngineConfig, fast: bool = True):
        self.fast = fast
        self.cfg = config
        self.cost = config.cost
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

    def _admit_arrivals(self) -> None:
        arrival, n = self.arrival, self.n
        i = self.next_arrival
        while i < n and arrival[i] <= self.now:
            self.waiting.append(i)
            i += 1
        self.next_arrival = i

    # -- main loop -----------------------------------------------------------------
    def run(self, cancel: CancelToken = NEVER) -> ReplayResult:
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
            if not self.running and not self.waiting:
                self.now = float(self.arrival[self.next_arrival])
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
            if self._gate_blocks(h, min(int(self.P[h] + self.out[h] - self.computed[h]), budget_left), bs) <= self.free - need_now:
                return False  # the head can be admitted now
        k = int(np.min(self.G[dec] - self.out[dec]))  # the step in which the first finishes
        # The (free+1)-th block need is the first one that cannot be met.
        q, idx = divmod(self.free, n)
        firsts = np.sort(offsets)
        k_dry = q * bs + int(firsts[idx]) + 1
        k = min(k, k_dry - 1)
        if not self.waiting and self.next_arrival < self.n and n < self.cfg.max_num_seqs:
            k = min(k, self._steps_until(n, float(c.sum()), float(self.arrival[self.next_arrival])))
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
            self.free += int(self.blocks[i])
            self.blocks[i] = 0
        self.running = [r for r in self.running if r not in gone]
        self.done += len(gone)
        self._dec_cache = None

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
        if not preempted:
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
        self.free += int(self.blocks[r])
        self.blocks[r] = 0
        self.computed[r] = 0
        self.is_dec[r] = False
        self.npreempt[r] += 1
        self.waiting.appendleft(r)
        self._pending_resume[r] = len(self.preempt_log)
        self.preempt_log.append([r, self.now, math.nan])

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
            cached_tokens=np.zeros(self.n, np.int64),
            series_steps=np.frombuffer(self._s_steps, dtype=np.int64).copy(),
            series_decode_rows=np.frombuffer(self._s_dec, dtype=np.int64).copy(),
        )
