"""What the GUI does with an exception nobody caught: the traceback goes to a log file in
the user's data folder and into a dialog that does not block, and the app keeps running.

`install()` sets sys.excepthook (exceptions raised in Qt slots and event handlers reach it),
threading.excepthook (threads other than the GUI's) and reports the job runner's failed jobs
the same way. `run_gui()` installs it; tests do not (pytest-qt captures exceptions itself)
and build a `Reporter` with their own `dialog` function instead.
"""
from __future__ import annotations

import datetime
import os
import sys
import threading
import time
import traceback
from collections.abc import Callable
from types import TracebackType

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from lab.settings import data_dir
from widgets.kit.jobs import jobs

LOG_NAME = "errors.log"
MAX_LOG_BYTES = 1_000_000  # past this the log starts over (one old copy is kept)
REPEAT_QUIET_S = 5.0  # the same traceback again within this (a failing paint): not reported again

DialogFn = Callable[[str, str, "QtWidgets.QWidget | None"], None]  # (traceback, log path, parent)


def default_log_path() -> str:
    return os.path.join(data_dir(), LOG_NAME)


class ErrorDialog(QtWidgets.QDialog):
    """The traceback, where it was logged, Copy and Close. Not modal: the lab goes on.
    Further errors while it is open are appended to it instead of opening more dialogs."""

    def __init__(self, log_path: str, parent=None):
        super().__init__(parent)
        self.setWindowTitle("Load Lab · unexpected error")
        self.setModal(False)
        self.setAttribute(QtCore.Qt.WidgetAttribute.WA_DeleteOnClose)
        self.resize(720, 420)
        layout = QtWidgets.QVBoxLayout(self)
        intro = QtWidgets.QLabel(
            "Something in the lab failed. It keeps running; what you were doing may show "
            f"stale results.<br>The traceback was appended to <code>{log_path}</code>.")
        intro.setWordWrap(True)
        intro.setTextInteractionFlags(QtCore.Qt.TextInteractionFlag.TextSelectableByMouse)
        self.text = QtWidgets.QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setLineWrapMode(QtWidgets.QPlainTextEdit.LineWrapMode.NoWrap)
        self.text.setFont(QtGui.QFontDatabase.systemFont(QtGui.QFontDatabase.SystemFont.FixedFont))
        buttons = QtWidgets.QDialogButtonBox(QtWidgets.QDialogButtonBox.StandardButton.Close)
        copy = buttons.addButton("Copy", QtWidgets.QDialogButtonBox.ButtonRole.ActionRole)
        copy.clicked.connect(lambda: QtWidgets.QApplication.clipboard().setText(self.text.toPlainText()))
        buttons.rejected.connect(self.close)
        layout.addWidget(intro)
        layout.addWidget(self.text, 1)
        layout.addWidget(buttons)

    def add(self, text: str) -> None:
        if self.text.toPlainText():
            self.text.appendPlainText("")
        self.text.appendPlainText(text.rstrip())


_open_dialog: ErrorDialog | None = None


def show_dialog(text: str, log_path: str, parent: QtWidgets.QWidget | None = None) -> None:
    """The default dialog: one ErrorDialog at a time, shown without blocking."""
    global _open_dialog
    if _open_dialog is None or not shiboken6.isValid(_open_dialog) or not _open_dialog.isVisible():
        _open_dialog = ErrorDialog(log_path, parent)
    _open_dialog.add(text)
    _open_dialog.show()
    _open_dialog.raise_()


class Reporter(QtCore.QObject):
    """Logs a traceback and shows it through `dialog`, on the GUI thread whatever thread
    it came from."""

    reported = QtCore.Signal(str)  # the traceback text, after it was logged and shown
    _arrived = QtCore.Signal(str)

    def __init__(self, log_path: str | None = None, dialog: DialogFn | None = None,
                 parent: QtWidgets.QWidget | None = None):
        super().__init__()
        self.log_path = log_path or default_log_path()
        self.dialog = dialog or show_dialog
        self._parent = parent
        self._lock = threading.Lock()
        self._last: tuple[str, float] = ("", float("-inf"))
        self._arrived.connect(self._show, QtCore.Qt.ConnectionType.QueuedConnection)

    def report(self, text: str) -> None:
        """Log text now; show it on the GUI thread (queued, so a report from inside a paint
        or a worker never opens a dialog there). The same text again within REPEAT_QUIET_S
        (a paint event that fails on every frame) is dropped."""
        with self._lock:
            now = time.monotonic()
            if text == self._last[0] and now - self._last[1] < REPEAT_QUIET_S:
                return
            self._last = (text, now)
        self.write_log(text)
        self._arrived.emit(text)

    def report_exception(self, etype: type[BaseException], value: BaseException,
                         tb: TracebackType | None, where: str = "") -> None:
        text = "".join(traceback.format_exception(etype, value, tb))
        self.report(f"{where}\n{text}" if where else text)

    def report_job(self, key: str, text: str) -> None:
        self.report(f"job {key} failed\n{text}")

    def write_log(self, text: str) -> None:
        stamp = datetime.datetime.now().astimezone().isoformat(timespec="seconds")
        with self._lock:
            try:
                os.makedirs(os.path.dirname(self.log_path), exist_ok=True)
                if os.path.exists(self.log_path) and os.path.getsize(self.log_path) > MAX_LOG_BYTES:
                    os.replace(self.log_path, self.log_path + ".1")
                with open(self.log_path, "a", encoding="utf-8") as f:
                    f.write(f"--- {stamp}\n{text.rstrip()}\n")
            except OSError as err:  # a log that cannot be written must not raise again
                print(f"lab: could not write {self.log_path}: {err}", file=sys.stderr)

    def _show(self, text: str) -> None:
        parent = self._parent if self._parent is not None and shiboken6.isValid(self._parent) else None
        try:
            self.dialog(text, self.log_path, parent)
        except Exception:  # noqa: BLE001 - a failing dialog must not recurse into the hook
            traceback.print_exc()
        self.reported.emit(text)


_installed: tuple[Reporter, object, object] | None = None


def install(parent: QtWidgets.QWidget | None = None, log_path: str | None = None,
            dialog: DialogFn | None = None) -> Reporter:
    """Route uncaught exceptions (GUI thread, other threads, failed jobs) to a Reporter."""
    uninstall()
    reporter = Reporter(log_path, dialog, parent)
    previous = (sys.excepthook, threading.excepthook)

    def excepthook(etype, value, tb):
        if issubclass(etype, KeyboardInterrupt):
            sys.__excepthook__(etype, value, tb)
            QtWidgets.QApplication.quit()
            return
        traceback.print_exception(etype, value, tb)  # stderr as well, for a terminal
        reporter.report_exception(etype, value, tb)

    def thread_excepthook(args):
        if args.exc_type is SystemExit:
            return
        name = getattr(args.thread, "name", "?")
        traceback.print_exception(args.exc_type, args.exc_value, args.exc_traceback)
        reporter.report_exception(args.exc_type, args.exc_value, args.exc_traceback, where=f"in thread {name}")

    sys.excepthook = excepthook
    threading.excepthook = thread_excepthook
    jobs().job_failed.connect(reporter.report_job)
    global _installed
    _installed = (reporter, *previous)
    return reporter


def uninstall() -> None:
    """Put back the hooks install() replaced."""
    global _installed
    if _installed is None:
        return
    reporter, sys.excepthook, threading.excepthook = _installed
    _installed = None
    try:
        jobs().job_failed.disconnect(reporter.report_job)
    except (RuntimeError, TypeError):
        pass
