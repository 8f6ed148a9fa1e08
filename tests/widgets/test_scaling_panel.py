import pytest

from widgets.scaling import ScalingPanel


@pytest.fixture
def panel(qtbot):
    w = ScalingPanel()
    qtbot.addWidget(w)
    w.show()
    return w


def test_lines_cross_at_the_break_even(panel):
    q = panel.serve_card.result["break_even_calls"]
    assert panel.cross_line.value() == pytest.approx(q / 1e6)
    x, small = panel.small_line.getData()
    _, large = panel.large_line.getData()
    assert small[0] > large[0] and small[-1] < large[-1]


def test_changing_target_loss_moves_the_intercepts(panel, qtbot):
    field = panel.serve_card.form.field("target_loss")
    before = panel.small_line.getData()[1][0]
    with qtbot.waitSignal(panel.serve_card.computed):
        field.edit.setText("3.2")
        field.edit.editingFinished.emit()
    assert panel.small_line.getData()[1][0] < before


def test_table_bar_follows_your_model(panel):
    field = panel.tokens_card.form.field("tokens")
    field.edit.setText("160e9")
    field.edit.editingFinished.emit()
    assert 10 ** panel.table_bars.opts["height"][-1] == pytest.approx(20)


def test_fit_curves_pass_near_the_fit_points(panel):
    import numpy as np

    from core.scaling import law as scaling_law

    r = panel.fit_card.result
    law = scaling_law.ScalingLaw(r["E"], r["A"], r["B"], r["alpha"], r["beta"])
    for o in scaling_law.c4_observations():
        if o.split == "fit":
            assert abs(float(law.loss(o.parameters, o.tokens)) - o.loss) < 0.03
    assert len(panel.fit_curves) == len({o.parameters for o in scaling_law.c4_observations()})
    x, y = next(iter(panel.fit_curves.values())).getData()
    assert np.all(np.diff(y) < 0)  # loss falls as data grows


# ---- binding to the state model ------------------------------------------------------
def edit(card, name, text):
    field = card.form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def test_model_change_redraws_the_plots(panel):
    before = panel.small_line.getData()[1][0]
    panel.state.card("serve").update({"target_loss": 3.2})
    assert panel.small_line.getData()[1][0] < before
    assert panel.serve_card.form.field("target_loss").edit.text() == "3.2"
    panel.state.card("tokens").update({"tokens": 160e9})
    assert 10 ** panel.table_bars.opts["height"][-1] == pytest.approx(20)


def test_editing_a_field_changes_the_model(panel):
    events = []
    panel.state.changed.connect(lambda path, _: events.append(path))
    edit(panel.calendar_card, "cards", "1024")
    assert panel.state.card("calendar").inputs["cards"] == 1024
    assert events == ["cards.calendar"]


def test_json_round_trip_restores_the_panel(panel, qtbot):
    edit(panel.serve_card, "target_loss", "3.2")
    saved = panel.state.to_json()
    small = panel.small_line.getData()[1].copy()
    panel.state.reset()
    assert panel.small_line.getData()[1][0] != small[0]
    panel.state.load_json(saved)
    assert list(panel.small_line.getData()[1]) == pytest.approx(list(small))

    from core.scaling.state import ScalingState

    state = ScalingState()
    state.load_json(saved)
    other = ScalingPanel(state=state)
    qtbot.addWidget(other)
    assert other.state is state and list(other.small_line.getData()[1]) == pytest.approx(list(small))


def test_reset_restores_the_book_values(panel):
    book = panel.cross_line.value()
    edit(panel.serve_card, "target_loss", "3.2")
    assert panel.cross_line.value() != pytest.approx(book)
    panel.state.reset()
    assert panel.cross_line.value() == pytest.approx(book)
    assert panel.serve_card.form.field("target_loss").edit.text() == "2.9"
