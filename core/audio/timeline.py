"""§3.3.3 实时播放 (图 3-18/3-19): the timeline of a streamed voice reply, pure and deterministic.

- chunk i is captured over one frame [i·F, (i+1)·F], then processed (one model stage,
  serial across chunks), then sent (one link, serial), then crosses the network with its
  own delay (chunks may overtake each other);
- playback starts a fixed jitter buffer after chunk 0 arrives; chunk i's deadline is
  first playback + i·F; the player plays in order and, when the next chunk is missing,
  stalls until it arrives (nothing is dropped), shifting the rest of the timeline.

The real-time engine in audio/ follows the same rules with real clocks; its device tests
compare a recording of the sound card against these numbers.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from core.audio.jitter import DelayEstimator, network_delays_s
from core.units import MS

EPS_S = 1e-9  # seconds; rounding guard for times summed from milliseconds (0.155 + 0.005 is 0.16000000000000003)


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
        return self.arrival > self.deadline + EPS_S

    @property
    def finish_s(self) -> float:
        return float(self.play_end[-1])

    def ready_queue_peak(self) -> int:
        """Most chunks that had arrived and not yet started playing, at any one moment.

        Each chunk waits over [arrival, play start); a chunk that starts the instant it
        arrives never counts; at equal times a start leaves before an arrival joins."""
        waits = self.play_start - self.arrival > EPS_S
        if not waits.any():
            return 0
        t = np.concatenate([self.arrival[waits], self.play_start[waits]])
        d = np.concatenate([np.ones(waits.sum()), -np.ones(waits.sum())])
        order = np.lexsort((d, np.round(t, 9)))
        return int(np.cumsum(d[order]).max())

    def playable_s(self, t: np.ndarray) -> np.ndarray:
        """A(t): audio that has arrived and can be played in order (a contiguous prefix)."""
        ready = np.maximum.accumulate(self.arrival)
        return self.chunk_s * np.searchsorted(ready, np.asarray(t) + EPS_S, side="right")

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
        return np.flatnonzero(self.stall > EPS_S)


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
        while fed < n and arrival[by_time[fed]] <= t + EPS_S:
            j = by_time[fed]
            est.observe(int(j), float(arrival[j]))
            fed += 1

    feed_until(start[0])
    target[0] = est.target_s
    for i in range(1, n):
        due = start[i - 1] + chunk_s
        feed_until(due)
        if arrival[i] <= due + EPS_S:
            start[i] = due
        else:
            # Underrun: rebuffer. Candidate resume moments are arrival events from a_i on.
            t = arrival[i]
            while True:
                feed_until(t)
                ready = arrival[i:] <= t + EPS_S
                run = n - i if ready.all() else int(np.argmin(ready))
                if run == n - i or run * chunk_s >= est.target_s - EPS_S:
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
