"""Talk mode in the window: every shipped scene applies and renders, Ctrl+R restores a
scene after edits, the clicker keys step, the presenter view, and `lab snapshot --talk`."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from core.talk import STATE_MODELS, load_talk
from lab.app import scene_window
from lab.cli import main
from lab.talk import open_talk, read_talk
from lab.talk.presenter import PresenterView
from widgets.kit.plot_card import PlotCard

CHAPTER3 = Path(__file__).resolve().parents[2] / "talks" / "chapter3.toml"
SCENES = len(load_talk(CHAPTER3).scenes)  # the valid --scene range, as the shipped talk has grown
Key = QtCore.Qt.Key
CTRL = QtCore.Qt.KeyboardModifier.ControlModifier


@pytest.fixture(scope="module")
def talk_window(qapp, tmp_path_factory):
    """One window for the module's tests (panels are built once): chapter 3 at 1280×720,
    opened the way `lab snapshot --talk` opens it."""
    old = os.environ.get("LAB_SETTINGS_DIR")
    os.environ["LAB_SETTINGS_DIR"] = str(tmp_path_factory.mktemp("settings"))
    window, controller = scene_window(str(CHAPTER3), 1)
    window.resize(1280, 720)
    window.show()
    yield window, controller
    window.talk.close() if window.talk is not None else None
    window.close()
    window.deleteLater()  # a closed window left alive is restyled by every later theme change
    if old is None:
        os.environ.pop("LAB_SETTINGS_DIR", None)
    else:
        os.environ["LAB_SETTINGS_DIR"] = old


def _go(qtbot, controller, index):
    controller.go(index)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)


def _key(qtbot, window, controller, key, modifier=QtCore.Qt.KeyboardModifier.NoModifier):
    qtbot.keyClick(window, key, modifier)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)


def test_state_models_cover_every_panel_but_main():
    from lab.app import panel_keys

    assert sorted(STATE_MODELS) == sorted(panel_keys())


def test_every_shipped_scene_applies_and_renders(qtbot, talk_window):
    window, controller = talk_window
    talk = controller.talk
    assert len(talk.scenes) >= 25 and talk.errors == []
    for index, scene in enumerate(talk.scenes):
        _go(qtbot, controller, index)
        assert window.current_key() == scene.panel and window.stack.currentWidget() is window.panel(scene.panel)
        state = window.panel_state_json(scene.panel)
        assert state["cards"] == scene.state["cards"] and state["view"] == scene.state["view"], scene.label
        assert controller.bar.annotation.text() == scene.annotation
        assert controller.bar.strip.label_text().startswith(f"{scene.number} / {len(talk.scenes)}")
        image = window.grab().toImage()
        assert (image.width(), image.height()) == (1280, 720), scene.label
        # Not a blank page: the figure has many colours.
        colours = {image.pixel(x, y) for x in range(0, 1280, 40) for y in range(0, 600, 40)}
        assert len(colours) > 6, scene.label
        if scene.figure:
            _assert_figure_on_top(window.panel(scene.panel), scene.figure, scene.label)
        elif scene.focus:
            _assert_card_on_screen(window.panel(scene.panel), scene.focus, scene.label)


def _assert_figure_on_top(panel, text, label):
    from widgets.kit.plot_card import PlotCard

    plots = [p for p in panel.findChildren(PlotCard) if text in p.title_label.text() and p.isVisibleTo(panel)]
    assert plots, f"{label}: no figure titled {text!r} on view"
    area = plots[0]
    while not isinstance(area, QtWidgets.QScrollArea):
        area = area.parentWidget()
    top = plots[0].mapTo(area.viewport(), QtCore.QPoint(0, 0)).y()
    bar = area.verticalScrollBar()
    assert 0 <= top < 40 or bar.value() == bar.maximum(), f"{label}: figure {text!r} at {top}"


def _assert_card_on_screen(panel, slot, label):
    from widgets.kit.calculator_card import CalculatorCard

    model = panel.state.cards[slot]
    cards = [c for c in panel.findChildren(CalculatorCard) if c.model is model]
    if not cards:
        return  # the card's values live in the panel's own forms (vision)
    area = cards[0]
    while not isinstance(area, QtWidgets.QScrollArea):
        area = area.parentWidget()
    # The card with its figure (the column holding both), or the card itself on a page of
    # cards or in a column of several cards (lab.talk.scene_page).
    column = cards[0].parentWidget()
    alone = column is not area.widget() and len(column.findChildren(CalculatorCard)) == 1
    section = column if alone else cards[0]
    top = section.mapTo(area.viewport(), QtCore.QPoint(0, 0)).y()
    bar = area.verticalScrollBar()
    assert 0 <= top < area.viewport().height() // 2 or bar.value() == bar.maximum(), f"{label}: {slot} at {top}"


def test_ctrl_r_restores_the_scene_after_edits(qtbot, talk_window):
    window, controller = talk_window
    talk = controller.talk
    index = next(i for i, s in enumerate(talk.scenes) if s.title == "练习 3-3")
    _go(qtbot, controller, index)
    scene = talk.scenes[index]
    state = window.panel_state("request")
    before = window.panel_state_json("request")
    assert before == scene.state
    state.card("compare").update({"c2": 9.0, "p2": 0.3})
    state.card("anatomy").update({"output_tokens": 64})
    state.set_player("steps", 12.0)
    state.set_view("step_speed", 10.0)
    area = window.panel("request").findChild(QtWidgets.QScrollArea)
    area.verticalScrollBar().setValue(0)
    assert window.panel_state_json("request") != scene.state
    _key(qtbot, window, controller, Key.Key_R, CTRL)
    assert window.panel_state_json("request") == scene.state
    assert area.verticalScrollBar().value() > 0  # scrolled back to the scene's card


def test_clicker_keys_step_jump_and_skip_nothing_good(qtbot, talk_window):
    window, controller = talk_window
    last = len(controller.talk.scenes) - 1
    _go(qtbot, controller, 0)
    _key(qtbot, window, controller, Key.Key_PageDown)
    assert controller.index == 1
    _key(qtbot, window, controller, Key.Key_Right)
    assert controller.index == 2
    _key(qtbot, window, controller, Key.Key_PageUp)
    _key(qtbot, window, controller, Key.Key_Left)
    assert controller.index == 0
    _key(qtbot, window, controller, Key.Key_Left)  # nothing before the first scene
    assert controller.index == 0
    _key(qtbot, window, controller, Key.Key_End)
    assert controller.index == last and window.current_key() == controller.talk.scenes[last].panel
    _key(qtbot, window, controller, Key.Key_PageDown)  # nothing after the last
    assert controller.index == last
    _key(qtbot, window, controller, Key.Key_Home)
    assert controller.index == 0 and window.current_key() == "request"
    strip = controller.bar.strip  # a click on the strip's 5th dot: scene 5
    left, step, _ = strip._geometry()
    fifth = QtCore.QPoint(int(left + step * 4.5), strip.height() // 2)
    qtbot.mouseClick(strip, QtCore.Qt.MouseButton.LeftButton, pos=fifth)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)
    assert controller.index == 4 and strip.label_text().startswith("5 / ")


def test_blank_and_notes_toggle(qtbot, talk_window):
    window, controller = talk_window
    _go(qtbot, controller, 0)
    qtbot.keyClick(window, Key.Key_B)
    assert controller.blank.isVisible() and controller.blank.geometry() == window.rect()
    qtbot.keyClick(window, Key.Key_Period)
    assert not controller.blank.isVisible()
    qtbot.keyClick(window, Key.Key_N)
    assert controller.bar.notes_shown() and "prefill" in controller.bar.notes.text()
    qtbot.keyClick(window, Key.Key_N)
    assert not controller.bar.notes_shown()


def test_space_plays_then_steps_at_the_end_of_the_player(qtbot, talk_window):
    window, controller = talk_window
    _go(qtbot, controller, 0)  # 图 3-1: a ▶ over the decode steps
    player = controller.page.player(window.panel("request"), "steps")
    assert player is not None and not player.is_playing()
    qtbot.keyClick(window, Key.Key_Space)
    assert player.is_playing()
    qtbot.keyClick(window, Key.Key_Space)
    assert not player.is_playing() and controller.index == 0
    player.seek(player.duration)
    _key(qtbot, window, controller, Key.Key_Space)
    assert controller.index == 1
    # A scene whose panel has no ▶: Space steps.
    agents = next(i for i, s in enumerate(controller.talk.scenes) if s.panel == "agents")
    _go(qtbot, controller, agents)
    _key(qtbot, window, controller, Key.Key_Space)
    assert controller.index == agents + 1


def test_a_field_being_edited_keeps_its_arrows(qtbot, talk_window):
    window, controller = talk_window
    _go(qtbot, controller, 1)
    field = window.panel("request").findChild(QtWidgets.QLineEdit)
    window.activateWindow()  # a field being edited has the focus of the active window
    field.setFocus()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.focusWidget() is field, timeout=10_000)
    qtbot.keyClick(field, Key.Key_Left)
    qtbot.keyClick(field, Key.Key_N)
    assert controller.index == 1 and not controller.bar.notes_shown()
    _key(qtbot, field, controller, Key.Key_PageDown)  # the clicker's key still steps
    assert controller.index == 2
    window.setFocus()


def test_f5_starts_from_scene_one_in_presentation_and_esc_leaves(qtbot, talk_window):
    window, controller = talk_window
    _go(qtbot, controller, 3)
    _key(qtbot, window, controller, Key.Key_F5)
    assert window.presentation_action.isChecked() and controller.index == 0
    qtbot.keyClick(window, Key.Key_Escape)
    assert not window.presentation_action.isChecked()
    window.showNormal()
    window.resize(1280, 720)


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


def test_snapshot_talk_scene_writes_the_size_asked(tmp_path, capsys):
    out = tmp_path / "scene.png"
    assert main(["snapshot", "--talk", str(CHAPTER3), "--scene", "2", "--out", str(out), "--size", "960x600"]) == 0
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == (960, 600)


@pytest.mark.parametrize("args, field, hint", [
    (["--talk", str(CHAPTER3), "--scene", "99"], "--scene", f"valid: 1..{SCENES}"),
    (["--talk", str(CHAPTER3), "--scene", "0"], "--scene", f"valid: 1..{SCENES}"),
    (["--talk", str(CHAPTER3), "--scene", "two"], "--scene", f"valid: a scene number 1..{SCENES}"),
    (["--talk", str(CHAPTER3)], "--scene", f"valid: a scene number 1..{SCENES}"),
    (["--scene", "1"], "--talk", "required with --scene"),
    (["request", "--talk", str(CHAPTER3), "--scene", "1"], "PANEL", "no PANEL"),
    (["--talk", "/nonexistent/talk.toml", "--scene", "1"], "--talk", "talk.toml"),
])
def test_snapshot_talk_bad_input_exits_2_naming_the_option(args, field, hint, tmp_path, capsys):
    assert main(["snapshot", *args, "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and f"{field}:" in err and hint in err
    assert not (tmp_path / "x.png").exists()


def test_snapshot_of_a_bad_scene_exits_2_with_its_message(tmp_path, capsys):
    path = tmp_path / "t.toml"
    path.write_text('[[scene]]\npanel = "agents"\n[[scene]]\ntitle = "two"\npanel = "request"\nzoom = 7\n',
                    encoding="utf-8")
    assert main(["snapshot", "--talk", str(path), "--scene", "2", "--out", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "--scene:" in err and "scene 2 «two»: zoom" in err


def test_lab_talk_refuses_a_bad_file_before_any_window(tmp_path, capsys):
    path = tmp_path / "t.toml"
    path.write_text("[[scene]\n", encoding="utf-8")
    assert main(["talk", str(path)]) == 2
    assert "not TOML" in capsys.readouterr().err


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
    _key(qtbot, window, controller, Key.Key_R, CTRL)
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


def test_a_scenes_plot_ranges_hold_and_go_back_after_it(qtbot, talk_window):
    window, controller = talk_window
    talk = controller.talk
    index = next(i for i, s in enumerate(talk.scenes) if s.ranges)
    scene = talk.scenes[index]
    (text, axes), = scene.ranges.items()
    _go(qtbot, controller, index - 1)  # the same panel, its own ranges
    plot = next(p for p in window.panel(scene.panel).findChildren(PlotCard) if text in p.title_label.text())
    box = plot.plot.getViewBox()
    own = box.viewRange()[0]
    _go(qtbot, controller, index)
    assert box.viewRange()[0] == pytest.approx(list(axes["x"]))
    box.setRange(xRange=(5, 7), padding=0)  # the speaker pans
    _key(qtbot, window, controller, Key.Key_R, CTRL)
    assert box.viewRange()[0] == pytest.approx(list(axes["x"]))
    _go(qtbot, controller, index - 1)
    assert box.viewRange()[0] == pytest.approx(own)


def test_a_scenes_player_speed_holds_while_it_is_on(qtbot, talk_window, tmp_path):
    window, controller = talk_window
    path = tmp_path / "speed.toml"
    path.write_text('[[scene]]\npanel = "serving"\nplayers = { banner = { speed = 20 } }\n'
                    '[[scene]]\npanel = "serving"\n', encoding="utf-8")
    old = controller.talk
    talk = read_talk(path)
    controller = open_talk(window, talk, presentation=False, autoplay=False)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)
    player = window.panel("serving").banner_player
    assert player.speed == 20.0
    _key(qtbot, window, controller, Key.Key_PageDown)
    assert player.speed == 10.0  # the panel's own
    controller.close()
    controller = open_talk(window, old, presentation=False, autoplay=False)  # the module's talk again
    qtbot.waitUntil(controller.is_ready, timeout=30_000)


def test_the_talk_reads_keys_on_the_focus_and_its_windows_only(qtbot, talk_window, monkeypatch):
    """Not an application-wide filter (a Python call for every event of every object made
    a plot's build about twice as slow while a talk was open): a plot built with the talk
    open sends the talk's filter none of its events."""
    from widgets.kit.plot_card import PlotCard

    window, _ = talk_window
    controller = window.talk  # (a test before may have opened the module's talk again)
    seen = []
    original = type(controller).read_key  # what its eventFilter asks (a Python call per event)

    def counting(self, watched, event):
        seen.append(watched)
        return original(self, watched, event)

    monkeypatch.setattr(type(controller), "read_key", counting)
    card = PlotCard("built while a talk is open")
    card.resize(400, 300)
    card.show()
    qtbot.waitExposed(card)
    card.close()
    assert not any(w is card or card.isAncestorOf(w) for w in seen if isinstance(w, QtWidgets.QWidget))
    assert set(controller.keys.watched()) <= {window, QtWidgets.QApplication.focusWidget()}
    seen.clear()
    qtbot.keyClick(window, Key.Key_N)  # and the keys still arrive
    assert window in seen and controller.bar.notes_shown()
    qtbot.keyClick(window, Key.Key_N)
    assert not controller.bar.notes_shown()
