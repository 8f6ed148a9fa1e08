"""Plan at scale (issue 12): sweep the serving replay over knobs, seeds and SLOs, and read
the plan off the results as they stream in: a table of every finished point, cost per
million output tokens against p99 TTFT with the Pareto front, and capacity against
replicas when a capacity search ran. A point (a click on a dot, a double click on a row)
opens in the Serving panel's replay A.

The sweep is core.sweep.run.run_sweep, the same one `lab sweep serving` runs, on the job
runner (widgets/plan/runner.py): a local process pool or a Ray cluster does the points, the
GUI thread only draws the rows it is handed. The engine and the cluster address are kept
in the window's settings. The page opens on a small sweep of the book's 9:1→1:9 run."""
from __future__ import annotations

import math
import os

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.rl.plan_state import PlanState
from widgets.kit.lifetime import free_on_close
from widgets.kit.page import ReflowLayout, caption, page_header, scroll_page
from widgets.kit.panels import PanelInfo
from widgets.plan import figures as F
from widgets.plan.form import SweepForm
from widgets.plan.open_point import open_in_serving
from widgets.plan.plots import PlanPlots
from widgets.plan.rl_split_card import attach as attach_rl_split
from widgets.plan.runner import SweepRunner
from widgets.plan.table import RowsTable
from widgets.plan.xpyd_card import attach as attach_xpyd

LEAD = ("规划问题:多少张卡、什么引擎设置,能在 SLO 内服务这份流量,花多少钱?每个点是一次完整回放;"
        "结果边算边到 · How many cards, with which settings, serve this traffic within the SLO, at what cost? "
        "Each point is one full replay; results stream in as they finish.")
LEGEND = (("prefill", "扫描点 · a point"), ("decode", "帕累托前沿 · Pareto front"),
          ("tool", "容量 · capacity"))
# The sweep the page opens on: in the calling thread's job, no pool to start.
FIRST_ENGINE = "inprocess"
REDRAW_MS = 100  # figures follow streaming rows at most this often (each redraw looks at every row)
WIDGET_SIZE_MAX = (1 << 24) - 1  # Qt's QWIDGETSIZE_MAX (not exported by PySide6)
BOTTOM_MARGIN_PX = 16  # the page's own bottom margin
FIGURE_COLUMN_EM = 18  # a scatter plot stays readable down to about this many line heights


