"""Pieces every panel page shares: a scrolling page with a title, columns of cards, and
text labels placed inside plots."""
from __future__ import annotations

import pyqtgraph as pg
from PySide6 import QtWidgets

from widgets.theme import COLORS, color, pen


def scroll_page(owner: QtWidgets.QWidget, title: str) -> QtWidgets.QVBoxLayout:
    """Fill owner with a scroll area holding a titled page; returns the page's layout."""
    outer = QtWidgets.QVBoxLayout(owner)
    outer.setContentsMargins(0, 0, 0, 0)
    scroll = QtWidgets.QScrollArea()
    scroll.setWidgetResizable(True)
    outer.addWidget(scroll)
    page = QtWidgets.QWidget()
    page.setObjectName("page")
    scroll.setWidget(page)
    layout = QtWidgets.QVBoxLayout(page)
    layout.setContentsMargins(16, 12, 16, 16)
    layout.setSpacing(12)
    if title:
        label = QtWidgets.QLabel(title)
        label.setProperty("role", "title")
        layout.addWidget(label)
    return layout


def two_column_grid(cells: list[QtWidgets.QWidget]) -> QtWidgets.QGridLayout:
    """Cells laid out left to right, two to a row, both columns equally wide."""
    grid = QtWidgets.QGridLayout()
    grid.setHorizontalSpacing(12)
    grid.setVerticalSpacing(12)
    for i, cell in enumerate(cells):
        grid.addWidget(cell, i // 2, i % 2)
    grid.setColumnStretch(0, 1)
    grid.setColumnStretch(1, 1)
    return grid


def column(*widgets: QtWidgets.QWidget, stretch_last: bool = True) -> QtWidgets.QWidget:
    """Widgets stacked vertically with no margins; the last one takes the spare height."""
    box = QtWidgets.QWidget()
    col = QtWidgets.QVBoxLayout(box)
    col.setContentsMargins(0, 0, 0, 0)
    col.setSpacing(6)
    for w in widgets:
        col.addWidget(w)
    if stretch_last and widgets:
        col.setStretch(len(widgets) - 1, 1)
    return box


def plot_text(anchor=(0, 0.5), kind: str = "ink", size: int = 10) -> pg.TextItem:
    """A text label for inside a plot, in the theme's colours."""
    item = pg.TextItem("", color=color(kind), anchor=anchor)
    font = item.textItem.font()
    font.setPointSize(size)
    item.setFont(font)
    return item


def marker_line(plot: pg.PlotItem, kind: str, vertical: bool = True, label: str | None = None,
                position: float = 0.9, width: float = 1.5, **label_opts) -> pg.InfiniteLine:
    """A dashed reference line in the theme's colour, labelled in the same colour, added to plot."""
    opts = {"position": position, "color": COLORS.get(kind, kind), **label_opts}
    line = pg.InfiniteLine(angle=90 if vertical else 0, pen=pen(kind, width, dashed=True), label=label,
                           labelOpts=opts if label else None)
    plot.addItem(line)
    return line
