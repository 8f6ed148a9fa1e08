"""The engine as Python sees it: build the state (state.py), run the compiled loop
(loop.py) to a horizon, read the public results. `replay` runs it over a whole workload;
core.serving.replicas and core.voice drive it: route() first, then advance(t) / submit(r)
in time order, close(), advance(inf) and result(); between calls they read it only
through the methods here (clock, a request's times, preemption spans, outstanding work).
Request ids r are in the engine's order (`rows()`: workload rows sorted by arrival).

numba and the compiled loop are imported at the first advance, not with this module:
`lab` starts without them.
"""
from __future__ import annotations

import math
import time

import numpy as np

from core.cancel import NEVER, CancelToken
from core.serving.engine import layout as L
from core.serving.engine.pages import small_pages
from core.serving.engine.records import EngineConfig, ReplayResult
from core.serving.engine.state import build
from core.serving.session_arrivals import hit_rate_by_turn, turn_order
from core.serving.workload import Workload

# Events between the loop's returns to Python: a cancel check and, beside a GUI thread, a
# short sleep (the loop itself runs without the GIL). A replay nobody can cancel returns
# only to grow its series.
CHUNK_EVENTS = 256
YIELD_S = 2e-4
YIELD_EVERY_S = 2e-3
_UNCANCELLABLE_EVENTS = 1 << 40

_kernels = None


def kernels():
    """The compiled loop and its helpers (the first call compiles or loads them from disk)."""
    global _kernels
    if _kernels is None:
        from core.serving.engine import loop
        _kernels = (loop.run_events, loop.settle)
    return _kernels


