"""A widget as shown, as SVG or PDF, with text as text and lines as lines.

QWidget.render clips each child to its parents only for pixel targets: into QSvgGenerator
or QPdfWriter a scroll area's page, or a plot scrolled half out of view, would spill over the
widgets around it (the status bar, a tab bar). So the tree is painted here one widget at a
time, each clipped to the part of it that is on screen:
- SVG: each widget becomes its own fragment, placed in a group clipped to its visible part
  (SVG 1.1 clip paths: browsers, Inkscape and librsvg honour them; Qt's own QSvgRenderer
  does not).
- PDF: each widget is painted under the painter's clip. pyqtgraph replays recorded
  pictures that switch clipping off (axes, bars), so a plot only partly on screen is
  drawn as an image of its visible part; plots wholly on screen stay vector.
"""
from __future__ import annotations

import contextlib
import re

from PySide6 import QtCore, QtGui, QtSvg, QtWidgets

_NO_FLAGS = QtWidgets.QWidget.RenderFlag(0)
_ROOT_FLAGS = QtWidgets.QWidget.RenderFlag.DrawWindowBackground


def paint_order(root: QtWidgets.QWidget) -> list[tuple[QtWidgets.QWidget, QtCore.QPoint, QtCore.QRect]]:
    """(widget, its top-left in root, its visible part in root) for root and every shown
    descendant, parents before children, children in stacking order: Qt's own paint order."""
    out = []

    def walk(widget: QtWidgets.QWidget, origin: QtCore.QPoint, clip: QtCore.QRect) -> None:
        visible = QtCore.QRect(origin, widget.size()).intersected(clip)
        if visible.isEmpty():
            return
        out.append((widget, origin, visible))
        for child in widget.children():
            if isinstance(child, QtWidgets.QWidget) and not child.isWindow() and not child.isHidden():
                walk(child, origin + child.pos(), visible)

    walk(root, QtCore.QPoint(0, 0), QtCore.QRect(QtCore.QPoint(0, 0), root.size()))
    return out


def svg_bytes(root: QtWidgets.QWidget, title: str) -> bytes:
    """root as an SVG 1.1 document of root's size (one widget pixel = one CSS pixel)."""
    width, height = root.width(), root.height()
    defs, body = [], []
    with no_view_caches(root):
        for n, (widget, origin, visible) in enumerate(paint_order(root)):
            fragment = bake_cosmetic_strokes(_svg_of(widget, widget is root))
            inner_defs = re.search(r"<defs>(.*?)</defs>", fragment, re.S)
            start = fragment.find("</defs>")
            content = fragment[start + len("</defs>"):fragment.rindex("</svg>")] if start >= 0 else ""
            local = _prefixed(f"w{n}_", (inner_defs.group(1) if inner_defs else "") + "\x00" + content)
            inner, content = local.split("\x00", 1)
            defs.append(inner)
            # Clipped even when wholly visible: a widget may paint past its edges (a selected
            # tab into the page below), which the screen never shows.
            defs.append(f'<clipPath id="clip{n}"><rect x="{visible.x()}" y="{visible.y()}" '
                        f'width="{visible.width()}" height="{visible.height()}"/></clipPath>')
            body.append(f'<g clip-path="url(#clip{n})"><g transform="translate({origin.x()},{origin.y()})">'
                        f'{content}</g></g>')
    head = (f'<?xml version="1.0" encoding="UTF-8" standalone="no"?>\n'
            f'<svg width="{width}px" height="{height}px" viewBox="0 0 {width} {height}" '
            'xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" version="1.1">\n'
            f'<title>{_escape(title)}</title>\n<desc>Load Lab export</desc>\n')
    return (head + "<defs>\n" + "".join(defs) + "</defs>\n" + "\n".join(body) + "\n</svg>\n").encode("utf-8")


def pdf_bytes(root: QtWidgets.QWidget, title: str) -> bytes:
    """root as a one-page PDF whose page is root's size (one widget pixel = one point)."""
    buffer = QtCore.QBuffer()
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    writer = QtGui.QPdfWriter(buffer)
    writer.setResolution(72)
    writer.setPageSize(QtGui.QPageSize(QtCore.QSizeF(root.size()), QtGui.QPageSize.Unit.Point, "",
                                       QtGui.QPageSize.SizeMatchPolicy.ExactMatch))
    writer.setPageMargins(QtCore.QMarginsF(0, 0, 0, 0))
    writer.setTitle(title)
    writer.setCreator("Load Lab")
    painter = _begin(writer)
    try:
        with no_view_caches(root):
            as_image: list[QtWidgets.QWidget] = []  # drawn whole as an image, children included
            for widget, origin, visible in paint_order(root):
                if any(parent.isAncestorOf(widget) for parent in as_image):
                    continue
                whole = visible == QtCore.QRect(origin, widget.size())
                painter.save()
                painter.setClipRect(visible)
                if not whole and isinstance(widget.parentWidget(), QtWidgets.QGraphicsView):
                    as_image.append(widget)
                    part = visible.translated(-origin)
                    painter.drawPixmap(visible.topLeft(), widget.grab(part))
                else:
                    QtWidgets.QWidget.render(widget, painter, origin, QtGui.QRegion(),
                                             _ROOT_FLAGS if widget is root else _NO_FLAGS)
                painter.restore()
    finally:
        painter.end()
    buffer.close()
    return bytes(buffer.data())


