"""Export figures: one plot (图 3-1 on the Request panel) and the whole Request panel at
1280x720 written as PNG, SVG, PDF (and the plot's CSV), with the files' sizes. Export runs on
the GUI thread (widgets paint only there), so each figure is held against the ~30 ms budget
for GUI work where it can be, and reported as it is where it cannot (a whole-page PDF).
Prints one JSON object. Not a test.
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

from benchstats import stats  # noqa: E402

REPEATS = 7
GUI_WORK_TARGET_MS = 30.0


def main() -> None:
    from lab.app import application
    from widgets.export import export_plot, write_widget
    from widgets.jobs import jobs
    from widgets.request_panel import RequestPanel

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
        for what, write, formats in (("plot", lambda p, f: export_plot(panel.anatomy_plot, p, f), ("png", "svg", "pdf", "csv")),
                                     ("panel", lambda p, f: write_widget(panel, p, f), ("png", "svg", "pdf"))):
            for fmt in formats:
                path = Path(folder) / f"{what}.{fmt}"
                samples = []
                for _ in range(REPEATS):
                    t0 = time.perf_counter()
                    write(path, fmt)
                    samples.append(time.perf_counter() - t0)
                out[f"{what}_{fmt}_ms"] = stats(samples, scale=1000, digits=1, target=GUI_WORK_TARGET_MS, unit="ms")
                out[f"{what}_{fmt}_bytes"] = path.stat().st_size
    panel.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
