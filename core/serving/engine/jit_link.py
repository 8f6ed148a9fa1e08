"""A kernel compiled for linking only: numba compiles every jitted function it calls into a
library of its own and finalizes it, which optimizes the module with all the callees
linked in and emits machine code for it. For the loop's kernels that meant optimizing
and emitting each subtree of the call graph once per level above it, though only the
entry points are ever run: most of the first compile's LLVM time
(bench/bench_engine_compile.py measures it).

`LinkOnly` is a numba compiler pipeline (numba's documented way to customize one) that
stops a kernel's compile after lowering: the kernel's IR is kept, optimized function by
function, and linked into whatever calls it, whose own finalization optimizes and emits
the whole once. A kernel is not cached on its own (its callers, the entry points, are);
called from Python (BlockCache's pool, a kernel's tests), it runs a twin compiled the
usual way on that first call (`Kernel`), so the loop's compile builds no wrapper for it.

This leans on numba internals beyond the pass API (the code library's finalization, the
flag no_compile that numba's own cfunc uses), written against numba 0.68; _check says
at import whether they are all there, and where not, `kernel` in jit.py falls back to
plain njit (the compile is slower, nothing else changes)."""
from __future__ import annotations

import weakref

from numba import _dynfunc
from numba.core import codegen
from numba.core.compiler import CompilerBase, DefaultPassBuilder
from numba.core.compiler_lock import require_global_compiler_lock
from numba.core.compiler_machinery import LoweringPass, register_pass
from numba.core.registry import CPUDispatcher
from numba.core.typed_passes import NativeLowering

# a kernel's numba options: no CPython or cfunc wrapper, no reference counting (jit.py)
OPTIONS = {"nopython": True, "boundscheck": None, "no_cpython_wrapper": True, "no_cfunc_wrapper": True,
           "_nrt": False}


class _LinkOnlyLibrary(codegen.JITCodeLibrary):
    """Finalized for linking: its callers' libraries optimize and emit its code."""

    def _optimize_final_module(self):
        pass  # the caller's final module is optimized with this one linked in

    def finalize(self):
        """Its own code only: its callees are not linked in here (each caller links them
        all, closure()), so no kernel's IR is copied into every module above it."""
        require_global_compiler_lock()
        self._raise_if_finalized()
        self._finalize_final_module()

    def _finalize_final_module(self):
        self._finalize_dynamic_globals()  # (its callees are declarations until a caller links them)
        self._final_module.__library = weakref.proxy(self)
        self._finalized = True  # never added to the execution engine: no machine code

    def get_pointer_to_function(self, name):
        return 0


_REFUSE = None


def only_compiled_code_calls_a_kernel():
    raise TypeError("a kernel only compiled code calls (core/serving/engine/jit.py)")


def _refusing_entry(module, name: str, keepalive):
    """A builtin function numba's dispatcher holds as a kernel's entry point (never called:
    Kernel.__call__ goes to the twin; this one is there should numba call it): it runs the
    CPython wrapper of only_compiled_code_calls_a_kernel (compiled once), which raises
    TypeError whatever a kernel is called with (a kernel takes arguments; it takes none)."""
    global _REFUSE
    if _REFUSE is None:
        from numba import njit
        refuse = njit(cache=True)(only_compiled_code_calls_a_kernel)
        refuse.compile(())
        cres = refuse.overloads[()]
        ptr = cres.library.get_pointer_to_function(cres.fndesc.llvm_cpython_wrapper_name)
        _REFUSE = (ptr, cres.environment, cres.library)
    ptr, env, library = _REFUSE
    return _dynfunc.make_function(module, name, "a kernel only compiled code calls", ptr, env, keepalive + (library,))


@register_pass(mutates_CFG=False, analysis_only=False)
class _NoCompile(LoweringPass):
    _name = "engine_kernel_no_compile"

    def __init__(self):
        LoweringPass.__init__(self)

    def run_pass(self, state):
        state.flags.no_compile = True  # lowering stops before finalizing the library
        if state.library is None:
            state.library = state.targetctx.codegen().create_library(state.func_id.func_qualname)
            state.library.enable_object_caching()
        state.library.__class__ = _LinkOnlyLibrary
        return False


