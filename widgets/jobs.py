"""The one job runner: every computation that can take more than ~30 ms runs here, off the
GUI thread (replays, seed bands, verify, trace and image loads, a panel's first figures).

Jobs are keyed by what they compute ('serving.replay.A'): submitting a key again cancels
the job running under it and its result is dropped, so the latest edit wins. Results come
back on the GUI thread through a queued signal. `BusyBadge` shows a key's job on the card
doing the work, with cancel.

    jobs().submit("serving.band", band, values, seeds, done=self._on_band)

A function that takes a `cancel` keyword gets the job's CancelToken and can stop early.
"""
from __future__ import annotations

import inspect
import itertools
import logging
import traceback
from typing import Any, Callable

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from core.cancel import CancelToken, Cancelled

log = logging.getLogger("lab.jobs")


class _Relay(QtCore.QObject):
    """Carries a job's outcome from the worker thread to the GUI thread."""

    done = QtCore.Signal(int, object)
    failed = QtCore.Signal(int, str)


class _Worker(QtCore.QRunnable):
    def __init__(self, serial: int, fn: Callable[..., Any], args: tuple, kwargs: dict, relay: _Relay):
        super().__init__()
        self.setAutoDelete(True)
        self.serial, self.fn, self.args, self.kwargs, self.relay = serial, fn, args, kwargs, relay

    def run(self) -> None:
        try:
            result = self.fn(*self.args, **self.kwargs)
        except Cancelled:
            self.relay.failed.emit(self.serial, "")
        except BaseException:  # noqa: BLE001 - reported on the GUI thread, never lost
            self.relay.failed.emit(self.serial, traceback.format_exc())
        else:
            self.relay.done.emit(self.serial, result)


class Job:
    def __init__(self, key: str, serial: int, token: CancelToken, done, failed, context):
        self.key, self.serial, self.token = key, serial, token
        self.done, self.failed, self.context = done, failed, context


class JobRunner(QtCore.QObject):
    """Runs jobs on a thread pool; at most one live job per key."""

    busy_changed = QtCore.Signal(str, bool)  # key, busy
    job_failed = QtCore.Signal(str, str)  # key, traceback text (a bug, not a cancel)

    def __init__(self, max_threads: int | None = None, parent=None):
        super().__init__(parent)
        self._pool = QtCore.QThreadPool(self)
        if max_threads:
            self._pool.setMaxThreadCount(max_threads)
        self._relay = _Relay()
        self._relay.done.connect(self._on_done, QtCore.Qt.ConnectionType.QueuedConnection)
        self._relay.failed.connect(self._on_failed, QtCore.Qt.ConnectionType.QueuedConnection)
        self._serials = itertools.count(1)
        self._live: dict[str, Job] = {}  # key -> latest job
        self._running: dict[int, Job] = {}  # serial -> every job not yet returned

    def submit(self, key: str, fn: Callable[..., Any], *args: Any,
               done: Callable[[Any], None] | None = None,
               failed: Callable[[str], None] | None = None,
               context: QtCore.QObject | None = None, **kwargs: Any) -> Job:
        """Run fn(*args, **kwargs) on the pool. done(result) runs on the GUI thread if this
        is still the latest job of key and context (a widget) still exists."""
        self.cancel(key, quiet=True)
        token = CancelToken()
        if _accepts_cancel(fn):
            kwargs["cancel"] = token
        job = Job(key, next(self._serials), token, done, failed, context)
        self._live[key] = job
        self._running[job.serial] = job
        self.busy_changed.emit(key, True)
        self._pool.start(_Worker(job.serial, fn, args, kwargs, self._relay))
        return job

    def cancel(self, key: str, quiet: bool = False) -> None:
        """Stop the job of key (its result will be dropped)."""
        job = self._live.pop(key, None)
        if job is not None:
            job.token.cancel()
            if not quiet:
                self.busy_changed.emit(key, False)

    def busy(self, key: str) -> bool:
        return key in self._live

    def busy_keys(self) -> list[str]:
        return list(self._live)

    def wait_idle(self, timeout_ms: int = 60_000) -> bool:
        """Block until every job has returned and its result was delivered (close, tests)."""
        ok = self._pool.waitForDone(timeout_ms)
        QtCore.QCoreApplication.sendPostedEvents(self._relay)
        QtCore.QCoreApplication.processEvents()
        return ok and not self._running

    def shutdown(self, timeout_ms: int = 2_000) -> None:
        """Cancel everything and wait briefly: closing the window never hangs on a job."""
        for key in list(self._live):
            self.cancel(key)
        self._pool.clear()
        self._pool.waitForDone(timeout_ms)

    def _take(self, serial: int) -> Job | None:
        job = self._running.pop(serial, None)
        if job is None or self._live.get(job.key) is not job:
            return None  # superseded or cancelled: the latest edit wins
        del self._live[job.key]
        self.busy_changed.emit(job.key, False)
        if job.context is not None and not shiboken6.isValid(job.context):
            return None
        return job

    def _on_done(self, serial: int, result: Any) -> None:
        job = self._take(serial)
        if job is not None and job.done is not None:
            job.done(result)

    def _on_failed(self, serial: int, text: str) -> None:
        job = self._take(serial)
        if job is None or not text:
            return
        log.error("job %s failed:\n%s", job.key, text)
        if job.failed is not None:
            job.failed(text)
        else:
            self.job_failed.emit(job.key, text)


