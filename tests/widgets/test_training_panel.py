"""The training panel: plots follow core, controls drive core, playback moves the step."""
import json

import numpy as np
import pytest

from core.registry import ParamError
from core.training import calculator as training
from core.training import step as train_step
from core.training.rl import cycle as rl_cycle
from core.training.rl import loss as rl_loss
from core.training.rl import pipeline as rl_pipeline
from core.training_state import TrainingState
from core.units import GB
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels
from widgets.training import PANEL, TrainingPanel


@pytest.fixture
def panel(qtbot):
    w = TrainingPanel()
    qtbot.addWidget(w)
    w.resize(1400, 900)
    w.show()
    qtbot.waitUntil(w.is_ready, timeout=30_000)  # sections are built a step at a time; figures come from jobs
    yield w
    w.close()


def _drawn(qtbot, panel, key):
    """Wait for the panel to draw the figure `key` (the ▶ figures come from the job runner)."""
    return qtbot.waitSignal(panel.figure_drawn, timeout=30_000, check_params_cb=lambda k: k == key)


def _bars(item, key):
    return np.asarray(item.opts[key], dtype=float)


def test_panel_is_discovered():
    assert "training" in [p.key for p in discover_panels()]
    assert PANEL.section == "3.4"


def test_step_schedule_and_memory_follow_core(panel):
    v = panel.step.card.values()
    tl = train_step.model_step(v["model"], v["sequences"], v["seq_len"], v["micro_batches"], v["cards"], v["card"], v["mfu"]).timeline
    assert panel.step.view.forward_count() == tl.layers * tl.micro_batches
    assert panel.step.view.capacity_line.value() == pytest.approx(96.0)
    _, total = panel.step.view.kind_curves["activations"].getData()
    assert total.max() == pytest.approx((tl.resident_state_bytes + tl.peak_activation_bytes) / GB)


def test_micro_batch_slider_cuts_the_activation_peak_not_the_state(panel, qtbot):
    state = panel.step.card.result["resident_state_bytes"]
    peak_before = panel.step.card.result["peak_activation_bytes"]
    with _drawn(qtbot, panel, "step"):
        panel.step.micro_slider.setValue(panel.step.micro_slider.maximum())  # a = 8
    assert panel.step.card.values()["micro_batches"] == 8
    r = panel.step.card.result
    assert r["resident_state_bytes"] == state
    assert r["peak_activation_bytes"] == pytest.approx(peak_before / 8)
    _, after = panel.step.view.kind_curves["activations"].getData()
    assert after.max() == pytest.approx((state + peak_before / 8) / GB)
    assert panel.step.view.forward_count() == 36 * 8


