"""The engine's arrays on small pages. numpy asks Linux for transparent huge pages on every
array of 4 MiB or more (madvise); where THP is in madvise mode, the first touch of each
2 MiB page is a fault that zeroes it whole. In a VM whose host backs guest memory on
demand (Firecracker here) that fault is where the host maps fresh memory, and its cost
swings with the host's state: a 1M-request replay touches about 500 MiB and spent 0.3 to
4.8 s of system time on those faults against 0.7 s of its own work. On 4 KiB pages the
kernel hands back recently freed (already backed) memory, and the same replay's system
time is about 0.3 s every time; the loop's own time is no slower (bench_engine_speed).

small_pages() turns numpy's advice off while the engine allocates and restores it after;
replays on other threads at the same time share one switch (a count under a lock)."""
from __future__ import annotations

import importlib
import threading
from collections.abc import Callable
from contextlib import contextmanager


def _advice_switch() -> Callable[[bool], bool] | None:
    """numpy's private switch of its huge-page advice (numpy 2: numpy._core; 1.20-1.26:
    numpy.core); a build without it has nothing to switch."""
    for name in ("numpy._core.multiarray", "numpy.core.multiarray"):
        try:
            switch = getattr(importlib.import_module(name), "_set_madvise_hugepage", None)
        except ImportError:  # pragma: no cover - the other numpy
            continue
        if switch is not None:
            return switch
    return None  # pragma: no cover


_set_madvise_hugepage = _advice_switch()
_lock = threading.Lock()
_inside = 0
_before = False


@contextmanager
def small_pages():
    global _inside, _before
    if _set_madvise_hugepage is None:
        yield
        return
    with _lock:
        if _inside == 0:
            _before = _set_madvise_hugepage(False)
        _inside += 1
    try:
        yield
    finally:
        with _lock:
            _inside -= 1
            if _inside == 0:
                _set_madvise_hugepage(_before)
