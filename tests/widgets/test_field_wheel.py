"""The wheel over a combo or spin box without the focus scrolls the page (issue 14: passing
over Training's card combo changed the GPU, step 7.53 s -> 3.84 s)."""
from __future__ import annotations

from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit.field_wheel import install_field_wheel_filter


def _wheel(widget: QtWidgets.QWidget, dy: int = -120) -> None:
    centre = QtCore.QPointF(widget.rect().center())
    event = QtGui.QWheelEvent(centre, QtCore.QPointF(widget.mapToGlobal(centre.toPoint())), QtCore.QPoint(),
                              QtCore.QPoint(0, dy), QtCore.Qt.MouseButton.NoButton,
                              QtCore.Qt.KeyboardModifier.NoModifier, QtCore.Qt.ScrollPhase.NoScrollPhase, False)
    QtWidgets.QApplication.sendEvent(widget, event)


def _page(qtbot):
    scroll = QtWidgets.QScrollArea()
    qtbot.addWidget(scroll)
    page = QtWidgets.QWidget()
    layout = QtWidgets.QVBoxLayout(page)
    combo = QtWidgets.QComboBox()
    combo.addItems(["rtx-pro-6000", "h100-sxm", "b200"])
    spin = QtWidgets.QSpinBox()
    spin.setRange(0, 100)
    spin.setValue(50)
    other = QtWidgets.QLineEdit()
    for w in (combo, spin, other):
        layout.addWidget(w)
    layout.addSpacing(3000)  # a page taller than its view
    scroll.setWidget(page)
    scroll.resize(400, 300)
    scroll.show()
    qtbot.waitExposed(scroll)
    return scroll, combo, spin, other


def test_the_wheel_over_an_unfocused_field_scrolls_the_page_and_keeps_the_value(qtbot):
    install_field_wheel_filter()
    scroll, combo, spin, other = _page(qtbot)
    other.setFocus()
    bar = scroll.verticalScrollBar()
    assert bar.value() == 0
    _wheel(combo)
    assert combo.currentIndex() == 0 and bar.value() > 0
    scrolled = bar.value()
    _wheel(spin)
    assert spin.value() == 50 and bar.value() > scrolled


def test_a_focused_field_still_takes_its_wheel(qtbot):
    install_field_wheel_filter()
    scroll, combo, spin, _ = _page(qtbot)
    spin.setFocus()
    qtbot.waitUntil(spin.hasFocus)
    _wheel(spin, dy=120)
    assert spin.value() == 51
    combo.setFocus()
    qtbot.waitUntil(combo.hasFocus)
    _wheel(combo)
    assert combo.currentIndex() == 1
    assert install_field_wheel_filter() is install_field_wheel_filter()  # one filter


def test_fields_under_a_style_root_and_fields_made_before_the_filter_get_it(qtbot):
    """The filter rides on the style's polish: a field made before it was installed (the
    style change re-polishes it) and one inside a window carrying its own style sheet (the
    main window) are covered too."""
    from widgets.kit.theme import style_root

    scroll, combo, spin, other = _page(qtbot)  # made (and polished) before the install below
    install_field_wheel_filter()
    style_root(scroll)
    other.setFocus()
    late = QtWidgets.QComboBox()
    late.addItems(["a", "b"])
    scroll.widget().layout().insertWidget(0, late)
    qtbot.waitUntil(late.isVisible)
    bar = scroll.verticalScrollBar()
    _wheel(combo)
    assert combo.currentIndex() == 0 and bar.value() > 0
    scrolled = bar.value()
    _wheel(late)
    assert late.currentIndex() == 0 and bar.value() > scrolled
