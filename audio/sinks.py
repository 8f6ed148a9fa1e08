"""Where the samples go: a real sound device through sounddevice, or a virtual clock.

Both sinks run continuously once opened (silence while no stream is attached), so a
stream starts without the device's start-up stall (on PulseAudio the first callbacks can
stall for up to ~2 s). Both call the same render path once per block and keep per-block
callback timings in a preallocated ring.

open_sink() prefers the device and falls back to the virtual sink with a status line
saying why: PortAudio missing, no output device, a sample rate the device refuses (tried
first at the device's own rate), or a device that fails to start.
"""
from __future__ import annotations

import os
import sys
import threading
import time

import numpy as np

from audio.events import SampleRing

# The device's block and buffer. Python callbacks can be held up by the GIL while the GUI
# paints, and through ALSA's pulse plugin an underrun costs a ~2 s restart, so the buffer
# must ride out a few tens of ms. PortAudio on PulseAudio calls back at a steady pace only
# when the buffer is about 3 blocks (with more, it asks for two blocks at a time): 20 ms
# blocks with 60 ms of buffer. The device then checks its commands every 20 ms; the book's
# 10 ms quantum stays in the model, and the device tests allow for one device block. The
# tests measure the resulting latency rather than assume it.
DEVICE_BLOCK_S = 0.020
BLOCKS_BUFFERED = 3
# The audio callback is Python: it needs the GIL promptly when another thread holds it.
SWITCH_INTERVAL_S = 0.002
CATCH_UP_S = 0.5  # the virtual clock renders what it owes after a late wake-up, up to this far behind


def realtime_thread(priority: int = 10) -> bool:
    """Best effort: the calling thread gets a low real-time priority (Linux SCHED_FIFO)
    where the user may set one (root, or an rtprio limit), so other processes on a busy
    machine cannot keep it from its deadline. Else nothing changes. True when it took."""
    try:
        os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(priority))  # 0: this thread
    except (AttributeError, OSError, ValueError):
        return False
    return True


class Sink:
    """Common part: the render hook, callback timing, liveness."""

    kind = "sink"

    def __init__(self, rate_hz: int, block_frames: int):
        if sys.getswitchinterval() > SWITCH_INTERVAL_S:
            sys.setswitchinterval(SWITCH_INTERVAL_S)
        self.rate_hz = int(rate_hz)
        self.block_frames = int(block_frames)
        self.renderer = None  # an object with render(out, now) and an `origin` (perf_counter)
        self.origin = 0.0
        self.cb_stats = SampleRing(1 << 16)  # (engine-independent perf_counter at entry, duration s)
        self.callbacks = 0
        self.last_callback = 0.0
        self.status = ""
        self.xruns = 0  # blocks the backend reported as late (output underflow)
        self._ready = threading.Event()
        self._regular = 0
        self.frames_done = 0
        self._anchor: float | None = None  # perf_counter of frame 0 on the sample clock
        self.reanchors = 0  # times the sample clock had to jump (underruns)
        self.slack_s = 2 * self.block_s  # a callback later than this means the device ran dry

    @property
    def block_s(self) -> float:
        return self.block_frames / self.rate_hz

    def attach(self, renderer, origin: float) -> None:
        self.origin = origin
        self.renderer = renderer

    def detach(self) -> None:
        self.renderer = None

    def _render_block(self, out: np.ndarray, t_enter: float, underflow: bool = False) -> None:
        # The block's time on the sample clock: frames written so far, anchored to the
        # earliest callback seen. A callback that runs late (the GIL was busy) still renders
        # audio that plays right after the previous block, so stamps follow the samples,
        # not the callback; only a real underrun (reported, or a delay longer than the
        # device's buffer) moves the anchor.
        frames_time = self.frames_done / self.rate_hz
        offset = t_enter - frames_time
        if self._anchor is None or offset < self._anchor or underflow or offset - self._anchor > self.slack_s:
            if self._anchor is not None and offset > self._anchor:
                self.reanchors += 1
            self._anchor = offset
        block_time = frames_time + self._anchor
        renderer = self.renderer
        if renderer is None:
            out.fill(0.0)
        else:
            renderer.render(out, block_time - self.origin)
        self.frames_done += out.shape[0]
        gap = t_enter - self.last_callback
        self.last_callback = t_enter
        self.callbacks += 1
        if not self._ready.is_set():
            # Ready once the backend calls back at the pace of real time. A burst of quick
            # callbacks (PortAudio filling the buffer) does not count: on PulseAudio the
            # long start-up stall can come right after such a burst.
            paced = 0.5 * self.block_s < gap < 1.5 * self.block_s
            self._regular = self._regular + 1 if paced else 0
            if self._regular >= 10:
                self._ready.set()
        self.cb_stats.push(t_enter, time.perf_counter() - t_enter)

    def wait_ready(self, timeout: float = 5.0) -> bool:
        return self._ready.wait(timeout)

    def alive(self, grace_s: float = 0.5) -> bool:
        return self._ready.is_set() and (time.perf_counter() - self.last_callback) < grace_s

    def close(self) -> None:
        pass


