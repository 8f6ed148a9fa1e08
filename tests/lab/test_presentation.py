"""Zoom, presentation mode, themes and the keyboard model in the window (lab.talk.presentation,
lab.keyboard): every font on every panel follows the zoom; F11 gives the figure the screen
and Esc gives it back; a theme re-colours plots; a panel's keys work without a click."""
import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from core.registry import ParamError
from lab.main_window import MainWindow
from lab.settings import Settings
from lab.talk import presentation
from widgets.kit import theme, zoom

Key, Mod = QtCore.Qt.Key, QtCore.Qt.KeyboardModifier


@pytest.fixture(autouse=True)
def _actual_size():
    yield
    presentation._forced.clear()
    zoom.set_zoom(1.0)
    theme.set_theme("light")


@pytest.fixture
def window(window, qtbot):
    """tests/lab/conftest.py's window (1280x720, shown), active: keys go to the active window."""
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    return window


def _show(qtbot, w, key):
    w.show_panel(key)
    qtbot.waitUntil(lambda: w.is_ready(key) and w.stack.currentWidget() is w.panel(key), timeout=60_000)
    qtbot.waitUntil(lambda: key not in w.presentation._waiting)  # its late sections zoomed too


def _fonts(panel) -> dict:
    """Point size of every label (as the font system resolves it) and every axis's ticks."""
    sizes = {}
    for i, label in enumerate(panel.findChildren(QtWidgets.QLabel)):
        sizes[("label", i)] = QtGui.QFontInfo(label.font()).pointSizeF()
    for i, axis in enumerate(a for view in panel.findChildren(pg.GraphicsView)
                             for a in view.scene().items() if isinstance(a, pg.AxisItem)):
        sizes[("tick", i)] = axis.style["tickFont"].pointSizeF()
        sizes[("axis label", i)] = axis.label.font().pointSizeF()
    return sizes


def test_zoom_changes_every_font_on_every_panel(qtbot, window):
    """Every panel built and measured at 1x, then one zoom to 1.5 (while the last one is
    shown: the others meet it when they are shown next, as after a user's zoom) and one
    reset: a zoom restyles every built panel's fonts, so zooming once per panel cost ten
    times the restyles for the same check."""
    keys = window.panel_keys()
    before = {}
    for key in keys:
        _show(qtbot, window, key)
        before[key] = _fonts(window.panel(key))
        assert any(k[0] == "label" for k in before[key]), key
    window.presentation.zoom_in_action.trigger()  # 1.0 -> 1.1: a small step must show too
    window.presentation.zoom_in_action.trigger()  # -> 1.25
    window.presentation.zoom_in_action.trigger()  # -> 1.5
    assert zoom.zoom() == 1.5
    for key in reversed(keys):  # the one shown while zooming first
        _show_styled(qtbot, window, key, 1.5)
        after = _fonts(window.panel(key))
        for what, size in before[key].items():
            # QFontInfo rounds to whole pixels: a point size is exact to about 0.75 pt.
            assert after[what] == pytest.approx(1.5 * size, abs=0.8), (key, what, size, after[what])
    window.presentation.zoom_reset_action.trigger()
    for key in keys:
        _show_styled(qtbot, window, key, 1.0)
        assert _fonts(window.panel(key)) == pytest.approx(before[key], abs=0.8), key


def _show_styled(qtbot, w, key, factor):
    _show(qtbot, w, key)
    qtbot.waitUntil(lambda: w.presentation._styled.get(key, (None,))[0] == factor)


def test_zoom_keys_status_and_settings(qtbot, window):
    qtbot.keyClick(window, Key.Key_Equal, Mod.ControlModifier)
    assert zoom.zoom() == 1.1
    assert window.presentation.zoom_label.text() == "zoom 110 %"
    qtbot.keyClick(window, Key.Key_Minus, Mod.ControlModifier)
    qtbot.keyClick(window, Key.Key_Minus, Mod.ControlModifier)
    assert zoom.zoom() == 0.9
    assert float(Settings().get("zoom")) == 0.9
    qtbot.keyClick(window, Key.Key_0, Mod.ControlModifier)
    assert zoom.zoom() == 1.0 and window.presentation.zoom_label.text() == "zoom 100 %"


def test_saved_zoom_and_theme_come_back(qtbot):
    Settings().set("zoom", 1.25)
    Settings().set("theme", "dark")
    w = MainWindow()
    qtbot.addWidget(w)
    assert zoom.zoom() == 1.25 and theme.current_theme() == "dark"
    assert w.presentation.theme_actions["dark"].isChecked()


def test_f11_gives_the_figure_the_screen_and_esc_gives_it_back(qtbot, window):
    _show(qtbot, window, "serving")
    zoom.set_zoom(1.25)
    qtbot.keyClick(window, Key.Key_F11)
    assert window.presentation_action.isChecked()
    qtbot.waitUntil(lambda: window.isFullScreen())
    assert zoom.zoom() == zoom.screen_presentation_zoom(window)
    assert not window.menuBar().isVisible() and not window.statusBar().isVisible() and not window.nav.isVisible()
    assert Settings().get("zoom") in (1.25, "1.25")  # the presentation zoom is not the user's
    qtbot.keyClick(window, Key.Key_Escape)
    assert not window.presentation_action.isChecked()
    assert zoom.zoom() == 1.25
    assert window.menuBar().isVisible() and window.statusBar().isVisible() and window.nav.isVisible()
    qtbot.waitUntil(lambda: not window.isFullScreen())


