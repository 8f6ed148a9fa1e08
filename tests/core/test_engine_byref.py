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


@njit(_nrt=False)
def _step(S, F, r):
    S[0] += 1  # a Ref indexed as its array: getitem then setitem
    F[r, 1] = F[r, 0] * 2.0
    return S[0] + S[1]


@njit(_nrt=False)
def _through_array_refs(S, F, r):
    S, F = ref(S), ref(F)
    _step(S, F, r)
    return _step(S, F, r)


def test_an_array_by_reference_is_indexed_as_the_array():
    S, F = np.array([0, 10], np.int64), np.array([[1.5, 0.0], [4.0, 0.0]])
    assert _through_array_refs(S, F, 1) == 2 + 10  # the second call sees the first's write
    assert S.tolist() == [2, 10] and F.tolist() == [[1.5, 0.0], [4.0, 8.0]]
    assert _step(S, F, 0) == 13 and F[0, 1] == 3.0  # the arrays themselves (called from Python)
