"""A real local Ray cluster for the Ray sweep tests: `ray start --head --block` on free
ports in its own temporary folder, stopped after the tests even when they fail.

Imported by tests/lab/test_sweep_ray.py (sys.path gets this folder, as tests/audio does for
its monitor). Skips with a reason only if ray is not importable (CI installs it with
`.[test,cluster]`). Works as root (CI runs as root on a fresh machine)."""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

READY_TIMEOUT_S = 120.0  # the head's start on a loaded 2-core machine
STOP_TIMEOUT_S = 60.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def ray_command() -> str:
    here = Path(sys.executable).with_name("ray")  # the venv's own ray next to its python
    found = str(here) if here.exists() else shutil.which("ray")
    if found is None:
        pytest.skip("ray is importable but its `ray` command is not on PATH")
    return found


@pytest.fixture(scope="module")
def ray_cluster():
    """'127.0.0.1:PORT' of a running head with 2 CPUs; its processes are gone after."""
    pytest.importorskip("ray", reason="ray is not installed: pip install '.[cluster]' (CI installs it)")
    port = free_port()
    # Every port the head would otherwise take at a fixed default gets a free one, so two
    # clusters on one machine (another test session, a user's own) do not collide.
    ports = {flag: free_port() for flag in ("node-manager-port", "object-manager-port", "dashboard-agent-listen-port",
                                            "dashboard-agent-grpc-port", "metrics-export-port",
                                            "runtime-env-agent-port", "dashboard-port")}
    temp = tempfile.mkdtemp(prefix="ray", dir="/tmp")  # short: Ray's unix sockets live under it
    command = [ray_command(), "start", "--head", "--block", f"--port={port}", "--num-cpus=2",
               "--include-dashboard=false", "--disable-usage-stats", f"--temp-dir={temp}",
               *(f"--{flag}={value}" for flag, value in ports.items())]
    log = open(os.path.join(temp, "ray-start.log"), "w+")
    # Ray 2.60 turns token auth on for `ray start` once ~/.ray/auth_token exists (any local
    # ray.init writes one): the test head says explicitly that it has none.
    env = dict(os.environ, RAY_AUTH_MODE="disabled")
    head = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=env,
                            start_new_session=True,  # its own process group: stopped as one
                            preexec_fn=_stop_with_parent)
    try:
        _wait_ready(head, log)
        yield f"127.0.0.1:{port}"
    finally:
        _stop(head)
        log.close()
        shutil.rmtree(temp, ignore_errors=True)


def _stop_with_parent() -> None:
    """In the child before exec: SIGTERM when the test process dies (Linux), so a pytest
    killed outright (a CI timeout) does not leave the head running; the fixture's own
    teardown covers every other end."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def _wait_ready(head: subprocess.Popen, log) -> None:
    """Until `ray start` says the runtime started (it prints that once the GCS and the
    raylet are up), or it exits, or READY_TIMEOUT_S passes."""
    started = threading.Event()

    def read():
        for line in head.stdout:
            log.write(line)
            log.flush()
            if "Ray runtime started" in line:
                started.set()

    threading.Thread(target=read, daemon=True).start()
    deadline = time.monotonic() + READY_TIMEOUT_S
    while not started.wait(0.1):
        if head.poll() is not None or time.monotonic() > deadline:
            log.seek(0)
            raise RuntimeError(f"ray start --head did not come up (exit {head.poll()}):\n{log.read()[-3000:]}")


def _stop(head: subprocess.Popen) -> None:
    """SIGTERM to `ray start --block` stops the processes it started (about 2 s); if it
    does not, its whole process group is killed."""
    if head.poll() is None:
        head.send_signal(signal.SIGTERM)
        try:
            head.wait(STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(head.pid, signal.SIGKILL)
            head.wait()


def ray_processes_of(address: str) -> list[int]:
    """Pids whose command line names the cluster's GCS port (its raylet, agents, workers)."""
    port = address.rsplit(":", 1)[1]
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                cmd = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                continue
            if f":{port}" in cmd and "ray" in cmd:
                found.append(int(entry.name))
    return found


# -- an evaluation that stalls once, so a test can kill the worker running it ----------

def stall_once(marker: str, victim: str, evaluate, shared, payload: dict) -> dict:
    """evaluate(shared, payload) plus the worker's pid. For the victim point, the first
    attempt writes its pid to `marker` and waits there (up to a minute) for the test to kill
    it; the retry finds the marker and computes the point as usual."""
    if payload["key"] == victim and not os.path.exists(marker):
        with open(marker + ".tmp", "w") as f:
            f.write(str(os.getpid()))
        os.replace(marker + ".tmp", marker)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:  # killed here; if not, the test fails on the pid check
            time.sleep(0.05)
    return dict(evaluate(shared, payload), worker_pid=os.getpid())


def kill_when_marked(marker: str, timeout_s: float = 120.0) -> threading.Thread:
    """A thread that waits for the marker, then SIGKILLs the pid in it (sets .killed)."""
    def run():
        deadline = time.monotonic() + timeout_s
        while not os.path.exists(marker) and time.monotonic() < deadline:
            time.sleep(0.01)
        if os.path.exists(marker):
            pid = int(Path(marker).read_text())
            os.kill(pid, signal.SIGKILL)
            thread.killed = pid

    thread = threading.Thread(target=run, daemon=True)
    thread.killed = None
    thread.start()
    return thread
