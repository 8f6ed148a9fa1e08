"""A form generated from core parameter specs: one field per Param, each with its unit,
range tooltip and an error line right under it. Core parses and validates; the form only
shows what core says."""
from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import shiboken6
from PySide6 import QtCore, QtWidgets

from core.registry import BookRef, Calculator, Param
from core.state_model import CardModel
from widgets.kit.theme import ILLUSTRATIVE_TAG


def param_text(param: Param, value: Any) -> str:
    """The text a field shows for value, and that parses back to exactly it (forms and copy CLI)."""
    if param.kind == "floats":
        if isinstance(value, str):  # already text, e.g. "0.9,0.1"
            return value
        return ",".join(_plain(v) for v in value)
    if param.kind == "bool":
        return "true" if value else "false"
    if param.unit == "bytes" and isinstance(value, (int, float)):
        return _bytes_text(value)
    if isinstance(value, (int, float)):
        return _plain(value)
    return str(value)


def _bytes_text(value: float) -> str:
    """1073741824 reads better as 1GiB; core's parser takes the suffix back. Only round
    figures get a suffix: 15136811008 stays as it is."""
    for suffix, factor in (("TiB", 1024**4), ("GiB", 1024**3), ("MiB", 1024**2), ("KiB", 1024)):
        scaled = value / factor
        if scaled >= 1 and scaled == round(scaled, 3) and len(f"{scaled:g}".replace(".", "")) <= 4:
            return f"{scaled:g}{suffix}"
    return _plain(value)


def _plain(value: float) -> str:
    """Shortest text that parses back to exactly this value."""
    value = float(value)
    if abs(value) >= 1e7:
        short = f"{value:.6g}"  # 1e+08 reads better than 100000000, when it is exact
        if float(short) == value:
            return short
    if value.is_integer() and abs(value) < 1e16:
        return str(int(value))
    return repr(value)


class _NumberEdit(QtWidgets.QLineEdit):
    """A line edit whose Up/Down keys nudge the number (±1 for whole numbers, ±10% else),
    so a speaker can walk a value during a demo without typing."""

    def __init__(self, whole: bool, parent=None):
        super().__init__(parent)
        self._whole = whole

    def keyPressEvent(self, event):
        key = event.key()
        if key in (QtCore.Qt.Key.Key_Up, QtCore.Qt.Key.Key_Down):
            try:
                value = float(self.text())  # "1,5" is refused, not nudged as 15
            except ValueError:
                return super().keyPressEvent(event)
            sign = 1 if key == QtCore.Qt.Key.Key_Up else -1
            if self._whole:
                value += sign
            else:
                value = value * (1.1 if sign > 0 else 1 / 1.1) if value else sign * 0.1
            self.setText(_plain(round(value, 10)))
            self.editingFinished.emit()
            return
        super().keyPressEvent(event)


