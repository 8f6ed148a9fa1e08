"""The RL tab's split sweep: the loop on screen with its pool split every way between
rollout and trainer cards, as `lab sweep rl` runs it (core/rl/sweep.py's split_sweep, on the
job runner): step time against rollout cards, the split on screen and the best one marked,
and the command that runs the same sweep."""
from __future__ import annotations

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from widgets.kit.page import column
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen
from widgets.training.rl_loop_view import FitReadout


class SplitView(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.result: dict | None = None
        self.card = PlotCard("划分扫描,固定卡池 · rollout/trainer split of a fixed pool", "<code>lab sweep rl</code>",
                             illustrative=True)
        p = self.plot = self.card.plot
        p.setMouseEnabled(x=False, y=False)
        p.setLabel("bottom", "生成卡数 rollout cards")
        p.setLabel("left", "每步时间 (s) · step time (s)")
        self.curve = self.card.add_curve("step_time", pen=pen("decode", 2), symbol="o", symbolSize=7,
                                         symbolBrush=brush("decode"), symbolPen=pen("paper", 1))
        self.best = pg.ScatterPlotItem(size=13, brush=brush("backlog"), pen=pen("paper", 1))
        self.best.setZValue(10)
        p.addItem(self.best)
        self.current = pg.InfiniteLine(angle=90, pen=pen("muted", 1.2, dashed=True))
        p.addItem(self.current)
        self.card.plot_widget.setMinimumHeight(180)
        self.card.setMaximumHeight(280)
        self.readout = FitReadout()
        self.readout.setObjectName("rl_split_readout")
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(column(self.card, self.readout, stretch_last=False))

    def show_result(self, result: dict, rollout_cards: int) -> None:
        self.result = result
        rows = [r for r in result["rows"] if not r.get("error")]
        x = np.array([r["rollout_cards"] for r in rows], float)
        y = np.array([r["step_time_s"] for r in rows], float)
        self.curve.setData(x, y)
        best = result["best"]
        if best is not None:
            self.best.setData([best["rollout_cards"]], [best["step_time_s"]])
            self.readout.setText(
                f"最佳划分 {best['rollout_cards']} 张生成卡 + {best['trainer_cards']} 张训练卡,每步 "
                f"{best['step_time_s']:.1f} s · best split: {best['rollout_cards']} rollout + "
                f"{best['trainer_cards']} trainer cards, {best['step_time_s']:.1f} s a step")
        self.current.setValue(rollout_cards)
        if x.size:
            self.plot.setXRange(x.min() - 0.5, x.max() + 0.5, padding=0)
            self.plot.getAxis("bottom").setTicks([[(v, f"{v:g}") for v in x.tolist()]])  # whole cards only
        self.readout.setToolTip(result["command"])
