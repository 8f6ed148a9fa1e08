"""Preallocated event rings: the real-time threads write, the GUI (or a test) reads.

One ring has exactly one writer (the audio callback, the network thread, or the control
thread), so no lock is needed: the writer fills a slot and then publishes it by bumping
`written`; a reader copies what lies between its own cursor and `written`. Readers that
fall more than a ring behind lose the oldest events and are told how many.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

# Event kinds (small ints so a slot is four numbers).
ARRIVAL = 1       # chunk reached the jitter buffer            value: scheduled arrival (s)
PLAY = 2          # chunk started playing                      value: its deadline (s)
UNDERRUN = 3      # the player needed chunk and it was missing value: buffered audio (s)
RESUME = 4        # playback resumed after an underrun         value: stall length (s)
MUTE = 5          # the device went silent                     value: modelled mute time (s)
COMMAND = 6       # the mute command reached the device        value: interrupt time (s)
BACKEND_STOP = 7  # the backend stopped generating             value: modelled time (s)
RELEASE = 8       # buffers and state released                 value: modelled time (s)
INTERRUPT = 9     # the user barged in                         value: —
FINISHED = 10     # the last chunk finished                    value: —
FIRST_PLAY = 11   # playback start was scheduled               value: the planned time (s)
TARGET = 12       # adaptive buffer target changed             value: target (s)
DROPPED = 13      # a chunk was never generated (backend stopped)

NAMES = {ARRIVAL: "arrival", PLAY: "play", UNDERRUN: "underrun", RESUME: "resume", MUTE: "mute",
         COMMAND: "command", BACKEND_STOP: "backend_stop", RELEASE: "release", INTERRUPT: "interrupt",
         FINISHED: "finished", FIRST_PLAY: "first_play", TARGET: "target", DROPPED: "dropped"}


@dataclass(frozen=True)
class Events:
    """A batch read from a ring: parallel arrays."""

    kind: np.ndarray
    chunk: np.ndarray
    t: np.ndarray
    value: np.ndarray
    lost: int = 0

    def __len__(self) -> int:
        return int(self.kind.size)

    def of(self, kind: int) -> Events:
        m = self.kind == kind
        return Events(self.kind[m], self.chunk[m], self.t[m], self.value[m])

    @staticmethod
    def concat(parts: list[Events]) -> Events:
        if not parts:
            return Events(np.empty(0, np.int8), np.empty(0, np.int32), np.empty(0), np.empty(0))
        order_t = np.concatenate([p.t for p in parts])
        order = np.argsort(order_t, kind="stable")
        return Events(np.concatenate([p.kind for p in parts])[order], np.concatenate([p.chunk for p in parts])[order],
                      order_t[order], np.concatenate([p.value for p in parts])[order], sum(p.lost for p in parts))


class EventRing:
    """Single-writer ring of (kind, chunk, t, value)."""

    def __init__(self, capacity: int = 8192):
        self.capacity = int(capacity)
        self._kind = np.zeros(self.capacity, np.int8)
        self._chunk = np.zeros(self.capacity, np.int32)
        self._t = np.zeros(self.capacity)
        self._value = np.zeros(self.capacity)
        self.written = 0  # published count; only the writer bumps it

    def push(self, kind: int, chunk: int, t: float, value: float = 0.0) -> None:
        i = self.written % self.capacity
        self._kind[i] = kind
        self._chunk[i] = chunk
        self._t[i] = t
        self._value[i] = value
        self.written += 1  # publish last: a reader never sees a half-written slot

    def read(self, since: int) -> tuple[Events, int]:
        """Events written after cursor `since`; returns them and the new cursor."""
        end = self.written
        lost = max(0, end - since - self.capacity)
        start = since + lost
        idx = np.arange(start, end) % self.capacity
        return Events(self._kind[idx].copy(), self._chunk[idx].copy(), self._t[idx].copy(),
                      self._value[idx].copy(), lost), end

    def all(self) -> Events:
        return self.read(max(0, self.written - self.capacity))[0]


class SampleRing:
    """Single-writer ring of pairs (t, value): buffer level, callback durations."""

    def __init__(self, capacity: int = 16384):
        self.capacity = int(capacity)
        self._t = np.zeros(self.capacity)
        self._v = np.zeros(self.capacity)
        self.written = 0

    def push(self, t: float, v: float) -> None:
        i = self.written % self.capacity
        self._t[i] = t
        self._v[i] = v
        self.written += 1

    def read(self, since: int) -> tuple[np.ndarray, np.ndarray, int]:
        end = self.written
        start = max(since, end - self.capacity)
        idx = np.arange(start, end) % self.capacity
        return self._t[idx].copy(), self._v[idx].copy(), end

    def last(self, count: int) -> tuple[np.ndarray, np.ndarray]:
        t, v, _ = self.read(max(0, self.written - count))
        return t, v


class WaveRing:
    """The last few seconds of what the callback wrote, for the live waveform."""

    def __init__(self, samples: int):
        self.buf = np.zeros(int(samples), np.float32)
        self.written = 0  # total samples ever written

    def write(self, block: np.ndarray) -> None:
        n = block.shape[0]
        size = self.buf.shape[0]
        i = self.written % size
        first = min(n, size - i)
        self.buf[i:i + first] = block[:first]
        if first < n:
            self.buf[:n - first] = block[first:n]
        self.written += n

    def latest(self, count: int) -> np.ndarray:
        """A copy of the newest `count` samples (oldest first)."""
        size = self.buf.shape[0]
        count = min(count, size, self.written)
        end = self.written % size
        idx = (np.arange(end - count, end)) % size
        return self.buf[idx]
