"""Opening a talk in a fresh window: bad scenes said and skipped, the presenter view (and
on the other screen when there are two), a scene's image and zoom brought back by Ctrl+R,
and the next scene's panel built while this one is shown."""
from __future__ import annotations

import os

from PySide6 import QtWidgets

from core.talk import load_talk
from lab.talk import open_talk, read_talk
from lab.talk.presenter import PresenterView
from tests.lab.talk_testkit import CHAPTER3, CTRL, Key, press


def test_a_talk_with_bad_scenes_says_so_and_opens_at_the_first_good(qtbot, tmp_path):
    from lab.main_window import MainWindow

    path = tmp_path / "bad.toml"
    path.write_text('[[scene]]\ntitle = "oops"\npanel = "request"\ncards.split = { requests = "x" }\n'
                    '[[scene]]\ntitle = "fine"\npanel = "agents"\n', encoding="utf-8")
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    controller = open_talk(window, read_talk(path))
    qtbot.waitUntil(controller.is_ready, timeout=30_000)
    assert controller.index == 1 and window.current_key() == "agents"
    box = window.findChild(QtWidgets.QMessageBox, "talk_errors")
    assert box is not None and "scene 1 «oops»: cards.split.requests" in box.text()
    box.close()
    qtbot.keyClick(window, Key.Key_PageUp)  # the bad scene is never shown
    assert controller.index == 1
    assert window.close_talk_action.isEnabled()
    window.close_talk_action.trigger()
    assert window.talk is None and not window.close_talk_action.isEnabled()
    assert window.findChild(QtWidgets.QToolBar, "talk_toolbar") is None or not controller.toolbar.isVisible()
    window.show_panel("request")
    qtbot.waitUntil(lambda: window.is_ready("request"), timeout=30_000)
    qtbot.keyClick(window, Key.Key_End)  # the keys are the panels' again: no talk steps
    assert window.current_key() == "request"
    window.presentation_action.setChecked(False)


def test_presenter_view_shows_scene_next_notes_and_a_clock(qtbot):
    talk = load_talk(CHAPTER3)
    view = PresenterView()
    qtbot.addWidget(view)
    view.show_scene(talk, 0)
    assert view.current.text().startswith(f"1 / {len(talk.scenes)} · 图 3-1")
    assert talk.scenes[0].annotation in view.current.text()
    assert "prefill" in view.notes.toPlainText()
    assert view.next.text() == f"next → 2 · {talk.scenes[1].title}"
    view.show_scene(talk, len(talk.scenes) - 1)
    assert "end of the talk" in view.next.text()
    assert view.elapsed_text() == "00:00"
    time_line, elapsed = view.clock.text().split("\n")
    assert len(time_line) == 5 and time_line[2] == ":" and elapsed == "00:00"


def test_ctrl_r_brings_back_the_scenes_image_and_zoom(qtbot, tmp_path):
    from PIL import Image

    from core.vision.state import SAMPLE
    from lab.main_window import MainWindow
    from widgets.kit import zoom

    (tmp_path / "pics").mkdir()
    Image.new("RGB", (320, 200), (200, 80, 40)).save(tmp_path / "pics" / "red.png")
    path = tmp_path / "talk.toml"
    path.write_text('[[scene]]\ntitle = "a photo"\npanel = "vision"\nimage = "pics/red.png"\nzoom = 1.25\n'
                    'view = { tab = "compare" }\n', encoding="utf-8")
    talk = read_talk(path)
    image = str(tmp_path / "pics" / "red.png")
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    controller = open_talk(window, talk, presentation=False)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)
    state = window.panel_state("vision")
    assert state.sources == (image,) and state.view("tab") == "compare" and zoom.zoom() == 1.25
    request = state.card("request").inputs
    assert (request["heights"], request["widths"]) == ((200,), (320,))
    panel = window.panel("vision")
    qtbot.waitUntil(lambda: panel.current_image().path == image, timeout=30_000)  # the pixels, loaded
    state.set_images([SAMPLE])
    state.set_view("tab", "volumes")
    zoom.set_zoom(2.0)
    press(qtbot, window, controller, Key.Key_R, CTRL)
    assert window.panel_state_json("vision") == talk.scenes[0].state
    assert zoom.zoom() == 1.25 and panel.current_image().path == image
    controller.close()
    zoom.set_zoom(1.0)


_TWO_SCREENS = """
import json, sys
from lab.app import start_window
from lab.talk import open_talk, read_talk
app, window = start_window()
controller = open_talk(window, read_talk(sys.argv[1]))
while not controller.is_ready():
    app.processEvents()
view = controller.presenter
print(json.dumps({"window": window.screen().name(), "presenter": view.screen().name() if view else None,
                  "visible": bool(view and view.isVisible()), "next": view.next.text() if view else ""}))
controller.close()
"""


def test_with_two_screens_the_presenter_view_opens_on_the_other(tmp_path):
    import json
    import subprocess
    import sys

    config = tmp_path / "screens.json"
    screen = {"y": 0, "logicalDpi": 96, "logicalBaseDpi": 96, "dpr": 1}
    config.write_text(json.dumps({"screens": [
        {"name": "projector", "x": 0, "width": 1920, "height": 1080, **screen},
        {"name": "laptop", "x": 1920, "width": 1280, "height": 800, **screen}]}))
    env = {**os.environ, "QT_QPA_PLATFORM": f"offscreen:configfile={config}",
           "LAB_SETTINGS_DIR": str(tmp_path / "settings")}
    out = subprocess.run([sys.executable, "-c", _TWO_SCREENS, str(CHAPTER3)], env=env, capture_output=True,
                         text=True, timeout=120, cwd=CHAPTER3.parents[1])
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout.strip().splitlines()[-1])
    assert seen["visible"] and seen["presenter"] != seen["window"]
    assert seen["next"].startswith("next → 2 ·")


def test_the_next_scenes_panel_is_built_while_this_one_is_shown(qtbot):
    from lab.main_window import MainWindow

    talk = load_talk(CHAPTER3)
    index = max(i for i, s in enumerate(talk.scenes) if s.panel == "request" and talk.scenes[i + 1].panel == "serving")
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    controller = open_talk(window, talk, presentation=False, index=index)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)
    assert not window.is_built("serving")
    qtbot.waitUntil(lambda: window.is_built("serving"), timeout=30_000)
    assert window.current_key() == "request"  # built behind the scene on screen, not shown
    assert window.panel_state_json("serving")["view"] == talk.scenes[index + 1].state["view"]
    controller.close()
