"""The Plan panel's two figures: cost per million output tokens against p99 TTFT (every
finished point, the Pareto front drawn over them), and capacity against replicas once a
capacity search ran. Items are made once and fed with setData (STYLE.md §6); a click on a
point names its point key (`point_clicked`)."""
from __future__ import annotations

import math

import pyqtgraph as pg
from PySide6 import QtCore

from widgets.agents.kit import still_plot
from widgets.kit.log_axis import tidy_log_axis
from widgets.kit.page import marker_line, plot_text
from widgets.kit.theme import brush, pen
from widgets.plan import figures as F


def _dots(card, key: str, kind: str, size: float, alpha: int = 200) -> pg.PlotDataItem:
    """Symbols without a line as a PlotDataItem: it follows the plot's log mode (a bare
    ScatterPlotItem would not)."""
    return card.add_curve(key, pen=None, symbol="o", symbolSize=size, symbolBrush=brush(kind, alpha),
                          symbolPen=pen("paper", 1))


MAX_LABELS = 8  # front points labelled at most: more would hide the dots
# A front label's anchor: up and right of its dot; the dear dots' (on the right, near the
# SLO line) at their own height on their left, off the line.
RIGHT_OF, LEFT_OF = (-0.15, 1.1), (1.15, 0.5)
RIGHT_SHARE = 0.3  # dots in this right share of the points' x span take their label on their left


def _apart(xs: list[float], ys: list[float], most: int, gap: float = 0.08) -> list[int]:
    """Up to `most` indices of points (x, log y) at least `gap` apart as a share of the
    points' span, in order: a label for each, none printed over another."""
    if not xs:
        return []
    ly = [math.log10(max(y, 1e-9)) for y in ys]
    sx, sy = (max(xs) - min(xs)) or 1.0, (max(ly) - min(ly)) or 1.0
    kept: list[int] = []
    for i in range(len(xs)):
        if all(abs(xs[i] - xs[k]) / sx >= gap or abs(ly[i] - ly[k]) / sy >= gap for k in kept):
            kept.append(i)
    return kept[:most]


SUBTITLE = "每点一次回放;线:帕累托前沿;点击:在 §3.1.3 打开 · a dot per point · line: the Pareto front · click: open in Serving"


