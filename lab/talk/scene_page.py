"""Where a talk's scene sits on its panel's page: the figure (by its title) or the card's
section scrolled to the top, kept there while the page settles (a grid that reflows, plots
that arrive), and the panel's ▶ players. lab.talk's controller owns one; it holds no state
of the talk.
"""
from __future__ import annotations

import shiboken6
from PySide6 import QtCore, QtWidgets

from widgets.kit.calculator_card import CalculatorCard
from widgets.kit.i18n_text import book_refs_in_english, split_spaced_pair
from widgets.kit.plot_card import PlotCard
from widgets.kit.timeline_player import TimelinePlayer

TOP_MARGIN_PX = 8  # room above the section's frame


class ScenePage(QtCore.QObject):
    def __init__(self, parent=None):
        super().__init__(parent)
        self._focused = None  # (scroll area, section) kept at the top while the page settles
        self._focus_value: int | None = None  # where we put the scroll bar last
        self._watched: list = []  # the section and its parents up to the page: their moves refocus
        self._found: dict[tuple, list] = {}  # (panel, widget kind) -> the panel's widgets of that kind
        self._ranged: list[tuple] = []  # (view box, its ranges and auto-range before the scene set them)
        self._sped: list[tuple] = []  # (player, its speed before the scene set one)
        self._padded: tuple | None = None  # (page layout, its margins before room was added under it)

    # ---- scrolling --------------------------------------------------------------------
    def show(self, panel, figure: str, slot: str) -> None:
        """Scroll panel to the figure whose title holds `figure`, else to card slot's
        section, else to the top of its pages."""
        self.release()
        if not (figure and self._show_figure(panel, figure)):
            self._show_card(panel, slot)

    def release(self) -> None:
        """Stop keeping a section at the top (another scene, or the speaker scrolled)."""
        if self._focused is not None and shiboken6.isValid(self._focused[0]):
            self._focused[0].verticalScrollBar().rangeChanged.disconnect(self._refocus)
        for watched in self._watched:
            if shiboken6.isValid(watched):
                watched.removeEventFilter(self)
        self._watched = []
        self._focused, self._focus_value = None, None
        if self._padded is not None and shiboken6.isValid(self._padded[0]):
            self._padded[0].setContentsMargins(self._padded[1])
        self._padded = None

    # ---- plot ranges ------------------------------------------------------------------
    def set_ranges(self, panel, ranges: dict) -> list[str]:
        """Show each figure (by title text) at its scene's x/y ranges; the texts that match
        no figure of the panel."""
        missing = []
        for text, axes in ranges.items():
            plots = [p for p in self.children(panel, PlotCard) if titled(p, text)]
            if not plots:
                missing.append(text)
            for plot in plots:
                box = plot.plot.getViewBox()
                self._ranged.append((box, box.viewRange(), box.autoRangeEnabled()))
                box.setRange(xRange=axes.get("x"), yRange=axes.get("y"), padding=0)
        return missing

    def set_speeds(self, panel, speeds: dict) -> None:
        """Each named ▶ at its scene's speed."""
        for name, speed in speeds.items():
            player = self.player(panel, name)
            if player is not None:
                self._sped.append((player, player.speed))
                player.set_speed(speed)

    def restore(self) -> None:
        """The figures and ▶ a scene set ranges or speeds on, back as their panel had them."""
        for player, speed in reversed(self._sped):
            if shiboken6.isValid(player):
                player.set_speed(speed)
        self._sped = []
        for box, (x, y), (auto_x, auto_y) in reversed(self._ranged):
            if not shiboken6.isValid(box):
                continue
            box.setRange(xRange=x, yRange=y, padding=0)
            box.enableAutoRange(x=bool(auto_x), y=bool(auto_y))
        self._ranged = []

    def _show_figure(self, panel, text: str) -> bool:
        for fresh in (False, True):
            for plot in self.children(panel, PlotCard, fresh):
                if titled(plot, text) and plot.isVisibleTo(panel):
                    return self._scroll_to(plot, plot)
        return False

    def _show_card(self, panel, slot: str) -> None:
        model = panel.state.cards.get(slot) if slot else None
        card = None
        for fresh in (False, True) if model is not None else ():
            card = next((c for c in self.children(panel, CalculatorCard, fresh) if c.model is model), None)
            if card is not None:
                break
        if card is None:
            for area in self.children(panel, QtWidgets.QScrollArea):
                if area.isVisibleTo(panel):
                    area.verticalScrollBar().setValue(0)
            return
        area = _ancestor(card, QtWidgets.QScrollArea)
        if area is not None:  # the card with its figure (their column), or the card alone
            column = card.parentWidget()
            # A column of several cards: this card at the top (each scene a view of its own).
            alone = column is not area.widget() and len(column.findChildren(CalculatorCard)) == 1
            self._scroll_to(card, column if alone else card)

    def _scroll_to(self, widget, section) -> bool:
        area = _ancestor(widget, QtWidgets.QScrollArea)
        if area is None:
            return False
        # The page and its scroll range as they will be drawn (layouts wait for the loop).
        QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.LayoutRequest)
        area.widget().layout().activate()
        self._room_under(area, section)
        self._focused = (area, section)
        area.verticalScrollBar().rangeChanged.connect(self._refocus)  # a page that reflows later
        # A reflow above the section that keeps the page's height (one row shorter, another
        # taller) moves the section without changing the scroll range: follow its moves too.
        widget = section
        while widget is not None and widget is not area.widget():
            widget.installEventFilter(self)
            self._watched.append(widget)
            widget = widget.parentWidget()
        self._refocus()
        return True

    def _room_under(self, area, section) -> None:
        """Room under the page's end, as much as a section near the end needs to reach the
        top (otherwise scenes of the last cards all showed the page's end, one view)."""
        layout = area.widget().layout()
        short = section.mapTo(area.widget(), QtCore.QPoint(0, 0)).y() - TOP_MARGIN_PX \
            - (area.widget().height() - area.viewport().height())
        if short <= 0 or layout is None:
            return
        margins = layout.contentsMargins()
        self._padded = (layout, QtCore.QMargins(margins))
        layout.setContentsMargins(margins.left(), margins.top(), margins.right(), margins.bottom() + short)
        QtWidgets.QApplication.sendPostedEvents(None, QtCore.QEvent.Type.LayoutRequest)
        layout.activate()

    def eventFilter(self, watched, event) -> bool:
        if event.type() == QtCore.QEvent.Type.Move and self._focused is not None:
            self._refocus()
        return False

    def _refocus(self, *_range) -> None:
        """Put the section at the top again, unless the speaker scrolled away."""
        if self._focused is None:
            return
        area, section = self._focused
        bar = area.verticalScrollBar()
        if self._focus_value is not None and bar.value() != self._focus_value:
            self.release()  # scrolled by hand: leave the page where it is
            return
        bar.setValue(max(0, section.mapTo(area.widget(), QtCore.QPoint(0, 0)).y() - TOP_MARGIN_PX))
        self._focus_value = bar.value()

    # ---- players ------------------------------------------------------------------------
    def player(self, panel, name: str = "") -> TimelinePlayer | None:
        """The ▶ of player name (by object or attribute name), else the one used last."""
        if name:
            for candidate in (f"{name}_player", f"{name.rstrip('s')}_player"):
                found = panel.findChild(TimelinePlayer, candidate) or getattr(panel, candidate, None)
                if isinstance(found, TimelinePlayer):
                    return found
        players = [p for p in self.children(panel, TimelinePlayer) if p.isVisibleTo(panel)]
        return max(players, key=lambda p: p.last_used) if players else None

    def pause_players(self, panel) -> None:
        for player in self.children(panel, TimelinePlayer):
            player.pause()

    def children(self, panel, kind, fresh: bool = False) -> list:
        """panel's widgets of kind, looked up once per built panel (a walk of a whole panel
        costs milliseconds a switch); again when asked fresh (a card not found)."""
        key = (id(panel), kind)
        found = self._found.get(key)
        if fresh or found is None or not all(shiboken6.isValid(w) for w in found):
            found = panel.findChildren(kind)
            if getattr(panel, "is_ready", lambda: True)():  # built whole: nothing more will come
                self._found[key] = found
        return found


def title_forms(text: str) -> set[str]:
    """The forms a scene's figure text takes on screen in each language: as written, with
    the book's refs in English ("图 3-24" -> "Fig. 3-24"), either half of "同步 synchronous"."""
    forms = {text, book_refs_in_english(text)}
    pair = split_spaced_pair(text)
    if pair is not None:
        forms.update(pair)
    return {form for form in forms if form}


def titled(plot, text: str) -> bool:
    """Whether plot's title (in the language shown) holds the scene's figure text."""
    title = plot.title_label.text()
    return any(form in title for form in title_forms(text))


def _ancestor(widget, kind):
    while widget is not None and not isinstance(widget, kind):
        widget = widget.parentWidget()
    return widget
