"""The Plan panel opens a point in Serving: a clicked point or a double-clicked row becomes the
Serving state's replay A (selected in the table, ringed in the plot), a loaded trace it sets
aside is named, and in the main window the Serving panel shows that point."""
from __future__ import annotations

import math

import pytest
from PySide6 import QtCore, QtWidgets

from tests.widgets.plan_testkit import run_sweep
from widgets.kit.jobs import jobs
from widgets.plan.form import SETTING_ADDRESS, SETTING_ENGINE, SETTING_WORKERS


@pytest.fixture
def panel(plan_panel):
    return plan_panel


class FakeWindow(QtWidgets.QMainWindow):
    """The main window's panel API (show_panel, panel, panel_keys) with a Serving state."""

    def __init__(self, plan):
        super().__init__()
        from core.serving.state import ServingState

        self.setCentralWidget(plan)
        self.serving = QtWidgets.QWidget()
        self.serving.state = ServingState()
        self.shown = []

    def panel_keys(self):
        return ["plan", "serving"]

    def show_panel(self, key):
        self.shown.append(key)

    def panel(self, key):
        return self.serving


def test_clicking_a_point_opens_it_in_the_serving_replay(qtbot, panel):
    p = panel({"max_num_seqs": "16,48", "token_budget": ""})
    window = FakeWindow(p)
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    run_sweep(qtbot, p)
    QtWidgets.QApplication.processEvents()
    row = max(p.rows(), key=lambda r: r["param.max_num_seqs"])
    x, y = row["cost_per_million_output_tokens"], math.log10(row["p99_ttft_ms"] / 1000)
    widget = p.plots.pareto_card.plot_widget
    view = p.plots.pareto_card.plot.vb
    pos = widget.mapFromScene(view.mapViewToScene(QtCore.QPointF(x, y)))
    with qtbot.waitSignal(p.point_opened, timeout=5_000) as blocker:
        qtbot.mouseClick(widget.viewport(), QtCore.Qt.MouseButton.LeftButton, pos=pos)
    assert blocker.args[0]["row"] is row
    assert window.shown == ["serving"]
    inputs = window.serving.state.replay("A").inputs
    assert inputs["max_num_seqs"] == 48
    assert inputs["token_budget"] == row["param.token_budget"]
    assert "opened in Serving" in p.form.status.text()
    # The table selects the clicked point and the plot rings it.
    selected = p.table.selectionModel().selectedRows()
    assert [p.table.rows_model.rows[i.row()] for i in selected] == [row]
    sx, _ = p.plots.selected.getData()
    assert list(sx) == [x]
    # A double click on a row opens that row.
    other = next(r for r in p.rows() if r is not row)
    p.table.row_opened.emit(other)
    assert window.serving.state.replay("A").inputs["max_num_seqs"] == other["param.max_num_seqs"]
    window.takeCentralWidget()  # the panel outlives the window (the fixture closes it)


def test_opening_a_point_says_which_loaded_trace_it_replaces(qtbot, panel):
    from tests.widgets.test_serving_trace import AZURE_200

    p = panel({"max_num_seqs": "16,48", "token_budget": ""})
    window = FakeWindow(p)
    qtbot.addWidget(window)
    window.show()
    run_sweep(qtbot, p)
    state = window.serving.state
    assert state.set_trace({"path": str(AZURE_200), "limit": "120"})
    p.open_row(p.rows()[0])  # a point of the scenario: the trace is set aside
    assert state.trace is None
    assert f"replacing the loaded trace {AZURE_200.name}" in p.form.status.text()
    p.open_row(p.rows()[1])  # nothing loaded now: nothing to name
    assert p.form.status.text().endswith("opened in Serving (replay A)")
    window.takeCentralWidget()  # the panel outlives the window (the fixture closes it)


def test_in_the_main_window_a_point_opens_in_the_serving_panel(qtbot):
    from lab.main_window import MainWindow
    from lab.settings import PANEL_KEYS

    assert {SETTING_ENGINE, SETTING_WORKERS, SETTING_ADDRESS} <= set(PANEL_KEYS)
    window = MainWindow()
    qtbot.addWidget(window)
    window.resize(1280, 720)
    window.show()
    window.show_panel("plan")
    plan = window.panel("plan")
    assert plan.form._settings is window.settings  # the engine is kept in the window's settings
    qtbot.waitUntil(lambda: window.is_ready("plan"), timeout=60_000)
    rows = plan.rows()
    assert rows and plan.table.rows_model.rowCount() == len(rows)
    row = rows[-1]
    plan.open_row(row)
    assert window.current_key() == "serving"
    state = window.panel("serving").state
    for name in ("max_num_seqs", "replicas", "seed"):
        if f"param.{name}" in row:
            assert state.replay("A").inputs[name] == row[f"param.{name}"]
    qtbot.waitUntil(lambda: window.is_ready("serving") and not jobs().busy_keys(), timeout=60_000)
    window.close()
    jobs().wait_idle()
