"""One zoom for the whole UI: set_zoom clamps and notifies, fonts follow in points, plots
follow through apply_plot_zoom (ticks, labels, legends, pens, markers), exactly and again."""
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from widgets.kit import theme, zoom
from widgets.kit.plot_card import PlotCard
from widgets.kit.plot_zoom import recolor_plots


@pytest.fixture(autouse=True)
def _actual_size():
    zoom.set_zoom(1.0)
    yield
    zoom.set_zoom(1.0)
    theme.set_theme("light")


def test_set_zoom_clamps_to_the_stated_range_and_notifies_once(qtbot):
    with qtbot.waitSignal(zoom.zoom_notifier().zoom_changed) as blocker:
        assert zoom.set_zoom(1.5) == 1.5
    assert blocker.args == [1.5] and zoom.zoom() == 1.5
    assert zoom.pt(10) == pytest.approx(15)
    with qtbot.assertNotEmitted(zoom.zoom_notifier().zoom_changed):
        zoom.set_zoom(1.5)
    assert zoom.set_zoom(0.1) == zoom.MIN_ZOOM == 0.5
    assert zoom.set_zoom(9) == zoom.MAX_ZOOM == 3.0


def test_zoom_steps_walk_up_and_down_and_stop_at_the_ends():
    assert zoom.step_zoom(1) == 1.1
    assert zoom.step_zoom(-1) == 1.0
    assert zoom.step_zoom(-1) == 0.9
    zoom.set_zoom(3.0)
    assert zoom.step_zoom(1) == 3.0
    zoom.set_zoom(0.5)
    assert zoom.step_zoom(-1) == 0.5


def test_presentation_zoom_fits_the_screen():
    assert zoom.fit_zoom(QtCore.QSize(1920, 1080)) == 1.5
    assert zoom.fit_zoom(QtCore.QSize(1280, 720)) == 1.0
    assert zoom.fit_zoom(QtCore.QSize(1366, 768)) == 1.05
    assert zoom.fit_zoom(QtCore.QSize(7680, 4320)) == 3.0  # clamped


def test_fonts_follow_the_zoom_in_points(qtbot):
    box = QtWidgets.QWidget()
    qtbot.addWidget(box)
    plain, tag = QtWidgets.QLabel("text", box), QtWidgets.QLabel("示意", box)
    tag.setProperty("role", "tag")
    own = QtWidgets.QLabel("own font", box)
    font = own.font()
    font.setPointSizeF(12)
    own.setFont(font)
    zoom.set_zoom(1.0)
    theme.apply_fonts(box)
    assert QtGui.QFontInfo(plain.font()).pointSizeF() == pytest.approx(theme.BASE_POINTS, abs=0.4)
    assert tag.font().pointSizeF() == pytest.approx(theme.ROLE_POINTS["tag"])
    zoom.set_zoom(2.0)
    assert plain.font().pointSizeF() == pytest.approx(2 * theme.BASE_POINTS)
    assert tag.font().pointSizeF() == pytest.approx(2 * theme.ROLE_POINTS["tag"])
    assert own.font().pointSizeF() == pytest.approx(24)
    zoom.set_zoom(1.0)
    assert own.font().pointSizeF() == pytest.approx(12)  # its size at zoom 1, remembered


def _plot_card(qtbot) -> PlotCard:
    card = PlotCard("title")
    qtbot.addWidget(card)
    p = card.plot
    p.setLabel("left", "GB")
    p.setTitle("a title")
    legend = p.addLegend()
    card.add_curve("line", pen=theme.pen("decode", 2), name="line")
    dots = card.add_curve("dots", pen=None, symbol="o", symbolSize=8, symbolBrush=theme.brush("prefill"))
    dots.setData([0, 1], [1, 2])
    card.curves["line"].setData([0, 1], [2, 1])
    return card, legend


def _sizes(card, legend) -> dict:
    p = card.plot
    axis = p.getAxis("left")
    return {"tick": axis.style["tickFont"].pointSizeF(), "axis_label": axis.label.font().pointSizeF(),
            "legend": float(legend.opts["labelTextSize"][:-2]), "title": float(p.titleLabel.opts["size"][:-2]),
            "pen": card.curves["line"].opts["pen"].widthF(), "symbol": card.curves["dots"].opts["symbolSize"]}


def test_plots_scale_ticks_labels_legends_pens_and_markers(qtbot):
    card, legend = _plot_card(qtbot)
    zoom.apply_plot_zoom(card)
    at_one = _sizes(card, legend)
    assert at_one["pen"] == 2 and at_one["symbol"] == 8 and at_one["tick"] > 0
    zoom.set_zoom(1.5)
    zoom.apply_plot_zoom(card)
    zoom.apply_plot_zoom(card)  # twice: still 1.5 times, not 2.25
    at_150 = _sizes(card, legend)
    for key, value in at_one.items():
        assert at_150[key] == pytest.approx(1.5 * value), key
    zoom.set_zoom(1.0)
    zoom.apply_plot_zoom(card)
    assert _sizes(card, legend) == pytest.approx(at_one)


def test_recolouring_keeps_meanings(qtbot):
    card, _legend = _plot_card(qtbot)
    theme.set_theme("dark")
    recolor_plots(card, "light", "dark")
    assert card.plot_widget.backgroundBrush().color().name() == theme.THEMES["dark"]["paper"]
    assert card.curves["line"].opts["pen"].color().name() == theme.THEMES["dark"]["decode"]
    assert card.curves["dots"].opts["symbolBrush"].color().name() == theme.THEMES["dark"]["prefill"]
    assert card.plot.getAxis("left").textPen().color().name() == theme.THEMES["dark"]["ink"]
