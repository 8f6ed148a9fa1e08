"""simulate_voice: N turns injected across one serving replay, each laid out on its clock.

The background and the turns' LLM requests are requests of one routed Engine, submitted in
arrival order. A barge-in needs the engine while it runs: the reply's first audible sample
follows from the first clause's last token, so a turn with a barge-in is watched (the
engine advanced in short hops) until that token is out; its backend-stop moment is then a
cancel, applied when the engine's clock reaches it (at the end of the step running then:
an engine aborts between steps). Known limit: while requests wait and none can be admitted,
the engine advances a run of pure-decode steps in one go and stops only at its end, so a
stop falling inside such a run takes effect at the run's end (BargeIn.engine_cancel_s says
when; bench_voice's cancel_lag_ms: median 178 ms under the book's load, 12 ms at rate=1).
"""
from __future__ import annotations

import heapq
import math
import time

import numpy as np

from core.cancel import NEVER, CancelToken
from core.serving.engine import Engine, validate
from core.units import MS
from core.voice import playback as pb
from core.voice.background import background_workload, engine_config, with_turns
from core.voice.model import BargeIn, Span, Turn, VoiceRun
from core.voice.summary import summarize
from core.voice.tokens import request_tokens, token_times


def turn_seed(seed: int, k: int) -> int:
    """The network jitter seed of turn k (independent streams per turn)."""
    return int(np.random.SeedSequence([int(seed), 31337, int(k)]).generate_state(1)[0])


def simulate_voice(params, cancel: CancelToken = NEVER) -> VoiceRun:
    wall = time.perf_counter()
    p = params
    p.check()
    config = engine_config()
    bg, span_s, label = background_workload(p, config, cancel)
    n_bg, n_t = len(bg), p.turns
    rng = np.random.default_rng([int(p.seed), 104729])
    t0 = (np.arange(n_t) + rng.uniform(0.0, 1.0, n_t)) * (span_s / n_t)  # one turn per slot, at random within it
    vad_end = t0 + p.vad_silence_ms * MS
    asr_end = vad_end + p.asr_final_ms * MS
    arrive = asr_end + p.uplink_ms * MS
    work = with_turns(bg, arrive, p.prompt_tokens, p.reply_tokens)
    validate(config, work)
    engine = Engine(work, config)
    rows_of_r = engine.rows()  # engine order -> workload row
    r_of_row = np.empty_like(rows_of_r)
    r_of_row[rows_of_r] = np.arange(len(work))
    turn_r = r_of_row[n_bg:]
    barge = _drive(engine, p, turn_r, cancel)
    result = engine.result()
    rtf = pb.tts_rtf(p)
    ends = pb.clause_token_ends(p)
    preempts: dict[int, list] = {}
    for row, t_pre, t_back in result.preempt_log:
        preempts.setdefault(int(row), []).append((float(t_pre), float(t_back)))
    turns = []
    for k in range(n_t):
        if k % 64 == 0:
            cancel.check()
        row = n_bg + k
        turns.append(_turn(k, row, result, p, config.cost, rtf, ends, preempts.get(row, []), barge.get(k),
                           (t0[k], vad_end[k], asr_end[k], arrive[k])))
    run = VoiceRun(params=p, turns=turns, summary={}, background=result,
                   background_rows=np.arange(n_bg), source=label)
    run.summary = summarize(run, n_bg, time.perf_counter() - wall)
    return run


def _drive(engine: Engine, p, turn_r: np.ndarray, cancel: CancelToken) -> dict:
    """Submit every request at its arrival (routed mode); with a barge-in, cancel each
    turn's request at its backend stop. Returns {turn: (backend stop, engine cancel time,
    KV freed)}."""
    engine.route()
    watch_of_r = {int(r): k for k, r in enumerate(turn_r)} if p.barge_in_ms is not None else {}
    watching: dict[int, int] = {}  # r -> turn: submitted, first clause not yet out
    heap: list[tuple[float, int, int, float]] = []  # (backend stop, r, turn, its first clause)
    done: dict[int, tuple] = {}
    # The backend stop comes at least this long after the first clause's last token, so
    # hops this long see that token before its cancel is due (up to one engine event).
    hop = max(1e-3, (p.tts_ttfb_ms + p.send_ms + p.buffer_ms + p.device_ms + (p.barge_in_ms or 0.0)
                     + p.backend_stop_ms) * MS)
    K = int(p.first_clause_tokens)

    def cancel_due(idle: bool) -> None:
        while heap and (idle or heap[0][0] <= engine.clock()):
            t_stop, r, k, t_k = heapq.heappop(heap)
            freed = engine.cancel(r)
            done[k] = (t_stop, engine.clock(), freed, t_k)

    def until(t: float) -> None:
        while True:
            nxt = min(t, heap[0][0] if heap else math.inf, engine.clock() + hop if watching else math.inf)
            if nxt == math.inf:
                return
            # A cancel due at nxt: stop there even inside a run of decode steps.
            engine.advance(nxt, cancel, exact=bool(heap) and heap[0][0] <= nxt)
            _look(engine, p, watching, heap, K)
            # The engine stops short of nxt only when it has no work: nothing to wait for.
            idle = engine.clock() < nxt and engine.outstanding() == 0
            cancel_due(idle)
            if engine.clock() >= t or idle:
                return

    # A session's later turns wait for their predecessor: the engine places them itself.
    for r in engine.routable().tolist():
        until(engine.arrival_s(r))
        engine.submit(r)
        if r in watch_of_r:
            watching[r] = watch_of_r[r]
    until(math.inf)  # with the feed still open: the engine stops at each hop and cancel
    engine.close()
    engine.advance(math.inf, cancel)
    return done


