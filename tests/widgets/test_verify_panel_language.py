"""Verify's book refs follow the language (issue 14: they stayed Chinese in English)."""
from __future__ import annotations

from widgets.kit import i18n
from widgets.verify import REF_COLUMN, VerifyPanel


def test_the_book_refs_read_in_english_when_english_is_shown(qtbot):
    panel = VerifyPanel()
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.model.rowCount() > 0, timeout=30_000)
    model = panel.model
    chinese = [r for r in range(model.rowCount()) if "图" in model.cell(r, REF_COLUMN)]
    assert chinese  # the book's figures are referred to as 图 3-N
    row = chinese[0]
    seen = []
    model.dataChanged.connect(lambda first, last, *_: seen.append((first.column(), last.row())))
    i18n.set_language("en")
    assert (REF_COLUMN, model.rowCount() - 1) in seen  # the view is told to redraw them
    english = model.index(row, REF_COLUMN).data()
    assert "图" not in english and "Fig. " in english
    assert english == i18n.book_refs_in_english(model.cell(row, REF_COLUMN))
    i18n.set_language("zh")
    assert model.index(row, REF_COLUMN).data() == model.cell(row, REF_COLUMN)
    panel.close()
