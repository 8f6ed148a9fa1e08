"""Sessions in the window: save, change everything, open gives the same state back (built
panels and a panel not built yet); a bad file or an unwritable path changes nothing and
says why; autosave writes only after a change; a crash offers the autosave back; Reset panel."""
import json
import os

import pytest
from PySide6 import QtWidgets

from core import session as core_session
from core.agents.state import AgentsState
from lab import session as lab_session
from lab.main_window import MainWindow
from lab.settings import data_dir


def _open_session(qtbot, window, path) -> bool:
    """File → Open session: checked on the job runner, applied on the GUI thread."""
    with qtbot.waitSignal(window.session.opened, timeout=30_000) as opened:
        window.session.open_path(str(path))
    assert opened.args[0] == str(path)
    return opened.args[1]


def _settle(qtbot, window):
    """Every built panel done reacting (its figures in: a new figure may place its ▶)."""
    built = [key for key in window.panel_keys() if window.is_built(key)]
    qtbot.waitUntil(lambda: all(window.is_ready(key) for key in built), timeout=30_000)
    window.undo_recorder.flush()


def _everything(window):
    return {key: window.panel_state_json(key) for key in window.panel_keys()}


def _edit_everything(qtbot, window, open_panel, wait_s, tab, position, tool_s):
    request = open_panel(window, "request").state
    request.card("area").update({"wait_s": wait_s})
    request.set_view("step_speed", 10.0 if wait_s > 20 else 30.0)
    request.set_player("steps", position)
    training = open_panel(window, "training").state
    training.set_view("tab", tab)
    training.card("step").update({"cards": 2 if tab == "flops" else 6})
    training.set_player("pipeline", position * 2)
    # Agents is never built here: its state waits for the panel.
    agents = AgentsState()
    agents.card("path").update({"tool_b_s": tool_s})
    window.load_panel_state("agents", agents.to_json())


@pytest.fixture
def look(window):
    """set(zoom, theme, language) as the View menu would; the defaults back afterwards
    (they are the application's, not the window's)."""
    from lab import language
    from widgets.kit import theme, zoom

    def set_look(factor, name, lang):
        zoom.set_zoom(factor)
        theme.set_theme(name)
        language.choose_language(window, lang)

    yield set_look
    set_look(1.0, "light", "both")


def _look():
    from lab import language
    from widgets.kit import theme, zoom

    return zoom.zoom(), theme.current_theme(), language.language()


def test_save_change_everything_open_gives_the_same_state(qtbot, window, tmp_path, open_panel, look):
    _edit_everything(qtbot, window, open_panel, wait_s=30.0, tab="flops", position=1.5, tool_s=4.0)
    window.resize(1100, 700)
    look(1.25, "dark", "en")
    _settle(qtbot, window)
    saved = _everything(window)
    assert not window.is_built("agents") and saved["agents"]["cards"]["path"] == {"tool_b_s": 4.0}
    path = str(tmp_path / "talk.lab.json")
    assert window.session.save_path(path)
    assert lab_session.recent_sessions(window) == [path]

    _edit_everything(qtbot, window, open_panel, wait_s=5.0, tab="rl", position=0.25, tool_s=7.0)
    window.resize(1280, 720)
    look(1.0, "high-contrast", "zh")
    assert _everything(window) != saved
    open_panel(window, "request")
    assert _open_session(qtbot, window, path)
    _settle(qtbot, window)
    after = _everything(window)
    for key in ("request", "training", "agents"):
        assert after[key] == saved[key], key
    assert window.current_key() == "training"  # the panel on screen when saved
    assert (window.width(), window.height()) == (1100, 700)
    assert _look() == (1.25, "dark", "en")
    assert window.undo_stack.count() == 0  # opening is not an edit
    # The panel not built yet takes the session's state when it is built.
    assert open_panel(window, "agents").state.card("path").inputs["tool_b_s"] == 4.0


