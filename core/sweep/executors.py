"""Where a sweep's points run: the Executor interface, an in-process executor (tests, the
smallest sweeps) and LocalPool, a process pool over this machine's cores that survives a
worker dying. core.sweep.ray_executor (optional, imported only for engine="ray") runs the
same interface on a Ray cluster.

An executor gets a module-level (picklable) `evaluate(shared, payload) -> row`, the
`shared` input (a loaded trace, or None) which it sends to each worker ONCE, and the
tasks (point_key, payload); it yields (point_key, row) as points finish, each key once.
"""
from __future__ import annotations

import importlib
import multiprocessing
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from typing import Any, Protocol, runtime_checkable

from core.cancel import NEVER, Cancelled, CancelToken
from core.registry import ParamError

Evaluate = Callable[[Any, dict], dict]
Task = tuple[str, dict]
ENGINES = ("local", "ray")
MAX_WORKERS = 1024
POLL_S = 0.1  # how often a waiting executor looks at the cancel token
IN_FLIGHT_PER_WORKER = 4  # queued ahead so a worker never waits for the parent
MAX_RESTARTS = 8  # pools rebuilt after a dead worker, per run(): a point that always kills its worker is an error


@runtime_checkable
class Executor(Protocol):
    name: str

    def run(self, evaluate: Evaluate, shared: Any, tasks: list[Task],
            cancel: CancelToken = NEVER) -> Iterator[tuple[str, dict]]: ...

    def close(self) -> None: ...


class InProcess:
    """Every point in the calling process, one after another (no pickling, no start-up):
    for tests and for sweeps too small to pay for a pool."""

    name = "inprocess"

    def run(self, evaluate: Evaluate, shared: Any, tasks: list[Task],
            cancel: CancelToken = NEVER) -> Iterator[tuple[str, dict]]:
        for key, payload in tasks:
            cancel.check()
            yield key, evaluate(shared, payload)

    def close(self) -> None:
        pass


# What a pool worker holds: set once by the initializer, so the trace crosses the process
# boundary once per worker, not once per task.
_WORKER: dict[str, Any] = {}


def _worker_init(evaluate: Evaluate, shared: Any) -> None:
    # Ctrl+C goes to the whole process group: the parent handles it (keeps finished points,
    # stops the pool); a worker's own KeyboardInterrupt would only print a traceback.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _WORKER["evaluate"] = evaluate
    _WORKER["shared"] = shared


def _worker_call(payload: dict) -> tuple[int, dict]:
    return os.getpid(), _WORKER["evaluate"](_WORKER["shared"], payload)


def pool_context():
    """forkserver where there is one (a fresh, small server process forks the workers: no
    copy of a parent that may hold Qt threads, and a restart after a dead worker is quick);
    spawn elsewhere."""
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("forkserver" if "forkserver" in methods else "spawn")


def _may_fork() -> bool:
    """No other Python thread and no Qt application (whose threads a fork would copy mid-way);
    numpy's BLAS threads are fork-safe (OpenBLAS restarts them in the child)."""
    qt = sys.modules.get("PySide6.QtCore")
    return threading.active_count() == 1 and (qt is None or qt.QCoreApplication.instance() is None)


# Warm-ups run in this process (module:function names), so workers forked after them start warm.
_WARMED: set[str] = set()


def call_warmup(name: str) -> None:
    """Run a warm-up named "module:function"."""
    module, _, attr = name.partition(":")
    getattr(importlib.import_module(module), attr)()


def worker_context(warm: str | None, fork: bool):
    """How LocalPool starts its workers. With fork (the CLI, one thread and no Qt) they are
    forked from this process after `warm` has run here once (the compiled engine loaded):
    each starts in milliseconds with the engine in memory. Otherwise pool_context()'s
    forkserver, which imports and runs the warm-ups itself before its first fork
    (forkserver_preload.py), so those workers start warm too."""
    if fork and "fork" in multiprocessing.get_all_start_methods() and _may_fork():
        if warm is not None and warm not in _WARMED:
            call_warmup(warm)
            _WARMED.add(warm)
        sys.stdout.flush()  # a child flushes its copy of the buffers when it ends
        sys.stderr.flush()
        return multiprocessing.get_context("fork")
    context = pool_context()
    if context.get_start_method() == "forkserver" and warm is not None:
        context.set_forkserver_preload(["core.sweep.forkserver_preload"])  # no effect once it runs
    return context


