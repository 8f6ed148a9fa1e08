"""widgets/kit/lazy_menus.py: a plot's right-click menus are built at the first right-click
(pyqtgraph built them with every plot) and hold what pyqtgraph's eager ones hold, the
Export entries included; the plot's state (saveState / restoreState) is a plain plot's."""
import pyqtgraph as pg
from PySide6 import QtCore

from widgets.kit.export_menu import add_plot_menu
from widgets.kit.lazy_menus import LazyMenuPlotItem, LazyMenuViewBox
from widgets.kit.plot_card import PlotCard

WAIT_MS = 10_000


def _tree(menu) -> list:
    """A menu's entries as (text, sub-entries), separators as '-'."""
    out = []
    for action in menu.actions():
        if action.isSeparator():
            out.append("-")
        else:
            out.append((action.text(), _tree(action.menu()) if action.menu() is not None else []))
    return out


def _right_click(qtbot, view):
    view.resize(400, 300)
    view.show()
    qtbot.waitExposed(view)
    centre = view.viewport().rect().center()
    qtbot.mouseClick(view.viewport(), QtCore.Qt.MouseButton.RightButton, pos=centre)
    box = view.getPlotItem().getViewBox()
    qtbot.waitUntil(lambda: box.menu is not None and box.menu.isVisible(), timeout=WAIT_MS)
    menu = box.menu
    entries = _tree(menu)
    menu.hide()
    return entries


def test_no_menu_until_the_first_right_click_then_the_plain_menus(qtbot):
    card = PlotCard("lazy")
    qtbot.addWidget(card)
    box = card.plot.getViewBox()
    assert isinstance(box, LazyMenuViewBox) and box.menu is None and box.menuEnabled()
    lazy = _right_click(qtbot, card.plot_widget)

    plain = pg.PlotWidget()  # pyqtgraph's own, its menus built with it
    qtbot.addWidget(plain)
    assert plain.getPlotItem().getViewBox().menu is not None
    add_plot_menu(plain, plain, "plain")
    eager = _right_click(qtbot, plain)
    assert lazy == eager
    texts = [e[0] for e in lazy if e != "-"]
    assert "Export" in texts and len(texts) >= 5  # View All, X axis, Y axis, Mouse Mode, Plot Options, Export


def test_the_state_is_a_plain_plots(qtbot):
    lazy, plain = LazyMenuPlotItem(), pg.PlotItem()
    for plot in (lazy, plain):
        plot.showGrid(x=True, y=False, alpha=0.3)
        plot.setLogMode(x=False, y=True)
    state = lazy.saveState()
    assert state == plain.saveState()
    other = LazyMenuPlotItem()
    other.restoreState(plain.saveState())
    assert other.saveState() == state and other.ctrl.logYCheck.isChecked()


def test_a_disabled_menu_stays_unbuilt_and_none(qtbot):
    box = LazyMenuViewBox(enableMenu=False)
    assert not box.menuEnabled() and box.getMenu(None) is None and box.getContextMenus(None) == []
    box.setMenuEnabled(True)
    assert box.menu is None and box.getMenu(None) is not None
    box.setMenuEnabled(False)
    assert box.menu is None
