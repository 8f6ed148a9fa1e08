"""Vision's painted diagrams and plot texts show every text whole at 1280x720 and
1920x1080, at zoom 1 and in F11, in Chinese and in English (issue 14: the E → P → D
boxes read "300 kB" for 800 kB and ".8125 Mi"): each text of the handoff diagram and of
the §3.3.2 loop diagram (widgets/vision/diagrams.py), laid out as painted, lies inside
its rectangle (font metrics against the rectangle), inside the widget, and no font is
under the UI's smallest text; the question plot's labels stay inside it and the volume
plot's legend covers no bar label."""
from __future__ import annotations

import pytest
from PySide6 import QtCore, QtGui

from lab.language import apply_language
from tests.lab.test_talk_geometry import _ink, clipped_labels, overlapping_labels, plot_text_problems
from widgets.kit.i18n import translate_tree
from widgets.vision.diagrams import DiffusionLoopDiagram, HandoffDiagram
from widgets.vision.fit_text import Drawn, fits, floor_points, points

SIZES = ((1280, 720), (1920, 1080))


@pytest.fixture(scope="module")
def window(qapp, module_settings):
    from lab.main_window import MainWindow
    made = MainWindow()
    made.show()
    made.show_panel("vision")
    yield made
    made.presentation_action.setChecked(False)
    made.close()
    made.deleteLater()


def _show(qtbot, window, size, presenting):
    from widgets.kit import zoom

    window.presentation_action.setChecked(presenting)
    window.showNormal()  # F11 fills the offscreen screen: the room's size instead, F11's zoom kept
    window.setFixedSize(*size)
    if presenting:
        zoom.set_zoom(zoom.presentation_zoom(QtCore.QSize(*size)))
    qtbot.waitUntil(lambda: window.is_ready("vision"), timeout=60_000)
    panel = window.panel("vision")
    panel.tabs.setCurrentIndex(0)
    return panel


@pytest.mark.parametrize("lang", ("zh", "en"))
@pytest.mark.parametrize("presenting", (False, True), ids=("zoom1", "F11"))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_handoff_text_fits_its_box(qtbot, window, size, presenting, lang):
    panel = _show(qtbot, window, size, presenting)
    apply_language(lang, window)
    translate_tree(window)
    diagram = panel.findChild(HandoffDiagram)
    try:
        qtbot.waitUntil(lambda: diagram.isVisible() and bool(diagram.texts), timeout=30_000)
        window.grab()  # laid out and painted as on screen
        drawn, need, _shapes = diagram.layout_texts()
        assert diagram.height() >= need - 0.5, "the widget is shorter than its texts"
        whole = QtCore.QRectF(diagram.rect())
        floor = floor_points()
        for d in drawn:
            assert fits(d), f"{d.text!r} overflows its box at {size} in {lang}"
            assert whole.contains(d.rect), f"{d.text!r}'s box leaves the widget"
            assert points(d.font) >= floor - 0.01, f"{d.text!r} under the smallest text"
        texts = [d.text for d in drawn]
        assert diagram.texts["raw"] in texts and diagram.texts["ec"] in texts  # the numbers whole
        if lang == "en":
            assert not any("\u4e00" <= c <= "\u9fff" for t in texts for c in t), texts
    finally:
        apply_language("both", window)


@pytest.mark.parametrize("lang", ("zh", "en"))
@pytest.mark.parametrize("presenting", (False, True), ids=("zoom1", "F11"))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_question_plots_labels_stay_inside_it(qtbot, window, size, presenting, lang):
    """Its two rows' labels wrap at the plot's edge and the plot holds them (in F11 at
    1920x1080 they ran past its top and right edges)."""
    panel = _show(qtbot, window, size, presenting)
    apply_language(lang, window)
    translate_tree(window)
    try:
        plot = panel.volumes.question_plot.plot_widget
        panel.volumes.question_plot.ensurePolished()
        qtbot.waitUntil(plot.isVisible, timeout=30_000)
        cards = (panel.volumes.question_plot, panel.volumes.volume_plot)

        def held(card) -> bool:  # the card as tall as its plot: the axis label whole
            plot = card.plot_widget
            return plot.mapTo(card, plot.rect().bottomLeft()).y() < card.height()

        def settled() -> bool:
            window.grab()  # plot texts take their place as drawn
            return all(held(card) for card in cards) and plot_text_problems(window) == []

        # The wraps, the ranges and the cards' heights settle a few layout passes later.
        try:
            qtbot.waitUntil(settled, timeout=10_000)
        except qtbot.TimeoutError:
            pass  # the assertions below say what is wrong
        labels = [i.textItem.toPlainText() for i in panel.volumes.question_row_labels.values()]
        assert all(labels), labels
        assert plot_text_problems(window) == []
        for card in cards:
            assert held(card), f"{card.title_label.text()!r}: its plot runs past its bottom"
    finally:
        apply_language("both", window)


