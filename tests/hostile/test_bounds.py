"""The corpus's watcher tells a hung child from a starved one: a child that makes no CPU
progress past the wall limit is killed; one still working runs on (tests/hostile/bounds.py)."""
from __future__ import annotations

import subprocess
import sys
import threading
import time

from tests.hostile import bounds


def _watched(code: str, limit_s: float) -> tuple[bool, float]:
    proc = subprocess.Popen([sys.executable, "-c", code])
    killed, done = threading.Event(), threading.Event()
    start = time.perf_counter()
    watcher = threading.Thread(target=bounds._watch, args=(proc, start, limit_s, killed, done), daemon=True)
    watcher.start()
    proc.wait()
    done.set()
    watcher.join()
    return killed.is_set(), time.perf_counter() - start


def test_a_child_that_waits_is_killed_once_it_stalls_past_the_limit():
    was_killed, wall = _watched("import time; time.sleep(120)", limit_s=0.5)
    assert was_killed
    assert bounds.STALL_S <= wall < bounds.STALL_S + 10


def test_a_child_still_working_past_the_limit_is_not_killed():
    # About 1.5 s of CPU against a 0.5 s wall limit: it makes progress all along.
    was_killed, _ = _watched("import time\nend = time.process_time() + 1.5\nwhile time.process_time() < end: pass",
                             limit_s=0.5)
    assert not was_killed


def test_the_cpu_bound_scales_with_the_machine_and_no_further_than_its_cap(monkeypatch):
    """The start's user CPU time over the reference machine's, clamped to [1, MAX_SLOWDOWN]:
    a faster machine keeps 5 s, a 3x slower one gets 15 s, a crawling one at most 20 s."""
    from tests.hostile import machine_speed

    for user_s, factor in ((0.085, 1.0), (0.51, 3.0), (10.0, machine_speed.MAX_SLOWDOWN)):
        machine_speed.slowdown.cache_clear()
        monkeypatch.setattr(machine_speed, "_user_s", lambda user_s=user_s: user_s)
        assert abs(machine_speed.slowdown() - factor) < 1e-12
        assert abs(bounds.cpu_limit_s() - bounds.LIMIT_S * factor) < 1e-12
    machine_speed.slowdown.cache_clear()


def test_the_yardstick_is_a_real_start_of_the_lab():
    """One fresh `python -m lab --version` costs measurable user CPU, below a minute."""
    from tests.hostile import machine_speed

    assert 0.0 < machine_speed._user_s() < 60.0
