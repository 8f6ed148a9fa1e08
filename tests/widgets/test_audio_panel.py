"""The Audio panel: a view of AudioState; the model figure follows the form; a live run
draws over it. Waits are on signals and conditions with generous limits; what is asserted
is what the model says and what the run logged, not how fast this machine happens to be."""

import json

import numpy as np
import pytest

from audio.sinks import output_devices
from core.audio.presets import PRESETS, preset_params
from core.audio.state import VIRTUAL_DEVICE, AudioState
from core.audio.timeline import build_timeline
from core.audio.timing import TIMELINE
from core.registry import Param
from widgets.audio import PANEL, AudioPanel
from widgets.kit.jobs import jobs
from widgets.kit.panels import discover_panels

WAIT_MS = 30_000


def _ready(qtbot, w):
    qtbot.waitUntil(w.is_ready, timeout=WAIT_MS)
    return w


@pytest.fixture
def panel(qtbot, engine):
    w = AudioPanel(engine=engine)
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    yield _ready(qtbot, w)
    w.close()


def data(curve):
    """(x, y) as arrays; pyqtgraph gives None for an empty curve."""
    x, y = curve.getData()
    return (np.empty(0) if x is None else np.asarray(x)), (np.empty(0) if y is None else np.asarray(y))


def edit(card, name, text):
    field = card.form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def edit_and_draw(qtbot, panel, name, text):
    """Edit a field of the stream's card and wait until every figure shows the new stream."""
    edit(panel.timeline_card, name, text)
    _ready(qtbot, panel)


def test_discovered_under_its_key():
    assert PANEL.key == "audio" and PANEL.section == "3.3.3"
    assert "audio" in [p.key for p in discover_panels()]


def test_book_figure_by_default(panel):
    out = panel.timeline_card.result
    assert out["chunk_bytes"] == 960 and out["first_arrival_s"] == pytest.approx(0.038)
    x, y = data(panel.plots.arrival_curve)
    assert np.allclose(x, 38 + 20 * np.arange(10)) and list(y) == list(range(10))
    assert panel.plots.first_play_line.value() == pytest.approx(78)
    tx, _ = data(panel.plots.tick_curve)
    assert np.allclose(tx[::2], 78 + 20 * np.arange(10))  # scheduled ticks
    sx, _ = data(panel.plots.stall_curve)
    assert sx.size == 0  # 5 ms network: no stall


def test_a_spike_in_the_form_moves_dots_and_marks_the_stall(panel, qtbot):
    edit_and_draw(qtbot, panel, "network_ms", "5,5,50,5")
    x, _ = data(panel.plots.arrival_curve)
    assert x[2] == pytest.approx(123)
    sx, sy = data(panel.plots.stall_curve)
    assert list(np.round(sx, 6)) == [118] and sy[0] == pytest.approx(1.5)
    ux, uy = data(panel.plots.underrun_curve)
    assert list(np.round(ux, 6)) == [118]
    # B(t) is zero inside the stall
    bx, by = data(panel.plots.level_curve)
    inside = (bx > 118.5) & (bx < 122.5)
    assert inside.any() and np.allclose(by[inside], 0)
    # the 练习 3-5 card follows the same stream
    assert panel.compare_card.result["underruns_a"] == 1 and panel.compare_card.result["underruns_b"] == 0


def test_interrupt_moments_follow_the_form(panel, qtbot):
    edit_and_draw(qtbot, panel, "interrupt_at_ms", "156")
    lines = panel.plots.moment_lines
    assert lines["interrupt"].value() == pytest.approx(156)
    assert lines["mute"].value() == pytest.approx(170)
    assert lines["backend_stop"].value() == pytest.approx(186)
    assert lines["release"].value() == pytest.approx(206)


def test_bad_input_shows_by_the_field_and_play_uses_the_last_valid_stream(panel, qtbot):
    edit(panel.timeline_card, "buffer_ms", "900")
    field = panel.timeline_card.form.field("buffer_ms")
    assert field.error_label.isVisible() and "longer than the stream" in field.error_label.text()
    assert panel.timeline_card.values()["buffer_ms"] == 40
    assert panel.state.timeline.errors  # the state knows the edit was refused
    with qtbot.waitSignal(panel.stream_finished, timeout=WAIT_MS):
        assert panel.play()
    assert panel.run.values["buffer_ms"] == 40


