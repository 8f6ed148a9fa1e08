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

import threading
from contextlib import contextmanager

try:  # numpy 2 (numpy 1.20-1.26: numpy.core); a build without it has nothing to switch
    from numpy._core.multiarray import _set_madvise_hugepage
except ImportError:  # pragma: no cover - numpy 1.x
    try:
        from numpy.core.multiarray import _set_madvise_hugepage
    except ImportError:
        _set_madvise_hugepage = None

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
