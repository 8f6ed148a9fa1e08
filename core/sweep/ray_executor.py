"""RayExecutor: the sweep's Executor on a Ray cluster (`lab sweep ... --engine ray
[--address HOST:PORT]`), or on a private local Ray instance when no address is given.

- The shared input (a loaded trace) is put into Ray's object store ONCE per run(); every
  task carries only its reference (inside a list, so Ray does not resolve it per task) and
  a worker process fetches it once and keeps it for its later tasks.
- Tasks are retried by Ray when their worker process dies (`max_retries`, Ray's system
  failures: a killed or OOM-killed worker, a lost node); results are keyed by point key and
  each key is yielded once, so a dead worker loses no point and duplicates none. An error
  raised by the evaluation itself (ParamError, a bug) is not retried: it is raised here.
- An address is checked before ray.init (which waits minutes on an address where no Ray
  head answers): a TCP connect, then one gRPC call a Ray head answers (core/sweep/ray_probe.py),
  each under a few seconds, so a wrong address is refused within 10 s.
- With an address, the driver's own `core` package goes to the cluster with the
  job (Ray's runtime_env py_modules), so every node replays with exactly this code: a node
  with an older install would otherwise give other numbers under the same point key.

Ray is an optional extra (pip install '.[cluster]'): nothing here imports it at module
load, so core stays importable without it.
"""
from __future__ import annotations

import importlib.util
import logging
import os
from collections.abc import Iterator
from typing import Any

from core.cancel import NEVER, Cancelled, CancelToken
from core.registry import ParamError
from core.sweep.executors import MAX_WORKERS, POLL_S, Evaluate, Task
from core.sweep.ray_probe import check_address

INSTALL_HINT = "ray is not installed; pip install '.[cluster]' (or load-lab[cluster])"
MAX_RETRIES = 3  # Ray's default for tasks: a point survives three dead workers
PROBE_TIMEOUT_S = 8.0  # the whole address check (name lookup, connect, one gRPC call)


def require_ray():
    """The ray module, or ParamError("--engine") saying how to install it."""
    try:
        import ray  # optional: the cluster extra
    except ImportError:
        raise ParamError("--engine", INSTALL_HINT) from None
    return ray


# What a Ray worker process keeps between tasks: the last shared input it fetched, by its
# object id (one trace per sweep; a new sweep's trace replaces it).
_WORKER_SHARED: dict[str, Any] = {}


def _shared_in_worker(box):
    if box is None:
        return None
    import ray  # optional: the cluster extra

    (ref,) = box
    key = ref.hex()
    if key not in _WORKER_SHARED:
        _WORKER_SHARED.clear()
        _WORKER_SHARED[key] = ray.get(ref)
    return _WORKER_SHARED[key]


PARAM_ERROR = "__param_error__"


def run_point(evaluate: Evaluate, box, payload: dict) -> dict:
    """One point in a Ray worker: the body of the remote task. A ParamError comes back as
    a value (its constructor takes two arguments, so pickle cannot rebuild it) and is
    raised again in the driver."""
    try:
        return evaluate(_shared_in_worker(box), payload)
    except ParamError as err:
        return {PARAM_ERROR: [err.param, err.message]}


def code_folders() -> list[str]:
    """The folders of the packages a sweep point runs: core only (the evaluator is
    core.sweep.serving's; it was lab/cli/sweep.py's, which also shipped lab)."""
    folders = []
    for package in ("core",):
        spec = importlib.util.find_spec(package)
        assert spec is not None and spec.submodule_search_locations is not None  # a package, importable here
        folders.append(list(spec.submodule_search_locations)[0])
    return folders


