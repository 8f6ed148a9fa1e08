"""The training panel: plots follow core, controls drive core, playback moves the step."""
import json

import numpy as np
import pytest

from core import rl, train_step, training
from core.training_state import TrainingState
from core.units import GB
from widgets.panels import discover_panels
from widgets.jobs import jobs
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
    sync = rl.pipeline_schedule("synchronous", v["batches"], v["rollout_s"], v["reward_s"], v["reference_s"], v["update_s"], v["sync_s"])
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
    assert _bars(panel.loss.weight_mom_bars, "height") == pytest.approx(rl.LOSS_MEAN.run(
        {"token_counts": "990,10"})["token_weight_mean_of_means"])


def test_cycle_marker_follows_keep_ratio(panel, qtbot):
    with qtbot.waitSignal(panel.cycle.card.computed):
        panel.cycle.card.set_value("keep_ratio", 0.25)
    x, y = panel.cycle.marker.getData()
    assert x[0] == 64
    assert y[0] == pytest.approx(rl.CYCLE.run({"keep_ratio": 0.25})["cycle_flops"] / 1e12)


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