class PlanPanel(QtWidgets.QWidget):
    """The Plan panel. `settings` (get/set of values, the window's) keeps the engine; with
    none the panel uses its window's when it is shown."""

    point_opened = QtCore.Signal(object)  # {"values": replay values, "row": the row}: a point to open in Serving

    def __init__(self, state=None, parent=None, settings=None, first_sweep: bool = True):
        super().__init__(parent)
        free_on_close(self)  # a closed panel is freed (widgets/kit/lifetime.py)
        self.state = state if state is not None else PlanState()  # the sweep as written; the rows are its result
        self._settings = settings
        self.runner = SweepRunner(self)
        self.summary: dict | None = None
        self._scroll = None
        self._first_sweep = first_sweep
        self._started_once = False
        self._build_ui()
        self._connect()
        self.form.bind_state(self.state)
        if settings is not None:
            self.form.bind_settings(settings)

    # ---- construction -------------------------------------------------------------
    def _build_ui(self) -> None:
        layout = scroll_page(self, "")
        layout.addWidget(page_header("规划:成本、尾延迟与容量 · Plan at scale", LEGEND, LEAD))
        self.form = SweepForm()
        self.plots = PlanPlots(self)
        self.table = RowsTable()
        self.summary_label = caption("", name="plan_summary")
        self.summary_label.setStyleSheet("font-weight: 600;")
        self.setting_label = caption("", name="plan_cheapest")
        self.setting_label.setTextFormat(QtCore.Qt.TextFormat.RichText)
        table_card = QtWidgets.QFrame()
        table_card.setProperty("role", "card")
        box = QtWidgets.QVBoxLayout(table_card)
        box.setContentsMargins(8, 6, 8, 6)
        heading = QtWidgets.QLabel("结果(双击一行:在 §3.1.3 打开)· results (double-click a row: open it in Serving)")
        heading.setStyleSheet("font-weight: 600;")
        heading.setWordWrap(True)
        box.addWidget(heading)
        box.addWidget(self.table, 1)
        # The form on the left; the figures side by side above the table on the right.
        figures = QtWidgets.QHBoxLayout()
        figures.setSpacing(12)
        figures.addWidget(self.plots.pareto_card, 3)  # shares by stretch, whatever the subtitles' length
        figures.addWidget(self.plots.capacity_card, 2)
        results = QtWidgets.QWidget()
        col = QtWidgets.QVBoxLayout(results)
        col.setContentsMargins(0, 0, 0, 0)
        col.setSpacing(12)
        col.addLayout(figures, 3)
        col.addWidget(table_card, 2)
        at = self.form.layout().indexOf(self.form.status) + 1
        self.form.layout().insertWidget(at, self.summary_label)
        self.form.layout().insertWidget(at + 1, self.setting_label)
        page = ReflowLayout(columns=2, min_column_em=FIGURE_COLUMN_EM, stretch=(2, 3))
        page.addWidget(self.form)
        page.addWidget(results)
        layout.addLayout(page)
        layout.addWidget(attach_xpyd(self))  # the xPyD sweep (issue 15), under the form and results
        layout.addWidget(attach_rl_split(self))  # the RL rollout/trainer split (issue 16), under xPyD
        self.results = results
        self._scroll = self.findChild(QtWidgets.QScrollArea)
        self._scroll.viewport().installEventFilter(self)
        results.installEventFilter(self)  # its content's minimum grows: fit the height again
        layout.addStretch(1)

    def _connect(self) -> None:
        self._redraw = QtCore.QTimer(self)
        self._redraw.setSingleShot(True)
        self._redraw.setInterval(REDRAW_MS)
        self._redraw.timeout.connect(self._draw)
        self.form.run_requested.connect(self.run)
        self.form.cancel_requested.connect(self.cancel)
        r = self.runner
        r.parsed.connect(self._on_parsed)
        r.row_arrived.connect(self._on_row)
        r.progressed.connect(self.form.set_progress)
        r.finished.connect(self._on_finished)
        r.failed.connect(self._on_failed)
        r.cancelled.connect(self._on_cancelled)
        r.running_changed.connect(self.form.set_running)
        self.plots.point_clicked.connect(self._on_point_clicked)
        self.table.row_opened.connect(self.open_row)
        self.table.clicked.connect(lambda index: self.plots.select(F.point_key(self.table.rows_model.rows[index.row()])))

    # ---- behaviour ----------------------------------------------------------------
    def run(self, engine: str | None = None) -> bool:
        """Start the sweep the form describes; False (errors under the fields) when refused."""
        self.form.clear_errors()
        try:
            raw = self.form.raw()
        except ValueError as err:
            self.form.show_error("other", str(err))
            return False
        engine = engine or self.form.engine()
        address = self.form.address() if engine == "ray" else None
        self.form.status.setText("解析中… · checking the sweep…")
        self.runner.start(raw, engine, self.form.workers(), address, out_dir=self.form.out_dir(),
                          force=self.form.force_box.isChecked())
        return True

    def cancel(self) -> None:
        self.runner.cancel()

    def is_ready(self) -> bool:
        """The first sweep has finished (or failed, or was never asked for): snapshots wait on it."""
        return not self._first_sweep or (self._started_once and not self.runner.running)

    def rows(self) -> list[dict]:
        return list(self.runner.rows)

    def open_row(self, row: dict) -> None:
        """Open row in the Serving panel's replay A (the window's, when this panel is in one)."""
        replaced: list[str] = []
        values = open_in_serving(self, row, replaced)
        if values is None:
            self.form.status.setText("没有 Serving 面板可打开 · no Serving panel to open it in")
        elif replaced:  # the trace the user had loaded is set aside: say so, with its name
            name = os.path.basename(replaced[0])
            self.form.status.setText(f"已在 Serving 打开,替换了已载入的 trace {name} · "
                                     f"opened in Serving (replay A), replacing the loaded trace {name}")
        else:
            self.form.status.setText("已在 Serving 打开 · opened in Serving (replay A)")

    # ---- runner -> widgets ------------------------------------------------------------
    def _on_parsed(self, spec) -> None:
        self.table.rows_model.set_knobs([key for key, _values in spec.axes])
        self.plots.draw([])
        self.plots.set_slo_ttft_ms(F.number(spec.fixed.get("slo_ttft_ms")))
        self.summary_label.setText("")
        self.setting_label.setText("")
        self.form.set_progress(0, len(spec.points))
        self.form.status.setText(f"{len(spec.points)} 个点运行中 · {len(spec.points)} points running")

    def _on_row(self, row: dict) -> None:
        self.table.rows_model.append(row)
        if not self._redraw.isActive():
            self._redraw.start()  # rows can come faster than the figures need redrawing

    def _draw(self) -> None:
        self._redraw.stop()
        fig = self.plots.draw(self.runner.rows, self.table.rows_model.knobs)
        self.table.rows_model.set_front(set(fig["front_keys"]))

    def _on_finished(self, summary: dict) -> None:
        self._draw()
        self.summary = summary
        self.form.status.setText(summary_status(summary, len(self.runner.rows)))
        text, setting, note = summary_text(summary)
        self.summary_label.setText(text)
        self.setting_label.setText(setting)
        for label in (self.summary_label, self.setting_label):
            label.setToolTip(note)

    def _on_failed(self, field: str, message: str) -> None:
        """Bad input under its field; anything else (a bug, a lost cluster) in the status line."""
        self._draw()
        if field:
            self.form.status.setText("")
            self.form.show_error(field, message)
        else:
            self.form.status.setText(f"出错 · failed: {message}")

    def _on_cancelled(self) -> None:
        self._draw()
        self.form.status.setText(f"已取消,保留 {len(self.runner.rows)} 个完成的点 · cancelled; "
                                 f"{len(self.runner.rows)} finished points kept")

    def _on_point_clicked(self, key: str) -> None:
        self.table.select_key(key)
        row = next((r for r in self.runner.rows if F.point_key(r) == key), None)
        if row is not None:
            self.open_row(row)

    def _fill_height(self) -> None:
        """Beside the form, the figures and the table take the screen's height under the
        header (no more: the table scrolls, not the page); under it, in one narrow column,
        their own."""
        if not shiboken6.isValid(self) or self._scroll is None:
            return
        beside = abs(self.results.y() - self.form.y()) < 2 and self.results.x() > self.form.x()
        page = self._scroll.widget()
        top = self.results.mapTo(page, QtCore.QPoint(0, 0)).y()
        height = self._scroll.viewport().height() - top - BOTTOM_MARGIN_PX
        natural = self.results.layout().minimumSize().height()
        if beside:
            # Never under what the figures and table need (it grows as rows and subtitles arrive:
            # a height fixed below it squeezed the figures and cut their axes).
            self.results.setFixedHeight(max(height, natural))
        else:
            self.results.setMinimumHeight(0)
            self.results.setMaximumHeight(WIDGET_SIZE_MAX)

    def eventFilter(self, watched, event):
        if self._scroll is not None and (
                event.type() == QtCore.QEvent.Type.Resize and watched is self._scroll.viewport()
                or event.type() == QtCore.QEvent.Type.LayoutRequest and watched is self.results):
            QtCore.QTimer.singleShot(0, self._fill_height)  # once the page has laid out at this width
        return False

    # ---- Qt ------------------------------------------------------------------------------
    def showEvent(self, event):
        super().showEvent(event)
        if self._settings is None and getattr(self.window(), "settings", None) is not None:
            self._settings = self.window().settings
            self.form.bind_settings(self._settings)
        if self._first_sweep and not self._started_once:
            self._started_once = True
            self.run(FIRST_ENGINE)

    def closeEvent(self, event):
        self._redraw.stop()
        self.runner.close()
        self.form.unbind_state()
        if self._scroll is not None:
            self._scroll.viewport().removeEventFilter(self)
            self.results.removeEventFilter(self)
        super().closeEvent(event)


