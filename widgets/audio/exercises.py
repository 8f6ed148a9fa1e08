"""The Audio panel's bottom row: 练习 3-5 (two buffers, one stream), the drain of a
trickle, and the speech frame loop. Cards are views of the AudioState's card models; the
plots draw core.audio.figures' figures."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from core.audio.figures import CompareFigure, DrainFigure
from core.audio.state import AudioState
from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.page import ReflowLayout, column, marker_line, narrow_headers, plot_text
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen


class Exercises(QtWidgets.QWidget):
    def __init__(self, state: AudioState, parent=None, deferred: bool = False):
        """deferred=True builds nothing yet: the caller runs build_steps() one at a time
        (a panel's first visit spreads them over turns of the event loop)."""
        super().__init__(parent)
        self._state = state
        self._row = ReflowLayout(self, columns=3)  # three to a row when they fit, fewer when not
        if not deferred:
            for step in self.build_steps():
                step()

    def build_steps(self) -> list:
        """The three cards, one a step."""
        return [self._build_compare, self._build_drain, self._build_frames]

    def _build_compare(self) -> None:
        state, row = self._state, self._row
        self.compare_card = narrow_headers(CalculatorCard(state.card("compare"), compact=True))
        self.compare_card.form.setVisible(False)  # its stream follows the main form; only A/B buffers are its own
        self.compare_plot = narrow_headers(PlotCard("练习 3-5 · 40 ms 与 60 ms 初始缓冲", "same stream, two buffers"))
        cp = self.compare_plot.plot
        cp.setLabel("bottom", "time (ms)")
        cp.invertY(True)
        cp.getAxis("left").setTicks([[(0, "A"), (1, "B")]])
        cp.disableAutoRange()
        self.compare_bars = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("played", 160), pen=pen("played", 0.5))
        self.compare_stalls = pg.BarGraphItem(x0=[], x1=[], y0=[], y1=[], brush=brush("underrun", 200), pen=None)
        cp.addItem(self.compare_bars)
        cp.addItem(self.compare_stalls)
        self.compare_labels = [plot_text(anchor=(0, 1), size=9) for _ in range(2)]
        for item in self.compare_labels:
            cp.addItem(item)
        row.addWidget(column(self.compare_plot, self.compare_card, stretch_last=False))

    def _build_drain(self) -> None:
        state, row = self._state, self._row
        self.drain_card = narrow_headers(CalculatorCard(state.card("drain"), compact=True))
        self.drain_plot = narrow_headers(PlotCard("到达跟不上播放,缓冲只是延后中断", "A(t), P(t) and B(t) for a steady trickle"))
        dp = self.drain_plot.plot
        dp.setLabel("bottom", "time (s)")
        dp.setLabel("left", "audio (s)")
        self.drain_arrived = self.drain_plot.add_curve("A", pen=pen("arrival", 2), name="A(t)")
        self.drain_played = self.drain_plot.add_curve("P", pen=pen("played", 2), name="P(t)")
        self.drain_level = self.drain_plot.add_curve("B", pen=pen("state", 2), fillLevel=0, brush=brush("state", 60))
        self.drain_line = marker_line(dp, "backlog", label="耗尽", position=0.9)
        row.addWidget(column(self.drain_plot, self.drain_card, stretch_last=False))

    def _build_frames(self) -> None:
        state, row = self._state, self._row
        self.frames_card = narrow_headers(CalculatorCard(state.card("frames"), compact=True))
        row.addWidget(column(self.frames_card, QtWidgets.QWidget()))

    def draw_compare(self, fig: CompareFigure) -> None:
        x0, x1, y0, y1 = fig.bars
        self.compare_bars.setOpts(x0=x0, x1=x1, y0=y0, y1=y1)
        sx0, sx1, sy0, sy1 = fig.stalls
        self.compare_stalls.setOpts(x0=sx0, x1=sx1, y0=sy0, y1=sy1)
        for item, (text, y) in zip(self.compare_labels, fig.labels):
            item.setText(text)
            item.setPos(0, y)
        self.compare_plot.plot.setXRange(*fig.x_range, padding=0)
        self.compare_plot.plot.setYRange(*fig.y_range, padding=0)

    def draw_drain(self, fig: DrainFigure) -> None:
        self.drain_arrived.setData(fig.t, fig.arrived)
        self.drain_played.setData(fig.t, fig.played)
        self.drain_level.setData(fig.t, fig.level)
        self.drain_line.setVisible(fig.dry_at_s is not None)
        if fig.dry_at_s is not None:
            self.drain_line.setValue(fig.dry_at_s)
            self.drain_line.label.setFormat(fig.dry_label)

