"""The engine's memory: its arrays allocated on small pages (pages.py) and its series
allocated once for the replay (state.py), grown by doubling only past that."""
from __future__ import annotations

import threading

import numpy as np
import pytest

from core.serving.engine import EngineConfig, pages, replay
from core.serving.engine import state as engine_state
from core.serving.engine.driver import Engine
from tests.core.test_engine_frozen import CASES, assert_identical
from tests.oracles.frozen_engine import replay as frozen_replay

switch = pages._set_madvise_hugepage
needs_switch = pytest.mark.skipif(switch is None, reason="this numpy has no huge-page switch")


def advice() -> bool:
    """numpy's setting now (setting it returns the one before)."""
    before = switch(True)
    switch(before)
    return before


@needs_switch
@pytest.mark.parametrize("setting", [True, False])
def test_small_pages_switches_numpy_advice_off_and_back(setting):
    before = switch(setting)
    try:
        with pages.small_pages():
            assert advice() is False
            with pages.small_pages():
                assert advice() is False
            assert advice() is False  # the inner exit leaves the outer's switch
        assert advice() is setting
        with pytest.raises(RuntimeError, match="inside"), pages.small_pages():
            raise RuntimeError("inside")
        assert advice() is setting
    finally:
        switch(before)


@needs_switch
def test_threads_share_one_switch():
    # Two replays on job threads at once: the first to leave does not turn advice back on
    # under the other; the last one out restores it.
    before = switch(True)
    inside, leave, left = threading.Event(), threading.Event(), threading.Event()

    def other():
        with pages.small_pages():
            inside.set()
            leave.wait(10)
        left.set()
    try:
        with pages.small_pages():
            t = threading.Thread(target=other)
            t.start()
            assert inside.wait(10)
        assert advice() is False  # the thread is still inside
        leave.set()
        assert left.wait(10)
        t.join(10)
        assert advice() is True
    finally:
        switch(before)


@needs_switch
def test_a_replay_leaves_numpy_advice_as_it_was():
    before = switch(True)
    try:
        work, config = CASES["synthetic_seed7"]()
        replay(work, config)
        assert advice() is True
    finally:
        switch(before)


def test_series_are_allocated_for_the_replay_at_once():
    work, config = CASES["synthetic_seed7"]()
    e = Engine(work, config)
    cap = e.state.ser_t.size
    assert cap == engine_state.SERIES_START + engine_state.SERIES_PER_REQUEST * len(work)
    result = e.run()
    assert result.events + 1 <= cap and e.state.ser_t.size == cap  # no doubling on the way


@pytest.mark.parametrize("fast", [True, False])
@pytest.mark.parametrize("case", ["synthetic_preempting_seed3", "sessions_tool_waits", "hash_ids"])
def test_series_and_log_grown_from_almost_nothing_equal_frozen(monkeypatch, case, fast):
    # Room for two entries: the loop asks for more (ST_GROW) again and again mid-replay.
    monkeypatch.setattr(engine_state, "SERIES_START", 2)
    monkeypatch.setattr(engine_state, "SERIES_PER_REQUEST", 0)
    work, config = CASES[case]()
    e = Engine(work, config, fast)
    assert e.state.ser_t.size == 2
    new = e.run()
    assert e.state.ser_t.size > 2 ** 10
    assert_identical(new, frozen_replay(work, config, fast=fast))


def test_a_one_request_replay_has_one_series_entry_per_event_after_t0():
    from core.serving.workload import Workload
    r = replay(Workload(np.zeros(1), np.array([10]), np.array([2])), EngineConfig())
    assert r.finish_s[0] > 0 and r.series_t.size == r.events + 1
