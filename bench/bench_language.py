"""Language switch cost: set_language on a built panel (every string walked and set), and a
re-walk of the widgets on screen that finds nothing new (what the main window pays after a
state change and on each refresh tick while a language other than "both" is chosen).
Prints JSON: median/min/max in ms."""
from __future__ import annotations

import json
import os
import sys
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.benchstats import stats

RUNS = 7
SWITCH_TARGET_MS = 150  # a switch is one click: it must feel immediate
WALK_TARGET_MS = 30  # a re-walk runs on the GUI thread: nothing over ~30 ms there


def main() -> None:
    from lab.app import application
    from widgets.kit.i18n import set_language, translate_tree
    from widgets.kit.jobs import jobs
    from widgets.kit.panels import discover_panels

    app = application()
    report = {}
    for info in discover_panels():
        panel = info.factory()
        panel.resize(1280, 720)
        panel.show()
        for _ in range(400):
            app.processEvents()
            if jobs().wait_idle(timeout_ms=200) and getattr(panel, "is_ready", lambda: True)():
                break
        switches, walks = [], []
        for i in range(RUNS):
            start = time.perf_counter()
            set_language("en" if i % 2 == 0 else "zh")
            switches.append(time.perf_counter() - start)
            start = time.perf_counter()
            translate_tree(panel, visible_only=True)
            walks.append(time.perf_counter() - start)
        set_language("both")
        report[info.key] = {"switch_ms": stats(switches, 1e3, 1, SWITCH_TARGET_MS),
                            "rewalk_on_screen_ms": stats(walks, 1e3, 1, WALK_TARGET_MS)}
        panel.close()
        panel.deleteLater()
        app.processEvents()
    print(json.dumps({"language": report}, indent=1))


if __name__ == "__main__":
    main()
