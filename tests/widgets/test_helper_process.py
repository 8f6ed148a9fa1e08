"""The helper process that runs the Voice panel's replays off the GUI process's GIL."""
from __future__ import annotations

import os
import threading

import pytest

from core.cancel import Cancelled, CancelToken
from core.voice import VoiceParams, simulate_voice
from widgets.kit.helper_process import HelperProcess


@pytest.fixture
def helper():
    h = HelperProcess()
    yield h
    h.shutdown()


def test_a_call_runs_in_another_process_and_equals_the_run_here(helper):
    params = VoiceParams.from_raw({"turns": "20"})
    there = helper.call(simulate_voice, params)
    here = simulate_voice(params)
    assert helper.pid() not in (None, os.getpid())
    assert [t.silence_s for t in there.turns] == [t.silence_s for t in here.turns]
    timing = {"wall_s"}  # how long it took: the one figure that may differ
    assert {k: v for k, v in there.summary.items() if k not in timing} == {
        k: v for k, v in here.summary.items() if k not in timing}
    helper.call(simulate_voice, params)
    assert helper.starts == 1  # the process is kept for the next call


def test_an_error_in_the_helper_comes_back_with_its_traceback(helper):
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        helper.call(divmod, 1, 0)
    assert helper.call(divmod, 7, 2) == (3, 1)  # the process goes on


def test_cancel_kills_the_computation_and_the_next_call_starts_afresh(helper):
    import time as _time

    token = CancelToken()
    helper.call(divmod, 1, 1)
    first = helper.pid()
    outcome = []

    def wait_long():
        try:
            helper.call(_time.sleep, 600, cancel=token)
        except Cancelled:
            outcome.append("cancelled")

    worker = threading.Thread(target=wait_long)
    worker.start()
    token.cancel()
    worker.join(timeout=30)
    assert outcome == ["cancelled"]
    assert helper.call(divmod, 9, 4) == (2, 1)
    assert helper.starts == 2 and helper.pid() != first
