"""The Audio panel's figures (§3.3.3), computed in core: everything a view draws.

- `timeline_figure`: 图 3-18/3-19 of a stream (arrival dots, scheduled ticks, playback
  bars heard and cut by the mute, stalls, the interrupt moments) and its B(t) below;
  `TimelineFigure.rows` gives the items of a few chunks (a page of a long stream) and
  `TimelineFigure.level` B(t) over any span, so a page turn draws only what is in view.
- `compare_figure`: 练习 3-5's two buffers on one stream.
- `drain_figure`: A(t), P(t), B(t) of a steady trickle.

x in milliseconds (what the axes show), y in chunks. Pure numpy; the panel only draws.
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from core.audio.timeline import Timeline
from core.audio.timing import drain_series, has_timeline, stream_timeline
from core.units import MS, format_seconds

TO_MS = 1.0 / MS
BAR_HALF = 0.28  # model playback bars, in chunks
TICK_HALF = 0.42  # scheduled ticks
LEVEL_POINTS = 1500  # B(t) samples over a whole stream
MOMENTS = ("interrupt", "mute", "backend_stop", "release")


@dataclass(frozen=True)
class Rows:
    """The model's items for chunks lo..hi-1 (all of them for a whole stream)."""

    heard: tuple[np.ndarray, np.ndarray, np.ndarray]  # bar x0, x1, y (centre) for audio heard
    silenced: tuple[np.ndarray, np.ndarray, np.ndarray]  # the part after the mute
    ticks: tuple[np.ndarray, np.ndarray]  # scheduled playback: pairs of points (connect="pairs")
    arrivals: tuple[np.ndarray, np.ndarray]
    stalls: tuple[np.ndarray, np.ndarray]  # ▼ where the player ran dry, half a row above its chunk


@dataclass(frozen=True)
class TimelineFigure:
    timeline: Timeline
    result: Mapping[str, Any]
    rows_all: Rows
    first_play_ms: float
    moments_ms: dict[str, float]
    moments_visible: bool  # the interrupt falls inside the stream (a far-off one would squash it)
    x_range: tuple[float, float]
    y_range: tuple[float, float]
    note: str
    note_pos: tuple[float, float]
    level: tuple[np.ndarray, np.ndarray]  # model B(t), ms
    target: tuple[np.ndarray, np.ndarray]  # adaptive target (empty for a fixed buffer)
    underruns_ms: np.ndarray
    level_y_max: float
    mute_s: float = math.inf
    release_s: float = math.inf

    @property
    def n(self) -> int:
        return self.timeline.n

    def rows(self, lo: int = 0, hi: int | None = None) -> Rows:
        """The items of chunks lo..hi-1 only (a page of a long stream)."""
        return _rows(self.timeline, self.mute_s, lo, self.n if hi is None else hi)

    def rows_between(self, t0_s: float, t1_s: float, margin: int = 3) -> tuple[int, int]:
        """Chunks to show for the span [t0, t1] s: from those due at t0 to those captured by t1."""
        tl = self.timeline
        lo = max(0, int(np.searchsorted(tl.deadline, t0_s)) - margin)
        hi = min(tl.n, int(np.searchsorted(tl.captured, t1_s)) + 1)
        return lo, max(hi, min(tl.n, lo + 5))

    def level_between(self, t0_s: float, t1_s: float, points: int = 600) -> tuple[np.ndarray, np.ndarray]:
        """Model B(t) over [t0, t1] s, in ms (a page's worth at full resolution)."""
        t = np.linspace(t0_s, t1_s, points)
        return t * TO_MS, self.timeline.buffer_level(t, stop_s=self.mute_s, release_s=self.release_s) * TO_MS


def _rows(tl: Timeline, mute_s: float, lo: int, hi: int) -> Rows:
    idx = np.arange(lo, hi, dtype=float)
    start, end = tl.play_start[lo:hi], tl.play_end[lo:hi]
    heard_end = np.minimum(end, mute_s)
    heard = heard_end > start
    cut_start = np.maximum(start, mute_s)
    cut = end > cut_start
    stalls = tl.underruns()
    stalls = stalls[(stalls >= lo) & (stalls < hi)]
    return Rows(
        heard=(start[heard] * TO_MS, heard_end[heard] * TO_MS, idx[heard]),
        silenced=(cut_start[cut] * TO_MS, end[cut] * TO_MS, idx[cut]),
        ticks=(np.repeat(tl.deadline[lo:hi] * TO_MS, 2), np.ravel(np.column_stack([idx - TICK_HALF, idx + TICK_HALF]))),
        arrivals=(tl.arrival[lo:hi] * TO_MS, idx),
        stalls=((tl.play_start[stalls] - tl.stall[stalls]) * TO_MS, stalls.astype(float) - 0.5),
    )


