import pytest

from widgets.scaling_panel import ScalingPanel


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

    from core import scaling

    r = panel.fit_card.result
    law = scaling.ScalingLaw(r["E"], r["A"], r["B"], r["alpha"], r["beta"])
    for o in scaling.c4_observations():
        if o.split == "fit":
            assert abs(float(law.loss(o.parameters, o.tokens)) - o.loss) < 0.03
    assert len(panel.fit_curves) == len({o.parameters for o in scaling.c4_observations()})
    x, y = next(iter(panel.fit_curves.values())).getData()
    assert np.all(np.diff(y) < 0)  # loss falls as data grows
