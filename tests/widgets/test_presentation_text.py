"""F11 on a projector: text a room can read (issue 14: at 1280x720 the zoom stayed at 100 %,
body text 13 px, captions, tags and ticks 12 px)."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit import zoom
from widgets.kit.theme import ROLE_POINTS


def test_the_presentation_zoom_fills_the_screen_and_keeps_text_legible():
    # 9 pt (the smallest role and the ticks) is 12 px at 96 dpi: 18 px needs 1.5.
    assert zoom.smallest_points() == min(ROLE_POINTS.values()) == 9.0
    assert zoom.presentation_zoom(QtCore.QSize(1280, 720)) == 1.5  # fit_zoom alone: 1.0
    assert zoom.presentation_zoom(QtCore.QSize(1920, 1080)) == 1.5
    assert zoom.presentation_zoom(QtCore.QSize(2560, 1440)) == 2.0  # the screen wants more
    assert zoom.presentation_zoom(QtCore.QSize(1280, 720), dpi=144) == 1.0  # 9 pt is 18 px there


def test_every_text_of_a_panel_is_at_least_18_px_at_the_1280x720_presentation_zoom(qtbot):
    from widgets.request import RequestPanel

    zoom.set_zoom(zoom.presentation_zoom(QtCore.QSize(1280, 720), QtGui.QGuiApplication.primaryScreen().logicalDotsPerInch()))
    panel = RequestPanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitUntil(getattr(panel, "is_ready", lambda: True), timeout=60_000)
    zoom.apply_plot_zoom(panel)
    small = [(w.text()[:30], QtGui.QFontInfo(w.font()).pixelSize())
             for w in panel.findChildren(QtWidgets.QLabel)
             if w.isVisibleTo(panel) and w.text().strip() and QtGui.QFontInfo(w.font()).pixelSize() < zoom.PRESENTATION_MIN_PX]
    assert small == []
    axes = [item for view in panel.findChildren(pg.GraphicsView) for item in view.scene().items()
            if isinstance(item, pg.AxisItem) and item.isVisible()]
    assert axes
    ticks = {QtGui.QFontInfo(axis.style["tickFont"]).pixelSize() for axis in axes if axis.style["tickFont"] is not None}
    assert ticks and min(ticks) >= zoom.PRESENTATION_MIN_PX
    panel.close()
