"""GUI responsiveness of the application shell: start to window, every first panel visit,
and Verify's "Run again". Prints one JSON object. Not a test.

- start_to_window_s.<last panel>: a fresh `lab gui` process (offscreen) that reopens on that
  panel. The parent passes its perf_counter (CLOCK_MONOTONIC, one clock for every process on
  Linux) in LAB_BENCH_T0; the child reports, against it, when the window is on screen (its
  "loading" page painted), when the panel is shown, and when its first figures are in (no job
  running for SETTLE_S). Target: window <= 1.5 s whichever panel was last.
- first_visit.<panel>: a fresh process opens the window on another panel, then the panel is
  chosen in the navigation for the first time; the longest gap of a 10 ms GUI timer from the
  click until its first figures are in (target <= 50 ms), and the time to shown / figures.
- LAB_BENCH_STEPS=1 with `visit KEY N`: the last run's gaps over 50 ms of GUI CPU, each
  with the build steps, job callbacks and collections inside it (bench/turn_trace.py).
- verify_rerun: "Run again" on the shown Verify panel (1280x720): seconds until the table is
  refilled (target <= 1 s) and the longest timer gap meanwhile (target <= 50 ms).

The window imports every panel's module on the job runner once its first panel is shown
("warm-up"); a visit starts after that, as a user's first click would. Jobs whose result
never comes back within STUCK_S are listed in "stuck_jobs"; children that hang or fail in
"failed_children".

Each figure is repeated REPEATS times: median/min/max, `"over_target": true` when the median
misses its target. Wall clock on a shared machine: compare figures of one run.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from functools import partial

from benchstats import stats as summary

stats = partial(summary, digits=3)  # median/min/max, target flags

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPEATS = 5
START_TARGET_S = 1.5
GAP_TARGET_MS = 50.0
RERUN_TARGET_S = 1.0
SETTLE_S = 0.5  # no job running for this long: the panel's first figures are in
TIMEOUT_S = 120.0
STUCK_S = 30.0  # a job still "running" after this is reported as stuck (see stuck_jobs)
START_PANELS = ("request", "training", "verify")


# ---- in the child process -----------------------------------------------------------------
class GapMeter:
    """The longest interval between ticks of a 10 ms GUI timer: how long the GUI thread was
    not answering."""

    def __init__(self):
        from PySide6 import QtCore

        self._timer = QtCore.QTimer()
        self._timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
        self._timer.setInterval(10)
        self._timer.timeout.connect(self._tick)
        self.longest = self.longest_cpu = 0.0
        self._last = self._last_cpu = 0.0
        self.trace = None  # turn_trace.TurnTrace with LAB_BENCH_STEPS=1

    def start(self) -> None:
        self.longest = self.longest_cpu = 0.0
        self._last, self._last_cpu = time.perf_counter(), time.thread_time()
        self._timer.start()

    def _tick(self) -> None:
        # Wall and the GUI thread's own CPU between two ticks: on a loaded machine the wall
        # gap also counts waits for a core, the CPU gap only what ran on the GUI thread.
        now, cpu = time.perf_counter(), time.thread_time()
        self.longest = max(self.longest, now - self._last)
        self.longest_cpu = max(self.longest_cpu, cpu - self._last_cpu)
        if self.trace is not None:
            self.trace.gap(self._last_cpu, cpu)
        self._last, self._last_cpu = now, cpu

    def stop(self) -> float:
        self._tick()
        self._timer.stop()
        return self.longest


def wait_until(condition, timeout_s: float = TIMEOUT_S) -> None:
    """Run the event loop (timers fire as in the app) until condition() holds."""
    from PySide6 import QtCore

    loop = QtCore.QEventLoop()
    poll = QtCore.QTimer()
    poll.setInterval(5)
    deadline = time.perf_counter() + timeout_s

    def check():
        if condition() or time.perf_counter() > deadline:
            loop.quit()

    poll.timeout.connect(check)
    poll.start()
    if not condition():
        loop.exec()
    poll.stop()
    if not condition():
        import faulthandler

        from widgets.kit.jobs import jobs

        faulthandler.dump_traceback(all_threads=True)  # where a job that never ends is stuck

        runner = jobs()
        raise TimeoutError(f"bench: gave up waiting (jobs running: {runner.busy_keys()}, "
                           f"pool threads active: {runner.active_count()}, "
                           f"not returned: {runner.unreturned()})")


STUCK: list[str] = []  # jobs whose result never came back (a job runner bug, reported)


def settled() -> float:
    """Wait until no job has run for SETTLE_S; the time the last one ended (perf_counter).
    Jobs still running after STUCK_S are noted in STUCK and no longer waited for."""
    from widgets.kit.jobs import jobs

    t0 = time.perf_counter()
    state = {"idle_since": None, "ignore": set(STUCK)}

    def busy() -> bool:
        return bool(set(jobs().busy_keys()) - state["ignore"])

    def on_busy(_key=None, _busy=None):
        if busy():
            state["idle_since"] = None
        elif state["idle_since"] is None:
            state["idle_since"] = time.perf_counter()

    def check() -> bool:
        if busy() and time.perf_counter() - t0 > STUCK_S:
            stuck = set(jobs().busy_keys()) - state["ignore"]
            STUCK.extend(sorted(stuck))
            state["ignore"] |= stuck
            on_busy()
        return state["idle_since"] is not None and time.perf_counter() - state["idle_since"] >= SETTLE_S

    on_busy()
    jobs().busy_changed.connect(on_busy)
    wait_until(check)
    jobs().busy_changed.disconnect(on_busy)
    return state["idle_since"]


def child_start() -> None:
    """`lab gui` with hooks that print when the window, the panel and its figures are in."""
    t0 = float(os.environ["LAB_BENCH_T0"])
    import lab.main_window as mw

    marks: dict[str, float] = {}
    original_init = mw.MainWindow.__init__

    meter = []

    def init(self, *args, **kwargs):
        original_init(self, *args, **kwargs)
        self.loading.painted.connect(on_painted)
        self.panel_shown.connect(lambda key: finish(self, key))

    def on_painted():
        if "window" not in marks:
            marks["window"] = time.perf_counter() - t0
            meter.append(GapMeter())
            meter[0].start()

    def finish(window, key):
        if "panel" in marks:
            return
        # Under load the panel can be shown before the loading page ever paints: the window
        # is then on screen with the panel (a bench must not depend on that order).
        on_painted()
        marks["panel"] = time.perf_counter() - t0
        from PySide6 import QtCore, QtWidgets

        def later():
            try:
                marks["figures"] = settled() - t0
                marks["gap_ms"] = meter[0].stop() * 1000 if meter else None
                marks["stuck_jobs"] = STUCK
                print("BENCH " + json.dumps({"key": key, **marks}), flush=True)
            finally:
                QtWidgets.QApplication.quit()

        QtCore.QTimer.singleShot(0, later)

    mw.MainWindow.__init__ = init
    from lab.cli import main

    sys.exit(main(["gui"]))


def child_visits(keys: list[str]) -> None:
    """Open the window on the panel in settings, then visit keys for the first time."""
    from lab.app import start_window

    app, window = start_window()
    wait_until(lambda: window.is_ready(window.current_key()))
    settled()
    out: dict = {}
    meter = GapMeter()
    if os.environ.get("LAB_BENCH_STEPS"):  # what ran in each gap over 50 ms (bench/turn_trace.py)
        from turn_trace import TurnTrace

        meter.trace = TurnTrace()
    profiler = None
    if os.environ.get("LAB_BENCH_PROFILE"):  # a cProfile of the GUI thread during the visits
        import cProfile

        profiler = cProfile.Profile()
    for key in keys:
        shown: dict[str, float] = {}
        window.panel_shown.connect(lambda k, shown=shown: shown.setdefault(k, time.perf_counter()))
        meter.start()
        if profiler is not None:
            profiler.enable()
        t0 = time.perf_counter()
        window.show_panel(key)
        wait_until(lambda key=key, shown=shown: key in shown and window.is_ready(key))
        done = settled()
        gap = meter.stop()
        if profiler is not None:
            profiler.disable()
        out[key] = {"gap_ms": gap * 1000, "gap_cpu_ms": meter.longest_cpu * 1000, "shown_s": shown[key] - t0,
                    "figures_s": done - t0}
    if profiler is not None:
        profiler.dump_stats(os.environ["LAB_BENCH_PROFILE"])
    out["stuck_jobs"] = STUCK
    if meter.trace is not None:
        out["slow_gaps"] = meter.trace.close()
    print("BENCH " + json.dumps(out), flush=True)
    window.close()


def child_verify() -> None:
    """Verify's Run again on the shown panel, REPEATS times."""
    from lab.app import application
    from widgets.kit.jobs import jobs
    from widgets.verify import VerifyPanel

    app = application()
    panel = VerifyPanel()
    panel.resize(1280, 720)
    panel.show()
    wait_until(lambda: panel.model.rowCount() > 0)
    meter = GapMeter()
    times, gaps = [], []
    for _ in range(REPEATS):
        done = []
        panel.rows_changed.connect(lambda *_, done=done: done.append(time.perf_counter()))
        meter.start()
        t0 = time.perf_counter()
        panel.rerun_button.click()
        wait_until(lambda done=done: bool(done))
        for _ in range(3):  # the table repaints after the reset
            app.processEvents()
        gaps.append(meter.stop())
        times.append(done[0] - t0)
        panel.rows_changed.disconnect()
    assert jobs().wait_idle()
    print("BENCH " + json.dumps({"rows": panel.model.rowCount(), "times": times, "gaps": gaps}), flush=True)
    panel.close()


