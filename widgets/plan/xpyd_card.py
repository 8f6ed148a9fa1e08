"""The Plan panel's xPyD card (issue 15): `lab sweep serving prefill_replicas=1..X
decode_replicas=1..Y` with the SLOs and the workload keys given, on the panel's sweep
runner (widgets/plan/runner.py: the job runner, the engine chosen in the panel's form),
drawn as a grid of prefill x decode instances as the rows stream in, with the cheapest
setting that meets the SLOs marked (widgets/plan/xpyd_grid.py: the capacity search's
answer, `lab simulate serving pools=cheapest:XxY`). A refusal shows under its field.

    card = attach(panel)   # PlanPanel's one hook"""
from __future__ import annotations

import shlex

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.serving.disagg.capacity import DEFAULT_ATTAINMENT, MAX_SIDE
from widgets.plan.form import Field
from widgets.plan.sweep_card import SweepCard
from widgets.plan.xpyd_grid import XpydGrid, best, cells

LEAD = ("每格一次完整的 prefill/decode 分离回放;绿 = 达标请求占比够,框出的是达标里每小时最便宜的一格 · "
        "each cell is one full P/D run; green: enough of its requests meet the SLOs; the outlined cell is the "
        "cheapest per hour that does (pools=cheapest's answer)")
# (key, label, default text): the SLOs and the workload of the sweep (lab sweep serving's keys)
SLO_FIELDS = (("slo_ttft_ms", "TTFT ≤ (ms)", "1000"), ("slo_tpot_ms", "TPOT ≤ (ms)", "40"))
OTHER_DEFAULT = "durations_s=20 rates_per_s=4 shares_long_input=0.5 kv_link=rdma-400g"
OTHER = "other"