@register_pass(mutates_CFG=False, analysis_only=False)
class _LinkedInto(LoweringPass):
    _name = "engine_kernel_linked_into_callers"

    def __init__(self):
        LoweringPass.__init__(self)

    def run_pass(self, state):
        library = state.library
        library.__class__ = _LinkOnlyLibrary
        entry = _refusing_entry(state.cr.fndesc.lookup_module(), state.func_id.func_qualname, (library,))
        state.targetctx.insert_user_function(entry, state.cr.fndesc, closure(library))
        state.cr = state.cr._replace(cfunc=entry)
        return True


def closure(library) -> list:
    """library and every library it links, through link-only kernels (each linked once by
    whatever calls library: a kernel's own module holds its code alone). A library compiled
    the usual way (numba's own overloads) is finalized with its callees inside.

    In order, each after a library that calls into it: LLVM's linker takes a linkonce_odr
    function (what a library's code is when linked into another) only where the module
    it links into already refers to it. So numba's runtime library (NRT_incref ...),
    which every library links, is left to the caller's own list, where numba puts it
    last, after every kernel whose code calls it."""
    from numba.core.runtime import rtsys

    skip = {id(rtsys.library)}
    out, todo = [], [library]
    while todo:
        lib = todo.pop()
        if id(lib) in skip:
            continue
        skip.add(id(lib))
        out.append(lib)
        if isinstance(lib, _LinkOnlyLibrary):
            todo.extend(reversed(lib._linking_libraries))
    return out


# numba passes a kernel's compile skips: each finds nothing to do in the engine's kernels
# (no with blocks, closures, literal_unroll, literally, array expressions, constant
# arrays, branches on constants or None, inline='always' overloads) or only checks or
# annotates. With them skipped the loop's machine code is the same instruction for
# instruction (its assembly compared), and the first compile shorter
# (bench/bench_engine_compile.py). Code that needs one of them fails to compile (typing) rather than compiling
# differently, except the optimizations (array expressions fused, branches on constants
# pruned), which LLVM's own passes then do or leave to the loop's time.
SKIPPED_PASSES = frozenset({
    "WithLifting", "InlineClosureLikes", "MakeFunctionToJitFunction", "InlineInlinables", "FindLiterallyCalls",
    "LiteralUnroll", "RewriteSemanticConstants", "DeadBranchPrune", "LiteralPropagationSubPipelinePass",
    "InlineOverloads", "NopythonRewrites", "NoPythonSupportedFeatureValidation", "AnnotateTypes",
    "DumpParforDiagnostics"})


class LinkOnly(CompilerBase):
    """numba's nopython pipeline less SKIPPED_PASSES, with the two passes above around its lowering."""

    def define_pipelines(self):
        pm = DefaultPassBuilder.define_nopython_pipeline(self.state)
        pm.passes = [(p, d) for p, d in pm.passes if p.__name__ not in SKIPPED_PASSES]
        pm.add_pass_after(_NoCompile, _lowering_pass(pm))
        pm.add_pass_after(_LinkedInto, NativeLowering)
        pm.finalize()
        return [pm]


def _lowering_pass(pm):
    """The pass just before numba's NativeLowering."""
    names = [p for p, _ in pm.passes]
    return names[names.index(NativeLowering) - 1]


class Kernel(CPUDispatcher):
    """A link-only kernel for compiled callers; a call from Python runs `twin`, the same
    function compiled the usual way (with its wrapper, cached) at its first call."""

    def __call__(self, *args, **kwargs):
        twin = self.__dict__.get("twin")
        if twin is None:
            from numba import njit
            twin = self.twin = njit(cache=True, _nrt=self.targetoptions["_nrt"])(self.py_func)
        return twin(*args, **kwargs)


def link_only(func, nrt: bool):
    """func as a link-only kernel (jit.py's kernel), with numba's reference counting if nrt."""
    return Kernel(py_func=func, locals={}, targetoptions=dict(OPTIONS, _nrt=nrt), pipeline_class=LinkOnly)


def _check() -> None:
    """AttributeError (jit.py then compiles kernels the plain way) if this numba lacks what
    the link-only pipeline overrides or calls."""
    from numba.core.compiler import Flags, PassManager

    library = ("_optimize_final_module", "_finalize_final_module", "_finalize_dynamic_globals",
               "_verify_declare_only_symbols", "get_pointer_to_function")
    for owner, names in ((codegen.JITCodeLibrary, library), (Flags, ("no_compile",)),
                         (PassManager, ("add_pass_after",)), (_dynfunc, ("make_function",))):
        for name in names:
            getattr(owner, name)


_check()
