"""The Voice panel's figures: one turn's swimlane under the background load, on one clock,
and the distribution of silence gaps over all turns with p50/p95/p99.

The x axis of both timeline plots is milliseconds since the user's last word (0 = the user
stopped speaking), so the silence gap reads off directly; the background's queue and KV
are the replay's own series around the turn. Items are created once and updated with
setData/setOpts (STYLE.md §6).

While the load slider is dragged the figures are drawn "live": data only (setData/setOpts on
the existing items), axis ranges that only grow (an axis whose range changes re-lays all its
tick labels: the costliest part of a frame), labels left as they are, and each axis painted
from a cached pixmap. The panel then draws the run once more in full, exactly as a fresh
panel would.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from audio.voice_playback import CHUNK_S, reply_schedule
from widgets.kit.lazy_menus import LazyMenuViewBox
from widgets.kit.page import compact_plot, marker_line, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen

S_TO_MS = 1e3
BEFORE_MS = 350.0  # shown before the user's last word: the end of the phrase and the load then
AFTER_REPLY_MS = 900.0  # shown of the reply after its first sample: its first chunks and stalls
BOOK_MS = (370.0, 400.0)  # the book's two measured voice runs: user stops -> first chunk
BACKGROUND_WINDOW_S = 3.0  # the background series kept around the turn (panning stays inside)
BOOK_ROOM = 0.3  # the histogram's room left of the book's band, as a share of the data's span (its label's)
SWIMLANE_TOP = 1.8  # the lanes' y range ends here: the silence text sits over the bracket at 0.6
# Live ranges change only when the data leaves them or fills less than 1/LIVE_SHRINK of them,
# and then span LIVE_GROWTH times the data: a drag from no load to saturation (silences from
# 0.4 s to a minute) changes each a few times, not at every frame.
LIVE_GROWTH = 2.0
LIVE_SHRINK = 4.0

# Stage name (core.voice) -> (中文, English, colour kind). Names not listed keep their own name.
STAGES = {
    "vad": ("VAD 端点", "VAD endpoint", "wait"),
    "asr": ("ASR 定稿", "ASR final", "ec"),
    "uplink": ("上行", "uplink", "arrival"),
    "queue": ("排队", "queue", "backlog"),
    "prefill": ("预填充", "prefill", "prefill"),
    "decode": ("首句解码", "first clause", "decode"),
    "tts": ("TTS 首包", "TTS first audio", "tool"),
    "network": ("下行", "downlink", "arrival"),
    "downlink": ("下行", "downlink", "arrival"),
    "buffer": ("抖动缓冲", "jitter buffer", "state"),
    "jitter_buffer": ("抖动缓冲", "jitter buffer", "state"),
    "device": ("设备", "device", "muted"),
    "speaker": ("设备", "device", "muted"),
}
REPLY_LANE = "回复播放 · reply"
AFTER_GAP = ("reply", "barge_in")  # core.voice spans after the silence gap: not lanes of the gap
ARRIVAL_LANES = ("downlink", "network", "buffer", "jitter_buffer")


def stage_names(name: str) -> tuple[str, str]:
    """(中文, English) of a stage."""
    zh, en, _ = STAGES.get(name, (name, name, "ink"))
    return zh, en


def stage_label(name: str) -> str:
    zh, en = stage_names(name)
    return zh if zh == en else f"{zh} · {en}"


def stage_kind(name: str) -> str:
    return STAGES.get(name, (name, name, "ink"))[2]


def ms_since(t, origin_s: float) -> np.ndarray:
    """Times on the replay's clock (s) as ms since origin_s (the user's last word)."""
    return (np.asarray(t, dtype=float) - origin_s) * S_TO_MS


def cache_axes(plot: pg.PlotItem, on: bool) -> None:
    """Axes (with their grid) painted from a pixmap while on: a live frame whose ranges hold
    still repaints its data, not every tick label. Off for the full draw, exports and
    screenshots, which then paint exactly as before."""
    mode = QtWidgets.QGraphicsItem.CacheMode
    for axis in plot.axes.values():
        axis["item"].setCacheMode(mode.DeviceCoordinateCache if on else mode.NoCache)


def live_range(now: tuple[float, float], need: tuple[float, float], low_pad: float = 0.0
               ) -> tuple[float, float] | None:
    """The range to set during a drag: None while need fits in now and fills enough of it;
    else from low_pad of need's span below its low end to LIVE_GROWTH spans above it (the
    ranges here grow upwards: time, counts, silences; low_pad for a low end that follows)."""
    span = need[1] - need[0]
    if need[0] >= now[0] and need[1] <= now[1] and span * LIVE_SHRINK >= now[1] - now[0]:
        return None
    return need[0] - low_pad * span, need[0] + LIVE_GROWTH * span


def set_live_range(plot: pg.PlotItem, axis: str, need: tuple[float, float], *views: pg.ViewBox,
                   low_pad: float = 0.0) -> None:
    """Set plot's x or y range if live_range says so, and bring the view boxes' transforms
    up to date at once: pyqtgraph defers that to the paint, whose items then ask for a second
    paint of the whole view."""
    now = plot.viewRange()[0 if axis == "x" else 1]
    new = live_range((now[0], now[1]), need, low_pad)
    if new is None:
        return
    (plot.setXRange if axis == "x" else plot.setYRange)(*new, padding=0)
    for vb in (plot.vb, *views):
        vb.prepareForPaint()


class TurnTimeline(QtCore.QObject):
    """Two cards on one x axis: the background (queue, KV) above, the turn's lanes below."""

    def __init__(self, deferred: bool = False):
        """deferred=True builds nothing yet: the caller runs build_steps() one at a time
        (a panel's first visit spreads them over turns of the event loop)."""
        super().__init__()
        self.lanes: list[str] = []
        self.lane_texts: list[pg.TextItem] = []  # each stage's length beside its bar (rebuilt only with the lanes)
        self.user_word_s = 0.0  # the shown turn's user's last word on the replay clock
        if not deferred:
            for step in self.build_steps():
                step()

    def build_steps(self) -> list:
        """The two cards, one a step."""
        return [self._build_background, self._build_swimlane]

    # ---- construction -------------------------------------------------------------
    def _build_background(self) -> None:
        # No grid above the swimlane: its x grid serves both (the axes paint grids, a drag repaints often).
        self.background = compact_plot(PlotCard("背景负载 · Background load", "排队请求数(左)与 KV 占用 %(右) · "
                                                "waiting requests (left), KV in use (right)"), 96, live=True)
        self.background.setMaximumHeight(170)
        p = self.background.plot
        p.setLabel("left", "排队 queue")
        p.getAxis("bottom").setStyle(showValues=False)
        p.setMouseEnabled(y=False)
        self.queue_curve = self.background.add_curve(
            "queue", pen=pen("backlog", 1.5), fillLevel=0, brush=brush("backlog", 60), stepMode="right")
        # KV in use on its own right axis (percent of the pool): a second view box on the same x.
        p.showAxis("right")
        p.getAxis("right").setLabel("KV %")
        self.kv_view = LazyMenuViewBox()  # its menu at the first right-click (widgets/kit/lazy_menus.py)
        self.kv_view.setMouseEnabled(x=False, y=False)
        p.scene().addItem(self.kv_view)
        p.getAxis("right").linkToView(self.kv_view)
        self.kv_view.setXLink(p)
        self.kv_view.setYRange(0, 100, padding=0.02)
        self.kv_curve = pg.PlotDataItem([], [], pen=pen("state", 2))
        self.kv_view.addItem(self.kv_curve)
        p.vb.sigResized.connect(self._sync_kv_view)
        self.bg_now = marker_line(p, "cursor", label=None)
        self.bg_now.setValue(0.0)

    def _sync_kv_view(self) -> None:
        self.kv_view.setGeometry(self.background.plot.vb.sceneBoundingRect())
        self.kv_view.linkedViewChanged(self.background.plot.vb, self.kv_view.XAxis)

    def _build_swimlane(self) -> None:
        self.swimlane = PlotCard("一个轮次,一个时钟 · One turn on one clock",
                                 "x: 用户说完后的毫秒数 · ms since the user's last word")
        self.swimlane.plot_widget.setMinimumHeight(305)
        p = self.swimlane.plot
        p.setLabel("bottom", "time (ms)")
        p.setMouseEnabled(y=False)
        p.showGrid(x=True, y=False, alpha=0.15)
        self.background.plot.setXLink(p)
        # One clock, one left edge: the background's axis takes the lane labels' width, so the
        # two time axes line up on screen. Its own width would follow its tick labels, and an
        # axis narrows only by more than 10 px (pyqtgraph), so after a drag through a long queue
        # it would remember labels it no longer shows (and the link would shift its range).
        p.getAxis("left").geometryChanged.connect(self._align_left_axes)
        self.bars = pg.BarGraphItem(x0=[], x1=[], y=[], height=0.62, brush=brush("wait"), pen=pg.mkPen(None))
        p.addItem(self.bars)
        self.stall_bars = pg.BarGraphItem(x0=[], x1=[], y=[], height=0.62, brush=brush("backlog", 220), pen=pg.mkPen(None))
        p.addItem(self.stall_bars)
        self.arrivals = self.swimlane.add_curve("chunk_arrivals", pen=None, symbol="t1", symbolSize=7,
                                                symbolBrush=brush("arrival"), symbolPen=None)
        self.tokens = self.swimlane.add_curve("decode_tokens", pen=None, symbol="t1", symbolSize=7,
                                              symbolBrush=brush("decode"), symbolPen=None)
        self.silence_curve = self.swimlane.add_curve("silence", pen=pen("ink", 2))
        self.silence_text = plot_text(anchor=(0.5, 1.0), kind="ink", size=11)
        p.addItem(self.silence_text)
        self.user_line = marker_line(p, "muted", label="用户说完 user stops", position=0.3,
                                     anchors=[(-0.02, 0.5), (-0.02, 0.5)])
        self.user_line.setValue(0.0)
        self.audible_line = marker_line(p, "decode", label="首个声音 first sound", position=0.62,
                                        anchors=[(-0.02, 0.5), (-0.02, 0.5)])
        self.cursor = pg.InfiniteLine(angle=90, pen=pen("cursor", 2))
        self.cursor.setVisible(False)
        p.addItem(self.cursor)
        self.barge_line = marker_line(p, "backlog", label="插话 barge-in", position=0.1)
        self.barge_line.setVisible(False)

    def _align_left_axes(self) -> None:
        width = int(math.ceil(self.swimlane.plot.getAxis("left").width()))
        axis = self.background.plot.getAxis("left")
        if width > 0 and axis.fixedWidth != width:
            axis.setWidth(width)

    # ---- drawing --------------------------------------------------------------------
    def set_live(self, on: bool) -> None:
        for card in (self.background, self.swimlane):
            cache_axes(card.plot, on)

    def show_turn(self, turn: Any, background: Any, chunk_s: float = CHUNK_S, live: bool = False) -> dict:
        """Draw one core.voice Turn and the background around it. Returns what was drawn
        (lanes, bars in ms, the silence) for tests and captions."""
        drawn = self.show_lanes(turn, chunk_s, live)
        self.show_marks(turn, chunk_s)
        self.show_background(background, live)
        return drawn

    @staticmethod
    def _schedule(turn: Any, chunk_s: float) -> tuple[list, np.ndarray, np.ndarray, np.ndarray, float]:
        """The gap's spans (a lane each), the reply's chunk arrivals, hand-overs and stalls,
        and the user's last word: the turn's clock origin."""
        spans = [s for s in turn.spans if s.name not in AFTER_GAP]
        arrival, start, stall, user_word_s, _ = reply_schedule(turn, chunk_s)
        return spans, arrival, start, stall, user_word_s

    def show_lanes(self, turn: Any, chunk_s: float = CHUNK_S, live: bool = False) -> dict:
        """The swimlane of one turn, without its chunk and token marks (show_marks). live:
        data only; the x range changes seldom, the lane lengths and the silence's label are
        hidden until the full draw."""
        # The gap's stages get a lane each; the reply (the model's "reply" span) is the
        # last lane, drawn chunk by chunk with its stalls.
        spans, arrival, start, stall, user_word_s = self._schedule(turn, chunk_s)
        names = [s.name for s in spans]
        self.user_word_s = user_word_s
        if names + [REPLY_LANE] != self.lanes:
            self.lanes = names + [REPLY_LANE]
            ticks = [(-i, stage_label(n)) for i, n in enumerate(self.lanes)]
            self.swimlane.plot.getAxis("left").setTicks([ticks])
            # Room above the silence bracket for its text, whole even on a short plot.
            self.swimlane.plot.setYRange(-len(self.lanes) + 0.4, SWIMLANE_TOP, padding=0)
            for item in self.lane_texts:
                self.swimlane.plot.removeItem(item)
            self.lane_texts = [plot_text(anchor=(0, 0.5), kind="muted", size=8) for _ in names]
            for item in self.lane_texts:
                self.swimlane.plot.addItem(item)
        ms = lambda t: ms_since(t, user_word_s)  # noqa: E731
        x0 = ms([s.start_s for s in spans])
        x1 = ms([s.end_s for s in spans])
        y = -np.arange(len(spans), dtype=float)
        # The reply lane: chunks played back to back, stalls (underruns) in red between them.
        reply_y = -float(len(spans))
        # Chunks played back to back are one bar (a few bars to paint, not one per chunk).
        stalled = stall > 1e-9
        first = np.flatnonzero(np.concatenate([[True], stalled[1:]]))
        last = np.concatenate([first[1:] - 1, [start.size - 1]])
        played0, played1 = ms(start[first]), ms(start[last] + chunk_s)
        kinds = [stage_kind(n) for n in names]
        if not live:
            for item, a, b, yy in zip(self.lane_texts, x0, x1, y):
                item.setText(f"{b - a:.0f}")
                item.setPos(b + 8, yy)
        self.bars.setOpts(x0=np.concatenate([x0, played0]), x1=np.concatenate([x1, played1]),
                          y=np.concatenate([y, np.full(played0.size, reply_y)]),
                          brushes=[brush(k, 215) for k in kinds] + [brush("decode", 150)] * played0.size)
        self.stall_bars.setOpts(x0=ms(start[stalled] - stall[stalled]), x1=ms(start[stalled]),
                                y=np.full(int(stalled.sum()), reply_y))
        barge = getattr(turn, "barge_in", None)
        self.set_barge_in(None if barge is None else float(ms(barge.interrupt_s)))
        silence_ms = float(turn.silence_s) * S_TO_MS
        top = 0.55  # the bracket over the lanes: the gap the user hears
        self.silence_curve.setData([0.0, 0.0, silence_ms, silence_ms], [top - 0.15, top, top, top - 0.15])
        self.audible_line.setValue(silence_ms)
        x_range = (-BEFORE_MS, silence_ms + AFTER_REPLY_MS)
        if live:
            # Their numbers would lag the bars: hidden until the full draw puts them back.
            self.silence_text.setVisible(False)
            for item in self.lane_texts:
                item.setVisible(False)
            set_live_range(self.swimlane.plot, "x", x_range, self.background.plot.vb, self.kv_view)
        else:
            self.silence_text.setText(f"静默 silence {silence_ms:.0f} ms")
            self.silence_text.setPos(silence_ms / 2, top + 0.05)
            self.silence_text.setVisible(True)
            for item in self.lane_texts:
                item.setVisible(True)
            self.swimlane.plot.setXRange(*x_range, padding=0.01)
        return {"lanes": list(self.lanes), "x0_ms": x0, "x1_ms": x1, "silence_ms": silence_ms,
                "stalls": int(stalled.sum()), "chunks": int(arrival.size), "reply_x0_ms": played0,
                "tokens": len(getattr(turn, "token_times_s", ())), "user_word_s": user_word_s}

    def show_marks(self, turn: Any, chunk_s: float = CHUNK_S) -> None:
        """The reply's chunk arrivals and the decode's tokens, on their lanes (scatter items:
        the costliest data to set, so a drag sets them in a frame of their own)."""
        spans, arrival, _, _, user_word_s = self._schedule(turn, chunk_s)
        names = [s.name for s in spans]
        ms = lambda t: ms_since(t, user_word_s)  # noqa: E731
        # Chunk arrivals on the downlink's lane (they are its ends), or the buffer's.
        down = next((i for i, n in enumerate(names) if n in ARRIVAL_LANES), len(names) - 1)
        self.arrivals.setData(ms(arrival), np.full(arrival.size, -float(down) - 0.42))
        tokens = np.asarray(getattr(turn, "token_times_s", ()), dtype=float)
        lane = names.index("decode") if "decode" in names else None
        if lane is None or tokens.size == 0:
            self.tokens.setData([], [])
        else:
            self.tokens.setData(ms(tokens), np.full(tokens.size, -float(lane) - 0.42))

    def show_background(self, bg: Any, live: bool = False, turn: Any = None, chunk_s: float = CHUNK_S) -> None:
        """The background's queue and KV around the shown turn (turn, or the one show_lanes
        drew last). live: the queue's y range changes seldom."""
        user_word_s = self.user_word_s if turn is None else self._schedule(turn, chunk_s)[4]
        t = np.asarray(bg.series_t, dtype=float)
        if t.size == 0:
            self.queue_curve.setData([], [])
            self.kv_curve.setData([], [])
            return
        lo, hi = np.searchsorted(t, [user_word_s - BACKGROUND_WINDOW_S, user_word_s + BACKGROUND_WINDOW_S])
        lo, hi = max(0, lo - 1), min(t.size, hi + 1)
        x = (t[lo:hi] - user_word_s) * S_TO_MS
        self.queue_curve.setData(x, np.asarray(bg.series_waiting, dtype=float)[lo:hi])
        blocks = max(1, int(getattr(bg, "num_blocks", 0) or 1))
        self.kv_curve.setData(x, np.asarray(bg.series_kv_blocks, dtype=float)[lo:hi] * 100.0 / blocks)
        waiting = np.asarray(bg.series_waiting, dtype=float)[lo:hi]
        y_range = (0.0, max(4.0, float(waiting.max()) * 1.15 if waiting.size else 4.0))
        p = self.background.plot
        if live:
            set_live_range(p, "y", y_range)
        else:
            p.setYRange(*y_range, padding=0)

    def set_cursor(self, t_ms: float | None) -> None:
        """The playhead of 'Hear it' on the turn's clock (ms since the user's last word)."""
        self.cursor.setVisible(t_ms is not None)
        self.bg_now.setValue(0.0 if t_ms is None else t_ms)
        if t_ms is not None:
            self.cursor.setValue(t_ms)

    def set_barge_in(self, t_ms: float | None) -> None:
        self.barge_line.setVisible(t_ms is not None)
        if t_ms is not None:
            self.barge_line.setValue(t_ms)


