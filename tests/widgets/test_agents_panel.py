import pytest

from core.units import GiB
from widgets.agents_panel import AgentsPanel


@pytest.fixture
def panel(qtbot):
    w = AgentsPanel()
    qtbot.addWidget(w)
    w.resize(1400, 1000)
    w.show()
    return w


def test_dragging_the_edit_line_updates_the_reuse(panel, qtbot):
    with qtbot.waitSignal(panel.edit_card.computed):
        panel.edit_line.setValue(1200)
        panel.edit_line.sigPositionChangeFinished.emit(panel.edit_line)
    assert panel.edit_card.result["reusable_prefix_tokens"] == 1200
    assert panel.edit_card.form.field("edit_position").edit.text() == "1201"
    assert panel.invalid_bar.opts["x0"] == [1200]


def test_critical_path_lanes_end_at_the_computed_times(panel):
    field = panel.path_card.form.field("tool_b_s")
    field.edit.setText("4")
    field.edit.editingFinished.emit()
    assert panel.path_card.result["parallel_s"] == 11  # 2 + max(6, 4) + 3
    assert max(panel.path_bars["parallel"]["prefill"].opts["x1"]) == 11
    assert panel.state_bars["serial"].opts["x1"] == [12]


def test_amdahl_point_sits_on_the_curve(panel):
    x, y = panel.amdahl_point.getData()
    assert y[0] == pytest.approx(100 * 0.2375)
    assert panel.amdahl_cap.value() == pytest.approx(47.5)


def test_branch_bars_show_sharing(panel):
    totals = [panel.branch_card.result["state_bytes"] / GiB, panel.branch_card.result["unshared_state_bytes"] / GiB]
    heights = [a + b for a, b in zip(panel.shared_bars.opts["height"], panel.branch_bars.opts["height"])]
    assert heights == pytest.approx(totals)
