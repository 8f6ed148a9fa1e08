"""The wheel over a field that is not being edited scrolls the page, not the field's value.

A combo box or spin box takes wheel events whether or not it has the focus: scrolling down
a page, the wheel passing over one silently changed a parameter (Training's card switched
GPUs). A filter on each such field sends its wheel to the page's scroll bar; a field with
the focus (clicked or tabbed into) still takes its wheel.

The filter goes on the fields alone, as the style polishes them: a filter on the whole
application was a Python call for every event of every widget (it made a plot's
construction half as long again, and every frame paid it).
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

FIELDS = (QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox)
_installed: list[QtCore.QObject] = []  # [filter, style] once installed (Qt holds no Python ref)


class FieldWheelFilter(QtCore.QObject):
    def eventFilter(self, watched, event):
        if event.type() != QtCore.QEvent.Type.Wheel:
            return False
        if not isinstance(watched, FIELDS) or watched.hasFocus():
            return False
        area = _scroll_area(watched)
        if area is not None:
            delta = event.angleDelta()
            bar = area.horizontalScrollBar() if delta.y() == 0 and delta.x() != 0 else area.verticalScrollBar()
            QtWidgets.QApplication.sendEvent(bar, event)
        return True  # no page to scroll: the value stays as it is all the same


class _FieldStyle(QtWidgets.QProxyStyle):
    """The application's style, which also gives every field it polishes the filter (the
    style sheet's style polishes through it). Only polish is Python: every other call is
    the base style's, in C++."""

    def __init__(self, key: str, wheel_filter: FieldWheelFilter):
        if key:
            super().__init__(key)
        else:
            super().__init__()  # the platform's default style
        self._filter = wheel_filter

    def polish(self, target):
        super().polish(target)
        if isinstance(target, FIELDS):
            target.removeEventFilter(self._filter)  # once, however often it is polished
            target.installEventFilter(self._filter)


def _scroll_area(widget: QtWidgets.QWidget) -> QtWidgets.QAbstractScrollArea | None:
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QtWidgets.QAbstractScrollArea):
            return parent
        parent = parent.parentWidget()
    return None


def install_field_wheel_filter() -> QtCore.QObject | None:
    """Install the filter on the running application once (idempotent); returns it."""
    app = QtWidgets.QApplication.instance()
    if app is None:
        return None
    if not _installed:
        wheel_filter = FieldWheelFilter(app)
        # The style in use by name (a style sheet's style has none: the default then).
        style = _FieldStyle(app.style().name(), wheel_filter)
        _installed.extend((wheel_filter, style))
        app.setStyle(style)  # re-polishes the widgets there are: theirs get the filter too
    return _installed[0]
