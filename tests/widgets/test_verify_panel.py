from PySide6 import QtCore

from core.verify import verify_all
from core.verify_state import VerifyState
from widgets.kit.jobs import jobs
from widgets.verify import MARK, VerifyPanel


def _panel(qtbot, state=None):
    panel = VerifyPanel(state)
    qtbot.addWidget(panel)
    qtbot.waitUntil(lambda: panel.model.rowCount() > 0, timeout=30_000)  # rows come from the runner
    return panel


def _cell(panel, view_row, column):
    return panel.proxy.index(view_row, column).data()


def test_every_book_row_is_listed_and_matches(qtbot):
    panel = _panel(qtbot)
    rows = verify_all()
    assert panel.model.rowCount() == panel.proxy.rowCount() == len(rows)
    marks = {_cell(panel, i, MARK) for i in range(panel.proxy.rowCount())}
    assert marks == {"✓"}
    assert f"{len(rows)} of {len(rows)} figures match" in panel.summary.text()
    assert panel.table.model() is panel.proxy


def test_filter_hides_other_rows(qtbot):
    panel = _panel(qtbot)
    panel.filter_edit.setText("metrics.percentile")
    visible = range(panel.proxy.rowCount())
    assert visible and all(_cell(panel, i, 0) == "metrics.percentile" for i in visible)
    row_456 = next(i for i in visible if _cell(panel, i, 4).startswith("456"))
    assert _cell(panel, row_456, 5) == "456 rank"
    assert panel.state.view("filter") == "metrics.percentile"


def test_filter_is_state_and_state_drives_the_filter(qtbot):
    state = VerifyState()
    panel = _panel(qtbot, state)
    state.set_view("filter", "PERCENTILE")  # case does not matter
    assert panel.filter_edit.text() == "PERCENTILE"
    assert panel.proxy.rowCount() == sum(r.calculator == "metrics.percentile" for r in panel.rows)
    state.set_view("filter", "")
    assert panel.proxy.rowCount() == len(panel.rows)


def test_run_again_runs_on_the_runner_and_fills_the_model_in_one_reset(qtbot):
    panel = _panel(qtbot)
    resets = []
    panel.model.modelReset.connect(lambda: resets.append(1))
    inserted = []
    panel.model.rowsInserted.connect(lambda *a: inserted.append(1))
    panel.model.set_rows([])
    assert panel.model.rowCount() == 0
    resets.clear()
    with qtbot.waitSignal(panel.rows_changed, timeout=30_000):
        panel.rerun_button.click()
        assert jobs().busy("verify")  # submitted to the job runner, not computed here
        assert panel.model.rowCount() == 0
    expected = len(verify_all())
    qtbot.waitUntil(lambda: panel.model.rowCount() == expected, timeout=30_000)
    assert resets == [1] and not inserted


def test_sorting_by_a_number_column_and_back_to_the_books_order(qtbot):
    panel = _panel(qtbot)
    panel.filter_edit.setText("metrics.percentile")
    book_order = [_cell(panel, i, 4) for i in range(panel.proxy.rowCount())]
    panel.state.set_view("sort_descending", True)
    panel.state.set_view("sort_column", 4)
    shown = [_cell(panel, i, 4) for i in range(panel.proxy.rowCount())]
    assert shown[0].startswith("456") and shown[-1].startswith("3.5")  # as numbers, not text
    assert panel.table.horizontalHeader().sortIndicatorSection() == 4
    panel.state.set_view("sort_column", -1)
    assert [_cell(panel, i, 4) for i in range(panel.proxy.rowCount())] == book_order


def test_column_widths_are_sized_once_and_left_to_the_user(qtbot):
    panel = _panel(qtbot)
    header = panel.table.horizontalHeader()
    assert header.sectionResizeMode(0) == header.ResizeMode.Interactive
    panel.table.setColumnWidth(0, 77)
    with qtbot.waitSignal(panel.rows_changed, timeout=30_000):
        panel.refresh()
    assert panel.table.columnWidth(0) == 77


def test_state_round_trips_through_json(qtbot):
    panel = _panel(qtbot)
    panel.filter_edit.setText("serving")
    saved = panel.state.to_json()
    other = VerifyState()
    other.load_json(saved)
    assert other.to_json() == saved and other.view("filter") == "serving"
    panel.state.reset()
    assert panel.filter_edit.text() == "" and panel.proxy.rowCount() == len(panel.rows)


def test_closing_drops_a_running_check(qtbot):
    panel = _panel(qtbot)
    got = []
    panel.rows_changed.connect(lambda: got.append(1))
    panel.refresh()
    panel.close()
    assert jobs().wait_idle()
    QtCore.QCoreApplication.processEvents()
    assert got == [] and not jobs().busy("verify")


def test_clicking_a_header_sorts_and_is_kept_in_the_state(qtbot):
    panel = _panel(qtbot)
    panel.resize(1280, 720)
    panel.show()
    header = panel.table.horizontalHeader()
    x = header.sectionViewportPosition(0) + header.sectionSize(0) // 2
    qtbot.mouseClick(header.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=QtCore.QPoint(x, header.height() // 2))
    assert panel.state.view("sort_column") == 0
    names = [_cell(panel, i, 0) for i in range(panel.proxy.rowCount())]
    assert names == sorted(names) or names == sorted(names, reverse=True)
