import pytest

from core import agents
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
    assert y[0] == pytest.approx(100 * agents.AMDAHL.run()["saved_fraction"])  # the first round halved
    assert round(panel.amdahl_cap.value(), 1) == 47.5  # the book's "约 47.5%"


def test_branch_bars_show_sharing(panel):
    totals = [panel.branch_card.result["state_bytes"] / GiB, panel.branch_card.result["unshared_state_bytes"] / GiB]
    heights = [a + b for a, b in zip(panel.shared_bars.opts["height"], panel.branch_bars.opts["height"])]
    assert heights == pytest.approx(totals)


# ---- binding to the state model ------------------------------------------------------
def edit(card, name, text):
    field = card.form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def test_model_change_redraws_the_plots(panel):
    panel.state.card("amdahl").update({"part_fraction": 0.8})
    assert panel.amdahl_cap.value() == pytest.approx(80)
    x, y = panel.amdahl_curve.getData()
    assert y[-1] == pytest.approx(80 * (1 - 1 / 1000))
    panel.state.card("edit").update({"edit_position": 1001})
    assert panel.edit_line.value() == 1000 and panel.invalid_bar.opts["x0"] == [1000]
    assert panel.edit_card.form.field("edit_position").edit.text() == "1001"


def test_editing_a_field_changes_the_model(panel):
    events = []
    panel.state.changed.connect(lambda path, _: events.append(path))
    edit(panel.path_card, "tool_b_s", "4")
    assert panel.state.card("path").inputs["tool_b_s"] == 4
    assert events == ["cards.path"]


def test_json_round_trip_restores_the_panel(panel, qtbot):
    edit(panel.path_card, "tool_b_s", "4")
    edit(panel.branch_card, "shared_prefix_tokens", "8000")
    saved = panel.state.to_json()
    heights = list(panel.shared_bars.opts["height"])
    panel.state.reset()
    assert max(panel.path_bars["parallel"]["prefill"].opts["x1"]) == 15  # 2 + max(6, 10) + 3
    panel.state.load_json(saved)
    assert max(panel.path_bars["parallel"]["prefill"].opts["x1"]) == 11
    assert list(panel.shared_bars.opts["height"]) == pytest.approx(heights)

    from core.agents_state import AgentsState

    state = AgentsState()
    state.load_json(saved)
    other = AgentsPanel(state=state)
    qtbot.addWidget(other)
    assert other.state is state and other.path_card.form.field("tool_b_s").edit.text() == "4"
    assert list(other.shared_bars.opts["height"]) == pytest.approx(heights)


def test_reset_restores_the_book_values(panel):
    edit(panel.amdahl_card, "speedup", "10")
    panel.state.reset()
    assert panel.amdahl_card.form.field("speedup").edit.text() == "2"
    x, y = panel.amdahl_point.getData()
    assert y[0] == pytest.approx(100 * agents.AMDAHL.run()["saved_fraction"])  # the first round halved
