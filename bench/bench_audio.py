"""Audio benchmark: streaming with the Audio panel on screen. Prints one JSON object.

Figures (issue 9): while audio streams with the Audio panel on screen, the GUI runs at
>= 55 fps, a frame's work (the panel's update plus the plots' repaint) has p95 <= 16 ms,
and no chunk plays later than the model says (`late_vs_model`: started more than one
device block + 1 ms after the model's moment, the stream's start shift removed).

    engine   --engine-seconds (10 s) on the device, no GUI, REPEATS (5) times: the audio
             callback's time per block (p50/p99), chunks late vs the model, underruns.
    gui      --gui-seconds (10 s) with the panel on screen (offscreen Qt, 1600x1000),
             REPEATS (5) times: fps, frame work p95, late vs the model, callback p50/p99.
    gui_60s  --long-seconds (60 s), the same, --long-repeats (2) times only: a minute per
             run; the short runs carry the >= 5 repeats.

Every figure: median/min/max over its runs; `"over_target": true` when it misses its
target (fps: the median under 55; frame p95: the median over 16 ms; late chunks: any run
with one). The device is the default output (the PulseAudio null sink `labsink` on CI
machines), or the virtual clock sink with --virtual or where there is none. Timings are
wall clock on a machine shared with whatever else runs: compare figures of one run.

    python bench/bench_audio.py [--virtual] [--engine-seconds 10] [--gui-seconds 10]
                                [--long-seconds 60] [--long-repeats 2] [--repeats 5]
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.join(os.path.dirname(__file__), ".."))

from functools import partial

from benchstats import stats as summary

from audio.engine import StreamEngine
from audio.sinks import DeviceSink
from core.audio.timing import TIMELINE

stats = partial(summary, runs=True)  # median/min/max, target flags

REPEATS = 5
FPS_TARGET = 55.0
FRAME_P95_TARGET_MS = 16.0
LATE_TARGET = 0
CHUNK_S = 0.020


def _pct(values, q) -> float | None:
    return float(np.percentile(values, q)) if len(values) else None


def stream_inputs(seconds: float):
    """A stream the model says plays with no miss: 5 ms network for every chunk."""
    return TIMELINE.resolve({"chunks": int(round(seconds / CHUNK_S)), "network_ms": "5",
                             "interrupt_at_ms": seconds * 1000 + 10_000})


def engine_run(engine: StreamEngine, seconds: float) -> dict:
    sink = engine.sink
    sink.wait_ready(5.0)
    since = sink.cb_stats.written
    jumps0 = sink.reanchors
    cpu0, wall0 = time.process_time(), time.perf_counter()
    run = engine.start(stream_inputs(seconds))
    run.wait(seconds + 10.0)
    cpu1, wall1 = time.process_time(), time.perf_counter()
    _, dur, _ = sink.cb_stats.read(since)
    s = run.summary()
    return {
        "callback_us_p50": _pct(dur * 1e6, 50), "callback_us_p99": _pct(dur * 1e6, 99),
        "late_vs_model": s["late_vs_model"], "underruns": s["underruns"], "deadline_misses": s["deadline_misses"],
        "device_underflows": s["xruns"], "sample_clock_jumps": sink.reanchors - jumps0,
        "chunks_played": s["chunks_played"], "played_in_order": s["played_in_order"],
        "cpu_share_process": (cpu1 - cpu0) / (wall1 - wall0), "sink": s["sink"], "device": isinstance(sink, DeviceSink),
    }


class GuiBench:
    """The Audio panel on screen (offscreen Qt), streaming through one engine."""

    def __init__(self, virtual: bool):
        import pyqtgraph as pg
        from PySide6 import QtWidgets

        from widgets.audio import AudioPanel
        from widgets.kit.theme import STYLE_SHEET

        self.app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
        self.app.setStyleSheet(STYLE_SHEET)
        # Repaint time per frame: every plot's paint is timed and charged to the frame it follows.
        self.paint_s = 0.0
        original = pg.GraphicsView.paintEvent

        def timed_paint(view, event):
            t0 = time.perf_counter()
            original(view, event)
            self.paint_s += time.perf_counter() - t0

        pg.GraphicsView.paintEvent = timed_paint
        # As in the app: the panel exists and has painted before ▶ opens the device.
        self.engine = StreamEngine(prefer_device=not virtual)
        self.panel = AudioPanel(engine=self.engine)
        self.panel.resize(1600, 1000)
        self.panel.show()
        self._wait(self.panel.is_ready, 60.0)
        self.ticks: list[tuple[float, float]] = []  # (frame start, paint time since the previous frame)
        self.panel._timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        self.ticks.append((time.perf_counter(), self.paint_s))
        self.paint_s = 0.0

    def _wait(self, condition, timeout: float) -> bool:
        end = time.perf_counter() + timeout
        while not condition() and time.perf_counter() < end:
            self.app.processEvents()
            time.sleep(0.005)
        return condition()

    def run(self, seconds: float) -> dict:
        from PySide6 import QtCore

        panel = self.panel
        loop = QtCore.QEventLoop()  # not app.exec()/quit(): quitting the app closes its windows
        panel.state.timeline.update(stream_inputs(seconds))
        self._wait(panel.is_ready, 60.0)
        result: dict = {}
        started: dict = {}
        panel.frame_times_s.clear()
        self.ticks.clear()

        def on_started() -> None:
            started["t"] = time.perf_counter()
            started["jumps"] = self.engine.sink.reanchors
            started["cb"] = self.engine.sink.cb_stats.written
            self.ticks.clear()

        def on_finished(s: dict) -> None:
            result.update(s)
            started["end"] = time.perf_counter()
            loop.quit()

        panel.stream_started.connect(on_started)
        panel.stream_finished.connect(on_finished)
        panel.play_failed.connect(lambda _: loop.quit())
        guard = QtCore.QTimer()
        guard.setSingleShot(True)
        guard.timeout.connect(loop.quit)  # never hang
        guard.start(int((seconds + 30) * 1000))
        QtCore.QTimer.singleShot(200, panel.play)
        loop.exec()
        guard.stop()
        for signal, slot in ((panel.stream_started, on_started), (panel.stream_finished, on_finished)):
            signal.disconnect(slot)
        panel.play_failed.disconnect()
        sink = self.engine.sink
        elapsed = started.get("end", time.perf_counter()) - started.get("t", time.perf_counter())
        update_ms = np.asarray(panel.frame_times_s) * 1e3
        ticks = np.asarray(self.ticks) if self.ticks else np.empty((0, 2))
        # A frame's work: its update plus the repaint it caused (charged at the next tick).
        paint_ms = ticks[1:, 1] * 1e3 if len(ticks) > 1 else np.empty(0)
        k = min(update_ms.size, paint_ms.size)
        work_ms = update_ms[:k] + paint_ms[:k]
        _, dur, _ = sink.cb_stats.read(started.get("cb", sink.cb_stats.written))
        return {
            "fps": ticks.shape[0] / elapsed if elapsed > 0 else None,
            "frame_work_ms_p95": _pct(work_ms, 95), "frame_update_ms_p95": _pct(update_ms, 95),
            "frame_paint_ms_p95": _pct(paint_ms, 95),
            "frame_interval_ms_p95": _pct(np.diff(ticks[:, 0]) * 1e3, 95) if len(ticks) > 1 else None,
            "late_vs_model": result.get("late_vs_model"), "underruns": result.get("underruns"),
            "deadline_misses": result.get("deadline_misses"), "device_underflows": result.get("xruns"),
            "sample_clock_jumps": sink.reanchors - started.get("jumps", sink.reanchors),
            "chunks_played": result.get("chunks_played"), "chunks": result.get("chunks"),
            "callback_us_p50": _pct(dur * 1e6, 50), "callback_us_p99": _pct(dur * 1e6, 99),
            "sink": result.get("sink"),
        }

    def close(self) -> None:
        self.panel.close()
        self.engine.close()


def summarise(runs: list[dict], prefix: str) -> dict:
    out = {}
    for key, digits, target, kind in (
            ("fps", 1, FPS_TARGET, "min"), ("frame_work_ms_p95", 2, FRAME_P95_TARGET_MS, "max"),
            ("frame_update_ms_p95", 2, None, "max"), ("frame_paint_ms_p95", 2, None, "max"),
            ("frame_interval_ms_p95", 2, None, "max"), ("late_vs_model", 0, LATE_TARGET, "none_over"),
            ("underruns", 0, None, "max"), ("deadline_misses", 0, None, "max"), ("device_underflows", 0, None, "max"),
            ("sample_clock_jumps", 0, None, "max"), ("callback_us_p50", 1, None, "max"),
            ("callback_us_p99", 1, None, "max"), ("cpu_share_process", 3, None, "max")):
        values = [r.get(key) for r in runs]
        if any(v is not None for v in values):
            out[f"{prefix}{key}"] = stats(values, digits=digits, target=target, kind=kind)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--virtual", action="store_true", help="the virtual clock sink, not the device")
    parser.add_argument("--repeats", type=int, default=REPEATS)
    parser.add_argument("--engine-seconds", type=float, default=10.0)
    parser.add_argument("--gui-seconds", type=float, default=10.0)
    parser.add_argument("--long-seconds", type=float, default=60.0)
    parser.add_argument("--long-repeats", type=int, default=2)
    args = parser.parse_args()

    figures: dict = {}
    engine = StreamEngine(prefer_device=not args.virtual)
    engine_runs = [engine_run(engine, args.engine_seconds) for _ in range(args.repeats)]
    sink_status = engine.status
    engine.close()
    figures.update(summarise(engine_runs, "engine_"))
    bench = GuiBench(args.virtual)
    gui_runs = [bench.run(args.gui_seconds) for _ in range(args.repeats)]
    long_runs = [bench.run(args.long_seconds) for _ in range(args.long_repeats)]
    bench.close()
    figures.update(summarise(gui_runs, "gui_"))
    figures.update(summarise(long_runs, f"gui_{args.long_seconds:g}s_"))
    over = sorted(k for k, v in figures.items() if isinstance(v, dict) and v.get("over_target"))
    print(json.dumps({
        "sink": sink_status,
        "runs": {"engine": f"{args.repeats} x {args.engine_seconds:g} s", "gui": f"{args.repeats} x {args.gui_seconds:g} s",
                 f"gui_{args.long_seconds:g}s": f"{args.long_repeats} x {args.long_seconds:g} s (a minute a run: "
                                                 "fewer repeats; the short runs carry the >= 5)"},
        "machine": {"cpus": os.cpu_count(), "load_avg_1m": round(os.getloadavg()[0], 2)},
        "figures": figures,
        "over_target": over,
        "chunks_all_played": all(r.get("chunks_played") == r.get("chunks") for r in gui_runs + long_runs),
    }, indent=1))


if __name__ == "__main__":
    main()
