"""Side by side when the width allows, stacked when it does not: the Vision panel fits a
1280×720 window at zoom 1.5 without scrolling sideways and without growing the window.

Both report a minimum size for the stacked arrangement (the widest part, the parts'
heights added), so a narrow window reflows instead of being pushed wider.
"""
from __future__ import annotations

from collections.abc import Callable

from PySide6 import QtCore, QtWidgets

from widgets.kit.i18n_text import notifier
from widgets.kit.zoom_factor import zoom_notifier

_ROW = QtWidgets.QBoxLayout.Direction.LeftToRight
_STACK = QtWidgets.QBoxLayout.Direction.TopToBottom


def _needed(widget: QtWidgets.QWidget) -> QtCore.QSize:
    """The least size widget takes: its hint or its set minimum, whichever is larger."""
    return widget.minimumSizeHint().expandedTo(widget.minimumSize())


def _needed_width(widget: QtWidgets.QWidget) -> int:
    return _needed(widget).width()


class ReflowBox(QtWidgets.QWidget):
    """Parts in a row (with stretch factors) when their minimum widths fit, else one above
    the other."""

    def __init__(self, *parts: QtWidgets.QWidget, stretch: tuple[int, ...] = (), spacing: int = 8, parent=None):
        super().__init__(parent)
        self.parts = parts
        self.box = QtWidgets.QBoxLayout(_ROW, self)
        self.box.setContentsMargins(0, 0, 0, 0)
        self.box.setSpacing(spacing)
        for i, part in enumerate(parts):
            self.box.addWidget(part, stretch[i] if i < len(stretch) else 0)

    @property
    def stacked(self) -> bool:
        return self.box.direction() == _STACK

    def _row_width(self) -> int:
        return sum(_needed_width(p) for p in self.parts) + self.box.spacing() * (len(self.parts) - 1)

    def minimumSizeHint(self) -> QtCore.QSize:
        """As narrow as the widest part (it stacks rather than push its parent wider); as
        tall as the parts are in the current arrangement."""
        hints = [_needed(p) for p in self.parts]
        if self.stacked:
            height = sum(h.height() for h in hints) + self.box.spacing() * (len(hints) - 1)
        else:
            height = max(h.height() for h in hints)
        return QtCore.QSize(max(_needed_width(p) for p in self.parts), height)

    def resizeEvent(self, event):
        self._reflow(event.size().width())
        super().resizeEvent(event)

    def changeEvent(self, event):
        # A new font or style (the app's zoom) changes what fits.
        if event.type() in (QtCore.QEvent.Type.FontChange, QtCore.QEvent.Type.StyleChange):
            self._reflow(self.width())
        super().changeEvent(event)

    def event(self, event):
        # A part asks for more room (a busy badge shown beside the buttons): what fits changes.
        if event.type() == QtCore.QEvent.Type.LayoutRequest:
            self._reflow(self.width())
        return super().event(event)

    def _reflow(self, width: int) -> None:
        direction = _ROW if width >= self._row_width() else _STACK
        if direction != self.box.direction():
            self.box.setDirection(direction)
            self.updateGeometry()


def tab_titles_width(tabs: QtWidgets.QTabWidget) -> int:
    """The width a tab widget needs for its titles whole, without scroll arrows (after
    1920x1080 a splitter kept the first pane's share at 1280x720 in F11 and the titles ran
    past the bar)."""
    bar = tabs.tabBar()
    return sum(bar.tabSizeHint(i).width() for i in range(bar.count())) + 2 * tabs.style().pixelMetric(
        QtWidgets.QStyle.PixelMetric.PM_DefaultFrameWidth)


