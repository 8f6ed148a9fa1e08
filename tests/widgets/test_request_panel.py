import pytest

from widgets.request import RequestPanel


@pytest.fixture
def panel(qtbot):
    w = RequestPanel()
    qtbot.addWidget(w)
    w.resize(1400, 1000)
    w.show()
    return w


def edit(card, name, text):
    field = card.form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def test_anatomy_outputs_and_plot_follow_the_form(panel, qtbot):
    with qtbot.waitSignal(panel.anatomy_card.computed):
        edit(panel.anatomy_card, "output_tokens", "257")
    assert panel.anatomy_card.outputs.label("decode_steps").text() == "256 steps"
    x, y = panel.decode_curve.getData()
    assert len(x) == 256 and y[0] == 1024 and y[-1] == 1024 + 255
    assert panel.step_player.duration == 256


def test_invalid_input_shows_next_to_field_and_keeps_last_result(panel):
    before = panel.anatomy_card.result
    edit(panel.anatomy_card, "input_tokens", "-5")
    field = panel.anatomy_card.form.field("input_tokens")
    assert field.error_label.isVisible()
    assert "valid: a whole number [1, 10000000] tokens" in field.error_label.text()
    assert panel.anatomy_card.result == before
    edit(panel.anatomy_card, "input_tokens", "2048")
    assert not field.error_label.isVisible()
    assert panel.anatomy_card.result["first_decode_context"] == 2048


def test_playing_moves_the_decode_cursor(panel, qtbot):
    panel.step_player.set_speed(1000)
    panel.step_player.play()
    qtbot.waitUntil(lambda: panel.step_cursor.value() > 50, timeout=5000)
    panel.step_player.pause()
    assert "context S+P+j" in panel.step_label.toPlainText()


def test_dragging_the_queue_moves_ttft_not_token_interval(panel, qtbot):
    card = panel.timeline_card
    before = dict(card.result)
    with qtbot.waitSignal(card.computed):
        panel.queue_region.setRegion((0, 2.6))
    assert card.result["ttft_s"] == pytest.approx(before["ttft_s"] + 2.0)
    assert card.result["t_request_s"] == pytest.approx(before["t_request_s"] + 2.0)
    assert card.result["t_token_s"] == pytest.approx(before["t_token_s"])
    assert card.form.field("queue_s").edit.text() == "2.6"
    x, _ = panel.metric_curves["ttft"].getData()
    assert x[-1] == pytest.approx(card.result["ttft_s"])


def test_first_useful_output_marker_for_reasoning(panel):
    assert not panel.useful_line.isVisible()
    edit(panel.timeline_card, "thinking_tokens", "100")
    assert panel.useful_line.isVisible()
    assert panel.useful_line.value() == pytest.approx(panel.timeline_card.result["first_useful_s"])


def test_split_bars_compare_one_and_n_requests(panel):
    edit(panel.split_card, "requests", "4")
    heights = panel.split_bars_many.opts["height"]
    assert list(heights) == [4, 1020, 256]
    assert list(panel.split_bars_one.opts["height"]) == [1, 1023, 1024]


def test_percentile_ranks_the_typed_values(panel):
    edit(panel.percentile_card, "values", ",".join(str(i) for i in range(1, 481)))
    assert panel.percentile_card.outputs.label("rank").text() == "456 rank"
    assert "p95 is the 456-th" in panel.breakdown_label.text()


def test_occupancy_plot_settles_at_lambda_m0_tau(panel):
    edit(panel.area_card, "wait_s", "30")
    assert panel.mean_line.value() == pytest.approx(60)
    t, m = panel.occupancy_curve.getData()
    assert m.max() == pytest.approx(60) and t[-1] >= 30


def test_zero_successes_show_consumption_and_failures(panel):
    edit(panel.success_card, "successes", "0")
    assert panel.success_card.outputs.label("cost_per_success").text() == "—"
    text = panel.success_message.text()
    assert "零成功" in text and "100 failures" in text


def test_compare_plot_marks_break_even(panel):
    edit(panel.compare_card, "c2", "1.5")
    assert panel.break_even_line.value() == pytest.approx(0.75)
    x, y = panel.current_point.getData()
    assert x[0] == pytest.approx(0.8) and y[0] == pytest.approx(1.875)


# ---- binding to the state model ------------------------------------------------------
def test_model_change_redraws_the_plots(panel):
    before = panel.decode_curve.getData()[0].size
    panel.state.card("anatomy").update({"output_tokens": 101})
    x, y = panel.decode_curve.getData()
    assert before == 1023 and len(x) == 100 and y[-1] == 1024 + 99
    assert panel.anatomy_card.form.field("output_tokens").edit.text() == "101"
    panel.state.card("area").update({"wait_s": 30})
    assert panel.mean_line.value() == pytest.approx(60)


def test_editing_a_field_changes_the_model(panel):
    events = []
    panel.state.changed.connect(lambda path, _: events.append(path))
    edit(panel.split_card, "requests", "4")
    assert panel.state.card("split").inputs["requests"] == 4
    assert events == ["cards.split"]


def test_player_position_and_speed_live_in_the_model(panel):
    panel.state.set_player("steps", 300)
    assert panel.step_player.position == 300 and panel.step_cursor.value() == 301
    panel.step_player.seek(40)
    assert panel.state.player("steps") == 40 and panel.step_cursor.value() == 41
    panel.state.set_view("step_speed", 1000)
    assert panel.step_player.speed == 1000
    panel.step_player.speed_box.setCurrentIndex(panel.step_player.speed_box.findData(0.5))
    assert panel.state.view("step_speed") == 0.5
    panel.state.card("anatomy").update({"output_tokens": 11})  # shorter than the position
    assert panel.state.player("steps") == 10 and panel.step_cursor.value() == 10


def test_json_round_trip_restores_the_panel(panel, qtbot):
    edit(panel.anatomy_card, "output_tokens", "257")
    edit(panel.compare_card, "c2", "1.5")
    panel.state.set_player("steps", 100)
    saved = panel.state.to_json()
    drawn = panel.decode_curve.getData()[1].copy()
    panel.state.reset()
    assert len(panel.decode_curve.getData()[1]) == 1023
    panel.state.load_json(saved)
    assert list(panel.decode_curve.getData()[1]) == list(drawn)
    assert panel.break_even_line.value() == pytest.approx(0.75)
    assert panel.step_cursor.value() == 101

    from core.request.state import RequestState

    state = RequestState()
    state.load_json(saved)
    other = RequestPanel(state=state)
    qtbot.addWidget(other)
    assert other.state is state
    assert list(other.decode_curve.getData()[1]) == list(drawn)
    assert other.anatomy_card.form.field("output_tokens").edit.text() == "257"
    assert other.step_player.position == 100


def test_reset_restores_the_book_values(panel):
    edit(panel.anatomy_card, "input_tokens", "2048")
    edit(panel.timeline_card, "thinking_tokens", "100")
    panel.state.set_player("steps", 9)
    panel.state.reset()
    assert panel.anatomy_card.form.field("input_tokens").edit.text() == "1024"
    assert panel.anatomy_card.result["first_decode_context"] == 1024
    assert panel.decode_curve.getData()[1][0] == 1024
    assert not panel.useful_line.isVisible()
    assert panel.step_player.position == 0 and panel.state.player("steps") == 0
