from pathlib import Path

import pytest
from PySide6 import QtWidgets

from core.agents import calculator as agents
from core.agents import trajectory as agents_trajectory
from core.units import GiB
from widgets.agents import AgentsPanel

CONFIGS = Path(__file__).resolve().parents[1] / "data" / "model_configs"


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
    if isinstance(field.edit, QtWidgets.QComboBox):  # a path: a named choice or a file typed in
        field.edit.setCurrentText(text)
        field.edit.lineEdit().editingFinished.emit()
        return
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

    from core.agents.state import AgentsState

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


# ---- the measured runs, their replay, goodput and CED (issue 11) -----------------------
@pytest.fixture
def ready(panel, qtbot):
    qtbot.waitUntil(panel.is_ready, timeout=10_000)
    return panel


def test_timeline_lanes_end_at_the_measured_times(panel):
    on = panel.timeline_bars["thinking_on"]
    assert on["model"].opts["x1"][-1] == pytest.approx(36.375312 + 0.000063 + 26.42764 + 0.003335 + 10.034447
                                                        + 0.074244 + 3.456244)
    assert on["other"].opts["x1"] == [pytest.approx(76.5102791490499)]  # elapsed: model + tools + other
    assert len(panel.timeline_bars["thinking_off"]["model"].opts["x0"]) == 12
    # The split the book prints (76.510 = 76.294 + 0.078 + 0.138 s): tools are too short to see.
    on_text, off_text = (panel.timeline_totals[lane].toPlainText().replace("\u00a0", " ")
                         for lane in ("thinking_on", "thinking_off"))
    assert on_text.endswith("4 rounds: 76.510 = model 76.294 + tools 0.078 + other 0.138 s")
    assert on_text.startswith("4 轮,76.510 = 模型 76.294 + 工具 0.078 + 其他 0.138 s · ")
    assert off_text.endswith("12 rounds: 13.803 = model 13.156 + tools 0.476 + other 0.171 s")


def test_the_lane_texts_wrap_within_the_plot(panel, qtbot):
    """Both languages at once make a lane's text wider than the plot: it wraps inside the
    view (beside the short lane, above the long one) instead of running off its edge."""
    vb = panel.timeline_plot.plot.vb
    qtbot.waitUntil(lambda: vb.width() > 100)
    view = vb.mapRectToScene(vb.boundingRect())
    for lane, item in panel.timeline_totals.items():
        assert item.textItem.textWidth() > 0
        shown = item.mapRectToScene(item.boundingRect())
        assert shown.right() <= view.right() + 1 and shown.top() >= view.top() - 1, (lane, shown, view)
    off = panel.timeline_totals["thinking_off"]
    assert off.pos().x() > panel.timeline_bars["thinking_off"]["other"].opts["x1"][0]  # beside its bars


def test_prefill_bars_follow_the_trace_choice(panel):
    assert sum(panel.cold_bars.opts["height"]) == pytest.approx(76.195573465088)
    assert sum(panel.cached_bars.opts["height"]) == pytest.approx(11.976253571072)
    edit(panel.trajectory_card, "trace", "thinking_off")
    assert len(panel.cold_bars.opts["height"]) == 12
    assert "16,304 of 19,556" in panel.prefill_text.toPlainText()


def test_a_bad_trace_file_shows_on_the_field_and_keeps_the_bars(panel, tmp_path):
    bad = tmp_path / "bad.csv"
    bad.write_text("input_tokens,cached_tokens,output_tokens,model_wall_s,tool_wall_s\n10,20,1,1,0\n", encoding="utf-8")
    before = list(panel.cold_bars.opts["height"])
    edit(panel.trajectory_card, "trace", str(bad))
    assert "row 1" in panel.state.card("trajectory").errors["trace"]
    assert list(panel.cold_bars.opts["height"]) == before


def test_replay_runs_off_the_gui_thread_and_matches_the_measured_hits(ready):
    x, y = ready.engine_points.getData()
    assert list(y) == [0, 1392, 1440, 1648]  # the engine's cache finds what vLLM reported
    assert list(ready.measured_bars.opts["height"]) == [0, 1392, 1440, 1648]
    edges, share = ready.itl_curve.getData()
    assert share.sum() == pytest.approx(100) and ready.itl_median.value() == pytest.approx(
        ready.state.card("replay").result["itl_median_ms"])


def test_replay_without_the_cache_finds_nothing(ready, qtbot):
    ready.state.card("replay").update({"prefix_caching": False})
    qtbot.waitUntil(ready.is_ready, timeout=10_000)
    qtbot.waitUntil(lambda: list(ready.engine_points.getData()[1]) == [0, 0, 0, 0], timeout=5_000)
    assert "engine 0 vs measured 4,480" in ready.cache_text.toPlainText()


