"""§3.3.3 实时播放 (图 3-18/3-19, 练习 3-5): every chunk has to arrive on time.

The timing model of a streamed voice reply, pure and deterministic:

- chunk i is captured over one frame [i·F, (i+1)·F], then processed (one model stage,
  serial across chunks), then sent (one link, serial), then crosses the network with its
  own delay (chunks may overtake each other);
- playback starts a fixed jitter buffer after chunk 0 arrives; chunk i's deadline is
  first playback + i·F; the player plays in order and, when the next chunk is missing,
  stalls until it arrives (nothing is dropped), shifting the rest of the timeline;
- an interrupt at t is seen by the device at the first device-quantum boundary (absolute
  multiples of the quantum) at or after t + control delay; the backend stop and the release
  of buffers and state are two later moments with their own delays.

The real-time engine in audio/ follows the same rules with real clocks; its device tests
compare a recording of the sound card against these numbers.
"""
from __future__ import annotations

import math
import threading
from collections import OrderedDict
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.registry import BookRef, BookValue, Calculator, Output, Param, ParamError
from core.request.metrics import nearest_rank
from core.units import MS

_EPS = 1e-9  # seconds; rounding guard for quantum boundaries (0.155 + 0.005 is 0.16000000000000003)


# ----------------------------------------------------------------------------------------
# network delays


def network_delays_s(chunks: int, network_ms, jitter_ms: float = 0.0, spike_prob: float = 0.0,
                     spike_ms: float = 0.0, seed: int = 0) -> np.ndarray:
    """One network delay per chunk, in seconds.

    network_ms: a number or a list; a list shorter than the stream repeats its last value
    (so `5` means 5 ms for every chunk and `5,5,50,5` is one spike on chunk 2).
    On top, a seeded jitter model: an exponential extra delay with mean jitter_ms (the
    network never gets faster than its base delay) and, with probability spike_prob,
    a spike of spike_ms. Same seed, same delays.
    """
    base = np.atleast_1d(np.asarray(network_ms, dtype=float))
    delays = np.full(chunks, base[-1])
    k = min(chunks, base.size)
    delays[:k] = base[:k]
    if jitter_ms > 0 or (spike_prob > 0 and spike_ms > 0):
        rng = np.random.default_rng(int(seed))
        if jitter_ms > 0:
            delays += rng.exponential(jitter_ms, chunks)
        if spike_prob > 0 and spike_ms > 0:
            delays += np.where(rng.random(chunks) < spike_prob, spike_ms, 0.0)
    return delays * MS


# ----------------------------------------------------------------------------------------
# the adaptive target (NetEq-like): the buffer needed to ride out the delays seen so far


@dataclass
class DelayEstimator:
    """Target buffer from observed arrival jitter, as WebRTC's NetEq does in spirit.

    Each arrival's relative delay is how much later it came than the fastest chunk so far
    would predict: d_j = (a_j − j·F) − min_k (a_k − k·F). The target is the nearest-rank
    quantile of the last `window` relative delays, at least min_target_s. Incremental and
    allocation-light, so the engine's network thread can run the same code live.
    """

    chunk_s: float
    min_target_s: float
    quantile: float = 0.95
    window: int = 50
    _best: float = math.inf
    _raw: list = field(default_factory=list)
    _target: float | None = None  # computed once per observation, not per read

    def observe(self, index: int, arrival_s: float) -> float:
        """Record chunk `index` arriving at arrival_s; return the new target in seconds."""
        offset = arrival_s - index * self.chunk_s
        self._raw.append(offset)
        if offset < self._best:
            self._best = offset
        if len(self._raw) > self.window:
            del self._raw[0]
        rel = sorted(self._raw)
        rank = nearest_rank(len(rel), self.quantile)
        self._target = max(self.min_target_s, rel[rank - 1] - self._best)
        return self._target

    @property
    def target_s(self) -> float:
        return self.min_target_s if self._target is None else self._target


