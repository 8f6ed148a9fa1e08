"""Zoom change time: Ctrl+= / Ctrl+- on a built heavy panel (Serving, Training) in the main
window at 1280x720, from set_zoom to the window repainted (fonts of every widget, the panel's
plots, layouts), stepping 1 -> 1.5 -> 1 so each change is a real one. Also a theme switch
(light <-> dark) on the same panel, and the time of the first zoom with every panel built
(fonts of all of them change; plots of hidden panels wait until shown). Prints one JSON
object (median/min/max in ms). Not a test.

    QT_QPA_PLATFORM=offscreen .venv/bin/python bench/bench_zoom.py [--repeat N]
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
os.environ.setdefault("LAB_SETTINGS_DIR", tempfile.mkdtemp(prefix="bench-zoom-"))  # the user's zoom stays

from benchstats import stats

REPEAT = 9
TARGET_MS = 150.0  # a zoom step should feel immediate, like a scene switch


def _settle(app) -> None:
    for _ in range(3):
        app.processEvents()


def _timed(app, window, change) -> float:
    t0 = time.perf_counter()
    change()
    _settle(app)
    window.repaint()  # the frame the user sees, drawn now
    return (time.perf_counter() - t0) * 1e3


def _show(app, window, key: str) -> None:
    from widgets.kit.jobs import jobs

    window.show_panel(key)
    deadline = time.monotonic() + 120
    while not (window.is_ready(key) and jobs().wait_idle(timeout_ms=100)) and time.monotonic() < deadline:
        app.processEvents()
    while window.presentation._waiting and time.monotonic() < deadline:
        app.processEvents()
    _settle(app)


def main() -> None:
    repeat = int(sys.argv[sys.argv.index("--repeat") + 1]) if "--repeat" in sys.argv else REPEAT
    from lab.app import application
    from lab.main_window import MainWindow
    from widgets.kit import theme, zoom

    app = application(plots=False)
    window = MainWindow()
    window.resize(1280, 720)
    window.show()
    out: dict = {"repeat": repeat, "window": "1280x720"}
    for key in ("serving", "training"):
        _show(app, window, key)
        widgets = len(window.panel(key).findChildren(object))
        steps = [_timed(app, window, lambda f=f: zoom.set_zoom(f)) for _ in range(repeat) for f in (1.5, 1.0)]
        themes = [_timed(app, window, lambda t=t: theme.set_theme(t)) for _ in range(max(3, repeat // 3))
                  for t in ("dark", "light")]
        out[key] = {"objects": widgets, "zoom_change_ms": stats(steps, digits=1, target=TARGET_MS, unit="ms"),
                    "theme_switch_ms": stats(themes, digits=1, unit="ms")}
    for key in window.panel_keys():
        _show(app, window, key)
    all_built = [_timed(app, window, lambda f=f: zoom.set_zoom(f)) for _ in range(max(3, repeat // 3))
                 for f in (1.5, 1.0)]
    out["every_panel_built"] = {"panel": window.current_key(),
                                "zoom_change_ms": stats(all_built, digits=1, target=TARGET_MS, unit="ms")}
    window.close()
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
