"""Borrowed arrays: the compiled loop's arrays are owned by Python (state.py) for the whole
call, so inside it they need no reference counting. numba increfs and decrefs every array
it passes to a function it does not inline (an atomic operation each). The kernels are
compiled without it (jit.py), but the few that use it (they allocate, or return a view)
still count references to the arrays they are passed: `borrow(a)` is a with its owner
pointer cleared, so those operations return at once and a view handed back to a kernel
that never counts holds nothing; run_events borrows every array it is given, once per call."""
from __future__ import annotations

from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


@intrinsic
def borrow(typingctx, arr):
    if not isinstance(arr, types.Array):
        return None

    def codegen(context, builder, sig, args):
        src = context.make_array(arr)(context, builder, value=args[0])
        out = context.make_array(arr)(context, builder)
        for name in ("nitems", "itemsize", "data", "shape", "strides"):
            setattr(out, name, getattr(src, name))
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()

    return arr(arr), codegen