@pytest.mark.parametrize("presenting", (False, True), ids=("zoom1", "F11"))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_volume_legend_covers_no_bar_label(qtbot, window, size, presenting):
    """The legend over the volume bars leaves their labels readable (in F11 at 1920x1080
    it covered the KV bar's "56.25 MiB")."""
    panel = _show(qtbot, window, size, presenting)
    apply_language("en", window)
    translate_tree(window)
    try:
        tab = panel.volumes
        qtbot.waitUntil(tab.volume_plot.plot_widget.isVisible, timeout=30_000)
        def covered() -> list[str]:
            window.grab()
            # Stacked at 1280x720 in F11 the plot is below the fold, and grab() paints what
            # is in view only: the view's new range is mapped as a paint of it would.
            tab.volume_plot.plot.getViewBox().updateMatrix()
            legend = tab.volume_legend.sceneBoundingRect()
            shown = [i for i in tab.volume_labels if i.isVisible() and i.textItem.toPlainText()]
            assert shown
            out = []
            for item in shown:
                both = _ink(item).intersected(legend)
                if both.width() > 1 and both.height() > 1:
                    out.append(item.textItem.toPlainText())
            return out

        # The range follows the legend's new width and the card's new height a few layout
        # passes later: clear on three polls in a row.
        clear_polls = [0]

        def settled() -> bool:
            clear_polls[0] = clear_polls[0] + 1 if covered() == [] else 0
            return clear_polls[0] >= 3

        try:
            qtbot.waitUntil(settled, timeout=10_000)
        except qtbot.TimeoutError:
            pass  # the assertion says what is wrong
        left = covered()
        assert left == [], "the legend covers these labels"
    finally:
        apply_language("both", window)


@pytest.mark.parametrize("lang", ("zh", "en"))
@pytest.mark.parametrize("presenting", (False, True), ids=("zoom1", "F11"))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_every_generation_loop_text_fits_its_box(qtbot, window, size, presenting, lang):
    """The §3.3.2 loop diagram's texts the same way (in F11 its branches read
    "@ 4,096 位置 (64×")."""
    panel = _show(qtbot, window, size, presenting)
    panel.tabs.setCurrentIndex(2)
    apply_language(lang, window)
    translate_tree(window)
    diagram = panel.findChild(DiffusionLoopDiagram)
    try:
        qtbot.waitUntil(lambda: diagram.isVisible() and bool(diagram.result), timeout=30_000)
        window.grab()
        drawn, need, _shapes = diagram.layout_texts()
        assert diagram.height() >= need - 0.5, "the widget is shorter than its texts"
        whole = QtCore.QRectF(diagram.rect())
        for d in drawn:
            assert fits(d), f"{d.text!r} overflows its box at {size} in {lang}"
            assert whole.contains(d.rect), f"{d.text!r}'s box leaves the widget"
            assert points(d.font) >= floor_points() - 0.01, f"{d.text!r} under the smallest text"
        if lang == "en":
            assert not any("\u4e00" <= c <= "\u9fff" for d in drawn for c in d.text), [d.text for d in drawn]
    finally:
        apply_language("both", window)
        panel.tabs.setCurrentIndex(0)


@pytest.mark.parametrize("lang", ("zh", "en"))
@pytest.mark.parametrize("presenting", (False, True), ids=("zoom1", "F11"))
@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def test_the_tab_titles_fit_the_tab_bar(qtbot, window, size, presenting, lang):
    """The three tab titles are whole, no scroll arrows (in English at 1280x720 the
    catalog's "§3.3.2 · the image generation loop" ran past the bar)."""
    panel = _show(qtbot, window, size, presenting)
    apply_language(lang, window)
    translate_tree(window)
    try:
        bar = panel.tabs.tabBar()
        qtbot.waitUntil(bar.isVisible, timeout=30_000)
        need = sum(bar.tabSizeHint(i).width() for i in range(bar.count()))
        assert need <= panel.tabs.width(), [bar.tabText(i) for i in range(bar.count())]
    finally:
        apply_language("both", window)


@pytest.mark.parametrize("lang", ("zh", "en"))
@pytest.mark.parametrize("presenting", (False, True), ids=("zoom1", "F11"))
def test_the_replay_card_is_whole_at_1280x720(qtbot, window, presenting, lang):
    """The handoff card's "replay it" after a replay, scrolled into view at 1280x720: no
    label cut or over another, no plot text cut (tests/lab/test_talk_geometry.py's checks)."""
    panel = _show(qtbot, window, (1280, 720), presenting)
    card = panel.volumes.replay
    if card.result is None:
        with qtbot.waitSignal(card.replayed, timeout=240_000):
            card.replay()
    area = panel.tabs.currentWidget()
    apply_language(lang, window)
    translate_tree(window)

    def on_screen() -> bool:
        area.ensureWidgetVisible(card.plot, 0, 0)  # again as the page's layout settles
        return card.plot.isVisible()

    try:
        qtbot.waitUntil(on_screen, timeout=10_000)

        def problems() -> list[str]:
            window.grab()  # plot texts take their place as drawn
            return clipped_labels(window) + overlapping_labels(window) + plot_text_problems(window)

        try:  # the header reflows a layout pass after the new language's wider buttons
            qtbot.waitUntil(lambda: problems() == [], timeout=5_000)
        except qtbot.TimeoutError:
            pass  # the assertion says what is wrong
        assert problems() == []
    finally:
        apply_language("both", window)


def test_the_fit_check_finds_a_cut_text(qapp):
    font = QtGui.QFont()
    font.setPointSizeF(12)
    wide = QtGui.QFontMetricsF(font).horizontalAdvance("7.8125 MiB")
    flags = int(QtCore.Qt.AlignmentFlag.AlignCenter)
    assert fits(Drawn("7.8125 MiB", QtCore.QRectF(0, 0, wide + 2, 40), font, flags, "ink"))
    assert not fits(Drawn("7.8125 MiB", QtCore.QRectF(0, 0, wide / 2, 40), font, flags, "ink"))
