"""§3.3.3 timing model: the book's figures, the stall rules, the interrupt moments."""
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.audio import timing as at
from core.audio.jitter import DelayEstimator, network_delays_s
from core.audio.timeline import build_timeline
from core.registry import ParamError, get, registry
from core.verify import verify_calculator


@pytest.mark.parametrize("name", ["audio.timeline", "audio.buffer_compare", "audio.drain", "audio.frames"])
def test_registered_and_every_book_row_matches(name):
    calc = registry().get(name)
    rows = verify_calculator(calc)
    assert rows, f"{name} has no book rows"
    bad = [(r.output, r.params, r.book_value, r.computed) for r in rows if not r.ok]
    assert not bad


def test_book_figures_of_the_chunk_stream():
    out = get("audio.timeline").run()
    assert out["chunk_bytes"] == 960  # 24,000 × 0.020 × 2
    assert out["first_arrival_s"] == pytest.approx(0.038)  # 20 + 12 + 1 + 5 ms
    assert out["first_playback_s"] == pytest.approx(0.078)  # + 40 ms buffer
    assert out["deadline_misses"] == 0 and out["total_stall_s"] == 0
    # Steady state: every chunk waits exactly the 40 ms buffer, i.e. two chunks queued.
    assert out["ready_queue_peak_bytes"] == 2 * 960
    arrivals = np.array(out["arrival_s"])
    assert np.allclose(np.diff(arrivals), 0.020)


def test_spike_stalls_once_and_shifts_the_rest():
    out = get("audio.timeline").run({"network_ms": "5,5,50,5"})
    start, deadline, stall = map(np.array, (out["play_start_s"], out["deadline_s"], out["stall_s"]))
    assert out["arrival_s"][2] == pytest.approx(0.123)  # sent at 73 ms + 50 ms
    assert out["arrival_s"][3] < out["arrival_s"][2]  # chunk 3 overtakes chunk 2
    assert stall[2] == pytest.approx(0.005) and np.count_nonzero(stall > 1e-12) == 1
    assert np.allclose((start - deadline)[2:], 0.005)  # everything after is 5 ms late
    assert out["deadline_misses"] == 1
    assert out["playback_finish_s"] == pytest.approx(0.278 + 0.005)


def test_slow_model_stage_is_serial_and_falls_behind():
    out = get("audio.timeline").run({"process_ms": 30})
    arrivals = np.array(out["arrival_s"])
    assert np.allclose(np.diff(arrivals), 0.030)  # one stage: chunks queue behind each other
    # a_i = 56 + 30i ms against deadlines 96 + 20i ms: the 40 ms buffer covers chunks 0-4.
    assert out["deadline_misses"] == sum(56 + 30 * i > 96 + 20 * i for i in range(10)) == 5
    assert out["total_stall_s"] == pytest.approx(arrivals[-1] - (out["first_playback_s"] + 9 * 0.020))


def test_chunk_starting_as_it_arrives_never_counts_in_the_queue():
    # Zero buffer: every chunk starts the instant it arrives, so the queue stays empty.
    out = get("audio.timeline").run({"buffer_ms": 0})
    assert out["ready_queue_peak_bytes"] == 0
    assert out["first_playback_s"] == pytest.approx(out["first_arrival_s"])


def test_buffer_level_is_arrived_minus_played_and_zero_in_a_stall():
    tl = build_timeline(network_ms=(5, 5, 50, 5))
    t = np.linspace(0, 0.3, 3001)
    b = tl.buffer_level(t)
    assert (b >= -1e-12).all()
    in_stall = (t > 0.118 + 1e-4) & (t < 0.123 - 1e-4)
    assert np.allclose(b[in_stall], 0.0)
    assert tl.played_s(np.array([0.078 + 0.010]))[0] == pytest.approx(0.010)
    # After the stall the buffer refills: chunks 3 and 4 were already there.
    assert b[np.searchsorted(t, 0.1235)] > 0.04


