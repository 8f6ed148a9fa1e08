"""The xPyD sweep's grid: one cell per (prefill instances, decode instances), its share of
requests meeting the SLOs and its cost per hour, tinted by whether it meets them; the best
cell outlined. No sweep runs here (widgets/plan/xpyd_card.py runs it).

The best cell is the capacity search's answer (core/serving/disagg/capacity.py,
pools=cheapest): among the cells whose attainment reaches the sweep's (90% unless given),
the lowest cost per hour, then fewer instances, then fewer prefill instances. The sweep's
own cheapest_meeting_slo ranks by cost per million output tokens instead (a setting that
finishes sooner spreads its hourly price over more tokens), so the two can differ; the
card names both."""
from __future__ import annotations

import math
from dataclasses import dataclass

from PySide6 import QtCore, QtWidgets

from widgets.kit.theme import COLORS


@dataclass(frozen=True)
class Cell:
    prefill: int
    decode: int
    attainment: float
    cost_per_hour: float | None
    meets: bool

    @property
    def label(self) -> str:
        return f"{self.prefill}P{self.decode}D"


def _number(value) -> float | None:
    try:
        v = float(value)
    except (TypeError, ValueError):
        return None
    return v if math.isfinite(v) else None


def cells(rows: list[dict], attainment: float) -> dict[tuple[int, int], Cell]:
    """(x, y) -> Cell of each finished row (a seeded sweep: the worst seed's attainment)."""
    out: dict[tuple[int, int], Cell] = {}
    for row in rows:
        x, y = int(row["param.prefill_replicas"]), int(row["param.decode_replicas"])
        got = _number(row.get("slo_attainment"))
        got = 0.0 if got is None else got
        if (x, y) in out:
            got = min(got, out[(x, y)].attainment)
        out[(x, y)] = Cell(x, y, got, _number(row.get("cost_per_hour")), got >= attainment)
    return out


def best(grid: dict[tuple[int, int], Cell]) -> Cell | None:
    """The capacity search's order over the cells that meet the SLOs (a cell without a
    price counts its instances, as the search counts its cards)."""
    meeting = [c for c in grid.values() if c.meets]
    if not meeting:
        return None
    return min(meeting, key=lambda c: (c.cost_per_hour if c.cost_per_hour is not None else c.prefill + c.decode,
                                       c.prefill + c.decode, c.prefill))


def cell_text(c: Cell) -> str:
    cost = f"${c.cost_per_hour:,.2f}/h" if c.cost_per_hour is not None else "-"
    return f"{c.attainment * 100:.0f}%\n{cost}"


class XpydGrid(QtWidgets.QWidget):
    """Rows: prefill instances; columns: decode instances."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.grid = QtWidgets.QGridLayout(self)
        self.grid.setContentsMargins(0, 0, 0, 0)
        self.grid.setSpacing(3)
        self.labels: dict[tuple[int, int], QtWidgets.QLabel] = {}
        self.best: Cell | None = None

    def set_axes(self, xs: list[int], ys: list[int]) -> None:
        """An empty grid over these counts (the sweep has just been parsed)."""
        while self.grid.count():
            item = self.grid.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        self.labels, self.best = {}, None
        corner = QtWidgets.QLabel("P \\ D")
        corner.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.grid.addWidget(corner, 0, 0)
        for j, y in enumerate(ys, start=1):
            head = QtWidgets.QLabel(f"{y}D")
            head.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
            head.setStyleSheet("font-weight: 600;")
            self.grid.addWidget(head, 0, j)
        for i, x in enumerate(xs, start=1):
            head = QtWidgets.QLabel(f"{x}P")
            head.setStyleSheet("font-weight: 600;")
            self.grid.addWidget(head, i, 0)
            for j, y in enumerate(ys, start=1):
                cell = QtWidgets.QLabel("…")
                cell.setObjectName(f"xpyd_{x}P{y}D")
                cell.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
                cell.setMinimumSize(64, 38)
                cell.setStyleSheet(self._style(None, False))
                self.grid.addWidget(cell, i, j)
                self.labels[(x, y)] = cell
        self.grid.setColumnStretch(0, 0)
        for j in range(1, len(ys) + 1):
            self.grid.setColumnStretch(j, 1)

    def draw(self, grid: dict[tuple[int, int], Cell], best_cell: Cell | None) -> None:
        self.best = best_cell
        for xy, label in self.labels.items():
            c = grid.get(xy)
            if c is None:
                continue
            label.setText(cell_text(c))
            label.setStyleSheet(self._style(c.meets, best_cell is not None and xy == (best_cell.prefill,
                                                                                     best_cell.decode)))

    @staticmethod
    def _style(meets: bool | None, is_best: bool) -> str:
        tint = COLORS["card"] if meets is None else COLORS["good_tint"] if meets else COLORS["bad_tint"]
        border = f"3px solid {COLORS['tool']}" if is_best else f"1px solid {COLORS['border']}"
        weight = "font-weight: 700;" if is_best else ""
        return f"background: {tint}; border: {border}; color: {COLORS['ink']}; padding: 2px; {weight}"
