from PySide6 import QtCore

from lab.main_window import MainWindow
from lab.settings import Settings


def test_main_window_navigates_and_remembers(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    assert "request" in w.panel_keys()
    with qtbot.waitSignal(w.panel_shown) as blocker:
        w.show_panel("request")
    assert blocker.args == ["request"]
    assert w.stack.currentWidget() is w.panel("request")
    assert Settings().get("last_panel") == "request"
    assert "§3.1" in w.status.currentMessage()


def test_navigation_list_switches_panels(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    keys = w.panel_keys()
    for row, key in enumerate(keys):
        w.nav.setCurrentRow(row)
        assert w.stack.currentWidget() is w.panel(key)


def test_about_names_library_versions(qtbot):
    import PySide6
    import pyqtgraph

    w = MainWindow()
    qtbot.addWidget(w)
    text = w.about_text()
    assert PySide6.__version__ in text and pyqtgraph.__version__ in text and "numpy" in text


def test_shortcut_opens_first_panel(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.keyClick(w, QtCore.Qt.Key.Key_1, QtCore.Qt.KeyboardModifier.ControlModifier)
    assert w.stack.currentWidget() is w.panel(w.panel_keys()[0])


def test_form_change_in_the_window_updates_outputs_and_plot(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.show_panel("request")
    panel = w.panel("request")
    field = panel.anatomy_card.form.field("context_tokens")
    with qtbot.waitSignal(panel.anatomy_card.computed):
        field.edit.setText("500")
        field.edit.editingFinished.emit()
    assert panel.anatomy_card.outputs.label("first_decode_context").text() == "1,524 tokens"
    _, y = panel.decode_curve.getData()
    assert y[0] == 1524


def test_presentation_mode_hides_navigation(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.presentation_action.setChecked(True)
    assert not w.nav.isVisible()
    w.presentation_action.setChecked(False)
    qtbot.waitUntil(lambda: w.nav.isVisible())


def test_space_plays_the_figure_on_screen(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    w.show_panel("request")
    player = w.panel("request").step_player
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)  # shortcuts go to the active window
    w.nav.setFocus()
    with qtbot.waitSignal(player.playing_changed) as blocker:
        qtbot.keyClick(w.nav, QtCore.Qt.Key.Key_Space)
    assert blocker.args == [True]
    w.toggle_playback()
    assert not player.is_playing()
