"""Undo / redo across the app: an edit is one step, a slider drag is one step, undo and
redo go through the state model and push nothing, playback never fills the stack."""
import pytest


def _steps(qtbot, window, count):
    """Wait until the stack holds count steps, all done (none left to redo)."""
    qtbot.waitUntil(lambda: window.undo_stack.count() == window.undo_stack.index() == count, timeout=5_000)


def test_an_edit_is_one_step_and_undo_redo_go_through_the_model(qtbot, window, open_panel):
    panel = open_panel(window, "request")
    state = panel.state
    start = state.to_json()
    assert window.undo_stack.count() == 0
    state.card("area").update({"wait_s": 30})
    _steps(qtbot, window, 1)
    edited = state.to_json()
    assert "request: cards.area" == window.undo_stack.text(0)
    assert window.session.undo_action.isEnabled()
    window.session.undo_action.trigger()
    assert state.to_json() == start
    assert state.card("area").inputs["wait_s"] == 10
    window.session.redo_action.trigger()
    assert state.to_json() == edited
    window.undo_recorder.flush()  # what the loop would do next: a re-applied step is not recorded again
    assert window.undo_stack.count() == 1 and window.undo_stack.index() == 1


def test_a_view_change_is_a_step_and_a_new_edit_drops_the_redo(qtbot, window, open_panel):
    panel = open_panel(window, "training")
    panel.tabs.setCurrentIndex(1)  # the user picks a tab
    _steps(qtbot, window, 1)
    assert panel.state.view("tab") == "flops"
    window.undo_stack.undo()
    assert panel.state.view("tab") == "step" and panel.tabs.currentIndex() == 0
    panel.state.card("linear").update({"m": 4096})
    _steps(qtbot, window, 1)  # the undone tab change is gone
    assert window.undo_stack.text(0) == "training: cards.linear"


def test_a_slider_drag_is_one_step(qtbot, window, open_panel):
    panel = open_panel(window, "training")
    slider, card = panel.step.cards_slider, panel.state.card("step")
    first = card.inputs["cards"]
    slider.setSliderDown(True)
    for value in (2, 3, 5, 8):
        with qtbot.waitSignal(window.undo_recorder.recorded):  # each move recorded, as in a drag
            slider.setValue(value)
        assert card.inputs["cards"] == value
    slider.setSliderDown(False)
    _steps(qtbot, window, 1)
    assert card.inputs["cards"] == 8
    window.undo_stack.undo()
    assert card.inputs["cards"] == first and slider.value() == first
    window.undo_stack.redo()
    assert card.inputs["cards"] == 8 and slider.value() == 8
    # A second drag of the same slider is a step of its own.
    slider.setSliderDown(True)
    slider.setValue(4)
    qtbot.waitUntil(lambda: card.inputs["cards"] == 4)
    slider.setSliderDown(False)
    _steps(qtbot, window, 2)
    window.undo_stack.undo()
    assert card.inputs["cards"] == 8


def test_playback_does_not_fill_the_stack_but_a_seek_is_a_step(qtbot, window, open_panel):
    panel = open_panel(window, "training")
    state, player = panel.state, panel.step.player
    for t in (0.1, 0.2, 0.3):  # what ▶ does sixty times a second
        state.set_player("step", t)
    window.undo_recorder.flush()
    assert window.undo_stack.count() == 0
    before = state.player("step")
    player.slider.setSliderDown(True)  # the user drags the seek slider
    for fraction in (0.2, 0.5, 0.7):
        with qtbot.waitSignal(window.undo_recorder.recorded):
            player.seek(fraction * player.duration)
    player.slider.setSliderDown(False)
    _steps(qtbot, window, 1)
    assert window.undo_stack.text(0) == "training: players.step"
    sought = state.player("step")
    assert sought == pytest.approx(0.7 * player.duration)
    state.card("linear").update({"m": 4096})  # an edit after more playback
    state.set_player("step", 0.05)
    _steps(qtbot, window, 2)
    window.undo_stack.undo()  # undoes the edit only: playback stays where it is
    assert state.player("step") == 0.05
    window.undo_stack.undo()
    assert state.player("step") == pytest.approx(before)