def summary_status(summary: dict, rows: int) -> str:
    points = summary.get("points") or {}
    done, reused = points.get("done", rows), points.get("reused", 0)
    left, refused = points.get("left", 0), points.get("refused", 0)
    # One "中文 · English" pair, each half whole (a half with a " · " of its own split the
    # pair wrongly: "完成 12 个点(复用 0)· 12" in Chinese, the count lost in English).
    zh = f"完成 {done} 个点(复用 {reused})" + (f",{left} 个未完成" if left else "") + (f",{refused} 个被拒" if refused else "")
    en = (f"{done} points done, {reused} reused" + (f", {left} left" if left else "")
          + (f", {refused} refused by the replay" if refused else ""))
    return f"{zh} · {en}"


def summary_text(summary: dict) -> tuple[str, str, str]:
    """(answer, setting, tooltip): the cheapest setting meeting the SLOs and its cost (its
    values apart, as <code>: identifiers in either language), or that none does; core's
    note as the tooltip."""
    best = summary.get("cheapest_meeting_slo")
    note = summary.get("cheapest_note") or ""
    if isinstance(best, dict):
        setting = ", ".join(f"{k}={v}" for k, v in (best.get("values") or {}).items())
        code = f"<code>{setting}</code>" if setting else ""
        cost = F.number(best.get(F.COST[0]))
        zh_cost, en_cost = (f",每百万输出 token ${cost:.3g}", f", ${cost:.3g} per million output tokens") \
            if math.isfinite(cost) else ("", "")
        return f"最便宜且达标{zh_cost} · cheapest meeting the SLOs{en_cost}", code, note
    if not summary.get("slos_ms"):
        return "未设 SLO · no SLO given", "", note
    return "没有设置达标(见提示)· no setting meets the SLOs (see the tooltip)", "", note


PANEL = PanelInfo(key="plan", title="规划 · Plan at scale", section="3.1.3", order=1.6, factory=PlanPanel)