class ParamField(QtWidgets.QWidget):
    """Label (with unit), input, and an error line under it."""

    edited = QtCore.Signal()

    def __init__(self, param: Param, parent=None):
        super().__init__(parent)
        self.param = param
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(1)
        row = QtWidgets.QHBoxLayout()
        row.setSpacing(6)
        unit = f" ({param.unit})" if param.unit and param.unit != param.name else ""
        self.label = QtWidgets.QLabel(f"{param.title}{unit}")
        self.label.setProperty("i18n_key", param.name)  # widgets/kit/i18n: a readable label per language
        row.addWidget(self.label)
        if param.kind == "choice":
            self.edit = QtWidgets.QComboBox()
            self.edit.addItems(list(param.choices))
            self.edit.currentTextChanged.connect(self.edited)
        elif param.kind == "bool":
            self.edit = QtWidgets.QCheckBox()
            self.edit.toggled.connect(self.edited)
        elif param.kind == "path":
            self.edit = _path_combo(param)
            self.edit.activated.connect(self.edited)  # a named choice picked from the list
            self.edit.lineEdit().editingFinished.connect(self.edited)  # a path typed
        else:
            self.edit = _NumberEdit(whole=param.kind == "int")
            self.edit.editingFinished.connect(self.edited)
        self.edit.setObjectName(f"param_{param.name}")
        row.addWidget(self.edit, 1)
        self.browse_button: QtWidgets.QToolButton | None = None
        if param.kind == "path":
            self.browse_button = QtWidgets.QToolButton()
            self.browse_button.setText("…")
            self.browse_button.setObjectName(f"browse_{param.name}")
            self.browse_button.setToolTip(BROWSE_TITLE)
            self.browse_button.clicked.connect(self.browse)
            row.addWidget(self.browse_button)
        self.tag: QtWidgets.QLabel | None = None
        if param.illustrative:
            tag = self.tag = QtWidgets.QLabel(ILLUSTRATIVE_TAG)
            tag.setProperty("role", "tag")
            tag.setToolTip("数值为示意: an illustrative value, not a figure from the book")
            tag.setSizePolicy(QtWidgets.QSizePolicy.Policy.Fixed, QtWidgets.QSizePolicy.Policy.Fixed)
            row.addWidget(tag)
        layout.addLayout(row)
        self.error_label = QtWidgets.QLabel("")
        self.error_label.setProperty("role", "error")
        self.error_label.setWordWrap(True)
        self.error_label.setVisible(False)
        layout.addWidget(self.error_label)
        tip = f"<b>{param.name}</b>: {param.help}<br>valid: {param.range_text()}"
        self.label.setToolTip(tip)
        self.edit.setToolTip(tip)
        self.set_value(param.default)

    def browse(self) -> None:
        """Pick a file with the system's dialog; its path goes in the field as if typed."""
        shown = self.edit.currentText().strip()
        start = os.path.dirname(shown) if os.path.sep in shown else ""
        path, _ = QtWidgets.QFileDialog.getOpenFileName(self, BROWSE_TITLE, start, BROWSE_FILTER)
        if path:
            self.edit.setCurrentText(path)
            self.edited.emit()

    def raw(self) -> Any:
        if isinstance(self.edit, QtWidgets.QComboBox):
            return self.edit.currentText()
        if isinstance(self.edit, QtWidgets.QCheckBox):
            return self.edit.isChecked()
        return self.edit.text()

    def show_value(self, value: Any) -> None:
        """Show a value the model took, unless the field shows it already (a user's
        '0.02s' stays until the value itself changes; nothing is parsed to find out)."""
        if value != self.shown_value:
            self.set_value(value)

    def set_value(self, value: Any) -> None:
        self.shown_value = value
        blocker = QtCore.QSignalBlocker(self.edit)
        if isinstance(self.edit, QtWidgets.QComboBox):
            self.edit.setCurrentText(str(value))
        elif isinstance(self.edit, QtWidgets.QCheckBox):
            self.edit.setChecked(bool(value))
        else:
            self.edit.setText(param_text(self.param, value))
        del blocker

    @property
    def has_error(self) -> bool:
        return bool(self.error_label.text())

    def show_error(self, message: str | None) -> None:
        if message:
            self.shown_value = _REFUSED  # the text is the user's refused edit: any value replaces it
        if (message or "") == self.error_label.text():
            return
        self.error_label.setText(message or "")
        self.error_label.setVisible(bool(message))
        self.edit.setProperty("invalid", "true" if message else "false")
        self.edit.style().unpolish(self.edit)
        self.edit.style().polish(self.edit)