def _accepts_cancel(fn: Callable[..., Any]) -> bool:
    try:
        return "cancel" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False


_RUNNER: JobRunner | None = None


def jobs() -> JobRunner:
    """The app's one runner (made on first use, parented to the application)."""
    global _RUNNER
    if _RUNNER is None or not shiboken6.isValid(_RUNNER):
        _RUNNER = JobRunner(parent=QtWidgets.QApplication.instance())
    return _RUNNER


class BusyBadge(QtWidgets.QWidget):
    """'computing…' with an indeterminate bar and ✕ cancel, shown while any of keys is
    busy (after a short delay, so quick jobs do not flicker), with a busy cursor on the
    widget that owns the work."""

    DELAY_MS = 150

    def __init__(self, *keys: str, owner: QtWidgets.QWidget | None = None, text: str = "computing…", parent=None):
        super().__init__(parent)
        self._keys = set(keys)
        self._owner = owner
        layout = QtWidgets.QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(4)
        self.label = QtWidgets.QLabel(text)
        self.label.setProperty("role", "caption")
        self.bar = QtWidgets.QProgressBar()
        self.bar.setRange(0, 0)
        self.bar.setTextVisible(False)
        self.bar.setFixedSize(60, 8)
        self.cancel_button = QtWidgets.QToolButton()
        self.cancel_button.setText("✕")
        self.cancel_button.setToolTip("Cancel this computation")
        self.cancel_button.clicked.connect(self.cancel)
        layout.addWidget(self.label)
        layout.addWidget(self.bar)
        layout.addWidget(self.cancel_button)
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.setInterval(self.DELAY_MS)
        self._timer.timeout.connect(self._appear)
        self.setVisible(False)
        jobs().busy_changed.connect(self._on_busy_changed)

    def add_key(self, key: str) -> None:
        self._keys.add(key)

    @property
    def busy(self) -> bool:
        return any(jobs().busy(k) for k in self._keys)

    def cancel(self) -> None:
        for key in self._keys:
            jobs().cancel(key)

    def _on_busy_changed(self, key: str, _busy: bool) -> None:
        if key not in self._keys or not shiboken6.isValid(self):
            return
        if self.busy:
            if not self.isVisible() and not self._timer.isActive():
                self._timer.start()
        else:
            self._timer.stop()
            self.setVisible(False)
            if self._owner is not None and shiboken6.isValid(self._owner):
                self._owner.unsetCursor()

    def _appear(self) -> None:
        if self.busy:
            self.setVisible(True)
            if self._owner is not None:
                self._owner.setCursor(QtGui.QCursor(QtCore.Qt.CursorShape.BusyCursor))

    def closeEvent(self, event):  # noqa: N802
        _disconnect(jobs().busy_changed, self._on_busy_changed)
        super().closeEvent(event)


def _disconnect(signal, slot) -> None:
    try:
        signal.disconnect(slot)
    except (RuntimeError, TypeError):
        pass