def test_preset_sets_the_form(panel):
    panel.preset_buttons["adaptive"].click()
    v = panel.timeline_card.values()
    assert v["adaptive"] is True and v["chunks"] == 250 and v["spike_ms"] == 70
    assert panel.state.view("preset") == "adaptive" and panel.preset_buttons["adaptive"].isChecked()
    panel.preset_buttons["book"].click()
    v = panel.timeline_card.values()
    assert v["adaptive"] is False and v["chunks"] == 10 and v["network_ms"] == (5.0,)
    assert panel.preset_buttons["book"].isChecked() and not panel.preset_buttons["adaptive"].isChecked()


def test_editing_the_stream_names_its_preset_or_custom(panel, qtbot):
    edit(panel.timeline_card, "network_ms", "5,5,50,5")
    assert panel.state.view("preset") == "spike" and panel.preset_buttons["spike"].isChecked()
    edit(panel.timeline_card, "chunks", "11")
    assert panel.state.view("preset") == "" and not any(b.isChecked() for b in panel.preset_buttons.values())


def test_live_run_draws_arrivals_bars_level_and_waveform(panel, qtbot, monkeypatch):
    # The waveform shows the latest 0.1 s: by the run's last frame that can be the silence
    # after the last chunk, so what it drew is checked frame by frame.
    drawn_peaks = []
    draw_wave = panel.plots.draw_wave

    def recording_draw_wave(x, y, *args, **kwargs):
        drawn_peaks.append(float(np.abs(y).max()) if len(y) else 0.0)
        return draw_wave(x, y, *args, **kwargs)

    monkeypatch.setattr(panel.plots, "draw_wave", recording_draw_wave)
    edit(panel.timeline_card, "chunks", "30")
    edit(panel.timeline_card, "network_ms", "5,5,5,5,5,85,5")
    with qtbot.waitSignal(panel.stream_finished, timeout=WAIT_MS) as blocker:
        with qtbot.waitSignal(panel.stream_started, timeout=WAIT_MS):
            panel.play_button.click()
        assert panel.stop_button.isEnabled() and panel.interrupt_button.isEnabled()
    summary = blocker.args[0]
    assert summary["chunks_played"] == 30 and summary["played_in_order"]
    assert summary["model_underruns"] == 1 and summary["underruns"] >= 1
    ax, ay = data(panel.plots.live_arrival_curve)
    assert sorted(ay.tolist()) == list(range(30))
    opts = panel.plots.live_bars.opts
    assert len(opts["x0"]) == 30
    lx, ly = data(panel.plots.live_level_curve)
    assert lx.size > 50 and ly.min() >= 0
    ux, _ = data(panel.plots.live_underrun_curve)
    assert ux.size >= 1
    model = build_timeline(chunks=30, network_ms=(5, 5, 5, 5, 5, 85, 5))
    assert model.underruns().tolist() == [5]
    # chunk 5 is held up: the player runs dry when chunk 4 ends (as the run logged it),
    # and resumes with chunk 5.
    starts = np.asarray(opts["x0"])
    order = np.argsort(np.asarray(opts["y0"]))
    starts = starts[order]
    assert starts[4] < ux[0] < starts[5]
    wx, wy = data(panel.plots.wave_curve)
    assert wx.size > 0 and max(drawn_peaks) > 0.05
    assert not panel.playing and not panel.stop_button.isEnabled()
    assert "measured" in panel.measured_label.text() and "in order" in panel.measured_label.text()
    assert len(panel.frame_times_s) > 5


def test_interrupt_button_silences_and_shows_the_measured_moments(panel, qtbot):
    edit(panel.timeline_card, "chunks", "100")
    with qtbot.waitSignal(panel.stream_started, timeout=WAIT_MS):
        panel.play()
    qtbot.waitUntil(lambda: panel.run.clock() > 0.3, timeout=WAIT_MS)
    with qtbot.waitSignal(panel.stream_finished, timeout=WAIT_MS) as blocker:
        with qtbot.waitSignal(panel.interrupted, timeout=WAIT_MS):
            panel.interrupt_button.click()
    s = blocker.args[0]
    assert s["mute_at_s"] is not None and s["model_mute_at_s"] - 1e-4 <= s["mute_at_s"]
    assert s["chunks_played"] < 100
    for key in ("interrupt", "mute", "backend_stop", "release"):
        assert panel.plots.live_moment_lines[key].isVisible(), key
    assert panel.plots.live_moment_lines["mute"].value() == pytest.approx(s["mute_at_s"] * 1e3)
    # the dashed lines show what the model says of this interrupt
    assert panel.plots.moment_lines["mute"].value() == pytest.approx(s["model_mute_at_s"] * 1e3)
    assert "interrupt" in panel.measured_label.text()


