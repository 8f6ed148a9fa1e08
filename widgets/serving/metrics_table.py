"""The replays under vLLM `bench serve`'s names, under the plots: mean, median, p90 and
p99 of TTFT, TPOT, ITL and E2EL in ms for A and B, the throughputs, the prefix cache's
share, and goodput under the SLO fields. core.serving.figures.metrics_table computes the
table (on the job runner); this section draws it and binds the SLO fields to the state."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from core.registry import ParamError
from core.serving import figures as F
from core.serving.state import SLO_PARAMS, ServingState
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.page import ReflowLayout, fixed_lines
from widgets.kit.param_form import ParamField

TITLE = "vLLM 指标 · vLLM bench serve metrics (ms)"


class MetricsSection(QtWidgets.QWidget):
    drawn = QtCore.Signal(object)  # the table dict, once drawn

    def __init__(self, state: ServingState, key: str, parent=None):
        super().__init__(parent)
        self.state, self.key = state, key
        self._figures: dict | None = None
        col = QtWidgets.QVBoxLayout(self)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(4)
        # Title, the two SLO fields and the busy badge side by side when they fit, stacked
        # when the window is narrow or the zoom large (nothing scrolls sideways).
        head = ReflowLayout(columns=4, natural=True, grow=0, fill=False, spacing=8)
        title = QtWidgets.QLabel(f"<b>{TITLE}</b>")
        title.setWordWrap(True)
        title.setToolTip("Names and definitions of vllm/benchmarks/serve.py: percentiles interpolated linearly "
                         "(numpy's default); the book's p95 above is nearest-rank")
        head.addWidget(title)
        self.slo_fields: dict[str, ParamField] = {}
        for param in SLO_PARAMS:
            field = ParamField(param)
            field.label.setProperty("i18n_key", None)
            field.label.setText(f"{param.name[4:-3].upper()} 目标 · SLO {param.name[4:-3].upper()} (ms)")
            field.edited.connect(lambda name=param.name: self._on_slo_edited(name))
            self.slo_fields[param.name] = field
            head.addWidget(field)
        self.busy = BusyBadge(key, owner=self, text="指标 · metrics…")
        policy = self.busy.sizePolicy()
        policy.setRetainSizeWhenHidden(True)  # coming and going does not re-lay out the page
        self.busy.setSizePolicy(policy)
        head.addWidget(self.busy)
        col.addLayout(head)
        self.table = _table(len(F.VLLM_METRICS), 2 * len(F.VLLM_STATS), "vllm_metrics_table")
        self.table.setVerticalHeaderLabels([label for _, label in F.VLLM_METRICS])
        col.addWidget(self.table)
        self.totals = _table(2, len(F.TOTAL_COLUMNS), "vllm_totals_table")
        self.totals.setHorizontalHeaderLabels(list(F.TOTAL_COLUMNS))
        self.totals.setVerticalHeaderLabels(["A", "B"])
        col.addWidget(self.totals)
        self.note = QtWidgets.QLabel("")
        self.note.setObjectName("vllm_metrics_note")
        self.note.setProperty("role", "caption")
        self.note.setWordWrap(True)
        fixed_lines(self.note, 2)  # a new result does not change the page's height
        self.note.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        col.addWidget(self.note)
        self._fit_table()
        self.show_slos()

    def _fit_table(self) -> None:
        """Every row whole, no scroll bar."""
        for t in (self.table, self.totals):
            height = t.horizontalHeader().sizeHint().height() + sum(t.rowHeight(r) for r in range(t.rowCount()))
            t.setFixedHeight(height + 2 * t.frameWidth() + 2)

    def changeEvent(self, event):
        if event.type() == QtCore.QEvent.Type.FontChange:
            QtCore.QTimer.singleShot(0, self._fit_table)
        super().changeEvent(event)

    def _on_slo_edited(self, name: str) -> None:
        field = self.slo_fields[name]
        try:
            value = field.param.parse(field.raw())
            self.state.set_view(name, float(value))
        except ParamError as err:
            field.show_error(err.message)
            return
        field.show_error(None)

    def show_slos(self) -> None:
        for name, field in self.slo_fields.items():
            if not field.has_error:
                field.show_value(self.state.view(name))

    def submit(self, figures: dict | None = None) -> None:
        """Compute the table of these replay figures (or the last ones, for new SLOs) on the
        job runner; drawn when done."""
        self._figures = figures or self._figures
        if self._figures is None:
            return
        slo = (self.state.view("slo_ttft_ms"), self.state.view("slo_tpot_ms"))
        jobs().submit(self.key, F.metrics_table, self._figures, *slo, context=self, done=self.draw)

    def draw(self, table: dict) -> None:
        for widget, cells in ((self.table, table["cells"]), (self.totals, table["totals"])):
            widget.setUpdatesEnabled(False)
            for r, row in enumerate(cells):
                for c, text in enumerate(row):
                    widget.item(r, c).setText(text)
            widget.setUpdatesEnabled(True)
        self.table.setHorizontalHeaderLabels(table["headers"])
        self.note.setText(table["note"])
        self.drawn.emit(table)


def _table(rows: int, columns: int, name: str) -> QtWidgets.QTableWidget:
    """A read-only table of numbers, right-aligned, columns sharing the width."""
    table = QtWidgets.QTableWidget(rows, columns)
    table.setObjectName(name)
    table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
    table.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    for r in range(rows):
        for c in range(columns):
            item = QtWidgets.QTableWidgetItem("—")
            item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)
    return table
