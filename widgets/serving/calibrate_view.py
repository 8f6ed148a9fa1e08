"""A calibration, drawn: the first run's measured TTFT and ITL against its replay before
and after the fit (one axis each, the three curves side by side), every run's metrics
before and after with their errors, and the fitted coefficients with their bands (p5-p95).
The numbers come from widgets/serving/calibrate_rows.py; curves are made once and set
with setData."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

from widgets.kit.page import ReflowLayout, caption
from widgets.kit.plot_card import PlotCard
from widgets.kit.theme import pen
from widgets.serving.calibrate_rows import COEF_COLUMNS, METRIC_COLUMNS, coefficient_rows, median_abs_error, metric_rows
from widgets.serving.replay_plots import narrow_header

PANELS = (("ttft", "TTFT 分布:实测、校准前、校准后 · TTFT: measured, before and after", "TTFT"),
          ("itl", "ITL 分布:实测、校准前、校准后 · ITL: measured, before and after", "ITL"))
CURVES = (("measured", "实测 measured", "ink", True), ("before", "校准前 before (defaults)", "wait", False),
          ("after", "校准后 after (fitted)", "prefill", False))


class CalibrationView(QtWidgets.QWidget):
    """Empty until its first calibration is drawn: its plots and tables are made then, not
    on the Serving panel's first visit (the view stays hidden until a calibration ends)."""

    def __init__(self, parent=None):
        super().__init__(parent)
        self._col = QtWidgets.QVBoxLayout(self)
        self._col.setContentsMargins(0, 0, 0, 0)
        self._col.setSpacing(6)
        self.outcome = None

    def is_built(self) -> bool:
        """The plots and tables are made (at the first draw)."""
        return hasattr(self, "coefs")

    def _build(self) -> None:
        col = self._col
        self.summary = caption(name="calibrate_summary")
        self.summary.setProperty("role", None)
        col.addWidget(self.summary)
        plots = ReflowLayout(columns=2, min_column_em=24)
        self.cards: dict[str, PlotCard] = {}
        for key, title, axis in PANELS:
            card = narrow_header(PlotCard(title, "累积分布 · fraction of samples ≤ x (CDF)"))
            card.plot_widget.setMinimumHeight(220)
            card.plot_widget.setMaximumHeight(280)  # the tables below stay on a 720-pixel screen
            p = card.plot
            p.setLabel("left", "占比 · fraction")
            p.setLabel("bottom", f"{axis} (ms)")
            p.setYRange(0, 1.02, padding=0)
            p.setMouseEnabled(x=False, y=False)
            p.addLegend(offset=(-10, -10))  # bottom right: a CDF's curves leave it empty
            for name, label, kind, dashed in CURVES:
                card.add_curve(name, pen=pen(kind, 2.5, dashed=dashed), name=label)
            self.cards[key] = card
            plots.addWidget(card)
        col.addLayout(plots)
        tables = ReflowLayout(columns=2, min_column_em=26, spacing=10)
        self.metrics = _table(METRIC_COLUMNS, "calibrate_metrics")
        self.coefs = _table(COEF_COLUMNS, "calibrate_coefficients")
        self.frozen = caption(name="calibrate_frozen")  # the keys kept at their defaults, and why
        for title, table in (("每个实测结果的指标 (ms) · each run's metrics (ms)", self.metrics),
                             ("拟合的系数与区间 (p5–p95) · fitted coefficients and their bands (p5–p95)", self.coefs)):
            box = QtWidgets.QWidget()
            inner = QtWidgets.QVBoxLayout(box)
            inner.setContentsMargins(0, 0, 0, 0)
            head = QtWidgets.QLabel(f"<b>{title}</b>")
            head.setWordWrap(True)
            inner.addWidget(head)
            inner.addWidget(table)
            if table is self.coefs:
                inner.addWidget(self.frozen)
            inner.addStretch(1)
            tables.addWidget(box)
        col.addLayout(tables)

    def draw(self, outcome) -> None:
        """Draw a widgets.serving.calibrate.Outcome."""
        if not self.is_built():
            self._build()
        self.outcome = outcome
        cal, fig = outcome.calibration, outcome.figure
        for key, card in self.cards.items():
            card.setVisible(fig is not None)
            if fig is None:
                continue
            panel = getattr(fig, key)
            for name, curve in card.curves.items():
                c = panel[name]
                curve.setData(c.x_ms, c.y, stepMode=None)
            lo, hi = fig.x_range(key)
            card.plot.setXRange(lo, hi, padding=0.01)
            n = f"{panel['measured'].n:,}"
            card.set_subtitle(f"第一个实测结果 {n} 个样本的累积分布 · {fig.run}: CDF of {n} measured samples")
        _fill(self.metrics, metric_rows(cal.per_run))
        fitted = tuple(getattr(cal, "fit_keys", ())) or tuple(cal.bands)
        shown = {k: cal.coefficients[k] for k in fitted if k in cal.coefficients}  # the fit's order
        shown.update((k, v) for k, v in cal.coefficients.items() if float(v) != float(cal.defaults.get(k, v)))
        _fill(self.coefs, coefficient_rows(cal.defaults, shown, cal.bands))
        frozen = dict(getattr(cal, "frozen", None) or {})
        self.frozen.setText(f"未拟合、保留默认值的系数 {len(frozen)} 个(原因见提示) · kept at their defaults: "
                            + ", ".join(frozen) if frozen else "")
        self.frozen.setToolTip("\n".join(f"{k}: {why}" for k, why in frozen.items()))
        before, after = median_abs_error(cal.per_run, "before"), median_abs_error(cal.per_run, "after")
        runs = len(cal.per_run)
        zh = f"{runs} 个实测结果各指标的中位 |误差|:校准前 {_p(before)},校准后 {_p(after)}"
        en = f"median |error| over {runs} runs' metrics: {_p(before)} before, {_p(after)} after"
        loo = [float(e["median_abs_error_pct"]) for e in getattr(cal, "loo", None) or ()]
        if loo:
            zh += f";留一法最差 {max(loo):.1f}%"
            en += f"; leave-one-run-out worst {max(loo):.1f}%"
        text = f"{zh} · {en}"
        self.summary.setText(f"<b>{text}</b>")


def _p(value) -> str:
    return "—" if value is None else f"{value:.1f}%"


def _table(columns, name: str) -> QtWidgets.QTableWidget:
    table = QtWidgets.QTableWidget(0, len(columns))
    table.setObjectName(name)
    table.setHorizontalHeaderLabels(list(columns))
    table.setEditTriggers(QtWidgets.QAbstractItemView.EditTrigger.NoEditTriggers)
    table.horizontalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.Stretch)
    table.verticalHeader().setSectionResizeMode(QtWidgets.QHeaderView.ResizeMode.ResizeToContents)
    table.setVerticalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    table.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    return table


def _fill(table: QtWidgets.QTableWidget, rows) -> None:
    """rows of (label, cells), every row whole (the table as tall as its rows)."""
    table.setRowCount(len(rows))
    table.setVerticalHeaderLabels([label for label, _ in rows])
    for r, (_, cells) in enumerate(rows):
        for c, text in enumerate(cells):
            item = QtWidgets.QTableWidgetItem(text)
            item.setTextAlignment(QtCore.Qt.AlignmentFlag.AlignRight | QtCore.Qt.AlignmentFlag.AlignVCenter)
            table.setItem(r, c, item)
    height = table.horizontalHeader().sizeHint().height() + sum(table.rowHeight(r) for r in range(len(rows)))
    table.setFixedHeight(height + 2 * table.frameWidth() + 2)
