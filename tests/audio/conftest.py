import gc
import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).parent))  # the monitor helper next to the tests

from monitor import MonitorRecorder, monitor_source

from audio.sinks import DeviceSink, open_sink, output_devices


def callback_lag(sink, since: int) -> float:
    """How late the latest callback ran against the earliest-paced one, over this stream.

    Audio is stamped on the sample clock (when it will play), but the player can only
    use a chunk that arrived before its callback ran: a callback that runs late by d still
    fills the slot due d earlier, so what is heard may lead the model by up to d."""
    t, _, _ = sink.cb_stats.read(since)
    lag = t - np.arange(t.size) * sink.block_s
    return float(lag.max() - lag.min())


def _device_skip_reason() -> str | None:
    names, reason = output_devices()
    if not names:
        return f"no audio device: {reason}"
    if monitor_source() is None:
        return ("no PulseAudio monitor source to record from (start a null sink: pulseaudio -D --exit-idle-time=-1 "
                "-n --load=\"module-null-sink sink_name=labsink\" --load=module-native-protocol-unix)")
    return None


@pytest.fixture(scope="module")
def device_sink():
    """One open device sink for a module's device tests (its start-up stall is paid once)."""
    reason = _device_skip_reason()
    if reason:
        pytest.skip(reason)
    sink = open_sink(48_000, 0.010)
    if not isinstance(sink, DeviceSink):
        sink.close()
        pytest.fail(f"a sound server is running but the device did not open: {sink.status}")
    # After pytest has imported every test module, a full garbage collection holds the GIL
    # for 75-100 ms: one landing mid-stream makes a callback that late, and the timing
    # tests then judge the collector, not the engine. Collect once now and leave what
    # exists out of later collections while the device tests run.
    gc.collect()
    gc.freeze()
    yield sink
    gc.unfreeze()
    sink.close()


@pytest.fixture
def monitor():
    rec = MonitorRecorder(monitor_source())
    assert rec.wait_started(), "parec delivered nothing from the monitor"
    yield rec
    rec.stop()
