"""Foundation figures: registry discovery, `lab verify`, building the Request panel, and the
frame time of the 图 3-1 playback. Prints one JSON object. Not a test."""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def timed(fn, repeat: int = 5) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    figures: dict = {}
    # Cold start of the core in a fresh interpreter: what `lab calc` pays every time.
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", "import core.registry as r; r.registry()"], check=True)
    figures["cold_registry_s"] = round(time.perf_counter() - t0, 3)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-m", "lab", "calc", "state.area", "--json"], check=True, capture_output=True)
    figures["cold_lab_calc_s"] = round(time.perf_counter() - t0, 3)

    from core.registry import registry
    from core.verify import verify_all

    registry()
    figures["calculators"] = len(registry())
    rows = verify_all()
    figures["verify_rows"] = len(rows)
    figures["verify_all_s"] = round(timed(verify_all, 3), 4)

    from lab.app import application
    from widgets.request_panel import RequestPanel

    app = application()
    t0 = time.perf_counter()
    panel = RequestPanel()
    panel.resize(1600, 1000)
    panel.show()
    app.processEvents()
    figures["request_panel_build_s"] = round(time.perf_counter() - t0, 3)

    # A long answer: one million decode steps drawn with peak downsampling.
    def long_answer():
        panel.anatomy_card.set_value("output_tokens", "1000000")
        app.processEvents()
        panel.anatomy_card.set_value("output_tokens", "1024")
        app.processEvents()

    figures["anatomy_1M_steps_refresh_s"] = round(timed(long_answer, 3) / 2, 4)

    # Frame time while the 图 3-1 cursor plays: the handler plus the repaint Qt does of what
    # changed (the plot), and, as a worst case, a forced repaint of the whole panel.
    player = panel.step_player
    for key, force_full in (("playback_frame_ms", False), ("full_panel_repaint_ms", True)):
        frame_times = []
        for i in range(240):
            t0 = time.perf_counter()
            player.seek(i * 4)
            if force_full:
                panel.repaint()
            app.processEvents()
            frame_times.append(time.perf_counter() - t0)
        frame_times.sort()
        figures[f"{key}_p50"] = round(1000 * statistics.median(frame_times), 2)
        figures[f"{key}_p99"] = round(1000 * frame_times[int(0.99 * len(frame_times)) - 1], 2)
    panel.close()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
