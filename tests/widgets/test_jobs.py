"""The one job runner: work off the GUI thread, latest edit wins, cancel, failures reported,
results for a widget that is gone dropped."""
import threading

from PySide6 import QtCore, QtWidgets

from core.cancel import CancelToken
from widgets.kit.jobs import BusyBadge, JobRunner


def _gate():
    """A job that waits until released (no sleeping: an event the test sets)."""
    release = threading.Event()

    def work(value, cancel: CancelToken):
        while not release.wait(0.01):
            cancel.check()
        return value, threading.get_ident()

    return release, work


def test_a_job_runs_off_the_gui_thread_and_reports_on_it(qtbot):
    runner = JobRunner()
    release, work = _gate()
    got = []
    runner.submit("k", work, 7, done=lambda r: got.append((r, threading.get_ident())))
    assert runner.busy("k")
    ticks = []
    timer = QtCore.QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    qtbot.waitUntil(lambda: len(ticks) >= 3, timeout=10_000)  # the GUI thread is free meanwhile
    release.set()
    qtbot.waitUntil(lambda: bool(got), timeout=30_000)
    (value, worker_thread), gui_thread = got[0]
    assert value == 7 and worker_thread != gui_thread == threading.get_ident()
    assert not runner.busy("k")


def test_the_latest_submit_of_a_key_wins(qtbot):
    runner = JobRunner()
    release, work = _gate()
    got = []
    runner.submit("k", work, "old", done=got.append)
    runner.submit("k", lambda: ("new", 0), done=got.append)
    qtbot.waitUntil(lambda: bool(got), timeout=30_000)
    release.set()
    assert runner.wait_idle()
    assert got == [("new", 0)]


def test_cancel_drops_the_result_and_clears_busy(qtbot):
    runner = JobRunner()
    release, work = _gate()
    got, states = [], []
    runner.busy_changed.connect(lambda key, busy: states.append(busy))
    runner.submit("k", work, 1, done=got.append)
    runner.cancel("k")
    assert runner.wait_idle()
    assert got == [] and states == [True, False] and not runner.busy("k")


def test_a_failing_job_reports_its_traceback(qtbot):
    runner = JobRunner()
    failures = []
    runner.submit("k", lambda: 1 / 0, failed=failures.append)
    qtbot.waitUntil(lambda: bool(failures), timeout=30_000)
    assert "ZeroDivisionError" in failures[0]
    with qtbot.waitSignal(runner.job_failed, timeout=30_000) as signal:
        runner.submit("k2", lambda: [][1])
    assert signal.args[0] == "k2" and "IndexError" in signal.args[1]


def test_a_result_for_a_deleted_widget_is_dropped(qtbot):
    runner = JobRunner()
    release, work = _gate()
    got = []
    owner = QtWidgets.QWidget()
    runner.submit("k", work, 1, done=got.append, context=owner)
    owner.deleteLater()
    qtbot.waitUntil(lambda: not _alive(owner), timeout=10_000)
    release.set()
    assert runner.wait_idle()
    assert got == []


def _alive(obj) -> bool:
    import shiboken6

    return shiboken6.isValid(obj)


def test_busy_badge_shows_while_its_key_runs_and_cancels_it(qtbot, monkeypatch):
    import widgets.kit.jobs as jobs_module

    runner = JobRunner()
    monkeypatch.setattr(jobs_module, "_RUNNER", runner)
    owner = QtWidgets.QWidget()
    qtbot.addWidget(owner)
    badge = BusyBadge("k", owner=owner, parent=owner)
    owner.show()
    release, work = _gate()
    runner.submit("k", work, 1)
    qtbot.waitUntil(badge.isVisible, timeout=10_000)
    assert owner.cursor().shape() == QtCore.Qt.CursorShape.BusyCursor
    badge.cancel_button.click()
    qtbot.waitUntil(lambda: not badge.isVisible(), timeout=10_000)
    assert not runner.busy("k")
    release.set()
    assert runner.wait_idle()