class LocalPool:
    """A process pool of `workers` processes (default: every core). A worker that dies
    (killed, out of memory) breaks a ProcessPoolExecutor; the pool is then rebuilt and the
    points not yet yielded are submitted again, so none is lost and none is yielded twice."""

    name = "local"

    def __init__(self, workers: int | None = None, fork: bool = False):
        count = (os.cpu_count() or 1) if workers is None else workers
        if isinstance(count, bool) or not isinstance(count, int) or not 1 <= count <= MAX_WORKERS:
            raise ParamError("--workers", f"got {workers!r}; valid: a whole number in [1, {MAX_WORKERS}]")
        self.workers = count
        self.restarts = 0  # pools rebuilt after a dead worker (over the executor's life)
        self._pool: ProcessPoolExecutor | None = None
        # (evaluate, shared) the workers hold: kept referenced, so a new object cannot take a
        # freed one's id and be mistaken for the input the workers already have.
        self._for: tuple[Any, Any] | None = None
        self.worker_pids: set[int] = set()  # processes that have returned a point (tests kill one)
        self.warm: str | None = None  # "module:function" that loads what evaluate needs (prepare)
        self.fork = fork  # fork workers from this process when it may (worker_context)
        self.start_method = ""  # how the current pool started its workers

    def prepare(self, evaluate: Evaluate, shared: Any, warm: str | None = None) -> None:
        """Start the workers for (evaluate, shared) now, warmed by `warm` (worker_context).
        run_sweep calls it before it opens its folder: a forked worker then holds no copy of
        the folder's lock."""
        self.warm = warm
        self._ensure_pool(evaluate, shared)

    def _ensure_pool(self, evaluate: Evaluate, shared: Any) -> ProcessPoolExecutor:
        if self._pool is not None and self._for is not None and not (self._for[0] is evaluate and self._for[1] is shared):
            self._shutdown(kill=False)  # another input: workers get it from a fresh pool's initializer
        if self._pool is None:
            context = worker_context(self.warm, self.fork)
            self._pool = ProcessPoolExecutor(self.workers, mp_context=context, initializer=_worker_init,
                                             initargs=(evaluate, shared))
            self._for = (evaluate, shared)
            self.start_method = context.get_start_method()
            if self.start_method == "fork":  # a first task forks them all now, while this process has one thread
                self._pool.submit(os.getpid)
        return self._pool

    def live_pids(self) -> list[int]:
        """The pool's worker processes now (for a test that kills one by pid)."""
        procs = getattr(self._pool, "_processes", None) or {}  # pid -> Process (the stdlib's own map)
        return list(procs)

    def run(self, evaluate: Evaluate, shared: Any, tasks: list[Task],
            cancel: CancelToken = NEVER) -> Iterator[tuple[str, dict]]:
        pending = dict(tasks)  # key -> payload, until yielded
        if len(pending) != len(tasks):
            raise ValueError("duplicate point keys in tasks")
        restarts = 0
        finished_normally = False
        try:
            while pending:
                pool = self._ensure_pool(evaluate, shared)
                queue = iter(list(pending))  # in task order
                futures: dict = {}
                try:
                    while True:
                        # A few tasks per worker in flight, not all: wait() walks every future it
                        # is given, so 100,000 submitted at once would cost O(n) per finished point.
                        while len(futures) < IN_FLIGHT_PER_WORKER * self.workers:
                            key = next(queue, None)
                            if key is None:
                                break
                            futures[pool.submit(_worker_call, pending[key])] = key
                        if not futures:
                            break
                        if cancel.cancelled:
                            raise Cancelled()
                        done, _ = wait(futures, timeout=POLL_S, return_when=FIRST_COMPLETED)
                        for future in done:
                            key = futures.pop(future)
                            pid, row = future.result()  # BrokenProcessPool when a worker died
                            self.worker_pids.add(pid)
                            del pending[key]
                            yield key, row
                except BrokenProcessPool:
                    restarts += 1
                    self.restarts += 1
                    self._shutdown(kill=True)
                    if restarts > MAX_RESTARTS:
                        raise RuntimeError(f"sweep workers died {restarts} times; {len(pending)} points left "
                                           "(a point that kills its worker each time?)") from None
            finished_normally = True
        finally:
            if not finished_normally:  # cancelled, Ctrl+C, an error, or the consumer stopped early
                self._shutdown(kill=True)

    def _shutdown(self, kill: bool) -> None:
        pool, self._pool, self._for = self._pool, None, None
        if pool is None:
            return
        if kill:  # a running replay would otherwise finish first: stop now
            procs = list((getattr(pool, "_processes", None) or {}).values())
            for proc in procs:
                try:
                    proc.terminate()
                except (OSError, AttributeError):
                    pass
            # Gone before the pool's shutdown: its manager thread then finds them dead at once
            # rather than waiting on workers that are still going down.
            for proc in procs:
                try:
                    proc.join(timeout=5)
                    if proc.is_alive():
                        proc.kill()
                        proc.join(timeout=5)
                except (OSError, AttributeError, ValueError):
                    pass
        pool.shutdown(wait=True, cancel_futures=True)

    def close(self) -> None:
        self._shutdown(kill=False)


def make_executor(engine: str = "local", workers: int | None = None, address: str | None = None,
                  fork: bool = False) -> Executor:
    """The executor for --engine: "local" (a LocalPool of `workers`, default every core;
    fork: from this process, for a caller with one thread such as the CLI) or "ray"
    (core.sweep.ray_executor, imported only then: Ray is an optional extra)."""
    if engine == "local":
        if address is not None:
            raise ParamError("--address", "a cluster address goes with the Ray engine; valid: --engine ray --address HOST:PORT")
        return LocalPool(workers, fork)
    if engine == "ray":
        # Lazy: the Ray plug-in (an optional extra) builds on this module.
        from core.sweep.ray_executor import RayExecutor

        return RayExecutor(address=address, workers=workers)
    raise ParamError("--engine", f"got {engine!r}; valid: {', '.join(ENGINES)}")
