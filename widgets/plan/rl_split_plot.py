"""The RL split card's figures: time per step and GPU-hours per 1,000 steps against the
rollout cards of the split, one dot per finished point (the rest of the pool is the
trainer's), the fewest-GPU-hours split and the fastest one marked on both. No sweep runs
here (widgets/plan/rl_split_card.py runs it).

A curve a pool (the card may sweep a few). On one pool GPU-hours per 1,000 steps are the
pool's cards times the step time (times 1000/3600), so the two marks fall on the same
split; across pools they part: a small pool kept busy spends fewer GPU-hours, a large one
steps faster."""
from __future__ import annotations

import math

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from widgets.kit.page import ReflowLayout
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import COLORS, brush, pen

MAX_HEIGHT_PX = 300
POOL_KINDS = ("decode", "prefill", "state", "sync")  # a colour a pool, in the card's order
# (row column, title, left axis)
FIGURES = (("step_time_s", "每步时间 · time per step", "每步时间 (s) · step time (s)"),
           ("gpu_hours_per_1000_steps", "每千步 GPU 小时 · GPU-hours per 1,000 steps",
            "GPU 小时 · GPU-hours"))


def finished(rows: list[dict]) -> list[dict]:
    """The rows with a number for both figures, by rollout cards (a refused point is left out)."""
    ok = [r for r in rows if not r.get("error") and all(_finite(r.get(k)) for k, _t, _a in FIGURES)]
    return sorted(ok, key=lambda r: r["rollout_cards"])


def pool_of(row: dict) -> int:
    return int(row["rollout_cards"]) + int(row["trainer_cards"])


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
        self.curves: dict[tuple[str, int], pg.PlotDataItem] = {}  # (figure, pool) -> its curve
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
            # Fewest GPU-hours: a large square; fastest: a diamond inside it when they coincide.
            self.best_items[key] = pg.ScatterPlotItem(size=16, symbol="s", brush=brush("tool", 90),
                                                      pen=pen("tool", 2))
            self.fast_items[key] = pg.ScatterPlotItem(size=14, symbol="d", brush=brush("backlog"),
                                                      pen=pen("ink", 1))
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
        key_row = QtWidgets.QHBoxLayout()
        self.pools_title = QtWidgets.QLabel("卡池(张卡) · pools (cards)")
        self.pools_key = QtWidgets.QLabel("")  # a coloured dot and the pool's cards each: no words
        self.pools_key.setObjectName("rl_split_pools")
        self.pools_key.setTextFormat(QtCore.Qt.TextFormat.RichText)
        key_row.addWidget(self.pools_title)
        key_row.addWidget(self.pools_key)
        key_row.addStretch(1)
        layout.addLayout(key_row)
        self.pools: list[int] = []
        self.best: dict | None = None
        self.fastest: dict | None = None

    def set_pools(self, pools: list[int]) -> None:
        """A curve for each pool about to be swept (the earlier sweep's curves go)."""
        for (key, pool), curve in self.curves.items():
            self.cards[key].plot.removeItem(curve)
            self.cards[key].curves.pop(f"{key}_{pool}", None)  # nor in the card's export
        self.curves, self.pools = {}, [int(n) for n in pools]
        for i, pool in enumerate(self.pools):
            kind = POOL_KINDS[i % len(POOL_KINDS)]
            for key, _title, _axis in FIGURES:
                self.curves[(key, pool)] = self.cards[key].add_curve(
                    f"{key}_{pool}", pen=pen(kind, 2), symbol="o", symbolSize=7, symbolBrush=brush(kind),
                    symbolPen=pen("paper", 1))
        self.pools_key.setText("&nbsp;&nbsp;".join(
            f"<span style='color:{COLORS[POOL_KINDS[i % len(POOL_KINDS)]]}'>●</span> {pool}"
            for i, pool in enumerate(self.pools)))
        self.draw([])

    def curve(self, key: str, pool: int) -> pg.PlotDataItem:
        return self.curves[(key, int(pool))]

    def draw(self, rows: list[dict]) -> None:
        ok = finished(rows)
        self.best, self.fastest = marks(ok)
        x = np.array([r["rollout_cards"] for r in ok], float)
        for (key, pool), curve in self.curves.items():
            mine = [r for r in ok if pool_of(r) == pool]
            curve.setData(np.array([r["rollout_cards"] for r in mine], float), np.array([r[key] for r in mine], float))
        x = np.unique(x)
        for key, _title, _axis in FIGURES:
            for item, row in ((self.best_items[key], self.best), (self.fast_items[key], self.fastest)):
                item.setData([] if row is None else [row["rollout_cards"]], [] if row is None else [row[key]])
            p = self.cards[key].plot
            if x.size:
                p.setXRange(x.min() - 0.5, x.max() + 0.5, padding=0)
                step = max(1, int(math.ceil(x.size / 12)))  # whole cards only, and never crowded
                p.getAxis("bottom").setTicks([[(v, f"{v:g}") for v in x.tolist()[::step]]])
            else:
                p.getAxis("bottom").setTicks(None)