class SilenceHistogram:
    """Silence gaps over all turns, with the p50, p95 and p99 the model reports."""

    MARKS = (("p50", "silence_p50_ms", "prefill"), ("p95", "silence_p95_ms", "decode"),
             ("p99", "silence_p99_ms", "backlog"))

    def __init__(self):
        self.card = PlotCard("静默分布 · Silence over all turns", "用户说完 → 第一个声音 · user stops → first sound")
        self.card.plot_widget.setMinimumHeight(230)
        self.card.setMaximumHeight(390)
        p = self.card.plot
        p.setLabel("bottom", "静默 silence (ms)")
        p.setLabel("left", "轮次 turns")
        p.setMouseEnabled(y=False)
        self.bars = self.card.add_curve("silence_hist", pen=pen("muted", 1), fillLevel=0, brush=brush("wait", 150),
                                        stepMode="center")
        self.lines = {}
        for i, (name, _, kind) in enumerate(self.MARKS):
            self.lines[name] = marker_line(p, kind, label=name, position=0.92 - 0.1 * i, width=2)
        self.book = pg.LinearRegionItem(BOOK_MS, movable=False, brush=brush("tool", 40), pen=pg.mkPen(None))
        p.addItem(self.book)
        self.book_text = plot_text(anchor=(1, 0), kind="tool", size=8, text="书 book\n370–400")
        p.addItem(self.book_text)

    def set_live(self, on: bool) -> None:
        cache_axes(self.card.plot, on)

    def show(self, silences_ms: np.ndarray, summary: dict, live: bool = False) -> dict:
        """live: the bars and the marks move, their labels and the ranges (which only grow)
        wait for the full draw."""
        s = np.asarray(silences_ms, dtype=float)
        s = s[np.isfinite(s)]
        lo, hi = (float(s.min()), float(s.max())) if s.size else (0.0, 1.0)
        width = max(5.0, (hi - lo) / 40)
        edges = np.arange(np.floor(lo / width) * width, hi + 2 * width, width)
        counts, edges = np.histogram(s, bins=edges)
        self.bars.setData(edges, counts)
        marks = {}
        for name, key, _ in self.MARKS:
            value = summary.get(key)
            line = self.lines[name]
            line.setVisible(value is not None)
            if value is not None:
                line.setValue(float(value))
                line.label.setVisible(not live)
                if not live:
                    line.label.setFormat(f"{name} {float(value):.0f}")
                marks[name] = float(value)
        top = max(1, int(counts.max()) if counts.size else 1)
        right = max(hi, marks.get("p99", hi)) + 2 * width
        left = min(lo, BOOK_MS[0])
        left -= BOOK_ROOM * (right - left)  # room for the book's label left of its band
        p = self.card.plot
        if live:
            set_live_range(p, "x", (left, right), low_pad=0.3)  # left follows right (room for the book's label)
            set_live_range(p, "y", (0.0, top * 1.15))
        else:
            self.book_text.setPos(BOOK_MS[0] - 2, top * 0.9)
            p.setXRange(left, right, padding=0.02)
            p.setYRange(0, top * 1.15, padding=0)
        return {"counts": counts, "edges": edges, "marks": marks}
