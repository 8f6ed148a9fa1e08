"""widgets/kit/turns.py: steps one per turn of the event loop (other events run between
two steps), all at once with no loop running, nothing after stop(), the rest at finish()."""
from PySide6 import QtCore

from widgets.kit.turns import InTurns

WAIT_MS = 10_000


def _recording(log, name, post_between=False):
    def step():
        log.append(name)
        if post_between:  # an event queued by this step runs before the next step
            QtCore.QTimer.singleShot(0, lambda: log.append(f"after {name}"))
    step.__name__ = name
    return step


def test_with_no_loop_running_every_step_runs_now_then_then(qapp):
    log = []
    owner = QtCore.QObject()
    turns = InTurns(owner, [_recording(log, "a"), _recording(log, "b")], then=lambda: log.append("then"))
    assert log == ["a", "b", "then"] and turns.done and turns.pending == 0


def test_in_a_running_loop_one_step_a_turn_with_events_between(qtbot):
    log, made = [], {}
    owner = QtCore.QObject()

    def start():
        made["turns"] = InTurns(owner, [_recording(log, s, post_between=True) for s in "abc"],
                                then=lambda: log.append("then"))
        made["at_return"] = list(log)

    QtCore.QTimer.singleShot(0, start)
    qtbot.waitUntil(lambda: "turns" in made and made["turns"].done, timeout=WAIT_MS)
    assert made["at_return"] == []  # nothing ran inside the constructor
    assert log[:6] == ["a", "after a", "b", "after b", "c", "then"]


def test_first_now_runs_the_first_step_in_the_constructor(qtbot):
    log, made = [], {}
    owner = QtCore.QObject()

    def start():
        made["turns"] = InTurns(owner, [_recording(log, "a"), _recording(log, "b")], first_now=True)
        made["at_return"] = list(log)

    QtCore.QTimer.singleShot(0, start)
    qtbot.waitUntil(lambda: "turns" in made and made["turns"].done, timeout=WAIT_MS)
    assert made["at_return"] == ["a"] and log == ["a", "b"]


def test_stop_runs_nothing_more_and_finish_runs_the_rest_now(qtbot):
    log, made = [], {}
    owner = QtCore.QObject()

    def start():
        stopped = InTurns(owner, [_recording(log, "x"), _recording(log, "y")], then=lambda: log.append("then x"))
        stopped.stop()
        finished = InTurns(owner, [_recording(log, "a"), _recording(log, "b")], then=lambda: log.append("then a"))
        finished.finish()
        made.update(stopped=stopped, finished=finished, at_return=list(log))
        QtCore.QTimer.singleShot(20, lambda: made.setdefault("later", True))  # past a step's 1 ms timer

    QtCore.QTimer.singleShot(0, start)
    qtbot.waitUntil(lambda: "later" in made, timeout=WAIT_MS)
    assert made["at_return"] == ["a", "b", "then a"] and log == made["at_return"]
    assert made["stopped"].stopped and not made["stopped"].done and made["finished"].done


def test_now_without_loop_false_waits_for_a_loop(qtbot):
    log = []
    owner = QtCore.QObject()
    turns = InTurns(owner, [_recording(log, "a")], now_without_loop=False)
    assert log == [] and turns.pending == 1
    qtbot.waitUntil(lambda: turns.done, timeout=WAIT_MS)
    assert log == ["a"]


def test_a_step_may_insert_steps_that_run_before_the_queued_ones(qtbot):
    log = []
    owner = QtCore.QObject()
    holder = {}

    def grow():
        log.append("grow")
        holder["turns"].insert_next([_recording(log, "x"), _recording(log, "y")])

    holder["turns"] = InTurns(owner, [grow, _recording(log, "b")], then=lambda: log.append("then"),
                              now_without_loop=False)
    qtbot.waitUntil(lambda: holder["turns"].done, timeout=WAIT_MS)
    assert log == ["grow", "x", "y", "b", "then"]