def test_panel_shortcuts_cover_every_panel_and_the_status_says_so(qtbot, window):
    n = len(window.panel_keys())
    tail = "" if n <= 10 else f"…{n - 9}"  # ten panels: "Alt+1", never "Alt+1…1"
    assert window.switch_keys_text() == (f"Ctrl+1…{n}" if n <= 9 else f"Ctrl+1…9, Alt+1{tail}")
    assert window.switch_keys_text() in window.status.currentMessage()
    qtbot.keyClick(window, getattr(Key, f"Key_{min(n, 9)}"), Mod.ControlModifier)
    assert window.current_key() == window.panel_keys()[min(n, 9) - 1]
    window.presentation_action.setChecked(True)  # menu bar hidden: the keys still work
    qtbot.keyClick(window, Key.Key_1, Mod.ControlModifier)
    assert window.current_key() == window.panel_keys()[0]


def test_theme_switch_recolours_plots_on_screen_and_elsewhere(qtbot, window):
    _show(qtbot, window, "scaling")
    _show(qtbot, window, "serving")

    def backgrounds(key):
        return {v.backgroundBrush().color().name() for v in window.panel(key).findChildren(pg.PlotWidget)}

    assert backgrounds("serving") == {theme.THEMES["light"]["paper"]}
    window.presentation.theme_actions["dark"].trigger()
    assert theme.current_theme() == "dark" and Settings().get("theme") == "dark"
    assert backgrounds("serving") == {theme.THEMES["dark"]["paper"]}
    _show(qtbot, window, "scaling")  # built before the switch: re-coloured when shown
    assert backgrounds("scaling") == {theme.THEMES["dark"]["paper"]}
    curve = window.panel("scaling").serve_plot.curves["small"]
    assert curve.opts["pen"].color().name() == theme.THEMES["dark"]["series2"]
    window.presentation.theme_actions["high-contrast"].trigger()
    assert backgrounds("scaling") == {theme.THEMES["high-contrast"]["paper"]}
    assert curve.opts["pen"].color().name() == theme.THEMES["high-contrast"]["series2"]


def test_audio_keys_work_as_soon_as_the_panel_is_shown(qtbot, window):
    _show(qtbot, window, "audio")
    audio = window.panel("audio")
    assert {"Space", "P", "I", "Esc"} <= set(window.keys.keys())
    assert not audio.hasFocus() and not audio.isAncestorOf(QtWidgets.QApplication.focusWidget())
    with qtbot.waitSignal(audio.stream_started, timeout=60_000):
        qtbot.keyClick(window, Key.Key_Space)  # no click into the panel first
    assert audio.playing
    qtbot.keyClick(window, Key.Key_Escape)
    assert not audio.playing


def test_a_panels_keys_leave_other_panels_alone(qtbot, window):
    _show(qtbot, window, "audio")
    _show(qtbot, window, "request")
    assert "P" not in window.keys.keys()
    assert not window.keys._shortcuts["P"].isEnabled() and window.keys._shortcuts["Space"].isEnabled()
    player = window.panel("request").step_player
    with qtbot.waitSignal(player.playing_changed) as blocker:
        qtbot.keyClick(window, Key.Key_Space)  # no panel key: the figure's player
    assert blocker.args == [True]
    player.pause()


def _wheel(widget, ctrl: bool):
    pos = QtCore.QPointF(widget.width() / 2, widget.height() / 2)
    event = QtGui.QWheelEvent(pos, widget.mapToGlobal(pos), QtCore.QPoint(), QtCore.QPoint(0, -240),
                              QtCore.Qt.MouseButton.NoButton, Mod.ControlModifier if ctrl else Mod.NoModifier,
                              QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtWidgets.QApplication.sendEvent(widget, event)


def test_the_wheel_scrolls_the_page_and_zooms_a_plot_only_with_ctrl(qtbot, window):
    _show(qtbot, window, "request")
    panel = window.panel("request")

    def scrollable():
        return [a for a in panel.findChildren(QtWidgets.QScrollArea) if a.verticalScrollBar().maximum() > 0]

    qtbot.waitUntil(lambda: bool(scrollable()))  # the page's range comes with its layout, after it is shown
    area = scrollable()[0]
    view = next(v for v in area.widget().findChildren(pg.PlotWidget) if v.isVisible())
    bar = area.verticalScrollBar()
    bar.setValue(0)
    x_range = view.getPlotItem().viewRange()[0]
    _wheel(view.viewport(), ctrl=False)
    assert bar.value() > 0
    assert view.getPlotItem().viewRange()[0] == x_range
    scrolled = bar.value()
    _wheel(view.viewport(), ctrl=True)
    assert bar.value() == scrolled


def test_snapshot_zoom_is_checked_and_named():
    with pytest.raises(ParamError) as err:
        presentation.snapshot_zoom("4")
    assert err.value.param == "--zoom" and "0.5" in err.value.message and "3" in err.value.message
    with pytest.raises(ParamError, match="--zoom"):
        presentation.snapshot_zoom("big")
    assert presentation.snapshot_zoom("1.5") == 1.5 and presentation.snapshot_zoom(None) is None


def test_snapshot_renders_at_the_zoom_and_theme_asked(qtbot, tmp_path):
    from lab.app import snapshot

    out = tmp_path / "request.png"
    snapshot("request", str(out), 1280, 720, theme="dark", zoom="1.5")
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == (1280, 720)
    assert QtGui.QColor(image.pixel(2, image.height() - 2)).lightness() < 80  # a dark page
    assert zoom.zoom() == 1.5 and theme.current_theme() == "dark"
    assert Settings().get("zoom") is None  # a snapshot leaves the user's settings alone
