"""Pieces every panel page shares: a scrolling page with a title, headers with a colour
legend, captions, columns of cards, and text labels placed inside plots."""
from __future__ import annotations

import pyqtgraph as pg
import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets

from typing import Iterable

from widgets.theme import COLORS, color, pen, span


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


def two_column_grid(cells: list[QtWidgets.QWidget]) -> "ReflowLayout":
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


class _FontSized(QtCore.QObject):
    """Runs size(widget) now and whenever the widget's font or style changes (the zoom):
    a size computed once in pixels would not follow."""

    def __init__(self, widget: QtWidgets.QWidget, size):
        super().__init__(widget)
        self._size = size
        widget.installEventFilter(self)
        size(widget)

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange,
                            QtCore.QEvent.Type.Polish):
            self._size(watched)
        return False


def follow_font(widget: QtWidgets.QWidget, size) -> QtWidgets.QWidget:
    """Call size(widget) now and whenever its font changes (the zoom). Returns widget."""
    _FontSized(widget, size)
    return widget


class _ViewCap(QtCore.QObject):
    def __init__(self, widget: QtWidgets.QWidget, view: QtWidgets.QWidget, margin: int):
        super().__init__(widget)
        self._widget, self._margin = widget, margin
        view.installEventFilter(self)
        self._cap(view)

    def _cap(self, view: QtWidgets.QWidget) -> None:
        if shiboken6.isValid(self._widget):
            least = max(self._widget.minimumHeight(), self._widget.minimumSizeHint().height())
            self._widget.setMaximumHeight(max(least, view.height() - self._margin))

    def eventFilter(self, watched, event):  # noqa: N802
        if event.type() == QtCore.QEvent.Type.Resize:
            self._cap(watched)
        return False


def cap_to_view(widget: QtWidgets.QWidget, view: QtWidgets.QWidget, margin: int = 16) -> QtWidgets.QWidget:
    """widget never taller than view (a scroll area's viewport) less margin, nor shorter
    than its minimum: a figure that plays fits the screen it is shown on, whatever the
    window's height, and the page scrolls for the rest."""
    _ViewCap(widget, view, margin)
    return widget


def min_chars(widget: QtWidgets.QWidget, chars: float) -> QtWidgets.QWidget:
    """widget at least `chars` average characters wide at its font, whatever the zoom."""
    _FontSized(widget, lambda w: w.setMinimumWidth(int(w.fontMetrics().averageCharWidth() * chars)))
    return widget


def fixed_lines(widget: QtWidgets.QWidget, lines: float, extra: int = 4) -> QtWidgets.QWidget:
    """widget exactly `lines` text lines tall at its font, whatever the zoom (a status
    line whose new text must not re-lay out the page)."""
    _FontSized(widget, lambda w: w.setFixedHeight(int(lines * w.fontMetrics().lineSpacing()) + extra))
    return widget


def fixed_text_width(widget: QtWidgets.QWidget, sample: str, extra: int = 12) -> QtWidgets.QWidget:
    """widget exactly as wide as `sample` at its font, whatever the zoom (a time readout
    that changes every frame must not re-lay out the page)."""
    _FontSized(widget, lambda w: w.setFixedWidth(w.fontMetrics().horizontalAdvance(sample) + extra))
    return widget


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
        self._steps = list(sections)
        self._then = then
        self._cells: list[QtWidgets.QWidget] = []
        self.done = self.stopped = False
        if QtCore.QThread.currentThread().loopLevel() == 0:
            self.finish()
        else:
            QtCore.QTimer.singleShot(1, self._next)

    def finish(self) -> None:
        """Build what is left now, in one go."""
        while self._steps and not self.stopped:
            self._cells.append(self._steps.pop(0)())
        self._place()

    def stop(self) -> None:
        """The panel is closing: build nothing more."""
        self.stopped = True

    def _next(self) -> None:
        if self.stopped or self.done or not shiboken6.isValid(self):
            return
        if self._steps:
            self._cells.append(self._steps.pop(0)())
            QtCore.QTimer.singleShot(1, self._next)
        else:
            self._place()

    def _place(self) -> None:
        if self.done or self.stopped:
            return
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


# A page column narrower than this many line heights stacks the page's cells in one column
# (about 480 px at the default font: two columns fit a 1280-pixel window at zoom 1).
PAGE_COLUMN_EM = 27


