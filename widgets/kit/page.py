"""Pieces every panel page shares: a scrolling page with a title, headers with a colour
legend, captions, columns of cards, and text labels placed inside plots."""
from __future__ import annotations

from collections.abc import Iterable

import pyqtgraph as pg
from PySide6 import QtCore, QtWidgets

from widgets.kit.reflow import (  # noqa: F401 - the kit's layout, importable from the kit too
    PAGE_COLUMN_EM,
    Reflow,
    ReflowLayout,
    cap_to_view,
    fit_content_width,
    fixed_lines,
    fixed_text_width,
    follow_font,
    min_chars,
)
from widgets.kit.theme import COLORS, color, pen, span
from widgets.kit.turns import InTurns


def scroll_page(owner: QtWidgets.QWidget, title: str) -> QtWidgets.QVBoxLayout:
    """Fill owner with a scroll area holding a titled page; returns the page's layout."""
    outer = QtWidgets.QVBoxLayout(owner)
    outer.setContentsMargins(0, 0, 0, 0)
    scroll, layout = scroll_layout()
    outer.addWidget(scroll)
    if title:
        label = QtWidgets.QLabel(title)
        label.setProperty("role", "title")
        layout.addWidget(label)
    return layout


def two_column_grid(cells: list[QtWidgets.QWidget]) -> ReflowLayout:
    """Cells left to right, two to a row, both columns equally wide; one column when the
    page is too narrow for two (see ReflowLayout)."""
    grid = ReflowLayout(columns=2, min_column_em=PAGE_COLUMN_EM)
    for cell in cells:
        grid.addWidget(cell)
    return grid


def scroll_area(widget: QtWidgets.QWidget) -> QtWidgets.QScrollArea:
    """widget in a resizable scroll area, on the page background (e.g. one tab's page)."""
    area = QtWidgets.QScrollArea()
    area.setWidgetResizable(True)
    # Pages scroll down, never sideways: their grids reflow to the width instead.
    area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    widget.setObjectName("page")
    area.setWidget(widget)
    return area


def scroll_layout(margins: tuple[int, int, int, int] = (16, 12, 16, 16),
                  spacing: int = 12) -> tuple[QtWidgets.QScrollArea, QtWidgets.QVBoxLayout]:
    """A new scrolling page not placed anywhere yet (a tab): the area and the page's layout."""
    page = QtWidgets.QWidget()
    area = scroll_area(page)
    layout = QtWidgets.QVBoxLayout(page)
    layout.setContentsMargins(*margins)
    layout.setSpacing(spacing)
    return area, layout


def title_label(text: str) -> QtWidgets.QLabel:
    """A page title."""
    label = QtWidgets.QLabel(text)
    label.setProperty("role", "title")
    label.setWordWrap(True)  # a narrow or zoomed page wraps the title rather than widen
    return label


def caption(text: str = "", wrap: bool = True, name: str | None = None) -> QtWidgets.QLabel:
    """A small grey explanatory line (role "caption"), word-wrapped unless told otherwise."""
    label = QtWidgets.QLabel(text)
    label.setProperty("role", "caption")
    label.setWordWrap(wrap)
    if name:
        label.setObjectName(name)
    return label


def legend_chips(items: Iterable[tuple], glyph: str = "■") -> list[QtWidgets.QLabel]:
    """One caption per (kind, text) or (kind, text, glyph): the glyph in the theme colour of
    kind, then the text. The colour key of a page's figures."""
    chips = []
    for kind, text, *own in items:
        chips.append(caption(f"{span(kind, own[0] if own else glyph)} {text}", wrap=False))
    return chips


def page_header(title: str, legend: Iterable[tuple] = (), lead: str = "", glyph: str = "■") -> QtWidgets.QWidget:
    """A page's title with its colour legend on the right (under it when the page is too
    narrow for both; the chips wrap too) and an optional lead caption below."""
    box = QtWidgets.QWidget()
    col = QtWidgets.QVBoxLayout(box)
    col.setContentsMargins(0, 0, 0, 0)
    col.setSpacing(2)
    chips = legend_chips(legend, glyph)
    if chips:
        col.addWidget(Reflow(title_label(title), Reflow(*chips, columns=len(chips), natural=True, grow=-1, spacing=8),
                             natural=True, spacing=16))
    else:
        col.addWidget(title_label(title))
    if lead:
        col.addWidget(caption(lead))
    return box


