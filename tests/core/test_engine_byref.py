"""byref.py: a tuple of arrays passed down compiled code as one pointer reads and writes the
same arrays as the tuple itself; deref of a plain tuple (a kernel called from Python) is
the tuple."""
from __future__ import annotations

import numpy as np
from numba import njit

from core.serving.engine.byref import deref, part, ref


@njit(_nrt=False)
def _bump(t, i):
    a, b = deref(t)
    a[i] += 1
    b[i] += 0.5


@njit(_nrt=False)
def _inner_sum(t):
    x, y = deref(t)
    return x[0] + y[0]


@njit(_nrt=False)
def _through_refs(pair, inner, i):
    r = ref(pair)
    _bump(r, i)
    _bump(r, i)
    r2 = ref(inner)
    return _inner_sum(part(r2, 1)) + deref(r2)[0][0]


def test_writes_through_a_ref_reach_the_callers_arrays():
    a, b = np.zeros(3, np.int64), np.zeros(3)
    c, x, y = np.array([7], np.int64), np.array([2], np.int64), np.array([3], np.int64)
    got = _through_refs((a, b), (c, (x, y)), 1)
    assert got == 2 + 3 + 7  # part(r2, 1) refers to (x, y); deref(r2)[0] is c
    assert a.tolist() == [0, 2, 0] and b.tolist() == [0.0, 1.0, 0.0]


def test_deref_of_a_tuple_is_the_tuple():
    a, b = np.zeros(2, np.int64), np.zeros(2)
    _bump((a, b), 0)
    assert a.tolist() == [1, 0] and b.tolist() == [0.5, 0.0]