def test_cards_slider_shards_state(panel, qtbot):
    with _drawn(qtbot, panel, "step"):
        panel.step.cards_slider.setValue(4)
    panel.step.player.seek(panel.step.player.duration / 2)
    _, y = panel.step.view.kind_curves["weights"].getData()
    assert y[0] == pytest.approx(2 * -(-8_190_735_360 // 4) / GB)
    assert "4 card" in panel.step.cards_value.text()


def test_playing_reveals_the_step(panel, qtbot):
    panel.step.player.seek(0)
    panel.step.player.set_speed(4.0)
    panel.step.player.play_button.click()
    qtbot.waitUntil(lambda: panel.step.player.position > 0.5, timeout=5000)
    panel.step.player.pause()
    t = panel.step.player.position
    tl = panel.step.view.figure.timeline
    assert panel.step.view.schedule_cursor.value() == pytest.approx(t)
    assert panel.step.view.alive_bars.count() == tl.alive_at(t).size
    # The past is drawn at full strength, the future under a fade that starts at t.
    assert panel.step.view.memory_future.getRegion()[0] == pytest.approx(t)
    now_gb = (tl.resident_state_bytes + tl.activation_at(t)) / GB
    assert f"= <b>{now_gb:,.1f} GB</b>" in panel.step.view.readout.text()
    assert f"{tl.alive_at(t).size} layer activations alive" in panel.step.view.readout.text()


def test_bad_micro_batches_shows_error_and_keeps_plots(panel):
    before = panel.step.view.forward_count()
    field = panel.step.card.form.field("micro_batches")
    field.edit.setText("3")
    field.edit.editingFinished.emit()
    assert field.error_label.isVisibleTo(panel)
    assert "divisor" in field.error_label.text()
    assert panel.step.view.forward_count() == before


def test_flops_bars_match_core_and_recompute(panel, qtbot):
    r = training.FLOPS.run()
    assert _bars(panel.flops.bars["item_attention"], "height")[0] == pytest.approx(r["attention_flops"] / 1e12)
    assert panel.flops.six_nd_line.value() == pytest.approx(r["six_nd_flops"] / 1e12)
    assert "+7.15%" in panel.flops.ratio_text.textItem.toPlainText()
    with qtbot.waitSignal(panel.flops.card.computed):
        panel.flops.card.set_value("recompute", True)
    assert _bars(panel.flops.bars["item_recompute"], "height")[0] > 0


def test_packing_slider_moves_split(panel, qtbot):
    with qtbot.waitSignal(panel.packing.card.computed):
        panel.packing.split_slider.setValue(6144)
    assert panel.packing.card.values()["doc_lengths"] == (6144.0, 2048.0)
    expect = training.PACKING.run({"doc_lengths": "6144,2048"})
    _, y = panel.packing.marker.getData()
    assert sorted(y) == pytest.approx(sorted([expect["pairs_ratio"], expect["layer_work_ratio"]]))
    image = panel.packing.mask_image.image
    assert image.shape == (256, 256)
    assert image[255, 0] == 0 and image[100, 0] == 1  # the second document does not see the first


def test_packing_lengths_that_do_not_sum_show_error(panel):
    field = panel.packing.card.form.field("doc_lengths")
    field.edit.setText("4000,4000")
    field.edit.editingFinished.emit()
    assert "8192" in field.error_label.text()


def test_pipeline_plays_and_async_is_shorter(panel):
    v = panel.pipeline.card.values()
    sync = rl_pipeline.pipeline_schedule("synchronous", v["batches"], v["rollout_s"], v["reward_s"], v["reference_s"], v["update_s"], v["sync_s"])
    x0 = _bars(panel.pipeline.view.bars["synchronous"]["rollout"], "x0")
    assert x0 == pytest.approx(sync.start_s["rollout"])
    def end(mode):
        bars = panel.pipeline.view.bars[mode]["sync"]
        return (_bars(bars, "x0") + _bars(bars, "width"))[-1]

    assert end("synchronous") == pytest.approx(sync.total_s)
    assert end("asynchronous") < end("synchronous")
    assert panel.pipeline.player.duration == pytest.approx(sync.total_s)
    panel.pipeline.player.seek(10.0)
    assert panel.pipeline.view.cursors["asynchronous"].value() == pytest.approx(10.0)


def test_flipping_rewards_to_all_equal_zeroes_the_advantage(panel, qtbot):
    assert panel.advantage.card.values()["rewards"] == (1.0, 0.0, 1.0, 1.0)
    with qtbot.waitSignal(panel.advantage.card.computed):
        panel.advantage.reward_buttons[1].click()
    assert panel.advantage.card.result["zero_signal"] == 1
    assert np.all(_bars(panel.advantage.advantage_bars, "height") == 0)
    assert "零" in panel.advantage.zero_banner.text()


def test_loss_bars_follow_core(panel, qtbot):
    with qtbot.waitSignal(panel.loss.card.computed):
        panel.loss.card.set_value("token_counts", (990, 10))
    assert _bars(panel.loss.weight_mom_bars, "height") == pytest.approx(rl_loss.LOSS_MEAN.run(
        {"token_counts": "990,10"})["token_weight_mean_of_means"])


def test_cycle_marker_follows_keep_ratio(panel, qtbot):
    with qtbot.waitSignal(panel.cycle.card.computed):
        panel.cycle.card.set_value("keep_ratio", 0.25)
    x, y = panel.cycle.marker.getData()
    assert x[0] == 64
    assert y[0] == pytest.approx(rl_cycle.CYCLE.run({"keep_ratio": 0.25})["cycle_flops"] / 1e12)


def test_close_stops_players(panel, qtbot):
    panel.step.player.play()
    panel.pipeline.player.play()
    panel.close()
    assert not panel.step.player.is_playing() and not panel.pipeline.player.is_playing()


def test_book_view_draws_four_layers_and_micro_batches_halve_the_peak(panel, qtbot):
    with _drawn(qtbot, panel, "step"):
        panel.step.step_mode.setCurrentIndex(panel.step.step_mode.findData("illustrative"))
    assert panel.step.view.forward_count() == 4
    _, total = panel.step.view.kind_curves["activations"].getData()
    whole = total.max()
    with _drawn(qtbot, panel, "step"):
        panel.step.micro_slider.setValue(1)  # a = 2
    assert panel.step.view.forward_count() == 8
    _, total = panel.step.view.kind_curves["activations"].getData()
    assert total.max() == pytest.approx(whole / 2)
    assert not panel.step.view.capacity_line.isVisible()
    assert not panel.step.cards_slider.isEnabled()


# ---- the panel is a view of its state model ----------------------------------------


def test_model_edits_redraw_the_panel(panel, qtbot):
    """A card value or a view option set on the model shows in the widgets and plots."""
    with _drawn(qtbot, panel, "step"):
        panel.state.card("step").update({"micro_batches": 4})
    assert panel.step.view.forward_count() == 36 * 4
    assert panel.step.micro_value.text() == "a = 4"
    assert panel.step.card.form.field("micro_batches").raw() == "4"
    panel.state.card("flops").update({"recompute": True})
    assert _bars(panel.flops.bars["item_recompute"], "height")[0] > 0
    panel.state.set_view("tab", "rl")
    assert panel.tabs.currentIndex() == 2
    with _drawn(qtbot, panel, "step"):
        panel.state.set_view("step_view", "illustrative")
    assert panel.step.step_mode.currentData() == "illustrative"
    assert panel.step.view.forward_count() == 4 * 4


def test_widget_edits_go_to_the_model(panel, qtbot):
    field = panel.step.card.form.field("micro_batches")
    with _drawn(qtbot, panel, "step"):
        field.edit.setText("2")
        field.edit.editingFinished.emit()
    assert panel.state.card("step").inputs["micro_batches"] == 2
    panel.tabs.setCurrentIndex(1)
    assert panel.state.view("tab") == "flops"
    with _drawn(qtbot, panel, "step"):
        panel.step.step_mode.setCurrentIndex(panel.step.step_mode.findData("illustrative"))
    assert panel.state.view("step_view") == "illustrative"
    panel.step.player.seek(1.5)
    assert panel.state.player("step") == pytest.approx(1.5)
    panel.advantage.reward_buttons[0].click()
    assert panel.state.card("advantage").inputs["rewards"] == (0.0, 0.0, 1.0, 1.0)


def test_player_position_lives_in_the_model(panel, qtbot):
    panel.step.player.seek(0)
    panel.step.player.set_speed(4.0)
    panel.step.player.play()
    qtbot.waitUntil(lambda: panel.state.player("step") > 0.5, timeout=10_000)
    panel.step.player.pause()
    assert panel.state.player("step") == pytest.approx(panel.step.player.position)
    panel.state.set_player("step", 2.0)  # e.g. a scene being restored
    assert panel.step.player.position == pytest.approx(2.0)
    assert panel.step.view.schedule_cursor.value() == pytest.approx(2.0)


def _picture(p):
    """What a panel shows, as plain data."""
    return {
        "tab": p.tabs.currentIndex(),
        "micro": p.step.micro_slider.value(),
        "forward": p.step.view.forward_count(),
        "activations": p.step.view.kind_curves["activations"].getData()[1].tolist(),
        "cursor": p.step.view.schedule_cursor.value(),
        "pipeline_cursor": p.pipeline.view.cursors["asynchronous"].value(),
        "recompute": _bars(p.flops.bars["item_recompute"], "height").tolist(),
        "split": p.packing.split_slider.value(),
        "advantages": _bars(p.advantage.advantage_bars, "height").tolist(),
        "rewards": [b.text() for b in p.advantage.reward_buttons if not b.isHidden()],
    }


def test_state_json_round_trip_restores_the_panel(panel, qtbot):
    state = panel.state
    with _drawn(qtbot, panel, "step"):
        state.card("step").update({"micro_batches": 2})
    state.card("flops").update({"recompute": True})
    state.card("packing").update({"doc_lengths": (6144.0, 2048.0)})
    state.card("advantage").update({"rewards": (1.0, 1.0, 0.0, 1.0)})
    with _drawn(qtbot, panel, "pipeline"):
        state.card("pipeline").update({"batches": 4})
    state.set_view("tab", "flops")
    state.set_player("step", 3.25)
    state.set_player("pipeline", 10.0)
    saved = json.loads(json.dumps(state.to_json()))
    expected = _picture(panel)

    restored = TrainingState()
    restored.load_json(saved)
    other = TrainingPanel(state=restored)
    qtbot.addWidget(other)
    other.resize(1400, 900)
    other.show()
    qtbot.waitUntil(other.is_ready, timeout=30_000)
    assert other.state.to_json() == saved
    assert _picture(other) == expected
    other.close()

    # Loading into a live panel: the same picture again, after the back-to-defaults detour.
    state.reset()
    qtbot.waitUntil(panel.is_ready, timeout=30_000)
    assert _picture(panel) != expected
    state.load_json(saved)
    qtbot.waitUntil(lambda: panel.is_ready() and panel.step.view.forward_count() == 36 * 2, timeout=30_000)
    assert _picture(panel) == expected


def test_bad_state_changes_nothing(panel):
    before = panel.state.to_json()
    with pytest.raises(ParamError, match="view.tab"):
        panel.state.load_json({**before, "cards": {"step": {"micro_batches": 2}}, "view": {"tab": "nope"}})
    assert panel.state.to_json() == before
    assert panel.step.micro_slider.value() == 0


def test_first_figures_come_from_the_job_runner(qtbot):
    """Made inside a running event loop (as the main window does), the panel shows its frame
    first, builds its sections on later turns and gets its ▶ figures from the runner."""
    from PySide6 import QtCore

    seen, made = [], []
    jobs().busy_changed.connect(lambda key, busy: seen.append((key, busy)))

    def make():
        w = TrainingPanel()
        made.append((w, w.step.built))
        w.show()

    QtCore.QTimer.singleShot(0, make)
    qtbot.waitUntil(lambda: bool(made), timeout=30_000)
    w, built_at_once = made[0]
    qtbot.addWidget(w)
    assert not built_at_once  # only the frame so far: sections come on later turns of the event loop
    qtbot.waitUntil(lambda: w.step.built and w.step.view.figure is not None, timeout=30_000)
    assert (w.step.job_key, True) in seen
    assert w.step.view.forward_count() == 36
    qtbot.waitUntil(w.is_ready, timeout=30_000)
    assert (w.pipeline.job_key, True) in seen
    assert w.pipeline.view.figure is not None
    w.close()


def test_play_button_still_plays(panel, qtbot):
    with _drawn(qtbot, panel, "step"):
        panel.state.card("step").update({"micro_batches": 8})
    panel.step.player.seek(0)
    panel.step.player.set_speed(4.0)
    panel.step.player.play_button.click()
    qtbot.waitUntil(lambda: panel.step.view.alive_bars.count() > 0, timeout=10_000)
    qtbot.waitUntil(lambda: not panel.step.player.is_playing(), timeout=30_000)
    assert panel.step.player.position == pytest.approx(panel.step.view.figure.duration_s)
    assert panel.step.view.memory_future.getRegion()[0] == pytest.approx(panel.step.view.figure.duration_s)


def test_made_outside_an_event_loop_it_is_built_at_once(qtbot):
    """`lab snapshot` makes a panel before any event loop runs: it is whole at once."""
    w = TrainingPanel()
    qtbot.addWidget(w)
    assert w.is_built()
    assert jobs().wait_idle()
    assert w.step.view.figure is not None and w.pipeline.view.figure is not None
    assert w.is_ready()
    w.close()


def test_a_frame_never_lays_out_the_page(panel, qtbot):
    """▶ updates plot items and paints; no widget asks for a new layout on a frame."""
    from PySide6 import QtCore

    class Counter(QtCore.QObject):
        count = 0

        def eventFilter(self, obj, event):
            if event.type() == QtCore.QEvent.Type.LayoutRequest:
                Counter.count += 1
            return False

    counter = Counter()
    app = QtCore.QCoreApplication.instance()
    for _ in range(3):  # layouts the build asked for are done
        app.processEvents()
    app.installEventFilter(counter)
    try:
        for t in np.linspace(0, panel.step.player.duration, 30):
            panel.step.player.seek(float(t))
            app.processEvents()
        for t in np.linspace(0, panel.pipeline.player.duration, 10):
            panel.pipeline.player.seek(float(t))
            app.processEvents()
    finally:
        app.removeEventFilter(counter)
    assert Counter.count == 0


def test_close_leaves_nothing_listening_to_the_state(qtbot):
    state = TrainingState()
    w = TrainingPanel(state=state)
    qtbot.addWidget(w)
    qtbot.waitUntil(w.is_ready, timeout=30_000)
    w.close()
    assert len(state.changed) == 0
    # Each card keeps only the state's own relay.
    assert all(len(card.changed) == 1 for card in state.cards.values())