def column(*widgets: QtWidgets.QWidget, stretch_last: bool = True, stretch: int | None = None) -> QtWidgets.QWidget:
    """Widgets stacked vertically with no margins; the last one (or the one at index stretch)
    takes the spare height."""
    box = QtWidgets.QWidget()
    col = QtWidgets.QVBoxLayout(box)
    col.setContentsMargins(0, 0, 0, 0)
    col.setSpacing(6)
    for w in widgets:
        col.addWidget(w)
    if stretch is not None:
        col.setStretch(stretch, 1)
    elif stretch_last and widgets:
        col.setStretch(len(widgets) - 1, 1)
    return box


def compact_plot(card, height: int = 200, live: bool = False):
    """A PlotCard with a smaller plot; live=True drops the grid, the costliest thing to
    repaint in a ▶ frame. Returns the card."""
    card.plot_widget.setMinimumHeight(height)
    if live:
        card.plot.showGrid(x=False, y=False)
    return card


def narrow_headers(card: QtWidgets.QWidget) -> QtWidgets.QWidget:
    """Let a card's one-line header labels (ref, tag, caption) shrink, clipped, rather than
    widen the card in a narrow column; the full text stays in the tooltip. A card's output
    labels (card.outputs) are left alone. Returns the card."""
    outputs = getattr(card, "outputs", None)
    for label in card.findChildren(QtWidgets.QLabel):
        if outputs is not None and outputs.isAncestorOf(label):
            continue
        if label.property("role") in ("ref", "tag", "caption"):
            label.setMinimumWidth(1)
            if not label.toolTip():
                label.setToolTip(label.text())
    return card


def plot_text(anchor=(0, 0.5), kind: str = "ink", size: int = 10, text: str = "") -> pg.TextItem:
    """A text label for inside a plot, in the theme's colours."""
    item = pg.TextItem(text, color=color(kind), anchor=anchor)
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


class StagedGrid(QtCore.QObject):
    """A panel's two-column grid of sections, built one section per event-loop turn into a
    grid that is not on screen yet (no layout or paint while it grows), then put on the page
    whole, so a first visit never holds the window for the whole build. With no event loop
    running (tests, `lab snapshot`, scripts) it is all built at once.

    sections: functions that each build and return one cell; then: called once every
    section exists (bind the panel to its state, draw), before the grid goes on screen.
    """

    built = QtCore.Signal()

    def __init__(self, owner: QtWidgets.QWidget, layout: QtWidgets.QBoxLayout,
                 sections: list, then=None):
        super().__init__(owner)
        self._layout, self._index = layout, layout.count()
        self._then = then
        self._cells: list[QtWidgets.QWidget] = []
        self.done = False
        self._turns = InTurns(self, [lambda s=s: self._cells.append(s()) for s in sections], then=self._place)

    @property
    def stopped(self) -> bool:
        return self._turns.stopped

    def finish(self) -> None:
        """Build what is left now, in one go."""
        self._turns.finish()

    def stop(self) -> None:
        """The panel is closing: build nothing more."""
        self._turns.stop()

    def _place(self) -> None:  # (InTurns calls it once, and never after stop())
        self.done = True
        if self._then is not None:
            self._then()
        view = self._layout.parentWidget().parentWidget()  # the scroll area's viewport, if any
        if isinstance(view, QtWidgets.QWidget) and isinstance(view.parentWidget(), QtWidgets.QAbstractScrollArea):
            for cell in self._cells:
                cap_to_view(cell, view)  # a section (its card and figure) fits the screen when it can
        holder = QtWidgets.QWidget()
        grid = two_column_grid(self._cells)
        grid.setContentsMargins(0, 0, 0, 0)  # aligned with the page's header, as a bare layout was
        holder.setLayout(grid)
        self._layout.insertWidget(self._index, holder)
        self.built.emit()

