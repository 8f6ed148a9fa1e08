import json
import threading

import pytest
from PySide6 import QtCore

from core.cancel import CancelToken
from core.state_model import PanelModel
from lab.main_window import MainWindow
from lab.settings import Settings
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels

# Panels still being moved onto a state model (the lead removes keys as they land).


def _shown(qtbot, w, key):
    qtbot.waitUntil(lambda: w.is_ready(key) and w.stack.currentWidget() is w.panel(key), timeout=30_000)


def test_main_window_navigates_and_remembers(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    assert "request" in w.panel_keys()
    with qtbot.waitSignal(w.panel_shown, timeout=30_000) as blocker:
        w.show_panel("request")
    assert blocker.args == ["request"]
    assert w.stack.currentWidget() is w.panel("request")
    assert Settings().get("last_panel") == "request"
    assert "§3.1" in w.status.currentMessage()


def test_navigation_list_switches_panels(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    keys = w.panel_keys()
    for row, key in enumerate(keys):
        w.nav.setCurrentRow(row)
        _shown(qtbot, w, key)


def test_window_shows_before_the_panel_it_reopens_on_is_built(qtbot):
    Settings().set("last_panel", "verify")
    w = MainWindow()
    qtbot.addWidget(w)
    assert w.current_key() == "verify" and not w.is_built("verify")
    assert w.stack.currentWidget() is w.loading
    assert "loading" in w.loading.label.text() and "Book check" in w.loading.label.text()
    with qtbot.waitSignal(w.panel_shown, timeout=30_000) as blocker:
        w.show()
    assert blocker.args == ["verify"]
    assert w.stack.currentWidget() is w.panel("verify")


def test_a_first_visit_shows_loading_then_the_panel(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    _shown(qtbot, w, w.current_key())
    key = next(k for k in w.panel_keys() if not w.is_built(k))
    w.show_panel(key)
    assert w.stack.currentWidget() is w.loading
    _shown(qtbot, w, key)


def test_the_latest_choice_wins_while_a_panel_is_loading(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    first, second = [k for k in w.panel_keys() if not w.is_built(k) and k != w.current_key()][:2]
    w.show_panel(first)
    w.show_panel(second)
    _shown(qtbot, w, second)
    assert w.current_key() == second and Settings().get("last_panel") == second


def test_about_names_library_versions(qtbot):
    import pyqtgraph
    import PySide6

    w = MainWindow()
    qtbot.addWidget(w)
    text = w.about_text()
    assert PySide6.__version__ in text and pyqtgraph.__version__ in text and "numpy" in text


def test_shortcut_opens_first_panel(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    qtbot.keyClick(w, QtCore.Qt.Key.Key_1, QtCore.Qt.KeyboardModifier.ControlModifier)
    _shown(qtbot, w, w.panel_keys()[0])


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
    qtbot.waitUntil(lambda: panel.decode_curve.getData()[1] is not None
                    and panel.decode_curve.getData()[1][0] == 1524, timeout=30_000)


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
    _shown(qtbot, w, "request")
    player = w.panel("request").step_player
    qtbot.waitUntil(player.isVisible)  # the staged grid goes on the page a turn after it is ready
    w.activateWindow()
    qtbot.waitUntil(w.isActiveWindow)  # shortcuts go to the active window
    w.nav.setFocus()
    with qtbot.waitSignal(player.playing_changed) as blocker:
        qtbot.keyClick(w.nav, QtCore.Qt.Key.Key_Space)
    assert blocker.args == [True]
    w.toggle_playback()
    assert not player.is_playing()


def _gate():
    """A job that runs until released or cancelled (an event the test sets; no sleeping)."""
    release = threading.Event()

    def work(cancel: CancelToken):
        while not release.wait(0.01):
            cancel.check()
        return "result"

    return release, work


def test_status_bar_shows_running_jobs_and_cancels_them(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    release, work = _gate()
    got = []
    jobs().submit("test.status", work, done=got.append)
    qtbot.waitUntil(lambda: w.job_status.isVisible(), timeout=30_000)
    assert "computing: test.status" in w.job_status.label.text()
    assert w.cursor().shape() == QtCore.Qt.CursorShape.BusyCursor
    w.job_status.cancel_button.click()
    assert not jobs().busy("test.status")
    qtbot.waitUntil(lambda: not w.job_status.isVisible(), timeout=30_000)
    assert w.cursor().shape() != QtCore.Qt.CursorShape.BusyCursor
    release.set()
    # Its own job returned (the window's warm-up may be running beside it: not this test's).
    qtbot.waitUntil(lambda: "test.status" not in jobs().unreturned(), timeout=30_000)
    QtCore.QCoreApplication.processEvents()  # a result it posted would be delivered now
    assert got == []


def test_closing_with_a_job_running_completes_and_drops_the_result(qtbot):
    w = MainWindow()
    qtbot.addWidget(w)
    w.show()
    _shown(qtbot, w, w.current_key())
    release, work = _gate()
    got = []
    jobs().submit("test.close", work, done=got.append)
    panel = w.panel(w.current_key())
    closed, close = [], panel.close
    panel.close = lambda: closed.append(1) or close()
    assert w.close()
    assert not w.isVisible() and not jobs().busy("test.close") and closed == [1]
    release.set()  # whatever the job does now, its result must not arrive
    assert jobs().wait_idle()
    QtCore.QCoreApplication.processEvents()
    assert got == []


@pytest.mark.parametrize("key", [p.key for p in discover_panels()])
def test_every_panel_exposes_its_state_as_json(qtbot, key):
    info = {p.key: p for p in discover_panels()}[key]
    widget = info.factory()
    qtbot.addWidget(widget)
    state = widget.state
    assert isinstance(state, PanelModel) and state.key == key
    data = json.loads(json.dumps(state.to_json()))  # plain JSON
    fresh = type(state)()
    fresh.load_json(data)
    assert fresh.to_json() == state.to_json()
    state.load_json(data)  # a panel takes its own saved state back
    assert state.to_json() == data
    assert jobs().wait_idle()


def test_the_window_is_built_without_plot_libraries_or_panel_modules():
    """Start-up cost: the window and the navigation need neither pyqtgraph, numpy nor any
    panel's module; those load after the window is on screen."""
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from lab.app import application\n"
        "from lab.main_window import MainWindow\n"
        "app = application(plots=False)\n"
        "w = MainWindow()\n"
        "assert len(w.panel_keys()) >= 8, w.panel_keys()\n"
        "heavy = sorted(m for m in sys.modules if m.split('.')[0] in ('pyqtgraph', 'numpy')\n"
        "               or m in ('widgets.request', 'widgets.scaling', 'widgets.verify', 'widgets.training',\n"
        "                        'widgets.vision', 'widgets.serving'))\n"
        "print(heavy)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]"


def test_panel_metadata_is_read_from_source_and_the_factory_imports_late():
    from widgets.kit.panels import LazyFactory, _static_panel

    source = 'x = 1\nPANEL = PanelInfo(key="k", title="T · t", section="3.9",\n                  order=9.5, factory=KPanel)\n'
    assert _static_panel(source) == {"key": "k", "title": "T · t", "section": "3.9", "order": 9.5}
    assert _static_panel('PANEL = PanelInfo(key=KEY, title="t", section="1", order=1.0, factory=P)\n') is None
    assert _static_panel("nothing here\n") is None
    factory = LazyFactory("widgets.verify")
    from widgets.verify import VerifyPanel

    assert factory.load() is VerifyPanel and factory.loaded


def test_the_warm_up_waits_for_the_first_panels_figures(qtbot, monkeypatch):
    """The other panels' modules are imported on the job runner once the panel the window
    opened on has its first figures: beside its build the job took the GIL and a core
    from it (a talk's first scene waited)."""
    import lab.main_window as main_window

    seen, box = [], []
    monkeypatch.setattr(MainWindow, "WARM_WAIT_S", 120.0)  # a loaded machine: no starting without it
    monkeypatch.setattr(main_window, "import_panel_modules", lambda factories: seen.append(box[0].is_ready("serving")))
    Settings().set("last_panel", "serving")
    w = MainWindow()
    box.append(w)
    qtbot.addWidget(w)
    w.show()
    qtbot.waitUntil(lambda: bool(seen), timeout=60_000)
    assert seen == [True]
    assert jobs().wait_idle()
