"""The wheel over a field that is not being edited scrolls the page, not the field's value.

A combo box or spin box takes wheel events whether or not it has the focus: scrolling down
a page, the wheel passing over one silently changed a parameter (Training's card switched
GPUs). One filter on the application sends such a wheel to the page's scroll bar; a field
with the focus (clicked or tabbed into) still takes its wheel.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

FIELDS = (QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox)
_installed: list[QtCore.QObject] = []  # the one filter (the application holds no Python ref)


class FieldWheelFilter(QtCore.QObject):
    def eventFilter(self, watched, event):
        if event.type() != QtCore.QEvent.Type.Wheel or not isinstance(watched, FIELDS):
            return False  # every event passes here: the cheap tests first
        if watched.hasFocus():
            return False
        area = _scroll_area(watched)
        if area is not None:
            delta = event.angleDelta()
            bar = area.horizontalScrollBar() if delta.y() == 0 and delta.x() != 0 else area.verticalScrollBar()
            QtWidgets.QApplication.sendEvent(bar, event)
        return True  # no page to scroll: the value stays as it is all the same


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
        _installed.append(FieldWheelFilter(app))
        app.installEventFilter(_installed[0])
    return _installed[0]
