"""Starting the window (`lab`, `lab talk FILE`), and rendering panels and a talk's scenes
offscreen for `lab snapshot`."""
from __future__ import annotations

import sys
import time

from PySide6 import QtCore, QtGui, QtWidgets

from lab import excepthook
from lab.export import snapshot_format, write_snapshot
from lab.language import apply_language, translate_tree
from lab.main_window import MainWindow
from lab.talk import open_talk, read_talk
from lab.talk.presentation import apply_look, forget_look, snapshot_zoom
from widgets.kit import panels
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels
from widgets.kit.theme import apply_fonts, apply_style, setup_pyqtgraph
from widgets.kit.zoom import apply_plot_zoom

# Qt messages that say nothing to a user: the offscreen platform (snapshots, tests) cannot
# pass a fixed size on to a window manager it does not have.
_QUIET_QT_MESSAGES = ("This plugin does not support propagateSizeHints()",)
_previous_handler = None
PREFERRED_SIZE = (1500, 950)  # the window's size on a screen that has room for it
SCREEN_MARGIN = 0.94  # share of the screen's available width and height a new window takes at most
GEOMETRY_KEY = "window/geometry"  # QSettings: saveGeometry() of the window as it was closed


def _qt_message(mode, context, message: str) -> None:
    if message in _QUIET_QT_MESSAGES:
        return
    if _previous_handler:
        _previous_handler(mode, context, message)
    else:
        print(message, file=sys.stderr)


def application(plots: bool = True) -> QtWidgets.QApplication:
    """The QApplication, named and styled. plots=False leaves pyqtgraph (and numpy) unloaded:
    the main window sets it up before it builds its first panel, after it is on screen."""
    global _previous_handler
    if _previous_handler is None:
        _previous_handler = QtCore.qInstallMessageHandler(_qt_message) or False
    app = QtWidgets.QApplication.instance() or QtWidgets.QApplication(sys.argv[:1])
    app.setApplicationName("Load Lab")
    app.setOrganizationName("load-lab")
    if plots:
        setup_pyqtgraph()
    apply_style()  # the style sheet at the current zoom and theme (widgets.kit.zoom, widgets.kit.theme)
    return app


def panel_keys() -> list[str]:
    return panels.panel_keys()


def start_window():
    """The application and its main window, shown; the panel it reopens on is built once
    the window is on screen. Returns (app, window)."""
    app = application(plots=False)
    window = MainWindow()
    place_window(window)
    return app, window


def fitted_rect(available: QtCore.QRect, width: int = PREFERRED_SIZE[0], height: int = PREFERRED_SIZE[1],
                margin: float = SCREEN_MARGIN) -> QtCore.QRect:
    """The preferred size, shrunk to fit the screen's available area with a margin,
    centred in it (a 1280x720 projector gets a window it can show whole)."""
    w = min(width, int(available.width() * margin))
    h = min(height, int(available.height() * margin))
    rect = QtCore.QRect(0, 0, max(w, 1), max(h, 1))
    rect.moveCenter(available.center())
    return rect


def place_window(window) -> None:
    """Show the window where it was last closed (maximised or not: Qt's saveGeometry, which
    moves it back onto a screen that is still there), else fitted to the screen's available
    area; then show it."""
    saved = window.settings.get(GEOMETRY_KEY)
    restored = isinstance(saved, QtCore.QByteArray) and not saved.isEmpty() and window.restoreGeometry(saved)
    screen = window.screen() or QtGui.QGuiApplication.primaryScreen()
    if not restored and screen is not None:
        window.setGeometry(fitted_rect(screen.availableGeometry()))
    elif not restored:
        window.resize(*PREFERRED_SIZE)
    if restored and window.isMaximized():
        window.showMaximized()
    else:
        window.show()


def run_gui() -> int:
    app, window = start_window()
    excepthook.install(parent=window)  # a dialog and a log file; the app keeps running
    try:
        return app.exec()
    finally:
        excepthook.uninstall()


def snapshot(panel: str, out: str, width: int, height: int, fmt: str | None = None, lang: str | None = None,
             theme: str | None = None, zoom: str | None = None, talk: str | None = None,
             scene: str | None = None) -> None:
    """Render the main window ('main') or one panel at width x height into a PNG, SVG or PDF.

    The options (format, language, theme, zoom, a talk's scene) are each applied by the
    module that owns them; the CLI has checked their spelling, they check their values."""
    fmt = snapshot_format(out, fmt)  # export: --format, else the suffix, else png; --out checked first
    zoom_factor = snapshot_zoom(zoom)  # zoom and theme (lab.talk.presentation): checked before any work
    app = application()
    apply_look(theme, zoom_factor)  # panels are built in these colours, at this zoom
    try:
        _render_snapshot(app, panel, out, width, height, fmt, lang, talk, scene)
    finally:
        forget_look()  # a snapshot taken in-process (tests) leaves later windows their own look


def _render_snapshot(app, panel: str, out: str, width: int, height: int, fmt: str, lang: str | None,
                     talk: str | None, scene: str | None) -> None:
    if talk:  # a talk's scene, as presentation mode shows it (lab.talk)
        widget, shown = scene_window(talk, int(scene))
    elif panel == "main":
        widget = MainWindow()
        shown = widget.panel(widget.current_key())  # the snapshot shows the panel, not "loading …"
    else:
        info = next(p for p in discover_panels() if p.key == panel)
        widget = shown = info.factory()
    # Exactly width x height: a fixed size is the one a layout's minimum cannot grow (a
    # panel wider or taller than that is cut, not the picture made bigger).
    widget.setFixedSize(width, height)
    widget.show()
    # Panels build a section per event-loop turn and take their first figures from the job
    # runner: turn the loop until the panel says it is ready (those without is_ready are
    # ready once their jobs are done).
    ready = getattr(shown, "is_ready", lambda: True)
    deadline = time.monotonic() + 120
    while True:
        app.processEvents()
        idle = jobs().wait_idle(timeout_ms=1_000)
        if (idle and ready()) or time.monotonic() > deadline:
            break
    if not hasattr(widget, "presentation"):  # a lone panel: its plots to the zoom (a window does its own)
        apply_fonts(shown)
        apply_plot_zoom(shown)
    if lang is not None:  # language (lab.language): every label in lang, the window's menus too
        apply_language(lang, widget if hasattr(widget, "language_actions") else None)
        for _ in range(5):  # text a panel writes a moment later is translated too
            app.processEvents()
        translate_tree(widget)
    for _ in range(5):  # let layouts and plots settle
        app.processEvents()
    write_snapshot(widget, out, fmt)  # export: atomic; an OSError names what is wrong with --out
    widget.close()


# ---- talks: `lab talk FILE` and `lab snapshot --talk FILE --scene N` ----------------------
def run_talk(path: str) -> int:
    """The window in presentation mode at the talk's first good scene (ParamError, before
    any window, if the file is refused)."""
    talk = read_talk(path)
    app, window = start_window()
    excepthook.install(parent=window)
    open_talk(window, talk)
    try:
        return app.exec()
    finally:
        excepthook.uninstall()


def scene_window(talk_path: str, number: int):
    """A main window showing scene number of the talk as presentation mode shows it (no
    navigation, menu or status bar; the bar under the figure), at the window's own size.
    Returns (window, controller); controller.is_ready() once the scene is on screen."""
    talk = read_talk(talk_path)
    window = MainWindow()
    for chrome in (window.nav, window.menuBar(), window.statusBar()):
        chrome.hide()
    controller = open_talk(window, talk, presentation=False, index=number - 1, autoplay=False)
    controller.prefetch = False  # the picture is of this scene only
    return window, controller
