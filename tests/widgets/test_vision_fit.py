"""Vision fits a 1280×720 projector and a 1920×1080 screen at zoom 1 and 1.5 (issue 10),
with a 6 MP photo open and on each of its tabs: the window keeps its size, nothing scrolls
sideways, no page is wider than its view; `lab snapshot vision` writes exactly W×H."""
from __future__ import annotations

import pytest
from PySide6 import QtGui, QtWidgets

from vision.sample import write_photo

SIZES = ((1280, 720), (1920, 1080))
ZOOMS = (1.0, 1.5)


def _set_zoom(factor: float) -> None:
    """The app's zoom (widgets.kit.zoom); without it, the application font times factor."""
    try:
        from widgets.kit.zoom import set_zoom
    except ImportError:
        app = QtWidgets.QApplication.instance()
        points = app.property("vision_fit_points") or app.font().pointSizeF()
        app.setProperty("vision_fit_points", points)
        font = app.font()
        font.setPointSizeF(points * factor)
        app.setFont(font)
        return
    set_zoom(factor)


@pytest.fixture(scope="module")
def window(qapp, tmp_path_factory):
    from lab.app import application
    from lab.main_window import MainWindow

    application()
    photo = tmp_path_factory.mktemp("fit") / "photo6mp.jpg"
    write_photo(photo, 3000, 2000)
    made = MainWindow()
    made.show()
    made.show_panel("vision")
    panel = made.panel("vision")
    panel.load_files([photo])
    yield made
    made.close()
    made.deleteLater()  # a closed window left alive is restyled by every later theme change
    _set_zoom(1.0)


def _settle(qtbot, window) -> None:
    from widgets.kit.jobs import jobs

    qtbot.waitUntil(lambda: window.is_ready("vision"), timeout=60_000)
    qtbot.waitUntil(lambda: window.panel("vision").state.sources != ("",), timeout=60_000)
    jobs().wait_idle(timeout_ms=30_000)
    for _ in range(3):
        QtWidgets.QApplication.processEvents()


def _sideways(panel) -> list[str]:
    problems = []
    for area in panel.findChildren(QtWidgets.QAbstractScrollArea):
        if not area.isVisible():
            continue
        if area.horizontalScrollBar().isVisible() or area.horizontalScrollBar().maximum() > 0:
            problems.append(f"{type(area).__name__} {area.objectName()!r} scrolls sideways")
        if isinstance(area, QtWidgets.QScrollArea) and area.widget() is not None:
            if area.widget().width() > area.viewport().width():
                problems.append(f"{area.objectName()!r}: page {area.widget().width()} px in a "
                                f"{area.viewport().width()} px view")
    return problems


@pytest.mark.parametrize("zoom", ZOOMS)
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_vision_with_a_photo_fits(window, qtbot, size, zoom):
    _set_zoom(zoom)
    panel = window.panel("vision")
    for tab in range(panel.tabs.count()):
        panel.tabs.setCurrentIndex(tab)
        window.resize(*size)
        _settle(qtbot, window)
        window.resize(*size)
        _settle(qtbot, window)
        assert window.size().toTuple() == size, f"tab {tab}"
        assert _sideways(panel) == [], f"tab {tab}"
        assert panel.view.height() >= 160 and panel.view.width() >= 240  # the picture stays a picture
    panel.tabs.setCurrentIndex(0)


def test_wide_screen_puts_the_picture_beside_the_figures(window, qtbot):
    _set_zoom(1.0)
    window.resize(1920, 1080)
    _settle(qtbot, window)
    panel = window.panel("vision")
    panel.tabs.setCurrentIndex(0)
    assert not panel.body.verticalScrollBar().isVisible()
    assert panel.column.geometry().right() < panel.tabs.geometry().left()  # side by side


def test_snapshot_is_exactly_the_size_asked(qapp, tmp_path):
    from lab.app import snapshot

    _set_zoom(1.0)
    for width, height in ((1280, 720), (1920, 1080)):
        out = tmp_path / f"vision{width}.png"
        snapshot("vision", str(out), width, height)
        image = QtGui.QImage(str(out))
        assert (image.width(), image.height()) == (width, height)
