"""Frame time of the training-step animation (图 3-20 view) with 100 layers x 16
micro-batches on screen: 3,201 compute blocks and 1,600 activation lifetimes.

Each frame does what the player's tick does (StepView.set_time) and then paints the
view synchronously, so the figure includes pyqtgraph's drawing. Prints one JSON object.
Run: QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_training.py
"""
from __future__ import annotations

import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import numpy as np
from PySide6 import QtWidgets

from core.train_step import build_timeline, model_step

LAYERS, MICRO_BATCHES, FRAMES = 100, 16, 240
BUDGET_MS = 16.0


def main() -> dict:
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    from widgets.theme import STYLE_SHEET
    from widgets.training_panel import StepView

    app.setStyleSheet(STYLE_SHEET)
    t0 = time.perf_counter()
    real = model_step(micro_batches=8)  # resident state and capacity of a real card
    tl = build_timeline(LAYERS, MICRO_BATCHES, 5e8, 0.01, 0.2, state_bytes=real.state_per_card_bytes,
                        capacity_bytes=real.timeline.capacity_bytes)
    build_ms = (time.perf_counter() - t0) * 1e3

    view = StepView()
    view.resize(1600, 900)
    view.show()
    t0 = time.perf_counter()
    view.show_timeline(tl, "capacity")
    view.set_time(0.0)
    view.repaint()
    app.processEvents()
    setup_ms = (time.perf_counter() - t0) * 1e3

    times = np.linspace(0.0, tl.duration_s, FRAMES)
    update_ms, frame_ms = [], []
    for t in times:
        start = time.perf_counter()
        view.set_time(float(t))
        mid = time.perf_counter()
        view.schedule_plot.plot_widget.repaint()
        view.memory_plot.plot_widget.repaint()
        app.processEvents()
        end = time.perf_counter()
        update_ms.append((mid - start) * 1e3)
        frame_ms.append((end - start) * 1e3)
    view.close()
    frame = np.asarray(frame_ms)
    return {
        "layers": LAYERS,
        "micro_batches": MICRO_BATCHES,
        "compute_blocks": int(tl.block_phase.size),
        "activation_lifetimes": int(tl.act_layer.size),
        "memory_curve_points": int(tl.mem_t.size),
        "frames": FRAMES,
        "timeline_build_ms": round(build_ms, 2),
        "first_draw_ms": round(setup_ms, 2),
        "update_ms_mean": round(float(np.mean(update_ms)), 3),
        "frame_ms_mean": round(float(frame.mean()), 3),
        "frame_ms_p50": round(float(np.percentile(frame, 50)), 3),
        "frame_ms_p95": round(float(np.percentile(frame, 95)), 3),
        "frame_ms_max": round(float(frame.max()), 3),
        "budget_ms": BUDGET_MS,
        "within_budget_p95": bool(np.percentile(frame, 95) < BUDGET_MS),
        "platform": os.environ.get("QT_QPA_PLATFORM", ""),
    }


if __name__ == "__main__":
    print(json.dumps(main()))