def _svg_of(widget: QtWidgets.QWidget, is_root: bool) -> str:
    buffer = QtCore.QBuffer()
    buffer.open(QtCore.QIODevice.OpenModeFlag.WriteOnly)
    generator = QtSvg.QSvgGenerator(QtSvg.QSvgGenerator.SvgVersion.Svg11)  # 1.1: clip paths
    generator.setOutputDevice(buffer)
    generator.setSize(widget.size())
    generator.setViewBox(QtCore.QRect(QtCore.QPoint(0, 0), widget.size()))
    generator.setResolution(widget.logicalDpiX())
    painter = _begin(generator)
    try:
        # QWidget.render explicitly: QGraphicsView.render is another function (a scene part).
        QtWidgets.QWidget.render(widget, painter, QtCore.QPoint(), QtGui.QRegion(),
                                 _ROOT_FLAGS if is_root else _NO_FLAGS)
    finally:
        painter.end()
    return bytes(buffer.data()).decode("utf-8")


# ---- cosmetic pens ------------------------------------------------------------------------
# Qt writes a cosmetic pen (every plot line: its width is in screen pixels) as a stroke with
# vector-effect="non-scaling-stroke" inside a group scaled by the plot's data transform.
# Renderers without vector effects (librsvg) scale the stroke with the data: a 2 px line
# drew as a hairline. Such groups get the transform applied to their points instead, so the
# stroke width is in pixels with no vector effect at all.
_GROUP = re.compile(r'<g\b([^>]*?)\stransform="matrix\(([^)]*)\)"([^>]*)>(.*?)</g>', re.S)
_PAIR = re.compile(r"(-?[\d.]+(?:e[-+]?\d+)?),(-?[\d.]+(?:e[-+]?\d+)?)")
_SHAPES = re.compile(r"<(polyline|polygon|path|rect)\b")
_OTHER = re.compile(r"<(?!/?(?:polyline|polygon|path|rect)\b)[a-zA-Z]")
_RECT = re.compile(r'<rect\b([^>]*?)\sx="([^"]+)" y="([^"]+)" width="([^"]+)" height="([^"]+)"([^>]*)/>')
_NON_SCALING = ' vector-effect="non-scaling-stroke"'


def bake_cosmetic_strokes(svg: str) -> str:
    """svg with every group of only polylines and paths drawn in non-scaling strokes given
    its points in pixels (its matrix applied) and no vector effect; others unchanged."""
    return _GROUP.sub(_baked_group, svg)


def _baked_group(match: re.Match) -> str:
    before, matrix, after, inner = match.groups()
    if _NON_SCALING not in inner or _OTHER.search(inner) or not _SHAPES.search(inner):
        return match.group(0)
    a, b, c, d, e, f = (float(v) for v in matrix.split(","))

    def mapped(pair: re.Match) -> str:
        x, y = float(pair.group(1)), float(pair.group(2))
        return f"{a * x + c * y + e:.6g},{b * x + d * y + f:.6g}"

    inner = _RECT.sub(_rect_as_path, inner)  # a rect's corners move apart under a matrix
    inner = re.sub(r'(points|d)="([^"]*)"', lambda m: f'{m.group(1)}="{_PAIR.sub(mapped, m.group(2))}"', inner)
    return f"<g{before}{after}>{inner.replace(_NON_SCALING, '')}</g>"


def _rect_as_path(m: re.Match) -> str:
    x, y, w, h = (float(v) for v in m.group(2, 3, 4, 5))
    return f'<path{m.group(1)} d="M{x:g},{y:g} L{x + w:g},{y:g} L{x + w:g},{y + h:g} L{x:g},{y + h:g} Z"{m.group(6)}/>'


def _prefixed(prefix: str, text: str) -> str:
    """Fragment-local ids made unique in the whole document."""
    text = re.sub(r'\bid="([^"]+)"', rf'id="{prefix}\1"', text)
    text = re.sub(r"url\(#([^)]+)\)", rf"url(#{prefix}\1)", text)
    return re.sub(r'href="#([^"]+)"', rf'href="#{prefix}\1"', text)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _begin(device: QtGui.QPaintDevice) -> QtGui.QPainter:
    painter = QtGui.QPainter()
    if not painter.begin(device):
        raise OSError("Qt could not start the vector painter")
    return painter


@contextlib.contextmanager
def no_view_caches(widget: QtWidgets.QWidget):
    """Graphics views cache their background as a pixmap, which would land in a vector file
    as an embedded image: off while rendering."""
    views = [widget] if isinstance(widget, QtWidgets.QGraphicsView) else []
    views += widget.findChildren(QtWidgets.QGraphicsView)
    modes = [view.cacheMode() for view in views]
    for view in views:
        view.setCacheMode(QtWidgets.QGraphicsView.CacheModeFlag.CacheNone)
    try:
        yield
    finally:
        for view, mode in zip(views, modes):
            view.setCacheMode(mode)
