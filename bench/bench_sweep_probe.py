"""Runs `lab sweep ARGS` (lab.cli.main) with LocalPool's phases timed, for
bench_sweep_workers.py; prints the timings as one JSON line on stderr. Not a benchmark itself.

Phases of the parent (wall and CPU seconds, CPU from time.process_time):
  startup     interpreter start and `import lab.cli` (CPU only: the wall is the caller's)
  pre         main() to LocalPool.prepare: parse the arguments, resolve the points, read the trace
  warm_up     the warm-up replay in the parent (the compiled engine loaded once, before the fork)
  pool_start  prepare() less the warm-up: forking the workers
  points      prepare() to the last point received (the parent sends payloads, takes rows, appends points.jsonl)
  post        the last point to main()'s return (summary, results.csv/.parquet, summary.json)
Each worker's CPU is read from /proc/PID/stat just before the pool shuts down (a forked
worker's clock starts at zero). payload_bytes: one point's pickled task (what crosses per
point); shared_bytes: the pickled trace, which a fork does not send at all (a forkserver
or spawn worker gets it once, through the pool's initializer).

    python bench/bench_sweep_probe.py sweep serving KEY=... --out DIR --workers N --json
"""
from __future__ import annotations

import time

START = (time.perf_counter(), time.process_time())  # as early as this process can take it

import json  # noqa: E402
import os  # noqa: E402
import pickle  # noqa: E402
import sys  # noqa: E402

import core.sweep.executors as ex  # noqa: E402
from lab.cli import main  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")
marks: dict[str, tuple[float, float]] = {}
got: dict = {"workers_cpu_s": [], "payload_bytes": 0, "shared_bytes": 0}


def mark(name: str) -> None:
    marks[name] = (time.perf_counter(), time.process_time())


def proc_cpu_s(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICKS  # utime + stime


def _wrap_prepare(original):
    def prepare(self, evaluate, shared, warm=None):
        mark("prepare")
        got["shared_bytes"] = len(pickle.dumps(shared))
        original(self, evaluate, shared, warm)
        mark("prepared")
        got["start_method"] = self.start_method
    return prepare


def _wrap_warmup(original):
    def call_warmup(name):
        mark("warm")
        original(name)
        mark("warmed")
    return call_warmup


def _wrap_run(original):
    def run(self, evaluate, shared, tasks, cancel=ex.NEVER):
        yield from original(self, evaluate, shared, tasks, cancel)
        mark("points_done")
        got["payload_bytes"] = max((len(pickle.dumps(p)) for _, p in tasks), default=0)
    return run


def _wrap_shutdown(original):
    def shutdown(self, kill):
        for pid in self.live_pids():
            try:
                got["workers_cpu_s"].append(proc_cpu_s(pid))
            except OSError:
                pass
        original(self, kill)
    return shutdown


ex.LocalPool.prepare = _wrap_prepare(ex.LocalPool.prepare)
ex.LocalPool.run = _wrap_run(ex.LocalPool.run)
ex.LocalPool._shutdown = _wrap_shutdown(ex.LocalPool._shutdown)
ex.call_warmup = _wrap_warmup(ex.call_warmup)


def _span(a: str, b: str) -> dict:
    if a not in marks or b not in marks:
        return {"wall": 0.0, "cpu": 0.0}
    return {"wall": marks[b][0] - marks[a][0], "cpu": marks[b][1] - marks[a][1]}


def phases() -> dict:
    warm = _span("warm", "warmed")
    prep = _span("prepare", "prepared")
    return {"startup": {"wall": None, "cpu": marks["main"][1]},  # the interpreter's own start is in this CPU
            "pre": _span("main", "prepare"), "warm_up": warm,
            "pool_start": {k: prep[k] - warm[k] for k in ("wall", "cpu")},
            "points": _span("prepared", "points_done"), "post": _span("points_done", "end")}


if __name__ == "__main__":
    mark("main")
    sys.argv = ["lab", *sys.argv[1:]]
    code = main()  # as the `lab` command runs it (lab.cli.OWN_PROCESS)
    mark("end")
    print(json.dumps({"code": code, "main_s": marks["end"][0] - marks["main"][0],
                      "probe_start_cpu_s": START[1], "phases": phases(), **got}), file=sys.stderr)
    sys.exit(code)