# ---- in the parent ------------------------------------------------------------------------
def run_child(mode: str, last_panel: str, *args: str) -> dict | None:
    with tempfile.TemporaryDirectory() as tmp:
        settings = os.path.join(tmp, "config")
        os.makedirs(settings)
        with open(os.path.join(settings, "load-lab.ini"), "w") as f:
            f.write(f"[General]\nschema_version=1\nlast_panel={last_panel}\n")
        env = {**os.environ, "LAB_SETTINGS_DIR": settings, "QT_QPA_PLATFORM": "offscreen"}
        env["LAB_BENCH_T0"] = repr(time.perf_counter())
        try:
            proc = subprocess.run([sys.executable, __file__, mode, *args], env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT_S * 3)
        except subprocess.TimeoutExpired:
            FAILED.append(f"{mode} {last_panel} {' '.join(args)}: no answer in {TIMEOUT_S * 3:.0f} s")
            return None
    lines = [line for line in proc.stdout.splitlines() if line.startswith("BENCH ")]
    if proc.returncode != 0 or not lines:
        FAILED.append(f"{mode} {last_panel} {' '.join(args)}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}")
        return None
    return json.loads(lines[-1][len("BENCH "):])


FAILED: list[str] = []  # children that hung or failed (reported, not averaged)


