"""Pieces the Training panel's sections share: bars that draw fast, a readout that never
re-lays out the page, and the Section protocol the panel builds step by step."""
from __future__ import annotations

from typing import TYPE_CHECKING, Iterator

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core.training_figures import Bars

if TYPE_CHECKING:
    from widgets.training import TrainingPanel


class FastBars(pg.BarGraphItem):
    """Axis-aligned bars in one brush, no outline, drawn without antialiasing: one
    drawRects call (pyqtgraph's single-colour path), several times cheaper per frame."""

    def __init__(self, brush: QtGui.QBrush, **opts):
        super().__init__(x0=[], y0=[], width=[], height=[], brush=brush, pen=pg.mkPen(None), **opts)

    def set_bars(self, bars: Bars) -> None:
        self.setOpts(x0=bars.x0, y0=bars.y0, width=bars.width, height=bars.height)

    def count(self) -> int:
        x0 = self.opts.get("x0")
        return 0 if x0 is None else int(np.asarray(x0).size)

    def paint(self, p, *args):
        p.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, False)
        super().paint(p, *args)


class Readout(QtWidgets.QWidget):
    """One line of rich text that paints itself: changing it repaints this strip only and
    never asks the page for a new layout (a QLabel would, on every frame)."""

    def __init__(self, height: int = 22, parent=None):
        super().__init__(parent)
        self.setFixedHeight(height)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self._doc = QtGui.QTextDocument(self)
        self._doc.setDocumentMargin(2)
        self._text = ""

    def text(self) -> str:
        return self._text

    def setText(self, text: str) -> None:  # noqa: N802 - QLabel's name, so it reads the same
        if text != self._text:
            self._text = text
            self._doc.setDefaultFont(self.font())
            self._doc.setHtml(text)
            self.update()

    def paintEvent(self, event):  # noqa: N802
        painter = QtGui.QPainter(self)
        painter.setClipRect(self.rect())
        self._doc.drawContents(painter, QtCore.QRectF(self.rect()))
        painter.end()


def caption(text: str) -> QtWidgets.QLabel:
    label = QtWidgets.QLabel(text)
    label.setProperty("role", "caption")
    label.setWordWrap(True)
    return label


class Section:
    """One part of the panel: a card (or two) and the figure drawn from it.

    build() is a generator: the panel runs one step of it per turn of the event loop, so
    the window answers while the panel is being made. refresh() draws from the state
    (after the section is built); on_changed(path) follows the state's change events for
    the paths listed in `paths`.
    """

    paths: tuple[str, ...] = ()

    def __init__(self, panel: "TrainingPanel"):
        self.panel = panel
        self.state = panel.state
        self.built = False

    def build(self) -> Iterator[None]:
        yield

    def refresh(self) -> None:
        pass

    def on_changed(self, path: str) -> None:
        self.refresh()

    def close(self) -> None:
        pass
