"""Memory per card through the step, stacked by kind against the card's capacity (图 3-20's
lower half). Drawn once per figure; a frame moves a cursor and a fade and nothing else."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from core.training.figures import StepFigure, StepFrame
from core.training.step import STATE_KINDS, STATE_LABELS
from core.units import format_seconds
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import COLORS, brush, pen
from widgets.training.kit import CachedLayer

KIND_COLORS = {kind: COLORS[kind] for kind in STATE_KINDS}  # one colour per kind, as on every panel


LEGEND_HEADROOM = 1.45  # the y range over the tallest stack


class MemoryView:
    """The memory plot's items, made once: the plot, then (a turn later) its items."""

    def __init__(self):
        self.plot = PlotCard("显存随时间 · memory per card, stacked by kind",
                             "parameter state resident; activations rise and fall")

    def add_items(self, x_link: pg.PlotItem | None = None) -> None:
        m = self.plot.plot
        m.setLabel("left", "GB")
        m.setLabel("bottom", "time in the step (s)")
        m.setMouseEnabled(x=True, y=False)
        if x_link is not None:
            m.setXLink(x_link)
        # Stacked: each kind drawn from 0 to its cumulative top, the top-most kind first.
        self.kind_curves: dict[str, pg.PlotDataItem] = {}
        for kind in reversed(STATE_KINDS):
            # Axis-aligned steps need no antialiasing; without it the fill is several times cheaper.
            c = self.plot.add_curve(kind, pen=pg.mkPen(KIND_COLORS[kind], width=1), fillLevel=0,
                                    brush=pg.mkBrush(KIND_COLORS[kind]), antialias=False, skipFiniteCheck=True)
            self.kind_curves[kind] = c
        # The stack does not change while the step plays: drawn once into a pixmap (the
        # top-most kind last), and a frame blits it.
        self.static_layer = CachedLayer([self.kind_curves[k] for k in reversed(STATE_KINDS)])
        self.static_layer.setZValue(5)
        m.addItem(self.static_layer)
        m.showGrid(x=False, y=False)  # grid lines would make each axis's cached picture as large as the plot
        # The theme's paper, not white: built in the dark theme its ink is light (white on white).
        legend = m.addLegend(offset=(8, 8), colCount=3, brush=brush("paper", 225))
        legend.setZValue(40)
        for kind in STATE_KINDS:
            legend.addItem(self.kind_curves[kind], STATE_LABELS[kind])
        self.capacity_line = pg.InfiniteLine(angle=0, pen=pen("backlog", 2, dashed=True), label="",
                                             labelOpts={"position": 0.985, "color": COLORS["backlog"],
                                                        "anchors": [(1, 1), (1, 1)]})
        self.capacity_line.setZValue(25)
        m.addItem(self.capacity_line)
        self.future = pg.LinearRegionItem(values=(0, 0), movable=False, brush=brush("paper", 185),
                                          pen=pg.mkPen(None))
        self.future.setZValue(20)
        m.addItem(self.future)
        self.cursor = pg.InfiniteLine(angle=90, pen=pen("backlog", 1.5))
        self.cursor.setZValue(30)
        m.addItem(self.cursor)
        # Axes (with their grid lines) do not change while the step plays.
        for name in ("left", "bottom"):
            m.getAxis(name).setCacheMode(QtWidgets.QGraphicsItem.CacheMode.DeviceCoordinateCache)

    def show_figure(self, fig: StepFigure) -> None:
        for kind, (x, y) in fig.memory.items():
            self.kind_curves[kind].setData(x, y)
        self.static_layer.invalidate()
        self.capacity_line.setVisible(fig.capacity_gb is not None)
        if fig.capacity_gb is not None:
            self.capacity_line.setValue(fig.capacity_gb)
            self.capacity_line.label.setFormat(fig.capacity_text)
        # Headroom above the stack for the two-row legend at the top left.
        self.plot.plot.setYRange(0, fig.memory_top_gb * LEGEND_HEADROOM, padding=0)
        self.plot.plot.setXRange(0, fig.duration_s, padding=0.01)

    def set_frame(self, frame: StepFrame, end: float) -> None:
        self.cursor.setValue(frame.t)
        self.future.setRegion((frame.t, end))


def readout_html(frame: StepFrame) -> str:
    ink = COLORS["backlog"] if frame.over else COLORS["ink"]
    over = f" &gt; {frame.capacity_gb:,.0f} GB capacity" if frame.over else ""
    return (f"<b>t = {format_seconds(frame.t)}</b> · {frame.alive_count} layer activations alive ({frame.who}) · "
            f"<span style='color:{ink}'>state {frame.state_gb:,.1f} GB + activations "
            f"{frame.activation_gb:,.1f} GB = <b>{frame.total_gb:,.1f} GB</b>{over}</span>")
