"""Where a talk reads its keys: the widget that has the keyboard focus in the talk's windows
(the main window and the speaker's view) and those windows themselves, not every object of
the application.

Qt sends a key's ShortcutOverride and then its KeyPress to the focus widget (to the window
when nothing has focus) before any shortcut of the panels can take it, so a filter there
reads them first, as an application-wide filter did. That one was a Python call for every
event of every object (paints, layouts, a plot's hundreds of items as they are built),
which made a plot's build about twice as slow while a talk was open.
"""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets


class FocusKeys(QtCore.QObject):
    """Installs `reader` (a QObject whose eventFilter reads the keys) on windows() and on
    whichever widget of them has the focus, following the focus; close() removes it all."""

    def __init__(self, reader: QtCore.QObject, windows):
        super().__init__(reader)
        self._reader, self._windows = reader, windows
        self._watched: QtWidgets.QWidget | None = None
        self._on_windows: list[QtWidgets.QWidget] = []
        app = QtWidgets.QApplication.instance()
        app.focusChanged.connect(self._on_focus_changed)
        self.watch_windows()
        self._on_focus_changed(None, app.focusWidget())

    def watch_windows(self) -> None:
        """(Again) the windows themselves: a speaker's view opened later joins."""
        for window in self._targets():
            if window not in self._on_windows:
                window.installEventFilter(self._reader)
                self._on_windows.append(window)

    def _targets(self) -> list[QtWidgets.QWidget]:
        return [w for w in self._windows() if w is not None and shiboken6.isValid(w)]

    def _on_focus_changed(self, _old, new) -> None:
        self._unwatch()
        if new is None or not shiboken6.isValid(new) or new in self._on_windows:
            return
        if new.window() in self._targets():
            new.installEventFilter(self._reader)
            self._watched = new

    def _unwatch(self) -> None:
        if self._watched is not None and shiboken6.isValid(self._watched):
            self._watched.removeEventFilter(self._reader)
        self._watched = None

    def watched(self) -> list[QtWidgets.QWidget]:
        """What the reader filters now (tests)."""
        return [w for w in [*self._on_windows, self._watched] if w is not None and shiboken6.isValid(w)]

    def close(self) -> None:
        try:
            QtWidgets.QApplication.instance().focusChanged.disconnect(self._on_focus_changed)
        except (RuntimeError, TypeError):
            pass
        self._unwatch()
        for window in self._on_windows:
            if shiboken6.isValid(window):
                window.removeEventFilter(self._reader)
        self._on_windows = []
