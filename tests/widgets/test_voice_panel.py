"""The Voice panel: a view of VoiceState; the turns come from core.voice on the job runner.
What is asserted is what the model says (spans, silences, percentiles) against what is
drawn, and what the player logged against the model; waits are on signals and conditions."""

import numpy as np
import pytest

from core.voice import VoiceParams, simulate_voice
from core.voice.state import RATE_STEP_PER_S
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels
from widgets.voice import PANEL, VoicePanel
from widgets.voice.stages import REPLY_LANE

WAIT_MS = 60_000
TURNS = 40  # enough for the percentiles to differ; small enough to replay quickly


@pytest.fixture
def panel(qtbot, engine):
    w = VoicePanel(engine=engine)
    qtbot.addWidget(w)
    w.resize(1280, 720)
    w.show()
    with qtbot.waitSignal(w.run_drawn, timeout=WAIT_MS, check_params_cb=lambda d: d["values"]["turns"] == str(TURNS)):
        w.state.set_view("turns", TURNS)
    qtbot.waitUntil(w.is_ready, timeout=WAIT_MS)
    yield w
    w.close()
    jobs().wait_idle()


def _model(values: dict):
    return simulate_voice(VoiceParams.from_raw(values))


def _ms(t, origin):
    return (np.asarray(t, dtype=float) - origin) * 1e3


def test_panel_is_discovered():
    assert "voice" in [p.key for p in discover_panels()]
    assert PANEL.key == "voice"


def test_swimlane_draws_the_shown_turns_spans_on_the_replays_clock(panel):
    run = _model(panel.run_values)
    index = run.turn_index(95)
    turn = run.turns[index]
    d = panel.drawn
    assert d["shown"] == "p95" and d["index"] == index
    gap = [s for s in turn.spans if s.name not in ("reply", "barge_in")]
    assert d["lanes"] == [s.name for s in gap] + [REPLY_LANE]
    origin = turn.spans[0].start_s
    np.testing.assert_array_equal(d["x0_ms"], _ms([s.start_s for s in gap], origin))
    np.testing.assert_array_equal(d["x1_ms"], _ms([s.end_s for s in gap], origin))
    # The stages tile the gap: the bracket the audience reads is the model's silence.
    assert d["x1_ms"][-1] == pytest.approx(turn.silence_s * 1e3, abs=1e-6)
    assert d["silence_ms"] == turn.silence_s * 1e3
    bars = panel.timeline.bars.opts
    np.testing.assert_array_equal(np.asarray(bars["x0"])[:len(gap)], d["x0_ms"])
    # The reply lane: the model's hand-overs, back to back but for its stalls.
    played = np.asarray(bars["x1"])[len(gap):] - np.asarray(bars["x0"])[len(gap):]
    chunk_ms = run.params.chunk_ms
    assert played.sum() == pytest.approx(d["chunks"] * chunk_ms)
    assert np.asarray(bars["x0"])[len(gap)] == pytest.approx((turn.play_start_s[0] - origin) * 1e3)
    # The background is the same replay's series, on the same axis (0 = the user's last word).
    x, q = panel.timeline.queue_curve.getData()
    t = run.background.series_t
    inside = (t >= origin - 3.0) & (t <= origin + 3.0)
    assert np.all(np.isin(_ms(t[inside], origin), x))
    assert panel.timeline.background.plot.getViewBox().linkedView(0) is panel.timeline.swimlane.plot.getViewBox()


def test_histogram_marks_are_the_models_percentiles(panel):
    run = _model(panel.run_values)
    marks = panel.drawn["marks"]
    for k in ("p50", "p95", "p99"):
        assert marks[k] == run.summary[f"silence_{k}_ms"]
        assert panel.histogram.lines[k].value() == run.summary[f"silence_{k}_ms"]
    assert int(panel.drawn["counts"].sum()) == len(run.turns)
    assert "p95" in panel.summary_label.text()


