"""The book check in the window: every figure the book prints beside what the lab computes,
the same rows as `lab verify`."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from core.verify import VerifyRow, verify_all
from widgets.panels import PanelInfo
from widgets.theme import COLORS

COLUMNS = ("calculator", "book ref", "output", "book prints", "book value", "computed", "tolerance", "")


class VerifyPanel(QtWidgets.QWidget):
    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[VerifyRow] = []
        self._build_ui()
        self._connect()
        self.refresh()

    def _build_ui(self) -> None:
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        header = QtWidgets.QHBoxLayout()
        title = QtWidgets.QLabel("书即验收 · The book as the acceptance test")
        title.setProperty("role", "title")
        header.addWidget(title)
        header.addStretch(1)
        self.filter_edit = QtWidgets.QLineEdit()
        self.filter_edit.setPlaceholderText("filter: calculator, output or figure…")
        self.filter_edit.setClearButtonEnabled(True)
        self.filter_edit.setMinimumWidth(280)
        header.addWidget(self.filter_edit)
        self.rerun_button = QtWidgets.QPushButton("Run again")
        header.addWidget(self.rerun_button)
        layout.addLayout(header)
        self.summary = QtWidgets.QLabel()
        self.summary.setProperty("role", "caption")
        layout.addWidget(self.summary)
        self.table = QtWidgets.QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
        self.table.horizontalHeader().setSectionResizeMode(3, QtWidgets.QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.table, 1)

    def _connect(self) -> None:
        self.filter_edit.textChanged.connect(self._apply_filter)
        self.rerun_button.clicked.connect(self.refresh)

    def refresh(self) -> None:
        self.rows = verify_all()
        self.table.setRowCount(len(self.rows))
        for i, row in enumerate(self.rows):
            computed = row.computed_text
            book_value = row.book_text
            cells = (row.calculator, row.ref, row.output, row.printed + (" (derived)" if row.derived else ""),
                     book_value, computed, row.tolerance_text, "✓" if row.ok else "✗")
            for j, text in enumerate(cells):
                item = QtWidgets.QTableWidgetItem(text)
                if j in (4, 5, 6):
                    item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
                if j == 7:
                    item.setForeground(QtGui.QColor(COLORS["tool"] if row.ok else COLORS["backlog"]))
                if row.derived:
                    item.setToolTip("The book asks this but prints no number; the value follows from its own rule.")
                self.table.setItem(i, j, item)
        failed = sum(not r.ok for r in self.rows)
        derived = sum(r.derived for r in self.rows)
        calculators = len({r.calculator for r in self.rows})
        self.summary.setText(
            f"{len(self.rows) - failed} of {len(self.rows)} figures match across {calculators} calculators"
            f" · {derived} are derived (the book asks, prints no number)"
            + (f" · <span style='color:{COLORS['backlog']}'>{failed} MISMATCH</span>" if failed else ""))
        self._apply_filter(self.filter_edit.text())

    def _apply_filter(self, text: str) -> None:
        needle = text.strip().lower()
        for i, row in enumerate(self.rows):
            hay = f"{row.calculator} {row.output} {row.ref} {row.printed}".lower()
            self.table.setRowHidden(i, bool(needle) and needle not in hay)


PANEL = PanelInfo(key="verify", title="书即验收 · Book check", section="✓", order=99.0, factory=VerifyPanel)
