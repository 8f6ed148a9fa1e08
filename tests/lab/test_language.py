"""View → Language: the choice changes the window and its panels, is saved, and a new
window starts in it; `lab snapshot --lang` renders a panel in a language."""
from __future__ import annotations

import pytest
from PySide6 import QtGui, QtWidgets

from lab.cli import main
from lab.main_window import MainWindow
from lab.settings import Settings
from widgets.kit.i18n import has_cjk, language, set_language


@pytest.fixture(autouse=True)
def _back_to_both():
    yield
    set_language("both")


def _window(qtbot) -> MainWindow:
    window = MainWindow()
    qtbot.addWidget(window)
    window.show()
    return window


def _labels(widget) -> list[str]:
    return [label.text() for label in widget.findChildren(QtWidgets.QLabel) if label.text()]


def test_view_menu_offers_the_three_languages(qtbot):
    window = _window(qtbot)
    menu = next(a.menu() for a in window.menus["view"].actions() if a.menu() and "Language" in a.text())
    assert [a.text() for a in menu.actions()] == ["中文", "English", "中文 · English"]
    assert window.language_actions["both"].isChecked()


def test_choosing_english_translates_the_panel_and_is_saved(qtbot):
    window = _window(qtbot)
    window.show_panel("request")
    qtbot.waitUntil(lambda: window.is_ready("request"), timeout=30_000)
    panel = window.panel("request")
    before = _labels(panel)
    window.language_actions["en"].trigger()
    assert language() == "en" and Settings().get("language") == "en"
    assert [t for t in _labels(panel) if has_cjk(t)] == []
    assert window.menus["file"].title() == "&File"
    assert window.nav.item(0).text() == "§3.1  Request & Metrics"
    message = window.status.currentMessage()
    assert message.startswith("§3.1 Request & Metrics · ") and not has_cjk(message)
    window.language_actions["zh"].trigger()
    assert window.menus["file"].title() == "文件(&F)"
    assert window.status.currentMessage().startswith("§3.1 请求与指标 · Ctrl+1…")
    assert "切换面板" in window.status.currentMessage()
    assert window.nav.item(0).text() == "§3.1  请求与指标"
    window.language_actions["both"].trigger()
    assert _labels(panel) == before
    set_language("en")  # as a session or a talk would: the window's menu and navigation follow
    assert window.language_actions["en"].isChecked() and window.nav.item(0).text() == "§3.1  Request & Metrics"


def test_a_new_window_starts_in_the_saved_language_and_translates_panels_as_built(qtbot):
    Settings().set("language", "en")
    window = _window(qtbot)
    assert language() == "en" and window.language_actions["en"].isChecked()
    window.show_panel("agents")
    qtbot.waitUntil(lambda: window.is_ready("agents"), timeout=30_000)
    qtbot.waitUntil(lambda: not [t for t in _labels(window.panel("agents")) if has_cjk(t)], timeout=5_000)


def test_a_caption_written_after_a_state_change_is_translated(qtbot):
    Settings().set("language", "en")
    window = _window(qtbot)
    window.show_panel("serving")
    qtbot.waitUntil(lambda: window.is_ready("serving"), timeout=30_000)
    panel = window.panel("serving")
    panel.state.card("backlog").update({"cards": 3})  # the banner and captions are written again
    qtbot.waitUntil(lambda: not [t for t in _labels(panel) if has_cjk(t)], timeout=5_000)


def test_snapshot_renders_a_panel_in_english(tmp_path):
    out = tmp_path / "request-en.png"
    assert main(["snapshot", "request", "--out", str(out), "--size", "800x450", "--lang", "en"]) == 0
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == (800, 450)
    assert language() == "en"


def test_snapshot_refuses_an_unknown_language(tmp_path, capsys):
    assert main(["snapshot", "request", "--out", str(tmp_path / "x.png"), "--lang", "fr"]) == 2
    assert "--lang" in capsys.readouterr().err
