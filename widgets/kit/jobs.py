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

import gc
import inspect
import itertools
import logging
import os
import queue
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from core.cancel import Cancelled, CancelToken

log = logging.getLogger("lab.jobs")

# A job in pure Python keeps the GIL until the interpreter's switch interval (5 ms by
# default) runs out each time the GUI thread asks for it, and a repaint asks many times
# (Qt calls back into pyqtgraph's items): a 4 ms repaint took 12-26 ms (p50-p95) beside a
# thread busy in Python, 6-10 ms at 0.5 ms (see bench/bench_voice_panel.py: a slider drag).
GUI_SWITCH_INTERVAL_S = 0.0005


class _Relay(QtCore.QObject):
    """Carries a job's outcome from the worker thread to the GUI thread."""

    done = QtCore.Signal(int, object)
    failed = QtCore.Signal(int, str)


class Job:
    def __init__(self, key: str, serial: int, token: CancelToken, done, failed, context):
        self.key, self.serial, self.token = key, serial, token
        self.done, self.failed, self.context = done, failed, context


class _Pool:
    """Daemon worker threads pulling from one queue.

    Plain Python threads rather than QThreadPool/QRunnable: the queue holds every piece of
    work by a Python reference until it has run (a QRunnable's Python side can be
    collected while it waits in Qt's queue, and its job then never returns), and daemon
    threads never hold up the process's exit behind a decode that cannot be interrupted.
    """

    def __init__(self, max_threads: int):
        self.max_threads = max_threads
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._threads: list[threading.Thread] = []
        self._lock = threading.Lock()
        self._active = 0
        self._pending = 0

    def start(self, work: Callable[[], None]) -> None:
        with self._lock:
            self._pending += 1
            if len(self._threads) < self.max_threads and self._pending > len(self._threads) - self._active:
                thread = threading.Thread(target=self._serve, name=f"lab-job-{len(self._threads) + 1}", daemon=True)
                self._threads.append(thread)
                thread.start()
        self._queue.put(work)

    def active_count(self) -> int:
        return self._active

    def _serve(self) -> None:
        while True:
            work = self._queue.get()
            with self._lock:
                self._pending -= 1
                self._active += 1
            try:
                work()
            finally:
                del work
                with self._lock:
                    self._active -= 1


class JobRunner(QtCore.QObject):
    """Runs jobs on worker threads; at most one live job per key."""

    busy_changed = QtCore.Signal(str, bool)  # key, busy
    job_failed = QtCore.Signal(str, str)  # key, traceback text (a bug, not a cancel)

    def __init__(self, max_threads: int | None = None, parent=None):
        super().__init__(parent)
        self._pool = _Pool(max_threads or max(2, os.cpu_count() or 2))
        self._relay = _Relay()
        self._relay.done.connect(self._on_done, QtCore.Qt.ConnectionType.QueuedConnection)
        self._relay.failed.connect(self._on_failed, QtCore.Qt.ConnectionType.QueuedConnection)
        self._serials = itertools.count(1)
        self._live: dict[str, Job] = {}  # key -> latest job
        self._running: dict[int, Job] = {}  # serial -> every job not yet returned
        self._returned: set[int] = set()  # serials whose worker has finished (any thread)
        _pin_garbage_collection_to_gui_thread()
        if sys.getswitchinterval() > GUI_SWITCH_INTERVAL_S:
            sys.setswitchinterval(GUI_SWITCH_INTERVAL_S)

    def submit(self, key: str, fn: Callable[..., Any], *args: Any,
               done: Callable[[Any], None] | None = None,
               failed: Callable[[str], None] | None = None,
               context: QtCore.QObject | None = None, **kwargs: Any) -> Job:
        """Run fn(*args, **kwargs) on a worker. done(result) runs on the GUI thread if this
        is still the latest job of key and context (a widget) still exists."""
        self.cancel(key, quiet=True)
        token = CancelToken()
        if _accepts_cancel(fn):
            kwargs["cancel"] = token
        job = Job(key, next(self._serials), token, done, failed, context)
        self._live[key] = job
        self._running[job.serial] = job
        self.busy_changed.emit(key, True)
        relay, returned, serial = self._relay, self._returned, job.serial

        def work() -> None:
            try:
                result = fn(*args, **kwargs)
            except Cancelled:
                outcome = (relay.failed, "")
            except BaseException:  # noqa: BLE001 - reported on the GUI thread, never lost
                outcome = (relay.failed, traceback.format_exc())
            else:
                outcome = (relay.done, result)
            returned.add(serial)
            try:
                outcome[0].emit(serial, outcome[1])
            except RuntimeError:  # the application is gone (process exit): nobody to tell
                pass

        self._pool.start(work)
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

    def active_count(self) -> int:
        """Worker threads running a job now."""
        return self._pool.active_count()

    def unreturned(self) -> list[str]:
        """Keys of jobs whose result has not been handled yet (benches report these)."""
        return [job.key for job in self._running.values()]

    def wait_idle(self, timeout_ms: int = 60_000) -> bool:
        """Block until every job has returned and its result was delivered (close, tests)."""
        deadline = time.monotonic() + timeout_ms / 1000
        while self._running and time.monotonic() < deadline:
            if all(serial in self._returned for serial in self._running):
                QtCore.QCoreApplication.sendPostedEvents()
                QtCore.QCoreApplication.processEvents()
            else:
                time.sleep(0.002)  # a worker is still computing; its outcome posts an event
        QtCore.QCoreApplication.processEvents()
        return not self._running

    def shutdown(self, timeout_ms: int = 2_000) -> None:
        """Cancel everything and wait briefly: closing the window never hangs on a job."""
        for key in list(self._live):
            self.cancel(key)
        deadline = time.monotonic() + timeout_ms / 1000
        while any(s not in self._returned for s in self._running) and time.monotonic() < deadline:
            time.sleep(0.005)

    def _take(self, serial: int) -> Job | None:
        self._returned.discard(serial)
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


