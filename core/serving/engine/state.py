"""The engine's state, declared once: a structure of arrays the compiled loop owns
(layout.py names the rows and slots). Built here from a workload and a config; the loop
(loop.py) reads and writes it in place; driver.py reads it for the public results.

    I    int64[NI, n]   per-request counts (engine order: workload rows sorted by arrival)
    F    float64[NF, n] per-request times
    S    int64[NS]      scalar counts; SF float64[NSF] the clock and other floats
    run  int64[seats]   running requests in admission order, S[N_RUN] of them
    wq   int64[n + 1]   the waiting queue, a ring (appendleft for a preempted request)
    fixed               requests with a fixed arrival, in arrival order (a replay's source)
    feed                requests a router submitted, in order (a routed engine's source)
    ht, hi              dynamic session turns due: a heap of (time, id)
    feq                 requests through the front end, not yet at the engine (a ring; client.py)
    ser_t, ser          the series (time; waiting, running, KV blocks, tokens, steps, decode rows)
    log_r, log_t        the preemption log (request; preempted at, rescheduled at or NaN)
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.serving.engine import layout as L
from core.serving.engine.records import EngineConfig
from core.serving.engine.step_model import coefficients, shape_seen_size
from core.serving.session_arrivals import links
from core.serving.workload import Workload

SERIES_START = 4096  # series entries first allocated beyond SERIES_PER_REQUEST a request
# Events a request's replay records, about (1.6-2.9 on the bench's workloads): the series
# are allocated for that many at once and grow by doubling only past it (a step-by-step
# replay). np.zeros maps pages only as the loop first writes them, so room it never
# reaches costs address space alone, while each doubling copied the whole series.
SERIES_PER_REQUEST = 4


@dataclass
class State:
    I: np.ndarray
    F: np.ndarray
    S: np.ndarray
    SF: np.ndarray
    run: np.ndarray
    wq: np.ndarray
    fixed: np.ndarray
    feed: np.ndarray
    ht: np.ndarray
    hi: np.ndarray
    feq: np.ndarray
    ser_t: np.ndarray
    ser: np.ndarray
    log_r: np.ndarray
    log_t: np.ndarray
    coef: np.ndarray
    grp: tuple  # the lockstep group: members by phase, and the heap of their finish clocks
    work: np.ndarray  # the loop's scratch (ids, chunks, finished ids, a set's table, offsets), step sizes seen

    def grow(self) -> None:
        """Room for the series and the log (the loop asked: ST_GROW)."""
        S = self.S
        if S[L.SER_LEN] + 2 > self.ser_t.size:
            cap = 2 * self.ser_t.size
            self.ser_t = np.concatenate((self.ser_t, np.zeros(cap - self.ser_t.size)))
            self.ser = np.concatenate((self.ser, np.zeros((L.NSER, cap - self.ser.shape[1]), np.int64)), axis=1)
        if S[L.LOG_LEN] + self.run.size + 1 > self.log_r.size:
            cap = 2 * self.log_r.size + self.run.size
            self.log_r = np.concatenate((self.log_r, np.zeros(cap - self.log_r.size, np.int64)))
            self.log_t = np.concatenate((self.log_t, np.zeros((2, cap - self.log_t.shape[1]))), axis=1)


def build(workload: Workload, config: EngineConfig, fast: bool) -> tuple[State, np.ndarray]:
    """The state at t = 0 and the engine order (workload row of each engine id)."""
    n = len(workload)
    order = np.argsort(workload.arrival_s, kind="stable")
    I = np.zeros((L.NI, n), np.int64)
    F = np.zeros((L.NF, n))
    I[L.P] = workload.input_tokens[order]
    I[L.G] = workload.output_tokens[order]
    I[L.PENDING] = -1
    I[L.NEXT] = -1
    I[L.JID] = -1
    F[L.ARRIVAL] = workload.arrival_s[order]
    F[L.FIRST_SCHED:L.FINISH + 1] = np.nan
    F[L.HOLD] = np.nan
    remote, encoder = workload.remote, workload.encoder
    if remote is not None:  # (without, the loop never reads these rows: the driver reports NaN)
        F[L.KV_ALLOC:L.KV_READY + 1] = np.nan
        ready = remote.ready_tokens[order]
        I[L.READY] = ready
        I[L.XSTATE] = np.where(ready > 0, L.X_NEEDS, L.X_NONE)
        F[L.KV_READY] = np.where(ready > 0, remote.transfer_s[order], np.nan)  # the transfer time until allocated
    if encoder is not None:
        I[L.ENC_TOK] = encoder.tokens[order]
        F[L.ENC_S] = encoder.seconds[order]
    sessions = workload.sessions
    if sessions is not None:
        prev, nxt = links(sessions, order)
        think = sessions.think_time_s[order]
        dynamic = np.isfinite(think) & (prev >= 0)
        I[L.NEXT] = nxt
        I[L.DYNAMIC] = dynamic
        I[L.KEEP] = sessions.keep_kv_during_tool[order]
        F[L.TOOL] = sessions.tool_wait_s[order]
        F[L.AFTER] = np.nan_to_num(think)  # a turn's own think time: after its predecessor's waits
        F[L.ARRIVAL, dynamic] = np.nan
        fixed = np.flatnonzero(~dynamic).astype(np.int64)
    else:
        fixed = np.arange(n, dtype=np.int64)
    S = np.zeros(L.NS, np.int64)
    S[L.FREE] = config.num_blocks
    S[L.FIX_N] = fixed.size
    S[L.FEED_OPEN] = 1
    S[L.SER_LEN] = 1  # the series start with one entry of zeros at t = 0
    S[L.N] = n
    S[L.BS] = config.block_size
    S[L.NB] = config.num_blocks
    S[L.BUDGET] = config.token_budget
    S[L.MAX_SEQS] = config.max_num_seqs
    S[L.RESERVE] = int(config.reserve_full_prompt)
    S[L.FAST] = int(fast)
    S[L.ENC_ON] = int(encoder is not None)
    S[L.ENC_BUDGET] = int(config.max_num_encoder_input_tokens or 0)
    SF = np.zeros(L.NSF)
    SF[L.EXACT_UNTIL] = np.inf
    _client(S, SF, F, config, fixed.size, sessions is not None)
    seats = min(config.max_num_seqs, n) + 1
    cap = SERIES_START + SERIES_PER_REQUEST * n
    coef = coefficients(config.cost)
    seen = shape_seen_size(coef, config.token_budget)
    state = State(I=I, F=F, S=S, SF=SF, run=np.zeros(seats, np.int64), wq=np.zeros(n + 1, np.int64),
                  fixed=fixed, feed=np.zeros(max(n, 1), np.int64), ht=np.zeros(max(n, 1)),
                  hi=np.zeros(max(n, 1), np.int64), feq=np.zeros(max(n, 1), np.int64), ser_t=np.zeros(cap), ser=np.zeros((L.NSER, cap), np.int64),
                  log_r=np.zeros(4 * seats, np.int64), log_t=np.zeros((2, 4 * seats)),
                  coef=coef,
                  grp=(np.zeros(config.block_size, np.int64), np.zeros(4 * seats, np.int64),
                       np.zeros(4 * seats, np.int64), np.zeros(4 * seats, np.int64)),
                  work=np.zeros(8 * (seats + 1) + config.block_size + seen, np.int64))
    return state, order


def _client(S, SF, F, config: EngineConfig, n_fixed: int, sessions: bool) -> None:
    """The client's limit (its first slots granted at t = 0) and the front end's coefficients."""
    limit = int(config.max_concurrency)
    if limit:
        if sessions:
            raise ValueError("max_concurrency with sessions: a session's turns have their own client")
        S[L.MAXC] = limit
        S[L.GRANTED] = S[L.INFLIGHT] = min(limit, n_fixed)
    fe = config.frontend
    if fe is not None:
        S[L.FE_ON] = 1
        SF[L.FE_REQ], SF[L.FE_IN], SF[L.FE_OUT] = fe.request_s, fe.input_token_s, fe.output_token_s
        S[L.FE_ROUNDS] = fe.rounds
        SF[L.FE_LAT] = fe.latency_s
        F[L.SEND] = np.nan