class XpydCard(SweepCard):
    def __init__(self, panel=None, parent=None):
        super().__init__("xpyd", "xPyD 扫描:多少 prefill 与 decode 实例最省 · xPyD sweep: how many prefill and "
                         "decode instances, at the lowest cost", LEAD, "扫描 xPyD · sweep xPyD", parent)
        self.panel = panel
        form = QtWidgets.QGridLayout()
        form.setHorizontalSpacing(8)
        self.max_prefill, self.max_decode = QtWidgets.QSpinBox(), QtWidgets.QSpinBox()
        for name, box in (("xpyd_max_prefill", self.max_prefill), ("xpyd_max_decode", self.max_decode)):
            box.setObjectName(name)
            box.setRange(1, MAX_SIDE)
            box.setValue(3)
        self.fields = {key: Field(key, text=text) for key, _label, text in SLO_FIELDS}
        self.fields[OTHER] = Field(OTHER, "KEY=VALUE …", OTHER_DEFAULT)
        rows = (("prefill 实例 1 到 · prefill instances 1 to", self.max_prefill),
                ("decode 实例 1 到 · decode instances 1 to", self.max_decode),
                *((label, self.fields[key]) for key, label, _t in SLO_FIELDS),
                ("其他键 · other keys", self.fields[OTHER]))
        for r, (label, widget) in enumerate(rows):
            form.addWidget(QtWidgets.QLabel(label), r, 0)
            form.addWidget(widget, r, 1)
        form.setColumnStretch(1, 1)
        self.grid = XpydGrid()
        # The fields beside the grid (under it when narrow)
        self.lay_out(form, self.grid, rich_answer=True, answer_on_top=True)
        self.best = None
        self.run_button.clicked.connect(lambda: self.run())
        self.cancel_button.clicked.connect(self.runner.cancel)
        r = self.runner
        r.parsed.connect(self._on_parsed)
        r.row_arrived.connect(lambda _row: self._draw())
        r.progressed.connect(self._on_progress)
        r.finished.connect(self._on_finished)
        r.failed.connect(self._on_failed)
        r.cancelled.connect(lambda: self.status.setText("已取消 · cancelled"))
        r.running_changed.connect(self._on_running)

    def raw(self) -> dict[str, str]:
        """The `lab sweep serving` keys; a malformed 'other' pair raises ValueError."""
        raw = {"prefill_replicas": ",".join(str(x) for x in range(1, self.max_prefill.value() + 1)),
               "decode_replicas": ",".join(str(y) for y in range(1, self.max_decode.value() + 1))}
        raw.update({key: self.fields[key].text() for key, _l, _t in SLO_FIELDS if self.fields[key].text()})
        for pair in shlex.split(self.fields[OTHER].text()):
            key, sep, value = pair.partition("=")
            if not sep or not key:
                raise ValueError(f"got {pair!r}; valid: KEY=VALUE pairs")
            raw[key] = value
        return raw

    def cheapest_keys(self) -> dict[str, str]:
        """The same question as one capacity search: `lab simulate serving pools=cheapest:XxY`."""
        raw = {k: v for k, v in self.raw().items() if k not in ("prefill_replicas", "decode_replicas")}
        return {"pools": f"cheapest:{self.max_prefill.value()}x{self.max_decode.value()}", **raw}

    def run(self, engine: str | None = None) -> bool:
        for f in self.fields.values():
            f.show_error(None)
        try:
            raw = self.raw()
        except ValueError as err:
            self.fields[OTHER].show_error(str(err))
            return False
        form = getattr(self.panel, "form", None)
        engine = engine or (form.engine() if form is not None else "inprocess")
        workers = form.workers() if form is not None else 1
        address = form.address() if form is not None and engine == "ray" else None
        self.summary = self.best = None
        self.answer.setText("")
        self.command.setText("<code>lab sweep serving " + " ".join(f"{k}={shlex.quote(v)}" for k, v in raw.items())
                             + "</code>")
        self.status.setText("解析中… · checking the sweep…")
        self.runner.start(raw, engine, workers, address)
        return True

    def _on_progress(self, done: int, total: int) -> None:
        self.status.setText(f"{done}/{total} 个点 · {done}/{total} points")
        self._translate()

    def _on_running(self, running: bool) -> None:
        self.run_button.setEnabled(not running)
        self.cancel_button.setEnabled(running)

    def _on_parsed(self, spec) -> None:
        self.grid.set_axes(list(range(1, self.max_prefill.value() + 1)), list(range(1, self.max_decode.value() + 1)))
        self._translate()

    def _attainment(self) -> float:
        return float((self.summary or {}).get("attainment") or DEFAULT_ATTAINMENT)

    def _draw(self) -> None:
        grid = cells(self.runner.rows, self._attainment())
        self.best = best(grid)
        self.grid.draw(grid, self.best)

    def _on_finished(self, summary: dict) -> None:
        self.summary = summary
        self._draw()
        self.status.setText(f"完成 {len(self.runner.rows)} 个点 · {len(self.runner.rows)} points done")
        self.answer.setText(answer_text(self.best, summary))
        self._translate()
        self.finished.emit(summary)

    def _on_failed(self, field: str, message: str) -> None:
        self.status.setText("")
        if field in self.fields:
            self.fields[field].show_error(message)
        elif field:
            self.fields[OTHER].show_error(f"{field}: {message}")
        else:
            self.status.setText(f"出错 · failed: {message}")
        self._translate()
        self.failed.emit(field, message)

    def eventFilter(self, watched, event):
        if event.type() == QtCore.QEvent.Type.Close and watched is self.panel and shiboken6.isValid(self.runner):
            self.runner.close()
        return False


def answer_text(cell, summary: dict) -> str:
    """The cheapest xPyD meeting the SLOs (per hour), and the sweep's own cheapest per
    million output tokens when it is another setting."""
    share = f"{float(summary.get('attainment') or DEFAULT_ATTAINMENT):.0%}"
    if cell is None:
        return f"没有一格让 {share} 的请求达标 · no setting meets the SLOs for {share} of requests"
    cost = f"${cell.cost_per_hour:,.2f}" if cell.cost_per_hour is not None else "-"
    text = f"最便宜且达标: · cheapest meeting the SLOs: <code>{cell.label}</code>, {cost}/h"
    per_token = (summary.get("cheapest_meeting_slo") or {}).get("values") if isinstance(
        summary.get("cheapest_meeting_slo"), dict) else None
    if per_token:
        other = f"{per_token.get('prefill_replicas')}P{per_token.get('decode_replicas')}D"
        if other != cell.label:
            text += f"<br>按每百万输出 token 最便宜: · cheapest per million output tokens: <code>{other}</code>"
    return text


def attach(panel) -> XpydCard:
    """The card under the panel's form and results (full width), its runner stopped when
    the panel closes."""
    card = XpydCard(panel)
    panel.xpyd_card = card
    panel.installEventFilter(card)
    return card
