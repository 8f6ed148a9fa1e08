"""Serving benchmark: replay wall time, a 50,000-request trace, cost per engine step and
how it grows, and the panel's frame time during playback. Prints one JSON object.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_serving.py [--no-gui]
"""
from __future__ import annotations

import json
import os
import statistics
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def _timed(fn, repeat: int):
    walls, out = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        walls.append(time.perf_counter() - t0)
    return out, walls


def synthetic_trace(n: int, seed: int = 1, rate_per_s: float = 5.0, cv: float = 2.0):
    """A BurstGPT-like stream: bursty Gamma arrivals, log-normal input and output lengths."""
    from core.serving.workload import Workload

    rng = np.random.default_rng(seed)
    shape = 1 / (cv * cv)
    t = np.cumsum(rng.gamma(shape, 1 / (rate_per_s * shape), n))
    p = np.clip(rng.lognormal(6.5, 1.0, n), 1, 30000).astype(np.int64)
    g = np.clip(rng.lognormal(5.3, 1.0, n), 1, 8000).astype(np.int64)
    return Workload(t - t[0], p, g, label="synthetic")


def bench_replay() -> dict:
    from core.registry import get
    from core.serving import replay as rp
    from core.serving.engine import replay

    calc = get("serving.replay")
    out = {}
    for key in rp.SCENARIOS:
        values = calc.resolve(rp.SCENARIOS[key]["params"])
        work = rp.workload_from(values)
        config = rp.config_from(values)
        result, walls = _timed(lambda: replay(work, config), 7)
        _, calc_walls = _timed(lambda: calc.run(rp.SCENARIOS[key]["params"]), 3)
        out[key] = {"requests": len(work), "engine_steps": result.engine_steps,
                    "replay_wall_s_min": min(walls), "replay_wall_s_median": statistics.median(walls),
                    "calculator_wall_s_median": statistics.median(calc_walls),
                    "us_per_engine_step": statistics.median(walls) / result.engine_steps * 1e6}
    return out


def bench_traces() -> dict:
    from core.serving.engine import replay
    from core.serving.traces import load_trace, write_trace

    growth = []
    for n in (5_000, 10_000, 25_000, 50_000):
        work = synthetic_trace(n)
        result, walls = _timed(lambda: replay(work), 1)
        growth.append({"requests": n, "wall_s": walls[0], "engine_steps": result.engine_steps,
                       "us_per_engine_step": walls[0] / result.engine_steps * 1e6,
                       "us_per_request": walls[0] / n * 1e6,
                       "simulated_s": float(np.max(result.finish_s)), "preemptions": int(result.preemptions.sum())})
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "trace50k.csv")
        write_trace(path, synthetic_trace(50_000))
        t0 = time.perf_counter()
        work = load_trace(path)
        load_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        result = replay(work)
        replay_s = time.perf_counter() - t0
    # An overloaded 50k run (arrivals faster than service: a queue that never empties).
    heavy = synthetic_trace(50_000, rate_per_s=40.0)
    t0 = time.perf_counter()
    heavy_result = replay(heavy)
    heavy_s = time.perf_counter() - t0
    return {
        "trace_50k": {"load_csv_s": load_s, "replay_s": replay_s, "total_s": load_s + replay_s,
                      "engine_steps": result.engine_steps},
        "trace_50k_overloaded": {"replay_s": heavy_s, "engine_steps": heavy_result.engine_steps,
                                 "preemptions": int(heavy_result.preemptions.sum()),
                                 "max_waiting": int(heavy_result.series_waiting.max())},
        "growth": growth,
    }


def bench_gui() -> dict:
    from PySide6 import QtWidgets

    from widgets.serving import ServingPanel
    from widgets.theme import STYLE_SHEET

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    app.setStyleSheet(STYLE_SHEET)
    t0 = time.perf_counter()
    panel = ServingPanel()
    build_s = time.perf_counter() - t0
    panel.resize(1600, 1000)
    panel.show()
    app.processEvents()
    scroll = panel.findChild(QtWidgets.QScrollArea)
    views = {"queue_and_kv": panel.queue_plots["A"], "gantt_and_cdf": panel.cdf_plot, "banner": panel.banner_plot}
    result = {"panel_build_s": build_s}
    for name, target in views.items():
        scroll.ensureWidgetVisible(target, 0, 0)
        app.processEvents()
        player = panel.banner_player if name == "banner" else panel.replay_player
        frames, forced = [], []
        for t in np.linspace(0, player.duration, 180):
            t0 = time.perf_counter()
            player.seek(float(t))  # what one 60 Hz tick does; Qt repaints what changed
            app.processEvents()
            frames.append(time.perf_counter() - t0)
        for t in np.linspace(0, player.duration, 90):
            t0 = time.perf_counter()
            player.seek(float(t))
            app.processEvents()
            panel.repaint()  # worst case: every visible widget repainted, forms and tables too
            forced.append(time.perf_counter() - t0)
        for key, data in ((f"frame_ms_{name}", frames), (f"frame_ms_{name}_full_repaint", forced)):
            ms = np.asarray(data) * 1e3
            result[key] = {"median": float(np.median(ms)), "p95": float(np.percentile(ms, 95)), "max": float(ms.max())}
    # Timer-driven playback for 2 s: ticks actually delivered per second.
    scroll.ensureWidgetVisible(panel.queue_plots["A"], 0, 0)
    ticks = []
    panel.replay_player.position_changed.connect(lambda _: ticks.append(time.perf_counter()))
    panel.replay_player.seek(0)
    ticks.clear()
    panel.replay_player.play()
    end = time.perf_counter() + 2.0
    while time.perf_counter() < end:
        app.processEvents()
    panel.replay_player.pause()
    gaps = np.diff(ticks) * 1e3 if len(ticks) > 1 else np.array([0.0])
    result["timer_playback"] = {"ticks_per_s": len(ticks) / 2.0, "tick_gap_ms_median": float(np.median(gaps)),
                                "tick_gap_ms_p95": float(np.percentile(gaps, 95))}
    panel.close()
    return result


def main() -> None:
    report = {"machine_cpus": os.cpu_count()}
    report["replay_480"] = bench_replay()
    report.update(bench_traces())
    if "--no-gui" not in sys.argv:
        report["gui"] = bench_gui()
    print(json.dumps(report, indent=1))


if __name__ == "__main__":
    main()