def visit_only(key: str, repeats: int) -> None:
    """`bench_responsiveness.py visit KEY [N]`: N first visits of one panel, each in a fresh
    window opened on another panel; the longest gap (wall and the GUI thread's CPU)."""
    from widgets.kit.panels import panel_keys

    start_on = next(k for k in panel_keys() if k != key)
    done = [r for r in (run_child("visits", start_on, key) for _ in range(repeats)) if r is not None]
    runs = [r[key] for r in done]
    print(json.dumps({**({"slow_gaps_of_the_last_run": done[-1]["slow_gaps"]} if done and "slow_gaps" in done[-1] else {}),
                      key: {
        "longest_gap_ms": stats([v["gap_ms"] for v in runs], digits=1, target=GAP_TARGET_MS),
        "longest_gap_cpu_ms": stats([v["gap_cpu_ms"] for v in runs], digits=1, target=GAP_TARGET_MS),
        "first_figures_s": stats([v["figures_s"] for v in runs])}, "failed_children": FAILED}, indent=1))


def main() -> None:
    from widgets.kit.panels import panel_keys

    keys = panel_keys()
    figures: dict = {"repeats": REPEATS, "note": "offscreen, 2 cores shared with other work: compare within one run"}

    stuck: list[str] = []
    start: dict = {}
    for last in START_PANELS:
        runs = [r for r in (run_child("start", last) for _ in range(REPEATS)) if r is not None]
        if not runs:
            continue
        for r in runs:
            stuck.extend(r.pop("stuck_jobs", []))
        start[last] = {
            "window_s": stats([r["window"] for r in runs], target=START_TARGET_S),
            "panel_shown_s": stats([r["panel"] for r in runs]),
            "first_figures_s": stats([r["figures"] for r in runs]),
            "gap_window_to_figures_ms": stats([r["gap_ms"] for r in runs], digits=1),
        }
    figures["start_to_window_s"] = start

    first_start, rest = keys[-1], keys[:-1]  # open on the last panel, visit the others; then the reverse
    visits: dict[str, list[dict]] = {k: [] for k in keys}
    for _ in range(REPEATS):
        for run in (run_child("visits", first_start, *rest), run_child("visits", keys[0], first_start)):
            if run is None:
                continue
            stuck.extend(run.pop("stuck_jobs", []))
            for key, value in run.items():
                visits[key].append(value)
    figures["first_visit"] = {
        key: {
            "longest_gap_ms": stats([v["gap_ms"] for v in runs], digits=1, target=GAP_TARGET_MS),
            "longest_gap_cpu_ms": stats([v["gap_cpu_ms"] for v in runs], digits=1, target=GAP_TARGET_MS),
            "shown_s": stats([v["shown_s"] for v in runs]),
            "first_figures_s": stats([v["figures_s"] for v in runs]),
        } for key, runs in visits.items() if runs}

    verify = run_child("verify", keys[0]) or {"rows": 0, "times": [float("nan")], "gaps": [float("nan")]}
    figures["verify_rerun"] = {
        "rows": verify["rows"],
        "time_s": stats(verify["times"], target=RERUN_TARGET_S),
        "longest_gap_ms": stats(verify["gaps"], scale=1000, digits=1, target=GAP_TARGET_MS),
    }
    over = []

    def collect(node, path):
        if isinstance(node, dict):
            if node.get("over_target"):
                over.append(path)
            for k, v in node.items():
                collect(v, f"{path}.{k}" if path else k)

    collect(figures, "")
    figures["over_target"] = over
    # Jobs whose result never came back within STUCK_S (the key stays busy): a runner bug.
    figures["stuck_jobs"] = stuck
    figures["failed_children"] = FAILED
    print(json.dumps(figures, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    if len(sys.argv) > 1 and sys.argv[1] == "start":
        child_start()
    elif len(sys.argv) > 1 and sys.argv[1] == "visits":
        child_visits(sys.argv[2:])
    elif len(sys.argv) > 1 and sys.argv[1] == "verify":
        child_verify()
    elif len(sys.argv) > 2 and sys.argv[1] == "visit":
        visit_only(sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else REPEATS)
    else:
        main()
