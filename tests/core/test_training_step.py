"""图 3-20: the schedule of a step, activation lifetimes, and the memory they make."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.registry import ParamError, get
from core.training.step import BACKWARD, FORWARD, OPTIMIZER, build_timeline, illustrative_timeline, model_step


def test_forward_then_backward_in_reverse_layer_order():
    tl = build_timeline(4, 1, 1.0, 1.0)
    fwd = tl.block_layer[tl.block_phase == FORWARD]
    bwd = tl.block_layer[tl.block_phase == BACKWARD]
    assert fwd.tolist() == [0, 1, 2, 3]
    assert bwd.tolist() == [3, 2, 1, 0]
    assert np.all(np.diff(tl.block_start_s) >= 0)
    assert tl.block_phase[-1] == OPTIMIZER
    # Backward of a layer costs twice its forward (two matrix products).
    b = tl.block_phase == BACKWARD
    assert np.allclose(tl.block_end_s[b] - tl.block_start_s[b], 2.0)


def test_activation_alive_from_forward_end_to_backward_end():
    tl = build_timeline(4, 2, 1.0, 1.0)
    for i in range(tl.act_layer.size):
        layer, mb = tl.act_layer[i], tl.act_micro_batch[i]
        f = (tl.block_phase == FORWARD) & (tl.block_layer == layer) & (tl.block_micro_batch == mb)
        b = (tl.block_phase == BACKWARD) & (tl.block_layer == layer) & (tl.block_micro_batch == mb)
        assert tl.act_alloc_s[i] == tl.block_end_s[f][0]
        assert tl.act_free_s[i] == tl.block_end_s[b][0]
    # The first layer's activation lives longest: it is used last.
    first = tl.act_free_s[tl.act_layer == 0] - tl.act_alloc_s[tl.act_layer == 0]
    last = tl.act_free_s[tl.act_layer == 3] - tl.act_alloc_s[tl.act_layer == 3]
    assert np.all(first > last)


@pytest.mark.parametrize("a", [1, 2, 4, 8])
def test_peak_is_one_micro_batch_worth(a):
    batch_per_layer = 8.0
    tl = build_timeline(6, a, batch_per_layer / a, 1.0)
    assert tl.peak_activation_bytes == pytest.approx(6 * batch_per_layer / a)
    # Never more than one micro-batch's activations alive at once.
    for t in np.linspace(0, tl.duration_s, 97):
        alive = tl.alive_at(t)
        assert len(set(tl.act_micro_batch[alive].tolist())) <= 1
        assert tl.activation_at(t) == pytest.approx(alive.size * tl.activation_bytes_each)
    assert tl.mem_activation_bytes[-1] == 0


def test_calculator_peak_and_timeline_series():
    out = get("train.activations").run({"layers": 4, "micro_batches": 2})
    assert out["peak_activation_bytes"] == 4e9
    assert out["peak_without_micro_batches_bytes"] == 8e9
    assert out["compute_blocks"] == 2 * 2 * 4 + 1
    assert len(out["activation_alloc_s"]) == 8
    assert max(out["activation_timeline_bytes"]) == out["peak_activation_bytes"]


def test_model_step_state_resident_and_micro_batches_cut_activations():
    one = model_step(sequences=8, micro_batches=1)
    eight = model_step(sequences=8, micro_batches=8)
    assert one.timeline.resident_state_bytes == eight.timeline.resident_state_bytes == 18 * 8_190_735_360
    assert eight.timeline.peak_activation_bytes == pytest.approx(one.timeline.peak_activation_bytes / 8)
    # Same data: the compute time of the step does not shrink by splitting it.
    assert eight.timeline.duration_s > 0.99 * one.timeline.duration_s
    four = model_step(sequences=8, micro_batches=1, cards=4)
    assert four.timeline.resident_state_bytes == pytest.approx(one.timeline.resident_state_bytes / 4)
    assert four.timeline.capacity_bytes == 96e9


def test_model_step_bad_input_names_field():
    with pytest.raises(ParamError) as err:
        model_step(sequences=8, micro_batches=3)
    assert err.value.param == "micro_batches"
    with pytest.raises(ParamError) as err:
        build_timeline(0, 1, 1.0, 1.0)
    assert err.value.param == "layers"
    with pytest.raises(ParamError) as err:
        model_step(cards=10**11)
    assert err.value.param == "cards"



@settings(max_examples=40, deadline=None)
@given(layers=st.integers(1, 40), a=st.integers(1, 12), each=st.floats(1.0, 1e12), tf=st.floats(1e-3, 10.0))
def test_any_schedule_peaks_at_one_micro_batch_and_ends_empty(layers, a, each, tf):
    tl = build_timeline(layers, a, each, tf)
    assert tl.peak_activation_bytes == pytest.approx(layers * each)
    assert tl.mem_activation_bytes[-1] == 0
    assert tl.block_phase.size == 2 * layers * a + 1
    assert tl.duration_s == pytest.approx(a * layers * 3 * tf)


def test_book_view_keeps_the_data_and_splits_the_peak():
    whole, halves = illustrative_timeline(1), illustrative_timeline(2)
    assert whole.layers == 4
    assert halves.peak_activation_bytes == pytest.approx(whole.peak_activation_bytes / 2)
    assert halves.duration_s == pytest.approx(whole.duration_s)  # same data, same compute
    with pytest.raises(ParamError) as err:
        illustrative_timeline(0)
    assert err.value.param == "micro_batches"


def test_activations_refuse_more_than_they_can_lay_out_naming_the_field():
    calc = get("train.activations")
    with pytest.raises(ParamError, match="micro_batches") as err:
        calc.resolve({"layers": 10_000, "micro_batches": 10_000})
    assert "1 .. 25" in str(err.value)
    out = calc.run({"layers": 10_000, "micro_batches": 25})  # at the bound: computed
    assert out["compute_blocks"] == 2 * 10_000 * 25 + 1
    assert out["peak_activation_bytes"] == pytest.approx(10_000 * 1e9)


def test_step_refuses_an_mfu_that_would_make_infinite_durations():
    with pytest.raises(ParamError, match="mfu"):
        get("train.step").resolve({"mfu": 1e-308})
    out = get("train.step").run({"mfu": 1e-6, "seq_len": 1_000_000})
    assert np.isfinite(out["step_duration_s"])
