"""A tuple of arrays passed down the loop by reference: `ref(t)` in run_events, `deref(r)`
where a kernel reads it.

numba passes a tuple argument flattened, every field of every array (seven each) a
parameter of its own: each call site takes the tuple apart (an extractvalue a field) and
each callee builds it again (an insertvalue a field). The prefix cache is a tuple of 22
arrays that most of the loop's kernels pass on, so that plumbing was much of the code
the first compile lowers and optimizes (bench/bench_engine_compile.py measures it).
A Ref is one pointer: ref stores the tuple once in run_events' frame, deref loads it
(one instruction) in the kernel that reads it. The arrays are borrowed for the whole
call (borrow.py) and the frame outlives every kernel the loop calls, so nothing is
counted or copied; after inlining LLVM sees the same loads as before."""
from __future__ import annotations

import hashlib
import operator

from numba import types
from numba.core import cgutils
from numba.core.datamodel import models, register_default
from numba.extending import intrinsic, overload


class Ref(types.Type):
    """A pointer to a value of type `of` in the entry point's frame."""

    def __init__(self, of):
        self.of = of
        # a short name: it is part of every mangled symbol of a kernel taking the Ref
        super().__init__(name="Ref_" + hashlib.sha1(str(of).encode()).hexdigest()[:16])


register_default(Ref)(models.OpaqueModel)


def _borrowed(context, builder, typ, value):
    """value with every array in it borrowed (borrow.py: no owner to count)."""
    if isinstance(typ, types.Array):
        out = context.make_array(typ)(context, builder, value=value)
        out.meminfo = cgutils.get_null_value(out.meminfo.type)
        out.parent = cgutils.get_null_value(out.parent.type)
        return out._getvalue()
    for i, t in enumerate(typ):
        value = builder.insert_value(value, _borrowed(context, builder, t, builder.extract_value(value, i)), i)
    return value


def _arrays_only(typ) -> bool:
    if isinstance(typ, types.BaseTuple):
        return all(_arrays_only(t) for t in typ)
    return isinstance(typ, types.Array)


@intrinsic
def ref(typingctx, value):
    """A tuple of arrays (nested tuples too) or one array, its arrays borrowed, stored in the
    calling function's frame: by reference."""
    if not (isinstance(value, types.Array) or isinstance(value, types.BaseTuple) and _arrays_only(value)):
        return None

    def codegen(context, builder, sig, args):
        slot = cgutils.alloca_once(builder, context.get_value_type(value))  # in the entry block
        builder.store(_borrowed(context, builder, value, args[0]), slot)
        return builder.bitcast(slot, cgutils.voidptr_t)

    return Ref(value)(value), codegen


@intrinsic
def deref(typingctx, r):
    """The tuple r refers to; a tuple itself where a kernel is called with one (from
    Python, as BlockCache's pool is)."""
    if isinstance(r, (types.BaseTuple, types.Array)):
        return r(r), lambda context, builder, sig, args: args[0]
    if not isinstance(r, Ref):
        return None

    def codegen(context, builder, sig, args):
        return builder.load(builder.bitcast(args[0], context.get_value_type(r.of).as_pointer()))

    return r.of(r), codegen


@intrinsic(prefer_literal=True)
def part(typingctx, r, k):
    """A reference to the k-th tuple inside the one r refers to."""
    if not isinstance(r, Ref) or not isinstance(k, types.IntegerLiteral):
        return None
    i = k.literal_value
    if not isinstance(r.of[i], types.BaseTuple):
        return None

    def codegen(context, builder, sig, args):
        ptr = builder.bitcast(args[0], context.get_value_type(r.of).as_pointer())
        return builder.bitcast(cgutils.gep_inbounds(builder, ptr, 0, i), cgutils.voidptr_t)

    return Ref(r.of[i])(r, k), codegen


def _array_ref(r) -> bool:
    return isinstance(r, Ref) and isinstance(r.of, types.Array)


# An array by reference is indexed as the array itself: the loop's state arrays (S, SF,
# I, F) go down as one pointer each and no kernel's body changes. Not inlined by numba
# (an access is a call in the lowered IR, fewer instructions to lower and optimize per
# kernel); LLVM inlines them where the entry point's module is optimized.
@overload(operator.getitem)
def _getitem(r, i):
    if _array_ref(r):
        return lambda r, i: deref(r)[i]


@overload(operator.setitem)
def _setitem(r, i, v):
    if _array_ref(r):
        def impl(r, i, v):
            deref(r)[i] = v
        return impl
