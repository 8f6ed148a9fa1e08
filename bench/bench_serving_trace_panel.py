"""The Serving panel with a trace: open a file and wait until both replays, the vLLM metrics
and (for a vllm bench result) the overlay are drawn. Prints one JSON object; every figure
is repeated and given as median/min/max (benchstats), flagged when over its target.

- azure_code: the 8,819-row Azure LLM inference 2023 code trace (/work/brief/traces or
  LAB_AZURE_CODE), as it ships;
- synthetic_100k: 100,000 requests (Poisson at 25/s, 100-4,000 prompt and 5-400 output
  tokens), CSV;
for each: seconds from open to everything drawn, and the longest gap of a 10 ms GUI timer
meanwhile (how long the GUI froze; target <= 50 ms).

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_serving_trace_panel.py [--repeat N]
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from benchstats import stats

AZURE = os.environ.get("LAB_AZURE_CODE", "/work/brief/traces/AzureLLMInferenceTrace_code.csv")
GAP_TARGET_MS = 50.0


def synthetic_trace(path: str, n: int = 100_000, seed: int = 0) -> str:
    rng = np.random.default_rng(seed)
    rows = np.column_stack([np.cumsum(rng.exponential(1 / 25, n)), rng.integers(100, 4000, n),
                            rng.integers(5, 400, n)])
    np.savetxt(path, rows, fmt=["%.4f", "%d", "%d"], delimiter=",", header="arrival_s,input_tokens,output_tokens",
               comments="")
    return path


def main(repeat: int) -> dict:
    from PySide6 import QtCore, QtWidgets

    from widgets.kit.jobs import jobs
    from widgets.serving import ServingPanel

    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication([])
    panel = ServingPanel()
    panel.resize(1280, 720)
    panel.show()

    def pump_until(done, limit_s=600.0):
        end = time.perf_counter() + limit_s
        while not done() and time.perf_counter() < end:
            app.processEvents(QtCore.QEventLoop.ProcessEventsFlag.AllEvents, 5)

    def ready():
        return panel.is_ready() and not jobs().busy_keys()

    pump_until(ready)
    ticks = {"last": 0.0, "longest": 0.0}

    def tick():
        now = time.perf_counter()
        ticks["longest"] = max(ticks["longest"], now - ticks["last"])
        ticks["last"] = now

    timer = QtCore.QTimer()
    timer.setTimerType(QtCore.Qt.TimerType.PreciseTimer)
    timer.timeout.connect(tick)
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        traces = {"synthetic_100k": synthetic_trace(os.path.join(tmp, "synthetic_100k.csv"))}
        if os.path.exists(AZURE):
            traces = {"azure_code": AZURE, **traces}
        for name, path in traces.items():
            walls, gaps = [], []
            for _ in range(repeat):
                panel.trace_section.clear()
                pump_until(ready)
                ticks["last"], ticks["longest"] = time.perf_counter(), 0.0
                timer.start(10)
                t0 = time.perf_counter()
                panel.trace_section.open_path(path)
                pump_until(lambda: panel.state.trace_loaded is not None and ready())
                walls.append(time.perf_counter() - t0)
                timer.stop()
                tick()
                gaps.append(ticks["longest"] * 1e3)
            out[name] = {"requests": panel.state.replay("A").result["requests"],
                         "open_to_drawn_s": stats(walls, unit="s"),
                         "longest_gui_gap_ms": stats(gaps, digits=1, target=GAP_TARGET_MS, unit="ms")}
    panel.close()
    jobs().wait_idle()
    return out


if __name__ == "__main__":
    n = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else 5
    print(json.dumps(main(n), indent=1))