class RayExecutor:
    """Points as Ray tasks. address: a running cluster's head (HOST:PORT of its GCS, e.g.
    10.0.0.1:6379; "auto" for the cluster this machine belongs to; ray://HOST:PORT for Ray
    Client), or None for a private local instance of `workers` CPUs (default: every core).
    workers with an address: at most that many points run at once (default: the cluster's
    CPUs). The connection is made here, so a bad address fails when the executor is made."""

    name = "ray"

    def __init__(self, address: str | None = None, workers: int | None = None,
                 max_retries: int = MAX_RETRIES, ship_code: bool | None = None):
        if workers is not None and (isinstance(workers, bool) or not isinstance(workers, int)
                                    or not 1 <= workers <= MAX_WORKERS):
            raise ParamError("--workers", f"got {workers!r}; valid: a whole number in [1, {MAX_WORKERS}]")
        ray = require_ray()
        address = None if address is None or not str(address).strip() else str(address).strip()
        if address is not None:
            check_address(address, timeout_s=PROBE_TIMEOUT_S)
        self.address = address
        self.workers = workers
        self.max_retries = int(max_retries)
        self._owns_ray = not ray.is_initialized()  # a caller's own Ray session is left running
        if self._owns_ray:
            kwargs = self._init_kwargs(address, workers, address is not None if ship_code is None else ship_code)
            try:
                ray.init(**kwargs)
            except (ConnectionError, RuntimeError, ValueError) as err:  # Ray's own refusal, in one line
                text = " ".join(str(err).split())[:400]
                if address is None:
                    raise ParamError("--engine", f"a local Ray instance did not start ({text}); "
                                                 "valid: --engine local, or a Ray that starts here") from None
                raise ParamError("--address", f"Ray refused to connect to {address} ({text}); "
                                              "valid: the address of a running Ray head you may join") from None
        self._remote = ray.remote(run_point).options(num_cpus=1, max_retries=self.max_retries, retry_exceptions=False)
        self._shared: tuple[Any, Any] | None = None  # (the object, its ref): put once

    @staticmethod
    def _init_kwargs(address, workers, ship_code: bool) -> dict:
        kwargs: dict[str, Any] = {"log_to_driver": False, "logging_level": logging.WARNING, "include_dashboard": False}
        if address is None:
            kwargs["num_cpus"] = workers or os.cpu_count() or 1
        else:
            kwargs["address"] = address
            kwargs.pop("include_dashboard")  # a setting of a new instance, not of a connection
        if ship_code:
            kwargs["runtime_env"] = {"py_modules": code_folders(), "excludes": ["__pycache__", "*.pyc"]}
        return kwargs

    def slots(self) -> int:
        """Points that run at once: workers, or the cluster's CPUs."""
        if self.workers is not None:
            return self.workers
        import ray  # optional: the cluster extra

        return max(1, int(ray.cluster_resources().get("CPU", 1)))

    def _shared_ref(self, shared):
        """shared in the object store, once (the same object again reuses its ref)."""
        if shared is None:
            return None
        if self._shared is None or self._shared[0] is not shared:
            import ray  # optional: the cluster extra

            self._shared = (shared, ray.put(shared))
        return [self._shared[1]]

    def run(self, evaluate: Evaluate, shared: Any, tasks: list[Task],
            cancel: CancelToken = NEVER) -> Iterator[tuple[str, dict]]:
        import ray  # optional: the cluster extra

        pending = dict(tasks)
        if len(pending) != len(tasks):
            raise ValueError("duplicate point keys in tasks")
        box = self._shared_ref(shared)
        queue = iter(list(pending.items()))
        # With a worker cap, exactly that many in flight; else twice the CPUs, so a worker
        # finds its next point queued at its raylet instead of waiting for the driver.
        window = self.workers if self.workers is not None else 2 * self.slots()
        inflight: dict[Any, str] = {}  # ObjectRef -> point key

        def fill():
            for key, item in queue:
                inflight[self._remote.remote(evaluate, box, item)] = key
                if len(inflight) >= window:
                    return

        finished = False
        try:
            fill()
            while inflight:
                if cancel.cancelled:
                    raise Cancelled()
                ready, _ = ray.wait(list(inflight), num_returns=1, timeout=POLL_S)
                for ref in ready:
                    key = inflight.pop(ref)
                    row = self._result(ray, ref, key)
                    if pending.pop(key, None) is not None:  # each key once
                        yield key, row
                fill()
            finished = True
        finally:
            if not finished:  # cancelled, Ctrl+C, an error, or the consumer stopped early
                for ref in inflight:
                    ray.cancel(ref, force=False, recursive=True)

    def _result(self, ray, ref, key: str) -> dict:
        try:
            row = ray.get(ref)
        except ray.exceptions.UnserializableException as err:  # an error pickle cannot rebuild
            raise RuntimeError(f"point {key[:12]} failed in its Ray worker: {err}") from None
        except ray.exceptions.RayTaskError as err:  # the evaluation raised: its own error, not a retry
            cause = getattr(err, "cause", None)
            if isinstance(cause, BaseException):
                raise cause from None
            raise
        except (ray.exceptions.WorkerCrashedError, ray.exceptions.NodeDiedError,
                ray.exceptions.ObjectLostError) as err:
            raise RuntimeError(f"point {key[:12]}: its Ray worker died {self.max_retries + 1} times "
                               f"(retries exhausted): {type(err).__name__}") from None
        if PARAM_ERROR in row:
            raise ParamError(*row[PARAM_ERROR])
        return row

    def close(self) -> None:
        """Disconnect (and stop the private local instance); a Ray session the caller
        started before is left as it was."""
        self._shared = None
        if self._owns_ray:
            import ray  # optional: the cluster extra

            if ray.is_initialized():
                ray.shutdown()
            self._owns_ray = False
