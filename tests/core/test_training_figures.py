"""The Training panel's state model and figure functions, without Qt."""
import json

import numpy as np
import pytest

from core.registry import ParamError
from core.training import bars, figures
from core.training import calculator as training
from core.training import step as train_step
from core.training.rl import cycle as rl_cycle
from core.training.rl import figures as rl_figures
from core.training.rl import loss as rl_loss
from core.training.rl import pipeline as rl_pipeline
from core.training_state import TrainingState
from core.units import GB, TFLOP


def test_state_holds_every_card_view_and_player():
    state = TrainingState()
    assert len(state.cards) == 12  # eleven calculators and the RL tab's loop
    assert state.view("tab") == "step" and state.view("step_view") == "model"
    assert state.player("step") == 0.0 and state.player("pipeline") == 0.0 and state.player("rl_loop") == 0.0


def test_state_round_trips_through_json_and_emits_once_per_change():
    state = TrainingState()
    seen = []
    state.changed.connect(lambda path, _v: seen.append(path))
    state.card("step").update({"micro_batches": 4})
    state.card("step").update({"micro_batches": 4})  # no change, no event
    state.set_view("tab", "rl")
    state.set_player("pipeline", 12.5)
    assert seen == ["cards.step", "view.tab", "player.pipeline"]
    saved = json.loads(json.dumps(state.to_json()))
    other = TrainingState()
    other.load_json(saved)
    assert other.to_json() == saved
    assert other.card("step").inputs["micro_batches"] == 4


def test_bad_view_choice_is_refused_before_anything_changes():
    state = TrainingState()
    with pytest.raises(ParamError, match="view.step_view"):
        state.set_view("step_view", "3d")
    with pytest.raises(ParamError, match="view.tab"):
        state.load_json({"cards": {"step": {"micro_batches": 2}}, "view": {"tab": "nope"}})
    assert state.card("step").inputs["micro_batches"] == 1


def test_step_figure_agrees_with_the_card():
    state = TrainingState()
    card = state.card("step")
    fig = figures.step_figure(card.inputs, card.result)
    tl = fig.timeline
    assert sum(b.size for b in fig.forward) == tl.layers * tl.micro_batches == 36
    assert fig.memory["activations"][1].max() == pytest.approx(card.result["peak_total_bytes"] / GB)
    assert fig.capacity_gb == pytest.approx(card.result["card_memory_bytes"] / GB)
    assert fig.verdict_fits is False and "does not fit" in fig.verdict_head
    frame = fig.frame_at(tl.duration_s / 4)
    assert frame.alive_count == tl.alive_at(tl.duration_s / 4).size
    assert frame.total_gb == pytest.approx((tl.resident_state_bytes + tl.activation_at(tl.duration_s / 4)) / GB)
    assert frame.over


def test_illustrative_step_halves_the_peak():
    one = figures.step_figure({"micro_batches": 1}, None, "illustrative")
    two = figures.step_figure({"micro_batches": 2}, None, "illustrative")
    assert two.memory["activations"][1].max() == pytest.approx(one.memory["activations"][1].max() / 2)
    assert one.capacity_gb is None and one.verdict_fits is None


def test_many_blocks_are_drawn_one_per_micro_batch():
    tl = train_step.build_timeline(100, 128, 1e8, 0.01)
    fig = figures.timeline_figure(tl)
    assert fig.merged
    assert sum(b.size for b in fig.forward) == 128
    assert fig.frame_at(0.5).alive_count == tl.alive_at(0.5).size


def test_flops_segments_stack_to_the_totals():
    r = training.FLOPS.run()
    fig = figures.flops_figure(r)
    top = fig.segments["item_recompute"]
    assert top.y0 + top.height == pytest.approx(r["total_flops"] / TFLOP)
    assert fig.six_nd == pytest.approx(r["six_nd_flops"] / TFLOP)
    assert "+7.15%" in fig.ratio_text


def test_packing_figure_marks_the_split():
    card = TrainingState().card("packing")
    card.update({"doc_lengths": (6144.0, 2048.0)})
    fig = figures.packing_figure(card.inputs, card.result)
    assert fig.split == 6144 and fig.mask.shape == (256, 256)
    assert figures.packing_split(card.inputs, 1000) == (1000.0, 7192.0)


def test_pipeline_figure_and_status():
    inputs = rl_pipeline.PIPELINE.resolve()
    fig = rl_figures.pipeline_figure(inputs)
    sync = fig.schedules["synchronous"]
    assert fig.end_s == pytest.approx(sync.total_s)
    assert fig.status_at("synchronous", fig.end_s).startswith(f"{sync.batches}/{sync.batches} batches done")
    assert len(fig.labels["synchronous"]) <= rl_figures.MAX_PIPELINE_LABELS * len(rl_pipeline.ROLES)


def test_advantage_and_loss_figures():
    adv = rl_figures.advantage_figure({"rewards": (1.0, 1.0)}, rl_loss.ADVANTAGE.run({"rewards": "1,1"}))
    assert adv.zero_signal and np.all(adv.advantages == 0)
    assert rl_figures.flipped_rewards((1.0, 0.0), 1) == (1.0, 1.0)
    loss = rl_figures.loss_figure({"token_counts": (900.0, 100.0)}, rl_loss.LOSS_MEAN.run())
    assert loss.weight_mean_of_means[1] / loss.weight_mean_of_means[0] == pytest.approx(9.0)


def test_figures_stay_small_whatever_the_inputs():
    state = TrainingState()
    cycle = state.card("cycle")
    assert cycle.update({"n_generate": 10_000_000})
    fig = rl_figures.cycle_figure(cycle.inputs, cycle.result, state.card("marginal").inputs, state.card("marginal").result)
    assert fig.n.size <= rl_figures.MAX_CURVE_POINTS
    assert fig.marker[1] == pytest.approx(cycle.result["cycle_flops"] / TFLOP)
    assert fig.total[-1] == pytest.approx(rl_cycle.cycle(**{**cycle.inputs, "n_generate": int(fig.n[-1])})["cycle_flops"] / TFLOP)
    adv = state.card("advantage")
    assert adv.update({"rewards": tuple(float(i % 2) for i in range(4096))})
    assert len(rl_figures.advantage_figure(adv.inputs, adv.result).ticks) <= bars.MAX_TICKS
    tl = train_step.build_timeline(100, 400, 1e8, 0.01)  # 80,000 blocks
    step = figures.timeline_figure(tl)
    x, y = step.memory["activations"]
    assert x.size <= figures.MAX_STEP_POINTS
    assert y.max() == pytest.approx(tl.peak_activation_bytes / GB)
