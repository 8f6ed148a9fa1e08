"""The streaming engine: a source, the model's schedule, a jitter buffer and a sink, live.

    engine = StreamEngine()                 # opens the device, or a virtual clock sink
    run = engine.start({"network_ms": "5,5,50,5"})   # audio.timeline's parameters
    ...; run.interrupt(); ...; run.summary()

The model (core.audio_timing) decides when each chunk is captured, processed and arrives;
the network thread releases chunks at those moments; the player (in the audio callback)
starts, stalls and mutes by the same rules; every step is logged with its measured time,
so the measured run can be put beside the model. Nothing here imports Qt: the GUI pulls
from the rings with pull().
"""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from audio import events as ev
from audio.events import Events
from audio.interrupt import InterruptController
from audio.network import NetworkStage
from audio.playout import Playout
from audio.sinks import DeviceSink, Sink, VirtualSink, open_sink
from audio.sources import SourceError, VoiceSource
from core.audio_timing import MS, TIMELINE, Timeline, stream_timeline
from core.registry import ParamError


@dataclass
class Pulled:
    """What the GUI gets on one tick: new events, new buffer-level samples, the waveform."""

    now: float
    events: Events
    level_t: np.ndarray
    level_s: np.ndarray
    wave: np.ndarray
    finished: bool


@dataclass
class StreamRun:
    values: dict
    timeline: Timeline
    playout: Playout
    network: NetworkStage
    control: InterruptController
    sink: Sink
    origin: float
    released: bool = False
    _cursors: dict = field(default_factory=lambda: {"play": 0, "net": 0, "ctl": 0, "level": 0})
    _lock: threading.Lock = field(default_factory=threading.Lock)  # GUI-side readers only

    # -- time ---------------------------------------------------------------------------
    def clock(self) -> float:
        """Engine time: seconds since chunk 0 started being captured."""
        return time.perf_counter() - self.origin

    # -- control ------------------------------------------------------------------------
    def interrupt(self, at_s: float | None = None):
        return self.control.interrupt(at_s)

    def stop(self) -> None:
        """Stop at once (not a barge-in): silence, no more chunks."""
        self.network.halt()
        self.control.halt()
        if self.sink.renderer is self.playout:
            self.sink.detach()

    @property
    def finished(self) -> bool:
        return self.playout.finished or self.playout.muted or self.released or self.sink.renderer is not self.playout

    def wait(self, timeout: float) -> bool:
        """Block (not in the GUI) until the stream finished or was silenced."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            if self.playout.finished or (self.playout.muted and self.control.measured.get("release") is not None):
                return True
            time.sleep(0.005)
        return False

    # -- reading ------------------------------------------------------------------------
    def all_events(self) -> Events:
        return Events.concat([self.playout.events.all(), self.network.events.all(), self.control.events.all()])

    def pull(self, wave_samples: int = 4800) -> Pulled:
        """New events and level samples since the last pull, and the latest waveform."""
        with self._lock:
            c = self._cursors
            parts = []
            for key, ring in (("play", self.playout.events), ("net", self.network.events), ("ctl", self.control.events)):
                got, c[key] = ring.read(c[key])
                parts.append(got)
            lt, lv, c["level"] = self.playout.levels.read(c["level"])
        return Pulled(self.clock(), Events.concat(parts), lt, lv, self.playout.wave.latest(wave_samples),
                      self.finished)

    def summary(self) -> dict[str, Any]:
        """Measured figures beside the model's."""
        e = self.all_events()
        play = e.of(ev.PLAY)
        arrival = e.of(ev.ARRIVAL)
        resume = e.of(ev.RESUME)
        mute = e.of(ev.MUTE)
        m = self.control.moments
        tl = self.timeline
        first_play = float(play.t[0]) if play.kind.size else None
        arrived_at = np.full(tl.n, np.nan)
        arrived_at[arrival.chunk] = arrival.t
        out = {
            "sink": self.sink.status,
            "chunks": tl.n,
            "chunks_arrived": int(arrival.kind.size),
            "chunks_played": int(play.kind.size),
            "played_in_order": bool(np.all(np.diff(play.chunk) == 1)) if play.kind.size else True,
            "first_arrival_s": float(arrived_at[0]) if np.isfinite(arrived_at[0]) else None,
            "first_playback_s": first_play,
            "underruns": int(e.of(ev.UNDERRUN).kind.size),
            "total_stall_s": float(resume.value.sum()),
            # Same definition as the model: a chunk that arrives after its deadline.
            "deadline_misses": int(np.nansum(arrived_at > first_play + np.arange(tl.n) * tl.chunk_s + 1e-9))
            if first_play is not None else 0,
            # Started later than the model says by more than one device block (+1 ms): the
            # app (threads, callback, device) made it late, not the network.
            "late_vs_model": int(np.sum(play.t - (tl.play_start[play.chunk] + (first_play - tl.first_playback_s))
                                        > self.sink.block_s + 1e-3)) if play.kind.size else 0,
            "max_lateness_s": float(np.max(play.t - play.value)) if play.kind.size else None,
            "model_first_playback_s": tl.first_playback_s,
            "model_deadline_misses": int(tl.misses.sum()),
            "model_underruns": int(tl.underruns().size),
            "model_total_stall_s": float(tl.stall.sum()),
            "xruns": self.sink.xruns,
        }
        if m is not None:
            out.update({
                "interrupt_s": m.interrupt_s,
                "model_mute_at_s": m.mute_at_s,
                "model_backend_stop_at_s": m.backend_stop_at_s,
                "model_release_at_s": m.release_at_s,
                "command_at_s": self.control.measured.get("command"),
                "mute_at_s": float(mute.t[0]) if mute.kind.size else None,
                "backend_stop_at_s": self.control.measured.get("backend_stop"),
                "release_at_s": self.control.measured.get("release"),
            })
        return out


