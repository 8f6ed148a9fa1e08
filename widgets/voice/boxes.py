"""The Voice panel's boxes: a column that asks for no more height than its least, a row."""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets


class Fitted(QtWidgets.QWidget):
    """A column that asks for no more height than its least: the page's rows then fit a
    talk's 1280x720 screen, and extra height goes to the plots that stretch."""

    def sizeHint(self) -> QtCore.QSize:
        hint = super().sizeHint()
        return QtCore.QSize(hint.width(), self.minimumSizeHint().height())


def fitted_column(*widgets: QtWidgets.QWidget, stretch: int) -> QtWidgets.QWidget:
    box = Fitted()
    col = QtWidgets.QVBoxLayout(box)
    col.setContentsMargins(0, 0, 0, 0)
    col.setSpacing(6)
    for w in widgets:
        col.addWidget(w)
    col.setStretch(stretch, 1)
    return box


def row(*widgets: QtWidgets.QWidget, stretch: int | None = None) -> QtWidgets.QWidget:
    box = QtWidgets.QWidget()
    line = QtWidgets.QHBoxLayout(box)
    line.setContentsMargins(0, 0, 0, 0)
    for i, w in enumerate(widgets):
        line.addWidget(w, 1 if i == stretch else 0)
    return box
