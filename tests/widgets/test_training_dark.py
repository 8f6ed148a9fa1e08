"""Training's legends and the ▶ veil in the dark theme (issue 14: the memory legend was
white text on a white box)."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtCore, QtGui

from widgets.kit import theme


def _paper_items(panel):
    views = panel.findChildren(pg.GraphicsView)
    legends = [i for v in views for i in v.scene().items() if isinstance(i, pg.LegendItem)]
    veils = [i for v in views for i in v.scene().items() if isinstance(i, pg.LinearRegionItem)]
    return legends, veils


def test_built_in_the_dark_theme_the_legends_are_dark_paper_under_light_ink(qtbot):
    from widgets.training import TrainingPanel

    theme.set_theme("dark")
    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitUntil(panel.is_ready, timeout=60_000)
    legends, veils = _paper_items(panel)
    assert legends and veils
    paper = QtGui.QColor(theme.COLORS["paper"]).rgb()
    assert QtGui.QColor(theme.THEMES["dark"]["paper"]).lightness() < 100  # a dark paper
    boxes = [pg.mkBrush(legend.opts["brush"]) for legend in legends if legend.opts.get("brush") is not None]
    boxes = [b for b in boxes if b.style() != QtCore.Qt.BrushStyle.NoBrush]  # a legend with a box of its own
    assert boxes and all(b.color().rgb() == paper for b in boxes)
    assert all(veil.brush.color().rgb() == paper for veil in veils)
    panel.close()


def test_a_theme_change_recolours_the_veil(qtbot):
    from widgets.kit.plot_zoom import recolor_plots
    from widgets.training import TrainingPanel

    panel = TrainingPanel()
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitUntil(panel.is_ready, timeout=60_000)
    theme.set_theme("dark")
    recolor_plots(panel, "light", "dark")
    _, veils = _paper_items(panel)
    dark = QtGui.QColor(theme.THEMES["dark"]["paper"]).rgb()
    assert veils and all(veil.brush.color().rgb() == dark for veil in veils)
    panel.close()
