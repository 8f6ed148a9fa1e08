"""The hostile-input corpus's per-case bound: a case over LIMIT_S seconds or LIMIT_BYTES
of memory fails. The seconds are CPU seconds (user + system) of the case: the suite runs
beside other work on two cores, where wall time doubles with the load and CPU time does
not; a case that waits instead of working (a FIFO, a lock) is killed at WALL_LIMIT_S of
wall time, which fails it as well.

- CLI argument lists run `python -m lab ...` in a subprocess: the exit status and the
  messages are the real ones, a hang is killed at the limit (a watcher thread: past the
  wall limit without CPU progress, or far past it whatever it does), and
  the CPU time is that child's own (os.wait4's rusage). Its memory is the peak of its own
  address space, VmHWM in /proc/self/status, which the child writes at exit: Linux's
  ru_maxrss of a child started by vfork/exec (as subprocess does) carries the parent's
  peak over the exec (a pytest worker's gigabyte), and RUSAGE_CHILDREN holds the largest
  peak of every child so far. Where /proc is missing, ru_maxrss stands.
- Files handed to a loader (talk, session, agent JSON, WAV) run in-process: a subprocess
  per file would cost an interpreter start each. The peak is tracemalloc's (Python and
  numpy allocations, which is where blow-ups happen), the CPU time the process's own, and
  a real-time alarm raises in the main thread at the wall limit (it also interrupts a
  blocking open of a FIFO).
"""
from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
import tracemalloc
from dataclasses import dataclass
from pathlib import Path

from tests.hostile.machine_speed import slowdown

LIMIT_S = 5.0  # CPU seconds on the machine the bound was set on; cpu_limit_s() here
WALL_LIMIT_S = 6 * LIMIT_S  # a hang, not a starved child: a loaded CI machine gives a case a fraction of a core
# A child past WALL_LIMIT_S still working (CPU time growing) is starved, not hung: it runs on
# until its CPU bound or this outer wall bound (at load 13 on two cores a case that needs
# 3 s of CPU took more than 30 s of wall).
STARVED_WALL_LIMIT_S = 24 * LIMIT_S
STALL_S = 5.0  # wall seconds without CPU progress that make a child past WALL_LIMIT_S hung
LIMIT_BYTES = 500 * 2**20
REPO = Path(__file__).resolve().parents[2]


def cpu_limit_s() -> float:
    """LIMIT_S scaled to this machine's speed (machine_speed.slowdown)."""
    return LIMIT_S * slowdown()


@dataclass(frozen=True)
class Ran:
    rc: int
    out: str
    err: str
    wall_s: float
    cpu_s: float
    peak_bytes: int
    killed: bool

    def within_bounds(self) -> str | None:
        """Why the case broke its bound, or None."""
        if self.killed:
            return f"ran past {self.wall_s:.0f} s of wall time (hung or over its bound) and was killed"
        if self.cpu_s > cpu_limit_s():
            return (f"took {self.cpu_s:.1f} s of CPU (bound {cpu_limit_s():.1f} s: {LIMIT_S:g} s on the reference "
                    f"machine × {slowdown():.2f}; {self.wall_s:.1f} s wall)")
        if self.peak_bytes > LIMIT_BYTES:
            return f"peaked at {self.peak_bytes / 2**20:.0f} MiB (bound {LIMIT_BYTES / 2**20:.0f} MiB)"
        return None

    def check(self, name: str, rc: int, field: str | None, one_line: bool = False) -> None:
        """The case stayed in its bound, without a traceback, exited rc, and a refusal
        names field with its valid range (one_line: and nothing else)."""
        assert self.within_bounds() is None, (name, self.within_bounds())
        assert "Traceback" not in self.err, self.err
        assert self.rc == rc, (self.rc, self.err[-2000:])
        if field is not None:
            assert f"{field}:" in self.err and "valid" in self.err, self.err
            assert not one_line or self.err.strip().count("\n") == 0, self.err


# `python -m lab ARGS` that writes its own peak (kB) to $LAB_PEAK_FILE as it exits.
_LAB_WITH_PEAK = """
import atexit, os, runpy, sys
def _peak():
    try:
        with open('/proc/self/status') as status:
            kb = next(line.split()[1] for line in status if line.startswith('VmHWM:'))
        with open(os.environ['LAB_PEAK_FILE'], 'w') as out:
            out.write(kb)
    except (OSError, StopIteration):
        pass
atexit.register(_peak)
sys.argv[0] = 'lab'
runpy.run_module('lab', run_name='__main__', alter_sys=True)
"""


