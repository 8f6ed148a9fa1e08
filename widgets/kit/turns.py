"""Building a panel a piece per turn of the event loop, so that a first visit never holds
the window for the whole build: the panel shows its first pieces at once and fills in
while the user reads them. Voice, Audio, Serving, Vision and StagedGrid (widgets.kit.page)
build through it.

With no event loop running (tests, `lab snapshot`, scripts) nothing would run the later
turns, so everything is built at once unless the owner asks otherwise.
"""
from __future__ import annotations

from collections import deque

from PySide6 import QtCore

TURN_MS = 1  # a timer, not a queued call: paints and input queued meanwhile go between two pieces


def loop_running() -> bool:
    """True while an event loop runs on this thread (a piece built later will be run)."""
    return QtCore.QThread.currentThread().loopLevel() > 0


class InTurns(QtCore.QObject):
    """Runs steps (callables) one per turn of the event loop, then `then` once.

    owner: the QObject the steps build (the timer dies with it, so a freed panel runs no
    further step). first_now: the first step runs before the constructor returns.
    now_without_loop: with no event loop running, run every step now (False: wait for one).
    stop() when the owner closes; finish() builds what is left at once."""

    finished = QtCore.Signal()

    def __init__(self, owner: QtCore.QObject, steps, then=None, first_now: bool = False,
                 now_without_loop: bool = True):
        super().__init__(owner)
        self._steps = deque(steps)
        self._then = then
        self.done = self.stopped = False
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(TURN_MS)
        self._timer.timeout.connect(self._next)
        if now_without_loop and not loop_running():
            self.finish()
        elif first_now:
            self._next()
        else:
            self._timer.start()

    @property
    def pending(self) -> int:
        """Steps not run yet."""
        return len(self._steps)

    def insert_next(self, steps) -> None:
        """Run these steps before the ones still queued (a step that finds more to build)."""
        self._steps.extendleft(reversed(list(steps)))

    def finish(self) -> None:
        """Run what is left now, in one go."""
        self._timer.stop()
        while self._steps and not self.stopped:
            self._steps.popleft()()
        self._end()

    def stop(self) -> None:
        """The owner is closing: run nothing more."""
        self.stopped = True
        self._timer.stop()

    def _next(self) -> None:
        if self.stopped or self.done:
            return
        if self._steps:
            self._steps.popleft()()
        if self.stopped:
            return
        if self._steps:
            self._timer.start()
        else:
            self._end()

    def _end(self) -> None:
        if self.done or self.stopped:
            return
        self.done = True
        if self._then is not None:
            self._then()
        self.finished.emit()
