"""Three shortcuts through numba's compiler, for the loop's first compile (issue 24's "first
compile <= 10 s"; bench/bench_engine_compile.py measures it). Neither changes what is
compiled: the same signatures reach the same lowering, so the machine code is the same.

- A function type's call signature for given argument types is computed once. numba
  resolves every `a[i]`, `x + y`, `min(a, b)` ... of every kernel by trying the function
  type's templates in turn (for an operator, the NumPy ufunc templates fail before the
  scalar one matches), and keeps no memo: a few thousand such sites typed the same few
  hundred (function, argument types) pairs again and again, much of the front end's time.
  The memo is keyed by the function type, the typing context, the target and the
  argument types (literal values included), and only for calls without keywords; a
  failure is not kept (it raises again the same way).
- No event for numba's LLVM lock: numba broadcasts one at every call into LLVM (tens of
  thousands per compile), to every timer each compile level above installed, only to
  report how long the lock was held (the "llvm_lock" timer of a dispatcher's metadata,
  which then reads 0).
- Error messages without terminal colours: numba formats a message for every template
  that fails to match while it searches (and for every global whose type it probes),
  each one opening and closing colorama's terminal wrapper, though nobody reads them
  unless the compile fails.

Both lean on numba internals (written against numba 0.68): install() checks that what it
replaces is there and otherwise leaves numba as it is (the compile is slower, nothing else
changes).
"""
from __future__ import annotations

_installed = False


def install() -> None:
    global _installed
    if _installed:
        return
    _installed = True
    try:
        _memoize_call_types()
    except (ImportError, AttributeError):
        pass
    try:
        _plain_error_messages()
    except (ImportError, AttributeError):
        pass
    try:
        _no_llvm_lock_events()
    except (ImportError, AttributeError, ValueError):
        pass


def _memoize_call_types() -> None:
    from numba.core.target_extension import get_local_target
    from numba.core.types import functions

    base = functions.BaseFunction
    original = base.get_call_type
    if getattr(original, "_engine_memo", False):
        return
    memo: dict = {}

    def get_call_type(self, context, args, kws):
        if kws:
            return original(self, context, args, kws)
        key = (self, context, get_local_target(context), args)
        sig = memo.get(key)
        # the first resolution also recorded the implementation for lowering (_impl_keys)
        if sig is None or sig.args not in self._impl_keys:
            sig = original(self, context, args, kws)
            memo[key] = sig
        return sig

    get_call_type._engine_memo = True  # type: ignore[attr-defined]
    setattr(base, "get_call_type", get_call_type)  # noqa: B010  (a method replaced: mypy refuses the plain form)


def _plain_error_messages() -> None:
    from numba.core import errors

    scheme = errors.termcolor()  # the one instance numba's modules took at their import
    if hasattr(scheme, "_markup"):  # colorama's scheme: every message through its wrapper
        scheme._markup = lambda msg, color=None, style=None: msg


def _no_llvm_lock_events() -> None:
    from numba.core import base  # registers its callbacks at import

    ffi = base.ll.ffi  # llvmlite.binding's, as numba imports it

    for acquire, release in list(ffi.lib._lock._cblist):
        if getattr(acquire, "__module__", "") == "numba.core.base":
            ffi.unregister_lock_callback(acquire, release)
