"""The sweep's rows as a table: the swept knobs and the seed first, then the metrics a plan
is read by. Rows are appended as they finish (beginInsertRows: the view keeps its scroll
and selection); the Pareto points are marked; a double click opens the row in Serving."""
from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.theme import COLORS
from widgets.plan import figures as F

# (column keys, header, scale): the metrics after the swept knobs, few and short, so the
# table fits its column without scrolling sideways (every metric is in results.csv).
METRICS = (
    (F.P99_TTFT, "p99 TTFT s", 1e-3),
    (("p99_tpot_ms",), "p99 TPOT ms", 1.0),
    (("slo_attainment",), "SLO %", 100.0),
    (F.COST, "$/M tok", 1.0),
    (F.MAX_RATE, "max req/s", 1.0),
)


class RowsModel(QtCore.QAbstractTableModel):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[dict] = []
        self.knobs: list[str] = []
        self.front: set[str] = set()  # point keys on the Pareto front
        self._columns: list[tuple[tuple[str, ...], str, float | None]] = []
        self.set_knobs([])

    def set_knobs(self, knobs: list[str]) -> None:
        """Start over with these swept keys as the leading columns."""
        self.beginResetModel()
        self.rows, self.knobs, self.front = [], list(knobs), set()
        self._columns = [((F.PARAM + k,), k, None) for k in self.knobs] + [(("seed",), "seed", None)] + list(METRICS)
        self.endResetModel()

    def append(self, row: dict) -> None:
        n = len(self.rows)
        self.beginInsertRows(QtCore.QModelIndex(), n, n)
        self.rows.append(row)
        self.endInsertRows()

    def set_front(self, keys: set[str]) -> None:
        if keys != self.front:
            self.front = set(keys)
            if self.rows:
                self.dataChanged.emit(self.index(0, 0), self.index(len(self.rows) - 1, len(self._columns) - 1))

    def headers(self) -> list[str]:
        return [h for _k, h, _s in self._columns]

    def cell(self, r: int, c: int) -> str:
        keys, _header, scale = self._columns[c]
        value = F.first(self.rows[r], keys)
        if scale is not None and value is not None:
            value = F.number(value) * scale
        return F.cell_text(value)

    def rowCount(self, parent=QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self._columns)

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            return self.cell(r, c)
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and c > len(self.knobs):
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role == QtCore.Qt.ItemDataRole.FontRole and F.point_key(self.rows[r]) in self.front:
            font = QtGui.QFont()
            font.setBold(True)
            return font
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and F.point_key(self.rows[r]) in self.front:
            return QtGui.QColor(COLORS["decode"])
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and self.rows[r].get("error"):
            return f"refused by the replay: {self.rows[r]['error']}"
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            mark = " (on the Pareto front)" if F.point_key(self.rows[r]) in self.front else ""
            return f"{self.cell(r, c)}{mark}: double-click to open this point in Serving"
        return None

    def headerData(self, section: int, orientation, role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if role == QtCore.Qt.ItemDataRole.DisplayRole and orientation == QtCore.Qt.Orientation.Horizontal:
            return self._columns[section][1]
        if role == QtCore.Qt.ItemDataRole.ToolTipRole and orientation == QtCore.Qt.Orientation.Horizontal:
            return ", ".join(self._columns[section][0])
        return None


class RowsTable(QtWidgets.QTableView):
    """The rows model in a view that follows new rows and opens a row on double click."""

    row_opened = QtCore.Signal(object)  # the row (dict)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setObjectName("plan_table")
        self.rows_model = RowsModel(self)
        self.setModel(self.rows_model)
        self.setAlternatingRowColors(True)
        self.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QtWidgets.QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.verticalHeader().setDefaultSectionSize(22)
        # Columns share the width (never a sideways scroll bar); a cut cell has its tooltip.
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
        self.horizontalHeader().setMinimumSectionSize(30)
        self.rows_model.modelReset.connect(self._fit_columns)
        self.rows_model.rowsInserted.connect(self._hide_empty_columns)

    def _fit_columns(self) -> None:
        """The swept knobs and the seed as wide as their names; the metrics share the rest."""
        header = self.horizontalHeader()
        for c in range(self.rows_model.columnCount()):
            mode = "ResizeToContents" if c <= len(self.rows_model.knobs) else "Stretch"
            header.setSectionResizeMode(c, getattr(QtWidgets.QHeaderView.ResizeMode, mode))
            self.setColumnHidden(c, mode == "Stretch")  # until a row has a value there
        self.setMinimumHeight(200)
        self.doubleClicked.connect(lambda index: self.row_opened.emit(self.rows_model.rows[index.row()]))

    def _hide_empty_columns(self, _parent=None, first: int = 0, last: int = -1) -> None:
        """A metric no row has (max rate without a search) takes no room: hidden until a row
        brings a value (only the new rows are looked at)."""
        model = self.rows_model
        for c in range(len(model.knobs) + 1, model.columnCount()):
            if self.isColumnHidden(c) and any(model.cell(r, c) not in ("", "—") for r in range(first, last + 1)):
                self.setColumnHidden(c, False)

    def select_key(self, key: str) -> None:
        """Select and show the row of point key (a point clicked in a plot)."""
        for r, row in enumerate(self.rows_model.rows):
            if F.point_key(row) == key:
                self.selectRow(r)
                self.scrollTo(self.rows_model.index(r, 0))
                return
