"""The Serving panel's numbers read one way: bytes in the panel's one system (its
calculators' SI: Qwen3-8B's KV per token is 147.5 kB in the picker's line as in the
model.config card, never 144 KiB beside it), a byte figure typed as bare digits (W, BW)
is echoed readable beside its field, and no label is cut, in English or Chinese."""
import pytest
from PySide6 import QtWidgets

from core.registry import get
from core.serving.model_choice import BYTES
from widgets.kit.i18n import set_language, translate_tree
from widgets.serving.byte_fields import echo_text


@pytest.fixture
def panel(open_serving_panel):
    return open_serving_panel(1280, 720)


def test_the_panel_has_one_byte_system_its_calculators():
    for name in ("serving.replay", "serving.decode_rate", "model.config"):
        assert get(name).byte_system == BYTES, name


def test_kv_per_token_reads_the_same_in_the_picker_and_the_card(panel):
    sets = panel.model_section.sets_label.text()
    assert "KV 147.5 kB/token" in sets and "KiB" not in sets
    assert "weights read per step 15.14 GB" in sets and "1.792 TB/s" in sets
    out = panel.findChild(QtWidgets.QLabel, "out_kv_bytes_per_token")
    assert out.text() == "147.5 kB"  # the model.config card: 147,456 B


def test_bare_digits_of_bytes_are_echoed_readable(panel, qtbot):
    echo, form = panel.byte_echo, panel.rate_card.form
    w, bw, kv = (echo.labels[n] for n in ("weights_bytes", "bandwidth_bytes_per_s", "kv_bytes_per_token"))
    assert form.field("weights_bytes").edit.text() == "15136811008"
    assert w.text() == "= 15.14 GB" and w.isVisibleTo(panel)
    assert bw.text() == "= 1.792 TB/s"
    assert form.field("kv_bytes_per_token").edit.text() == "144KiB" and not kv.isVisibleTo(panel)  # reads already
    edit = form.field("weights_bytes").edit
    for typed, shown in (("16e9", "= 16 GB"), ("16GB", ""), ("20000000000", "= 20 GB")):
        edit.setText(typed)
        edit.editingFinished.emit()
        assert w.text() == shown, typed
    edit.setText("lots")  # refused: the text is not the value's, no echo
    edit.editingFinished.emit()
    assert panel.state.card("rate").errors and not w.isVisibleTo(panel)
    assert echo_text(15136811008, "bytes", "iec", "15136811008") == "= 14.1 GiB"


def _cut(panel):
    """Visible plain-text labels whose text does not fit: one line wider than the label,
    or wrapped lines taller than it."""
    cut = []
    for label in panel.findChildren(QtWidgets.QLabel):
        text = label.text()
        if not text or "<" in text or not label.isVisibleTo(panel) or label.width() <= 0:
            continue
        metrics = label.fontMetrics()
        if label.wordWrap():
            too_small = label.height() + 1 < label.heightForWidth(label.width())
        else:
            too_small = max(metrics.horizontalAdvance(line) for line in text.splitlines()) > label.width() + 1
        if too_small:
            cut.append((label.objectName(), text[:40], label.width()))
    return cut


@pytest.mark.parametrize("language", ["en", "zh"])
def test_no_label_is_cut(panel, qtbot, language):
    try:
        set_language(language)
        translate_tree(panel)
        QtWidgets.QApplication.processEvents()
        qtbot.waitUntil(lambda: not _cut(panel), timeout=5_000)  # laid out again in the language shown
        note = [la for la in panel.findChildren(QtWidgets.QLabel) if "counting rules" in la.text()
                or "计数规则" in la.text()]
        assert note and all(la.isVisibleTo(panel) for la in note)  # "counting rul…" whole
    finally:
        set_language("both")
        translate_tree(panel)
