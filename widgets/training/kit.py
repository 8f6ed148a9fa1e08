"""Pieces the Training panel's sections share: bars that draw fast, a readout that never
re-lays out the page, and the Section protocol the panel builds step by step."""
from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np
import pyqtgraph as pg
from PySide6 import QtCore, QtGui, QtWidgets

from core.training.bars import Bars
from widgets.kit import i18n
from widgets.kit.jobs import jobs
from widgets.kit.theme import BASE_POINTS

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


class CachedLayer(pg.GraphicsObject):
    """Draws a group of static plot items into one pixmap at the view's resolution and
    blits it on every later paint; redrawn only when the figure, the view range or the
    widget's size changes. The items stay in the plot (legend, ranges, getData) but the
    scene no longer paints them itself.

    This is QGraphicsItem's DeviceCoordinateCache owned by the item: it does not depend
    on the process-wide QPixmapCache (10 MB by default, shared by every panel), so no
    panel has to raise that limit for everyone."""

    def __init__(self, items: list, antialias: bool = False):
        super().__init__()
        self._items = list(items)
        self._antialias = antialias
        self._painters = []
        for item in self._items:
            painter = getattr(item, "curve", item)  # a PlotDataItem paints through its curve
            painter.setFlag(QtWidgets.QGraphicsItem.GraphicsItemFlag.ItemHasNoContents, True)
            self._painters.append(painter)
        self._pixmap: QtGui.QPixmap | None = None
        self._key = None
        self._version = 0

    def apply_zoom(self, _factor: float) -> None:
        """widgets.kit.plot_zoom: the items' pens changed width; draw them again."""
        self.invalidate()

    def apply_theme(self, _mapping) -> None:
        """widgets.kit.plot_zoom: the items changed colour; draw them again."""
        self.invalidate()

    def invalidate(self) -> None:
        """The items' data changed: draw them again at the next paint."""
        self._version += 1
        self.prepareGeometryChange()
        self._rect = None
        self.update()

    def viewTransformChanged(self):
        self.prepareGeometryChange()
        self._rect = None  # pens are sized in pixels

    def boundingRect(self) -> QtCore.QRectF:
        # Asked many times per paint by the scene; the items' bounds only move with their data.
        if getattr(self, "_rect", None) is None:
            rect = QtCore.QRectF()
            for painter in self._painters:
                rect = rect.united(painter.boundingRect())
            self._rect = rect
        return self._rect

    def paint(self, p, option, widget=None):
        vb = self.getViewBox()
        if vb is None:
            return
        tr = p.transform()
        area = tr.mapRect(vb.viewRect()).toAlignedRect().adjusted(-2, -2, 2, 2)
        dpr = widget.devicePixelRatioF() if widget is not None else 1.0
        key = (self._version, tr.m11(), tr.m22(), tr.dx(), tr.dy(), area.width(), area.height(), dpr)
        if key != self._key or self._pixmap is None:
            pixmap = QtGui.QPixmap(max(int(area.width() * dpr), 1), max(int(area.height() * dpr), 1))
            pixmap.setDevicePixelRatio(dpr)
            pixmap.fill(QtCore.Qt.GlobalColor.transparent)
            q = QtGui.QPainter(pixmap)
            q.setRenderHint(QtGui.QPainter.RenderHint.Antialiasing, self._antialias)
            q.translate(-area.left(), -area.top())
            q.setTransform(tr, True)
            for painter in self._painters:
                q.save()
                painter.paint(q, option, widget)
                q.restore()
            q.end()
            self._pixmap, self._key = pixmap, key
        p.save()
        p.resetTransform()
        p.drawPixmap(area.topLeft(), self._pixmap)
        p.restore()


