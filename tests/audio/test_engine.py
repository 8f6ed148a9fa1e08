"""The engine in real time on the virtual clock sink (runs anywhere, no sound server)."""
import time

import numpy as np
import pytest
from conftest import callback_lag

from audio import events as ev
from audio.engine import StreamEngine
from audio.markers import MARKER_SLOTS, marker_runs
from audio.sinks import VirtualSink, open_sink
from audio.sources import ToneSource, WavSource
from core.registry import ParamError


@pytest.fixture
def engine():
    eng = StreamEngine(prefer_device=False, record_seconds=4.0)
    yield eng
    eng.close()


def test_virtual_sink_says_why_it_is_used():
    sink = open_sink(48_000, 0.010, prefer_device=False)
    try:
        assert isinstance(sink, VirtualSink) and "virtual clock sink" in sink.status and "chosen" in sink.status
    finally:
        sink.close()
    sink = open_sink(48_000, 0.010, device="no such device 42")
    try:
        assert isinstance(sink, VirtualSink) and "virtual clock sink" in sink.status
        assert "no such device 42" in sink.status or "PortAudio" in sink.status or "no output" in sink.status
    finally:
        sink.close()


def test_stream_plays_in_order_and_stalls_like_the_model(engine):
    run = engine.start({"chunks": 16, "network_ms": "5,5,5,5,85,5"})
    assert run.wait(30.0)
    s = run.summary()
    assert s["chunks_played"] == 16 and s["played_in_order"]
    assert s["underruns"] == s["model_underruns"] == 1
    assert s["total_stall_s"] == pytest.approx(s["model_total_stall_s"], abs=engine.sink.block_s + 0.008)
    assert s["first_arrival_s"] == pytest.approx(0.038, abs=0.004)
    assert s["first_playback_s"] - s["first_arrival_s"] == pytest.approx(0.040, abs=engine.sink.block_s + 0.002)
    # What the virtual device "played" carries every chunk's marker in order.
    sink = engine.sink
    runs = marker_runs(sink.recording[:sink.recorded], sink.rate_hz)
    assert [r.slot for r in runs] == [i % MARKER_SLOTS for i in range(16)]


def test_interrupt_moments_are_logged_with_measured_times(engine):
    since = engine.sink.cb_stats.written
    run = engine.start({"chunks": 40})
    while run.clock() < 0.2:
        time.sleep(0.002)
    m = run.interrupt()
    assert run.interrupt() is None  # a second press does nothing
    assert run.wait(30.0)
    s = run.summary()
    assert s["model_mute_at_s"] == m.mute_at_s
    # The mute lands on the first block rendered after the command: within a block, later
    # by as much as the sink's callbacks ran late (a loaded machine delays its thread).
    lag = callback_lag(engine.sink, since)
    assert m.mute_at_s - 1e-4 <= s["mute_at_s"] <= m.mute_at_s + engine.sink.block_s + lag + 0.005, (s["mute_at_s"], lag)
    assert s["command_at_s"] >= m.command_at_s
    assert m.backend_stop_at_s <= s["backend_stop_at_s"] < m.backend_stop_at_s + 0.02
    assert m.release_at_s <= s["release_at_s"] < m.release_at_s + 0.02
    e = run.all_events()
    # The backend stopped: no chunk generated after the stop ever arrived.
    arrived = e.of(ev.ARRIVAL).chunk
    assert (run.timeline.processed[arrived] <= m.backend_stop_at_s).all()
    assert (run.timeline.processed[e.of(ev.DROPPED).chunk] > m.backend_stop_at_s).all()
    assert (e.of(ev.PLAY).t < e.of(ev.MUTE).t[0]).all()
    assert engine.sink.renderer is None  # released: the sink plays silence


def test_pull_returns_only_new_events_and_a_waveform(engine):
    run = engine.start({"chunks": 10})
    first = run.pull()
    assert run.wait(30.0)
    second = run.pull()
    third = run.pull()
    total = len(first.events) + len(second.events)
    assert total == len(run.all_events()) and len(third.events) == 0
    assert second.finished and second.wave.size == 4800 and np.abs(second.wave).max() >= 0  # ring copy
    assert second.level_t.size > 0


