"""A calculator as a card: its generated form on the left, its outputs on the right, the
book reference in the title, and each output's formula on hover."""
from __future__ import annotations

from typing import Any

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.format import full_value
from core.registry import Calculator
from core.state_model import CardModel
from widgets.kit.jobs import BusyBadge, jobs
from widgets.kit.page import Reflow, ReflowLayout
from widgets.kit.param_form import ParamForm, param_text
from widgets.kit.theme import ILLUSTRATIVE_TAG
from widgets.kit.toast import show_toast

STALE_OPACITY = 0.35  # outputs of an invalid form: visibly not the current answer


class OutputView(QtWidgets.QWidget):
    """Output name, value with unit. Hover shows the formula and what it means."""

    def __init__(self, calc: Calculator, parent=None):
        super().__init__(parent)
        self._calc = calc
        grid = QtWidgets.QGridLayout(self)
        grid.setContentsMargins(0, 0, 0, 0)
        grid.setHorizontalSpacing(10)
        grid.setVerticalSpacing(3)
        self._labels: dict[str, QtWidgets.QLabel] = {}
        self._tips: dict[str, str] = {}
        row = 0
        for out in calc.outputs:
            if out.kind != "scalar":
                continue
            name = QtWidgets.QLabel(out.name)
            name.setProperty("role", "caption")
            name.setProperty("i18n_key", out.name)  # widgets/kit/i18n: a readable label per language
            name.setProperty("i18n_kind", "output")
            value = QtWidgets.QLabel("—")
            value.setProperty("role", "value")
            value.setObjectName(f"out_{out.name}")
            value.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
            tip = f"<b>{out.name}</b>" + (f" = {out.formula}" if out.formula else "") + (f"<br>{out.help}" if out.help else "")
            name.setToolTip(tip)
            value.setToolTip(tip)
            self._tips[out.name] = tip
            grid.addWidget(name, row, 0)
            grid.addWidget(value, row, 1)
            self._labels[out.name] = value
            row += 1
        grid.setColumnStretch(1, 1)
        grid.setRowStretch(row, 1)

    def label(self, name: str) -> QtWidgets.QLabel:
        return self._labels[name]

    def show_result(self, result: dict[str, Any]) -> None:
        for name, label in self._labels.items():
            value = result.get(name)
            label.setText(self._calc.format_output(name, value))  # 4 digits, core.format's rule
            label.setToolTip(f"{self._tips[name]}<br>= {full_value(value, self._calc.output(name).unit)}")

    def set_stale(self, stale: bool) -> None:
        """Greyed while the form holds invalid input: the numbers shown are the last valid.
        Faded as a whole (an opacity effect), so it shows whatever colours the theme gives."""
        for label in self._labels.values():
            label.setEnabled(not stale)
        if stale and self.graphicsEffect() is None:
            fade = QtWidgets.QGraphicsOpacityEffect(self)
            fade.setOpacity(STALE_OPACITY)
            self.setGraphicsEffect(fade)
        elif not stale and self.graphicsEffect() is not None:
            self.setGraphicsEffect(None)
        self.setToolTip("not the current input: the form holds an invalid value, these are the last valid results"
                        if stale else "")


