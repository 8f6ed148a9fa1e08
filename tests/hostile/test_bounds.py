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