class VirtualSink(Sink):
    """A clock that asks for a block every block_s of wall time, like a device would.

    What it 'plays' can be kept in a recording (preallocated), so the same checks that run
    on the device's monitor run here too."""

    kind = "virtual"

    def __init__(self, rate_hz: int, block_frames: int, reason: str = "", record_seconds: float = 0.0):
        super().__init__(rate_hz, block_frames)
        self.status = f"virtual clock sink ({reason})" if reason else "virtual clock sink"
        self._buf = np.zeros(self.block_frames, np.float32)
        self.recording = np.zeros(int(record_seconds * self.rate_hz), np.float32)
        self.recorded = 0
        self.record_start = 0.0  # perf_counter of the first recorded sample
        # A clock cannot run dry: after a late wake-up it renders the blocks it owes at once,
        # so its samples stay contiguous; only when it gives up catching up (CATCH_UP_S
        # behind, e.g. a suspended machine) does its sample clock jump.
        self.slack_s = CATCH_UP_S
        self._halt = threading.Event()
        self._thread = threading.Thread(target=self._run, name="audio-virtual-sink", daemon=True)
        self._thread.start()

    def _run(self) -> None:
        realtime_thread(20)
        next_t = time.perf_counter()
        self.record_start = next_t
        while not self._halt.is_set():
            self._render_block(self._buf, time.perf_counter())
            if self.recorded + self.block_frames <= self.recording.shape[0]:
                self.recording[self.recorded:self.recorded + self.block_frames] = self._buf
                self.recorded += self.block_frames
            next_t += self.block_s
            left = next_t - time.perf_counter()
            if left > 0:
                self._halt.wait(left)
            elif left < -CATCH_UP_S:  # fell far behind (suspended machine): do not burst to catch up
                next_t = time.perf_counter()

    def close(self) -> None:
        self._halt.set()
        self._thread.join(timeout=1.0)


class DeviceSink(Sink):
    """sounddevice OutputStream, mono float32, one block per device quantum."""

    kind = "device"

    def __init__(self, sd, device, rate_hz: int, block_frames: int, name: str):
        super().__init__(rate_hz, block_frames)
        self._sd = sd
        self.device_name = name
        self.finished = False
        self._prioritised = False
        self.stream = sd.OutputStream(samplerate=rate_hz, blocksize=block_frames, channels=1, dtype="float32",
                                      device=device, latency=BLOCKS_BUFFERED * block_frames / rate_hz, callback=self._callback,
                                      finished_callback=self._on_finished)
        self.stream.start()
        # Late callbacks within the device's buffer are not underruns.
        self.slack_s = max(2 * self.block_s, float(self.stream.latency))
        self.status = f"device: {name} · {rate_hz} Hz · block {block_frames} frames"

    def _callback(self, outdata, frames, time_info, status) -> None:
        t_enter = time.perf_counter()
        if not self._prioritised:  # PortAudio's thread: once, on its first call
            self._prioritised = True
            realtime_thread(20)
        underflow = bool(status.output_underflow)
        if underflow:
            self.xruns += 1
        self._render_block(outdata[:, 0], t_enter, underflow)

    def _on_finished(self) -> None:
        self.finished = True

    def alive(self, grace_s: float = 2.0) -> bool:
        """The PortAudio stream is still running and calling back. The grace is generous:
        a GUI thread that holds the GIL for a moment also delays callbacks, and that is
        not a device that went away."""
        try:
            active = bool(self.stream.active)
        except Exception:  # noqa: BLE001 - a stream PortAudio dropped may raise anything: not active
            active = False
        return active and not self.finished and super().alive(grace_s)

    def latency_s(self) -> float:
        try:
            return float(self.stream.latency)
        except Exception:  # noqa: BLE001 - the stream may already be gone
            return float("nan")

    def close(self) -> None:
        try:
            self.stream.abort(ignore_errors=True)
            self.stream.close(ignore_errors=True)
        except Exception:  # noqa: BLE001 - closing a dead stream: nothing left to report
            pass


