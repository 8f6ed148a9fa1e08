"""Cooperative cancellation for long computations: the job runner hands a token to the
work, and the work checks it at its natural steps (an engine step, a seed, a row)."""
from __future__ import annotations

import threading


class Cancelled(Exception):
    """Raised inside a computation whose token was cancelled; the runner drops it."""


class CancelToken:
    def __init__(self) -> None:
        self._event = threading.Event()

    def cancel(self) -> None:
        self._event.set()

    @property
    def cancelled(self) -> bool:
        return self._event.is_set()

    def check(self) -> None:
        """Raise Cancelled if cancel() was called (from any thread)."""
        if self._event.is_set():
            raise Cancelled()


NEVER = CancelToken()  # for callers that never cancel