class ReflowSplitter(QtWidgets.QSplitter):
    """Two panes side by side when both get the width they need, else one above the other
    (then taller than a short window: put it in a scroll area that scrolls down).

    needs() -> (first pane's width, second pane's width): what each must have to show
    without scrolling sideways (a pane inside a scroll area cannot say so itself).
    stacked_lines: the second pane's least height when stacked, in lines of text.
    side_by_side_least() -> the second pane's least width side by side beyond needs()'s
    (a tab bar's titles whole): it chooses the arrangement, it does not widen the window."""

    def __init__(self, needs: Callable[[], tuple[int, int]], row_share: float = 0.45, stacked_lines: int = 24,
                 parent=None, side_by_side_least: Callable[[], int] | None = None):
        super().__init__(QtCore.Qt.Orientation.Horizontal, parent)
        self._needs = needs
        self._side_by_side_least = side_by_side_least
        self._stacked_lines = stacked_lines
        self._row_share = row_share  # the first pane's share of the width side by side
        self._last_needs = (0, 0)
        self.setChildrenCollapsible(False)
        # The panes' needs change with the language and the zoom (longer titles, wider text).
        self._reflow_soon = QtCore.QTimer(self)
        self._reflow_soon.setSingleShot(True)
        self._reflow_soon.timeout.connect(self.reflow)
        notifier().language_changed.connect(self._reflow_later)
        zoom_notifier().zoom_changed.connect(self._reflow_later)

    def _reflow_later(self, *_args) -> None:
        self._reflow_soon.start(0)

    def _screen_height(self) -> int:
        """The height of the area the splitter is seen in (a scroll area's viewport)."""
        parent = self.parentWidget()
        return parent.height() if parent is not None else self.height()

    def _room(self) -> int:
        """The width side by side would have: without the scroll bar that stacking showed."""
        area = self.parentWidget().parentWidget() if self.parentWidget() is not None else None
        if isinstance(area, QtWidgets.QAbstractScrollArea) and area.verticalScrollBar().isVisible():
            return self.width() + area.verticalScrollBar().width()
        return self.width()

    def _stacked_heights(self) -> list[int]:
        """Stacked, each pane is at least one screen high: the picture fills the view, the
        figures are one scroll below."""
        heights = [_needed(self.widget(i)).height() for i in range(self.count())]
        heights[-1] = max(heights[-1], self.fontMetrics().lineSpacing() * self._stacked_lines)
        return [max(h, self._screen_height()) for h in heights]

    def minimumSizeHint(self) -> QtCore.QSize:
        first, second = self._needs()
        if self.orientation() == QtCore.Qt.Orientation.Horizontal:
            heights = [_needed(self.widget(i)).height() for i in range(self.count())]
            return QtCore.QSize(max(first, second), max(heights, default=0))
        return QtCore.QSize(max(first, second), sum(self._stacked_heights()) + self.handleWidth())

    def resizeEvent(self, event):
        super().resizeEvent(event)
        self.reflow()

    def reflow(self) -> None:
        """Choose the orientation for the current size and share it out."""
        if self.count() < 2:
            return
        first, second = self._needs()
        if (first, second) != self._last_needs:
            self._last_needs = (first, second)
            self.updateGeometry()  # the scroll area around asks its parent for the new width
        width = self._room()
        if self._side_by_side_least is not None:
            second = max(second, self._side_by_side_least())
        side_by_side = width >= first + second + self.handleWidth()
        orientation = QtCore.Qt.Orientation.Horizontal if side_by_side else QtCore.Qt.Orientation.Vertical
        # Side by side the second pane keeps the width it needs even when the handle is dragged.
        self.widget(1).setMinimumWidth(second if side_by_side else 0)
        changed = orientation != self.orientation()
        if changed:
            self.setOrientation(orientation)
            self.updateGeometry()  # stacked is taller
        if side_by_side and (changed or self.sizes()[1] < second):
            a = max(first, min(width - second - self.handleWidth(), int(width * self._row_share)))
            self.setSizes([a, width - a - self.handleWidth()])
        elif not side_by_side:
            heights = self._stacked_heights()
            if self.sizes() != heights:
                self.setSizes(heights)


class DownScroll(QtWidgets.QScrollArea):
    """Scrolls down, never sideways: it asks for its page's minimum width (a plain scroll
    area would let its parent shrink it under the page and cut the page off), and for
    min_lines lines of height."""

    def __init__(self, min_lines: int = 3, parent=None):
        super().__init__(parent)
        self._min_lines = min_lines
        self.setWidgetResizable(True)
        self.setHorizontalScrollBarPolicy(QtCore.Qt.ScrollBarPolicy.ScrollBarAlwaysOff)

    def eventFilter(self, watched, event):
        # The page asks for another size (a wider tab, a zoom): so does the area.
        if watched is self.widget() and event.type() == QtCore.QEvent.Type.LayoutRequest:
            self.updateGeometry()
        return super().eventFilter(watched, event)

    def minimumSizeHint(self) -> QtCore.QSize:
        page = self.widget()
        width = _needed_width(page) if page is not None else 0
        bar = self.verticalScrollBar().sizeHint().width()
        return QtCore.QSize(width + bar + 2 * self.frameWidth(), self.fontMetrics().lineSpacing() * self._min_lines)
