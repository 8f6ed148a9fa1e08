"""The RL split card's figures: time per step and GPU-hours per 1,000 steps against the
rollout cards of the split, one dot per finished point (the rest of the pool is the
trainer's), the fewest-GPU-hours split and the fastest one marked on both. No sweep runs
here (widgets/plan/rl_split_card.py runs it).

On one pool GPU-hours per 1,000 steps are the pool's cards times the step time (times
1000/3600), so the two marks fall on the same split: the second figure says what the
fastest split costs, not another answer."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtWidgets

from widgets.kit.page import ReflowLayout
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import brush, pen

MAX_HEIGHT_PX = 300
# (row column, title, left axis)
FIGURES = (("step_time_s", "每步时间 · time per step", "每步时间 (s) · step time (s)"),
           ("gpu_hours_per_1000_steps", "每千步 GPU 小时 · GPU-hours per 1,000 steps",
            "GPU 小时 · GPU-hours"))


def finished(rows: list[dict]) -> list[dict]:
    """The rows with a number for both figures, by rollout cards (a refused point is left out)."""
    ok = [r for r in rows if not r.get("error") and all(_finite(r.get(k)) for k, _t, _a in FIGURES)]
    return sorted(ok, key=lambda r: r["rollout_cards"])


def marks(rows: list[dict]) -> tuple[dict | None, dict | None]:
    """(fewest GPU-hours, fastest) as core/rl/sweep.py's summary picks them (the first of a tie)."""
    ok = [r for r in rows if not r.get("error") and all(_finite(r.get(k)) for k, _t, _a in FIGURES)]
    if not ok:
        return None, None
    return (min(ok, key=lambda r: r["gpu_hours_per_1000_steps"]), min(ok, key=lambda r: r["step_time_s"]))


def _finite(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


class SplitPlots(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.cards: dict[str, PlotCard] = {}
        self.curves: dict[str, pg.PlotDataItem] = {}
        self.best_items: dict[str, pg.ScatterPlotItem] = {}
        self.fast_items: dict[str, pg.ScatterPlotItem] = {}
        row = ReflowLayout(columns=2, min_column_em=16)
        for key, title, axis in FIGURES:
            card = PlotCard(title, "<code>lab sweep rl</code>", illustrative=True)
            card.setObjectName(f"rl_split_{key}")
            p = card.plot
            p.setMouseEnabled(x=False, y=False)
            p.setLabel("bottom", "生成卡数 · rollout cards")
            p.setLabel("left", axis)
            self.curves[key] = card.add_curve(key, pen=pen("decode", 2), symbol="o", symbolSize=7,
                                              symbolBrush=brush("decode"), symbolPen=pen("paper", 1))
            # Fewest GPU-hours: a large square; fastest: a diamond inside it when they coincide.
            self.best_items[key] = pg.ScatterPlotItem(size=16, symbol="s", brush=brush("tool", 90),
                                                      pen=pen("tool", 2))
            self.fast_items[key] = pg.ScatterPlotItem(size=10, symbol="d", brush=brush("backlog"),
                                                      pen=pen("paper", 1))
            for item, z in ((self.best_items[key], 9), (self.fast_items[key], 10)):
                item.setZValue(z)
                p.addItem(item)
            card.plot_widget.setMinimumHeight(170)
            card.setMaximumHeight(MAX_HEIGHT_PX)  # a figure of a few dots: the card's fields set the height
            self.cards[key] = card
            row.addWidget(card)
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addLayout(row)
        self.best: dict | None = None
        self.fastest: dict | None = None

    def clear(self) -> None:
        self.draw([])

    def draw(self, rows: list[dict]) -> None:
        ok = finished(rows)
        self.best, self.fastest = marks(ok)
        x = np.array([r["rollout_cards"] for r in ok], float)
        for key, _title, _axis in FIGURES:
            self.curves[key].setData(x, np.array([r[key] for r in ok], float))
            for item, row in ((self.best_items[key], self.best), (self.fast_items[key], self.fastest)):
                item.setData([] if row is None else [row["rollout_cards"]], [] if row is None else [row[key]])
            p = self.cards[key].plot
            if x.size:
                p.setXRange(x.min() - 0.5, x.max() + 0.5, padding=0)
                step = max(1, int(math.ceil(x.size / 12)))  # whole cards only, and never crowded
                p.getAxis("bottom").setTicks([[(v, f"{v:g}") for v in x.tolist()[::step]]])
            else:
                p.getAxis("bottom").setTicks(None)
