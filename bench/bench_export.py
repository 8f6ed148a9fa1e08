"""Export figures: one plot (图 3-1 on the Request panel) and the whole Request panel at
1280x720 written as PNG, SVG, PDF (and the plot's CSV), with the files' sizes. Painting runs
on the GUI thread (widgets paint only there) and is held against the ~30 ms budget for GUI
work; encoding a PNG and writing the file run on the job runner from the menus, so the total
is reported beside it. Prints one JSON object. Not a test.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchstats import stats

REPEATS = 7
GUI_WORK_TARGET_MS = 30.0


def main() -> None:
    from lab.app import application
    from widgets.kit.export import encode, paint_plot, paint_widget, write_atomic
    from widgets.kit.jobs import jobs
    from widgets.request import RequestPanel

    app = application()
    panel = RequestPanel()
    panel.resize(1280, 720)
    panel.show()
    deadline = time.monotonic() + 60
    while not (jobs().wait_idle(timeout_ms=200) and getattr(panel, "is_ready", lambda: True)()):
        app.processEvents()
        if time.monotonic() > deadline:
            break
    for _ in range(5):
        app.processEvents()
    out: dict = {}
    with tempfile.TemporaryDirectory() as folder:
        for what, paint, formats in (("plot", lambda f: paint_plot(panel.anatomy_plot, f), ("png", "svg", "pdf", "csv")),
                                     ("panel", lambda f: paint_widget(panel, f), ("png", "svg", "pdf"))):
            for fmt in formats:
                path = Path(folder) / f"{what}.{fmt}"
                gui, total = [], []
                for _ in range(REPEATS):
                    t0 = time.perf_counter()
                    painted = paint(fmt)  # the GUI thread's share (the menus encode and write on a worker)
                    t1 = time.perf_counter()
                    write_atomic(path, encode(painted))
                    gui.append(t1 - t0)
                    total.append(time.perf_counter() - t0)
                out[f"{what}_{fmt}_gui_ms"] = stats(gui, scale=1000, digits=1, target=GUI_WORK_TARGET_MS, unit="ms")
                out[f"{what}_{fmt}_total_ms"] = stats(total, scale=1000, digits=1, unit="ms")
                out[f"{what}_{fmt}_bytes"] = path.stat().st_size
    panel.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