def test_goodput_bars_and_ced_point(panel):
    assert panel.good_bars.opts["height"][1] == 0  # thinking off: faster, never qualifies
    assert panel.finished_bars.opts["height"][1] == pytest.approx(3600 / 13.802764527965337)
    edit(panel.goodput_card, "deadline_s", "60")
    assert panel.good_bars.opts["height"] == [0, 0]
    x, y = panel.ced_point.getData()
    assert y[0] == pytest.approx((20 * 8192 + 20 * 128) / 8192)
    edit(panel.ced_card, "prompt_tokens", "100")
    assert panel.ced_point.getData()[1][0] == 40  # P <= 128: no saving


def test_ced_legend_names_each_curve_with_its_formula(panel):
    names = {label.text for _, label in panel.ced_legend.items}
    assert names == {"纯解码器 40P · decoder-only 40P", "CED 20P + 20·min(P,128)"}  # 图 3-14's two lines
    edit(panel.ced_card, "layers", "60")
    edit(panel.ced_card, "refeed_tokens", "256")
    names = {label.text for _, label in panel.ced_legend.items}
    assert names == {"纯解码器 60P · decoder-only 60P", "CED 20P + 40·min(P,256)"}
    assert panel.dense_curve.getData()[1][0] == 60


def test_a_config_json_counts_the_trajectory_for_that_model(panel, tmp_path):
    """Your own model beside the catalog's: a config.json typed (or browsed) as the model."""
    field = panel.trajectory_card.form.field("model")
    assert field.browse_button is not None and field.edit.findText("qwen3-8b") >= 0  # the catalog's, listed
    before = sum(panel.cold_bars.opts["height"])
    edit(panel.trajectory_card, "model", str(CONFIGS / "llama-3.1-8b.json"))
    result = panel.state.card("trajectory").result
    assert result["cold_prefill_flops"] == pytest.approx(agents_trajectory.TRAJECTORY.run(
        {"model": str(CONFIGS / "llama-3.1-8b.json")})["cold_prefill_flops"])
    assert sum(panel.cold_bars.opts["height"]) == pytest.approx(result["cold_prefill_flops"] / 1e12)
    assert sum(panel.cold_bars.opts["height"]) != pytest.approx(before)
    # The longest call (the second: 1,443 in + 1,016 out), at Llama 3.1 8B's 128 KiB per token.
    assert result["max_round_kv_bytes"] == (1443 + 1016 - 1) * 128 * 1024
    # A config the counts cannot take: refused next to the field, the bars kept.
    bad = tmp_path / "config.json"
    bad.write_text('{"model_type": "llama", "num_hidden_layers": 2}')
    kept = list(panel.cold_bars.opts["height"])
    edit(panel.trajectory_card, "model", str(bad))
    assert "config.json" in panel.state.card("trajectory").errors["model"] and field.has_error
    assert list(panel.cold_bars.opts["height"]) == kept


def test_new_cards_round_trip_through_json(ready, qtbot):
    edit(ready.trajectory_card, "trace", "thinking_off")
    edit(ready.ced_card, "prompt_tokens", "1000")
    ready.state.card("replay").update({"copies": 2, "keep_kv_during_tool": False})
    saved = ready.state.to_json()
    assert saved["cards"]["replay"] == {"copies": 2, "keep_kv_during_tool": False}
    from core.agents.state import AgentsState

    state = AgentsState()
    state.load_json(saved)
    assert state.card("trajectory").inputs["trace"] == "thinking_off" and state.card("ced").inputs["prompt_tokens"] == 1000
    assert state.card("replay").inputs["copies"] == 2 and state.to_json() == saved


def test_a_card_whose_results_arrive_later_is_not_squeezed_in_a_zoomed_full_screen(qtbot):
    # Sections are capped to the screen's height; the replay card's outputs arrive from a
    # job after that cap was set, and the cap must then give way to the card's new minimum.
    from widgets.kit.jobs import jobs
    from widgets.kit.zoom import set_zoom

    set_zoom(1.5)
    w = AgentsPanel()
    qtbot.addWidget(w)
    w.resize(1920, 1080)
    w.show()
    qtbot.waitUntil(lambda: w.is_ready() and not jobs().busy_keys(), timeout=60_000)
    card = w.replay_card
    qtbot.waitUntil(lambda: card.height() >= card.minimumSizeHint().height(), timeout=5_000)
    w.close()
    jobs().wait_idle()
