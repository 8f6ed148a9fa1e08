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
