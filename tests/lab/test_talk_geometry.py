"""Every scene of talks/chapter3.toml at 1280x720 and 1920x1080, in Chinese and in English:
snapshotted (LAB_TALK_SNAPSHOTS=DIR keeps the PNGs to look at), and no label on screen cut
off or lying over its neighbour, nor a text inside a plot cut by the plot's edge or lying
over another of that plot (geometry, not pixels; issue 14)."""
from __future__ import annotations

import os
from pathlib import Path

import pyqtgraph as pg
import pytest
from PySide6 import QtCore, QtGui, QtWidgets

from core.talk import load_talk
from lab.app import scene_window
from lab.language import apply_language
from widgets.kit.i18n import translate_tree

CHAPTER3 = Path(__file__).resolve().parents[2] / "talks" / "chapter3.toml"
SCENES = len(load_talk(CHAPTER3).scenes)
SIZES = ((1280, 720), (1920, 1080))
LANGUAGES = ("zh", "en")

SLACK_PX = 2  # a text exactly as wide as its rectangle, rounded, is not cut


def on_screen(widget: QtWidgets.QWidget, window: QtWidgets.QWidget) -> QtCore.QRect:
    """The part of widget the window shows, in window coordinates (empty when none)."""
    if not widget.isVisible():
        return QtCore.QRect()
    region = widget.visibleRegion()
    if region.isEmpty():
        return QtCore.QRect()
    rect = region.boundingRect()
    return QtCore.QRect(widget.mapTo(window, rect.topLeft()), rect.size())


def _single_line_text(label: QtWidgets.QLabel) -> str | None:
    """The label's text when it is one plain line (rich text and wrapped text lay out
    themselves), else None."""
    text = label.text()
    if not text or label.wordWrap() or "\n" in text or label.pixmap() is not None and not label.pixmap().isNull():
        return None
    if label.textFormat() == QtCore.Qt.TextFormat.RichText or (
            label.textFormat() == QtCore.Qt.TextFormat.AutoText and QtGui.Qt.mightBeRichText(text)):
        doc = QtGui.QTextDocument()
        doc.setHtml(text)
        text = doc.toPlainText()
        if "\n" in text:
            return None
    return text


def clipped_labels(window: QtWidgets.QWidget) -> list[str]:
    """Labels on screen whose one line of text is wider than the room they have."""
    found = []
    for label in window.findChildren(QtWidgets.QLabel):
        if on_screen(label, window).isEmpty() or label.hasScaledContents():
            continue
        text = _single_line_text(label)
        if text is None or label.textInteractionFlags() & QtCore.Qt.TextInteractionFlag.TextEditable:
            continue
        room = label.contentsRect().width() - 2 * label.margin() - label.indent() if label.indent() > 0 else \
            label.contentsRect().width() - 2 * label.margin()
        need = label.fontMetrics().horizontalAdvance(text)
        if need > room + SLACK_PX:
            found.append(f"{label.objectName() or type(label.parentWidget()).__name__}: {text[:50]!r} "
                         f"needs {need} px, has {room}")
    return found


def overlapping_labels(window: QtWidgets.QWidget) -> list[str]:
    """Pairs of labels on screen in one parent whose rectangles overlap."""
    found = []
    by_parent: dict[int, list[QtWidgets.QLabel]] = {}
    for label in window.findChildren(QtWidgets.QLabel):
        if label.text().strip() and not on_screen(label, window).isEmpty():
            by_parent.setdefault(id(label.parentWidget()), []).append(label)
    for labels in by_parent.values():
        for i, a in enumerate(labels):
            for b in labels[i + 1:]:
                both = a.geometry().intersected(b.geometry())
                if both.width() > SLACK_PX and both.height() > SLACK_PX:
                    found.append(f"{a.text()[:30]!r} overlaps {b.text()[:30]!r}")
    return found


def shown_rect(widget: QtWidgets.QWidget, window: QtWidgets.QWidget) -> QtCore.QRect:
    """widget's rectangle in window coordinates as far as its ancestors show it (a plot
    scrolled out of its page shows nothing)."""
    rect = QtCore.QRect(widget.mapTo(window, QtCore.QPoint(0, 0)), widget.size())
    parent = widget.parentWidget()
    while parent is not None and parent is not window:
        rect = rect.intersected(QtCore.QRect(parent.mapTo(window, QtCore.QPoint(0, 0)), parent.size()))
        parent = parent.parentWidget()
    return rect.intersected(window.rect())


def _plot_texts(box: pg.ViewBox) -> list[pg.TextItem]:
    """The plot's text items with text, its reference lines' labels among them."""
    texts = []
    for item in box.addedItems:
        if isinstance(item, pg.TextItem):
            texts.append(item)
        elif isinstance(item, pg.InfiniteLine) and item.isVisible():
            texts.extend(c for c in item.childItems() if isinstance(c, pg.TextItem))
    return [t for t in texts if t.isVisible() and t.textItem.toPlainText().strip()]


def _ink(item: pg.TextItem) -> QtCore.QRectF:
    """The text's rectangle in the plot's scene, less its document's blank margin."""
    item.updateTransform()
    margin = item.textItem.document().documentMargin()
    return item.textItem.mapRectToScene(item.textItem.boundingRect()).adjusted(margin, margin, -margin, -margin)


