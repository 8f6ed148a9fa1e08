"""The Voice panel's turn timeline: one turn's swimlane under the background load, on one
clock (the silence histogram is in histogram.py, the stage names in stages.py).

The x axis of both timeline plots is milliseconds since the user's last word (0 = the user
stopped speaking), so the silence gap reads off directly; the background's queue and KV
are the replay's own series around the turn. Items are created once and updated with
setData/setOpts (STYLE.md §6).

While the load slider is dragged the figures are drawn "live": data only (setData/setOpts on
the existing items), axis ranges that only grow and each axis painted from a cached pixmap
(live_ranges.py), labels left as they are. The panel then draws the run once more in full, exactly as a fresh
panel would.
"""
from __future__ import annotations

import math
from typing import Any

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore

from audio.voice_playback import CHUNK_S, reply_schedule
from widgets.kit.lazy_menus import LazyMenuViewBox
from widgets.kit.page import compact_plot, marker_line, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen
from widgets.voice.live_ranges import cache_axes, set_live_range
from widgets.voice.stages import AFTER_GAP, ARRIVAL_LANES, REPLY_LANE, S_TO_MS, ms_since, stage_kind, stage_label

BEFORE_MS = 350.0  # shown before the user's last word: the end of the phrase and the load then
AFTER_REPLY_MS = 900.0  # shown of the reply after its first sample: its first chunks and stalls
BACKGROUND_WINDOW_S = 3.0  # the background series kept around the turn (panning stays inside)
SWIMLANE_TOP = 1.8  # the lanes' y range ends here: the silence text sits over the bracket at 0.6


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
