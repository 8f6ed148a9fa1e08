"""Side by side when it fits, stacked when not (widgets.vision.reflow): the Vision panel's
way of fitting a narrow window without growing it or scrolling sideways."""
from PySide6 import QtCore, QtWidgets

from widgets.vision.reflow import DownScroll, ReflowBox, ReflowSplitter


def _block(width: int, height: int = 40) -> QtWidgets.QWidget:
    w = QtWidgets.QWidget()
    w.setMinimumSize(width, height)
    return w


def test_box_stacks_when_the_parts_do_not_fit(qtbot):
    a, b = _block(300), _block(200)
    box = ReflowBox(a, b, spacing=10)
    window = QtWidgets.QWidget()  # a window: it may not be narrower than what its layout asks
    QtWidgets.QVBoxLayout(window).addWidget(box)
    qtbot.addWidget(window)
    assert box.minimumSizeHint().width() == 300  # the widest part, not the sum
    window.resize(600, 100)
    window.show()
    qtbot.waitUntil(lambda: not box.stacked and a.geometry().right() < b.geometry().left())
    window.resize(400, 200)
    qtbot.waitUntil(lambda: box.stacked and a.geometry().bottom() < b.geometry().top())
    assert window.width() == 400
    assert box.minimumSizeHint().height() == 40 + 10 + 40  # stacked: the parts' heights add up


def test_splitter_puts_the_panes_above_each_other_when_narrow(qtbot):
    holder = DownScroll(min_lines=2)
    qtbot.addWidget(holder)
    split = ReflowSplitter(lambda: (300, 500), stacked_lines=4)
    split.addWidget(_block(0, 100))
    split.addWidget(_block(0, 100))
    holder.setWidget(split)
    holder.resize(900, 400)
    holder.show()
    qtbot.waitUntil(lambda: split.orientation() == QtCore.Qt.Orientation.Horizontal and split.sizes()[1] >= 500)
    assert holder.minimumSizeHint().width() >= 500  # the wider pane's need, so nothing is cut off
    holder.resize(700, 400)
    qtbot.waitUntil(lambda: split.orientation() == QtCore.Qt.Orientation.Vertical)
    qtbot.waitUntil(lambda: split.height() > holder.viewport().height())  # each pane a screen: it scrolls down
    assert holder.horizontalScrollBar().maximum() == 0
    holder.resize(900, 400)  # wide again (its scroll bar gone): side by side again
    qtbot.waitUntil(lambda: split.orientation() == QtCore.Qt.Orientation.Horizontal)