class PlotLabels(pg.GraphicsObject):
    """Many short labels at data positions, centred, in one item (a TextItem each costs a
    text document: dozens of them made a figure's first draw slow)."""

    def __init__(self, color: QtGui.QColor, size: int = 8):
        super().__init__()
        self._labels: list[tuple[str, float, float]] = []
        self._pen = QtGui.QPen(color)
        self._size = size  # points at zoom 1
        self._font = QtGui.QFont()
        self._font.setPointSize(size)

    _scale = 1.0

    def apply_zoom(self, factor: float) -> None:
        """widgets.kit.plot_zoom: text at factor times its size."""
        self._scale = factor
        self._font.setPointSizeF(self._size * factor)
        self.update()

    def apply_theme(self, mapping) -> None:
        """widgets.kit.plot_zoom: the text in the new theme's colour of the same meaning."""
        target = mapping.get(self._pen.color().rgb())
        if target is not None:
            self._pen.setColor(target)
            self.update()

    def set_labels(self, labels: list[tuple[str, float, float]]) -> None:
        self.prepareGeometryChange()
        self._labels = list(labels)
        self.update()

    def labels(self) -> list[tuple[str, float, float]]:
        return list(self._labels)

    def boundingRect(self) -> QtCore.QRectF:
        vb = self.getViewBox()
        return vb.viewRect() if vb is not None and self._labels else QtCore.QRectF()

    def viewTransformChanged(self):
        self.prepareGeometryChange()

    def paint(self, p, *args):
        tr = p.transform()
        p.save()
        p.resetTransform()
        p.setPen(self._pen)
        p.setFont(self._font)
        for text, x, y in self._labels:
            c = tr.map(QtCore.QPointF(x, y))
            box = QtCore.QRectF(0, 0, 120 * self._scale, 20 * self._scale)
            box.moveCenter(c)
            p.drawText(box, QtCore.Qt.AlignmentFlag.AlignCenter, text)
        p.restore()


class Readout(QtWidgets.QWidget):
    """One line of rich text that paints itself: changing it repaints this strip only and
    never asks the page for a new layout (a QLabel would, on every frame)."""

    def __init__(self, height: int = 22, parent=None):
        super().__init__(parent)
        self._height = height  # px at zoom 1
        self.setFixedHeight(height)
        self.setSizePolicy(QtWidgets.QSizePolicy.Policy.Ignored, QtWidgets.QSizePolicy.Policy.Fixed)
        self._doc = QtGui.QTextDocument(self)
        self._doc.setDocumentMargin(2)
        self._text = ""
        self._source = ""  # as the panel wrote it; shown through widgets/kit/i18n.tr
        i18n.notifier().language_changed.connect(self._on_language_changed)

    def text(self) -> str:
        return self._text

    def changeEvent(self, event):
        super().changeEvent(event)
        if event.type() == QtCore.QEvent.Type.FontChange:  # the zoom changed: text and strip grow
            self._doc.setDefaultFont(self.font())
            self._doc.setHtml(self._text)
            self.setFixedHeight(round(self._height * QtGui.QFontInfo(self.font()).pointSizeF() / BASE_POINTS))

    def _on_language_changed(self, _lang: str) -> None:
        self.setText(self._source)

    def setText(self, text: str) -> None:
        self._source = text
        text = i18n.tr(text)
        if text != self._text:
            self._text = text
            self._doc.setDefaultFont(self.font())
            self._doc.setHtml(text)
            self.update()

    def paintEvent(self, event):
        painter = QtGui.QPainter(self)
        painter.setClipRect(self.rect())
        self._doc.setTextWidth(self.width())  # a long readout wraps onto its second line
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

    def __init__(self, panel: TrainingPanel):
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


class PlayedSection(Section):
    """A section whose figure plays (▶): its player mirrors the state's player position.

    Subclasses set player_name, job_key and, once built, `player` and `view` (with
    set_time). A position set from outside (a restored scene) is absolute and also holds
    for the figure still being computed; a changed setting keeps the playback at the same
    point of the new figure."""

    player_name = ""
    job_key = ""

    def __init__(self, panel):
        super().__init__(panel)
        self._duration: float | None = None  # of the figure on screen
        self._pending_position: float | None = None

    def follow_position(self) -> None:
        """state -> player and view."""
        t = self.state.player(self.player_name)
        if abs(self.player.position - t) <= 1e-12:
            self.view.set_time(t)  # the player's own tick
            return
        if self._duration is None or t > self.player.duration or jobs().busy(self.job_key):
            self._pending_position = t
        if self._duration is not None and t <= self.player.duration:
            self.player.seek(t)
            self.view.set_time(self.player.position)

    def set_duration(self, duration: float) -> None:
        """The player's length, and its time label sized for it once: the label then keeps
        its size while the time runs, so a frame never asks the page for a new layout."""
        self.player.set_duration(duration)
        self.player.fit_time_label(f"{duration:,.2f} / {duration:,.2f} s")

    def start_position(self, duration: float) -> float:
        """Where the playback stands when a new figure of `duration` arrives."""
        position = self.state.player(self.player_name)
        if self._pending_position is not None:
            position, self._pending_position = self._pending_position, None
        elif self._duration is None:  # the first figure: all of it, unless a position was set
            position = position if position > 0 else duration
        else:
            fraction = position / self._duration if self._duration else 0.0
            position = duration if fraction == 0.0 and not self.player.is_playing() else fraction * duration
        self._duration = duration
        return min(position, duration)