def plot_text_problems(window: QtWidgets.QWidget) -> list[str]:
    """Texts inside the plots on screen that their plot's edge cuts, or that overlap
    another text of the same plot."""
    found = []
    views = [v for v in window.findChildren(QtWidgets.QGraphicsView) if isinstance(v, pg.PlotWidget)]
    for view in views:
        if not view.isVisible() or shown_rect(view, window).isEmpty():
            continue
        box = view.getPlotItem().getViewBox()
        area = box.sceneBoundingRect().adjusted(-SLACK_PX, -SLACK_PX, SLACK_PX, SLACK_PX)
        inks = [(t.textItem.toPlainText()[:40].replace("\n", " "), _ink(t)) for t in _plot_texts(box)]
        found += [f"{name!r} cut by its plot's edge" for name, ink in inks if not area.contains(ink)]
        for i, (a, ra) in enumerate(inks):
            for b, rb in inks[i + 1:]:
                both = ra.intersected(rb)
                if both.width() > SLACK_PX and both.height() > SLACK_PX:
                    found.append(f"{a!r} overlaps {b!r} in its plot")
    return found


def settled_problems(qtbot, window: QtWidgets.QWidget, timeout_ms: int = 5_000) -> list[str]:
    """The labels cut or overlapping once the layouts after a new text have run: waits for
    none (labels kept apart, wraps and ranges re-arrange a few passes later), then says
    what is still wrong."""
    def problems() -> list[str]:
        window.grab()  # plot texts take their place as drawn
        return clipped_labels(window) + overlapping_labels(window) + plot_text_problems(window)

    try:
        qtbot.waitUntil(lambda: problems() == [], timeout=timeout_ms)
    except qtbot.TimeoutError:
        pass  # the caller's assertion names what is wrong
    return problems()


# Known and not fixed yet: each must still fail (a fixed one is taken off this list).
KNOWN: dict[tuple[int, str, str], str] = {}  # (scene, "WxH", language) -> why


@pytest.fixture(scope="module", params=SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
def talk_at(request, qapp, tmp_path_factory):
    old = os.environ.get("LAB_SETTINGS_DIR")
    os.environ["LAB_SETTINGS_DIR"] = str(tmp_path_factory.mktemp("settings"))
    window, controller = scene_window(str(CHAPTER3), 1)
    window.setFixedSize(*request.param)
    window.show()
    yield window, controller, request.param
    window.talk.close() if window.talk is not None else None
    window.close()
    window.deleteLater()
    if old is None:
        os.environ.pop("LAB_SETTINGS_DIR", None)
    else:
        os.environ["LAB_SETTINGS_DIR"] = old


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("number", range(1, SCENES + 1))
def test_a_scene_shows_every_label_whole(qtbot, talk_at, number, lang, tmp_path):
    window, controller, (width, height) = talk_at
    controller.go(number - 1)
    qtbot.waitUntil(controller.is_ready, timeout=60_000)
    apply_language(lang, window)
    translate_tree(window)
    problems = settled_problems(qtbot, window)
    out = Path(os.environ.get("LAB_TALK_SNAPSHOTS") or tmp_path)
    out.mkdir(parents=True, exist_ok=True)
    image = window.grab().toImage()
    assert (image.width(), image.height()) == (width, height)
    assert image.save(str(out / f"scene{number:02d}_{width}x{height}_{lang}.png"))
    apply_language("both", window)
    known = KNOWN.get((number, f"{width}x{height}", lang))
    if known is not None:
        assert problems, f"scene {number} at {width}x{height} in {lang} is whole now: take it off KNOWN"
        pytest.xfail(known)
    assert problems == [], f"scene {number} at {width}x{height} in {lang}: " + "; ".join(problems)


def test_the_geometry_check_finds_a_cut_label(qtbot):
    box = QtWidgets.QWidget()
    qtbot.addWidget(box)
    box.resize(300, 100)
    cut = QtWidgets.QLabel("a label far too long for forty pixels", box)
    cut.setGeometry(0, 0, 40, 20)
    whole = QtWidgets.QLabel("ok", box)
    whole.setGeometry(0, 50, 100, 20)
    over = QtWidgets.QLabel("over", box)
    over.setGeometry(10, 55, 100, 20)
    box.show()
    qtbot.waitExposed(box)
    assert [p.split(":")[0] for p in clipped_labels(box)] == ["QWidget"]
    assert overlapping_labels(box) == ["'ok' overlaps 'over'"]
    QtCore.QCoreApplication.processEvents()


def test_the_geometry_check_finds_a_cut_and_an_overlapping_plot_text(qtbot):
    box = QtWidgets.QWidget()
    qtbot.addWidget(box)
    box.resize(320, 220)
    view = pg.PlotWidget(box)
    view.setGeometry(0, 0, 320, 220)
    plot = view.getPlotItem()
    plot.setXRange(0, 1, padding=0)
    plot.setYRange(0, 1, padding=0)
    for text, x, y in (("a label far too long to fit right of the middle", 0.6, 0.8), ("one", 0.1, 0.3),
                       ("two", 0.12, 0.31), ("alone", 0.1, 0.6)):
        item = pg.TextItem(text, anchor=(0, 0.5))
        plot.addItem(item)
        item.setPos(x, y)
    box.show()
    qtbot.waitExposed(box)
    box.grab()
    assert plot_text_problems(box) == ["'a label far too long to fit right of the' cut by its plot's edge",
                                       "'one' overlaps 'two' in its plot"]
    QtCore.QCoreApplication.processEvents()