def test_adaptive_run_learns_a_target(engine):
    run = engine.start({"chunks": 30, "network_ms": "5,5,5,5,75,5,5,5,5,5,5,5,5,75,5", "adaptive": True})
    assert run.wait(30.0)
    e = run.all_events()
    assert e.of(ev.TARGET).value.max() > 0.05
    assert run.summary()["chunks_played"] == 30


@pytest.mark.parametrize("values, field", [
    ({"buffer_ms": 1000}, "buffer_ms"),  # longer than the 200 ms stream
    ({"chunk_ms": 0}, "chunk_ms"),
    ({"process_ms": -5}, "process_ms"),
])
def test_bad_input_is_refused_before_anything_plays(engine, values, field):
    with pytest.raises(ParamError) as err:
        engine.start(values)
    assert err.value.param == field
    assert engine.run is None


def test_chunk_length_must_be_whole_samples_at_the_sink_rate():
    eng = StreamEngine(VirtualSink(44_100, 441))
    try:
        with pytest.raises(ParamError) as err:
            eng.start({"chunk_ms": 12.5, "sample_rate_hz": 24_000})  # 551.25 samples at 44.1 kHz
        assert err.value.param == "chunk_ms" and "44100" in err.value.message
    finally:
        eng.close()


def test_bad_wav_is_a_clear_error_not_a_crash(engine, tmp_path):
    path = tmp_path / "bad.wav"
    path.write_bytes(b"RIFF....WAVEjunk")
    with pytest.raises(ParamError) as err:
        engine.start({"chunks": 5}, source=WavSource(str(path)))
    assert err.value.param == "wav"
    # and the engine still works afterwards
    run = engine.start({"chunks": 5}, source=ToneSource())
    assert run.wait(30.0) and run.summary()["chunks_played"] == 5


def test_a_sink_at_another_rate_gets_the_stream_resampled_with_its_markers():
    # What happens when a device refuses 48 kHz and runs at 44.1 kHz: the chunks are
    # prepared at the sink's rate, markers and timing intact.
    eng = StreamEngine(VirtualSink(44_100, 441, record_seconds=2.0))
    try:
        run = eng.start({"chunks": 12, "network_ms": "5,5,5,5,65,5"})
        assert run.wait(30.0)
        s = run.summary()
        assert s["chunks_played"] == 12 and s["underruns"] == s["model_underruns"] == 1
        assert run.playout.chunk_samples == 882
        sink = eng.sink
        runs = marker_runs(sink.recording[:sink.recorded], 44_100)
        assert [r.slot for r in runs] == list(range(12))
    finally:
        eng.close()


def test_the_engine_takes_checked_inputs_as_they_are(engine, monkeypatch):
    """Validate once: Inputs from TIMELINE.resolve go through prepare and start unparsed,
    and start reuses what prepare laid out and rendered."""
    from core.audio.timing import TIMELINE
    from core.registry import Param

    inputs = TIMELINE.resolve({"chunks": 8, "chunk_ms": "10ms"})
    parsed = []
    real = Param.parse
    monkeypatch.setattr(Param, "parse", lambda self, raw: (parsed.append(self.name), real(self, raw))[1])
    plan = engine.prepare(inputs)
    run = engine.start(inputs)
    assert parsed == [] and run.values is inputs
    assert run.timeline is plan.timeline and plan.chunk_samples == engine.sink.rate_hz // 100
    assert plan.quantum_s == pytest.approx(0.010) and plan.control_delay_s == pytest.approx(0.005)
    assert run.wait(30.0) and run.summary()["chunks_played"] == 8
    # raw values (a script) are parsed here, once, and refused with the field's name
    with pytest.raises(ParamError) as err:
        engine.start({"device_quantum_ms": "1e-308"})
    assert err.value.param == "device_quantum_ms"


def test_hidden_portaudio_behaves_as_a_machine_without_it(monkeypatch):
    from audio import sinks

    monkeypatch.setenv(sinks.HIDE_PORTAUDIO_ENV, "1")
    sd, reason = sinks.import_sounddevice()
    assert sd is None and "PortAudio library not found" in reason
    names, why = sinks.output_devices()
    assert names == [] and "PortAudio" in why
    sink = open_sink(48_000, 0.010)
    try:
        assert isinstance(sink, VirtualSink) and "PortAudio library not found" in sink.status
    finally:
        sink.close()
