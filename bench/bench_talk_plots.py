"""What an open talk costs every plot built meanwhile (issue 14: a talk's key filter was
application-wide, a Python call for each event of every object): the GUI thread's CPU
(time.thread_time) to build and first paint one PlotCard, with talks/chapter3.toml open at
scene 1 and with no talk, in one process, the two interleaved. Prints one JSON object.

`bench_talk_plots.py [N]`: N PlotCards a round (default 20), ROUNDS rounds; median/min/max
of the per-round mean, in ms. Not a test.
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from benchstats import stats

ROOT = Path(__file__).resolve().parents[1]
TALK = ROOT / "talks" / "chapter3.toml"
ROUNDS = 3


def build_ms(count: int) -> float:
    """Mean GUI-thread CPU (ms) to build, show and paint one PlotCard, count times."""
    from PySide6 import QtWidgets

    from widgets.kit.plot_card import PlotCard

    app = QtWidgets.QApplication.instance()
    start = time.thread_time()
    for i in range(count):
        card = PlotCard(f"plot {i}")
        card.resize(400, 300)
        card.show()
        app.processEvents()
        card.close()
        card.deleteLater()
    app.processEvents()
    return (time.thread_time() - start) / count * 1e3


def main(count: int) -> None:
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    os.environ["LAB_SETTINGS_DIR"] = tempfile.mkdtemp()
    from lab.app import application, scene_window

    app = application()
    build_ms(3)  # the first plot loads what every plot after shares
    window, controller = scene_window(str(TALK), 1)
    window.resize(1280, 720)
    window.show()
    deadline = time.monotonic() + 120
    while not controller.is_ready() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.005)
    talk = window.talk
    keys = getattr(talk, "keys", None)  # lab/talk/keys.py; None: the application-wide filter of before
    with_talk, without = [], []
    for _ in range(ROUNDS):
        with_talk.append(build_ms(count))
        # The talk's key reading off: what the window pays without a talk.
        keys.close() if keys is not None else app.removeEventFilter(talk)
        without.append(build_ms(count))
        if keys is not None:
            keys = talk.keys = type(keys)(talk, lambda: (window, talk.presenter))
        else:
            app.installEventFilter(talk)
    print(json.dumps({"plots_per_round": count, "rounds": ROUNDS,
                      "plot_cpu_ms_talk_open": stats(with_talk, digits=2),
                      "plot_cpu_ms_no_talk": stats(without, digits=2)}, indent=1))
    os._exit(0)


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 20)