@pytest.mark.parametrize("t_ms, mute_ms", [(150, 160), (155, 160), (156, 170), (145, 150), (0, 10)])
def test_mute_at_first_quantum_boundary_after_control_delay(t_ms, mute_ms):
    out = get("audio.timeline").run({"interrupt_at_ms": t_ms})
    assert out["mute_at_s"] == pytest.approx(mute_ms / 1000)
    assert 0.005 - 1e-12 <= out["interrupt_to_mute_s"] <= 0.015 + 1e-12
    assert out["backend_stop_at_s"] > out["mute_at_s"] and out["release_at_s"] > out["backend_stop_at_s"]


def test_audible_after_interrupt_counts_only_real_playback():
    assert get("audio.timeline").run({"interrupt_at_ms": 150})["audible_after_interrupt_s"] == pytest.approx(0.010)
    # Before playback started, and after it ended, nothing is audible.
    assert get("audio.timeline").run({"interrupt_at_ms": 40})["audible_after_interrupt_s"] == 0
    assert get("audio.timeline").run({"interrupt_at_ms": 400})["audible_after_interrupt_s"] == 0
    # An interrupt during the 5 ms stall (118-123 ms; mute at 130 ms): only 123-130 plays.
    out = get("audio.timeline").run({"interrupt_at_ms": 118, "network_ms": "5,5,50,5"})
    assert out["audible_after_interrupt_s"] == pytest.approx(0.007)


def test_buffer_compare_trades_start_delay_for_stalls():
    out = get("audio.buffer_compare").run()
    assert out["extra_start_delay_s"] == pytest.approx(0.020)
    assert out["underruns_a"] == 1 and out["underruns_b"] == 0
    assert out["finish_b_s"] > out["finish_a_s"]  # B never stalls but starts later


def test_seeded_jitter_is_deterministic_and_seed_sensitive():
    a = network_delays_s(200, [5], jitter_ms=8, spike_prob=0.05, spike_ms=80, seed=3)
    b = network_delays_s(200, [5], jitter_ms=8, spike_prob=0.05, spike_ms=80, seed=3)
    c = network_delays_s(200, [5], jitter_ms=8, spike_prob=0.05, spike_ms=80, seed=4)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    assert (a >= 0.005).all()  # never faster than the base delay
    assert a.max() > 0.080


def test_adaptive_buffer_rides_out_repeated_spikes_better_than_fixed():
    kw = dict(chunks=500, network_ms=(5,), jitter_ms=3, spike_prob=0.05, spike_ms=60, seed=11, buffer_ms=40)
    fixed = build_timeline(**kw)
    adaptive = build_timeline(adaptive=True, **kw)
    assert adaptive.underruns().size < fixed.underruns().size
    assert adaptive.target.max() > 0.040  # it learned a bigger target from the spikes


def test_delay_estimator_targets_the_observed_jitter():
    est = DelayEstimator(chunk_s=0.02, min_target_s=0.02)
    assert est.target_s == 0.02
    for i in range(10):
        est.observe(i, 0.038 + 0.02 * i)
    est.observe(10, 0.038 + 0.02 * 10 + 0.070)  # one chunk 70 ms late among 11: p95 rank 11 = it
    assert est.target_s == pytest.approx(0.070)
    for i in range(11, 40):
        est.observe(i, 0.038 + 0.02 * i)
    # 1 late chunk among 40 is beyond the 95th percentile: back to the minimum.
    assert est.target_s == pytest.approx(0.02)


@pytest.mark.parametrize("overrides, field", [
    ({"chunk_ms": 0}, "chunk_ms"),
    ({"chunk_ms": -20}, "chunk_ms"),
    ({"process_ms": -1}, "process_ms"),
    ({"network_ms": "5,-3"}, "network_ms"),
    ({"buffer_ms": 500}, "buffer_ms"),  # longer than the 200 ms stream
    ({"chunk_ms": 20.01}, "chunk_ms"),  # not a whole number of samples at 24 kHz
    ({"sample_rate_hz": 0}, "sample_rate_hz"),
    ({"device_quantum_ms": 0}, "device_quantum_ms"),
])
def test_bad_input_names_the_field(overrides, field):
    with pytest.raises(ParamError) as err:
        get("audio.timeline").run(overrides)
    assert err.value.param == field
    assert "valid" in err.value.message


