"""The book check in the window: every figure the book prints beside what the lab computes,
the same rows as `lab verify`.

A model/view table: `VerifyTableModel` holds the rows and is reset once per run; a
`VerifyFilterModel` (QSortFilterProxyModel) filters and sorts. The rows are computed on the
job runner ("Run again" too), so the window never waits on them. Column widths are sized
once, from the first rows, and are the user's to drag after that.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PySide6 import QtCore, QtGui, QtWidgets

from core.verify import VerifyRow, verify_all
from core.verify_state import VerifyState
from widgets.kit import i18n
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import Reflow, min_chars, title_label
from widgets.kit.panels import PanelInfo
from widgets.kit.theme import COLORS

COLUMNS = ("calculator", "book ref", "output", "book prints", "book value", "computed", "tolerance", "")
RIGHT = (4, 5, 6)  # numbers
MARK = 7
REF_COLUMN = COLUMNS.index("book ref")
STRETCH = 3  # "book prints" takes the width left over
MAX_COLUMN_CHARS = 36  # no column wider than this many average characters
STRETCH_MIN_CHARS = 14  # "book prints" keeps at least this much when the table is narrow
FIT_SHARE = 0.9  # a column fits this share of its texts; longer ones elide (tooltip has all)
JOB_KEY = "verify"
HAYSTACK_ROLE = QtCore.Qt.ItemDataRole.UserRole + 1  # what the filter matches
SORT_ROLE = QtCore.Qt.ItemDataRole.UserRole + 2  # numbers sort as numbers
DERIVED_TIP = "The book asks this but prints no number; the value follows from its own rule."


def row_cells(row: VerifyRow) -> tuple[str, ...]:
    return (row.calculator, row.ref, row.output, row.printed + (" (derived)" if row.derived else ""),
            row.book_text, row.computed_text, row.tolerance_text, "✓" if row.ok else "✗")


class VerifyTableModel(QtCore.QAbstractTableModel):
    """The verify rows as a table; `set_rows` replaces them in one reset."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.rows: list[VerifyRow] = []
        self._cells: list[tuple[str, ...]] = []
        self._haystacks: list[str] = []
        self._ok = QtGui.QColor(COLORS["tool"])
        self._bad = QtGui.QColor(COLORS["backlog"])
        i18n.notifier().language_changed.connect(self._on_language_changed)

    def _on_language_changed(self, _lang: str) -> None:
        self.headerDataChanged.emit(QtCore.Qt.Orientation.Horizontal, 0, len(COLUMNS) - 1)
        if self.rows:  # the book refs in the language shown
            self.dataChanged.emit(self.index(0, REF_COLUMN), self.index(len(self.rows) - 1, REF_COLUMN))

    def set_rows(self, rows: Sequence[VerifyRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self._cells = [row_cells(r) for r in self.rows]
        self._haystacks = [f"{r.calculator} {r.output} {r.ref} {r.printed}" for r in self.rows]
        self.endResetModel()

    def rowCount(self, parent=QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent=QtCore.QModelIndex()) -> int:
        return 0 if parent.isValid() else len(COLUMNS)

    def cell(self, row: int, column: int) -> str:
        return self._cells[row][column]

    def data(self, index: QtCore.QModelIndex, role: int = QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid():
            return None
        r, c = index.row(), index.column()
        if role == QtCore.Qt.ItemDataRole.DisplayRole:
            if c == REF_COLUMN and i18n.language() == "en":
                return i18n.book_refs_in_english(self._cells[r][c])  # "图 3-1" -> "Fig. 3-1"
            return self._cells[r][c]
        if role == QtCore.Qt.ItemDataRole.TextAlignmentRole and c in RIGHT:
            return int(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
        if role == QtCore.Qt.ItemDataRole.ForegroundRole and c == MARK:
            return self._ok if self.rows[r].ok else self._bad
        if role == QtCore.Qt.ItemDataRole.ToolTipRole:
            full = {4: self.rows[r].book_full, 5: self.rows[r].computed_full}  # all digits of a number
            text = full.get(c, "") if c in RIGHT else self._cells[r][c] if c != MARK else ""
            return "\n".join(t for t in (text, DERIVED_TIP if self.rows[r].derived else "") if t) or None
        if role == HAYSTACK_ROLE:
            return self._haystacks[r]
        if role == SORT_ROLE:
            return self._sort_key(r, c)
        return None

    def _sort_key(self, r: int, c: int) -> Any:
        row = self.rows[r]
        value = row.book_value if c == 4 else row.computed if c == 5 else None
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
        return self._cells[r][c]

    def headerData(self, section: int, orientation, role=QtCore.Qt.ItemDataRole.DisplayRole) -> Any:
        if role == QtCore.Qt.ItemDataRole.DisplayRole and orientation == QtCore.Qt.Orientation.Horizontal:
            return i18n.tr(COLUMNS[section])  # the column names in the chosen language
        return None


class VerifyFilterModel(QtCore.QSortFilterProxyModel):
    """Rows whose calculator, output, book ref or printed figure contain the filter text."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self.setFilterRole(HAYSTACK_ROLE)
        self.setFilterKeyColumn(0)
        self.setFilterCaseSensitivity(QtCore.Qt.CaseSensitivity.CaseInsensitive)
        self.setSortRole(SORT_ROLE)

    def set_text(self, text: str) -> None:
        self.setFilterFixedString(text.strip())


class VerifyPanel(QtWidgets.QWidget):
    rows_changed = QtCore.Signal()  # a run's rows are in the table

    def __init__(self, state: VerifyState | None = None, parent=None):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state or VerifyState()
        self.model = VerifyTableModel(self)
        self.proxy = VerifyFilterModel(self)
        self.proxy.setSourceModel(self.model)
        self._sized = False
        self._build_ui()
        self._connect()
        self._on_state_changed("view.filter", self.state.view("filter"))
        self._on_state_changed("view.sort_column", None)
        self.refresh()

    @property
    def rows(self) -> list[VerifyRow]:
        return self.model.rows

    def _build_ui(self) -> None:
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(16, 12, 16, 12)
        tools = QtWidgets.QWidget()
        row = QtWidgets.QHBoxLayout(tools)
        row.setContentsMargins(0, 0, 0, 0)
        self.busy = BusyBadge(JOB_KEY, owner=self, text="checking…")
        row.addWidget(self.busy)
        self.filter_edit = QtWidgets.QLineEdit()
        self.filter_edit.setPlaceholderText("filter: calculator, output or figure…")
        self.filter_edit.setClearButtonEnabled(True)
        min_chars(self.filter_edit, 28)
        row.addWidget(self.filter_edit, 1)
        self.rerun_button = QtWidgets.QPushButton("Run again")
        self.rerun_button.setToolTip("Compute every book figure again (on a worker; the window stays usable)")
        row.addWidget(self.rerun_button)
        # The filter beside the title when both fit, under it when not.
        layout.addWidget(Reflow(title_label("书即验收 · The book as the acceptance test"), tools, natural=True))
        self.summary = QtWidgets.QLabel("Checking every figure of the book…")
        self.summary.setProperty("role", "caption")
        self.summary.setWordWrap(True)
        layout.addWidget(self.summary)
        self.table = QtWidgets.QTableView()
        self.table.setModel(self.proxy)
        self.table.verticalHeader().setVisible(False)
        rows = self.table.verticalHeader()
        rows.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QtWidgets.QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setAlternatingRowColors(True)
        self.table.setWordWrap(False)
        columns = self.table.horizontalHeader()
        columns.setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Interactive)
        columns.setSectionResizeMode(STRETCH, QtWidgets.QHeaderView.ResizeMode.Stretch)
        columns.setSortIndicator(-1, QtCore.Qt.SortOrder.AscendingOrder)
        columns.setSortIndicatorShown(True)
        columns.setSectionsClickable(True)
        self.table.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)  # columns fit
        self.table.installEventFilter(self)  # font (zoom)
        self.table.viewport().installEventFilter(self)  # width
        layout.addWidget(self.table, 1)

    def _connect(self) -> None:
        self.filter_edit.textChanged.connect(lambda text: self.state.set_view("filter", text))
        self.table.horizontalHeader().sortIndicatorChanged.connect(self._on_sort_clicked)
        self.rerun_button.clicked.connect(self.refresh)
        self.state.changed.connect(self._on_state_changed)

    # ---- model -> widgets -----------------------------------------------------
    def _on_state_changed(self, path: str, _value: Any) -> None:
        if path == "view.filter":
            text = self.state.view("filter")
            if self.filter_edit.text() != text:
                blocker = QtCore.QSignalBlocker(self.filter_edit)
                self.filter_edit.setText(text)
                del blocker
            self.proxy.set_text(text)
        elif path in ("view.sort_column", "view.sort_descending"):
            column = self.state.view("sort_column")
            descending = column >= 0 and self.state.view("sort_descending")  # -1: the book's order
            order = QtCore.Qt.SortOrder.DescendingOrder if descending else QtCore.Qt.SortOrder.AscendingOrder
            header = self.table.horizontalHeader()
            blocker = QtCore.QSignalBlocker(header)
            header.setSortIndicator(column, order)
            del blocker
            self.proxy.sort(column, order)

    def _on_sort_clicked(self, column: int, order: QtCore.Qt.SortOrder) -> None:
        # A third click on the sorted column goes back to the book's order.
        if (column == self.state.view("sort_column") and self.state.view("sort_descending")
                and order == QtCore.Qt.SortOrder.AscendingOrder):
            column = -1
        self.state.set_view("sort_descending", column >= 0 and order == QtCore.Qt.SortOrder.DescendingOrder)
        self.state.set_view("sort_column", column)
        self._on_state_changed("view.sort_column", None)

    # ---- work -------------------------------------------------------------------
    def refresh(self) -> None:
        """Compute every book figure again on the job runner; the table updates in one reset."""
        jobs().submit(JOB_KEY, verify_all, done=self._on_rows, context=self)

    def _on_rows(self, rows: list[VerifyRow]) -> None:
        self.model.set_rows(rows)
        if not self._sized and rows:
            self._size_columns()
        failed = sum(not r.ok for r in rows)
        derived = sum(r.derived for r in rows)
        calculators = len({r.calculator for r in rows})
        self.summary.setText(
            f"{len(rows) - failed} of {len(rows)} figures match across {calculators} calculators"
            f" · {derived} are derived (the book asks, prints no number)"
            + (f" · <span style='color:{COLORS['backlog']}'>{failed} MISMATCH</span>" if failed else ""))
        self.rows_changed.emit()

    def _size_columns(self) -> None:
        """Each column as wide as most of its texts (FIT_SHARE, at most MAX_COLUMN_CHARS),
        all of them narrowed alike when the table is narrower than that (no sideways
        scrolling): measuring text is cheap, asking the view to fit its cells is not.
        Runs again when the table's width or font (the zoom) changes."""
        if not self.model.rowCount():
            return
        metrics = self.table.fontMetrics()
        header_metrics = self.table.horizontalHeader().fontMetrics()
        widths, headers = {}, {}
        for c, name in enumerate(COLUMNS):
            if c == STRETCH:
                continue
            texts = sorted(metrics.horizontalAdvance(self.model.cell(r, c)) for r in range(self.model.rowCount()))
            fit = texts[min(len(texts) - 1, int(FIT_SHARE * len(texts)))]
            headers[c] = header_metrics.horizontalAdvance(name) + 24
            widths[c] = min(max(fit + 16, headers[c]), max(MAX_COLUMN_CHARS * metrics.averageCharWidth(), headers[c]))
        # Narrow only what is wider than its header: every header stays whole.
        room = self.table.viewport().width() - STRETCH_MIN_CHARS * metrics.averageCharWidth() - sum(headers.values())
        excess = sum(widths.values()) - sum(headers.values())
        scale = min(1.0, max(room, 0) / excess) if excess > 0 else 1.0
        for c, width in widths.items():
            self.table.setColumnWidth(c, int(headers[c] + (width - headers[c]) * scale))
        self._sized = True

    def eventFilter(self, watched, event):
        if ((watched is self.table and event.type() == QtCore.QEvent.Type.FontChange)
                or (watched is self.table.viewport() and event.type() == QtCore.QEvent.Type.Resize)):
            self._size_columns()
        return super().eventFilter(watched, event)

    # ---- queries (tests, bench) --------------------------------------------------
    def visible_rows(self) -> list[int]:
        """Indexes into `rows` of the rows the filter shows, in the order shown."""
        return [self.proxy.mapToSource(self.proxy.index(i, 0)).row() for i in range(self.proxy.rowCount())]

    def closeEvent(self, event):
        jobs().cancel(JOB_KEY)
        self.state.changed.disconnect(self._on_state_changed)
        super().closeEvent(event)


PANEL = PanelInfo(key="verify", title="书即验收 · Book check", section="✓", order=99.0, factory=VerifyPanel)
