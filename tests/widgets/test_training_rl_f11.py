"""The RL tab in F11 on a 1280x720 projector (its zoom, no navigation, menu or status bar),
in English and in Chinese: every label and plot text of the live loop and its split sweep
whole as the page scrolls through them, each readout as tall as its text, and the ▶'s
slider wide enough to drag (in the form's column it was 15 px wide in Chinese)."""
from __future__ import annotations

import math

import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from lab.language import apply_language
from tests.lab.test_talk_geometry import clipped_labels, overlapping_labels, plot_text_problems
from widgets.kit import zoom
from widgets.kit.i18n import translate_tree
from widgets.kit.jobs import jobs

SIZE = (1280, 720)


@pytest.fixture
def window(qtbot):
    from lab.main_window import MainWindow

    w = MainWindow()  # takes the saved zoom: F11's comes after
    zoom.set_zoom(zoom.presentation_zoom(QtCore.QSize(*SIZE), QtGui.QGuiApplication.primaryScreen().logicalDotsPerInch()))
    for chrome in (w.nav, w.menuBar(), w.statusBar()):  # as F11 leaves the window
        chrome.hide()
    w.setFixedSize(*SIZE)
    qtbot.addWidget(w)
    w.show()
    yield w
    jobs().wait_idle()
    apply_language("both", w)
    zoom.set_zoom(1.0)


def _text_height(readout) -> int:
    """The height the readout's text needs at its width and font."""
    doc = QtGui.QTextDocument()
    doc.setDocumentMargin(2)  # the readout's own
    doc.setDefaultFont(readout.font())
    doc.setHtml(readout.text())
    doc.setTextWidth(readout.width())
    return math.ceil(doc.size().height())


@pytest.mark.parametrize("lang", ("en", "zh"))
def test_the_rl_tab_in_f11_shows_every_text_whole(qtbot, window, lang):
    assert zoom.zoom() == 1.5  # 9 pt text at 18 px
    apply_language(lang, window)
    window.show_panel("training")
    panel = window.panel("training")
    panel.state.set_view("tab", "rl")
    section = panel.rl_loop
    qtbot.waitUntil(lambda: window.is_ready("training") and section.built and section.split.result is not None
                    and not jobs().busy_keys(), timeout=90_000)
    translate_tree(window)
    qtbot.waitUntil(lambda: section.summary.height() >= _text_height(section.summary), timeout=5_000)
    for readout in (section.summary, section.split.readout, section.view.status):
        assert readout.text() and readout.height() >= _text_height(readout), readout.objectName()
    slider = section.player.slider
    assert slider.width() >= 20 * slider.fontMetrics().averageCharWidth()
    area = panel.tabs.currentWidget()
    bar = area.verticalScrollBar()
    top = section.form.parentWidget().mapTo(area.widget(), QtCore.QPoint(0, 0)).y()
    split = section.split
    bottom = split.mapTo(area.widget(), QtCore.QPoint(0, split.height())).y()
    problems = []
    for y in range(top, bottom, area.viewport().height() // 2):
        bar.setValue(y)
        QtWidgets.QApplication.processEvents()  # the scrolled page laid out
        window.grab()  # plot texts take their place as drawn
        problems += clipped_labels(window) + overlapping_labels(window) + plot_text_problems(window)
    assert problems == [], f"{lang}: " + "; ".join(sorted(set(problems)))