def test_load_slider_moves_the_spans_latest_edit_wins(qtbot, panel):
    unloaded = panel.drawn["silence_ms"]
    # A drag: several values in a row; only the last one's run is drawn.
    last = panel.load_slider.maximum() // 2
    with qtbot.waitSignal(panel.run_drawn, timeout=WAIT_MS,
                          check_params_cb=lambda d: d["values"]["rate"] == f"{last * RATE_STEP_PER_S:g}"):
        for v in range(1, last + 1):
            panel.load_slider.setValue(v)
    qtbot.waitUntil(panel.is_ready, timeout=WAIT_MS)
    assert panel.run_values["rate"] == f"{last * RATE_STEP_PER_S:g}"
    loaded = _model(panel.run_values)
    turn = loaded.turns[loaded.turn_index(95)]
    assert panel.drawn["silence_ms"] == turn.silence_s * 1e3
    queue = [s for s in turn.spans if s.name == "queue"][0]
    i = panel.drawn["lanes"].index("queue")
    assert panel.drawn["x1_ms"][i] - panel.drawn["x0_ms"][i] == pytest.approx((queue.end_s - queue.start_s) * 1e3)
    # More background never shortens the p95 silence (the model's monotonicity, drawn).
    assert panel.drawn["marks"]["p95"] >= _model({**panel.run_values, "rate": "0"}).summary["silence_p95_ms"]
    assert panel.load_label.text().startswith(f"{last * RATE_STEP_PER_S:g}")
    assert unloaded > 0


def test_shown_buttons_pick_the_turn_at_that_percentile(qtbot, panel):
    run = _model(panel.run_values)
    with qtbot.waitSignal(panel.run_drawn, timeout=WAIT_MS):
        panel.shown_buttons["p50"].click()
    assert panel.state.view("shown") == "p50"
    assert panel.drawn["index"] == run.turn_index(50)
    assert panel.drawn["silence_ms"] == run.turns[run.turn_index(50)].silence_s * 1e3


def test_a_refused_edit_names_the_field_and_keeps_the_last_good_run(qtbot, panel):
    good = dict(panel.run_values)
    drawn = panel.drawn["silence_ms"]
    with qtbot.waitSignal(panel.run_refused, timeout=WAIT_MS) as sig:
        panel.turns_spin.setValue(0)
    field, text = sig.args
    assert field == "turns" and "valid" in text
    assert panel.error_label.isVisible() and "turns" in panel.error_label.text()
    assert panel.run_values == good and panel.drawn["silence_ms"] == drawn
    with qtbot.waitSignal(panel.run_drawn, timeout=WAIT_MS):
        panel.turns_spin.setValue(TURNS + 1)
    assert not panel.error_label.isVisible()


def test_hear_it_plays_p50_then_p95_as_the_model_timed_them(qtbot, panel, engine):
    hear = panel.hear_it
    labels = []
    hear.turn_started.connect(labels.append)
    with qtbot.waitSignal(hear.playback_finished, timeout=WAIT_MS) as done:
        hear.play_button.click()
        # While a turn plays, the swimlane shows it (and its playhead).
        qtbot.waitUntil(lambda: panel.state.view("shown") == "p95" and panel.timeline.cursor.isVisible(),
                        timeout=WAIT_MS)
    assert labels == ["p50", "p95"]
    summaries = done.args[0]
    run = panel.run
    block = engine.sink.block_s
    for s, pct in zip(summaries, (50, 95)):
        turn = run.turns[run.turn_index(pct)]
        assert s["model_silence_s"] == turn.silence_s
        # The reply's first sample left the engine where the model put it: within one
        # block of the sink (it renders whole blocks), later by no more than a late callback.
        assert -1e-3 <= s["first_handover_s"] - s["model_first_handover_s"] <= block + 0.05, s
        assert s["chunks_played"] == s["chunks"]
    assert not panel.timeline.cursor.isVisible()
    assert "p95" in hear.status_label.text()


def test_barge_in_key_mutes_the_reply_playing(qtbot, panel, engine):
    hear = panel.hear_it
    with qtbot.waitSignal(hear.playback_started, timeout=WAIT_MS):
        hear.play_button.click()
    player = hear.player
    # Wait until the first reply is audible, then press the key.
    qtbot.waitUntil(lambda: player.run is not None and player.run.playout.started, timeout=WAIT_MS)
    with qtbot.waitSignal(hear.barged_in, timeout=WAIT_MS):
        qtbot.keyClick(panel, "B")
    run = player.run
    qtbot.waitUntil(lambda: run.playout.muted, timeout=WAIT_MS)
    assert panel.timeline.barge_line.isVisible()
    s = run.summary()
    assert s["mute_at_s"] >= s["interrupt_s"]
    assert s["mute_at_s"] - s["model_mute_at_s"] <= engine.sink.block_s + 0.05
    assert s["chunks_played"] < s["chunks"]
    hear.stop()
    assert not hear.playing
