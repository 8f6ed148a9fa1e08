"""Runs one sweep at a time off the GUI thread: core.sweep.run.run_sweep on the job runner,
its rows and progress carried back to the GUI thread by queued signals as they finish.

The spec is parsed in the job too (every point is resolved and keyed, a trace file is
read for its digest) and handed back first (`parsed`); a refusal comes back as the
ParamError's field and message. The executor is made in the job (starting Ray or a
process pool can take seconds). Each
run has its own relay, disconnected on cancel, so a row that was already in flight when
the user pressed Cancel never reaches the table of the next run.
"""
from __future__ import annotations

from typing import NamedTuple

import shiboken6
from PySide6 import QtCore

from core.registry import ParamError
from core.sweep.executors import InProcess, make_executor
from core.sweep.run import parse_sweep, run_sweep
from widgets.kit.jobs import jobs


class Refused(NamedTuple):
    """The job's answer to bad input (a ParamError is not a bug: no traceback, no log)."""

    field: str
    message: str


class _Relay(QtCore.QObject):
    """Lives on the GUI thread; its signals are emitted from the job's thread."""

    parsed = QtCore.Signal(object)
    row = QtCore.Signal(object)
    progress = QtCore.Signal(int, int)


def run_in_job(raw: dict[str, str], out_dir: str | None, engine: str, workers: int, address: str | None,
               relay: _Relay, force: bool = False, cancel=None, kind: str = "serving") -> dict | Refused:
    """The job: parse the sweep (`lab sweep KIND`'s keys), make the executor, run the sweep,
    close the executor (even on cancel)."""
    try:
        spec = parse_sweep(kind, raw)
        relay.parsed.emit(spec)
        executor = InProcess() if engine == "inprocess" else make_executor(engine, workers, address or None)
    except ParamError as err:  # bad input, not a bug: shown under its field
        return Refused(err.param, err.message)
    if cancel is not None and cancel.cancelled:
        executor.close()
        return {"cancelled": True}
    try:
        kwargs = {"cancel": cancel} if cancel is not None else {}
        return run_sweep(spec, out_dir, executor, force=force, on_row=relay.row.emit,
                         progress=relay.progress.emit, **kwargs)
    except ParamError as err:  # the results folder holds another sweep, or cannot be written
        return Refused(err.param, err.message)
    finally:
        executor.close()


class SweepRunner(QtCore.QObject):
    """start() a sweep; rows, progress and the end come back as signals on the GUI thread."""

    parsed = QtCore.Signal(object)  # the SweepSpec (axes, points) before the first row
    row_arrived = QtCore.Signal(object)  # one finished point's row (dict)
    progressed = QtCore.Signal(int, int)  # done, total
    finished = QtCore.Signal(object)  # the sweep's summary (dict)
    failed = QtCore.Signal(str, str)  # field ('' when none), message
    cancelled = QtCore.Signal()
    running_changed = QtCore.Signal(bool)

    def __init__(self, parent=None):
        super().__init__(parent)
        self.key = f"plan.sweep.{id(self)}"
        self._relay: _Relay | None = None
        self.rows: list[dict] = []
        self.summary: dict | None = None

    @property
    def running(self) -> bool:
        return self._relay is not None

    def start(self, raw: dict[str, str], engine: str, workers: int, address: str | None,
              out_dir: str | None = None, force: bool = False, kind: str = "serving") -> None:
        """Run the sweep of raw (`lab sweep KIND` keys as text: serving, or rl for the RL
        split card), cancelling one still running; engine 'local', 'ray' or 'inprocess'
        (the job's own thread)."""
        self.cancel(quiet=True)
        self.rows, self.summary = [], None
        relay = self._relay = _Relay(self)
        queued = QtCore.Qt.ConnectionType.QueuedConnection
        # Each slot checks its relay is still the current one: a row posted before a cancel
        # (or before the next run started) is dropped, whatever Qt does with posted events.
        relay.parsed.connect(lambda spec, r=relay: self._current(r) and self.parsed.emit(spec), queued)
        relay.row.connect(lambda row, r=relay: self._current(r) and self._on_row(row), queued)
        relay.progress.connect(lambda done, total, r=relay: self._current(r) and self.progressed.emit(done, total),
                               queued)
        self.running_changed.emit(True)
        jobs().submit(self.key, run_in_job, raw, out_dir, engine, workers, address, relay, force, kind=kind,
                      done=lambda summary, r=relay: self._on_done(r, summary),
                      failed=lambda text, r=relay: self._on_failed(r, text), context=self)

    def cancel(self, quiet: bool = False) -> None:
        """Stop the running sweep: its executor is closed in the job, the rows in flight dropped."""
        relay = self._relay
        if relay is None:
            return
        self._drop(relay)
        jobs().cancel(self.key)
        self.running_changed.emit(False)
        if not quiet:
            self.cancelled.emit()

    def _drop(self, relay: _Relay) -> None:
        for signal in (relay.parsed, relay.row, relay.progress):
            try:
                signal.disconnect()
            except (RuntimeError, TypeError):
                pass
        if self._relay is relay:
            self._relay = None

    def _current(self, relay: _Relay) -> bool:
        return relay is self._relay

    def _on_row(self, row: dict) -> None:
        self.rows.append(row)
        self.row_arrived.emit(row)

    def _on_done(self, relay: _Relay, summary: dict) -> None:
        if relay is not self._relay:
            return
        # The rows were posted before the job returned: they have all been delivered.
        self._drop(relay)
        self.running_changed.emit(False)
        if isinstance(summary, Refused):
            self.failed.emit(summary.field, summary.message)
            return
        self.summary = summary
        self.finished.emit(summary)

    def _on_failed(self, relay: _Relay, text: str) -> None:
        if relay is not self._relay:
            return
        self._drop(relay)
        self.running_changed.emit(False)
        field, message = failure_message(text)
        self.failed.emit(field, message)

    def close(self) -> None:
        if shiboken6.isValid(self):
            self.cancel(quiet=True)


def failure_message(text: str) -> tuple[str, str]:
    """('', the exception's last line) of a job's traceback (a ParamError raised while the
    points ran, e.g. by an executor, keeps its field)."""
    lines = [line for line in text.strip().splitlines() if line.strip()]
    last = lines[-1] if lines else "the sweep failed"
    name, _, message = last.partition(": ")
    if name.endswith("ParamError") and message:
        field, _, rest = message.partition(": ")
        return (field, rest) if rest else ("", message)
    return "", last
