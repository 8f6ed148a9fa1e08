"""The Audio panel: the model figure follows the form; a live run draws over it."""

import numpy as np
import pytest

from audio.engine import StreamEngine
from audio.sinks import output_devices
from core.audio_timing import build_timeline
from widgets.audio_panel import PANEL, AudioPanel
from widgets.panels import discover_panels


@pytest.fixture
def engine():
    eng = StreamEngine(prefer_device=False)
    yield eng
    eng.close()


@pytest.fixture
def panel(qtbot, engine):
    w = AudioPanel(engine=engine)
    qtbot.addWidget(w)
    w.resize(1600, 1000)
    w.show()
    yield w
    w.close()


def data(curve):
    """(x, y) as arrays; pyqtgraph gives None for an empty curve."""
    x, y = curve.getData()
    return (np.empty(0) if x is None else np.asarray(x)), (np.empty(0) if y is None else np.asarray(y))


def edit(card, name, text):
    field = card.form.field(name)
    field.edit.setText(text)
    field.edit.editingFinished.emit()


def test_discovered_under_its_key():
    assert PANEL.key == "audio" and PANEL.section == "3.3.3"
    assert "audio" in [p.key for p in discover_panels()]


def test_book_figure_by_default(panel):
    out = panel.timeline_card.result
    assert out["chunk_bytes"] == 960 and out["first_arrival_s"] == pytest.approx(0.038)
    x, y = data(panel.arrival_curve)
    assert np.allclose(x, 38 + 20 * np.arange(10)) and list(y) == list(range(10))
    assert panel.first_play_line.value() == pytest.approx(78)
    tx, _ = data(panel.tick_curve)
    assert np.allclose(tx[::2], 78 + 20 * np.arange(10))  # scheduled ticks
    sx, _ = data(panel.stall_curve)
    assert sx.size == 0  # 5 ms network: no stall


def test_a_spike_in_the_form_moves_dots_and_marks_the_stall(panel, qtbot):
    with qtbot.waitSignal(panel.timeline_card.computed):
        edit(panel.timeline_card, "network_ms", "5,5,50,5")
    x, _ = data(panel.arrival_curve)
    assert x[2] == pytest.approx(123)
    sx, sy = data(panel.stall_curve)
    assert list(np.round(sx, 6)) == [118] and sy[0] == pytest.approx(1.5)
    ux, uy = data(panel.underrun_curve)
    assert list(np.round(ux, 6)) == [118]
    # B(t) is zero inside the stall
    bx, by = data(panel.level_curve)
    inside = (bx > 118.5) & (bx < 122.5)
    assert inside.any() and np.allclose(by[inside], 0)
    # the 练习 3-5 card follows the same stream
    assert panel.compare_card.result["underruns_a"] == 1 and panel.compare_card.result["underruns_b"] == 0


def test_interrupt_moments_follow_the_form(panel, qtbot):
    with qtbot.waitSignal(panel.timeline_card.computed):
        edit(panel.timeline_card, "interrupt_at_ms", "156")
    assert panel.moment_lines["interrupt"].value() == pytest.approx(156)
    assert panel.moment_lines["mute"].value() == pytest.approx(170)
    assert panel.moment_lines["backend_stop"].value() == pytest.approx(186)
    assert panel.moment_lines["release"].value() == pytest.approx(206)


def test_bad_input_shows_by_the_field_and_play_uses_the_last_valid_stream(panel, qtbot):
    edit(panel.timeline_card, "buffer_ms", "900")
    field = panel.timeline_card.form.field("buffer_ms")
    assert field.error_label.isVisible() and "longer than the stream" in field.error_label.text()
    assert panel.timeline_card.values()["buffer_ms"] == 40
    with qtbot.waitSignal(panel.stream_finished, timeout=5000):
        assert panel.play()
    assert panel.run.values["buffer_ms"] == 40


def test_preset_sets_the_form(panel):
    panel.preset_buttons["adaptive"].click()
    v = panel.timeline_card.values()
    assert v["adaptive"] is True and v["chunks"] == 250 and v["spike_ms"] == 70
    panel.preset_buttons["book"].click()
    v = panel.timeline_card.values()
    assert v["adaptive"] is False and v["chunks"] == 10 and v["network_ms"] == (5.0,)