def _own_peak_bytes(peak_file: Path, maxrss_bytes: int) -> int:
    try:
        return int(peak_file.read_text()) * 1024
    except (OSError, ValueError):
        return maxrss_bytes


def run_cli(args: list[str], limit_s: float = WALL_LIMIT_S, env: dict | None = None, cwd: Path | None = None) -> Ran:
    """`python -m lab *args` in a subprocess, killed at limit_s of wall time."""
    with tempfile.TemporaryDirectory() as scratch, tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        peak_file = Path(scratch) / "peak_kb"
        full_env = dict(os.environ, QT_QPA_PLATFORM="offscreen", PYTHONPATH=str(REPO), LAB_PEAK_FILE=str(peak_file),
                        **(env or {}))
        start = time.perf_counter()
        proc = subprocess.Popen([sys.executable, "-c", _LAB_WITH_PEAK, *args], stdout=out, stderr=err, env=full_env,
                                cwd=str(cwd or REPO), stdin=subprocess.DEVNULL)
        killed, done = threading.Event(), threading.Event()
        watcher = threading.Thread(target=_watch, args=(proc, start, limit_s, killed, done), daemon=True)
        watcher.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        finally:
            done.set()
            watcher.join()
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        wall = time.perf_counter() - start
        out.seek(0)
        err.seek(0)
        return Ran(proc.returncode, out.read().decode("utf-8", "replace"), err.read().decode("utf-8", "replace"),
                   wall, usage.ru_utime + usage.ru_stime, _own_peak_bytes(peak_file, usage.ru_maxrss * 1024),
                   killed.is_set())


def _cpu_s(pid: int) -> float | None:
    """The child's CPU seconds so far (user + system, /proc/PID/stat), None where unknown."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            fields = stat.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


def _watch(proc: subprocess.Popen, start: float, limit_s: float, killed: threading.Event,
           done: threading.Event) -> None:
    """Kill the child past limit_s of wall time if it is hung (no CPU progress for STALL_S,
    or no way to tell), past its CPU bound, or past STARVED_WALL_LIMIT_S whatever it does."""
    progress_cpu, progress_at = -1.0, start
    while not done.wait(0.25):
        now = time.perf_counter()
        cpu = _cpu_s(proc.pid)
        if cpu is not None and cpu > progress_cpu + 0.05:
            progress_cpu, progress_at = cpu, now
        hung = cpu is None or now - progress_at >= STALL_S
        over_cpu = cpu is not None and cpu > 2 * cpu_limit_s()  # the bound is broken already: stop it
        wall = now - start
        if (wall >= limit_s and (hung or over_cpu)) or wall >= max(limit_s, STARVED_WALL_LIMIT_S):
            killed.set()
            proc.kill()
            return


class Overrun(Exception):
    """The in-process case ran past its time bound."""


@contextlib.contextmanager
def bounded(limit_s: float | None = None, limit_bytes: int = LIMIT_BYTES, wall_limit_s: float = WALL_LIMIT_S):
    """Run the block under a real-time alarm and tracemalloc; fail the test past a bound.
    Yields a dict that gets 'wall_s', 'cpu_s' and 'peak_bytes' when the block is done.
    limit_s: CPU seconds, by default cpu_limit_s()."""
    def alarm(signum, frame):
        raise Overrun(f"ran past {wall_limit_s:g} s of wall time")

    got: dict = {}
    previous = signal.signal(signal.SIGALRM, alarm)
    tracemalloc.start()
    start, cpu = time.perf_counter(), time.process_time()
    signal.setitimer(signal.ITIMER_REAL, wall_limit_s)
    try:
        yield got
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        got["wall_s"] = time.perf_counter() - start
        got["cpu_s"] = time.process_time() - cpu
        got["peak_bytes"] = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    assert got["peak_bytes"] <= limit_bytes, f"peaked at {got['peak_bytes'] / 2**20:.0f} MiB"
    limit = cpu_limit_s() if limit_s is None else limit_s
    assert got["cpu_s"] <= limit, f"took {got['cpu_s']:.1f} s of CPU (bound {limit:.1f} s)"