def timeline_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> TimelineFigure:
    """图 3-18/3-19 and B(t) of audio.timeline's checked inputs and their result."""
    tl = stream_timeline(inputs)
    mute_s = float(result["mute_at_s"])
    release_s = float(result["release_at_s"])
    moments_s = {"interrupt": inputs["interrupt_at_ms"] * MS, "mute": mute_s,
                 "backend_stop": float(result["backend_stop_at_s"]), "release": release_s}
    in_stream = moments_s["interrupt"] <= tl.finish_s
    right = (max(tl.finish_s, release_s) if in_stream else tl.finish_s) * 1.04 * TO_MS
    t = np.linspace(0, tl.finish_s + tl.chunk_s, LEVEL_POINTS)
    level = tl.buffer_level(t, stop_s=mute_s, release_s=release_s)
    stalls = tl.underruns()
    empty = np.empty(0)
    return TimelineFigure(
        timeline=tl, result=result, rows_all=_rows(tl, mute_s, 0, tl.n),
        first_play_ms=tl.first_playback_s * TO_MS,
        moments_ms={k: v * TO_MS for k, v in moments_s.items()}, moments_visible=bool(in_stream),
        x_range=(0.0, right), y_range=(-1.0, float(tl.n)),
        note=(f"stalls {result['underruns']} · {format_seconds(result['total_stall_s'])} · "
              f"interrupt → mute {format_seconds(result['interrupt_to_mute_s'])}"),
        note_pos=(right, float(tl.n)),
        level=(t * TO_MS, level * TO_MS),
        target=(tl.play_start * TO_MS, tl.target * TO_MS) if tl.adaptive else (empty, empty),
        underruns_ms=(tl.play_start[stalls] - tl.stall[stalls]) * TO_MS,
        level_y_max=max(float(level.max()) * TO_MS, tl.buffer_s * TO_MS, 1.0) * 1.1,
        mute_s=mute_s, release_s=release_s,
    )


def figure_at_hand(name: str, inputs: Mapping[str, Any]) -> bool:
    """The figure of 'timeline' or 'compare' needs no layout (its card laid the streams out):
    it takes a few ms, fine on the GUI thread; else it goes to the job runner."""
    if name == "timeline":
        return has_timeline(inputs)
    return has_timeline(inputs, inputs["buffer_a_ms"]) and has_timeline(inputs, inputs["buffer_b_ms"])


@dataclass(frozen=True)
class CompareFigure:
    bars: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # x0, x1, y0, y1
    stalls: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    labels: tuple[tuple[str, float], ...]  # (text, y) for rows A and B, at x = 0
    x_range: tuple[float, float]
    y_range: tuple[float, float] = (-0.75, 1.4)


def compare_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> CompareFigure:
    """练习 3-5: the same stream with buffer A (row 0) and buffer B (row 1)."""
    parts: dict[str, list] = {k: [] for k in ("x0", "x1", "y0", "y1", "sx0", "sx1", "sy0", "sy1")}
    for row, key in enumerate(("buffer_a_ms", "buffer_b_ms")):
        tl = stream_timeline(inputs, inputs[key])
        parts["x0"].append(tl.play_start * TO_MS)
        parts["x1"].append(tl.play_end * TO_MS)
        parts["y0"].append(np.full(tl.n, row - 0.18))
        parts["y1"].append(np.full(tl.n, row + 0.18))
        s = tl.underruns()
        parts["sx0"].append((tl.play_start[s] - tl.stall[s]) * TO_MS)
        parts["sx1"].append(tl.play_start[s] * TO_MS)
        parts["sy0"].append(np.full(s.size, row - 0.26))
        parts["sy1"].append(np.full(s.size, row + 0.26))
    cat = {k: np.concatenate(v) for k, v in parts.items()}
    r = result
    texts = (f"A {inputs['buffer_a_ms']:g} ms: 首播 {format_seconds(r['first_playback_a_s'])}, "
             f"停顿 {r['underruns_a']} 次 {format_seconds(r['total_stall_a_s'])}",
             f"B {inputs['buffer_b_ms']:g} ms: 首播 {format_seconds(r['first_playback_b_s'])}, "
             f"停顿 {r['underruns_b']} 次 {format_seconds(r['total_stall_b_s'])}")
    right = max(r["finish_a_s"], r["finish_b_s"]) * TO_MS
    return CompareFigure(
        bars=(cat["x0"], cat["x1"], cat["y0"], cat["y1"]),
        stalls=(cat["sx0"], cat["sx1"], cat["sy0"], cat["sy1"]),
        labels=((texts[0], -0.22), (texts[1], 0.78)),
        x_range=(0.0, right * 1.05),
    )


@dataclass(frozen=True)
class DrainFigure:
    t: np.ndarray  # seconds
    arrived: np.ndarray
    played: np.ndarray
    level: np.ndarray
    dry_at_s: float | None
    dry_label: str


def drain_figure(inputs: Mapping[str, Any], result: Mapping[str, Any]) -> DrainFigure:
    """A(t), P(t), B(t) of a steady trickle, over twice the time it takes to run dry."""
    dry = result["dry_at_s"]
    horizon = 2 * dry if dry else 10.0
    t, arrived, played, level = drain_series(inputs["arrival_rate_s_per_s"], inputs["buffered_s"], horizon)
    return DrainFigure(t, arrived, played, level, dry, f"耗尽 {format_seconds(dry)}" if dry is not None else "")