class Engine:
    def __init__(self, workload: Workload, config: EngineConfig, fast: bool = True):
        self.cfg = config
        self.fast = fast
        with small_pages():  # the per-request arrays (pages.py)
            self._build(workload, config, fast)
        self._last_yield = time.perf_counter()

    def _build(self, workload: Workload, config: EngineConfig, fast: bool) -> None:
        self.state, self.order = build(workload, config, fast)
        self.n = len(workload)
        sessions = workload.sessions
        self._turn = sessions.turn[self.order].astype(np.int64) if sessions is not None else None
        self._prefix_info = workload.prefix is not None or sessions is not None
        # A decode instance receiving remote KV replays without the prefix cache (the
        # ready tokens come over the link; prefix caching is the prefill side's).
        caching = config.prefix_caching and self._prefix_info and workload.remote is None
        self._remote = workload.remote is not None
        self._encoder = workload.encoder is not None
        self.state.S[L.CACHE] = int(caching)
        self._pool = _prefix_cache(workload, config, self.state, self.order, caching)
        self._cache = self._pool if self._pool is not None else _empty_cache()  # what the loop is passed

    # -- running it ------------------------------------------------------------------
    def run(self, cancel: CancelToken = NEVER) -> ReplayResult:
        wall = time.perf_counter()
        self.advance(math.inf, cancel)
        result = self.result()
        result.wall_s = time.perf_counter() - wall
        return result

    def advance(self, horizon: float, cancel: CancelToken = NEVER, exact: bool = False) -> None:
        """Run the event loop while the clock is before `horizon` and work is left.

        A routed engine learns its requests only as the router submits them: it stops at
        the horizon (the router's next decision) with its clock at or past it, and never
        runs a closed-form decode run past it while a request could still be admitted.
        exact: no closed-form run crosses the horizon even with a queue (a cancel due then
        lands at the first step boundary past it)."""
        st = self.state
        st.SF[L.EXACT_UNTIL] = horizon if exact else math.inf
        cooperative = cancel is not NEVER  # run as a job beside a GUI thread
        chunk = CHUNK_EVENTS if cooperative else _UNCANCELLABLE_EVENTS
        run_events = kernels()[0]
        while True:
            status = self._call(run_events, float(horizon), chunk, L.OP_RUN, 0)
            if status == L.ST_DONE:
                return
            if status == L.ST_GROW:
                with small_pages():
                    st.grow()
                continue
            cancel.check()
            if cooperative and time.perf_counter() - self._last_yield > YIELD_EVERY_S:
                time.sleep(YIELD_S)
                self._last_yield = time.perf_counter()

    def _call(self, run_events, horizon: float, max_events: int, op: int, r: int) -> int:
        st = self.state
        return run_events(st.S, st.SF, st.I, st.F, st.run, st.wq, st.fixed, st.feed, st.ht, st.hi, st.feq,
                          st.ser_t, st.ser, st.log_r, st.log_t, st.coef, self._cache, st.grp, st.work, horizon,
                          max_events, op, r)

    # -- routed use (core.serving.replicas, core.voice) ------------------------------------
    def route(self) -> None:
        """From now on only submitted requests arrive (and their sessions' later turns)."""
        S = self.state.S
        if S[L.MAXC]:
            raise ValueError("max_concurrency behind a router: the client's limit spans the replicas")
        S[L.ROUTED] = 1
        S[L.FIX_N] = 0

    def submit(self, r: int) -> None:
        st = self.state
        S, feed = st.S, st.feed
        tail = S[L.FEED_TAIL]
        if tail > S[L.FEED_HEAD] and st.F[L.ARRIVAL, r] < self._sent(int(feed[tail - 1])):
            raise ValueError("requests must be submitted in arrival order")
        feed[tail] = r
        S[L.FEED_TAIL] = tail + 1

    def _sent(self, r: int) -> float:
        """When r was sent (through a front end ARRIVAL becomes its time at the engine)."""
        F = self.state.F
        sent = F[L.SEND, r]
        return float(F[L.ARRIVAL, r] if math.isnan(sent) else sent)

    def close(self) -> None:
        """No more submissions: the engine may now run past any time to finish its work."""
        self.state.S[L.FEED_OPEN] = 0

    def cancel(self, r: int) -> bool:
        """The client went away (a voice barge-in): r leaves the engine now, its blocks go
        back to the pool. Its finish time is the cancel time and is_cancelled(r) is set.
        False if r had already finished or was never submitted here."""
        st = self.state
        if st.S[L.SER_LEN] + 2 > st.ser_t.size:
            with small_pages():
                st.grow()
        return bool(self._call(kernels()[0], 0.0, 0, L.OP_CANCEL, int(r)))

    def hold(self, until_s: np.ndarray) -> None:
        """Each request's finish keeps its blocks until until_s (workload order; NaN: no
        hold, inf: until release()); they go back at the first event at or after it and
        count as used until then (hold.py). Set before the request finishes."""
        until = np.asarray(until_s, float)
        if until.shape != (self.n,) or np.any(until < 0):
            raise ValueError(f"hold: {until.shape} times, one per request ({self.n}), each >= 0 or NaN")
        self.state.F[L.HOLD] = until[self.order]
        self.state.S[L.HOLD_ON] = int(not np.all(np.isnan(until)))

    def release(self, r: int, t: float) -> bool:
        """r, finished and held until released, gives its blocks back at the first event
        at or after t (now if t is past). False if r is not held so."""
        return bool(self._call(kernels()[0], float(t), 0, L.OP_RELEASE, int(r)))

    def held(self) -> int:
        """Finished requests whose blocks are held now."""
        return int(self.state.S[L.HELD_N])

    # -- public reads ----------------------------------------------------------------------
    @property
    def cost(self):
        return self.cfg.cost

    def clock(self) -> float:
        return float(self.state.SF[L.NOW])

    def rows(self) -> np.ndarray:
        """The workload row of each engine id."""
        return self.order

    def routable(self) -> np.ndarray:
        """Engine ids with a fixed arrival, in arrival order (what a router places; a
        session's later turns arrive on their predecessor's engine by themselves)."""
        return self.state.fixed

    def arrivals_s(self) -> np.ndarray:
        """Arrival times by engine id (a dynamic turn's: NaN until its predecessor finished here)."""
        return self.state.F[L.ARRIVAL].copy()

    def arrival_s(self, r: int) -> float:
        return float(self.state.F[L.ARRIVAL, r])

    def first_token_s(self, r: int) -> float:
        return float(self.state.F[L.FIRST_TOKEN, r])

    def finish_s(self, r: int) -> float:
        return float(self.state.F[L.FINISH, r])

    def is_cancelled(self, r: int) -> bool:
        return bool(self.state.I[L.CANCELLED, r])

    def finished(self) -> int:
        """Requests finished or cancelled so far."""
        return int(self.state.S[L.DONE])

    def preemption_spans(self, r: int) -> list[tuple[float, float]]:
        """(preempted at, rescheduled at or NaN) of each preemption of r so far."""
        st = self.state
        k = int(st.S[L.LOG_LEN])
        at = np.flatnonzero(st.log_r[:k] == r)
        return [(float(st.log_t[0, j]), float(st.log_t[1, j])) for j in at]

    def outstanding(self) -> int:
        """Requests submitted here and not finished (queued, running, not yet arrived, KV in transfer)."""
        S = self.state.S
        return int(S[L.N_RUN] + S[L.WQ_LEN] + S[L.FEED_TAIL] - S[L.FEED_HEAD] + S[L.FEQ_LEN] + S[L.XFER_N])

    def transferring(self) -> int:
        """Remote requests whose KV is in transfer now (blocks held, not running)."""
        return int(self.state.S[L.XFER_N])

    def kv_alloc_s(self, r: int) -> float:
        """When r's blocks for its remote KV were allocated (NaN: not yet, or not remote)."""
        return float(self.state.F[L.KV_ALLOC, r]) if self._remote else math.nan

    def kv_ready_s(self, r: int) -> float:
        """When r's remote KV lands (known from its allocation on; NaN before or not remote)."""
        F = self.state.F
        if not self._remote or math.isnan(F[L.KV_ALLOC, r]):
            return math.nan
        return float(F[L.KV_READY, r])

    def running_ids(self) -> list[int]:
        st = self.state
        return st.run[:st.S[L.N_RUN]].tolist()

    def waiting_ids(self) -> list[int]:
        st = self.state
        S, wq = st.S, st.wq
        return [int(wq[(S[L.WQ_HEAD] + i) % wq.size]) for i in range(S[L.WQ_LEN])]

    def kv_used_blocks(self) -> int:
        S = self.state.S
        return int(S[L.NB] - S[L.FREE])

    def cached_prefix_blocks(self, r: int) -> int:
        """Full blocks of r's prompt this engine's prefix cache holds now (0 without one);
        looks, takes nothing."""
        if self._pool is None:
            return 0
        return int(self._call(kernels()[0], 0.0, 0, L.OP_LOOK, int(r)))

    def step_series(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(time, steps, tokens) of every event so far, as views of the engine's arrays (no
        copy; valid until the next advance): what result() will report for them."""
        st = self.state
        k = int(st.S[L.SER_LEN])
        return st.ser_t[:k], st.ser[L.S_STEPS, :k], st.ser[L.S_TOKENS, :k]

    # -- the result ----------------------------------------------------------------------
    def result(self) -> ReplayResult:
        with small_pages():  # its copies of the per-request arrays and the series
            return self._result()

    def _result(self) -> ReplayResult:
        st = self.state
        I, F, S = st.I, st.F, st.S
        inv = np.empty_like(self.order)
        inv[self.order] = np.arange(self.n)

        def back(a):  # arrays are in engine order; give them back in workload order
            return np.ascontiguousarray(a[inv])

        k = int(S[L.SER_LEN])
        nlog = int(S[L.LOG_LEN])
        rows = self.order[st.log_r[:nlog]].tolist()
        log = list(zip(rows, st.log_t[0, :nlog].tolist(), st.log_t[1, :nlog].tolist()))
        ser = st.ser
        return ReplayResult(
            arrival_s=back(self._client_arrivals()), input_tokens=back(I[L.P]), output_tokens=back(I[L.G]),
            first_schedule_s=back(F[L.FIRST_SCHED]), first_token_s=back(F[L.FIRST_TOKEN]),
            finish_s=back(F[L.FINISH]), preemptions=back(I[L.NPREEMPT]), preempt_log=log,
            series_t=st.ser_t[:k].copy(), series_waiting=ser[L.S_WAITING, :k].copy(),
            series_running=ser[L.S_RUNNING, :k].copy(), series_kv_blocks=ser[L.S_KV, :k].copy(),
            series_tokens=ser[L.S_TOKENS, :k].copy(), num_blocks=self.cfg.num_blocks,
            engine_steps=int(S[L.STEPS]), decode_tokens=int(S[L.DEC_TOK]), prefill_tokens=int(S[L.PRE_TOK]),
            kv_peak_blocks=int(S[L.PEAK]), events=int(S[L.EVENTS]), closed_form_steps=int(S[L.CLOSED]),
            cached_tokens=back(I[L.CACHED]), extras=self._extras(),
            series_steps=ser[L.S_STEPS, :k].copy(), series_decode_rows=ser[L.S_DEC, :k].copy(),
            kv_alloc_s=self._kv_times(L.KV_ALLOC, back), kv_ready_s=self._kv_times(L.KV_READY, back),
        )

    def _kv_times(self, row: int, back) -> np.ndarray:
        """Remote KV's allocation or landing times in workload order; NaN where not remote
        (KV_READY holds the transfer time until the allocation)."""
        if not self._remote:
            return np.full(self.n, np.nan)
        F = self.state.F
        times = F[row] if row == L.KV_ALLOC else np.where(np.isnan(F[L.KV_ALLOC]), np.nan, F[L.KV_READY])
        return back(times)

    def _client_arrivals(self) -> np.ndarray:
        """What a client measures from: the send times (through a front end, SEND; with a
        concurrency limit alone ARRIVAL already is the send, max(schedule, a free slot))."""
        F = self.state.F
        if not self.state.S[L.FE_ON]:
            return F[L.ARRIVAL]
        return np.where(np.isnan(F[L.SEND]), F[L.ARRIVAL], F[L.SEND])

    def _extras(self) -> dict:
        extras = self._prefix_extras()
        if self._encoder:
            extras["encoder_s"] = float(self.state.SF[L.ENC_TOTAL])
            extras["encoder_steps"] = int(self.state.S[L.ENC_STEPS])
        return extras

    def _prefix_extras(self) -> dict:
        if not self._prefix_info or self._remote:
            return {}
        st = self.state
        evicted, block_s = 0, 0.0
        if self._pool is not None:
            pool = self._pool[0]
            if pool[0][L.POOL_QUEUED] != st.S[L.FREE]:  # blocks allocated in the last step leave
                kernels()[1](pool, st.S[L.FREE], st.SF[L.NOW])  # the queue (a finished loop did)
            evicted, block_s = int(pool[0][L.POOL_EVICTED]), float(pool[1][0])
        P, cached = st.I[L.P], st.I[L.CACHED]
        prompt = float(P.sum())
        extras: dict = {"cache_hit_rate": float(cached.sum()) / prompt if prompt else 0.0, "evicted_blocks": evicted}
        if self._turn is not None:
            extras["hit_rate_by_turn"] = hit_rate_by_turn(self._turn, cached, P)
            extras["tool_wait_kv_byte_s"] = block_s * self.cfg.block_bytes
        return extras


_EMPTY = None


def _empty_cache():
    """A prefix cache of no blocks with arrays of the real one's types, for a replay that
    caches nothing (S[CACHE] = 0: the loop never touches it, so all such replays share it)."""
    global _EMPTY
    if _EMPTY is None:
        from core.serving.engine.pool import make_pool
        one = np.zeros(1, np.int64)
        px = (np.zeros(2, np.int64),) + (one,) * 6 + (np.zeros(1, np.uint8), np.zeros(2, np.int64), one)
        _EMPTY = (make_pool(0, 1), px)
    return _EMPTY


def _prefix_cache(workload: Workload, config: EngineConfig, state, order: np.ndarray, caching: bool):
    """(pool, px) of the compiled prefix cache (prefix.py), or None when the replay caches
    nothing (the loop is then passed an empty one, _empty_cache)."""
    if not caching:
        return None
    from core.serving.engine.pool import make_pool
    from core.serving.prefix_cache import HashIdIdentity, SessionIdentity

    I = state.I
    sessions = workload.sessions
    ident: HashIdIdentity | SessionIdentity
    if workload.prefix is not None:  # hash_ids say more than the session's history
        pb = workload.prefix
        ident = HashIdIdentity(pb.ids, pb.offsets, pb.block_tokens, order, I[L.P])
    else:
        assert sessions is not None  # caching: hash ids or sessions
        nxt = I[L.NEXT]  # the session links build() made: each turn's predecessor from them
        has = nxt >= 0
        prev = np.full(nxt.size, -1, np.int64)
        prev[nxt[has]] = np.flatnonzero(has)
        ident = SessionIdentity(prev, sessions.shared_prefix_tokens[order], turn_order(sessions, order))
        # Blocks a request generates are cached as they fill only where another request
        # may ask for them while it runs: a session's next turn with a fixed arrival.
        I[L.EAGER, has] = 1 - I[L.DYNAMIC, nxt[has]]
    hint = (I[L.P] + I[L.G]) // config.block_size + 1  # blocks a request can ever fill
    flag_off = np.concatenate(([0], np.cumsum(hint))).astype(np.int64)
    px = ident.arrays() + (np.zeros(int(flag_off[-1]), np.uint8), flag_off,
                           np.zeros(int(hint.max()) + 1, np.int64))
    return make_pool(config.num_blocks, 3 * config.num_blocks + 64), px
