"""A panel's first visit as the window makes it: built inside a running event loop (a turn
of its own), then shown at 1280x720. `look` reads what the constructor left built when it
returned, before any later turn ran."""
from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore

WAIT_MS = 60_000


def built_in_a_turn(qtbot, make: Callable, look: Callable[[object], dict], show: bool = True):
    """(panel, what look saw at the constructor's return), the panel shown unless not asked."""
    made: dict = {}

    def build():
        panel = make()
        made["seen"] = look(panel)
        made["panel"] = panel

    QtCore.QTimer.singleShot(0, build)
    qtbot.waitUntil(lambda: "panel" in made, timeout=WAIT_MS)
    panel = made["panel"]
    qtbot.addWidget(panel)
    if show:
        panel.resize(1280, 720)
        panel.show()
    return panel, made["seen"]