def _look(engine: Engine, p, watching: dict, heap: list, K: int) -> None:
    """Turns whose first clause is out: their backend stop goes on the heap. Read from the
    engine's first-token times and its step series (one token per step after the first)."""
    if not watching:
        return
    series: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None  # read once a request is watched
    for r in list(watching):
        t1 = engine.first_token_s(r)
        finished = not math.isnan(engine.finish_s(r))
        if math.isnan(t1):
            if finished:
                watching.pop(r)  # gone without a token: nothing to interrupt
            continue
        if series is None:
            series = engine.step_series()  # its own arrays so far, no copy
        preempted = engine.preemption_spans(r)
        t_k = float(request_tokens(*series, t1, engine.finish_s(r), K, engine.cost, preempted)[K - 1])
        if math.isnan(t_k):
            if not finished:
                continue  # the clause is not out yet
            t_k = engine.finish_s(r)
        k = watching.pop(r)
        audible = pb.audible_s(_first_ready(t_k, p), p, turn_seed(p.seed, k))
        moments = pb.barge_moments(audible, p)
        heapq.heappush(heap, (moments.backend_stop_at_s, r, k, t_k))


def _first_ready(t_clause: float, p) -> float:
    return t_clause + p.tts_ttfb_ms * MS


def _turn(k, row, result, p, cost, rtf, ends, preempted, barge, pre) -> Turn:
    t0, vad_end, asr_end, arrive = (float(x) for x in pre)
    cancelled_early = barge is not None and barge[2]
    tokens = token_times(result, row, int(p.reply_tokens), cost, preempted, cancelled=cancelled_early)
    clause_done = tokens[ends - 1]
    if barge is not None and math.isnan(clause_done[0]):
        clause_done[0] = barge[3]  # as the run saw it (the request cut before the series shows it)
    seed = turn_seed(p.seed, k)
    t_sched, t_first = float(result.first_schedule_s[row]), float(result.first_token_s[row])
    t_clause = float(clause_done[0])
    first_ready = _first_ready(t_clause, p)
    audible = pb.audible_s(first_ready, p, seed)
    moments = pb.barge_moments(audible, p) if p.barge_in_ms is not None else None
    stop = moments.backend_stop_at_s if moments is not None else math.inf
    reply = pb.reply_audio(clause_done, p, rtf, seed, stop)
    arrival0 = float(reply.arrival_s[0])
    play0 = float(reply.play_start_s[0])
    spans = [Span("vad", t0, vad_end), Span("asr", vad_end, asr_end), Span("uplink", asr_end, arrive),
             Span("queue", arrive, t_sched), Span("prefill", t_sched, t_first), Span("decode", t_first, t_clause),
             Span("tts", t_clause, first_ready), Span("downlink", first_ready, arrival0),
             Span("buffer", arrival0, play0), Span("device", play0, audible)]
    chunk_s = p.chunk_ms * MS
    end = float(reply.play_start_s[-1]) + chunk_s + p.device_ms * MS
    heard_until = min(end, moments.mute_at_s) if moments is not None else end
    spans.append(Span("reply", audible, heard_until))
    played = reply.play_start_s + p.device_ms * MS < heard_until  # chunks that started before the mute
    stall = reply.stall_s[played]
    barge_in = None
    if moments is not None:
        spans.append(Span("barge_in", moments.interrupt_s, moments.mute_at_s))
        engine_cancel, freed = (barge[1], barge[2]) if barge is not None else (math.nan, False)
        barge_in = BargeIn(moments.interrupt_s, moments.mute_at_s, moments.backend_stop_at_s, moments.release_at_s,
                           engine_cancel, bool(freed))
    return Turn(index=k, request=row, spans=spans, silence_s=audible - t0, underruns=int(np.count_nonzero(stall)),
                stall_s=float(stall.sum()), reply_s=heard_until - audible, chunk_arrivals_s=reply.arrival_s,
                cancelled=bool(cancelled_early), play_start_s=reply.play_start_s, token_times_s=tokens,
                tts_chunk_arrivals_s=reply.arrival_s[reply.tts_first], barge_in=barge_in)
