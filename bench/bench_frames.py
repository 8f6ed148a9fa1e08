"""▶ frames (issue 14: a frame within 16 ms): what each frame of a playing figure costs the
GUI thread. Prints one JSON object. Not a test.

For each figure, a fresh `lab gui` process (offscreen) opens on its panel, waits for its
first figures, then plays it for PLAY_S of wall time. A slot connected after the figure's
own on the frame timer notes, at every frame, perf_counter and the GUI thread's CPU time
(time.thread_time): between two frames, `frame_cpu_ms` is the CPU the GUI thread spent (the
frame's drawing, its paint, anything else on that thread), `interval_ms` the wall time (the
timer's own interval is its floor; on a loaded machine the wait for a core adds to it).

- request: 图 3-1's ▶ (the step player), at the panel's own speed;
- serving: the replay's ▶ (both replays, 10×), from 0, its plots scrolled into view;
- training: the step's ▶;
- audio: the live stream (the panel's frame timer), on the virtual clock;
- voice: ▶ p50 → p95 (the cursor over the swimlane).

Per figure: p50/p95/max over each run's frames, then median/min/max over REPEATS runs
(`over_target` when the median p95 of frame_cpu_ms is over 16 ms). Wall figures on a shared
machine: compare within one run, and read the load printed beside them.
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

stats = partial(summary, digits=2)

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

REPEATS = int(os.environ.get("LAB_BENCH_REPEATS", "3"))
PLAY_S = 3.0  # wall seconds of playing per run
FRAME_TARGET_MS = 16.0
TIMEOUT_S = 180.0
FIGURES = ("request", "serving", "training", "audio", "voice")


def _start(panel, key: str):
    """Start key's figure playing; returns the QTimer whose timeouts are its frames."""
    from PySide6 import QtCore

    if key == "request":
        panel.step_player.seek(0.0)
        panel.step_player.play()
        return panel.step_player._timer
    if key == "serving":
        # The replays' plots into view (below the fold at the window's size, they would not paint).
        bar = panel._scroll.verticalScrollBar()
        bar.setValue(panel.plots.mapTo(panel._scroll.widget(), QtCore.QPoint(0, 0)).y())
        panel.replay_player.seek(0.0)
        panel.replay_player.play()
        return panel.replay_player._timer
    if key == "training":
        panel.step.player.seek(0.0)
        panel.step.player.play()
        return panel.step.player._timer
    if key == "audio":
        if not panel.play():
            raise RuntimeError("the Audio panel did not start its stream")
        return panel._timer
    if key == "voice":
        panel.hear_it.play_button.click()
        return panel._cursor_timer
    raise ValueError(key)


def child(key: str) -> None:
    import pyqtgraph as pg
    from bench_responsiveness import settled, wait_until
    from PySide6 import QtCore

    class _PaintCounter(QtCore.QObject):
        def __init__(self, out):
            super().__init__()
            self.out = out

        def eventFilter(self, watched, event):
            if event.type() == QtCore.QEvent.Type.Paint:
                self.out.append(time.perf_counter())
            return False

    from lab.app import start_window

    app, window = start_window()
    wait_until(lambda: window.is_ready(key))
    settled()
    panel = window.panel(key)
    marks: list[tuple[float, float]] = []
    timer = _start(panel, key)
    timer.timeout.connect(lambda: marks.append((time.perf_counter(), time.thread_time())))
    paints = []  # paint events of the panel's plots: the frames really draw
    counter = _PaintCounter(paints)
    for view in panel.findChildren(pg.GraphicsView):
        view.viewport().installEventFilter(counter)
    wait_until(lambda: bool(marks), timeout_s=60)  # a stream starts after its device and audio are ready
    end = marks[0][0] + PLAY_S
    wait_until(lambda: time.perf_counter() >= end, timeout_s=PLAY_S + 30)
    timer.timeout.disconnect()  # our slot and the panel's: nothing more to draw
    pairs = list(zip(marks, marks[1:]))
    print("BENCH " + json.dumps({
        "frames": len(pairs),
        "interval_ms": [(b[0] - a[0]) * 1e3 for a, b in pairs],
        "frame_cpu_ms": [(b[1] - a[1]) * 1e3 for a, b in pairs],
        "timer_ms": timer.interval(),
        "plot_paints": len(paints),
    }), flush=True)
    os._exit(0)  # the figure may still be playing: no orderly teardown to wait for


def run_child(key: str) -> dict | str:
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "load-lab.ini"), "w") as f:
            f.write(f"[General]\nschema_version=1\nlast_panel={key}\n")
        env = {**os.environ, "LAB_SETTINGS_DIR": tmp, "QT_QPA_PLATFORM": "offscreen"}
        try:
            proc = subprocess.run([sys.executable, __file__, "child", key], env=env, capture_output=True,
                                  text=True, timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            return f"{key}: no answer in {TIMEOUT_S:.0f} s"
    lines = [line for line in proc.stdout.splitlines() if line.startswith("BENCH ")]
    if not lines:
        return f"{key}: exit {proc.returncode}: {proc.stderr.strip()[-300:]}"
    return json.loads(lines[-1][len("BENCH "):])


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def main(keys: list[str]) -> None:
    out: dict = {"repeats": REPEATS, "play_s": PLAY_S, "note": "offscreen; compare within one run"}
    failed = []
    runs: dict[str, list[dict]] = {k: [] for k in keys}
    loads = []
    for _ in range(REPEATS):  # interleaved: each round visits every figure once
        for key in keys:
            loads.append(os.getloadavg()[0])
            r = run_child(key)
            if isinstance(r, str):
                failed.append(r)
            elif r["frames"]:
                runs[key].append(r)
    for key, rs in runs.items():
        if not rs:
            continue
        out[key] = {
            "frames_per_run": stats([r["frames"] for r in rs], digits=0),
            "plot_paints_per_run": stats([r["plot_paints"] for r in rs], digits=0),
            "timer_ms": rs[0]["timer_ms"],
            "frame_cpu_ms": {
                "p50": stats([_quantile(r["frame_cpu_ms"], 0.5) for r in rs]),
                "p95": stats([_quantile(r["frame_cpu_ms"], 0.95) for r in rs], target=FRAME_TARGET_MS),
                "max": stats([max(r["frame_cpu_ms"]) for r in rs]),
            },
            "interval_ms": {
                "p50": stats([_quantile(r["interval_ms"], 0.5) for r in rs]),
                "p95": stats([_quantile(r["interval_ms"], 0.95) for r in rs]),
                "max": stats([max(r["interval_ms"]) for r in rs]),
            },
        }
    out["load_1min"] = stats(loads)
    out["over_target"] = [k for k in runs if out.get(k, {}).get("frame_cpu_ms", {}).get("p95", {}).get("over_target")]
    out["failed_children"] = failed
    print(json.dumps(out, ensure_ascii=False, indent=1))


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    if len(sys.argv) > 2 and sys.argv[1] == "child":
        child(sys.argv[2])
    else:
        main(sys.argv[1:] or list(FIGURES))
