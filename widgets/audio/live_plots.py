"""图 3-18/3-19 with the live run over it, B(t) and the output waveform.

Every item is created once. The model is drawn from a core.audio.figures.TimelineFigure;
a live frame sets data only on items that have something new, only with what lies in
view (a page of a long stream), only on plots that are on screen, and never changes a
range or a label between page turns, so a frame repaints little and never re-lays out.
"""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from audio.live import LIVE_BAR_HALF, LiveTrace
from core.audio.figures import BAR_HALF, MOMENTS, Rows, TimelineFigure
from core.units import MS
from widgets.kit.page import compact_plot, narrow_headers, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import COLORS, brush, pen

TO_MS = 1.0 / MS
_MOMENT_STYLE = {"interrupt": ("打断", "ink"), "mute": ("设备静音", "backlog"),
                 "backend_stop": ("后端停止", "decode"), "release": ("释放缓冲/状态", "state")}
EMPTY = np.empty(0)
PAGE_LEVEL_POINTS = 300  # model B(t) over a page: 4 ms apart over 1.2 s (a chunk is 20 ms)
FIRST_PLAY_LABEL_AT = 0.6  # along its line: below the moments' labels (top), above the note (bottom right)


def _bars(item: pg.BarGraphItem, x0, x1, y, half: float) -> None:
    item.setOpts(x0=x0, x1=x1, y0=y - half, y1=y + half)


def _visible(widget: QtWidgets.QWidget) -> bool:
    """On screen: shown and not scrolled out of view."""
    return widget.isVisible() and not widget.visibleRegion().isEmpty()


