"""The kit's layout that reflows: ReflowLayout (cells in columns that become one column
when the page is too narrow, so nothing scrolls sideways and no minimum grows the window),
Reflow (a widget holding one), and sizes in font units that follow the zoom (min_chars,
fixed_lines, fixed_text_width, follow_font, cap_to_view, fit_content_width).
widgets.kit.page re-exports all of it."""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtGui, QtWidgets


class _FontSized(QtCore.QObject):
    """Runs size(widget) now and whenever the widget's font or style changes (the zoom):
    a size computed once in pixels would not follow."""

    def __init__(self, widget: QtWidgets.QWidget, size):
        super().__init__(widget)
        self._size = size
        widget.installEventFilter(self)
        size(widget)

    def eventFilter(self, watched, event):
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
        self._widget, self._view, self._margin = widget, view, margin
        view.installEventFilter(self)
        # Its minimum can grow after the cap was set (a card's results arrive from a job):
        # the cap must never stay below it, or the layout squeezes the section's card.
        widget.installEventFilter(self)
        self._cap()

    def _cap(self) -> None:
        if shiboken6.isValid(self._widget) and shiboken6.isValid(self._view):
            least = max(self._widget.minimumHeight(), self._widget.minimumSizeHint().height())
            self._widget.setMaximumHeight(max(least, self._view.height() - self._margin))

    def eventFilter(self, watched, event):
        kind = event.type()
        if (watched is self._view and kind == QtCore.QEvent.Type.Resize) or (
                watched is self._widget and kind == QtCore.QEvent.Type.LayoutRequest):
            self._cap()
        return False


def cap_to_view(widget: QtWidgets.QWidget, view: QtWidgets.QWidget, margin: int = 16) -> QtWidgets.QWidget:
    """widget never taller than view (a scroll area's viewport) less margin, nor shorter
    than its minimum: a figure that plays fits the screen it is shown on, whatever the
    window's height, and the page scrolls for the rest."""
    _ViewCap(widget, view, margin)
    return widget


class _ContentWidth(QtCore.QObject):
    def __init__(self, area: QtWidgets.QScrollArea):
        super().__init__(area)
        self._area = area
        area.widget().installEventFilter(self)
        self._fit()

    def _fit(self) -> None:
        area = self._area
        if shiboken6.isValid(area) and area.widget() is not None:
            area.setMinimumWidth(area.widget().minimumSizeHint().width()
                                 + area.verticalScrollBar().sizeHint().width() + 2 * area.frameWidth())

    def eventFilter(self, watched, event):
        if event.type() in (QtCore.QEvent.Type.LayoutRequest, QtCore.QEvent.Type.FontChange):
            self._fit()
        return False


