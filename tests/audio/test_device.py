"""At the device: play through sounddevice into the PulseAudio null sink, record its monitor.

What the recording must show: every chunk, in order; a silent stall where the model puts
it; silence after an interrupt within control delay + device quantum + one device block
+ the server's latency, which is measured here (recorded onsets against the engine's
log), not assumed.
"""
import time

import numpy as np
import pytest
from conftest import _device_skip_reason, callback_lag  # at import: later `conftest`s shadow the name

from audio import events as ev
from audio.engine import StreamEngine
from audio.markers import MARKER_SLOTS, marker_runs, silent_gaps
from audio.sinks import DeviceSink, VirtualSink

pytestmark = pytest.mark.audio_device

HOP_S = 0.0025  # marker analysis hop: onsets in the recording are good to about this


LOST_LIMIT_S = 0.004  # more recording lost than this and its time base cannot judge the engine's


def _record(monitor, run, settle_s=0.15):
    time.sleep(settle_s)  # the tail of the stream crosses the server's buffers
    samples, start = monitor.stop()
    if monitor.lost_s > LOST_LIMIT_S:
        pytest.skip(f"the recording lost {monitor.lost_s * 1e3:.1f} ms of samples (the machine was too busy for "
                    "the sound server or parec): its time base cannot judge the engine's timing")
    return samples, start - run.origin  # recording sample 0 in engine time


def _measured_latency(runs, offset, play):
    """Server latency: recorded onset (engine time) minus the player's logged start,
    over the chunks that start right after another (their onsets are sharp)."""
    k = min(len(runs), play.kind.size)
    onsets = np.array([r.start_s for r in runs[:k]]) + offset
    lat = onsets - play.t[:k]
    return float(np.median(lat)), float(np.max(np.abs(lat - np.median(lat))))


def test_chunks_in_order_and_the_stall_where_the_model_puts_it(device_sink, monitor):
    engine = StreamEngine(device_sink)
    since = device_sink.cb_stats.written
    # Chunk 6 is held up 80 ms on the network: the 40 ms buffer cannot hide it.
    run = engine.start({"chunks": 20, "network_ms": "5,5,5,5,5,5,85,5", "interrupt_at_ms": 10_000})
    assert run.wait(30.0)
    samples, offset = _record(monitor, run)
    run.stop()
    tl = run.timeline
    runs = marker_runs(samples, monitor.rate_hz)
    assert [r.slot for r in runs] == [i % MARKER_SLOTS for i in range(20)], "chunks missing or out of order"

    play = run.all_events().of(ev.PLAY)
    latency, spread = _measured_latency(runs, offset, play)
    assert 0 < latency < 0.5 and spread < 0.004, (latency, spread)

    # The stall: model says the player runs dry after chunk 5 and resumes when 6 arrives.
    # The run dry moment follows the real start of play (chunk 0's measured arrival plus the
    # buffer): how far the stream runs off the model there is the median over the chunks
    # before the stall, so one callback that ran late on a busy machine does not move it.
    # The resume follows chunk 6's own measured arrival, which the network thread keeps to
    # its schedule independently of how late chunk 0 came (a busy CI machine started the
    # thread 12 ms late once: adding chunk 0's lateness here too put the model's resume late).
    before = play.chunk < 6
    shift = float(np.median(play.t[before] - tl.play_start[play.chunk[before]]))
    arrivals = run.all_events().of(ev.ARRIVAL)
    arrived_6 = float(arrivals.t[arrivals.chunk == 6][0])
    assert 0 <= arrived_6 - tl.arrival[6] < 0.05, "the network thread ran too late to judge the timing"
    assert abs(tl.play_start[6] - tl.arrival[6]) < 1e-9, "the model resumes when chunk 6 arrives"
    model_gap = (tl.play_start[5] + tl.chunk_s + shift, arrived_6)
    gaps = [(a + offset - latency, b + offset - latency) for a, b in silent_gaps(samples, monitor.rate_hz)]
    inside = [g for g in gaps if g[0] > tl.play_start[0] + shift + 0.01 and g[1] < tl.play_start[-1] + shift]
    assert len(inside) == 1, gaps
    (start, end), = inside
    block = device_sink.block_s
    assert abs(start - model_gap[0]) < spread + 2 * HOP_S
    # The player hears of the arrival at its next callback: up to one block late; and a
    # late-running callback fills an earlier slot (see conftest.callback_lag).
    lag = callback_lag(device_sink, since)
    assert lag < 0.05, "callbacks ran too irregularly to judge the timing"
    assert model_gap[1] - lag - spread - 2 * HOP_S < end < model_gap[1] + block + spread + 2 * HOP_S, (end, lag)
    assert run.summary()["underruns"] == 1 and tl.underruns().tolist() == [6]


def test_interrupt_goes_silent_within_control_delay_quantum_and_block(device_sink, monitor):
    engine = StreamEngine(device_sink)
    since = device_sink.cb_stats.written
    run = engine.start({"chunks": 40, "interrupt_at_ms": 10_000})
    while run.clock() < 0.3:
        time.sleep(0.002)
    m = run.interrupt()
    assert run.wait(30.0)
    samples, offset = _record(monitor, run)
    runs = marker_runs(samples, monitor.rate_hz)
    play = run.all_events().of(ev.PLAY)
    latency, spread = _measured_latency(runs, offset, play)

    # Silence in the recording after the interrupt, in engine time (latency removed).
    gaps = [(a + offset - latency, b + offset - latency) for a, b in silent_gaps(samples, monitor.rate_hz)]
    after = [g for g in gaps if g[1] > m.interrupt_s]
    silent_from = min(g[0] for g in after)
    bound = 0.005 + 0.010 + device_sink.block_s
    assert m.interrupt_s < silent_from, "it went silent before the interrupt"
    assert silent_from - m.interrupt_s <= bound + spread + 2 * HOP_S, (silent_from - m.interrupt_s, bound)
    # and it stays silent: no marker after the mute
    assert max(r.end_s for r in runs) + offset - latency <= silent_from + HOP_S
    s = run.summary()
    # The player applies the command at the first block it renders after the command came:
    # within one block of the model's moment, later by as much as callbacks ran late (a
    # busy machine delays them; see conftest.callback_lag).
    lag = callback_lag(device_sink, since)
    assert m.mute_at_s - 1e-4 <= s["mute_at_s"] <= m.mute_at_s + device_sink.block_s + lag + 0.002, (s["mute_at_s"], lag)
    assert s["backend_stop_at_s"] >= m.backend_stop_at_s and s["release_at_s"] >= m.release_at_s
    assert s["release_at_s"] - m.release_at_s < 0.02  # the control thread kept its moments


def test_device_that_stops_mid_stream_falls_back_to_the_virtual_sink():
    reason = _device_skip_reason()
    if reason:
        pytest.skip(reason)
    engine = StreamEngine(prefer_device=True, rate_hz=48_000)
    try:
        assert isinstance(engine.sink, DeviceSink)
        run = engine.start({"chunks": 40, "interrupt_at_ms": 10_000})
        while run.clock() < 0.25:
            time.sleep(0.005)
        engine.sink.stream.abort()  # the device goes away
        notice = None
        end = time.perf_counter() + 30.0
        while notice is None and time.perf_counter() < end:
            notice = engine.poll()
            time.sleep(0.05)
        assert notice and "virtual" in notice and "stopped responding" in notice
        assert isinstance(engine.sink, VirtualSink) and "stopped responding" in engine.status
        assert run.wait(30.0), "the stream got stuck after the device went away"
        s = run.summary()
        assert s["chunks_played"] == 40 and s["played_in_order"]
    finally:
        engine.close()
