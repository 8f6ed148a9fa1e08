"""What ran in each long GUI gap of a first visit, for bench_responsiveness.py (LAB_BENCH_STEPS=1):
the panel's build steps (widgets/kit/turns.py InTurns), the job runner's result callbacks and
the garbage collector, each with the GUI thread's CPU it took; what a gap took beyond them is
Qt's own work between two timer ticks (laying out, polishing and painting what a step added).
Not a benchmark itself."""
from __future__ import annotations

import gc
import time

SLOW_MS = 50.0  # gaps longer than this (GUI-thread CPU) are listed


class TurnTrace:
    def __init__(self) -> None:
        from widgets.kit import jobs, turns

        self.slices: list[tuple[float, float, str]] = []  # (cpu start, cpu end, what)
        self.gaps: list[dict] = []
        self._restore = []
        next_step, on_done = turns.InTurns._next, jobs.JobRunner._on_done

        def step(runner, *args):
            name = getattr(runner._steps[0], "__qualname__", "step") if runner._steps else "end"
            return self._timed(name, next_step, runner, *args)

        def done(runner, serial, result):
            job = runner._running.get(serial)
            return self._timed(f"job {job.key.rsplit('.', 1)[0] if job else '?'}", on_done, runner, serial, result)

        turns.InTurns._next, jobs.JobRunner._on_done = step, done
        self._restore = [(turns.InTurns, "_next", next_step), (jobs.JobRunner, "_on_done", on_done)]
        self._gc_start = 0.0
        gc.callbacks.append(self._gc)

    def _timed(self, name, fn, *args):
        start = time.thread_time()
        try:
            return fn(*args)
        finally:
            self.slices.append((start, time.thread_time(), name))

    def _gc(self, phase, info) -> None:
        if phase == "start":
            self._gc_start = time.thread_time()
        else:
            self.slices.append((self._gc_start, time.thread_time(), f"gc{info['generation']}"))

    def gap(self, cpu_from: float, cpu_to: float) -> None:
        """A GapMeter interval on the GUI thread's CPU clock: listed when over SLOW_MS."""
        if (cpu_to - cpu_from) * 1000 <= SLOW_MS:
            return
        inside: dict[str, float] = {}
        for start, end, name in self.slices:
            if start >= cpu_from - 1e-6 and end <= cpu_to + 1e-6:
                inside[name] = inside.get(name, 0.0) + (end - start) * 1000
        self.gaps.append({"cpu_ms": round((cpu_to - cpu_from) * 1000, 1),
                          "in": {k: round(v, 1) for k, v in inside.items()}})

    def close(self) -> list[dict]:
        for owner, attr, original in self._restore:
            setattr(owner, attr, original)
        gc.callbacks.remove(self._gc)
        return self.gaps
