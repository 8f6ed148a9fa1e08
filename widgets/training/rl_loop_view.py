"""The RL loop's Gantt lanes (core/rl/gantt.py's figure): a lane per rollout replica, then
the trainer's; the replica everyone waits for outlined; a cursor the ▶ moves, the future
dimmed, and what runs at the cursor in a readout under the plot."""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from core.rl.gantt import KINDS, LoopFigure
from widgets.kit.page import Reflow, column, legend_chips
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, color, pen
from widgets.training.kit import FastBars, PlotLabels, Readout

# kind -> (theme colour, alpha): the tail is the generation's colour, faded.
KIND_BRUSH = {"generate": ("decode", 230), "tail": ("decode", 95), "wait": ("wait", 120), "reward": ("tool", 220),
              "reference": ("prefill", 220), "update": ("state", 220), "sync": ("sync", 220),
              "switch": ("wait", 220)}
LEGEND = (("decode", "生成 generating"), ("decode", "长尾 long tail (half the samples done)", "▒"),
          ("wait", "训练器等样本 the trainer waits for samples"),
          ("backlog", "大家在等的副本 the replica everyone waits for", "□"))


class FitReadout(Readout):
    """A readout whose text changes once per figure, not per frame (a loop's summary, the
    split's best): as tall as its text at its width, so a long summary in a narrow column
    or at F11's zoom is never cut. Its height changes only when its line count does."""

    def setText(self, text: str) -> None:
        super().setText(text)
        self._fit()

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self._fit()

    def changeEvent(self, event):
        super().changeEvent(event)  # a zoom: the text takes the new font
        if event.type() == QtCore.QEvent.Type.FontChange:
            self._fit()

    def _fit(self) -> None:
        self._doc.setTextWidth(max(1, self.width()))
        height = max(math.ceil(self._doc.size().height()), self.fontMetrics().height())
        if height != self.height():
            self.setFixedHeight(height)


class LoopView(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.figure: LoopFigure | None = None
        self.card = PlotCard("强化学习循环,生成经服务引擎 · RL loop, rollout through the serving engine",
                             "每个池一条泳道 · a lane per pool", illustrative=True)
        p = self.plot = self.card.plot
        p.setMouseEnabled(x=True, y=False)
        p.setLabel("bottom", "time (s)")
        self.bars: dict[str, FastBars] = {}
        for kind in KINDS:
            name, alpha = KIND_BRUSH[kind]
            self.bars[kind] = FastBars(brush(name, alpha))
            p.addItem(self.bars[kind])
        # The replica that ends last in each step: the lane everyone waits for.
        self.waited = pg.BarGraphItem(x0=[], y0=[], width=[], height=[], brush=pg.mkBrush(None),
                                      pen=pen("backlog", 2))
        self.waited.setZValue(5)
        p.addItem(self.waited)
        # Ink, not paper: a narrow update bar is thinner than its step number, which then
        # reads on the page around it as well as on the bar.
        self.labels = PlotLabels(color("ink"), size=8)
        self.labels.setZValue(10)
        p.addItem(self.labels)
        self.future = pg.LinearRegionItem(values=(0, 0), movable=False, brush=brush("paper", 150), pen=pg.mkPen(None))
        self.future.setZValue(20)
        p.addItem(self.future)
        self.cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        self.cursor.setZValue(30)
        p.addItem(self.cursor)
        self.card.plot_widget.setMinimumHeight(260)
        self.status = Readout(height=40)
        self.status.setObjectName("rl_loop_status")
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        chips = Reflow(*legend_chips(LEGEND), columns=len(LEGEND), natural=True, grow=-1, spacing=8)
        layout.addWidget(column(chips, self.card, self.status, stretch_last=False))

    def show_figure(self, fig: LoopFigure) -> None:
        self.figure = fig
        for kind, bars in fig.bars.items():
            self.bars[kind].set_bars(bars)
        w = fig.waited
        self.waited.setOpts(x0=w.x0, y0=w.y0, width=w.width, height=w.height)
        self.labels.set_labels(fig.labels)
        ticks = [(fig.lane_y(lane), label) for lane, label in zip(fig.lanes, fig.lane_labels)]
        self.plot.getAxis("left").setTicks([ticks])
        self.plot.setYRange(-0.6, len(fig.lanes) - 0.4, padding=0)
        self.plot.setXRange(0, fig.end_s, padding=0.01)

    def lane_count(self) -> int:
        return 0 if self.figure is None else len(self.figure.lanes)

    def set_time(self, t: float) -> None:
        fig = self.figure
        if fig is None:
            return
        self.cursor.setValue(t)
        self.future.setRegion((t, max(fig.end_s, t) * 1.05 + 1e-9))
        self.status.setText(fig.status_at(t))