def test_live_run_draws_arrivals_bars_level_and_waveform(panel, qtbot):
    edit(panel.timeline_card, "chunks", "30")
    edit(panel.timeline_card, "network_ms", "5,5,5,5,5,85,5")
    with qtbot.waitSignal(panel.stream_finished, timeout=6000) as blocker:
        with qtbot.waitSignal(panel.stream_started):
            panel.play_button.click()
        assert panel.stop_button.isEnabled() and panel.interrupt_button.isEnabled()
    summary = blocker.args[0]
    assert summary["chunks_played"] == 30 and summary["played_in_order"]
    assert summary["underruns"] == 1
    ax, ay = data(panel.live_arrival_curve)
    assert sorted(ay.tolist()) == list(range(30))
    opts = panel.live_bars.opts
    assert len(opts["x0"]) == 30
    lx, ly = data(panel.live_level_curve)
    assert lx.size > 50 and ly.min() >= 0
    ux, _ = data(panel.live_underrun_curve)
    assert ux.size == 1
    model = build_timeline(chunks=30, network_ms=(5, 5, 5, 5, 5, 85, 5))
    # chunk 5 is held up: the player runs dry when chunk 4 ends
    assert ux[0] == pytest.approx((model.play_start[4] + model.chunk_s) * 1e3, abs=12)
    wx, wy = data(panel.wave_curve)
    assert wx.size > 0 and np.abs(wy).max() > 0.05
    assert not panel._timer.isActive() and not panel.stop_button.isEnabled()
    assert "measured" in panel.measured_label.text() and "in order" in panel.measured_label.text()
    assert len(panel.frame_times_s) > 5


def test_interrupt_button_silences_and_shows_the_measured_moments(panel, qtbot):
    edit(panel.timeline_card, "chunks", "100")
    with qtbot.waitSignal(panel.stream_started):
        panel.play()
    qtbot.waitUntil(lambda: panel.run.clock() > 0.3, timeout=3000)
    with qtbot.waitSignal(panel.stream_finished, timeout=3000) as blocker:
        with qtbot.waitSignal(panel.interrupted):
            panel.interrupt_button.click()
    s = blocker.args[0]
    assert s["mute_at_s"] is not None and s["model_mute_at_s"] - 1e-4 <= s["mute_at_s"]
    assert s["chunks_played"] < 100
    for key in ("interrupt", "mute", "backend_stop", "release"):
        assert panel.live_moment_lines[key].isVisible()
    assert panel.live_moment_lines["mute"].value() == pytest.approx(s["mute_at_s"] * 1e3)
    assert "interrupt" in panel.measured_label.text()


def test_replay_reuses_the_rendered_audio(panel, qtbot):
    with qtbot.waitSignal(panel.stream_finished, timeout=5000):
        panel.play()
    first = panel.run.playout.pcm
    with qtbot.waitSignal(panel.stream_finished, timeout=5000):
        panel.play()
    assert panel.run.playout.pcm is first  # same stream, same source: not rendered again


def test_a_bad_wav_is_refused_with_a_message(panel, tmp_path):
    path = tmp_path / "not.wav"
    path.write_bytes(b"nope")
    assert not panel.set_wav(str(path))
    assert "cannot use the file" in panel.status_label.text()
    panel.source_box.setCurrentText("wav")
    panel._wav_path = ""
    assert not panel.play()
    assert "cannot play" in panel.status_label.text()


def test_close_stops_the_timer_and_the_stream(qtbot, engine):
    w = AudioPanel(engine=engine)
    qtbot.addWidget(w)
    w.timeline_card.form.set_values({"chunks": 200})
    with qtbot.waitSignal(w.stream_started, timeout=5000):
        assert w.play()
    assert w._timer.isActive() and engine.sink.renderer is w.run.playout
    w.close()
    assert not w._timer.isActive()
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
        with qtbot.waitSignal(w.stream_finished, timeout=8000) as blocker:
            assert w.play()
        assert "device:" in w.status_label.text()
        s = blocker.args[0]
        assert s["chunks_played"] == 20 and s["played_in_order"] and s["late_vs_model"] == 0
    finally:
        w.close()


def test_hidden_panel_keeps_draining_and_finishes(panel, qtbot):
    edit(panel.timeline_card, "chunks", "20")
    with qtbot.waitSignal(panel.stream_finished, timeout=5000) as blocker:
        assert panel.play()
        panel.hide()
    assert blocker.args[0]["chunks_played"] == 20
    assert not panel._timer.isActive()