# ----------------------------------------------------------------------------------------
# the stream timeline


@dataclass(frozen=True)
class AudioFormat:
    sample_rate_hz: int = 24_000
    channels: int = 1
    bytes_per_sample: int = 2

    def chunk_samples(self, chunk_s: float) -> int:
        return int(round(self.sample_rate_hz * chunk_s))

    def chunk_bytes(self, chunk_s: float) -> int:
        return self.chunk_samples(chunk_s) * self.channels * self.bytes_per_sample


@dataclass(frozen=True)
class Timeline:
    """Per-chunk times (seconds, from the start of capture of chunk 0)."""

    chunk_s: float
    captured: np.ndarray
    processed: np.ndarray
    sent: np.ndarray
    arrival: np.ndarray
    deadline: np.ndarray
    play_start: np.ndarray
    stall: np.ndarray  # added stall before each chunk
    target: np.ndarray  # buffer target in force when each chunk started (adaptive; fixed = buffer)
    first_playback_s: float
    buffer_s: float
    adaptive: bool

    @property
    def n(self) -> int:
        return int(self.arrival.size)

    @property
    def play_end(self) -> np.ndarray:
        return self.play_start + self.chunk_s

    @property
    def lateness(self) -> np.ndarray:
        return self.play_start - self.deadline

    @property
    def misses(self) -> np.ndarray:
        """Chunks that arrive after their deadline."""
        return self.arrival > self.deadline + _EPS

    @property
    def finish_s(self) -> float:
        return float(self.play_end[-1])

    def ready_queue_peak(self) -> int:
        """Most chunks that had arrived and not yet started playing, at any one moment.

        Each chunk waits over [arrival, play start); a chunk that starts the instant it
        arrives never counts; at equal times a start leaves before an arrival joins."""
        waits = self.play_start - self.arrival > _EPS
        if not waits.any():
            return 0
        t = np.concatenate([self.arrival[waits], self.play_start[waits]])
        d = np.concatenate([np.ones(waits.sum()), -np.ones(waits.sum())])
        order = np.lexsort((d, np.round(t, 9)))
        return int(np.cumsum(d[order]).max())

    def playable_s(self, t: np.ndarray) -> np.ndarray:
        """A(t): audio that has arrived and can be played in order (a contiguous prefix)."""
        ready = np.maximum.accumulate(self.arrival)
        return self.chunk_s * np.searchsorted(ready, np.asarray(t) + _EPS, side="right")

    def played_s(self, t: np.ndarray, stop_s: float = math.inf) -> np.ndarray:
        """P(t): audio played so far (grows 1 s per second while playing, flat in stalls)."""
        t = np.minimum(np.asarray(t, dtype=float), stop_s)
        k = np.searchsorted(self.play_start, t, side="right") - 1
        k_safe = np.clip(k, 0, None)
        partial = np.clip(t - self.play_start[k_safe], 0.0, self.chunk_s)
        return np.where(k >= 0, k_safe * self.chunk_s + partial, 0.0)

    def buffer_level(self, t: np.ndarray, stop_s: float = math.inf, release_s: float = math.inf) -> np.ndarray:
        """B(t) = A(t) − P(t). With an interrupt: playback stops at stop_s (the mute) and
        the buffered audio is gone from release_s on."""
        t = np.asarray(t, dtype=float)
        level = self.playable_s(t) - self.played_s(t, stop_s)
        return np.where(t >= release_s, 0.0, level)

    def underruns(self) -> np.ndarray:
        """Indices of chunks whose start was delayed (the buffer ran dry before them)."""
        return np.flatnonzero(self.stall > _EPS)