_GC_PUMP: QtCore.QTimer | None = None


# The pump looks often, so each young collection finds few objects (at 500 ms one found a
# panel's build and took 30-70 ms). A full collection walks the whole heap (0.1-0.25 s of
# the GUI thread with the panels built): CPython's own collector waits until a quarter of
# the heap is new; this one, which cannot see that count, at most once in FULL_GC_EVERY_S.
GC_PUMP_MS = 100
FULL_GC_EVERY_S = 60.0


def _pin_garbage_collection_to_gui_thread() -> None:
    """Python's cyclic collector runs on whichever thread trips its threshold; on a worker
    it could destroy a QObject caught in a cycle from the wrong thread. So automatic
    collection is off and a GUI-thread timer collects when the counts say so (as
    pyqtgraph's GarbageCollector does)."""
    global _GC_PUMP
    app = QtCore.QCoreApplication.instance()
    if _GC_PUMP is not None and shiboken6.isValid(_GC_PUMP) or app is None:
        return
    gc.disable()
    thresholds = gc.get_threshold()
    last_full = [time.monotonic()]

    def collect() -> None:
        counts = gc.get_count()
        if counts[2] > thresholds[2] and time.monotonic() - last_full[0] >= FULL_GC_EVERY_S:
            gc.collect(2)
            last_full[0] = time.monotonic()
            return
        for generation in (1, 0):  # the young ones meanwhile
            if counts[generation] > thresholds[generation]:
                gc.collect(generation)
                break

    _GC_PUMP = QtCore.QTimer(app)
    _GC_PUMP.setInterval(GC_PUMP_MS)
    _GC_PUMP.timeout.connect(collect)
    _GC_PUMP.start()


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
    widget that owns the work. With no keys it watches every job and names them (the
    window's status bar)."""

    DELAY_MS = 150
    MAX_NAMED = 3

    def __init__(self, *keys: str, owner: QtWidgets.QWidget | None = None, text: str = "computing…",
                 parent=None):
        super().__init__(parent)
        self._keys = set(keys)
        self._owner = owner
        self._text = text
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
        self.cancel_button.setText("✕" if keys else "✕ cancel")
        self.cancel_button.setToolTip("Cancel this computation" if keys else "Cancel every computation that is running")
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

    def watched(self) -> list[str]:
        """The busy keys this badge stands for."""
        return [k for k in jobs().busy_keys() if not self._keys or k in self._keys]

    @property
    def busy(self) -> bool:
        return bool(self.watched())

    def cancel(self) -> None:
        for key in self.watched():
            jobs().cancel(key)

    def _on_busy_changed(self, key: str, _busy: bool) -> None:
        if (self._keys and key not in self._keys) or not shiboken6.isValid(self):
            return
        if not self.busy:
            self._timer.stop()
            self.setVisible(False)
            if self._owner is not None and shiboken6.isValid(self._owner):
                self._owner.unsetCursor()
        elif self.isVisible():
            self._appear()  # names may have changed
        elif not self._timer.isActive():
            self._timer.start()

    def _appear(self) -> None:
        keys = self.watched()
        if not keys:
            return
        if not self._keys:
            named = ", ".join(keys[:self.MAX_NAMED]) + (f" +{len(keys) - self.MAX_NAMED}" if len(keys) > self.MAX_NAMED else "")
            self.label.setText(f"computing: {named}")
        self.setVisible(True)
        if self._owner is not None:
            self._owner.setCursor(QtGui.QCursor(QtCore.Qt.CursorShape.BusyCursor))

    def detach(self) -> None:
        """Stop following the runner (the badge's window is closing)."""
        self._timer.stop()
        _disconnect(jobs().busy_changed, self._on_busy_changed)

    def closeEvent(self, event):
        self.detach()
        super().closeEvent(event)


def _disconnect(signal, slot) -> None:
    try:
        signal.disconnect(slot)
    except (RuntimeError, TypeError):
        pass
