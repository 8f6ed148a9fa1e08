"""Scene switch time of a talk: from the key (controller.go) to the scene on screen, i.e.
the panel ready, scrolled to its figure or card, and the window painted (one full paint).
Prints one JSON object. Not a test.

talks/chapter3.toml in a 1280×720 window as `lab snapshot --talk` shows it.
- cold: the first visit of each panel, its widgets built then;
- warm: every scene again, ROUNDS times, all panels built; wall ms and the process's CPU ms
  (on a busy machine the wall clock also counts waiting for a core);
- first visits stepped in order on a new window at a speaker's pace: the controller builds
  the next scene's panel while the current one is on screen.
Each switch pauses the ▶ of the scene left and starts the ▶ of a scene that asks for it,
as in a talk. Target (issue 10): p95 <= 150 ms including the redraw.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
os.environ.setdefault("LAB_SETTINGS_DIR", tempfile.mkdtemp(prefix="lab-bench-"))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchstats import stats
from PySide6 import QtCore, QtWidgets

TALK = Path(__file__).resolve().parents[1] / "talks" / "chapter3.toml"
TARGET_MS = 150.0
ROUNDS = 3
DWELL_S = 1.5  # how long a scene stays on screen when stepping at a speaker's pace
SIZE = (1280, 720)


def p95(samples: list[float]) -> float:
    ordered = sorted(samples)
    return ordered[max(0, -(-95 * len(ordered) // 100) - 1)]  # nearest rank


class PaintWatch(QtCore.QObject):
    """Counts paint events of the main window's widgets (an application event filter)."""

    def __init__(self, window):
        super().__init__()
        self.window, self.paints = window, 0

    def eventFilter(self, watched, event):
        if event.type() == QtCore.QEvent.Type.Paint and isinstance(watched, QtWidgets.QWidget) \
                and watched.window() is self.window:
            self.paints += 1
        return False


CPU_MS: list[float] = []  # the process's CPU ms of each switch (wall time on a busy machine waits too)


def switch_ms(app, window, controller, watch: PaintWatch, index: int) -> float:
    """Wall ms of one switch: go, turn the loop until the scene is ready, then until the
    window has painted it (the whole window marked dirty: one full paint, as on screen)."""
    cpu0 = time.process_time()
    t0 = time.perf_counter()
    controller.go(index)
    deadline = t0 + 60
    while not controller.is_ready() and time.perf_counter() < deadline:
        app.processEvents()
    window.update()
    painted = watch.paints
    while watch.paints == painted and time.perf_counter() < deadline:
        app.processEvents()
    CPU_MS.append((time.process_time() - cpu0) * 1e3)
    return (time.perf_counter() - t0) * 1e3


def summary(samples: list[float]) -> dict:
    out = stats(samples, digits=1, target=TARGET_MS, unit="ms")
    out["p50"] = out["median"]
    out["p95"] = round(p95(samples), 1)
    out["p95_over_target"] = out["p95"] > TARGET_MS
    return out


def main() -> None:
    from core.talk import load_talk
    from lab.app import application
    from lab.talk import open_talk

    app = application()
    window = fresh_window(app)
    talk = load_talk(TALK)
    scenes = talk.scenes
    watch = PaintWatch(window)
    app.installEventFilter(watch)
    t0 = time.perf_counter()
    controller = open_talk(window, talk, presentation=False, index=0)
    controller.prefetch = False  # cold means cold: no panel built ahead of its scene
    while not controller.is_ready():
        app.processEvents()
    window.update()
    while watch.paints == 0:
        app.processEvents()
    cold: dict[str, float] = {scenes[0].panel: (time.perf_counter() - t0) * 1e3}
    for index, scene in enumerate(scenes):  # the first scene of each panel builds it
        if not window.is_built(scene.panel):
            cold[scene.panel] = switch_ms(app, window, controller, watch, index)
    CPU_MS.clear()
    warm, by_panel = [], {}
    for _ in range(ROUNDS):
        for index, scene in enumerate(scenes):
            ms = switch_ms(app, window, controller, watch, index)
            warm.append(ms)
            by_panel.setdefault(scene.panel, []).append(ms)
    warm_cpu = list(CPU_MS)
    controller.close()
    window.close()
    stepped = step_in_order(app, talk)
    worst = max(range(len(warm)), key=warm.__getitem__)
    report = {
        "talk": TALK.name, "scenes": len(scenes), "size": f"{SIZE[0]}x{SIZE[1]}", "rounds": ROUNDS,
        "warm_switch_ms": summary(warm),
        "warm_switch_cpu_ms": summary(warm_cpu),
        "load_average": [round(x, 2) for x in os.getloadavg()], "cpus": os.cpu_count(),
        "warm_by_panel_ms": {k: stats(v, digits=1) for k, v in by_panel.items()},
        "slowest_warm_scene": scenes[worst % len(scenes)].label,
        "cold_first_visit_ms": summary(list(cold.values())),
        "cold_by_panel_ms": {k: round(v, 1) for k, v in cold.items()},
        f"first_visits_stepped_in_order_ms (fresh window, {DWELL_S:g} s a scene)": summary(stepped),
    }
    print(json.dumps(report, ensure_ascii=False, indent=1))


def fresh_window(app):
    """A main window as presentation mode shows a scene, on a panel no scene shows."""
    from lab.main_window import MainWindow
    from lab.settings import Settings

    Settings().set("last_panel", "verify")  # every scene's panel is then a first visit
    window = MainWindow()
    for chrome in (window.nav, window.menuBar(), window.statusBar()):
        chrome.hide()  # as presentation mode and `lab snapshot --talk` show a scene
    window.resize(*SIZE)
    window.show()
    while not window.is_ready("verify"):
        app.processEvents()
    return window


def step_in_order(app, talk) -> list[float]:
    """A speaker's pace on a new window: each scene shown DWELL_S, then the next; the wall
    ms of the switches onto a panel's first scene (its panel built ahead, or not)."""
    from lab.talk import open_talk

    window = fresh_window(app)
    watch = PaintWatch(window)
    app.installEventFilter(watch)
    controller = open_talk(window, talk, presentation=False, index=0)
    seen, firsts = {talk.scenes[0].panel}, []
    for index, scene in enumerate(talk.scenes[1:], start=1):
        until = time.perf_counter() + DWELL_S
        while time.perf_counter() < until:
            app.processEvents()
        ms = switch_ms(app, window, controller, watch, index)
        if scene.panel not in seen:
            seen.add(scene.panel)
            firsts.append(ms)
    app.removeEventFilter(watch)
    controller.close()
    window.close()
    return firsts


if __name__ == "__main__":
    main()