def fit_content_width(area: QtWidgets.QScrollArea) -> QtWidgets.QScrollArea:
    """A scroll area (scrolling down only) at least as wide as its content needs, now and
    whenever the content's layout or font (the zoom) changes: it never scrolls sideways."""
    area.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    _ContentWidth(area)
    return area


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
        # Sizes at the current cells' hints, dropped at invalidate() (as Qt's box layouts keep
        # theirs): a page asks a nested layout its sizes many times per pass, and each answer
        # would otherwise walk every cell below it again.
        self._cache: dict[int, int] = {}
        self._sizes: dict = {}
        self.setSpacing(spacing)
        self.setContentsMargins(0, 0, 0, 0)

    # ---- QLayout ------------------------------------------------------------------
    def addItem(self, item: QtWidgets.QLayoutItem) -> None:
        self._items.append(((len(self._items),), item))
        self.invalidate()

    def addWidget(self, widget: QtWidgets.QWidget, row: int | None = None, column: int | None = None) -> None:
        """Append widget; with row and column, place it at that grid position instead."""
        self.addChildWidget(widget)
        key = (len(self._items),) if row is None else (row, column or 0)
        self._items.append((key, QtWidgets.QWidgetItem(widget)))
        self._items.sort(key=lambda pair: (len(pair[0]), pair[0]))
        self.invalidate()

    def count(self) -> int:
        return len(self._items)

    def itemAt(self, index: int):
        return self._items[index][1] if 0 <= index < len(self._items) else None

    def takeAt(self, index: int):
        if 0 <= index < len(self._items):
            item = self._items.pop(index)[1]
            self.invalidate()
            return item
        return None

    def invalidate(self) -> None:
        self._cache = {}
        self._sizes = {}
        super().invalidate()

    def expandingDirections(self):
        return QtCore.Qt.Orientation.Horizontal

    def hasHeightForWidth(self) -> bool:
        return self._hfw

    def heightForWidth(self, width: int) -> int:
        if width not in self._cache:
            self._cache[width] = self._arrange(QtCore.QRect(0, 0, width, 0), place=False)[0]
        return self._cache[width]

    def minimumSize(self) -> QtCore.QSize:
        key = ("min", self._min_height)
        if key not in self._sizes:
            self._sizes[key] = self._minimum_size()
        return QtCore.QSize(self._sizes[key])

    def _minimum_size(self) -> QtCore.QSize:
        cells = self._cells()
        m = self.contentsMargins()
        width = max((item.minimumSize().width() for item in cells), default=0)
        if self._min_height is not None:
            return QtCore.QSize(width + m.left() + m.right(), self._min_height)
        height = max((item.minimumSize().height() for item in cells), default=0)
        return QtCore.QSize(width + m.left() + m.right(), height + m.top() + m.bottom())

    def sizeHint(self) -> QtCore.QSize:
        key = ("hint", self.geometry().width())  # without hfw the hint's height is the laid-out width's
        if key not in self._sizes:
            self._sizes[key] = self._size_hint()
        return QtCore.QSize(self._sizes[key])

    def _size_hint(self) -> QtCore.QSize:
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

    def setGeometry(self, rect: QtCore.QRect) -> None:
        super().setGeometry(rect)
        # One pass places the cells and measures the least height of the arrangement at this
        # width (stacked cells need their sum): a parent with less room must not squash a
        # cell below it.
        least = self._arrange(rect, place=True)[1]
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
    def _cell_heights(self, cell: QtWidgets.QLayoutItem, width: int) -> tuple[int, int]:
        """_heights_at, kept until invalidate(): measuring and placing a row ask the same
        cell at the same width, and wrapped text lays itself out again at each ask."""
        key = (id(cell), width)
        if key not in self._sizes:
            self._sizes[key] = _heights_at(cell, width)
        return self._sizes[key]

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

    def _arrange(self, rect: QtCore.QRect, place: bool) -> tuple[int, int]:
        """Lay the cells out in rect (place=True) or only measure; returns the height and
        the least height the cells can have at this width, from one pass."""
        cells = self._cells()
        m = self.contentsMargins()
        n = self.columns_for(rect.width())
        widths = self._widths(rect.width() - m.left() - m.right(), n)
        if n == 1 and self._stacked_first is not None and self._stacked_first < len(cells):
            cells.insert(0, cells.pop(self._stacked_first))
        y = low = rect.y() + m.top()
        for start in range(0, len(cells), n):
            row = cells[start:start + n]
            pairs = [self._cell_heights(cell, widths[i]) for i, cell in enumerate(row)]
            height = max(p[0] for p in pairs)
            x = rect.x() + m.left()
            for i, cell in enumerate(row):
                if place:  # at the top of the row (a cell capped below the row's height is not centred)
                    tall = min(height, cell.maximumSize().height()) if self._fill else pairs[i][0]
                    cell.setGeometry(QtCore.QRect(x, y, widths[i], tall))
                x += widths[i] + self.spacing()
            y += height + self.spacing()
            low += max(p[1] for p in pairs) + self.spacing()
        if cells:
            y -= self.spacing()
            low -= self.spacing()
        return y - rect.y() + m.bottom(), low - rect.y() + m.bottom()


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


def _heights_at(item: QtWidgets.QLayoutItem, width: int) -> tuple[int, int]:
    """item's preferred and smallest heights at this width, within its minimum and maximum.
    Text that wraps needs its height for width either way (asked once for both)."""
    most, least = item.maximumSize().height(), item.minimumSize().height()
    if item.hasHeightForWidth():
        height = max(min(item.heightForWidth(width), most), least)
        return height, height
    return max(min(item.sizeHint().height(), most), least), least


class Reflow(QtWidgets.QWidget):
    """A widget holding a ReflowLayout (for a row of a page: side by side when wide,
    stacked when narrow). Same arguments as ReflowLayout, then the cells."""

    def __init__(self, *cells: QtWidgets.QWidget, parent=None, **options):
        super().__init__(parent)
        self.grid = ReflowLayout(self, **options)
        for cell in cells:
            self.grid.addWidget(cell)