class ReflowLayout(QtWidgets.QLayout):
    """Cells in up to `columns` columns, left to right then down, like a grid. When the
    width cannot give every column `min_column_em` line heights (so the zoom moves the
    threshold) and every cell its minimum width, it uses fewer columns, down to one. Its
    minimum width is the widest cell's, never the sum: a narrow window stacks the cells
    rather than growing or scrolling sideways. A row is as tall as its tallest cell at
    that width (height for width); every cell of the row gets that height.

    stretch: the columns' relative widths when all `columns` are used (equal when fewer).
    natural: columns as wide as their widest cell wants (sizeHint), the spare width to
    column `grow`; fewer columns when those do not fit (a header, a row of legend chips).
    The growing column needs its cells' natural width too, or, with min_column_em, only
    that many line heights (a plot column beside fixed controls).
    fill: every cell of a row as tall as the row (False: each its own height, at the top).
    stacked_first: in one column, this cell goes first (a figure above its controls).
    hfw=False: report no height-for-width; the minimum and preferred heights are the ones
    at the width last laid out. A box layout holds an item with height-for-width rigidly at
    that height, so a plot card with a wrapping header would no longer give way to its
    neighbours (its plot can shrink; its header cannot).
    addWidget(w, row, column) places cells by grid position (the order of (row, column)).
    """

    def __init__(self, parent: QtWidgets.QWidget | None = None, columns: int = 2, min_column_em: float = 0,
                 stretch: tuple[int, ...] | None = None, spacing: int = 12, natural: bool = False,
                 grow: int = 0, fill: bool = True, stacked_first: int | None = None, hfw: bool = True):
        super().__init__(parent)
        self._hfw = hfw
        self._stacked_first = stacked_first
        self._min_height: int | None = None  # at the width last laid out (see setGeometry)
        self._natural, self._grow, self._fill = natural, grow, fill
        self._items: list[tuple[tuple, QtWidgets.QLayoutItem]] = []
        self._columns = max(1, columns)
        self._min_column_em = min_column_em
        self._stretch = tuple(stretch) if stretch else (1,) * self._columns
        self._cache: dict[int, int] = {}
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    # ---- QLayout ------------------------------------------------------------------
    def addItem(self, item: QtWidgets.QLayoutItem) -> None:  # noqa: N802
        self._items.append(((len(self._items),), item))
        self.invalidate()

    def addWidget(self, widget: QtWidgets.QWidget, row: int | None = None, column: int | None = None) -> None:  # noqa: N802
        """Append widget; with row and column, place it at that grid position instead."""
        self.addChildWidget(widget)
        key = (len(self._items),) if row is None else (row, column or 0)
        self._items.append((key, QtWidgets.QWidgetItem(widget)))
        self._items.sort(key=lambda pair: (len(pair[0]), pair[0]))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):  # noqa: N802
        return self._items[index][1] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):  # noqa: N802
        if 0 <= index < len(self._items):
            item = self._items.pop(index)[1]
            self.invalidate()
            return item
        return None

    def invalidate(self) -> None:
        self._cache = {}
        super().invalidate()

    def expandingDirections(self):  # noqa: N802
        return QtCore.Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:  # noqa: N802
        return self._hfw

    def heightForWidth(self, width: int) -> int:  # noqa: N802
        if width not in self._cache:
            self._cache[width] = self._arrange(QtCore.QRect(0, 0, width, 0), place=False)
        return self._cache[width]

    def minimumSize(self) -> QtCore.QSize:  # noqa: N802
        cells = self._cells()
        m = self.contentsMargins()
        width = max((item.minimumSize().width() for item in cells), default=0)
        if self._min_height is not None:
            return QtCore.QSize(width + m.left() + m.right(), self._min_height)
        height = max((item.minimumSize().height() for item in cells), default=0)
        return QtCore.QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    def sizeHint(self) -> QtCore.QSize:  # noqa: N802
        cells = self._cells()
        m = self.contentsMargins()
        columns = min(self._columns, max(len(cells), 1))
        if self._natural:
            width = sum(max((_natural_width(c) for c in cells[j::columns]), default=0) for j in range(columns))
        else:
            width = max((item.sizeHint().width() for item in cells), default=0) * columns
        width += self.spacing() * (columns - 1)
        width = max(width + m.left() + m.right(), self.minimumSize().width())
        laid_out = self.geometry().width()
        return QtCore.QSize(width, self.heightForWidth(laid_out if not self._hfw and laid_out > 0 else width))

    def setGeometry(self, rect: QtCore.QRect) -> None:  # noqa: N802
        super().setGeometry(rect)
        self._arrange(rect, place=True)
        # The minimum height is the one of the arrangement at this width (stacked cells
        # need their sum): a parent that has less room must not squash a cell below it.
        least = self._arrange(rect, place=False, least=True)
        if least != self._min_height:
            self._min_height = least
            QtCore.QTimer.singleShot(0, self._minimum_changed)

    def _minimum_changed(self) -> None:
        if not shiboken6.isValid(self):
            return
        self.invalidate()  # the layouts around this one measure again
        widget = self.parentWidget()
        if widget is not None and shiboken6.isValid(widget):
            widget.updateGeometry()

    # ---- arrangement --------------------------------------------------------------
    def _cells(self) -> list[QtWidgets.QLayoutItem]:
        return [item for _, item in self._items if not item.isEmpty()]

    def _em(self) -> int:
        widget = self.parentWidget()
        return widget.fontMetrics().height() if widget is not None else 16

    def _widths(self, inner: int, columns: int) -> list[int]:
        free = max(inner - self.spacing() * (columns - 1), 0)
        if self._natural:
            cells = self._cells()
            widths = [max((_natural_width(c) for c in cells[j::columns]), default=0) for j in range(columns)]
            widths[self._grow % columns] += free - sum(widths)
            return widths
        weights = self._stretch if columns == self._columns else (1,) * columns
        total = sum(weights[:columns])
        return [free * w // total for w in weights[:columns]]

    def columns_for(self, width: int) -> int:
        """How many columns a layout this wide (margins included) uses now."""
        cells = self._cells()
        m = self.contentsMargins()
        inner = width - m.left() - m.right()
        floor = self._min_column_em * self._em()
        for n in range(min(self._columns, max(len(cells), 1)), 1, -1):
            widths = self._widths(inner, n)
            if self._natural:
                grow = self._grow % n
                wanted = floor or max(_natural_width(c) for c in cells[grow::n])
                if widths[grow] < wanted:
                    continue  # the growing column would get less than it wants
            elif min(widths) < floor:
                continue
            if all(cell.minimumSize().width() <= widths[i % n] for i, cell in enumerate(cells)):
                return n
        return 1

    def _arrange(self, rect: QtCore.QRect, place: bool, least: bool = False) -> int:
        """Lay the cells out in rect (place=True) or only measure; returns the height (the
        least height the cells can have at this width with least=True)."""
        cells = self._cells()
        m = self.contentsMargins()
        n = self.columns_for(rect.width())
        widths = self._widths(rect.width() - m.left() - m.right(), n)
        if n == 1 and self._stacked_first is not None and self._stacked_first < len(cells):
            cells.insert(0, cells.pop(self._stacked_first))
        y = rect.y() + m.top()
        for start in range(0, len(cells), n):
            row = cells[start:start + n]
            heights = [_height_at(cell, widths[i], least) for i, cell in enumerate(row)]
            height = max(heights)
            x = rect.x() + m.left()
            for i, cell in enumerate(row):
                if place:  # at the top of the row (a cell capped below the row's height is not centred)
                    tall = min(height, cell.maximumSize().height()) if self._fill else heights[i]
                    cell.setGeometry(QtCore.QRect(x, y, widths[i], tall))
                x += widths[i] + self.spacing()
            y += height + self.spacing()
        if cells:
            y -= self.spacing()
        return y - rect.y() + m.bottom()


def _natural_width(item: QtWidgets.QLayoutItem) -> int:
    """The width item wants: a word-wrapped label's whole line (its sizeHint guesses a
    wrap), any other item's sizeHint."""
    label = item.widget()
    if not (isinstance(label, QtWidgets.QLabel) and label.wordWrap()):
        return item.sizeHint().width()
    key = (label.text(), label.font().key())
    if key not in _LINE_WIDTHS:
        if QtGui.Qt.mightBeRichText(label.text()):
            doc = QtGui.QTextDocument()
            doc.setDefaultFont(label.font())
            doc.setDocumentMargin(0)
            doc.setHtml(label.text())
            width = doc.idealWidth()
        else:
            width = label.fontMetrics().horizontalAdvance(label.text())
        if len(_LINE_WIDTHS) > 2000:
            _LINE_WIDTHS.clear()
        _LINE_WIDTHS[key] = int(width) + 2
    m = label.contentsMargins()
    return _LINE_WIDTHS[key] + m.left() + m.right() + 2 * label.margin()


_LINE_WIDTHS: dict[tuple[str, str], int] = {}  # (text, font) -> one line's width: layouts ask often


def _height_at(item: QtWidgets.QLayoutItem, width: int, least: bool = False) -> int:
    """item's preferred (least=True: smallest) height at this width, within its minimum
    and maximum. Text that wraps needs its height for width either way."""
    if item.hasHeightForWidth():
        height = item.heightForWidth(width)
    else:
        height = item.minimumSize().height() if least else item.sizeHint().height()
    return max(min(height, item.maximumSize().height()), item.minimumSize().height())


class Reflow(QtWidgets.QWidget):
    """A widget holding a ReflowLayout (for a row of a page: side by side when wide,
    stacked when narrow). Same arguments as ReflowLayout, then the cells."""

    def __init__(self, *cells: QtWidgets.QWidget, parent=None, **options):
        super().__init__(parent)
        self.grid = ReflowLayout(self, **options)
        for cell in cells:
            self.grid.addWidget(cell)
