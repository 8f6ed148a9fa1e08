"""A job's computation in a helper process, so it never competes with the GUI thread for
the interpreter lock.

A job on the runner's worker thread (widgets/kit/jobs.py) that runs pure Python for tens of ms
holds the GIL between the GUI thread's many short calls into Python (each pyqtgraph paint
calls back into Python hundreds of times, and each call waits for the lock): while the
Voice panel's load slider was dragged, a replay beside it doubled the GUI's frame times
(bench/bench_voice_panel.py). Sent to a helper process, the job's thread only waits on a
pipe, with the lock released.

One process, started on first use (forkserver: a small clean parent, no copy of Qt's
threads) and kept for the next calls; one call at a time. Cancel kills it (the next call
starts another); a process that dies or cannot start is an error the job reports, and
`call` falls back to running in the calling thread when processes cannot be made at all.
"""
from __future__ import annotations

import atexit
import signal
import threading
import traceback
from collections.abc import Callable
from typing import Any

from core.cancel import NEVER, Cancelled, CancelToken
from core.sweep.executors import pool_context

POLL_S = 0.02  # how often a waiting call looks at its cancel token


class HelperProcessDied(RuntimeError):
    """The helper process ended in the middle of a call (killed, out of memory)."""


def _serve(conn) -> None:
    """The helper's loop: (fn, args) in, (True, result) or (False, the error's text) out."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl+C is the GUI process's to handle
    while True:
        try:
            fn, args = conn.recv()
        except EOFError:  # the GUI process has gone
            return
        try:
            reply = (True, fn(*args))
        except BaseException:  # noqa: BLE001 - the caller reports it
            reply = (False, traceback.format_exc())
        conn.send(reply)


class HelperProcess:
    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._process = None
        self._conn = None
        self.starts = 0  # processes started (tests: a cancel starts a fresh one)
        self.unavailable = False  # processes cannot be made here: calls run in the thread

    def call(self, fn: Callable[..., Any], *args: Any, cancel: CancelToken = NEVER) -> Any:
        """fn(*args) in the helper process (fn and args picklable, fn importable without Qt).
        Raises Cancelled when cancel fires (the process is killed), HelperProcessDied, or a
        RuntimeError carrying the helper's traceback when fn raised."""
        if self.unavailable:
            return fn(*args)
        with self._lock:
            try:
                conn = self._ensure()
            except OSError:
                self.unavailable = True
                return fn(*args)
            conn.send((fn, args))
            while not conn.poll(POLL_S):
                if cancel.cancelled:
                    self._stop()
                    raise Cancelled()
                if not self._process.is_alive():
                    self._stop()
                    raise HelperProcessDied("the helper process ended during the computation")
            try:
                ok, value = conn.recv()
            except EOFError:
                self._stop()
                raise HelperProcessDied("the helper process ended during the computation") from None
        if not ok:
            raise RuntimeError(f"in the helper process:\n{value}")
        return value

    def pid(self) -> int | None:
        return self._process.pid if self._process is not None and self._process.is_alive() else None

    def _ensure(self):
        if self._process is not None and self._process.is_alive():
            return self._conn
        self._stop()
        context = pool_context()
        parent_end, child_end = context.Pipe()
        process = context.Process(target=_serve, args=(child_end,), daemon=True, name="lab-helper")
        process.start()
        child_end.close()
        self._process, self._conn = process, parent_end
        self.starts += 1
        return parent_end

    def _stop(self) -> None:
        process, conn = self._process, self._conn
        self._process = self._conn = None
        if conn is not None:
            conn.close()
        if process is not None:
            if process.is_alive():
                process.kill()
            process.join(timeout=5)

    def shutdown(self) -> None:
        with self._lock:
            self._stop()


_HELPER: HelperProcess | None = None


def helper() -> HelperProcess:
    global _HELPER
    if _HELPER is None:
        _HELPER = HelperProcess()
        atexit.register(_HELPER._stop)
    return _HELPER
