"""A calculator as a card: its generated form on the left, its outputs on the right, the
book reference in the title, and each output's formula on hover."""
from __future__ import annotations

from typing import Any

from PySide6 import QtCore, QtWidgets

from core.registry import Calculator
from widgets.param_form import ParamForm
from widgets.theme import ILLUSTRATIVE_TAG


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
        row = 0
        for out in calc.outputs:
            if out.kind != "scalar":
                continue
            name = QtWidgets.QLabel(out.name)
            name.setProperty("role", "caption")
            value = QtWidgets.QLabel("—")
            value.setProperty("role", "value")
            value.setObjectName(f"out_{out.name}")
            value.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
            tip = f"<b>{out.name}</b>" + (f" = {out.formula}" if out.formula else "") + (f"<br>{out.help}" if out.help else "")
            name.setToolTip(tip)
            value.setToolTip(tip)
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
            label.setText(self._calc.format_output(name, result.get(name)))

    def set_stale(self, stale: bool) -> None:
        """Greyed while the form holds invalid input: the numbers shown are the last valid."""
        for label in self._labels.values():
            label.setEnabled(not stale)


class CalculatorCard(QtWidgets.QGroupBox):
    computed = QtCore.Signal(dict)

    def __init__(self, calc: Calculator, parent=None, compact: bool = False):
        super().__init__(f"{calc.title}", parent)
        self.calculator = calc
        self.setObjectName(f"card_{calc.name}")
        outer = QtWidgets.QVBoxLayout(self)
        header = QtWidgets.QHBoxLayout()
        ref = QtWidgets.QLabel(f"{calc.ref} · <code>{calc.name}</code>")
        ref.setProperty("role", "ref")
        header.addWidget(ref)
        header.addStretch(1)
        if calc.note or calc.illustrative:
            tag = QtWidgets.QLabel(calc.note or f"含{ILLUSTRATIVE_TAG}值")
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
        outer.addLayout(header)
        body = QtWidgets.QBoxLayout(
            QtWidgets.QBoxLayout.Direction.TopToBottom if compact else QtWidgets.QBoxLayout.Direction.LeftToRight)
        self.form = ParamForm(calc.params, calc.check)
        self.outputs = OutputView(calc)
        body.addWidget(self.form, 3)
        body.addWidget(self.outputs, 2)
        outer.addLayout(body)
        self.result: dict = {}
        self.form.values_changed.connect(self._on_values_changed)
        self.form.invalid.connect(lambda *_: self.outputs.set_stale(True))
        self._on_values_changed(self.form.values())

    def set_value(self, name: str, raw: Any) -> bool:
        return self.form.set_value(name, raw)

    def values(self) -> dict:
        return self.form.values()

    def reset(self) -> None:
        self.form.set_values(self.calculator.defaults())

    def command_line(self) -> str:
        """The `lab calc` command that gives the numbers shown (only values off the defaults)."""
        defaults = self.calculator.resolve()
        parts = ["lab", "calc", self.calculator.name]
        for name, value in self.values().items():
            if value != defaults[name]:
                text = ",".join(f"{v:g}" for v in value) if isinstance(value, tuple) else (
                    f"{value:g}" if isinstance(value, float) else str(value))
                parts.append(f"{name}={text}")
        return " ".join(parts)

    def _copy_command(self) -> None:
        QtWidgets.QApplication.clipboard().setText(self.command_line())

    def _on_values_changed(self, values: dict) -> None:
        self.result = self.calculator.run(values)
        self.outputs.set_stale(False)
        self.outputs.show_result(self.result)
        self.computed.emit(dict(self.result))
