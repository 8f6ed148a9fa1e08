"""Autosave and crash restore for one window (lab/session.py makes one per window).

Every AUTOSAVE_MS, when the session changed since the last write, it is written (atomically,
core/session.py) to autosave.lab.json in the user's data folder. A marker file there holds
the pid of the run under way; a clean exit removes it. If the marker is still there at
start and names a process that is gone (the last run crashed) and an autosave exists, a
non-modal question offers to restore it; until it is answered the autosave is kept as it
is (answer_restore() answers it from code and tests).
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

from core import session as core_session
from core.session import SUFFIX, SessionError
from lab.settings import data_dir

AUTOSAVE_MS = 30_000
AUTOSAVE_NAME = "autosave" + SUFFIX
MARKER_NAME = "running.marker"


class Autosave(QtCore.QObject):
    def __init__(self, window: QtWidgets.QMainWindow, session: Callable[[], dict],
                 open_path: Callable[[str], None]):
        """session(): the window's session now; open_path(path): open a session file."""
        super().__init__(window)
        self.window, self._session, self._open_path = window, session, open_path
        self.restore_prompt: QtWidgets.QMessageBox | None = None
        self._written = ""  # the text written last (saved_at aside): write only on change
        self.folder = data_dir()
        self.path = os.path.join(self.folder, AUTOSAVE_NAME)
        self.marker_path = os.path.join(self.folder, MARKER_NAME)
        self.timer = QtCore.QTimer(self)
        self.timer.setInterval(AUTOSAVE_MS)
        self.timer.timeout.connect(self.save)
        if self._start_run() and os.path.isfile(self.path):
            QtCore.QTimer.singleShot(0, self, self.offer_restore)  # once the window is up
        else:
            self.timer.start()
        window.installEventFilter(self)

    def save(self) -> bool:
        """Write the autosave if the session changed since the last one; True if written."""
        data = self._session()
        text = core_session.dumps({**data, "saved_at": ""})
        if text == self._written:
            return False
        try:
            os.makedirs(self.folder, exist_ok=True)
            core_session.write_session(self.path, data)
        except (OSError, SessionError) as err:
            self.window.status.showMessage(f"autosave failed: {err}", 10_000)
            return False
        self._written = text
        return True

    def _start_run(self) -> bool:
        """Mark this run as under way; True if the last run did not end cleanly."""
        try:
            with open(self.marker_path, encoding="utf-8") as f:
                pid = int(json.load(f).get("pid", 0))
            crashed = pid != os.getpid() and not _alive(pid)
        except (OSError, ValueError, AttributeError, TypeError):
            crashed = os.path.exists(self.marker_path)  # there, but unreadable: a crash too
        try:
            os.makedirs(self.folder, exist_ok=True)
            with open(self.marker_path, "w", encoding="utf-8") as f:
                json.dump({"pid": os.getpid()}, f)
        except OSError:
            pass  # no data folder: the lab runs, without crash restore
        return crashed

    def offer_restore(self) -> None:
        box = self.restore_prompt = QtWidgets.QMessageBox(self.window)
        box.setIcon(QtWidgets.QMessageBox.Icon.Question)
        box.setWindowTitle("Restore session")
        box.setText("Load Lab did not close cleanly last time. Restore the state it autosaved?")
        box.setInformativeText(self.path)
        self.restore_button = box.addButton("Restore", QtWidgets.QMessageBox.ButtonRole.AcceptRole)
        self.discard_button = box.addButton("Start fresh", QtWidgets.QMessageBox.ButtonRole.RejectRole)
        box.setWindowModality(QtCore.Qt.WindowModality.NonModal)
        box.buttonClicked.connect(lambda button: self.answer_restore(button is self.restore_button))
        box.show()

    def answer_restore(self, restore: bool) -> None:
        """The answer to the restore question (from its buttons, or from code)."""
        prompt, self.restore_prompt = self.restore_prompt, None
        if prompt is not None:
            prompt.hide()
            prompt.deleteLater()
        if restore:
            self._open_path(self.path)
        self.timer.start()

    def eventFilter(self, watched, event):
        if watched is self.window and event.type() == QtCore.QEvent.Type.Close:
            self.finish_run()
        return False

    def finish_run(self) -> None:
        """A clean exit: no restore offer next time (unless this run left one unanswered)."""
        self.timer.stop()
        if self.restore_prompt is not None:
            return
        try:
            os.remove(self.marker_path)
        except OSError:
            pass


def _alive(pid: int) -> bool:
    if pid <= 0:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # there, owned by another user
    return True
