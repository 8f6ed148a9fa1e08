"""Audio engine benchmark: prints one JSON object.

Phase 1 (engine only): stream `--seconds` of audio with no network jitter (5 ms every
chunk: the model predicts no deadline miss) to the default device, or the virtual clock
sink where there is none. Reports the callback's time per block (p50/p99/max), deadline
misses and chunks the app made late against the model, underruns, device underflows,
and the process's CPU share while streaming.

Phase 2 (GUI): the Audio panel streams `--gui-seconds` with its 60 Hz pull running in a
real Qt event loop (offscreen). Reports the panel's frame update time, the achieved frame
rate, and whether the GUI disturbed the audio (chunks late against the model).

    python bench/bench_audio.py [--seconds 60] [--gui-seconds 10] [--virtual]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from audio.engine import StreamEngine  # noqa: E402
from audio.sinks import DeviceSink  # noqa: E402


def _pct(values, q) -> float | None:
    return float(np.percentile(values, q)) if len(values) else None


def engine_phase(seconds: float, virtual: bool) -> dict:
    engine = StreamEngine(prefer_device=not virtual)
    sink = engine.sink
    sink.wait_ready(5.0)
    chunks = int(round(seconds / 0.020))
    start_count = sink.cb_stats.written
    jumps0 = sink.reanchors
    cpu0, wall0 = time.process_time(), time.perf_counter()
    run = engine.start({"chunks": chunks, "network_ms": "5", "interrupt_at_ms": seconds * 1000 + 10_000})
    run.wait(seconds + 5.0)
    cpu1, wall1 = time.process_time(), time.perf_counter()
    t, dur, _ = sink.cb_stats.read(start_count)
    s = run.summary()
    jumps = sink.reanchors - jumps0
    engine.close()
    dur_us = dur * 1e6
    return {
        "sink": s["sink"],
        "device": isinstance(sink, DeviceSink),
        "stream_s": seconds,
        "chunks": chunks,
        "chunks_played": s["chunks_played"],
        "played_in_order": s["played_in_order"],
        "callbacks": int(dur.size),
        "callback_us_p50": _pct(dur_us, 50),
        "callback_us_p99": _pct(dur_us, 99),
        "callback_us_max": float(dur_us.max()) if dur.size else None,
        "block_ms": sink.block_s * 1e3,
        "callback_interval_ms_p99": _pct(np.diff(t) * 1e3, 99),
        "deadline_misses": s["deadline_misses"],
        "model_deadline_misses": s["model_deadline_misses"],
        "late_vs_model": s["late_vs_model"],
        "underruns": s["underruns"],
        "device_underflows": s["xruns"],
        "sample_clock_jumps": jumps,
        "cpu_share_process": (cpu1 - cpu0) / (wall1 - wall0),
    }


def gui_phase(seconds: float, virtual: bool) -> dict:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6 import QtCore, QtWidgets

    from widgets.audio import AudioPanel
    from widgets.theme import STYLE_SHEET

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    app.setStyleSheet(STYLE_SHEET)
    # As in the app: the panel exists and has painted before ▶ opens the device (a long
    # GIL hold while the device runs starves the Python callback; through ALSA's pulse
    # plugin an underrun then costs a ~2 s restart). ▶ opens the device and renders the
    # audio off the GUI thread.
    engine = StreamEngine(prefer_device=not virtual)
    panel = AudioPanel(engine=engine)
    panel.resize(1600, 1000)
    panel.show()
    panel.timeline_card.form.set_values({"chunks": int(round(seconds / 0.020)), "network_ms": (5.0,),
                                         "interrupt_at_ms": seconds * 1000 + 10_000})
    result: dict = {}
    started: dict = {}
    panel.stream_finished.connect(lambda s: (result.update(s), app.quit()))
    panel.play_failed.connect(lambda _: app.quit())

    def on_started() -> None:
        started["t"] = time.perf_counter()
        started["jumps"] = engine.sink.reanchors

    panel.stream_started.connect(on_started)
    QtCore.QTimer.singleShot((int(seconds) + 15) * 1000, app.quit)  # never hang
    QtCore.QTimer.singleShot(1000, panel.play)
    app.exec()
    elapsed = time.perf_counter() - started.get("t", time.perf_counter())
    jumps = engine.sink.reanchors - started.get("jumps", engine.sink.reanchors)
    frames = np.asarray(panel.frame_times_s) * 1e3
    jumps = engine.sink.reanchors - started.get("jumps", engine.sink.reanchors)
    panel.close()
    engine.close()
    return {
        "gui_stream_s": seconds,
        "gui_frames": int(frames.size),
        "gui_fps": frames.size / elapsed if elapsed > 0 else None,
        "gui_frame_update_ms_p50": _pct(frames, 50),
        "gui_frame_update_ms_p99": _pct(frames, 99),
        "gui_late_vs_model": result.get("late_vs_model"),
        "gui_sample_clock_jumps": jumps,
        "gui_device_underflows": result.get("xruns"),
        "gui_deadline_misses": result.get("deadline_misses"),
        "gui_chunks_played": result.get("chunks_played"),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--gui-seconds", type=float, default=10.0)
    parser.add_argument("--virtual", action="store_true", help="use the virtual clock sink, not the device")
    args = parser.parse_args()
    out = engine_phase(args.seconds, args.virtual)
    if args.gui_seconds > 0:
        out.update(gui_phase(args.gui_seconds, args.virtual))
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