class ParamForm(QtWidgets.QWidget):
    """Fields bound to a CardModel: an edit goes to the model, which parses and checks it
    once; the form shows the model's values and, next to each field, why an edit was
    refused. values_changed(dict) follows each real change of the model's inputs.

    Given bare Params (a form with no calculator behind it), the form makes its own
    deferred model over them. names: show only these of the model's fields (a calculator
    split over two forms).
    """

    values_changed = QtCore.Signal(dict)
    invalid = QtCore.Signal(str, str)
    # An error about a field this form does not hold shows on its first field; a form that
    # shares its card with others (each holding some fields) leaves it to the holder.
    SHOW_FOREIGN_ERRORS = True

    def __init__(self, model: CardModel | Sequence[Param], check: Callable[[dict], None] | None = None,
                 names: Sequence[str] | None = None, parent=None, first: int | None = None):
        super().__init__(parent)
        if not isinstance(model, CardModel):
            model = CardModel(_form_calculator(tuple(model), check), deferred=True)
        self.model = model
        params = self.model.calculator.params
        shown = [p for p in params if names is None or p.name in names]
        self._fields: dict[str, ParamField] = {}
        layout = QtWidgets.QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        # first: only that many fields now, the rest through rest_steps() (a long form on a
        # page built a piece per turn of the event loop).
        self._later = list(shown[first:]) if first is not None else []
        for param in shown[:first] if first is not None else shown:
            self._add_field(param)
        self._align_labels()
        self._emitted = self.model.inputs
        self._typed: set[str] = set()  # fields whose text is being taken now
        self.model.changed.connect(self._on_model_changed)
        self._show(self.model)

    def _add_field(self, param: Param) -> None:
        field = ParamField(param)
        field.edited.connect(lambda name=param.name: self._on_field_edited(name))
        self._fields[param.name] = field
        self.layout().addWidget(field)

    def rest_steps(self, per_step: int) -> list:
        """The fields `first` left out, per_step of them a step (each then shows the model's
        values and errors, and lines the labels up again)."""
        chunks = [self._later[i:i + per_step] for i in range(0, len(self._later), per_step)]
        self._later = []

        def add(params) -> None:
            if not shiboken6.isValid(self):
                return
            for param in params:
                self._add_field(param)
            self._align_labels()
            self._show(self.model)

        return [lambda params=chunk: add(params) for chunk in chunks]

    def _align_labels(self) -> None:
        """Line the inputs up: every label as wide as the widest, inputs at least
        INPUT_CHARS wide; measured at the current font, again when the zoom changes it."""
        if not shiboken6.isValid(self):
            return
        labels = [f.label for f in self._fields.values()]
        width = max((label.fontMetrics().horizontalAdvance(label.text()) + 4 for label in labels), default=0)
        for f in self._fields.values():
            f.label.setMinimumWidth(max(width, LABEL_MIN_CHARS * f.label.fontMetrics().averageCharWidth()))
            if isinstance(f.edit, QtWidgets.QLineEdit):
                # At least INPUT_CHARS, and the book's value whole (a list such as "1200,800,1500"
                # was cut to "00,800,1500" in a narrow column), up to MAX_INPUT_CHARS.
                metrics = f.edit.fontMetrics()
                text = min(metrics.horizontalAdvance(f.edit.text()) + metrics.averageCharWidth(),
                           MAX_INPUT_CHARS * metrics.averageCharWidth())
                # A row with a tag (longer in English) gives the tag its room: its input
                # shrinks to TAGGED_INPUT_CHARS, the value still whole.
                chars = INPUT_CHARS if f.tag is None else TAGGED_INPUT_CHARS
                f.edit.setMinimumWidth(max(chars * metrics.averageCharWidth(), text))

    def changeEvent(self, event):
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            QtCore.QTimer.singleShot(0, self._align_labels)  # after the labels took the new font
        super().changeEvent(event)

    def field(self, name: str) -> ParamField:
        return self._fields[name]

    def values(self) -> dict:
        """The model's checked inputs (what the outputs currently show)."""
        return dict(self.model.inputs)

    def set_value(self, name: str, value: Any) -> bool:
        """Set a field programmatically (e.g. a dragged plot handle); True if it was valid."""
        return self.set_values({name: value})

    def set_values(self, values: dict) -> bool:
        for name, value in values.items():
            if name in self._fields:
                self._fields[name].set_value(value)
        return self.model.update(values)

    def _on_field_edited(self, name: str) -> None:
        # Fields still showing a refused edit go along, so fixing another field does not
        # hide their error while their text stays wrong.
        raw = {n: f.raw() for n, f in self._fields.items() if f.has_error}
        raw[name] = self._fields[name].raw()
        self._typed = set(raw)
        try:
            self.model.update(raw)
        finally:
            self._typed = set()

    def _on_model_changed(self, card: CardModel) -> None:
        if not shiboken6.isValid(self):
            return
        self._show(card)
        if card.errors:
            for name, message in card.errors.items():
                self.invalid.emit(name, message)
        elif card.inputs != self._emitted:
            self._emitted = card.inputs
            self.values_changed.emit(dict(card.inputs))

    def _show(self, card: CardModel) -> None:
        errors = dict(card.errors)
        foreign = [m for n, m in errors.items() if n not in self._fields]
        for name, field in self._fields.items():
            message = errors.get(name)
            if message is None and foreign and self.SHOW_FOREIGN_ERRORS and name == next(iter(self._fields)):
                message = foreign[0]  # a cross-field error about a field not in this form
            field.show_error(message)
            if name in self._typed and name not in errors:
                field.shown_value = card.inputs[name]  # the user's text says it: keep it
            elif name not in errors:
                field.show_value(card.inputs[name])


def _path_combo(param: Param) -> QtWidgets.QComboBox:
    """An editable combo: the named choices in its list, any file's path typed or browsed.
    A long path scrolls inside the field instead of widening the form."""
    combo = QtWidgets.QComboBox()
    combo.setEditable(True)
    combo.setInsertPolicy(QtWidgets.QComboBox.InsertPolicy.NoInsert)  # a typed path is not a new choice
    combo.addItems(list(param.choices))
    combo.setSizeAdjustPolicy(QtWidgets.QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
    combo.setMinimumContentsLength(PATH_CHARS)
    return combo


BROWSE_TITLE = "选择文件 · Choose a file"
BROWSE_FILTER = "JSON, TOML, CSV (*.json *.jsonl *.toml *.csv);;所有文件 · All files (*)"
PATH_CHARS = 14  # a path field shows at least this many characters
_REFUSED = object()
LABEL_MIN_CHARS = 14  # the label column of a form, at least
INPUT_CHARS = 8  # an input shows at least this many characters (a number with its unit)
TAGGED_INPUT_CHARS = 5  # beside an illustrative tag
MAX_INPUT_CHARS = 24  # and its starting value whole, up to this many


def _form_calculator(params: tuple[Param, ...], check: Callable[[dict], None] | None) -> Calculator:
    return Calculator(name="form", title="", ref=BookRef(""), params=params, outputs=(),
                      compute=lambda **_: {}, check=check)