class PlanPlots(QtCore.QObject):
    """Holds both plot cards (`pareto_card`, `capacity_card`) and draws rows into them."""

    point_clicked = QtCore.Signal(str)  # point key

    def __init__(self, parent=None):
        super().__init__(parent)
        self.pareto_card = still_plot("成本与尾延迟 · cost vs p99 TTFT",
                                      SUBTITLE,
                                      "USD per million output tokens", "p99 TTFT (s)")
        self.pareto_card.setObjectName("plan_pareto")
        p = self.pareto_card.plot
        p.setMouseEnabled(x=True, y=True)  # zoom into a crowded front
        tidy_log_axis(p, "left")  # minor labels only where they fit (pyqtgraph's piled up)
        p.setLogMode(x=False, y=True)  # p99 TTFT spans an overloaded run's minutes to a second
        self.front_line = self.pareto_card.add_curve("front", pen=pen("decode", 2.5))
        self.points = _dots(self.pareto_card, "points", "prefill", 9, 150)
        self.front_points = _dots(self.pareto_card, "front_points", "decode", 13, 230)
        self.selected = self.pareto_card.add_curve("selected", pen=None, symbol="o", symbolSize=20,
                                                   symbolBrush=pg.mkBrush(None), symbolPen=pen("backlog", 2.5))
        for item in (self.points, self.front_points):
            item.sigPointsClicked.connect(self._on_clicked)
        # Labels of the front's points (made once, the extras hidden): which setting each is.
        self.front_labels = [plot_text(anchor=RIGHT_OF, kind="decode", size=9) for _ in range(MAX_LABELS)]
        for label in self.front_labels:
            p.addItem(label, ignoreBounds=True)
        # Its label at the left end: the front's points near the line are the dear ones, on the right.
        self.slo_line = marker_line(p, "backlog", vertical=False, label="TTFT SLO", position=0.03,
                                    anchors=((0, 1), (0, 1)))
        self.slo_line.setVisible(False)
        self.capacity_card = still_plot("容量与副本数 · capacity vs replicas",
                                        "max rate meeting the SLOs · line: best per replica count",
                                        "replicas", "max rate (requests/s)")
        self.capacity_card.setObjectName("plan_capacity")
        c = self.capacity_card.plot
        self.capacity_line = self.capacity_card.add_curve("best", pen=pen("tool", 2.5), symbol="o", symbolSize=10,
                                                          symbolBrush=brush("tool"), symbolPen=pen("paper", 1))
        self.capacity_points = _dots(self.capacity_card, "points", "state", 8, 140)
        self.capacity_points.sigPointsClicked.connect(self._on_clicked)
        self.capacity_text = plot_text(anchor=(0.5, 0.5), kind="muted", text="需容量搜索 · needs a search")
        c.addItem(self.capacity_text, ignoreBounds=True)
        self.capacity_text.setPos(0.5, 0.5)
        c.setXRange(0, 1)
        c.setYRange(0, 1)
        self.capacity_card.setVisible(False)  # until a search has points (draw)
        self.pareto: dict = F.pareto_figure([])
        self.capacity: dict = F.capacity_figure([])

    def draw(self, rows: list[dict], knobs: list[str] = ()) -> dict:
        """Draw every row, the front's points labelled with their knobs' values; returns the
        Pareto figure (the table marks its front)."""
        fig = self.pareto = F.pareto_figure(rows, knobs)
        shown = _apart(fig["front_x"], fig["front_y"], MAX_LABELS) if knobs else []
        xs = fig["x"] or [0.0]
        right = max(xs) - RIGHT_SHARE * ((max(xs) - min(xs)) or 1.0)
        for label, i in zip(self.front_labels, shown + [None] * MAX_LABELS):
            label.setVisible(i is not None)
            if i is not None:
                label.setText(fig["front_labels"][i])
                # Beside its dot, towards the plot's inside: a label right of the rightmost dot was cut.
                label.setAnchor(LEFT_OF if fig["front_x"][i] > right else RIGHT_OF)
                label.setPos(fig["front_x"][i], math.log10(max(fig["front_y"][i], 1e-9)))
        self.points.setData(x=fig["x"], y=fig["y"], data=fig["keys"])
        self.front_points.setData(x=fig["front_x"], y=fig["front_y"], data=fig["front_keys"])
        self.front_line.setData(fig["front_x"], fig["front_y"])
        n, front = len(fig["x"]), len(fig["front_x"])
        zh, en = ("(标注按表格列序)", " (labels: the table's knobs)") if knobs and front else ("", "")
        self.pareto_card.set_subtitle(f"{n} 个点,前沿 {front} 个{zh} · {n} points, {front} on the front{en} · "
                                      "click: open in Serving"
                                      if n else SUBTITLE)
        cap = self.capacity = F.capacity_figure(rows)
        self.capacity_points.setData(x=cap["x"], y=cap["y"], data=cap["keys"])
        self.capacity_line.setData(cap["best_x"], cap["best_y"])
        self.capacity_text.setVisible(not cap["x"])
        # An empty figure says nothing: the card shows once a capacity search has points.
        self.capacity_card.setVisible(bool(cap["x"]))
        if cap["x"]:
            self.capacity_card.plot.enableAutoRange()
        return fig

    def set_slo_ttft_ms(self, slo_ms: float) -> None:
        """A dashed line at the TTFT SLO (the requests' target, beside their p99); none when NaN."""
        shown = math.isfinite(slo_ms) and slo_ms > 0
        self.slo_line.setVisible(shown)
        if shown:
            self.slo_line.setValue(math.log10(slo_ms / 1000.0))

    def select(self, key: str) -> None:
        """Ring the point of key (clicked here or chosen in the table)."""
        keys = self.pareto["keys"]
        if key in keys:
            i = keys.index(key)
            self.selected.setData(x=[self.pareto["x"][i]], y=[self.pareto["y"][i]])
        else:
            self.selected.setData(x=[], y=[])

    def _on_clicked(self, _item, points, *_event) -> None:
        if len(points):
            key = points[0].data()
            self.select(key)
            self.point_clicked.emit(str(key))
