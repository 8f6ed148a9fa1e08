"""numba's njit for the engine's kernels, with the cache folder chosen first: every
module of the compiled loop imports njit from here, so all of them cache in the folder of
this version of the sources (driver.choose_cache_folder), whichever is imported first."""
from __future__ import annotations

from numba import njit

from core.serving.engine.driver import choose_cache_folder

choose_cache_folder()

__all__ = ["njit"]