def test_replay_reuses_the_rendered_audio(panel, qtbot):
    with qtbot.waitSignal(panel.stream_finished, timeout=WAIT_MS):
        panel.play()
    first = panel.run.playout.pcm
    with qtbot.waitSignal(panel.stream_finished, timeout=WAIT_MS):
        panel.play()
    assert panel.run.playout.pcm is first  # same stream, same source: not rendered again


def test_a_bad_wav_is_refused_with_a_message(panel, tmp_path):
    path = tmp_path / "not.wav"
    path.write_bytes(b"nope")
    assert not panel.set_wav(str(path))
    assert "cannot use the file" in panel.status_label.text()
    assert panel.state.view("wav_path") == ""  # the state keeps its last good source
    panel.state.set_view("source", "wav")
    assert panel.controls.source_box.currentText() == "wav"
    assert not panel.play()
    assert "cannot play" in panel.status_label.text()


def test_close_stops_the_timer_and_the_stream(qtbot, engine):
    w = AudioPanel(engine=engine)
    qtbot.addWidget(w)
    w.timeline_card.form.set_values({"chunks": 200})
    with qtbot.waitSignal(w.stream_started, timeout=WAIT_MS):
        assert w.play()
    assert w.playing and engine.sink.renderer is w.run.playout
    w.close()
    assert not w.playing
    assert engine.sink.renderer is None


@pytest.mark.audio_device
def test_plays_on_the_real_device(qtbot):
    names, reason = output_devices()
    if not names:
        pytest.skip(f"no audio device: {reason}")
    w = AudioPanel()  # owns its engine: opens the default device on ▶
    qtbot.addWidget(w)
    try:
        w.timeline_card.form.set_values({"chunks": 20})
        with qtbot.waitSignal(w.stream_finished, timeout=WAIT_MS) as blocker:
            assert w.play()
        assert "device:" in w.status_label.text()
        s = blocker.args[0]
        assert s["chunks_played"] == 20 and s["played_in_order"] and s["late_vs_model"] == 0
    finally:
        w.close()


def test_hidden_panel_keeps_draining_and_finishes(panel, qtbot):
    edit(panel.timeline_card, "chunks", "20")
    with qtbot.waitSignal(panel.stream_finished, timeout=WAIT_MS) as blocker:
        assert panel.play()
        panel.hide()
    assert blocker.args[0]["chunks_played"] == 20
    assert not panel.playing


# ---- the state model ----------------------------------------------------------------

def test_the_panel_is_a_view_of_its_state(qtbot, engine):
    state = AudioState()
    state.timeline.update({"network_ms": "5,5,50,5", "chunks": 12})
    state.set_view("source", "tone")
    w = AudioPanel(state=state, engine=engine)
    qtbot.addWidget(w)
    w.show()
    _ready(qtbot, w)
    assert w.state is state
    # state -> widgets
    assert w.timeline_card.form.field("chunks").edit.text() == "12"
    assert w.controls.source_box.currentText() == "tone" and w.preset_buttons["spike"].isChecked() is False
    x, _ = data(w.plots.arrival_curve)
    assert x.size == 12 and x[2] == pytest.approx(123)
    state.set_view("source", "chirp")
    assert w.controls.source_box.currentText() == "chirp"
    state.set_view("follow", False)
    assert not w.controls.follow_box.isChecked()
    state.apply_preset("long_spike")
    _ready(qtbot, w)
    assert data(w.plots.arrival_curve)[0].size == 150 and w.preset_buttons["long_spike"].isChecked()
    # widgets -> state
    w.controls.source_box.setCurrentText("voice")
    assert state.view("source") == "voice"
    w.controls.follow_box.setChecked(True)
    assert state.view("follow") is True
    box = w.controls.device_box
    if box.count() > 1:  # a machine with devices: choosing the virtual clock is a state change
        box.setCurrentIndex(box.count() - 1)
        assert state.view("device") == VIRTUAL_DEVICE
    else:  # no device (no PortAudio): the default is the virtual clock, and the box says so
        assert box.currentData() == VIRTUAL_DEVICE
    edit(w.timeline_card, "buffer_ms", "60")
    assert state.timeline.inputs["buffer_ms"] == 60
    w.close()


