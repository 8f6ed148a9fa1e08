"""A panel that is closed is freed.

A panel's Python object and its Qt widgets hold each other through the lambdas and bound
methods connected to its children's signals (widget -> C++ connection -> closure -> widget).
Python's collector cannot see through the C++ side, so a closed panel nobody deletes lives
for good, with its plots, models and arrays. Deleting the widgets on close drops those
connections; the cycle then falls apart and Python frees the rest.

Connections from app-lifetime objects (the i18n and zoom notifiers, the job runner, a state
model that outlives the panel) must go to a bound method of a QObject that is destroyed with
the panel (Qt disconnects it then) or be disconnected in close(): a lambda there keeps the
panel alive and later runs on a deleted widget.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets


def free_on_close(widget: QtWidgets.QWidget) -> None:
    """Delete widget (after the events already posted) once a close() is accepted; inside a
    window, only the window's own close closes its panels."""
    widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose, True)


def owned(widget: QtWidgets.QWidget) -> None:
    """widget lives as long as its owner (a window's panels): the owner's close closes it
    without deleting it while the window may still reach it, and the window deletes it."""
    widget.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose, False)


def live_widget_count() -> int:
    """Every QWidget the application holds now (shown or not, parented or not)."""
    return len(QtWidgets.QApplication.allWidgets())
