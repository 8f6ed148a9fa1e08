"""numba's decorators for the engine's kernels, with the cache folder chosen first: every
module of the compiled loop imports them from here, so all of them cache in the folder
of this version of the sources (choose_cache_folder), whichever is imported first.

`kernel` is for the loop's functions: compiled for linking into the entry point that
calls them (jit_link.py: no CPython wrapper, no machine code of their own, not cached on
their own); Python may still call one (BlockCache's pool, a kernel's tests), which runs
a twin compiled then. `exposed` is for the entry points the driver calls (cached on
disk with their kernels inside). Neither uses numba's reference counting (NRT,
`_nrt=False`): the loop's arrays are Python's for the whole call (borrow.py), and the
increfs and decrefs numba emits around every array it passes were much of the code each
compile types, lowers and optimizes (and of the loop's time). A kernel that allocates an
array or returns a view needs NRT and says so (`kernel(nrt=True)`: the option is
otherwise inherited from the caller); numba refuses to compile one that forgets."""
from __future__ import annotations

import getpass
import hashlib
import os
import shutil
import tempfile
import time

from numba import njit
from numba.core import config as numba_config

from core.serving.engine import jit_typing

STALE_CACHE_S = 7 * 24 * 3600  # another version's compiled loop unused this long is removed


def _writable(folder: str) -> bool:
    try:
        os.makedirs(folder, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            return True
    except OSError:
        return False


def sources_stamp() -> str:
    """A digest of this package's sources. numba's cache checks only the time stamp of the
    file a compiled function is defined in, not of the functions it compiled into it: an
    edited kernel in pricing.py would leave the cached loop of loop.py with the old one. So
    each version of the sources caches in a folder of its own."""
    digest = hashlib.sha1()
    folder = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(folder)):
        if name.endswith(".py"):
            with open(os.path.join(folder, name), "rb") as f:
                digest.update(name.encode() + b"\0" + f.read())
    return digest.hexdigest()[:16]


def choose_cache_folder() -> None:
    """The compiled loop is cached in a folder per version of the engine's sources
    (sources_stamp), in the user's cache folder, or where that is read-only in a temporary
    one (compiled once per boot). Other versions' folders unused for a week are removed
    (another checkout may be using a recent one). NUMBA_CACHE_DIR, if set, is the parent
    of those folders. Called once, by jit.py, before any kernel is defined."""
    base = os.environ.get("NUMBA_CACHE_DIR") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "load-lab", "numba")
    if not _writable(base):
        base = os.path.join(tempfile.gettempdir(), f"load-lab-numba-{getpass.getuser()}")
    stamp = sources_stamp()
    week_ago = time.time() - STALE_CACHE_S
    for old in os.listdir(base):
        path = os.path.join(base, old)
        if old != stamp and len(old) == len(stamp) and os.path.getmtime(path) < week_ago:
            shutil.rmtree(path, ignore_errors=True)
    current = os.path.join(base, stamp)
    os.makedirs(current, exist_ok=True)
    os.utime(current)  # in use: kept by the pruning above in any checkout
    numba_config.CACHE_DIR = current


choose_cache_folder()
jit_typing.install()  # a faster first compile, the same code (jit_typing.py)

try:  # a kernel's code is emitted once, in the entry point that calls it (jit_link.py)
    from core.serving.engine.jit_link import link_only as _kernel
except (ImportError, AttributeError):  # another numba's internals: compiled the plain way
    def _kernel(func, nrt: bool):
        return njit(cache=True, _nrt=nrt)(func)


def kernel(func=None, *, nrt: bool = False):
    """@kernel, or @kernel(nrt=True) for one that allocates an array or returns a view."""
    if func is None:
        return lambda f: _kernel(f, nrt)
    return _kernel(func, nrt)


exposed = njit(cache=True, _nrt=False)

__all__ = ["exposed", "kernel", "njit"]