def test_state_round_trips_through_json_and_refuses_bad_files():
    state = AudioState()
    state.apply_preset("jitter")
    state.timeline.update({"buffer_ms": 80})
    state.card("drain").update({"arrival_rate_s_per_s": 0.5})
    state.set_view("source", "chirp")
    state.set_view("device", VIRTUAL_DEVICE)
    state.set_player("stream", 1.25)
    data_ = json.loads(json.dumps(state.to_json()))
    other = AudioState()
    other.load_json(data_)
    assert other.to_json() == data_
    # buffer_ms is not a preset's: the stream is still the "jitter" preset
    assert other.timeline.inputs == state.timeline.inputs and other.view("preset") == "jitter"
    assert other.card("compare").inputs["chunks"] == 250  # follows the stream
    assert other.player("stream") == 1.25
    before = other.to_json()
    for bad in ({"view": {"source": "mp3"}}, {"view": {"preset": "nope"}}, {"cards": {"timeline": {"chunk_ms": 0}}},
                {"players": {"tape": 1.0}}):
        with pytest.raises(ValueError):
            other.load_json({**data_, **bad})
        assert other.to_json() == before  # nothing changed
    # a file's preset that disagrees with its stream: the stream wins, the preset names it
    other.load_json({**data_, "view": {**data_["view"], "preset": "book"}})
    assert other.timeline.inputs["chunks"] == 250 and other.view("preset") == "jitter"


def test_state_changes_emit_once_per_real_change():
    state = AudioState()
    seen = []
    state.changed.connect(lambda path, value: seen.append(path))
    state.set_view("source", "voice")  # no change
    state.set_view("source", "tone")
    state.apply_preset("book")  # already the book
    assert seen == ["view.source"]
    state.apply_preset("spike")
    assert seen.count("cards.timeline") == 1 and seen[-1] in ("view.preset", "cards.compare", "cards.timeline")
    assert state.view("preset") == "spike"


def test_presets_live_in_core_and_match_the_buttons(panel):
    assert set(panel.preset_buttons) == set(PRESETS)
    for key in PRESETS:
        panel.preset_buttons[key].click()
        values = panel.timeline_card.values()
        assert all(values[k] == v for k, v in preset_params(key).items())


def test_play_parses_nothing_again(panel, qtbot, monkeypatch):
    """Validate once: the card parsed chunk_ms when the form took the edit; ▶ (and the engine
    under it: prepare on the job runner, start) take the card's checked Inputs as they are."""
    edit_and_draw(qtbot, panel, "chunk_ms", "10")
    parsed = []
    real_parse = Param.parse

    def counting_parse(self, raw):
        parsed.append(self.name)
        return real_parse(self, raw)

    monkeypatch.setattr(Param, "parse", counting_parse)
    resolved = []
    real_resolve_all = type(TIMELINE).resolve_all

    def counting_resolve_all(self, *args, **kwargs):
        inputs, errors = real_resolve_all(self, *args, **kwargs)
        if self.name == TIMELINE.name and not (args and args[0] is inputs):  # Inputs passed through are free
            resolved.append(args)
        return inputs, errors

    monkeypatch.setattr(type(TIMELINE), "resolve_all", counting_resolve_all)
    with qtbot.waitSignal(panel.stream_finished, timeout=WAIT_MS):
        assert panel.play()
    assert "chunk_ms" not in parsed and parsed == []
    assert resolved == []  # nothing checked the stream's values again either
    assert panel.run.values is panel.state.timeline.inputs


def test_the_stream_is_laid_out_off_the_gui_thread(panel, qtbot, monkeypatch):
    """The slow part of a figure (laying out a long stream: up to a second) runs on the job
    runner; the GUI thread only slices the laid-out stream (a few ms)."""
    import threading

    from core.audio import timing as audio_timing

    where = []
    real = audio_timing.build_timeline

    def spy(*args, **kwargs):
        where.append(threading.current_thread() is threading.main_thread())
        return real(*args, **kwargs)

    monkeypatch.setattr(audio_timing, "build_timeline", spy)
    with qtbot.waitSignal(panel.figure_drawn, timeout=WAIT_MS, check_params_cb=lambda name: name == "timeline"):
        edit(panel.timeline_card, "chunks", "40")
    _ready(qtbot, panel)
    assert where and not any(where)
    assert data(panel.plots.arrival_curve)[0].size == 40
    jobs().wait_idle()