def _bad_files(tmp_path, good_text):
    good = json.loads(good_text)
    newer = {**good, "version": core_session.VERSION + 1}
    refused_panel = json.loads(good_text)
    refused_panel["panels"]["training"]["cards"]["step"] = {"cards": -1}  # request (first) is fine
    files = {"corrupt": "{ not json", "truncated": good_text[: len(good_text) // 2],
             "newer": json.dumps(newer), "refused panel": json.dumps(refused_panel)}
    paths = {}
    for name, text in files.items():
        paths[name] = tmp_path / f"{name.replace(' ', '_')}.lab.json"
        paths[name].write_text(text)
    paths["fifo"] = tmp_path / "fifo.lab.json"
    os.mkfifo(paths["fifo"])
    return paths


def test_a_bad_file_is_refused_with_a_message_and_changes_nothing(qtbot, window, tmp_path, open_panel):
    _edit_everything(qtbot, window, open_panel, wait_s=30.0, tab="flops", position=1.5, tool_s=4.0)
    good = tmp_path / "good.lab.json"
    assert window.session.save_path(str(good))
    _edit_everything(qtbot, window, open_panel, wait_s=5.0, tab="rl", position=0.25, tool_s=7.0)
    _settle(qtbot, window)
    before, steps, shown = _everything(window), window.undo_stack.count(), window.current_key()
    messages = {"corrupt": "not valid JSON", "truncated": "cut short", "newer": "newer Load Lab",
                "refused panel": "panels.training.cards.step.cards", "fifo": "not a regular file"}
    for name, path in _bad_files(tmp_path, good.read_text()).items():
        assert not _open_session(qtbot, window, path), name
        box = window.session.message_box
        assert box.isVisible() and not box.isModal()
        assert messages[name] in box.text() and "nothing changed" in box.text(), name
        assert _everything(window) == before, name
        assert window.undo_stack.count() == steps and window.current_key() == shown
        box.close()


def test_an_unwritable_path_gives_a_message_and_writes_nothing(qtbot, window, tmp_path):
    tmp_path = tmp_path / "here"
    tmp_path.mkdir()
    plain = tmp_path / "plain"
    plain.write_text("not a folder")
    assert not window.session.save_path(str(plain / "s.lab.json"))
    assert "was not saved" in window.session.message_box.text()
    assert "nothing was written" in window.session.message_box.text()
    assert os.listdir(tmp_path) == ["plain"] and plain.read_text() == "not a folder"
    assert lab_session.recent_sessions(window) == []


def test_recent_sessions_list_the_newest_first(qtbot, window, tmp_path, open_panel):
    for name in ("a", "b", "a"):
        assert window.session.save_path(str(tmp_path / f"{name}.lab.json"))
    window.session.fill_recent_menu()
    assert [a.text() for a in window.session.recent_menu.actions()] == ["a.lab.json", "b.lab.json"]
    request = open_panel(window, "request").state
    request.card("area").update({"wait_s": 30})
    with qtbot.waitSignal(window.session.opened) as opened:
        window.session.recent_menu.actions()[0].trigger()
    assert opened.args == [str(tmp_path / "a.lab.json"), True]
    assert request.card("area").inputs["wait_s"] == 10


def test_autosave_writes_after_a_change_and_only_then(qtbot, window, open_panel):
    session = window.session
    assert session.autosave.timer.isActive() and session.autosave.timer.interval() == 30_000
    assert session.autosave.path == os.path.join(data_dir(), "autosave.lab.json")
    state = open_panel(window, "request").state
    assert session.autosave.save()  # the first one
    assert not session.autosave.save()  # nothing changed since
    state.card("area").update({"wait_s": 30})
    assert session.autosave.save()
    saved = core_session.read_session(session.autosave.path)
    assert saved["panels"]["request"]["cards"]["area"] == {"wait_s": 30.0}


def test_a_crash_offers_the_autosave_back(qtbot, tmp_path):
    first = MainWindow()
    qtbot.addWidget(first)
    first.show()
    first.load_panel_state("request", {"panel": "request", "cards": {"area": {"wait_s": 30}}})
    assert first.session.autosave.save()
    marker = first.session.autosave.marker_path
    with open(marker) as f:
        assert json.load(f)["pid"] == os.getpid()
    # The run dies without closing: its marker stays, naming a process that is gone.
    with open(marker, "w") as f:
        json.dump({"pid": _dead_pid()}, f)
    second = MainWindow()
    qtbot.addWidget(second)
    second.show()
    autosave = second.session.autosave
    qtbot.waitUntil(lambda: autosave.restore_prompt is not None and autosave.restore_prompt.isVisible())
    assert not autosave.restore_prompt.isModal()
    assert not autosave.timer.isActive()  # the crash's autosave is kept until answered
    with qtbot.waitSignal(second.session.opened) as opened:
        autosave.restore_button.click()
    assert opened.args == [autosave.path, True]
    assert autosave.restore_prompt is None
    assert second.panel_state_json("request")["cards"]["area"] == {"wait_s": 30.0}
    assert autosave.timer.isActive()
    second.close()
    first.close()
    assert not os.path.exists(marker)  # clean exits: no offer next time
    third = MainWindow()
    qtbot.addWidget(third)
    third.show()
    assert third.session.autosave.restore_prompt is None and third.session.autosave.timer.isActive()


def _dead_pid() -> int:
    import subprocess
    import sys

    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_reset_panel_is_one_action_and_one_undo_step(qtbot, window, open_panel):
    panel = open_panel(window, "training")
    fresh = panel.state.to_json()
    panel.state.card("step").update({"cards": 4})
    panel.state.card("linear").update({"m": 4096})
    panel.state.set_view("tab", "rl")
    window.undo_recorder.flush()
    edited, steps = panel.state.to_json(), window.undo_stack.count()
    assert window.session.reset_action.shortcut().toString() == "Ctrl+Shift+R"
    window.session.reset_action.trigger()
    after = panel.state.to_json()
    assert after["cards"] == fresh["cards"] and after["view"] == fresh["view"]
    assert after["players"] == {"step": 0.0, "pipeline": 0.0, "rl_loop": 0.0}  # ▶ from the start
    assert window.undo_stack.count() == steps + 1
    window.undo_stack.undo()
    assert panel.state.to_json() == edited  # ▶ positions too


def test_the_edit_menu_holds_undo_redo_and_reset(window):
    texts = [a.text() for a in window.menus["edit"].actions()]
    assert {"Undo", "Redo", "Reset panel"} <= set(texts)
    assert window.session.undo_action.shortcut().toString() == "Ctrl+Z"
    assert window.session.redo_action.shortcut().toString() == "Ctrl+Shift+Z"
    files = [a.text() for a in window.menus["file"].actions()]
    assert {"Open session…", "Save session…", "Recent sessions"} <= set(files)
    assert isinstance(window.session.recent_menu, QtWidgets.QMenu)


def test_a_panel_refusing_at_the_last_moment_rolls_back_the_others(qtbot, window, tmp_path, open_panel,
                                                                  monkeypatch):
    from core.registry import ParamError

    request = open_panel(window, "request").state
    training = open_panel(window, "training").state
    request.card("area").update({"wait_s": 30})
    path = tmp_path / "s.lab.json"
    assert window.session.save_path(str(path))
    request.card("area").update({"wait_s": 5})
    _settle(qtbot, window)
    before = _everything(window)

    def refuse(data):
        raise ParamError("view.tab", "refused after the dry run")

    monkeypatch.setattr(training, "load_json", refuse)  # the dry run's fresh model is not this one
    assert not _open_session(qtbot, window, path)
    assert "panels.training: view.tab: refused after the dry run" in window.session.message_box.text()
    assert request.card("area").inputs["wait_s"] == 5
    assert _everything(window) == before


def test_session_keys_clash_with_no_panel_key(window):
    from PySide6 import QtGui

    ours = {a.shortcut().toString() for a in (window.session.open_action, window.session.save_action,
                                              window.session.reset_action)}
    assert "Ctrl+Shift+O" in ours and "Ctrl+R" not in ours
    for key in window.panel_keys():
        for widget in window.panel(key).findChildren(QtWidgets.QAbstractButton):
            assert widget.shortcut().toString(QtGui.QKeySequence.SequenceFormat.PortableText) not in ours, key
