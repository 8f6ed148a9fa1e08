"""What the live plots draw of a running stream, gathered from the engine's rings.

The GUI pulls once per frame (StreamRun.pull) and hands the batch to `LiveTrace.add`; the
trace keeps every measured arrival, playback start, underrun, buffer-level sample and
interrupt moment in preallocated arrays (no Python lists re-converted each frame), and
answers with what lies inside a time window, decimated for the screen. x in milliseconds,
y in chunks, as core.audio.figures. No Qt.
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from audio import events as ev
from audio.engine import Pulled
from core.units import MS

TO_MS = 1.0 / MS
LIVE_BAR_HALF = 0.12  # measured playback bars, drawn over the model's (chunks)
_MOMENT_KINDS = {ev.INTERRUPT: "interrupt", ev.MUTE: "mute", ev.BACKEND_STOP: "backend_stop", ev.RELEASE: "release"}


@dataclass(frozen=True)
class Added:
    """What one pull brought: which parts of the figure have something new."""

    events: bool  # arrivals, starts or underruns
    levels: bool
    moments: tuple[str, ...]  # interrupt moments seen for the first time


class _Grow:
    """A growing float array (amortised doubling); `view()` is the filled part."""

    def __init__(self, capacity: int = 1024):
        self.a = np.empty(max(16, capacity))
        self.n = 0

    def extend(self, values: np.ndarray) -> None:
        k = values.size
        if self.n + k > self.a.size:
            bigger = np.empty(max(self.a.size * 2, self.n + k))
            bigger[:self.n] = self.a[:self.n]
            self.a = bigger
        self.a[self.n:self.n + k] = values
        self.n += k

    def view(self) -> np.ndarray:
        return self.a[:self.n]


class LiveTrace:
    def __init__(self, chunks: int, chunk_s: float, level_capacity: int = 4096):
        self.chunks = int(chunks)
        self.chunk_s = float(chunk_s)
        self.arr_t, self.arr_i = _Grow(chunks), _Grow(chunks)
        self.play_t, self.play_i = _Grow(chunks), _Grow(chunks)
        self.under_t = _Grow(64)
        self.level_t, self.level_v = _Grow(level_capacity), _Grow(level_capacity)
        self.moments: dict[str, float] = {}  # measured, engine seconds
        self.now = 0.0

    # ---- taking ---------------------------------------------------------------------
    def add(self, pulled: Pulled) -> Added:
        e = pulled.events
        self.now = pulled.now
        got_events = False
        for kind, t_arr, i_arr in ((ev.ARRIVAL, self.arr_t, self.arr_i), (ev.PLAY, self.play_t, self.play_i)):
            got = e.of(kind)
            if got.t.size:
                t_arr.extend(got.t)
                i_arr.extend(got.chunk.astype(float))
                got_events = True
        under = e.of(ev.UNDERRUN)
        if under.t.size:
            self.under_t.extend(under.t)
            got_events = True
        if pulled.level_t.size:
            self.level_t.extend(pulled.level_t)
            self.level_v.extend(pulled.level_s)
        new_moments = []
        for kind, key in _MOMENT_KINDS.items():
            got = e.of(kind)
            if got.t.size and key not in self.moments:
                self.moments[key] = float(got.t[0])
                new_moments.append(key)
        return Added(got_events, bool(pulled.level_t.size), tuple(new_moments))

    # ---- drawing ----------------------------------------------------------------------
    def arrivals(self, t0: float = -math.inf, t1: float = math.inf) -> tuple[np.ndarray, np.ndarray]:
        """Measured arrivals (ms, chunk) with t in [t0, t1] s (arrivals come in time order)."""
        t, i = self.arr_t.view(), self.arr_i.view()
        lo, hi = np.searchsorted(t, [t0, t1])
        return t[lo:hi] * TO_MS, i[lo:hi]

    def bars(self, t0: float = -math.inf, t1: float = math.inf) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Measured playback (x0, x1 in ms, chunk) of the chunks playing in [t0, t1] s; a bar
        ends at the mute when there was one."""
        t, i = self.play_t.view(), self.play_i.view()
        lo, hi = np.searchsorted(t, [t0 - self.chunk_s, t1])
        start = t[lo:hi]
        end = start + self.chunk_s
        mute = self.moments.get("mute")
        if mute is not None:
            end = np.minimum(end, mute)
        return start * TO_MS, end * TO_MS, i[lo:hi]

    def underruns(self) -> np.ndarray:
        return self.under_t.view() * TO_MS

    def level(self, t0: float = -math.inf, t1: float = math.inf, max_points: int = 1200) -> tuple[np.ndarray, np.ndarray]:
        """Measured B(t) in [t0, t1] s (ms, ms), thinned to at most about max_points."""
        t, v = self.level_t.view(), self.level_v.view()
        lo, hi = np.searchsorted(t, [t0, t1])
        step = max(1, (hi - lo) // max_points)
        return t[lo:hi:step] * TO_MS, v[lo:hi:step] * TO_MS


def wave_columns(wave: np.ndarray, rate_hz: int, columns: int = 400) -> tuple[np.ndarray, np.ndarray]:
    """The newest samples as min/max pairs per column (peaks kept), x in ms before now."""
    step = max(1, wave.size // max(1, columns))
    usable = wave[wave.size % step:].reshape(-1, step)
    peaks = np.empty(usable.shape[0] * 2, np.float32)
    peaks[0::2] = usable.min(axis=1)
    peaks[1::2] = usable.max(axis=1)
    x = (np.repeat(np.arange(usable.shape[0]) * step, 2) - usable.size) / rate_hz * TO_MS
    return x, peaks
