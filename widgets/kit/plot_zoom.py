"""Zoom and theme for plots already built: walks every pyqtgraph view inside a widget and
sets its fonts, pen widths and marker sizes to the zoom, and its colours to the theme.

Generic on purpose (no panel is edited for it): each item's sizes at zoom 1 are remembered
on the item the first time it is seen, so applying any zoom any number of times is exact.
An item that draws itself can take part by defining apply_zoom(factor).
"""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtGui, QtWidgets

from widgets.kit.theme import COLORS, MEANINGS, THEMES

TICK_POINTS = 9.0      # axis tick labels at zoom 1
LABEL_POINTS = 9.75    # axis labels, legends, titles at zoom 1
_BASE = "_lab_zoom_base"  # attribute holding an item's sizes at zoom 1


def views(widget: QtWidgets.QWidget) -> list[pg.GraphicsView]:
    found = widget.findChildren(pg.GraphicsView)
    return ([widget] if isinstance(widget, pg.GraphicsView) else []) + list(found)


def scale_plots(widget: QtWidgets.QWidget, factor: float) -> None:
    for view in views(widget):
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            _scale_item(item, factor)


def _base(item, read) -> dict:
    base = getattr(item, _BASE, None)
    if base is None:
        base = read()
        setattr(item, _BASE, base)
    return base


def _font(points: float) -> QtGui.QFont:
    font = QtGui.QFont()
    font.setPointSizeF(points)
    return font


def _pen_width(pen) -> float:
    if pen is None:
        return 0.0
    width = pg.mkPen(pen).widthF()
    return width if width > 0 else 1.0  # width 0 is a cosmetic one-pixel pen


def _widened(pen, width: float) -> QtGui.QPen | None:
    if pen is None:
        return None
    out = QtGui.QPen(pg.mkPen(pen))
    if out.style() != pg.QtCore.Qt.PenStyle.NoPen:
        out.setWidthF(width)
    return out


def _scale_item(item, z: float) -> None:
    if hasattr(item, "apply_zoom"):
        item.apply_zoom(z)
    elif isinstance(item, pg.AxisItem):
        _scale_axis(item, z)
    elif isinstance(item, pg.LegendItem):
        _scale_legend(item, z)
    elif isinstance(item, pg.PlotItem):
        _scale_title(item, z)
    elif isinstance(item, pg.PlotDataItem):
        _scale_data_item(item, z)
    elif isinstance(item, (pg.PlotCurveItem, pg.ScatterPlotItem)):
        if not isinstance(item.parentItem(), pg.PlotDataItem):  # a PlotDataItem scales its own
            _scale_curve_or_scatter(item, z)
    elif isinstance(item, pg.InfiniteLine):
        base = _base(item, lambda: {"width": _pen_width(item.pen)})
        item.setPen(_widened(item.pen, base["width"] * z))
    elif isinstance(item, pg.TextItem):
        base = _base(item, lambda: {"points": item.textItem.font().pointSizeF()})
        if base["points"] > 0:
            font = item.textItem.font()
            font.setPointSizeF(base["points"] * z)
            item.setFont(font)
    elif isinstance(item, pg.BarGraphItem):
        base = _base(item, lambda: {"width": _pen_width(item.opts.get("pen"))})
        if item.opts.get("pen") is not None:
            item.setOpts(pen=_widened(item.opts["pen"], base["width"] * z))


def _scale_axis(axis: pg.AxisItem, z: float) -> None:
    base = _base(axis, lambda: {
        "tick": (axis.style["tickFont"].pointSizeF() if axis.style["tickFont"] else TICK_POINTS),
        "label": LABEL_POINTS,
        "offset": list(axis.style["tickTextOffset"]),
        "length": axis.style["tickLength"],
        "height": axis.style["tickTextHeight"],  # used when the axis does not measure its ticks
    })
    axis.style["tickTextOffset"] = [round(v * z) for v in base["offset"]]
    axis.style["tickTextHeight"] = round(base["height"] * z)
    axis.setStyle(tickFont=_font(base["tick"] * z), tickLength=int(round(base["length"] * z)))
    axis.label.setFont(_font(base["label"] * z))
    axis._updateLabel()  # re-measures the label and the space the axis reserves


def _scale_legend(legend: pg.LegendItem, z: float) -> None:
    def read():
        size = str(legend.opts.get("labelTextSize") or "9pt")
        return {"points": float(size[:-2]) if size.endswith("pt") else 9.0}

    base = _base(legend, read)
    legend.setLabelTextSize(f"{base['points'] * z:.2f}pt")
    for sample, label in legend.items:
        label.setText(label.text)
        sample.setScale(z)
        sample.setFixedWidth(20 * z)
        sample.setFixedHeight(20 * z)
    legend.updateSize()


def _scale_title(plot: pg.PlotItem, z: float) -> None:
    label = plot.titleLabel
    if not label.isVisible() or not label.text:
        return
    base = _base(label, lambda: {"points": _points(label.opts.get("size"), 11.0)})
    label.setText(label.text, size=f"{base['points'] * z:.2f}pt")


def _points(size, default: float) -> float:
    text = str(size or "")
    return float(text[:-2]) if text.endswith("pt") else default


