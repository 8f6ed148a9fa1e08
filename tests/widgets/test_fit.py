"""Every panel fits a laptop on a projector (1280x720) and a full-HD screen (1920x1080), at
zoom 1 and 1.5, inside the main window: the window keeps the size it was given, nothing
scrolls sideways, no input sticks out of its page, and `lab snapshot --size WxH` writes
exactly W x H pixels.

Each panel is built once per window and then resized and zoomed: the cases run zoom by
zoom, size by size, so each restyle happens once. Vision gets a window of its own: a
panel's minimum size holds for the whole stack of pages, so a Vision that is too big
would make every panel after it fail as well."""
from __future__ import annotations

import re

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.panels import discover_panels

SIZES = ((1280, 720), (1920, 1080))
ZOOMS = (1.0, 1.5)
KEYS = [p.key for p in discover_panels()]
CASES = [(zoom, size, key) for zoom in ZOOMS for size in SIZES for key in KEYS]
INPUTS = (QtWidgets.QLineEdit, QtWidgets.QComboBox, QtWidgets.QAbstractSpinBox, QtWidgets.QSlider,
          QtWidgets.QAbstractButton)
ALONE = ("vision",)  # panels tested in a window of their own (see the module's docstring)


def _set_zoom(factor: float) -> None:
    """The app's zoom (widgets.kit.zoom when it is there, else the style sheet's px and the
    application font scaled by hand, which is what a zoom does to a layout)."""
    try:
        from widgets.kit.zoom import set_zoom

        set_zoom(factor)
        return
    except ImportError:
        pass
    app = QtWidgets.QApplication.instance()
    base = app.property("fit_test_base")
    if base is None:
        base = (app.styleSheet(), app.font().pointSizeF())
        app.setProperty("fit_test_base", base)
    sheet, points = base
    app.setStyleSheet(re.sub(r"(\d+(?:\.\d+)?)px", lambda m: f"{float(m.group(1)) * factor:g}px", sheet))
    font = app.font()
    font.setPointSizeF(points * factor)
    app.setFont(font)


class Windows:
    """One main window for most panels, one for each panel in ALONE; built on demand."""

    def __init__(self):
        self._windows: dict[str, QtWidgets.QMainWindow] = {}

    def for_key(self, key: str):
        from lab.main_window import MainWindow

        group = key if key in ALONE else "shared"
        if group not in self._windows:
            window = MainWindow()
            window.show()
            self._windows[group] = window
        return self._windows[group]

    def close(self) -> None:
        """Closed and deleted: a closed window left alive is restyled by every later theme change."""
        for window in self._windows.values():
            window.close()
            window.deleteLater()


@pytest.fixture(scope="module")
def windows(qapp):
    from lab.app import application

    application()  # the lab's style sheet and plot set-up, as `lab` runs
    made = Windows()
    yield made
    made.close()
    _set_zoom(1.0)


def _settle(qtbot, window, key: str) -> None:
    from widgets.kit.jobs import jobs

    window.show_panel(key)
    window.panel(key)
    qtbot.waitUntil(lambda: window.is_ready(key), timeout=60_000)
    jobs().wait_idle(timeout_ms=30_000)
    for _ in range(3):
        QtWidgets.QApplication.processEvents()


def _viewport_of(widget: QtWidgets.QWidget, panel: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """The area widget is seen through: its scroll area's viewport, else the panel."""
    parent = widget.parentWidget()
    while parent is not None and parent is not panel:
        if isinstance(parent, QtWidgets.QAbstractScrollArea) and parent.viewport().isAncestorOf(widget):
            return parent.viewport()
        parent = parent.parentWidget()
    return panel


def _misfits(panel: QtWidgets.QWidget) -> list[str]:
    """What does not fit: sideways scrolling, content wider than its view, inputs outside
    the area they are seen through or narrower than they need."""
    problems = []
    for area in panel.findChildren(QtWidgets.QAbstractScrollArea):
        if not area.isVisible():
            continue
        if area.horizontalScrollBar().isVisible():
            problems.append(f"{type(area).__name__} {area.objectName()!r} scrolls sideways")
        if isinstance(area, QtWidgets.QScrollArea) and area.widget() is not None:
            if area.widget().width() > area.viewport().width():
                problems.append(f"page {area.widget().width()} px wide in a {area.viewport().width()} px view")
    for widget in panel.findChildren(QtWidgets.QWidget):
        if not isinstance(widget, INPUTS) or not widget.isVisible():
            continue
        view = _viewport_of(widget, panel)
        left = widget.mapTo(view, QtCore.QPoint(0, 0)).x()
        name = f"{type(widget).__name__} {widget.objectName() or getattr(widget, 'text', lambda: '')()!r}"
        if left < 0 or left + widget.width() > view.width():
            problems.append(f"{name} spans x {left}..{left + widget.width()} of a {view.width()} px view")
        if isinstance(widget, (QtWidgets.QLineEdit, QtWidgets.QComboBox)) and widget.width() < widget.minimumSizeHint().width():
            problems.append(f"{name} {widget.width()} px, needs {widget.minimumSizeHint().width()}")
    return problems


@pytest.mark.parametrize("zoom,size,key", CASES, ids=[f"{k}-{w}x{h}-z{z:g}" for z, (w, h), k in CASES])
def test_panel_fits_window(windows, qtbot, zoom, size, key):
    window = windows.for_key(key)
    _set_zoom(zoom)
    window.resize(*size)
    _settle(qtbot, window, key)
    window.resize(*size)  # the size asked for again: a panel must not have grown it
    _settle(qtbot, window, key)
    assert window.size().toTuple() == size
    panel = window.panel(key)
    assert panel.isVisible()
    assert _misfits(panel) == []


# Every panel at the projector size; zoomed full HD for the window and the two panels with
# the tallest content (the size is set the same way for all).
SNAPSHOTS = ([(key, (1280, 720), None) for key in KEYS + ["main"]]
             + [(key, (1920, 1080), "1.5") for key in ("main", "vision", "training")])


@pytest.mark.parametrize("key,size,zoom", SNAPSHOTS, ids=[f"{k}-{w}x{h}-z{z or 1}" for k, (w, h), z in SNAPSHOTS])
def test_snapshot_writes_exact_size(qapp, tmp_path, key, size, zoom):
    from lab.app import snapshot

    out = tmp_path / f"{key}.png"
    try:
        snapshot(key, str(out), *size, zoom=zoom)
    finally:
        _set_zoom(1.0)
    image = QtGui.QImage(str(out))
    assert (image.width(), image.height()) == size
