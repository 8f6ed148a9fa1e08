"""How much slower this machine runs the lab than the one the corpus's CPU bound was set
on: the bound is "5 s of CPU there", and on a slower core the same work takes more CPU
seconds (the fresh-clone CI of one stop ran the same suite 3x slower than the last).

The yardstick is `python -m lab --version`'s user CPU time (the interpreter and the lab's
start, what every CLI case pays first), best of three fresh processes so a busy moment or
a first bytecode compile does not count, against REFERENCE_USER_S, what it took where the
bound was set (7214c5c's five runs, bytecode compiled). The factor is at least 1 (a faster
machine keeps the bound) and at most MAX_SLOWDOWN, so a hang or a blow-up by minutes
still fails on any machine."""
from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path

REFERENCE_USER_S = 0.17
MAX_SLOWDOWN = 4.0
RUNS = 3
REPO = Path(__file__).resolve().parents[2]


def _user_s() -> float:
    """User CPU seconds of one fresh `python -m lab --version`."""
    before = os.times()
    subprocess.run([sys.executable, "-m", "lab", "--version"], cwd=REPO, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    return os.times().children_user - before.children_user


@functools.cache
def slowdown() -> float:
    """This machine's CPU time over the reference machine's for the same start, in
    [1, MAX_SLOWDOWN]; measured once a process."""
    best = min(_user_s() for _ in range(RUNS))
    return min(max(best / REFERENCE_USER_S, 1.0), MAX_SLOWDOWN)