# Set to 1, audio/ behaves exactly as on a machine without libportaudio2 (CI runs the
# widget and audio tests so, to test the virtual clock path a new user without PortAudio gets).
HIDE_PORTAUDIO_ENV = "LAB_HIDE_PORTAUDIO"


def portaudio_hidden() -> bool:
    return os.environ.get(HIDE_PORTAUDIO_ENV, "").strip() not in ("", "0")


def import_sounddevice():
    """(module, None) or (None, reason). PortAudio missing raises OSError on import.

    The one place audio/ imports sounddevice."""
    try:
        if portaudio_hidden():
            # What `import sounddevice` raises where libportaudio2 is not installed.
            raise OSError("PortAudio library not found")
        import sounddevice as sd  # optional at run time: PortAudio may be missing
    except OSError as err:
        hidden = f"; hidden by {HIDE_PORTAUDIO_ENV}=1" if portaudio_hidden() else ""
        # Missing, damaged or of the wrong kind, the library reads the same to the user.
        text = str(err) if "PortAudio" in str(err) else f"PortAudio could not be loaded: {err}"
        return None, f"{text}{hidden}; install libportaudio2"
    except ImportError as err:
        return None, f"sounddevice is not installed ({err})"
    return sd, None


def output_devices() -> tuple[list[str], str | None]:
    """Names of output devices, or ([], reason)."""
    sd, reason = import_sounddevice()
    if sd is None:
        return [], reason
    try:
        devices = [d["name"] for d in sd.query_devices() if d["max_output_channels"] > 0]
    except Exception as err:  # noqa: BLE001 - PortAudio or its host API may raise anything: the reason is shown
        return [], f"cannot list devices ({err})"
    if not devices:
        return [], "no output device (is a sound server running?)"
    return devices, None


def open_sink(rate_hz: int, block_s: float, device: str | int | None = None, prefer_device: bool = True,
              ready_timeout_s: float = 5.0, record_seconds: float = 0.0,
              device_block_s: float = DEVICE_BLOCK_S) -> Sink:
    """The best sink available: the device when possible (blocks of device_block_s), else a
    virtual clock (blocks of block_s) with a reason."""
    def virtual(reason: str) -> VirtualSink:
        return VirtualSink(rate_hz, max(1, int(round(block_s * rate_hz))), reason, record_seconds)

    if not prefer_device:
        return virtual("chosen")
    sd, reason = import_sounddevice()
    if sd is None:
        return virtual(reason)
    names, reason = output_devices()
    if not names:
        return virtual(reason or "no output device")
    try:
        info = sd.query_devices(device, "output")
    except Exception as err:  # noqa: BLE001 - any PortAudio error means no such device: the reason is shown
        return virtual(f"device {device!r} not found ({err})")
    name = info["name"]
    tried = []
    for rate in (rate_hz, int(info["default_samplerate"])):
        if rate in tried:
            continue
        tried.append(rate)
        try:
            sd.check_output_settings(device=device, samplerate=rate, channels=1, dtype="float32")
        except Exception:  # noqa: BLE001 - a rate the device refuses, whatever it raises: the next is tried
            continue
        try:
            sink = DeviceSink(sd, device, rate, max(1, int(round(device_block_s * rate))), name)
        except Exception as err:  # noqa: BLE001 - a device that fails to start gives the virtual clock, saying why
            return virtual(f"{name} failed to start: {err}")
        if rate != rate_hz:
            sink.status += f" (refused {rate_hz} Hz; resampled)"
        if not sink.wait_ready(ready_timeout_s):
            sink.close()
            return virtual(f"{name} opened but never called back within {ready_timeout_s:g} s")
        return sink
    return virtual(f"{name} refuses {', '.join(map(str, tried))} Hz")