class LivePlots(QtWidgets.QWidget):
    def __init__(self, parent=None, deferred: bool = False):
        """deferred=True builds nothing yet: the caller runs build_steps() one at a time
        (a panel's first visit spreads them over turns of the event loop)."""
        super().__init__(parent)
        self._col = col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(8)
        self.figure: TimelineFigure | None = None
        self.page: tuple[float, float] | None = None  # (left, right) s while a long stream is followed
        if not deferred:
            for step in self.build_steps():
                step()

    def build_steps(self) -> list:
        """图 3-18/3-19, then B(t) and the waveform under it."""
        return [self._build_timeline, self._build_lower]

    def _build_timeline(self) -> None:
        self.timeline_plot = narrow_headers(compact_plot(PlotCard(
            "图 3-18 / 3-19 · 抖动缓冲与打断",
            "圆点 = 到达 · 短竖线 = 原定播放 · 色条 = 实际播放 (model; live run drawn over it)"), 300, live=True))
        p = self.timeline_plot.plot
        p.setLabel("bottom", "time since chunk 0 began (ms)")
        p.setLabel("left", "chunk")
        p.invertY(True)
        p.setMouseEnabled(x=True, y=True)
        p.disableAutoRange()
        self.model_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("played", 150), pen=pen("played", 0.5))
        self.silenced_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("wait", 60), pen=pen("wait", 0.5))
        self.live_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("prefill", 170), pen=pen("prefill", 0.5))
        for item in (self.silenced_bars, self.model_bars, self.live_bars):
            p.addItem(item)
        add = self.timeline_plot.add_curve
        self.tick_curve = add("scheduled", pen=pen("ink", 1.6), connect="pairs", antialias=False)  # vertical ticks
        self.arrival_curve = add("arrival", pen=None, symbol="o", symbolSize=7, symbolBrush=brush("arrival", 230),
                                 symbolPen=pen("arrival", 1))
        self.live_arrival_curve = add("live_arrival", pen=None, symbol="o", symbolSize=10, symbolBrush=None,
                                      symbolPen=pen("prefill", 1.5))
        self.stall_curve = add("stall", pen=None, symbol="t", symbolSize=10, symbolBrush=brush("underrun", 230),
                               symbolPen=None)
        self.first_play_line = pg.InfiniteLine(angle=90, pen=pen("muted", 1, dashed=True), label="首播",
                                               # chunks run downwards: 0.97 was the bottom, under the note there
                                               labelOpts={"position": FIRST_PLAY_LABEL_AT, "color": COLORS["muted"]})
        p.addItem(self.first_play_line)
        self.now_line = pg.InfiniteLine(angle=90, pen=pen("cursor", 1.5))
        self.now_line.setVisible(False)
        p.addItem(self.now_line)
        self.moment_lines: dict[str, pg.InfiniteLine] = {}
        self.live_moment_lines: dict[str, pg.InfiniteLine] = {}
        for i, key in enumerate(MOMENTS):
            text, kind = _MOMENT_STYLE[key]
            line = pg.InfiniteLine(angle=90, pen=pen(kind, 1.2, dashed=True), label=text,
                                   labelOpts={"position": 0.05 + 0.09 * i, "color": COLORS[kind],
                                              "fill": (255, 255, 255, 200)})
            p.addItem(line)
            self.moment_lines[key] = line
            live = pg.InfiniteLine(angle=90, pen=pen(kind, 2.2))
            live.setVisible(False)
            p.addItem(live)
            self.live_moment_lines[key] = live
        self.timeline_note = plot_text(anchor=(1, 1), kind="muted", size=9)
        p.addItem(self.timeline_note)
        self._col.addWidget(self.timeline_plot, 3)

    def _build_lower(self) -> None:
        lower = QtWidgets.QHBoxLayout()
        lower.setSpacing(8)
        self.level_plot = narrow_headers(compact_plot(PlotCard(
            "缓冲余量 B(t) = A(t) − P(t)",
            "model (filled) · measured in the callback (thin line) · after the mute, arrived audio waits until release"),
            200, live=True))
        q = self.level_plot.plot
        q.setLabel("bottom", "time (ms)")
        q.setLabel("left", "buffered audio (ms)")
        q.disableAutoRange()
        add = self.level_plot.add_curve
        # Not antialiased: B(t) is steps and ramps, and an antialiased filled path is the
        # costliest thing a page turn repaints (25-50 ms here against 4 ms without).
        self.level_curve = add("model_B", pen=pen("state", 2), fillLevel=0, brush=brush("state", 50), antialias=False)
        self.target_curve = add("target", pen=pen("muted", 1.2, dashed=True), antialias=False)
        self.live_level_curve = add("measured_B", pen=pen("prefill", 1.2), antialias=False)
        self.underrun_curve = add("underrun", pen=None, symbol="t", symbolSize=12, symbolBrush=brush("underrun", 230),
                                  symbolPen=None)
        self.live_underrun_curve = add("live_underrun", pen=None, symbol="x", symbolSize=12, symbolPen=pen("underrun", 2))
        lower.addWidget(self.level_plot, 3)
        self.wave_plot = narrow_headers(compact_plot(PlotCard("输出波形 · live waveform",
                                                              "the last 100 ms the callback wrote"), 200, live=True))
        w = self.wave_plot.plot
        w.setLabel("bottom", "ms before now")
        w.setYRange(-0.6, 0.6, padding=0)
        w.setXRange(-100, 0, padding=0)
        w.setMouseEnabled(x=False, y=False)
        w.disableAutoRange()
        self.wave_curve = self.wave_plot.add_curve("wave", pen=pen("decode", 1), antialias=False)
        lower.addWidget(self.wave_plot, 2)
        self._col.addLayout(lower, 2)

    # ---- the model ------------------------------------------------------------------
    def draw_model(self, fig: TimelineFigure) -> None:
        """The whole stream as the model says (the view a stream returns to when it ends)."""
        self.figure = fig
        self.page = None
        self._draw_rows(fig.rows_all)
        self.first_play_line.setValue(fig.first_play_ms)
        for key, t in fig.moments_ms.items():
            self.moment_lines[key].setValue(t)
            self.moment_lines[key].setVisible(fig.moments_visible)
        self.timeline_note.setText(fig.note)
        self.timeline_note.setPos(*fig.note_pos)
        self.level_curve.setData(*fig.level)
        self.target_curve.setData(*fig.target)
        self.underrun_curve.setData(fig.underruns_ms, np.zeros(fig.underruns_ms.size))
        self.show_all()

    def show_all(self) -> None:
        fig = self.figure
        if fig is None:
            return
        if self.page is not None:  # back from a page of a long stream
            self.page = None
            self._draw_rows(fig.rows_all)
            self.level_curve.setData(*fig.level)
        self.timeline_plot.plot.setXRange(*fig.x_range, padding=0)
        self.timeline_plot.plot.setYRange(*fig.y_range, padding=0)
        self.level_plot.plot.setXRange(*fig.x_range, padding=0)
        self.level_plot.plot.setYRange(0, fig.level_y_max, padding=0)

    def show_model_moments(self, interrupt_s: float, mute_s: float, backend_stop_s: float, release_s: float) -> None:
        """The dashed lines move to what the model says of a live interrupt."""
        for key, t in zip(MOMENTS, (interrupt_s, mute_s, backend_stop_s, release_s)):
            self.moment_lines[key].setValue(t * TO_MS)
            self.moment_lines[key].setVisible(True)

    def _draw_rows(self, rows: Rows) -> None:
        _bars(self.model_bars, *rows.heard, BAR_HALF)
        _bars(self.silenced_bars, *rows.silenced, BAR_HALF)
        self.tick_curve.setData(*rows.ticks)
        self.arrival_curve.setData(*rows.arrivals)
        self.stall_curve.setData(*rows.stalls)

    # ---- the live run -------------------------------------------------------------------
    def reset_live(self) -> None:
        self.page = None
        for curve in (self.live_arrival_curve, self.live_level_curve, self.live_underrun_curve):
            curve.setData(EMPTY, EMPTY)
        _bars(self.live_bars, EMPTY, EMPTY, EMPTY, LIVE_BAR_HALF)
        for line in self.live_moment_lines.values():
            line.setVisible(False)
        self.now_line.setVisible(False)

    def follow(self, now_s: float, window_s: float) -> bool:
        """Turn the page when now leaves it (rather than scroll every frame: the axes and
        the model items change only then). True when the page turned."""
        fig = self.figure
        if fig is None or (self.page is not None and self.page[0] <= now_s < self.page[0] + 0.85 * window_s):
            return False
        left = max(0.0, now_s - window_s * 0.15)
        self.page = (left, left + window_s)
        lo, hi = fig.rows_between(left, left + window_s)
        self._draw_rows(fig.rows(lo, hi))
        self.level_curve.setData(*fig.level_between(left, left + window_s, PAGE_LEVEL_POINTS))
        x = (left * TO_MS, (left + window_s) * TO_MS)
        self.timeline_plot.plot.setXRange(*x, padding=0)
        self.timeline_plot.plot.setYRange(lo - 1, hi, padding=0)
        self.level_plot.plot.setXRange(*x, padding=0)
        return True

    def draw_moments(self, trace: LiveTrace, keys: tuple[str, ...]) -> None:
        for key in keys:
            self.live_moment_lines[key].setValue(trace.moments[key] * TO_MS)
            self.live_moment_lines[key].setVisible(True)

    def draw_timeline(self, trace: LiveTrace, now_s: float, new_events: bool) -> None:
        """Measured arrivals and playback in view, and now, if the plot is on screen."""
        if not _visible(self.timeline_plot):
            return
        if new_events:
            t0, t1 = self.page if self.page is not None else (-np.inf, np.inf)
            self.live_arrival_curve.setData(*trace.arrivals(t0, t1))
            _bars(self.live_bars, *trace.bars(t0, t1), LIVE_BAR_HALF)
        self.set_now(now_s)

    def draw_level(self, trace: LiveTrace, new_events: bool) -> None:
        """Measured B(t) in view and the underruns, if the plot is on screen."""
        if not _visible(self.level_plot):
            return
        t0, t1 = self.page if self.page is not None else (-np.inf, np.inf)
        if new_events:
            under = trace.underruns()
            self.live_underrun_curve.setData(under, np.zeros(under.size))
        self.live_level_curve.setData(*trace.level(t0, t1))

    def draw_wave(self, x: np.ndarray, y: np.ndarray) -> None:
        if _visible(self.wave_plot):
            self.wave_curve.setData(x, y)

    def set_now(self, now_s: float | None) -> None:
        if now_s is None:
            self.now_line.setVisible(False)
            return
        self.now_line.setValue(now_s * TO_MS)
        self.now_line.setVisible(True)
