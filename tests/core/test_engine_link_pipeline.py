"""The link-only kernels' compile (core/serving/engine/jit_link.py): the passes it skips
are numba's, the ones lowering needs stay, and a kernel's callees reach whatever calls it
through its closure, each library once, with numba's runtime left to the caller."""
from __future__ import annotations

import numpy as np
from numba.core.compiler import DefaultPassBuilder, Flags, StateDict
from numba.core.runtime import rtsys

from core.serving.engine import jit_link
from core.serving.engine.jit import kernel, njit


def _nopython_passes() -> list[str]:
    state = StateDict()
    state.func_ir = None
    state.flags = Flags()
    return [p.__name__ for p, _ in DefaultPassBuilder.define_nopython_pipeline(state).passes]


def test_every_skipped_pass_is_one_of_numbas():
    # a pass numba renamed would silently stay in the pipeline (a slower compile)
    assert jit_link.SKIPPED_PASSES <= set(_nopython_passes())


def test_the_passes_lowering_needs_stay():
    kept = set(_nopython_passes()) - jit_link.SKIPPED_PASSES
    # bytecode to IR, static getitem of tuples, SSA, typing, dels (IRLegalization), lowering
    assert {"TranslateByteCode", "IRProcessing", "GenericRewrites", "ReconstructSSA", "NopythonTypeInference",
            "PreLowerStripPhis", "IRLegalization", "NativeLowering", "NoPythonBackend"} <= kept


@kernel
def _leaf(a, i):
    return a[i] * 2


@kernel
def _middle(a, i):
    return _leaf(a, i) + _leaf(a, i + 1)


@kernel
def _top(a):
    s = 0
    for i in range(a.size - 1):
        s += _middle(a, i) + _leaf(a, i)
    return s


@njit  # not cached: its kernels compile in each run, so their libraries are there to read
def _entry(a):
    return _top(a)


def test_a_kernel_tree_runs_and_links_each_library_once():
    a = np.arange(6, dtype=np.int64)
    assert _entry(a) == sum(2 * a[i] + 2 * a[i + 1] + 2 * a[i] for i in range(5))
    (cres,) = _top.overloads.values()
    libs = jit_link.closure(cres.library)
    assert libs[0] is cres.library
    assert len({id(lib) for lib in libs}) == len(libs)
    assert all(lib is not rtsys.library for lib in libs)
    names = [lib.name for lib in libs]
    assert any("_middle" in n for n in names) and any("_leaf" in n for n in names)
    # each after one that calls into it: _leaf after _middle's first appearance or _top's
    assert names.index(next(n for n in names if "_top" in n)) < names.index(next(n for n in names if "_leaf" in n))