class CalculatorCard(QtWidgets.QGroupBox):
    """A view of one CardModel. computed(result) follows each new result of the model.

    A deferred model (a computation that can take seconds) is computed here on the job
    runner, with a busy badge and cancel in the header; the latest edit wins.
    """

    computed = QtCore.Signal(dict)

    def __init__(self, model: CardModel | Calculator, parent=None, compact: bool = False):
        model = model if isinstance(model, CardModel) else CardModel(model)
        calc = model.calculator
        super().__init__(f"{calc.title}", parent)
        self.model = model
        self.calculator = calc
        self._job_key = f"card.{calc.name}.{id(model)}"
        self.setObjectName(f"card_{calc.name}")
        outer = QtWidgets.QVBoxLayout(self)
        # The reference, then the tag and buttons at the right; under it when the card is narrow.
        tools = QtWidgets.QWidget()
        header = QtWidgets.QHBoxLayout(tools)
        header.setContentsMargins(0, 0, 0, 0)
        header.addStretch(1)
        ref = QtWidgets.QLabel(f"{calc.ref} · <code>{calc.name}</code>")
        ref.setProperty("role", "ref")
        self.busy = BusyBadge(self._job_key, owner=self)
        header.addWidget(self.busy)
        note = None
        if calc.note:  # a sentence (longer in English): its own line under the header, wrapped
            note = QtWidgets.QLabel(calc.note)
            note.setProperty("role", "tag")
            note.setWordWrap(True)
        elif calc.illustrative:
            tag = QtWidgets.QLabel(f"含{ILLUSTRATIVE_TAG}值")
            tag.setProperty("role", "tag")
            header.addWidget(tag)
        self.reset_button = QtWidgets.QToolButton()
        self.reset_button.setText("↺ book")
        self.reset_button.setToolTip("Back to the book's defaults")
        self.reset_button.clicked.connect(self.reset)
        header.addWidget(self.reset_button)
        self.copy_button = QtWidgets.QToolButton()
        self.copy_button.setText("copy CLI")
        self.copy_button.setToolTip("Copy these values as a `lab calc` command")
        self.copy_button.clicked.connect(self._copy_command)
        header.addWidget(self.copy_button)
        outer.addWidget(Reflow(ref, tools, natural=True, spacing=6))
        if note is not None:
            outer.addWidget(note)
        # Form beside the outputs when the card is wide enough, above them when not.
        body = ReflowLayout(columns=1 if compact else 2, stretch=(3, 2), spacing=10, fill=False)
        self.form = ParamForm(model)
        self.outputs = OutputView(calc)
        body.addWidget(self.form)
        body.addWidget(self.outputs)
        outer.addLayout(body)
        self.failure_label = QtWidgets.QLabel("")
        self.failure_label.setProperty("role", "error")
        self.failure_label.setWordWrap(True)
        self.failure_label.setVisible(False)
        outer.addWidget(self.failure_label)
        outer.addStretch(1)  # a card made taller by its row keeps its content together at the top
        self._shown_result: dict | None = None
        model.changed.connect(self._on_model_changed)
        self._on_model_changed(model)

    @property
    def result(self) -> dict:
        return self.model.result or {}

    def set_value(self, name: str, raw: Any) -> bool:
        return self.form.set_value(name, raw)

    def values(self) -> dict:
        return dict(self.model.inputs)

    def reset(self) -> None:
        self.model.reset()

    def command_line(self) -> str:
        """The `lab calc` command that gives the numbers shown (only values off the defaults)."""
        parts = ["lab", "calc", self.calculator.name]
        for name, value in self.model.to_json().items():
            # Exact text (2742.0614 stays 2742.0614): the command must give the numbers shown.
            parts.append(f"{name}={param_text(self.calculator.param(name), value)}")
        return " ".join(parts)

    def _copy_command(self) -> None:
        """Copy the command of the values shown; an invalid form copies nothing and says so
        (the last valid command would not give what the form shows)."""
        if self.model.errors:
            field, message = next(iter(self.model.errors.items()))
            show_toast(self, f"not copied: {field} is invalid ({message})", ms=3000)
            return
        QtWidgets.QApplication.clipboard().setText(self.command_line())
        show_toast(self, "copied: " + self.command_line())

    def _on_model_changed(self, model: CardModel) -> None:
        if not shiboken6.isValid(self):
            return
        if model.deferred and model.result_inputs != model.inputs and not model.errors:
            inputs = model.inputs
            jobs().submit(self._job_key, self.calculator.run, inputs, context=self,
                          done=lambda result: model.set_result(inputs, result),
                          failed=lambda text: model.set_result(inputs, model.result, failure=text))
        self.outputs.set_stale(model.stale)
        self.failure_label.setVisible(model.failure is not None)
        if model.failure is not None:
            last = model.failure.strip().splitlines()[-1]
            self.failure_label.setText(f"computation failed, showing the last good result: {last}")
        if model.result is not None and model.result is not self._shown_result:
            self._shown_result = model.result
            self.outputs.show_result(model.result)
            self.computed.emit(dict(model.result))

    def closeEvent(self, event):
        self.model.changed.disconnect(self._on_model_changed)
        super().closeEvent(event)
