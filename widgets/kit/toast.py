"""A toast: a short line over the bottom of the window ("copied"), gone after a moment.

It never takes focus or blocks: a label child of the top-level window, raised above the
page, hidden by a single-shot timer. One toast per window; a new message replaces the last.
"""
from __future__ import annotations

from PySide6 import QtCore, QtWidgets

SHOW_MS = 1500
MARGIN = 24  # from the bottom edge of the window, in pixels


class Toast(QtWidgets.QLabel):
    def __init__(self, parent: QtWidgets.QWidget):
        super().__init__(parent)
        self.setObjectName("toast")
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_TransparentForMouseEvents)
        self.setFocusPolicy(QtCore.Qt.FocusPolicy.NoFocus)
        self.setAlignment(QtCore.Qt.AlignmentFlag.AlignCenter)
        self.setWordWrap(True)
        # Light ink on near-black reads on every theme (contrast well over 7:1).
        self.setStyleSheet("QLabel#toast { background: rgba(24, 28, 34, 230); color: #ffffff;"
                           " border-radius: 6px; padding: 0.5em 1.2em; }")
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.hide)
        self.hide()

    def show_message(self, text: str, ms: int = SHOW_MS) -> None:
        self.setText(text)
        host = self.parentWidget()
        metrics = self.fontMetrics()
        # One line when it fits in two thirds of the window, wrapped when longer.
        width = min(max(host.width() * 2 // 3, 120), metrics.horizontalAdvance(text) + 3 * metrics.height())
        self.setFixedWidth(width)
        self.adjustSize()
        self.move((host.width() - self.width()) // 2, max(0, host.height() - self.height() - MARGIN))
        self.raise_()
        self.show()
        self._timer.start(ms)


def show_toast(anchor: QtWidgets.QWidget, text: str, ms: int = SHOW_MS) -> Toast:
    """Show text as a toast over anchor's window for ms milliseconds; returns the toast."""
    host = anchor.window()
    toast = host.findChild(Toast, "toast", QtCore.Qt.FindChildOption.FindDirectChildrenOnly)
    if toast is None:
        toast = Toast(host)
    toast.show_message(text, ms)
    return toast
