"""`lab talk talks/chapter3.toml` from the start of the process to its first scene on screen
(issue 14: within 2 s): the panel built, its first figures in, scrolled to its card, its ▶
started (the controller's scene_ready). Prints one JSON object. Not a test.

A fresh process (offscreen, its own settings) per run; the parent passes its perf_counter
(CLOCK_MONOTONIC, one clock for every process on Linux) in LAB_BENCH_T0. Also: when the
window is shown, and the GUI thread's CPU seconds until the scene (time.thread_time: what a
loaded machine's wait for a core does not count). REPEATS runs: median/min/max.
`bench_talk_start.py child` with LAB_BENCH_T0 and LAB_BENCH_PROFILE=path: one run, its GUI
thread's cProfile written to path.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchstats import stats

ROOT = Path(__file__).resolve().parents[1]
TALK = ROOT / "talks" / "chapter3.toml"
REPEATS = 5
TARGET_S = 2.0
TIMEOUT_S = 120.0


def child() -> None:
    t0 = float(os.environ["LAB_BENCH_T0"])
    profiler = None
    if os.environ.get("LAB_BENCH_PROFILE"):  # a cProfile of the GUI thread to that path
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    import lab.app as app_module
    import lab.talk as talk_module

    marks: dict = {}
    original_open, original_place = app_module.open_talk, app_module.place_window

    def place(window):
        original_place(window)
        marks["window_s"] = time.perf_counter() - t0

    def open_and_watch(window, talk, *args, **kwargs):
        controller = original_open(window, talk, *args, **kwargs)

        def ready(index):
            if "scene_s" in marks:
                return
            marks["scene_s"] = time.perf_counter() - t0
            marks["gui_cpu_s"] = time.thread_time()
            marks["panel"] = talk.scenes[index].panel
            print("BENCH " + json.dumps(marks), flush=True)
            if profiler is not None:
                profiler.disable()
                profiler.dump_stats(os.environ["LAB_BENCH_PROFILE"])
            os._exit(0)  # the scene's ▶ plays on: no orderly teardown to wait for

        controller.scene_ready.connect(ready)
        return controller

    app_module.open_talk = open_and_watch
    app_module.place_window = place
    assert talk_module  # the feature module the window installs
    sys.exit(app_module.run_talk(str(TALK)))


def run_child() -> dict | str:
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "LAB_SETTINGS_DIR": tmp, "QT_QPA_PLATFORM": "offscreen",
               "LAB_BENCH_T0": repr(time.perf_counter())}
        try:
            proc = subprocess.run([sys.executable, __file__, "child"], env=env, capture_output=True, text=True,
                                  timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"no first scene in {TIMEOUT_S:.0f} s"
    lines = [line for line in proc.stdout.splitlines() if line.startswith("BENCH ")]
    if not lines:
        return f"exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
    return json.loads(lines[-1][len("BENCH "):])


def main() -> None:
    runs, failed, loads = [], [], []
    for _ in range(REPEATS):
        loads.append(os.getloadavg()[0])
        r = run_child()
        (failed if isinstance(r, str) else runs).append(r)
    out = {
        "repeats": REPEATS,
        "talk": TALK.name,
        "panel": runs[0]["panel"] if runs else None,
        "window_s": stats([r["window_s"] for r in runs]),
        "first_scene_s": stats([r["scene_s"] for r in runs], target=TARGET_S),
        "gui_cpu_to_scene_s": stats([r["gui_cpu_s"] for r in runs]),
        "load_1min": stats(loads, digits=2),
        "failed_children": failed,
        "note": "offscreen; wall on a shared machine: compare within one run",
    }
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    if sys.argv[1:] == ["child"]:
        child()
    else:
        main()