def _scale_data_item(item: pg.PlotDataItem, z: float) -> None:
    opts = item.opts
    base = _base(item, lambda: {"pen": _pen_width(opts.get("pen")),
                                "symbol_size": opts.get("symbolSize") or 0,
                                "symbol_pen": _pen_width(opts.get("symbolPen"))})
    if opts.get("pen") is not None:
        item.setPen(_widened(opts["pen"], base["pen"] * z))
    if opts.get("symbol") is not None and base["symbol_size"]:
        item.setSymbolSize(base["symbol_size"] * z)
        if opts.get("symbolPen") is not None:
            item.setSymbolPen(_widened(opts["symbolPen"], base["symbol_pen"] * z))


def _scale_curve_or_scatter(item, z: float) -> None:
    if isinstance(item, pg.PlotCurveItem):
        base = _base(item, lambda: {"pen": _pen_width(item.opts.get("pen"))})
        item.setPen(_widened(item.opts["pen"], base["pen"] * z))
        return
    sizes = item.data["size"]
    base = _base(item, lambda: {"size": item.opts["size"], "sizes": sizes.copy()})
    if len(base["sizes"]) == len(sizes):
        scaled = base["sizes"].astype(float)
        scaled[scaled >= 0] *= z
        item.setSize(scaled)
    item.opts["size"] = base["size"] * z


# ---- theme ------------------------------------------------------------------------------
PLOT_KEYS = tuple(MEANINGS) + ("ink", "muted", "grid", "paper")


def colour_map(old: str, new: str) -> dict[int, QtGui.QColor]:
    """rgb of each plot colour in theme old -> the same meaning's colour in theme new."""
    return {QtGui.QColor(THEMES[old][key]).rgb(): QtGui.QColor(THEMES[new][key]) for key in PLOT_KEYS}


def _mapped(c: QtGui.QColor, mapping) -> QtGui.QColor | None:
    target = mapping.get(c.rgb())
    if target is None:
        return None
    out = QtGui.QColor(target)
    out.setAlpha(c.alpha())
    return out


def _recolored(value, mapping, make, kind):
    """A copy of pen or brush value in its meaning's new colour (None: not a theme colour)."""
    if value is None:
        return None
    out = kind(make(value))
    target = _mapped(out.color(), mapping)
    if target is None:
        return None
    out.setColor(target)
    return out


def _recolored_pen(pen, mapping):
    return _recolored(pen, mapping, pg.mkPen, QtGui.QPen)


def _recolored_brush(brush, mapping):
    return _recolored(brush, mapping, pg.mkBrush, QtGui.QBrush)


def recolor_plots(widget: QtWidgets.QWidget, old: str, new: str) -> None:
    """Give every plot inside widget theme new's paper, ink and meaning colours."""
    mapping = colour_map(old, new)
    for view in views(widget):
        view.setBackground(COLORS["paper"])
        scene = view.scene()
        if scene is None:
            continue
        for item in scene.items():
            _recolor_item(item, mapping)


def _recolor_item(item, mapping) -> None:  # noqa: C901 - one branch per kind of pyqtgraph item
    if hasattr(item, "apply_theme"):
        item.apply_theme(mapping)
    elif isinstance(item, pg.AxisItem):
        item.setPen(pg.mkPen(COLORS["ink"]))
        item.setTextPen(pg.mkPen(COLORS["ink"]))
        item._updateLabel()
    elif isinstance(item, pg.LegendItem):
        if item.opts.get("brush") is not None:  # a legend's box is the plot's paper, see-through as before
            paper = QtGui.QColor(COLORS["paper"])
            paper.setAlpha(pg.mkBrush(item.opts["brush"]).color().alpha())
            item.setBrush(pg.mkBrush(paper))
        item.setLabelTextColor(COLORS["ink"])
    elif isinstance(item, pg.PlotItem):
        if item.titleLabel.text:
            item.titleLabel.setText(item.titleLabel.text, color=COLORS["ink"])
    elif isinstance(item, pg.PlotDataItem):
        for key, setter, make in (("pen", item.setPen, _recolored_pen), ("shadowPen", item.setShadowPen, _recolored_pen),
                                  ("fillBrush", item.setFillBrush, _recolored_brush),
                                  ("symbolPen", item.setSymbolPen, _recolored_pen),
                                  ("symbolBrush", item.setSymbolBrush, _recolored_brush)):
            value = make(item.opts.get(key), mapping) if not isinstance(item.opts.get(key), (list, tuple)) else None
            if value is not None:
                setter(value)
    elif isinstance(item, pg.PlotCurveItem) and not isinstance(item.parentItem(), pg.PlotDataItem):
        for key, setter, make in (("pen", item.setPen, _recolored_pen), ("brush", item.setBrush, _recolored_brush)):
            value = make(item.opts.get(key), mapping)
            if value is not None:
                setter(value)
    elif isinstance(item, pg.InfiniteLine):
        value = _recolored_pen(item.pen, mapping)
        if value is not None:
            item.setPen(value)
    elif isinstance(item, pg.LinearRegionItem):  # a veil in the paper's colour (the future of a ▶)
        value = _recolored_brush(item.brush, mapping)
        if value is not None:
            item.setBrush(value)
    elif isinstance(item, pg.TextItem):
        value = _mapped(pg.mkColor(item.color), mapping)
        if value is not None:
            item.setColor(value)
    elif isinstance(item, pg.BarGraphItem):
        opts = {}
        for key, make in (("pen", _recolored_pen), ("brush", _recolored_brush)):
            value = make(item.opts.get(key), mapping)
            if value is not None:
                opts[key] = value
        brushes = item.opts.get("brushes")
        if brushes is not None:
            opts["brushes"] = [_recolored_brush(b, mapping) or b for b in brushes]
        if opts:
            item.setOpts(**opts)