def test_an_edit_on_another_panel_undoes_there(qtbot, window, open_panel):
    request = open_panel(window, "request")
    request.state.card("area").update({"wait_s": 30})
    _steps(qtbot, window, 1)
    open_panel(window, "training")
    window.undo_stack.undo()
    assert request.state.card("area").inputs["wait_s"] == 10
    assert window.current_key() == "request"  # the undone edit is on screen


def test_a_panel_setting_itself_up_is_not_a_step(qtbot, window, open_panel):
    # Audio's first timeline result makes its comparison follow the stream: the panel's
    # own doing, before it is ready, so not something to undo.
    for key in ("audio", "serving", "vision"):
        open_panel(window, key)
    window.undo_recorder.flush()
    assert window.undo_stack.count() == 0


def test_ctrl_z_in_a_field_just_entered_undoes_the_edit(qtbot, window, open_panel):
    from PySide6 import QtCore

    from widgets.kit.calculator_card import CalculatorCard

    panel = open_panel(window, "request")
    window.activateWindow()
    card = panel.findChild(CalculatorCard, "card_state.area")
    edit = card.form.field("wait_s").edit
    edit.setFocus()
    edit.selectAll()
    qtbot.keyClicks(edit, "30")
    qtbot.keyClick(edit, QtCore.Qt.Key.Key_Return)
    assert panel.state.card("area").inputs["wait_s"] == 30
    qtbot.waitUntil(lambda: window.undo_stack.index() == 1)
    qtbot.keyClick(edit, QtCore.Qt.Key.Key_Z, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert panel.state.card("area").inputs["wait_s"] == 10 and edit.text() == "10"
    qtbot.keyClick(edit, QtCore.Qt.Key.Key_Z,
                   QtCore.Qt.KeyboardModifier.ControlModifier | QtCore.Qt.KeyboardModifier.ShiftModifier)
    assert panel.state.card("area").inputs["wait_s"] == 30 and edit.text() == "30"
    qtbot.keyClicks(edit, "5")  # typing, not entered: Ctrl+Z is the field's own
    qtbot.keyClick(edit, QtCore.Qt.Key.Key_Z, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert edit.text() == "30" and window.undo_stack.index() == 1


def test_undo_right_after_an_edit_undoes_that_edit(qtbot, window, open_panel):
    state = open_panel(window, "request").state
    state.card("area").update({"wait_s": 30})
    window.session.undo_action.trigger()  # the same turn of the loop: not yet recorded
    assert state.card("area").inputs["wait_s"] == 10
    assert window.undo_stack.count() == 1 and window.undo_stack.index() == 0
    assert window.session.redo_action.text() == "Redo request: cards.area"
    window.undo_recorder.flush()
    assert window.undo_stack.count() == 1  # the undo itself is not a step


def test_quick_repeats_of_one_edit_are_one_step(qtbot, window, open_panel, monkeypatch):
    # A pan or a wheel zoom of a picture changes one view option many times a second.
    state = open_panel(window, "request").state
    for speed in (10.0, 30.0, 50.0):
        state.set_view("step_speed", speed)
        window.undo_recorder.flush()
    assert window.undo_stack.count() == 1
    state.card("area").update({"wait_s": 30})  # another edit: a step of its own
    window.undo_recorder.flush()
    assert window.undo_stack.count() == 2
    window.undo_stack.undo()
    window.undo_stack.undo()
    assert state.view("step_speed") == 100.0
    # The same repeats slower than the merge window are steps each.
    import lab.undo

    monkeypatch.setattr(lab.undo, "MERGE_WINDOW_S", -1.0)
    for speed in (10.0, 30.0):
        state.set_view("step_speed", speed)
        window.undo_recorder.flush()
    assert window.undo_stack.count() == 2 and window.undo_stack.index() == 2


def test_a_closed_window_stops_listening(qtbot, window, open_panel):
    state = open_panel(window, "request").state
    listeners = len(state.changed)
    window.close()
    assert len(state.changed) <= listeners - 1  # the recorder's slot is gone
    state.card("area").update({"wait_s": 30})  # a model outliving its window
    assert window.undo_stack.count() == 0
