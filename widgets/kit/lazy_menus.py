"""pyqtgraph plots whose right-click menus are built at the first right-click.

pyqtgraph builds a ViewBox's menu (View All, the X and Y axis panels from a designer
form, the mouse mode) and fills the PlotItem's option widgets into a state group as each
plot is made: about a third of a plot's build, for menus most plots never open. Here the
ViewBox menu is made, the same ViewBoxMenu, when it is first asked for (a right-click, or
another item's menu collecting its parents' entries), and the state group (read only by
saveState and restoreState) when first used. The PlotItem's option widgets themselves stay
built: its methods keep their state in them (showGrid ticks its grid boxes).

    plot_widget(**kwargs)  a pg.PlotWidget around a LazyMenuPlotItem (PlotCard's)
"""
from __future__ import annotations

import pyqtgraph as pg
from pyqtgraph.graphicsItems.ViewBox.ViewBoxMenu import ViewBoxMenu
from pyqtgraph.WidgetGroup import WidgetGroup


class LazyMenuViewBox(pg.ViewBox):
    """A ViewBox whose menu is built when first asked for; menuEnabled() and the state
    say what a plain ViewBox's would."""

    def __init__(self, *args, enableMenu: bool = True, **kwargs):
        super().__init__(*args, enableMenu=False, **kwargs)
        self.state["enableMenu"] = enableMenu  # the menu itself: at the first getMenu()

    def _applyMenuEnabled(self) -> None:
        # Enabled: nothing to build yet. Disabled: the menu goes, as pyqtgraph's does.
        if not self.state.get("enableMenu", True) and self.menu is not None:
            self.menu.setParent(None)
            self.menu = None

    def built_menu(self):
        """The menu, built now if it was not yet (None when the menu is disabled)."""
        if self.menu is None and self.menuEnabled():
            self.menu = ViewBoxMenu(self)
            self.updateViewLists()  # the link combos list the named views, as at a plain build
        return self.menu

    def getMenu(self, ev):
        return self.built_menu()

    def getContextMenus(self, event):
        return self.built_menu().actions() if self.menuEnabled() else []


class _LazyGroup:
    """Stands in for PlotItem's state group: remembers the widgets PlotItem adds and makes
    the WidgetGroup (a signal connection per option widget) when it is first used."""

    def __init__(self, group: WidgetGroup):
        self._group, self._pending = group, []

    def autoAdd(self, widget) -> None:
        self._pending.append(widget)

    def __getattr__(self, name):
        group = self.__dict__["_group"]
        for widget in self.__dict__["_pending"]:
            group.autoAdd(widget)
        self.__dict__["_pending"] = []
        return getattr(group, name)


class LazyMenuPlotItem(pg.PlotItem):
    """A PlotItem on a LazyMenuViewBox (unless given a viewBox) with a lazy state group."""

    def __init__(self, *args, viewBox=None, enableMenu: bool = True, **kwargs):
        if viewBox is None:
            viewBox = LazyMenuViewBox(enableMenu=enableMenu)
        super().__init__(*args, viewBox=viewBox, enableMenu=enableMenu, **kwargs)

    @property
    def stateGroup(self):
        return self._lazy_group

    @stateGroup.setter
    def stateGroup(self, group: WidgetGroup) -> None:  # PlotItem.__init__'s, then its autoAdd calls
        self._lazy_group = _LazyGroup(group)


def plot_widget(**kwargs) -> pg.PlotWidget:
    """pg.PlotWidget(**kwargs) with a LazyMenuPlotItem; kwargs other than the widget's
    parent and background go to the plot item, as PlotWidget passes them."""
    widget_args = {k: kwargs.pop(k) for k in ("parent", "background") if k in kwargs}
    return pg.PlotWidget(plotItem=LazyMenuPlotItem(**kwargs), **widget_args)
