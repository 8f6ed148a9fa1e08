"""The RL split card in the window: an edit is an undo step (the fields follow undo and
redo), a session saves and opens the card's loop, and "take the RL tab's loop" takes the
Training panel's loop as the window shows it."""
from __future__ import annotations

from core import session as core_session


def _open(qtbot, window):
    window.show_panel("plan")
    panel = window.panel("plan")
    qtbot.waitUntil(lambda: window.is_ready("plan") and window.undo_recorder.is_settled("plan"), timeout=90_000)
    window.undo_recorder.flush()
    return panel.rl_split_card


def _type(card, key, text):
    card.fields[key].edit.setText(text)
    card.fields[key].edit.textEdited.emit(text)


def _steps(qtbot, window, count):
    qtbot.waitUntil(lambda: window.undo_stack.count() == window.undo_stack.index() == count, timeout=10_000)


def test_an_edit_is_an_undo_step_and_the_fields_follow(qtbot, window, monkeypatch):
    import lab.undo

    monkeypatch.setattr(lab.undo, "MERGE_WINDOW_S", -1.0)  # each edit its own step
    card = _open(qtbot, window)
    start = window.undo_stack.count()
    _type(card, "pool_cards", "4,8")
    _steps(qtbot, window, start + 1)
    _type(card, "mode", "one_step")
    _steps(qtbot, window, start + 2)
    assert window.undo_stack.text(start + 1) == "plan: cards.rl_split"
    window.session.undo_action.trigger()
    assert card.fields["mode"].edit.text() == "synchronous" and card.fields["pool_cards"].edit.text() == "4,8"
    window.session.undo_action.trigger()
    assert card.fields["pool_cards"].edit.text() == "6" and card.model.to_json() == {}
    assert "pool_cards=6 " in card.command.text()
    window.session.redo_action.trigger()
    window.session.redo_action.trigger()
    assert card.fields["mode"].edit.text() == "one_step" and card.model.inputs["pool_cards"] == (4, 8)
    assert window.undo_stack.count() == window.undo_stack.index() == start + 2
    _type(card, "pool_cards", "1")  # refused: shown, no step
    window.undo_recorder.flush()
    assert window.undo_stack.count() == start + 2 and card.fields["pool_cards"].error_label.isVisibleTo(card)


def test_a_session_saves_and_opens_the_cards_loop(qtbot, window, tmp_path):
    card = _open(qtbot, window)
    _type(card, "pool_cards", "4,8")
    _type(card, "steps", "3")
    path = str(tmp_path / "plan.lab.json")
    assert window.session.save_path(path)
    saved = core_session.read_session(path)["panels"]["plan"]
    assert saved["cards"]["rl_split"] == {"pool_cards": [4.0, 8.0], "steps": 3}
    with window.undo_recorder.paused():
        window.panel("plan").state.reset()
    assert card.fields["pool_cards"].edit.text() == "6" and card.fields["steps"].edit.text() == "4"
    with qtbot.waitSignal(window.session.opened, timeout=30_000):
        window.session.open_path(path)
    assert card.fields["pool_cards"].edit.text() == "4,8" and card.fields["steps"].edit.text() == "3"
    assert [c.split("pool_cards=")[1].split()[0] for c in card.command_texts()] == ["4", "8"]


def test_take_the_rl_tabs_loop_from_the_training_panel(qtbot, window):
    card = _open(qtbot, window)
    loop = window.panel("training").state.card("rl_loop")
    assert loop.update({"mode": "partial", "rollout_replicas": "3", "trainer_cards": "2", "group": "4"})
    assert card.take_rl_tab()
    values = card.model.inputs
    assert (values["pool_cards"], values["mode"], values["group"]) == ((5,), "partial", 4)
    assert card.fields["mode"].edit.text() == "partial" and card.fields["pool_cards"].edit.text() == "5"
