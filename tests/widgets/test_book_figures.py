"""Figures the book draws, drawn from core (图 3-9, 图 3-30), and the serving page telling one
story: the banner's ▶, its card and the backlog plot's ② curve show the same numbers."""
import math

import numpy as np
import pytest

from core.registry import get
from core.request import figures as request_figures
from core.scaling import figures as scaling_figures
from core.serving import backlog as bl
from core.serving import figures as F
from core.verify import verify_calculator
from widgets.kit.jobs import jobs


# ---- 图 3-9 ------------------------------------------------------------------------------
def test_attempts_figure_has_the_books_numbers():
    calc = get("cost.compare")
    inputs = calc.resolve()
    fig = request_figures.attempts_figure(inputs, calc.run(inputs))
    old, new = fig["bars"]
    # 旧方法 1 单位、50%;新方法 2 单位、80%: 100 attempts each, failures in the numerator.
    assert (old["total"], old["successes"], old["failure_cost"], old["per_success"]) == (100, 50, 50, 2.0)
    assert (new["total"], new["successes"], new["failure_cost"], new["per_success"]) == (200, 80, 40, 2.5)
    assert [s + f for s, f in zip(fig["success_cost"], fig["failure_cost"])] == [100, 200]
    assert "80 成功 → 2.5 / 成功" in fig["labels"][1][0]


@pytest.fixture
def show(qtbot):
    """show(PanelClass): the panel at 1280×720, built, figures drawn, jobs done; closed after."""
    shown = []

    def _show(panel_class):
        w = panel_class()
        qtbot.addWidget(w)
        w.resize(1280, 720)
        w.show()
        qtbot.waitUntil(lambda: w.is_ready() and not jobs().busy_keys(), timeout=60_000)
        shown.append(w)
        return w

    yield _show
    for w in shown:
        w.close()
    jobs().wait_idle()


@pytest.fixture
def request_panel(show):
    from widgets.request import RequestPanel

    return show(RequestPanel)


def test_attempts_plot_draws_the_compare_card(request_panel, qtbot):
    panel = request_panel
    assert list(panel.success_cost_bars.opts["height"]) == [50, 160]
    assert list(panel.failure_cost_bars.opts["y0"]) == [50, 160]
    assert list(panel.failure_cost_bars.opts["height"]) == [50, 40]
    with qtbot.waitSignal(panel.compare_card.computed):
        panel.compare_card.set_value("p2", "0.5")  # widget -> model -> figure
    assert list(panel.failure_cost_bars.opts["height"]) == [50, 100]
    assert "→ 4 / 成功" in panel.attempt_labels[1].toPlainText()


def test_cost_success_is_referenced_where_the_book_draws_it():
    assert str(get("cost.success").ref) == "§3.2.2 图 3-9"


# ---- 图 3-30 -----------------------------------------------------------------------------
def test_a100_figure_converts_by_the_books_ratio():
    calc = get("scaling.a100_equivalent")
    inputs = calc.resolve()
    fig = scaling_figures.a100_figure(inputs, calc.run(inputs))
    hours = dict(zip(fig["labels"], fig["a100_hours"]))
    assert hours["LLaMA 65B"] == 1_022_362  # 练习 3-10's A100 hours stay as they are
    ratio = 989.4 / 312
    assert round(ratio, 2) == 3.17 and fig["ratio_text"].endswith("= 3.17")
    assert hours["Qwen3-8B RL"] == pytest.approx(17_920 * ratio)  # Qwen3 表 21, RL route
    assert hours["Qwen3-8B OPD"] == pytest.approx(1_800 * ratio)
    assert hours["DeepSeek-V3"] == pytest.approx(2_664_000 * ratio)  # pre-training only
    assert hours[scaling_figures.YOURS_LABEL] == pytest.approx(17_920 * ratio)
    assert np.allclose(10 ** fig["log10_a100"], fig["a100_hours"])


@pytest.fixture
def scaling_panel(show):
    from widgets.scaling import ScalingPanel

    return show(ScalingPanel)


def test_a100_plot_draws_the_models_and_follows_the_card(scaling_panel, qtbot):
    panel = scaling_panel
    heights = panel.a100_bars.opts["height"]
    assert 10 ** heights[0] == pytest.approx(1_022_362)
    x, reported = panel.a100_reported.getData()
    assert reported[0] == pytest.approx(math.log10(1_022_362))  # log mode: the curve holds log10
    with qtbot.waitSignal(panel.a100_card.computed):
        panel.a100_card.set_value("gpu_hours", "1800")
    assert 10 ** panel.a100_bars.opts["height"][-1] == pytest.approx(1_800 * 989.4 / 312)
    assert panel.a100_texts[-1].toPlainText().endswith("5.71k")


# ---- serving: one value everywhere ---------------------------------------------------------
@pytest.fixture
def serving_panel(show):
    from widgets.serving import ServingPanel

    return show(ServingPanel)


def _status_backlog(panel) -> str:
    return panel.banner_status.toPlainText().split("积压 ")[1].split(" 步")[0]


def test_banner_ends_at_the_cards_backlog(serving_panel):
    panel = serving_panel
    panel.banner_player.seek(panel.banner_player.duration)
    card_text = panel.backlog_card.outputs.label("backlog_at_end_of_arrivals").text()
    assert card_text == "112,793 steps"
    assert f"{_status_backlog(panel)} steps" == card_text


@pytest.mark.parametrize("t", [75.0, 120.0, 150.0, 180.0])
def test_backlog_cursor_sits_on_the_shift_curve(serving_panel, t):
    panel = serving_panel
    panel.state.set_player("banner", t)
    x = panel.backlog_cursor.value()
    assert x == t - 60.0 and panel.backlog_cursor.isVisible()
    curve_t, curve_q = panel.backlog_plot.curves["shift"].getData()
    on_curve = float(np.interp(x, curve_t, curve_q))
    banner_q = float(np.interp(t, panel.banner.fig["backlog_t"], panel.banner.fig["backlog_q"]))
    assert on_curve == pytest.approx(banner_q, rel=1e-7)  # μ from the rate card: the book's to 1e-8
    assert bl.matching_preset(panel.state.card("backlog").inputs) == "shift"


def test_backlog_cursor_hides_while_the_uniform_minute_plays(serving_panel):
    serving_panel.state.set_player("banner", 30.0)
    assert not serving_panel.backlog_cursor.isVisible()
    assert F.backlog_cursor(30.0) == (-30.0, False)


def test_decode_rate_and_capacity_read_the_same_on_every_card_and_row(serving_panel):
    panel = serving_panel
    rate = panel.rate_card.outputs
    per_card = rate.label("steps_per_s_per_card").text()
    capacity = rate.label("steps_per_s").text()
    assert (per_card, capacity) == ("2,796 steps/s", "5,591 steps/s")
    assert panel.backlog_card.outputs.label("capacity_steps_per_s").text() == capacity
    rows = {r.output: r for r in verify_calculator(get("serving.decode_rate"))}
    assert rows["steps_per_s_per_card"].computed_text == per_card and rows["steps_per_s_per_card"].ok
    assert rows["steps_per_s"].computed_text == capacity and rows["steps_per_s"].ok
    assert "5,591 步/s" in panel.capacity_label.toPlainText()
    assert "2,796/卡" in panel.capacity_label.toPlainText()


def test_card_values_show_four_digits_and_every_digit_on_hover(serving_panel):
    label = serving_panel.backlog_card.outputs.label("drain_s")
    assert label.text() == "20.17 s"
    assert "= 20.17283" in label.toolTip()  # full_value: 112,792.8 / 5,591.32 with all its digits
