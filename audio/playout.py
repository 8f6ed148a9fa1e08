"""The player behind the sink: jitter buffer and playout clock, run inside the audio callback.

`render()` is called once per device block from the audio thread. It copies samples from
the preallocated (chunks × samples) array, decides starts, stalls and mutes, and writes
events into preallocated rings. It allocates no buffers, takes no locks and knows nothing
of Qt. The other threads talk to it through plain attributes that one side writes and
the other reads (the network thread: `contig`, `first_play_t`, `target_s`; the control
thread: `mute_at`, then `mute_cmd`).

Rules (the same as core.audio.timeline): start a buffer after chunk 0 arrives; play in
order; a missing chunk stalls the player until it arrives (adaptive: until the in-order
audio on hand reaches the target); a mute lands at its modelled moment, or at the start
of the first block that sees the command if that moment has passed.
"""
from __future__ import annotations

import math

import numpy as np

from audio.events import FINISHED, MUTE, PLAY, RESUME, UNDERRUN, EventRing, SampleRing, WaveRing


class Playout:
    def __init__(self, pcm: np.ndarray, rate_hz: int, chunk_s: float, adaptive: bool = False,
                 wave_seconds: float = 4.0):
        self.pcm = pcm  # (chunks, samples) float32, prepared before start
        self.rate_hz = int(rate_hz)
        self.chunk_s = float(chunk_s)
        self.chunks, self.chunk_samples = pcm.shape
        self.adaptive = bool(adaptive)
        # Written by the network thread.
        self.arrived = np.zeros(self.chunks, dtype=bool)
        self.contig = 0  # chunks 0..contig-1 have all arrived
        self.first_play_t = math.inf
        self.target_s = 0.0
        # Written by the control thread (mute_at first, then mute_cmd).
        self.mute_at = math.inf
        self.mute_cmd = False
        # Owned by the audio thread.
        self.k = 0
        self.offset = 0
        self.started = False
        self.stalled = False
        self.stall_since = 0.0
        self.muted = False
        self.finished = False
        self.samples_played = 0
        self.events = EventRing(4 * self.chunks + 64)
        self.levels = SampleRing(1 << 15)
        self.wave = WaveRing(int(wave_seconds * self.rate_hz))

    # -- called from the network thread ----------------------------------------------
    def mark_arrived(self, index: int) -> None:
        self.arrived[index] = True
        c = self.contig
        while c < self.chunks and self.arrived[c]:
            c += 1
        self.contig = c

    # -- called from the control thread ----------------------------------------------
    def request_mute(self, mute_at: float) -> None:
        self.mute_at = mute_at
        self.mute_cmd = True

    # -- the audio thread --------------------------------------------------------------
    def buffered_s(self) -> float:
        """B(t) = A(t) − P(t): in-order audio on hand beyond the play position."""
        return ((self.contig - self.k) * self.chunk_samples - self.offset) / self.rate_hz

    def render(self, out: np.ndarray, now: float) -> None:
        """Fill `out` (one block, mono float32) for the block starting at engine time `now`."""
        n = out.shape[0]
        rate = self.rate_hz
        if not self.muted:
            # B(t) at the block's start, from the arrivals the player knows of by then.
            self.levels.push(now, self.buffered_s())
        if self.muted or self.finished:
            out.fill(0.0)
            self.wave.write(out)
            return
        pos = 0
        # The device checks its commands once per block: a mute due inside this block
        # cuts it there; one that is already due cuts it from the start.
        limit = n
        if self.mute_cmd:
            limit = min(n, max(0, int(math.ceil((self.mute_at - now) * rate - 1e-6))))
        if not self.started:
            start = self.first_play_t
            if start >= now + limit / rate:
                out.fill(0.0)
                self._mute_if_due(limit, n, now)
                self.wave.write(out)
                return
            pos = min(limit, max(0, int(round((start - now) * rate))))
            out[:pos] = 0.0
            self.started = True
        chunk_samples = self.chunk_samples
        while pos < limit:
            k = self.k
            if k >= self.chunks:
                out[pos:limit] = 0.0
                self.events.push(FINISHED, k, now + pos / rate, 0.0)
                self.finished = True  # after the event: a reader that sees finished has it
                break
            if self.offset == 0:
                t = now + pos / rate
                if self.contig <= k or (self.stalled and self.adaptive and not self._enough_to_resume()):
                    if not self.stalled:
                        self.stalled = True
                        self.stall_since = t
                        self.events.push(UNDERRUN, k, t, self.buffered_s())
                    out[pos:limit] = 0.0
                    break
                if self.stalled:
                    self.stalled = False
                    self.events.push(RESUME, k, t, t - self.stall_since)
                self.events.push(PLAY, k, t, self.first_play_t + k * self.chunk_s)
            m = min(chunk_samples - self.offset, limit - pos)
            out[pos:pos + m] = self.pcm[k, self.offset:self.offset + m]
            pos += m
            self.offset += m
            self.samples_played += m
            if self.offset == chunk_samples:
                self.k = k + 1
                self.offset = 0
        out[limit:] = 0.0
        self._mute_if_due(limit, n, now)
        self.wave.write(out)

    def _mute_if_due(self, limit: int, n: int, now: float) -> None:
        if limit < n:
            self.muted = True
            self.events.push(MUTE, self.k, now + limit / self.rate_hz, self.mute_at)

    def _enough_to_resume(self) -> bool:
        """Adaptive rebuffering: wait for the target's worth of in-order audio (or the end)."""
        if self.contig >= self.chunks:
            return True
        return (self.contig - self.k) * self.chunk_s >= self.target_s - 1e-9
