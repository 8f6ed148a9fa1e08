"""Imported only by the forkserver of LocalPool's workers (its preload list, set in
core.sweep.executors.worker_context): runs every sweep kind's warm-up there, once, so each
worker the server forks starts with the compiled engine loaded. A warm-up that fails is
left out: the workers then load what they need at their first point, as without it."""
from __future__ import annotations

import contextlib

from core.sweep.executors import call_warmup
from core.sweep.run import WARMUPS

for _name in WARMUPS.values():
    with contextlib.suppress(Exception):
        call_warmup(_name)
