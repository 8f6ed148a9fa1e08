"""Talk mode in one window for the module (panels built once): every shipped scene applies
and renders, Ctrl+R restores a scene after edits, the clicker keys step, blank and notes,
a scene's plot ranges and player speed, and the talk reads the keys of its windows only."""
from __future__ import annotations

import os

import pytest
from PySide6 import QtCore, QtWidgets

from core.talk import STATE_MODELS
from lab.app import scene_window
from lab.talk import open_talk, read_talk
from tests.lab.talk_testkit import CHAPTER3, CTRL, Key, go_to, press
from widgets.kit.plot_card import PlotCard


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


def test_state_models_cover_every_panel_but_main():
    from lab.app import panel_keys

    assert sorted(STATE_MODELS) == sorted(panel_keys())


def test_every_shipped_scene_applies_and_renders(qtbot, talk_window):
    window, controller = talk_window
    talk = controller.talk
    assert len(talk.scenes) >= 25 and talk.errors == []
    for index, scene in enumerate(talk.scenes):
        go_to(qtbot, controller, index)
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
    go_to(qtbot, controller, index)
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
    press(qtbot, window, controller, Key.Key_R, CTRL)
    assert window.panel_state_json("request") == scene.state
    assert area.verticalScrollBar().value() > 0  # scrolled back to the scene's card


def test_clicker_keys_step_jump_and_skip_nothing_good(qtbot, talk_window):
    window, controller = talk_window
    last = len(controller.talk.scenes) - 1
    go_to(qtbot, controller, 0)
    press(qtbot, window, controller, Key.Key_PageDown)
    assert controller.index == 1
    press(qtbot, window, controller, Key.Key_Right)
    assert controller.index == 2
    press(qtbot, window, controller, Key.Key_PageUp)
    press(qtbot, window, controller, Key.Key_Left)
    assert controller.index == 0
    press(qtbot, window, controller, Key.Key_Left)  # nothing before the first scene
    assert controller.index == 0
    press(qtbot, window, controller, Key.Key_End)
    assert controller.index == last and window.current_key() == controller.talk.scenes[last].panel
    press(qtbot, window, controller, Key.Key_PageDown)  # nothing after the last
    assert controller.index == last
    press(qtbot, window, controller, Key.Key_Home)
    assert controller.index == 0 and window.current_key() == "request"
    strip = controller.bar.strip  # a click on the strip's 5th dot: scene 5
    left, step, _ = strip._geometry()
    fifth = QtCore.QPoint(int(left + step * 4.5), strip.height() // 2)
    qtbot.mouseClick(strip, QtCore.Qt.MouseButton.LeftButton, pos=fifth)
    qtbot.waitUntil(controller.is_ready, timeout=30_000)
    assert controller.index == 4 and strip.label_text().startswith("5 / ")


def test_blank_and_notes_toggle(qtbot, talk_window):
    window, controller = talk_window
    go_to(qtbot, controller, 0)
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
    go_to(qtbot, controller, 0)  # 图 3-1: a ▶ over the decode steps
    player = controller.page.player(window.panel("request"), "steps")
    assert player is not None and not player.is_playing()
    qtbot.keyClick(window, Key.Key_Space)
    assert player.is_playing()
    qtbot.keyClick(window, Key.Key_Space)
    assert not player.is_playing() and controller.index == 0
    player.seek(player.duration)
    press(qtbot, window, controller, Key.Key_Space)
    assert controller.index == 1
    # A scene whose panel has no ▶: Space steps.
    agents = next(i for i, s in enumerate(controller.talk.scenes) if s.panel == "agents")
    go_to(qtbot, controller, agents)
    press(qtbot, window, controller, Key.Key_Space)
    assert controller.index == agents + 1


def test_a_field_being_edited_keeps_its_arrows(qtbot, talk_window):
    window, controller = talk_window
    go_to(qtbot, controller, 1)
    field = window.panel("request").findChild(QtWidgets.QLineEdit)
    window.activateWindow()  # a field being edited has the focus of the active window
    field.setFocus()
    qtbot.waitUntil(lambda: QtWidgets.QApplication.focusWidget() is field, timeout=10_000)
    qtbot.keyClick(field, Key.Key_Left)
    qtbot.keyClick(field, Key.Key_N)
    assert controller.index == 1 and not controller.bar.notes_shown()
    press(qtbot, field, controller, Key.Key_PageDown)  # the clicker's key still steps
    assert controller.index == 2
    window.setFocus()


def test_f5_starts_from_scene_one_in_presentation_and_esc_leaves(qtbot, talk_window):
    window, controller = talk_window
    go_to(qtbot, controller, 3)
    press(qtbot, window, controller, Key.Key_F5)
    assert window.presentation_action.isChecked() and controller.index == 0
    qtbot.keyClick(window, Key.Key_Escape)
    assert not window.presentation_action.isChecked()
    window.showNormal()
    window.resize(1280, 720)


def test_a_scenes_plot_ranges_hold_and_go_back_after_it(qtbot, talk_window):
    window, controller = talk_window
    talk = controller.talk
    index = next(i for i, s in enumerate(talk.scenes) if s.ranges)
    scene = talk.scenes[index]
    (text, axes), = scene.ranges.items()
    go_to(qtbot, controller, index - 1)  # the same panel, its own ranges
    plot = next(p for p in window.panel(scene.panel).findChildren(PlotCard) if text in p.title_label.text())
    box = plot.plot.getViewBox()
    own = box.viewRange()[0]
    go_to(qtbot, controller, index)
    assert box.viewRange()[0] == pytest.approx(list(axes["x"]))
    box.setRange(xRange=(5, 7), padding=0)  # the speaker pans
    press(qtbot, window, controller, Key.Key_R, CTRL)
    assert box.viewRange()[0] == pytest.approx(list(axes["x"]))
    go_to(qtbot, controller, index - 1)
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
    press(qtbot, window, controller, Key.Key_PageDown)
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
