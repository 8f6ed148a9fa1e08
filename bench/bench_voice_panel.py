"""The Voice panel while its load slider is dragged (issue 13: GUI frame time, target p95 <= 16 ms).

A drag is one slider step every 16 ms from no load to the top of the range and back. Each
frame is: move the slider (the state changes, a replay is submitted: the latest edit wins),
then let the GUI thread do everything queued (finished replays drawn, what changed repainted).
The frame's work is that GUI-thread time; the replays run on the job runner meanwhile.
Also: how many replays reached the screen during the drag, and the time from the drag's
end to its last value drawn. Repeated REPEATS times; median/min/max (benchstats).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_voice_panel.py [--repeat N]
"""
from __future__ import annotations

import json
import os
import sys
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchstats import stats  # noqa: E402

FRAME_S = 0.016
FRAME_TARGET_MS = 16.0


def drag_once(app, panel) -> dict:
    from PySide6 import QtCore

    from widgets.jobs import jobs

    slider = panel.load_slider
    values = list(range(slider.minimum(), slider.maximum() + 1)) + list(range(slider.maximum() - 1, -1, -1))
    drawn = []
    panel.run_drawn.connect(lambda d: drawn.append(d["values"]["rate"]))
    panel.live_drawn.connect(lambda d: drawn.append(d["values"]["rate"]))
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
    settle = time.perf_counter() - t_end
    return {"frame_p95_ms": float(np.percentile(frames, 95)) * 1e3, "frame_max_ms": max(frames) * 1e3,
            "frames": len(frames), "runs_drawn": len(drawn), "settle_s": settle,
            "last_drawn": drawn[-1] if drawn else None}


def main(repeat: int) -> dict:
    from PySide6 import QtCore, QtWidgets

    from widgets.theme import apply_style
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
        "frame_p95_ms": stats([r["frame_p95_ms"] for r in runs], target=FRAME_TARGET_MS, unit="ms"),
        "frame_max_ms": stats([r["frame_max_ms"] for r in runs], unit="ms"),
        "runs_drawn_per_drag": stats([r["runs_drawn"] for r in runs], digits=0),
        "drag_end_to_last_drawn_s": stats([r["settle_s"] for r in runs], unit="s"),
        "last_value_drawn": all(r["last_drawn"] == "0" for r in runs),
    }


if __name__ == "__main__":
    n = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 5
    print(json.dumps(main(n), indent=1))
