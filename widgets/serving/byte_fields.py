"""A byte figure typed as bare digits (W's 15136811008, BW's 1.792e+12) is hard to read: the
Serving panel's calculator cards show it beside its field as core.format prints it in the
card's byte system (the panel's one: core.serving.model_choice.BYTES). The field keeps the
digits (its text parses back to exactly the value); a field whose text already carries a
unit suffix (144KiB) needs no echo."""
from __future__ import annotations

import re

import shiboken6
from PySide6 import QtWidgets

from core.format import format_value
from core.state_model import CardModel

BYTE_UNITS = ("bytes", "bytes/s")
_BARE = re.compile(r"[-+]?[0-9.]+(e[-+]?[0-9]+)?", re.IGNORECASE)  # digits, no suffix


def echo_text(value, unit: str, byte_system: str, shown: str) -> str:
    """'= 15.14 GB' for a field showing bare digits; '' when its text reads already."""
    if not _BARE.fullmatch(shown.strip()):
        return ""
    return f"= {format_value(value, unit, byte_system)}"


class ByteEcho:
    """The echoes of one calculator card's byte fields, kept to the card's values."""

    def __init__(self, card_widget):
        self.form = card_widget.form
        self.model: CardModel = self.form.model
        self.labels: dict[str, QtWidgets.QLabel] = {}
        for param in self.model.calculator.params:
            if param.unit not in BYTE_UNITS:
                continue
            field = self.form.field(param.name)
            row = field.layout().itemAt(0).layout()  # ParamField's label, input (and tag) row
            label = QtWidgets.QLabel("")
            label.setObjectName(f"bytes_{param.name}")
            label.setProperty("role", "caption")
            row.insertWidget(row.indexOf(field.edit) + 1, label)
            self.labels[param.name] = label
            # After the form took the edit: text of the same value ("16GB" for 16e9) changes no input.
            field.edited.connect(lambda: self.show(self.model))
        self.model.changed.connect(self.show)
        self.show(self.model)

    def show(self, card: CardModel) -> None:
        if not shiboken6.isValid(self.form):
            return
        system = card.calculator.byte_system
        for name, label in self.labels.items():
            field = self.form.field(name)
            refused = name in card.errors  # the text is the user's, not the value's
            text = "" if refused else echo_text(card.inputs[name], field.param.unit, system, field.edit.text())
            label.setText(text)
            label.setVisible(bool(text))

    def disconnect(self) -> None:
        self.model.changed.disconnect(self.show)