class StreamEngine:
    """Owns the sink (kept open between streams) and the current run."""

    def __init__(self, sink: Sink | None = None, *, device=None, prefer_device: bool = True,
                 rate_hz: int = 48_000, block_s: float = 0.010, record_seconds: float = 0.0):
        self._sink = sink
        self._device = device
        self._prefer_device = prefer_device
        self._rate_hz = rate_hz
        self._block_s = block_s
        self._record_seconds = record_seconds
        self.run: StreamRun | None = None
        self._pcm_cache: tuple | None = None  # (key, pcm) of the last rendered stream
        self.notice = ""  # the last failover or fallback, for a status line

    @property
    def sink(self) -> Sink:
        if self._sink is None:
            self._sink = open_sink(self._rate_hz, self._block_s, self._device, self._prefer_device,
                                   record_seconds=self._record_seconds)
        return self._sink

    @property
    def has_sink(self) -> bool:
        return self._sink is not None

    @property
    def status(self) -> str:
        return self.sink.status + (f" · {self.notice}" if self.notice else "")

    def use_sink(self, sink: Sink) -> None:
        """Switch sinks (device chosen in the GUI); the current run follows."""
        old = self._sink
        self._sink = sink
        if self.run is not None:
            self.run.sink = sink
            if old is not None and old.renderer is self.run.playout:
                old.detach()
                sink.attach(self.run.playout, self.run.origin)
        if old is not None and old is not sink:
            old.close()

    def start(self, values: Mapping[str, Any] | None = None, source=None) -> StreamRun:
        """Validate `values` (audio.timeline's parameters), prepare the audio, and go."""
        if self.run is not None:
            self.run.stop()
        resolved = TIMELINE.resolve(values or {})
        sink = self.sink
        if not sink.wait_ready(5.0):
            self._failover("the device never started calling back")
            sink = self.sink
        tl = stream_timeline(resolved)
        samples = sink.rate_hz * tl.chunk_s
        if abs(samples - round(samples)) > 1e-6:
            raise ParamError("chunk_ms", f"got {resolved['chunk_ms']:g} ms = {samples:g} samples at the device's "
                                         f"{sink.rate_hz} Hz; valid: a whole number of samples")
        source = source or VoiceSource()
        pcm = self._render(source, tl.n, int(round(samples)), sink.rate_hz)
        playout = Playout(pcm, sink.rate_hz, tl.chunk_s, adaptive=resolved["adaptive"])
        holder: dict[str, StreamRun] = {}
        origin = time.perf_counter()
        clock = lambda: time.perf_counter() - origin  # noqa: E731 - engine time, shared by every thread
        network = NetworkStage(playout, tl.arrival, tl.processed, tl.buffer_s, clock)
        control = InterruptController(
            clock, resolved["control_delay_ms"] * MS, resolved["device_quantum_ms"] * MS,
            resolved["backend_stop_ms"] * MS, resolved["release_ms"] * MS,
            on_command=playout.request_mute,
            on_backend_stop=lambda t: setattr(network, "stop_at", t),
            on_release=lambda: self._release(holder["run"]))
        run = StreamRun(dict(resolved), tl, playout, network, control, sink, origin)
        holder["run"] = run
        self.run = run
        sink.attach(playout, origin)
        network.start()
        return run

    def prepare(self, values: Mapping[str, Any] | None = None, source=None) -> None:
        """Open the sink and render the stream's audio ahead of start() (e.g. in a worker
        thread, so the GUI stays responsive); start() then reuses it."""
        resolved = TIMELINE.resolve(values or {})
        sink = self.sink
        sink.wait_ready(5.0)
        chunk_s = resolved["chunk_ms"] * MS
        samples = sink.rate_hz * chunk_s
        if abs(samples - round(samples)) <= 1e-6:
            self._render(source or VoiceSource(), resolved["chunks"], int(round(samples)), sink.rate_hz)

    def _render(self, source, chunks: int, chunk_samples: int, rate_hz: int) -> np.ndarray:
        """The source's audio, rendered once per (source, shape, rate): replays are instant."""
        key = (source, chunks, chunk_samples, rate_hz)
        cached = self._pcm_cache
        if cached is not None and cached[0] == key:
            return cached[1]
        try:
            pcm = source.render(chunks, chunk_samples, rate_hz)
        except SourceError as err:
            raise ParamError(err.field, err.message) from None
        self._pcm_cache = (key, pcm)
        return pcm

    def _release(self, run: StreamRun) -> None:
        # The device must be silent before its buffers go: wait (briefly) for the mute.
        end = time.perf_counter() + 0.5
        while not run.playout.muted and time.perf_counter() < end:
            time.sleep(0.001)
        if run.sink.renderer is run.playout:
            run.sink.detach()
        run.network.halt()
        run.released = True

    def poll(self) -> str | None:
        """Health check (call a few times a second): a device that stopped calling back
        is replaced by the virtual sink, and the stream carries on. Returns a notice."""
        sink = self._sink
        if isinstance(sink, DeviceSink) and sink.wait_ready(0) and not sink.alive():
            return self._failover(f"{sink.device_name} stopped responding")
        return None

    def _failover(self, why: str) -> str:
        old = self._sink
        rate = old.rate_hz if old is not None else self._rate_hz
        block = old.block_frames if old is not None else int(round(self._block_s * rate))
        virtual = VirtualSink(rate, block, why, self._record_seconds)
        self.notice = f"{why}; switched to the virtual clock sink"
        if old is not None:
            # Closing a wedged PortAudio stream can block: do it off this thread.
            threading.Thread(target=old.close, daemon=True).start()
        self._sink = virtual
        if self.run is not None:
            was_attached = old is not None and old.renderer is self.run.playout
            self.run.sink = virtual
            if was_attached:
                old.detach()
                virtual.attach(self.run.playout, self.run.origin)
        return self.notice

    def stop(self) -> None:
        if self.run is not None:
            self.run.stop()

    def close(self) -> None:
        self.stop()
        if self._sink is not None:
            self._sink.close()
            self._sink = None
