"""The compiled loop caches per version of the engine's sources: numba's own cache checks
only the file a function is defined in, so an edited kernel compiled into the loop from
another file would otherwise be served stale."""
import os
import time

from core.serving.engine import jit as driver


def test_the_cache_folder_is_named_by_every_source_file_of_the_engine(tmp_path, monkeypatch):
    package = tmp_path / "engine"
    package.mkdir()
    (package / "loop.py").write_text("def f(): return 1\n")
    (package / "pricing.py").write_text("def g(): return 2\n")
    monkeypatch.setattr(driver, "__file__", str(package / "driver.py"))
    before = driver.sources_stamp()
    (package / "pricing.py").write_text("def g(): return 3\n")  # a kernel another file compiles in
    assert driver.sources_stamp() != before
    (package / "notes.txt").write_text("not a source")
    assert driver.sources_stamp() == driver.sources_stamp()


def test_the_loop_caches_in_this_versions_folder_and_old_ones_go(tmp_path, monkeypatch):
    from numba.core import config

    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    stale = tmp_path / ("0" * 16)
    recent = tmp_path / ("1" * 16)
    stale.mkdir()
    recent.mkdir()
    old = time.time() - driver.STALE_CACHE_S - 60
    os.utime(stale, (old, old))
    saved = config.CACHE_DIR
    try:
        driver.choose_cache_folder()
        assert config.CACHE_DIR == str(tmp_path / driver.sources_stamp())
    finally:
        config.CACHE_DIR = saved
    assert not stale.exists() and recent.exists()  # another checkout may still use a recent one


def test_one_compiled_loop_serves_replays_with_and_without_prefix_caching():
    """A replay caching nothing passes an empty prefix cache (S[CACHE] = 0) rather than
    None: one specialization of the loop, compiled (or loaded) once for both."""
    import numpy as np

    from core.serving.engine import EngineConfig, loop, replay
    from core.serving.workload import Workload
    from tests.core.test_engine_frozen import hash_id_workload

    plain = replay(Workload(np.zeros(2), np.array([100, 100]), np.array([5, 5])), EngineConfig())
    cached = replay(hash_id_workload(40, seed=3), EngineConfig())
    assert plain.extras == {} and cached.extras["cache_hit_rate"] > 0
    assert len(loop.run_events.signatures) == 1


def test_a_kernel_called_from_python_runs_its_twin():
    """Kernels compile for linking into the loop only; called from Python (a pool's
    BlockCache, a kernel's tests) they run a twin compiled the usual way."""
    import numpy as np

    from core.serving.engine import pyset

    out = np.zeros(4, np.int64)
    assert pyset.set_order(np.array([9, 1, 9, 17]), 4, out) == 3
    assert out[:3].tolist() == list({9, 1, 17})  # CPython's set order of those ids


def test_the_typing_shortcuts_are_installed_and_a_failed_resolution_raises_again():
    """jit_typing's memo keeps only resolved call types: a call numba cannot type fails the
    same way every time (nothing cached), and an entry point still compiles and runs."""
    import pytest
    from numba import njit
    from numba.core import errors
    from numba.core.types import functions

    assert getattr(functions.BaseFunction.get_call_type, "_engine_memo", False)

    def bad(a):
        return a + "x"

    for _ in range(2):
        with pytest.raises(errors.TypingError):
            njit(bad)(1)
    assert njit(lambda a, b: max(a, b) + a * b)(3, 4) == 16


def test_cancel_and_the_prefix_look_are_operations_of_the_one_entry_point():
    """A second entry point would compile the block pool's kernels into a module of its own
    again; control.py's operations run through run_events instead."""
    from core.serving.engine import control, jit_link, prefix

    for fn in (control.cancel_request, control.operation, prefix.cached_prefix_blocks):
        assert isinstance(fn, jit_link.Kernel)
