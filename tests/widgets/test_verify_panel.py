from core.verify import verify_all
from widgets.verify_panel import VerifyPanel


def test_every_book_row_is_listed_and_matches(qtbot):
    panel = VerifyPanel()
    qtbot.addWidget(panel)
    rows = verify_all()
    assert panel.table.rowCount() == len(rows)
    marks = {panel.table.item(i, 7).text() for i in range(panel.table.rowCount())}
    assert marks == {"✓"}
    assert f"{len(rows)} of {len(rows)} figures match" in panel.summary.text()


def test_filter_hides_other_rows(qtbot):
    panel = VerifyPanel()
    qtbot.addWidget(panel)
    panel.filter_edit.setText("metrics.percentile")
    visible = [i for i in range(panel.table.rowCount()) if not panel.table.isRowHidden(i)]
    assert visible and all(panel.table.item(i, 0).text() == "metrics.percentile" for i in visible)
    row_456 = next(i for i in visible if panel.table.item(i, 4).text().startswith("456"))
    assert panel.table.item(row_456, 5).text() == "456 rank"
