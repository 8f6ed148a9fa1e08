"""widgets/kit/reflow.py's ReflowLayout: one pass per geometry change places the cells and
measures the least height of the arrangement (it laid out twice: once to place, once to
measure); the arrangement itself, by hand arithmetic."""
from PySide6 import QtCore, QtWidgets

from widgets.kit import reflow
from widgets.kit.reflow import ReflowLayout


class Box(QtWidgets.QWidget):
    """A cell with a fixed preferred and least size (no height for width)."""

    def __init__(self, width, height, least_height):
        super().__init__()
        self._hint = QtCore.QSize(width, height)
        self.setMinimumSize(10, least_height)

    def sizeHint(self):
        return self._hint


def _layout(qtbot, cells, **options):
    holder = QtWidgets.QWidget()
    qtbot.addWidget(holder)
    grid = ReflowLayout(holder, columns=2, spacing=10, **options)
    for cell in cells:
        grid.addWidget(cell)
    return holder, grid


def test_one_pass_per_geometry_change_places_and_measures(qtbot, monkeypatch):
    cells = [Box(100, 50, 20), Box(100, 80, 30), Box(100, 40, 25)]
    holder, grid = _layout(qtbot, cells)
    asked = []
    original = reflow._heights_at
    monkeypatch.setattr(reflow, "_heights_at", lambda item, width: asked.append(item) or original(item, width))
    grid.setGeometry(QtCore.QRect(0, 0, 410, 500))
    assert len(asked) == len(cells)  # each cell measured once, not once to place and again to measure
    # Two columns of (410 - 10) // 2 = 200: row 1 is max(50, 80) = 80 tall, row 2 40; the
    # least height is max(20, 30) + 10 + 25 = 65.
    assert [c.geometry().getRect() for c in cells] == [(0, 0, 200, 80), (210, 0, 200, 80), (0, 90, 200, 40)]
    assert grid._min_height == 65
    assert grid.heightForWidth(410) == 80 + 10 + 40


def test_narrow_stacks_the_cells_and_their_least_heights_add_up(qtbot):
    cells = [Box(100, 50, 20), Box(100, 80, 30), Box(100, 40, 25)]
    holder, grid = _layout(qtbot, cells, min_column_em=1000)  # no width gives two columns this wide
    grid.setGeometry(QtCore.QRect(0, 0, 300, 500))
    assert [c.geometry().getRect() for c in cells] == [(0, 0, 300, 50), (0, 60, 300, 80), (0, 150, 300, 40)]
    assert grid._min_height == 20 + 10 + 30 + 10 + 25