def test_drain_runs_dry_only_with_a_deficit():
    out = get("audio.drain").run()
    assert out["dry_at_s"] == pytest.approx(3.0)
    assert out["stall_share_after_dry"] == pytest.approx(0.1)
    keeps_up = get("audio.drain").run({"arrival_rate_s_per_s": 1.0})
    assert keeps_up["dry_at_s"] is None
    t, arrived, played, level = at.drain_series(0.9, 0.3, 6.0)
    assert level[t < 2.9].min() > 0 and np.allclose(level[t > 3.01], 0)


def test_frames_three_speeds():
    out = get("audio.frames").run()
    assert out["fast_forwards_per_frame"] == 10 and out["forwards_per_frame"] == 11
    assert out["codebook_tokens_per_s"] == pytest.approx(10 * out["frames_per_s"])
    assert out["audio_s_per_s"] == pytest.approx(out["frames_per_s"] / 21.5)
    slow = get("audio.frames").run({"slow_step_ms": 60})
    assert slow["real_time"] is False and slow["audio_s_per_s"] < 1


@settings(max_examples=60, deadline=None)
@given(
    delays=st.lists(st.floats(0, 200), min_size=1, max_size=40),
    buffer_ms=st.floats(0, 100),
    process_ms=st.floats(0, 40),
    adaptive=st.booleans(),
)
def test_playout_invariants(delays, buffer_ms, process_ms, adaptive):
    tl = build_timeline(chunks=len(delays), network_ms=delays, process_ms=process_ms,
                           buffer_ms=buffer_ms, adaptive=adaptive)
    eps = 1e-9
    assert (tl.play_start >= tl.arrival - eps).all()  # nothing plays before it arrives
    assert (np.diff(tl.play_start) >= tl.chunk_s - eps).all()  # in order, never overlapping
    assert (tl.stall >= -eps).all()
    assert tl.play_start[0] == pytest.approx(tl.arrival[0] + buffer_ms / 1000)
    assert math.isclose(tl.finish_s, tl.first_playback_s + tl.n * tl.chunk_s + tl.stall.sum(), abs_tol=1e-9)
    if not adaptive:  # a fixed buffer stalls exactly when a chunk misses the shifted schedule
        assert (tl.lateness >= -eps).all()


@pytest.mark.parametrize("quantum", ["1e-308", "5e-324", "0.0001"])
def test_a_device_quantum_below_a_microsecond_is_refused_with_its_range(quantum):
    with pytest.raises(ParamError) as err:
        get("audio.timeline").run({"device_quantum_ms": quantum})
    assert err.value.param == "device_quantum_ms" and "0.001" in err.value.message


def test_smallest_quantum_and_latest_interrupt_give_a_finite_mute():
    out = get("audio.timeline").run({"device_quantum_ms": 0.001, "interrupt_at_ms": 3_600_000})
    assert math.isfinite(out["mute_at_s"]) and out["mute_at_s"] >= 3600.0


def test_timelines_are_shared_read_only_between_card_figure_and_engine():
    inputs = get("audio.timeline").resolve({"chunks": 40, "adaptive": True, "jitter_ms": 3})
    a, b = at.stream_timeline(inputs), at.stream_timeline(inputs)
    assert a is b and not a.arrival.flags.writeable


def test_figures_come_from_core():
    from core.audio import figures as af
    from core.audio.presets import PRESETS, matching_preset, preset_params

    calc = get("audio.timeline")
    inputs = calc.resolve({"network_ms": "5,5,50,5"})
    fig = af.timeline_figure(inputs, calc.run(inputs))
    assert fig.rows_all.arrivals[0][2] == pytest.approx(123) and list(fig.underruns_ms) == [118]
    lo, hi = fig.rows_between(0.1, 0.2)
    assert 0 <= lo < hi <= fig.n and fig.rows(lo, hi).arrivals[1][0] == lo
    t, level = fig.level_between(0.1185, 0.1225, 20)
    assert np.allclose(level, 0)  # B(t) is zero inside the stall
    cmp = get("audio.buffer_compare")
    ci = cmp.resolve()
    cfig = af.compare_figure(ci, cmp.run(ci))
    assert cfig.stalls[0].size == 1 and "A 40 ms" in cfig.labels[0][0]
    assert matching_preset(calc.resolve(preset_params("spike"))) == "spike" and set(PRESETS) >= {"book", "adaptive"}
