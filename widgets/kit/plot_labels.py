"""Text items over a row of bars that stay readable when the plot is narrow: a label that
would overlap its left neighbour is raised until it clears it, again whenever the plot is resized or its range changes (图 3-30's names
over the bars ran into each other at 1280x720)."""
from __future__ import annotations

import pyqtgraph as pg
import shiboken6
from PySide6 import QtCore

from widgets.kit.i18n_text import notifier
from widgets.kit.zoom_factor import zoom_notifier


def _ink(item: pg.TextItem) -> QtCore.QRectF:
    """The item's text in scene coordinates, without its document's blank margin."""
    item.updateTransform()  # pyqtgraph brings it up to date at the next paint: measure it as drawn
    m = item.textItem.document().documentMargin()
    return item.mapRectToScene(item.boundingRect()).adjusted(m, m, -m, -m)


GAP_PX = 2  # between a raised label and the one it clears


class KeptApart(QtCore.QObject):
    def __init__(self, plot: pg.PlotItem, items: list[pg.TextItem], anchor: tuple[float, float]):
        super().__init__(plot)
        self._items, self._anchor = items, anchor
        self._timer = QtCore.QTimer(self)
        self._timer.setSingleShot(True)
        self._timer.timeout.connect(self.arrange)
        box = plot.getViewBox()
        box.sigResized.connect(self.later)
        box.sigRangeChanged.connect(self.later)
        # A new language or zoom changes the labels' widths, not the plot's range.
        notifier().language_changed.connect(self.later)
        zoom_notifier().zoom_changed.connect(self.later)

    def later(self, *_args) -> None:
        self._timer.start(0)  # once the view has its new geometry

    def arrange(self) -> None:
        """Each label at its anchor, raised above the one on its left where they overlap."""
        shown = [i for i in self._items if shiboken6.isValid(i) and i.isVisible() and i.textItem.toPlainText()]
        for item in shown:
            item.setAnchor(self._anchor)
        left = None
        for item in shown:
            ink = _ink(item)
            if left is not None and left.intersects(ink) and ink.height() > 0:
                # Its bottom just over the left one's top (scene y grows downwards).
                lift = (ink.bottom() - left.top() + GAP_PX) / ink.height()
                item.setAnchor((self._anchor[0], self._anchor[1] + lift))
                ink = _ink(item)
            left = ink


def keep_apart(plot: pg.PlotItem, items: list[pg.TextItem], anchor: tuple[float, float]) -> KeptApart:
    """Keep items (left to right, each at `anchor`) apart as the plot changes; call the
    returned object's arrange() after setting their texts and positions."""
    return KeptApart(plot, items, anchor)


class _Wrapped(QtCore.QObject):
    def __init__(self, plot: pg.PlotItem, item: pg.TextItem):
        super().__init__(plot)
        self._box, self._item = plot.getViewBox(), item
        self._box.sigResized.connect(self.wrap)
        self._box.sigRangeChanged.connect(self.wrap)

    def wrap(self, *_args) -> None:
        box, item = self._box, self._item
        if not (shiboken6.isValid(box) and shiboken6.isValid(item)):
            return
        left = box.mapViewToScene(item.pos()).x() - box.sceneBoundingRect().left()
        item.setTextWidth(max(box.width() - left - WRAP_MARGIN_PX, WRAP_LEAST_PX))


WRAP_MARGIN_PX = 6  # between a wrapped text and the plot's right edge
WRAP_LEAST_PX = 80  # narrower than this a text is not worth wrapping


def wrap_in_plot(plot: pg.PlotItem, item: pg.TextItem) -> _Wrapped:
    """item (anchored at its left) wraps at the plot's right edge, now and whenever the
    plot is resized or its range changes; call the returned object's wrap() after setPos."""
    return _Wrapped(plot, item)