def pipeline_times(chunks: int, chunk_s: float, process_s: float, send_s: float,
                   network_s: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Capture end, processing end, send end and arrival of every chunk.

    Processing and sending are single servers: a chunk waits for the previous one."""
    captured = (np.arange(chunks) + 1) * chunk_s
    processed = np.empty(chunks)
    sent = np.empty(chunks)
    done_p = done_s = -math.inf
    for i in range(chunks):
        done_p = max(captured[i], done_p) + process_s
        done_s = max(done_p, done_s) + send_s
        processed[i], sent[i] = done_p, done_s
    return captured, processed, sent, sent + network_s


def playout(arrival: np.ndarray, chunk_s: float, buffer_s: float, adaptive: bool = False,
            min_target_s: float | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play starts, added stalls and targets for chunks arriving at `arrival`.

    Fixed: start a buffer after chunk 0 arrives; play in order; a missing chunk stalls the
    player until it arrives. Adaptive: the same, but after an underrun the player waits
    until the in-order audio on hand reaches the target learned from the arrival jitter
    seen so far (or the stream has fully arrived) before it resumes.
    """
    n = arrival.size
    start = np.empty(n)
    stall = np.zeros(n)
    target = np.full(n, buffer_s)
    start[0] = arrival[0] + buffer_s
    if not adaptive:
        for i in range(1, n):
            due = start[i - 1] + chunk_s
            start[i] = max(due, arrival[i])
            stall[i] = start[i] - due
        return start, stall, target

    est = DelayEstimator(chunk_s, chunk_s if min_target_s is None else min_target_s)
    by_time = np.argsort(arrival, kind="stable")
    fed = 0  # arrivals (in time order) the estimator has seen

    def feed_until(t: float) -> None:
        nonlocal fed
        while fed < n and arrival[by_time[fed]] <= t + _EPS:
            j = by_time[fed]
            est.observe(int(j), float(arrival[j]))
            fed += 1

    feed_until(start[0])
    target[0] = est.target_s
    for i in range(1, n):
        due = start[i - 1] + chunk_s
        feed_until(due)
        if arrival[i] <= due + _EPS:
            start[i] = due
        else:
            # Underrun: rebuffer. Candidate resume moments are arrival events from a_i on.
            t = arrival[i]
            while True:
                feed_until(t)
                ready = arrival[i:] <= t + _EPS
                run = n - i if ready.all() else int(np.argmin(ready))
                if run == n - i or run * chunk_s >= est.target_s - _EPS:
                    break
                t = float(arrival[i + run])  # the next chunk in order is the one to wait for
            start[i] = t
            stall[i] = t - due
        target[i] = est.target_s
    return start, stall, target


def build_timeline(chunks: int = 10, chunk_ms: float = 20.0, process_ms: float = 12.0,
                   send_ms: float = 1.0, network_ms=(5.0,), jitter_ms: float = 0.0,
                   spike_prob: float = 0.0, spike_ms: float = 0.0, seed: int = 0,
                   buffer_ms: float = 40.0, adaptive: bool = False) -> Timeline:
    chunk_s = chunk_ms * MS
    net = network_delays_s(chunks, network_ms, jitter_ms, spike_prob, spike_ms, seed)
    captured, processed, sent, arrival = pipeline_times(chunks, chunk_s, process_ms * MS, send_ms * MS, net)
    # Sums of milliseconds leave float dust (0.020 + 0.012 + ...): round to the picosecond
    # so that "no lateness" prints as 0, not 1e-17 s.
    captured, processed, sent, arrival = (np.round(a, 12) for a in (captured, processed, sent, arrival))
    start, stall, target = (np.round(a, 12) for a in playout(arrival, chunk_s, buffer_ms * MS, adaptive))
    first = float(start[0])
    return Timeline(
        chunk_s=chunk_s, captured=captured, processed=processed, sent=sent, arrival=arrival,
        deadline=np.round(first + np.arange(chunks) * chunk_s, 12), play_start=start, stall=stall, target=target,
        first_playback_s=first, buffer_s=buffer_ms * MS, adaptive=adaptive,
    )


# ----------------------------------------------------------------------------------------
# interrupt (barge-in)


def quantum_boundary_at_or_after(t: float, quantum_s: float) -> float:
    """First absolute multiple of the quantum at or after t."""
    return math.ceil(round(t / quantum_s, 9)) * quantum_s


@dataclass(frozen=True)
class InterruptMoments:
    interrupt_s: float
    command_at_s: float  # the mute command reaches the device
    mute_at_s: float
    backend_stop_at_s: float
    release_at_s: float

    @property
    def interrupt_to_mute_s(self) -> float:
        return self.mute_at_s - self.interrupt_s


def interrupt_moments(interrupt_s: float, control_delay_s: float, quantum_s: float,
                      backend_stop_s: float, release_s: float) -> InterruptMoments:
    """Mute at the first device quantum boundary at or after t + control delay; the
    backend stops generating backend_stop_s after the interrupt; buffers and state are
    released release_s after that."""
    command = interrupt_s + control_delay_s
    stop = interrupt_s + backend_stop_s
    return InterruptMoments(interrupt_s, command, quantum_boundary_at_or_after(command, quantum_s), stop, stop + release_s)


def audible_between(tl: Timeline, t0: float, t1: float) -> float:
    """Seconds within [t0, t1] during which some chunk was playing."""
    overlap = np.clip(np.minimum(tl.play_end, t1) - np.maximum(tl.play_start, t0), 0.0, None)
    return float(overlap.sum())


# ----------------------------------------------------------------------------------------
# calculators


def _stream_params(buffer_default: float = 40.0, network_default=(5.0,), chunks_default: int = 10) -> tuple[Param, ...]:
    return (
        Param("sample_rate_hz", "Hz", 24_000, "samples per second (book: 24 kHz)", 8_000, 192_000, kind="int"),
        Param("channels", "", 1, "1 = mono (book)", 1, 8, kind="int"),
        Param("bytes_per_sample", "bytes", 2, "16-bit PCM = 2 bytes (book)", 1, 4, kind="int"),
        Param("chunk_ms", "ms", 20.0, "audio per chunk = one frame (book: 20 ms)", 1, 1000, min_exclusive=False),
        Param("chunks", "chunks", chunks_default, "chunks in the stream", 1, 30_000, kind="int", illustrative=True),
        Param("process_ms", "ms", 12.0, "model/processing time per chunk, one stage, serial (book: 12 ms)", 0, 10_000),
        Param("send_ms", "ms", 1.0, "send time per chunk, one link, serial (book: 1 ms)", 0, 10_000),
        Param("network_ms", "ms", network_default,
              "network delay per chunk; a shorter list repeats its last value (book: typically 5 ms)",
              0, 60_000, kind="floats"),
        Param("jitter_ms", "ms", 0.0, "seeded jitter: mean extra delay (exponential)", 0, 10_000, illustrative=True),
        Param("spike_prob", "", 0.0, "seeded jitter: chance of a spike per chunk", 0, 1, illustrative=True),
        Param("spike_ms", "ms", 0.0, "seeded jitter: size of a spike", 0, 60_000, illustrative=True),
        Param("seed", "", 0, "seed of the jitter model: same seed, same delays", 0, 2**31 - 1, kind="int"),
        Param("buffer_ms", "ms", buffer_default, "jitter buffer: wait after chunk 0 arrives (book: 40 ms)", 0, 600_000),
        Param("adaptive", "", False, "after an underrun, rebuffer to a target learned from the jitter (NetEq-like)", kind="bool"),
    )


def _check_stream(values: dict, buffer_keys=("buffer_ms",)) -> None:
    samples = values["sample_rate_hz"] * values["chunk_ms"] * MS
    if abs(samples - round(samples)) > 1e-6 or round(samples) < 1:
        raise ParamError("chunk_ms", f"got {values['chunk_ms']:g} ms = {samples:g} samples at "
                                     f"{values['sample_rate_hz']} Hz; valid: a whole number of samples (≥ 1)")
    stream_ms = values["chunks"] * values["chunk_ms"]
    for key in buffer_keys:
        if values[key] > stream_ms + 1e-9:
            raise ParamError(key, f"got {values[key]:g} ms, longer than the stream; valid: <= {stream_ms:g} ms "
                                  f"(chunks × chunk_ms)")


STREAM_KEYS = ("chunks", "chunk_ms", "process_ms", "send_ms", "network_ms", "jitter_ms", "spike_prob", "spike_ms",
               "seed", "adaptive")


def stream_timeline(values: Mapping[str, Any], buffer_ms: float | None = None) -> Timeline:
    """The stream of a calculator's checked values; buffer_ms overrides values['buffer_ms'].

    A long adaptive stream takes up to a second to lay out, and the card, the figure and the
    engine all ask for the same one: the last few are kept (read-only arrays, shared)."""
    key = _stream_key(values, buffer_ms)
    with _CACHE_LOCK:
        tl = _CACHE.get(key)
        if tl is not None:
            _CACHE.move_to_end(key)
            return tl
    tl = build_timeline(**dict(zip(STREAM_KEYS, key[:-1])), buffer_ms=key[-1])
    for name in ("captured", "processed", "sent", "arrival", "deadline", "play_start", "stall", "target"):
        getattr(tl, name).flags.writeable = False
    with _CACHE_LOCK:
        _CACHE[key] = tl
        while len(_CACHE) > _CACHE_SIZE:
            _CACHE.popitem(last=False)
    return tl


def has_timeline(values: Mapping[str, Any], buffer_ms: float | None = None) -> bool:
    """stream_timeline(values, buffer_ms) is at hand (no layout to wait for)."""
    with _CACHE_LOCK:
        return _stream_key(values, buffer_ms) in _CACHE


def _stream_key(values: Mapping[str, Any], buffer_ms: float | None) -> tuple:
    return tuple(tuple(values[k]) if k == "network_ms" else values[k] for k in STREAM_KEYS) + (
        float(values["buffer_ms"] if buffer_ms is None else buffer_ms),)


_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 8
_CACHE_LOCK = threading.Lock()


def timeline(**values) -> dict:
    tl = stream_timeline(values)
    fmt = AudioFormat(values["sample_rate_hz"], values["channels"], values["bytes_per_sample"])
    chunk_bytes = fmt.chunk_bytes(tl.chunk_s)
    im = interrupt_moments(values["interrupt_at_ms"] * MS, values["control_delay_ms"] * MS,
                           values["device_quantum_ms"] * MS, values["backend_stop_ms"] * MS,
                           values["release_ms"] * MS)
    return _tidy({
        "chunk_bytes": chunk_bytes,
        "first_arrival_s": float(tl.arrival[0]),
        "first_playback_s": tl.first_playback_s,
        "deadline_misses": int(tl.misses.sum()),
        "underruns": int(tl.underruns().size),
        "total_stall_s": float(tl.stall.sum()),
        "max_lateness_s": float(tl.lateness.max()),
        "playback_finish_s": tl.finish_s,
        "ready_queue_peak_bytes": tl.ready_queue_peak() * chunk_bytes,
        "mute_at_s": im.mute_at_s,
        "interrupt_to_mute_s": im.interrupt_to_mute_s,
        "audible_after_interrupt_s": audible_between(tl, im.interrupt_s, im.mute_at_s),
        "backend_stop_at_s": im.backend_stop_at_s,
        "release_at_s": im.release_at_s,
        "arrival_s": tl.arrival.tolist(),
        "deadline_s": tl.deadline.tolist(),
        "play_start_s": tl.play_start.tolist(),
        "stall_s": tl.stall.tolist(),
    })


def _tidy(out: dict) -> dict:
    """Round float outputs to the picosecond: 0.155 + 0.005 prints as 0.16, not 0.16000000000000003."""
    return {k: round(v, 12) if isinstance(v, float) else v for k, v in out.items()}


QUANTUM_MIN_MS = 0.001

_INTERRUPT_PARAMS = (
    Param("interrupt_at_ms", "ms", 150.0, "the user barges in at this moment", 0, 3_600_000, illustrative=True),
    Param("control_delay_ms", "ms", 5.0, "the mute command takes this long to reach the device (book: 5 ms)", 0, 10_000),
    # At least 1 µs: a device checks its commands at most once per sample (5.2 µs at 192 kHz),
    # and the mute moment is counted in quanta (an hour of stream in 1 µs quanta is 3.6e9).
    Param("device_quantum_ms", "ms", 10.0, "the device checks for commands every quantum (book: 10 ms)",
          QUANTUM_MIN_MS, 10_000),
    Param("backend_stop_ms", "ms", 30.0, "interrupt → backend stops generating", 0, 60_000, illustrative=True),
    Param("release_ms", "ms", 20.0, "backend stop → buffers and state released", 0, 60_000, illustrative=True),
)

_SPIKE = {"network_ms": "5,5,50,5"}  # chunk 2 is held up 45 ms extra: the example spike (示意)

TIMELINE = Calculator(
    name="audio.timeline",
    title="每一块都要按时到 · chunk timeline, jitter buffer and interrupt",
    ref=BookRef("3.3.3", "图 3-18/3-19"),
    params=_stream_params() + _INTERRUPT_PARAMS,
    outputs=(
        Output("chunk_bytes", "bytes", "PCM bytes in one chunk", "rate × chunk × bytes/sample × channels"),
        Output("first_arrival_s", "s", "chunk 0 reaches the player", "F + process + send + network₀"),
        Output("first_playback_s", "s", "playback starts", "a₀ + jitter buffer"),
        Output("deadline_misses", "chunks", "chunks that arrive after their deadline", "#{i : aᵢ > first + i·F}"),
        Output("underruns", "count", "times the player ran dry and stalled", "#{i : stallᵢ > 0}"),
        Output("total_stall_s", "s", "silence added by stalls (the rest of the stream shifts)", "Σ stallᵢ"),
        Output("max_lateness_s", "s", "worst play start − deadline", "max(startᵢ − deadlineᵢ)"),
        Output("playback_finish_s", "s", "last chunk ends, as scheduled before any interrupt", "start_last + F"),
        Output("ready_queue_peak_bytes", "bytes", "most audio waiting in the ready queue",
               "max_t #{i : aᵢ ≤ t < startᵢ} × chunk bytes"),
        Output("mute_at_s", "s", "the device goes silent", "⌈(t_int + control)/quantum⌉ · quantum"),
        Output("interrupt_to_mute_s", "s", "barge-in → silence", "mute − t_int"),
        Output("audible_after_interrupt_s", "s", "audio still heard after the interrupt", "|play ∩ [t_int, mute]|"),
        Output("backend_stop_at_s", "s", "the backend stops generating", "t_int + backend stop delay"),
        Output("release_at_s", "s", "buffers and state are released", "backend stop + release delay"),
        Output("arrival_s", "s", "per chunk: arrival (dots)", "aᵢ", kind="series"),
        Output("deadline_s", "s", "per chunk: scheduled playback (ticks)", "first + i·F", kind="series"),
        Output("play_start_s", "s", "per chunk: actual playback start (bars)", "max(start₍ᵢ₋₁₎ + F, aᵢ)", kind="series"),
        Output("stall_s", "s", "per chunk: stall added before it", "startᵢ − (start₍ᵢ₋₁₎ + F)", kind="series"),
    ),
    compute=timeline,
    check=_check_stream,
    note="打断时刻、后端与释放延迟为示意",
    book=(
        BookValue("chunk_bytes", 960, "24,000 × 0.020 × 2 = 960 bytes"),
        BookValue("first_arrival_s", 0.038, "第一块 38 ms 到"),
        BookValue("first_playback_s", 0.078, "38 ms + 40 ms 缓冲", derived=True),
        BookValue("deadline_misses", 0, "网络通常 5 ms:不停顿", derived=True),
        BookValue("total_stall_s", 0.0, "网络通常 5 ms:不停顿", derived=True, abs_tol=1e-12),
        BookValue("ready_queue_peak_bytes", 1920, "40 ms 缓冲 = 两块 × 960 bytes", derived=True),
        BookValue("playback_finish_s", 0.278, "78 ms + 10 块 × 20 ms", derived=True),
        BookValue("mute_at_s", 0.160, "150 + 5 ms → 下一个 10 ms 边界", derived=True),
        BookValue("interrupt_to_mute_s", 0.005, "控制延迟 5 ms,恰在 10 ms 边界:最短",
                  params={"interrupt_at_ms": 155}, derived=True),
        BookValue("interrupt_to_mute_s", 0.014, "控制延迟 5 ms + 等下一个 10 ms 检查",
                  params={"interrupt_at_ms": 156}, derived=True),
        BookValue("deadline_misses", 1, "一次网络尖峰(示意 5,5,50,5)", params=_SPIKE, derived=True),
        BookValue("total_stall_s", 0.005, "chunk 2 到 123 ms,原定 118 ms", params=_SPIKE, derived=True),
        BookValue("max_lateness_s", 0.005, "后面整体顺延 5 ms", params=_SPIKE, derived=True),
    ),
)


def buffer_compare(**values) -> dict:
    a = stream_timeline(values, values["buffer_a_ms"])
    b = stream_timeline(values, values["buffer_b_ms"])
    return _tidy({
        "first_playback_a_s": a.first_playback_s,
        "first_playback_b_s": b.first_playback_s,
        "extra_start_delay_s": b.first_playback_s - a.first_playback_s,
        "underruns_a": int(a.underruns().size),
        "underruns_b": int(b.underruns().size),
        "total_stall_a_s": float(a.stall.sum()),
        "total_stall_b_s": float(b.stall.sum()),
        "finish_a_s": a.finish_s,
        "finish_b_s": b.finish_s,
    })


BUFFER_COMPARE = Calculator(
    name="audio.buffer_compare",
    title="40 ms 与 60 ms 初始缓冲 · first playback vs stalls",
    ref=BookRef("3.3.3", "练习 3-5"),
    params=tuple(p for p in _stream_params(network_default=(5.0, 5.0, 50.0, 5.0)) if p.name != "buffer_ms") + (
        Param("buffer_a_ms", "ms", 40.0, "initial buffer A (练习 3-5: 40 ms)", 0, 600_000),
        Param("buffer_b_ms", "ms", 60.0, "initial buffer B (练习 3-5: 60 ms)", 0, 600_000),
    ),
    outputs=(
        Output("first_playback_a_s", "s", "A: playback starts", "a₀ + buffer A"),
        Output("first_playback_b_s", "s", "B: playback starts", "a₀ + buffer B"),
        Output("extra_start_delay_s", "s", "what B's safety costs up front", "buffer B − buffer A"),
        Output("underruns_a", "count", "A: stalls", "#{stallᵢ > 0}"),
        Output("underruns_b", "count", "B: stalls", "#{stallᵢ > 0}"),
        Output("total_stall_a_s", "s", "A: silence added", "Σ stallᵢ"),
        Output("total_stall_b_s", "s", "B: silence added", "Σ stallᵢ"),
        Output("finish_a_s", "s", "A: last chunk ends", "start_last + F"),
        Output("finish_b_s", "s", "B: last chunk ends", "start_last + F"),
    ),
    compute=buffer_compare,
    check=lambda v: _check_stream(v, ("buffer_a_ms", "buffer_b_ms")),
    note="网络 5,5,50,5 ms 为示意",
    book=(
        BookValue("first_playback_a_s", 0.078, "40 ms:38 + 40 = 78 ms 首播", derived=True),
        BookValue("first_playback_b_s", 0.098, "60 ms:38 + 60 = 98 ms 首播", derived=True),
        BookValue("underruns_a", 1, "40 ms:尖峰处停顿一次", derived=True),
        BookValue("total_stall_a_s", 0.005, "40 ms:停 5 ms", derived=True),
        BookValue("underruns_b", 0, "60 ms:不停顿", derived=True),
        BookValue("total_stall_b_s", 0.0, "60 ms:不停顿", derived=True, abs_tol=1e-12),
        BookValue("first_playback_b_s", 0.098, "网络恒为 5 ms 时两者都不停顿,只差首播",
                  params={"network_ms": "5"}, derived=True),
        BookValue("underruns_a", 0, "网络恒为 5 ms:40 ms 也不停顿", params={"network_ms": "5"}, derived=True),
    ),
)


def drain(arrival_rate_s_per_s: float, buffered_s: float) -> dict:
    """Playback consumes 1 s of audio per second; arrivals add `rate` s per second.
    The buffer shrinks at (1 − rate) s/s and runs dry after buffered / (1 − rate)."""
    deficit = round(1.0 - arrival_rate_s_per_s, 12)
    if deficit <= 0:
        return {"dry_at_s": None, "played_before_dry_s": None, "received_before_dry_s": None,
                "deficit_s_per_s": deficit, "stall_share_after_dry": 0.0}
    dry = buffered_s / deficit
    return _tidy({
        "dry_at_s": dry,
        "played_before_dry_s": dry,
        "received_before_dry_s": arrival_rate_s_per_s * dry,
        "deficit_s_per_s": deficit,
        # After it runs dry, only `rate` of each second can play: the rest is silence.
        "stall_share_after_dry": deficit,
    })


def drain_series(arrival_rate_s_per_s: float, buffered_s: float, horizon_s: float,
                 points: int = 400) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """t, A(t), P(t), B(t) for a steady trickle: A = buffered + rate·t, P = t until dry,
    after which playback can only follow arrivals."""
    t = np.linspace(0.0, horizon_s, points)
    arrived = buffered_s + arrival_rate_s_per_s * t
    played = np.minimum(t, arrived)
    return t, arrived, played, arrived - played


DRAIN = Calculator(
    name="audio.drain",
    title="到达跟不上播放,缓冲只是延后中断 · buffer drain",
    ref=BookRef("3.3.3", "练习 3-5"),
    params=(
        Param("arrival_rate_s_per_s", "s/s", 0.9, "seconds of playable audio arriving per second (练习 3-5: 0.9)", 0, 100),
        Param("buffered_s", "s", 0.3, "audio already buffered when playback starts (练习 3-5: 0.3 s)", 0, 3600),
    ),
    outputs=(
        Output("dry_at_s", "s", "the buffer runs out; absent when arrivals keep up", "B₀ / (1 − r)"),
        Output("played_before_dry_s", "s", "audio heard without a break", "B₀ / (1 − r)"),
        Output("received_before_dry_s", "s", "audio that arrived meanwhile", "r · B₀ / (1 − r)"),
        Output("deficit_s_per_s", "s/s", "how fast the buffer shrinks", "1 − r"),
        Output("stall_share_after_dry", "ratio", "share of each second that is silence once dry", "1 − r"),
    ),
    compute=drain,
    note="有限缓冲吸收抖动,补不了速率缺口",
    book=(
        BookValue("dry_at_s", 3.0, "0.3 / (1 − 0.9) = 3 s", derived=True),
        BookValue("received_before_dry_s", 2.7, "3 s 内又到了 2.7 s", derived=True),
    ),
)

CALCULATORS = (TIMELINE, BUFFER_COMPARE, DRAIN)
