"""Chunk markers: each chunk carries a quiet pilot tone whose pitch names it.

A recording of the sound card (the PulseAudio monitor in the device tests) can then tell
which chunk played and when, and where the sound stopped, without trusting the engine's
own log. The voice-like signal stays below 4 kHz; markers sit on a 200 Hz grid from
4.4 kHz, so a 10 ms Hann window (whose first null is 200 Hz away) separates neighbours.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

MARKER_BASE_HZ = 4_400.0
MARKER_STEP_HZ = 200.0
MARKER_SLOTS = 24  # chunk i is marked with slot i mod 24: enough to check order
MARKER_AMPLITUDE = 0.06


def marker_hz(index: int) -> float:
    return MARKER_BASE_HZ + MARKER_STEP_HZ * (index % MARKER_SLOTS)


def min_sample_rate_hz() -> int:
    """The top marker must sit below Nyquist with some room for resampler roll-off."""
    return int(2 * (marker_hz(MARKER_SLOTS - 1) + 600))


def add_marker(chunk: np.ndarray, index: int, rate_hz: int, start_sample: int = 0,
               amplitude: float = MARKER_AMPLITUDE) -> None:
    """Add chunk `index`'s pilot tone to `chunk` in place (phase continuous in stream time)."""
    n = chunk.shape[-1]
    t = (start_sample + np.arange(n)) / rate_hz
    chunk += amplitude * np.sin(2 * np.pi * marker_hz(index) * t).astype(chunk.dtype)


@dataclass(frozen=True)
class MarkerRun:
    """A stretch of the recording carrying one marker slot."""

    slot: int
    start_s: float
    end_s: float

    @property
    def duration_s(self) -> float:
        return self.end_s - self.start_s


def marker_frames(signal: np.ndarray, rate_hz: int, hop_s: float = 0.0025,
                  window_s: float = 0.010) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per analysis frame: centre time (s), detected slot (−1 = none), marker energy.

    The energy is that of the best slot, relative to the signal energy at the marker
    amplitude, so a frame counts as marked only when a marker is really there."""
    win = int(round(window_s * rate_hz))
    hop = max(1, int(round(hop_s * rate_hz)))
    x = np.asarray(signal, dtype=np.float64)
    if x.size < win:
        return np.empty(0), np.empty(0, dtype=int), np.empty(0)
    count = 1 + (x.size - win) // hop
    frames = np.lib.stride_tricks.as_strided(x, shape=(count, win), strides=(x.strides[0] * hop, x.strides[0]))
    window = np.hanning(win)
    n = np.arange(win)
    freqs = MARKER_BASE_HZ + MARKER_STEP_HZ * np.arange(MARKER_SLOTS)
    basis = window * np.exp(-2j * np.pi * np.outer(freqs, n) / rate_hz)  # slots × win
    amp = np.abs(frames @ basis.T) * 2 / window.sum()  # amplitude of each slot's sinusoid
    best = amp.argmax(axis=1)
    level = amp[np.arange(count), best]
    centre = (np.arange(count) * hop + win / 2) / rate_hz
    slot = np.where(level > MARKER_AMPLITUDE * 0.35, best, -1)
    return centre, slot, level


def marker_runs(signal: np.ndarray, rate_hz: int, min_run_s: float = 0.006) -> list[MarkerRun]:
    """Runs of one marker slot. A run's start is where its frames begin to be dominated
    by that slot (window centre), so onsets are accurate to about one hop."""
    t, slot, _ = marker_frames(signal, rate_hz)
    runs: list[MarkerRun] = []
    if t.size == 0:
        return runs
    hop = t[1] - t[0] if t.size > 1 else 0.0
    change = np.flatnonzero(np.diff(slot) != 0) + 1
    bounds = np.concatenate([[0], change, [slot.size]])
    for a, b in zip(bounds[:-1], bounds[1:]):
        if slot[a] < 0:
            continue
        run = MarkerRun(int(slot[a]), float(t[a] - hop / 2), float(t[b - 1] + hop / 2))
        if run.duration_s >= min_run_s:
            runs.append(run)
    return runs


def silent_gaps(signal: np.ndarray, rate_hz: int, min_gap_s: float = 0.004) -> list[tuple[float, float]]:
    """Stretches with no marker at all (the player was silent: a stall, or after a mute)."""
    t, slot, _ = marker_frames(signal, rate_hz)
    gaps: list[tuple[float, float]] = []
    if t.size == 0:
        return gaps
    hop = t[1] - t[0] if t.size > 1 else 0.0
    quiet = slot < 0
    edges = np.flatnonzero(np.diff(quiet.astype(int)) != 0) + 1
    bounds = np.concatenate([[0], edges, [quiet.size]])
    for a, b in zip(bounds[:-1], bounds[1:]):
        if quiet[a]:
            start, end = float(t[a] - hop / 2), float(t[b - 1] + hop / 2)
            if end - start >= min_gap_s:
                gaps.append((start, end))
    return gaps
