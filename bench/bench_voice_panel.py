"""The Voice panel while its load slider is dragged (issue 13: GUI frame time, target p95 <= 16 ms).

A drag is one slider step every 16 ms from no load to the top of the range and back. Each
frame is: move the slider (the state changes, a replay is submitted: the latest edit wins),
then let the GUI thread do everything queued (finished replays drawn, what changed repainted).
The frame's work is that GUI-thread time; the replays run meanwhile on the job runner, which
hands them to the helper process (widgets/kit/helper_process.py: no GIL shared with the GUI).
Also: how many replays reached the screen during the drag (drawn live, one figure per
frame, or in full), and the lag from the drag's end to its last value drawn in full. Each
drag starts from an idle panel. Repeated --repeat times; median/min/max (benchstats).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_voice_panel.py [--repeat N]

To time an older checkout's panel with this bench (old/new alternated, one machine state):
    PYTHONPATH=<old tree> .venv/bin/python bench/bench_voice_panel.py
"""
from __future__ import annotations

import json
import math
import os
import sys
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchstats import stats

FRAME_S = 0.016
FRAME_TARGET_MS = 16.0
IDLE_S = 0.3  # between drags: the full draw that ends a drag is painted before the next one starts


def idle(app, seconds: float) -> None:
    from PySide6 import QtCore

    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
        time.sleep(0.005)


def drag_once(app, panel) -> dict:
    from PySide6 import QtCore

    from widgets.kit.jobs import jobs

    slider = panel.load_slider
    values = list(range(slider.minimum(), slider.maximum() + 1)) + list(range(slider.maximum() - 1, -1, -1))
    idle(app, IDLE_S)
    full, live = [], []  # (time, run serial, rate, every figure) of each full draw / live figure

    def on_full(d):  # (a panel from before live drawing has no run serial: each draw is a run)
        full.append((time.perf_counter(), d.get("run", -len(full) - 1), d["values"]["rate"], True))

    def on_live(d):
        live.append((time.perf_counter(), d["run"], d["values"]["rate"], d["complete"]))

    live_signal = getattr(panel, "live_drawn", None)
    panel.run_drawn.connect(on_full)
    if live_signal is not None:
        live_signal.connect(on_live)
    frames = []
    for v in values:
        t0 = time.perf_counter()
        slider.setValue(v)
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents)  # draws and the repaints they ask for
        frames.append(time.perf_counter() - t0)
        left = FRAME_S - (time.perf_counter() - t0)
        if left > 0:
            time.sleep(left)
    t_end = time.perf_counter()
    while not panel.is_ready() or jobs().busy_keys():
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    panel.run_drawn.disconnect(on_full)
    if live_signal is not None:
        live_signal.disconnect(on_live)
    last = full[-1] if full else (math.nan, None, None, True)
    during = [d for d in full + live if d[0] < t_end]
    return {"frame_p50_ms": float(np.percentile(frames, 50)) * 1e3,
            "frame_p95_ms": float(np.percentile(frames, 95)) * 1e3, "frame_max_ms": max(frames) * 1e3,
            "frames": len(frames), "runs_shown": len({d[1] for d in during}),
            "runs_whole": len({d[1] for d in during if d[3]}), "lag_s": last[0] - t_end, "last_drawn": last[2]}


def main(repeat: int) -> dict:
    from PySide6 import QtCore, QtWidgets

    from widgets.kit.theme import apply_style
    from widgets.voice import VoicePanel

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    apply_style()
    panel = VoicePanel()
    panel.resize(1280, 720)
    panel.show()
    while not panel.is_ready():
        app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)
    runs = [drag_once(app, panel) for _ in range(repeat)]
    panel.close()
    return {
        "panel": "voice", "size": "1280x720", "turns": panel.state.view("turns"), "frames_per_drag": runs[0]["frames"],
        "frame_p50_ms": stats([r["frame_p50_ms"] for r in runs], unit="ms"),
        "frame_p95_ms": stats([r["frame_p95_ms"] for r in runs], target=FRAME_TARGET_MS, unit="ms"),
        "frame_max_ms": stats([r["frame_max_ms"] for r in runs], unit="ms"),
        "runs_shown_per_drag": stats([r["runs_shown"] for r in runs], digits=0),  # in one figure at least
        "runs_whole_per_drag": stats([r["runs_whole"] for r in runs], digits=0),  # in every figure
        "drag_end_to_last_drawn_s": stats([r["lag_s"] for r in runs], unit="s"),
        "last_value_drawn": all(r["last_drawn"] == "0" for r in runs),
    }


if __name__ == "__main__":
    n = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 5
    print(json.dumps(main(n), indent=1))
