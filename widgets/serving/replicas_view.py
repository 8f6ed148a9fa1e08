"""Replicas behind a router: one small plot per replica (its waiting queue and its KV use)
on a shared time axis, for each replay that ran with replicas > 1
(core.serving.replicas puts each replica's series in result.extras["replicas"]).
Hidden while no replay has replicas. At most MAX_SHOWN small plots; the rest are named
in the note (a sweep's 256 replicas are for the Plan panel, not for eyes)."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import pen
from widgets.serving.replay_plots import narrow_header

MAX_SHOWN = 8
PLOT_HEIGHT = 90


def replica_rows(figs: dict) -> list[tuple[str, dict, int]]:
    """(side, replica entry, pool blocks) for every replica of every side that has them."""
    rows = []
    for side, fig in sorted(figs.items()):
        result = getattr(fig, "result", None) if fig is not None else None
        extras = getattr(result, "extras", None) or {}
        for entry in extras.get("replicas") or []:
            rows.append((side, entry, int(entry.get("num_blocks") or 0)))
    return rows


class ReplicasView(PlotCard):
    def __init__(self, parent=None):
        super().__init__("副本 · Replicas", "每个副本的排队与 KV · each replica's queue and KV use", parent=parent)
        narrow_header(self)
        self.plot_widget.setMinimumHeight(0)
        self.plot_widget.hide()  # the card's own plot is replaced by the small multiples
        self.grid = pg.GraphicsLayoutWidget()
        self.grid.setMinimumHeight(PLOT_HEIGHT)
        self.layout().addWidget(self.grid)
        self.note = QtWidgets.QLabel("")
        self.note.setWordWrap(True)
        self.layout().addWidget(self.note)
        self.plots: list[pg.PlotItem] = []
        self.shown = 0
        self.setVisible(False)

    def draw(self, figs: dict) -> None:
        """figs: side -> core.serving.figures.ReplaySide (or None)."""
        rows = replica_rows(figs)
        self.grid.clear()
        self.plots = []
        self.setVisible(bool(rows))
        if not rows:
            self.shown = 0
            return
        first = None
        for k, (side, entry, blocks) in enumerate(rows[:MAX_SHOWN]):
            item = self.grid.addPlot(row=k, col=0)
            item.setMenuEnabled(False)
            item.showGrid(x=True, y=True, alpha=0.3)
            t = np.asarray(entry["series_t"], float)
            item.plot(t, np.asarray(entry["series_waiting"], float), pen=pen("muted", 1.5), stepMode=None)
            kv = np.asarray(entry["series_kv_blocks"], float) / blocks * 100 if blocks else np.zeros(t.size)
            item.plot(t, kv, pen=pen("state", 1.5))
            item.setTitle(f"{side} · replica {entry['replica']}: {entry['requests']:,} requests, "
                          f"{entry['preemptions']} preemptions", size="8pt")
            item.setLabel("left", "queue · KV %")
            if first is None:
                first = item
            else:
                item.setXLink(first)
            self.plots.append(item)
        self.shown = len(self.plots)
        self.grid.setMinimumHeight(PLOT_HEIGHT * self.shown)
        hidden = len(rows) - self.shown
        self.note.setText("灰: 排队请求数 · grey: waiting requests; 紫: KV 占用 % · purple: KV use %"
                          + (f"; 另有 {hidden} 个副本未画 · {hidden} more replicas not drawn" if hidden else ""))
