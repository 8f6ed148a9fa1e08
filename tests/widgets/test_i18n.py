"""The language switch on every panel: in English no Chinese is left, in Chinese no English
words but the book's terms, "both" gives back exactly what the panel wrote, and switching
back and forth is stable. Plus the text rules (pairs, catalogs, markup)."""
from __future__ import annotations

import re

import pytest
from PySide6 import QtWidgets

from widgets.kit import i18n
from widgets.kit.i18n import english_words, has_cjk, set_language, split_pair, split_spaced_pair, translate_text
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels

_TAGS = re.compile(r"<code>.*?</code>|<[^>]+>|&nbsp;")


@pytest.fixture(autouse=True)
def _back_to_both():
    yield
    set_language("both")


def shown_texts(root: QtWidgets.QWidget) -> list[str]:
    """Every string the walker owns under root, as read from the widgets (markup and
    <code> identifiers removed)."""
    import pyqtgraph as pg

    texts = []
    for w in [root, *root.findChildren(QtWidgets.QWidget)]:
        if isinstance(w, (QtWidgets.QLabel, QtWidgets.QAbstractButton)):
            texts.append(w.text())
        if isinstance(w, QtWidgets.QGroupBox):
            texts.append(w.title())
        if isinstance(w, QtWidgets.QTabWidget):
            texts += [w.tabText(i) for i in range(w.count())]
        if isinstance(w, QtWidgets.QComboBox):
            texts += [w.itemText(i) for i in range(w.count())  # labels, not names (a device's)
                      if w.itemData(i) is not None and w.itemData(i) != w.itemText(i)]
        if isinstance(w, QtWidgets.QGraphicsView) and w.scene() is not None:
            for item in w.scene().items():
                if isinstance(item, pg.InfLineLabel):
                    texts.append(item.format)
                elif isinstance(item, pg.TextItem):
                    texts.append(item.toPlainText())
                elif isinstance(item, pg.LabelItem):
                    texts.append(item.text)
                elif isinstance(item, pg.AxisItem):
                    texts += [item.labelText, item.labelUnits]
                    texts += [text for level in item._tickLevels or () for _, text in level]
    return [_TAGS.sub(" ", t) for t in texts if t]


def assert_reads_in_either_language(texts) -> None:
    """texts() (what a widget shows, e.g. shown_texts of a card) holds no Chinese in English
    and no English in Chinese, and reads exactly as before once back in both."""
    both = texts()
    try:
        set_language("en")
        assert not [t for t in texts() if has_cjk(t)]
        set_language("zh")
        assert not [(t, english_words(t)) for t in texts() if english_words(t)]
    finally:
        set_language("both")
    assert texts() == both

def _built(qtbot, key: str) -> QtWidgets.QWidget:
    info = next(p for p in discover_panels() if p.key == key)
    panel = info.factory()
    qtbot.addWidget(panel)
    panel.resize(1280, 720)
    panel.show()
    qtbot.waitUntil(lambda: jobs().wait_idle(timeout_ms=50) and getattr(panel, "is_ready", lambda: True)(),
                    timeout=60_000)
    return panel


@pytest.mark.parametrize("key", [p.key for p in discover_panels()])
def test_every_panel_switches_language(qtbot, key):
    panel = _built(qtbot, key)
    original = shown_texts(panel)
    assert any(has_cjk(t) for t in original) and any(english_words(t) for t in original)

    set_language("en")
    english = shown_texts(panel)
    left = [t for t in english if has_cjk(t)]
    assert not left, "Chinese left in English:\n" + "\n".join(left)

    set_language("zh")
    chinese = shown_texts(panel)
    left = [f"{t!r}: {english_words(t)}" for t in chinese if english_words(t)]
    assert not left, "English left in Chinese:\n" + "\n".join(left)
    assert sum(has_cjk(t) for t in chinese) > sum(has_cjk(t) for t in original)

    set_language("en")
    assert shown_texts(panel) == english  # back and forth is stable
    set_language("both")
    assert shown_texts(panel) == original  # exactly as the panel wrote it


def test_a_label_the_panel_sets_again_is_translated_again(qtbot):
    label = QtWidgets.QLabel("预设 preset")
    qtbot.addWidget(label)
    label.show()
    set_language("en")
    assert label.text() == "preset"
    label.setText("自定义 custom")  # the panel writes new text while English is shown
    i18n.translate_tree(label)
    assert label.text() == "custom"
    set_language("both")
    assert label.text() == "自定义 custom"


def test_pairs_split_by_language():
    assert split_pair("§3.1 从单次请求到持续到达的负载 · Request & Metrics") == (
        "§3.1 从单次请求到持续到达的负载", "§3.1 Request & Metrics")
    assert split_pair("§3.1.2 · 图 3-2 · 三个时间指标 · TTFT, T_request") == (
        "§3.1.2 · 图 3-2 · 三个时间指标", "§3.1.2 · Fig. 3-2 · TTFT, T_request")
    assert split_pair("Language · 语言") == ("语言", "Language")
    assert split_pair("例题 3-5 · Scaling Law 拟合与留出检验") is None  # Chinese on both sides: the catalog's
    assert split_spaced_pair("BF16 权重 weights") == ("BF16 权重", "BF16 weights")
    assert split_spaced_pair("首响应 TTFT") is None  # Chinese with a term: the catalog says "TTFT"


def test_catalog_translates_with_numbers_and_keeps_markup():
    assert translate_text("例题 3-5 · Scaling Law 拟合与留出检验", "en") == (
        "Example 3-5 · fitting a scaling law, checked on held-out points")
    assert translate_text("t =   12.5 s · 均匀混合 1:1 · 需求 80% · 积压 3,200 步", "en") == (
        "t =   12.5 s · even mix 1:1 · demand 80% · backlog 3,200 steps")
    rich = "<b>预设 preset</b> · <code>serving.backlog</code>"
    assert translate_text(rich, "zh") == "<b>预设</b> · <code>serving.backlog</code>"
    assert translate_text(rich, "both") == rich
    assert translate_text("图 3-20 示意", "en") == "Fig. 3-20 illustrative"


def test_parameter_labels_read_in_the_language_and_keep_the_identifier(qtbot):
    from core.registry import get
    from widgets.kit.param_form import ParamForm

    form = ParamForm(get("request.anatomy").params)
    qtbot.addWidget(form)
    form.show()
    label = form.field("input_tokens").label
    source = label.text()
    set_language("zh")
    assert label.text() == "输入 token P (tokens)" and "input_tokens" in label.toolTip()
    set_language("en")
    assert label.text() == "input tokens P (tokens)"
    set_language("both")
    assert label.text() == source


def test_an_unknown_language_is_refused_by_name():
    with pytest.raises(ValueError, match="language: got 'fr'; valid: zh, en, both"):
        set_language("fr")
    assert i18n.language() == "both"
