"""The streaming engine: a source, the model's schedule, a jitter buffer and a sink, live.

    engine = StreamEngine()                 # opens the device, or a virtual clock sink
    run = engine.start(TIMELINE.resolve({"network_ms": "5,5,50,5"}))   # checked inputs
    ...; run.interrupt(); ...; run.summary()

The model (core.audio.timeline) decides when each chunk is captured, processed and arrives;
the network thread releases chunks at those moments; the player (in the audio callback)
starts, stalls and mutes by the same rules; every step is logged with its measured time,
so the measured run can be put beside the model. Nothing here imports Qt: the GUI pulls
from the rings with pull().
"""
from __future__ import annotations

import gc
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

import numpy as np

from audio import events as ev
from audio.events import Events
from audio.interrupt import InterruptController
from audio.network import NetworkStage
from audio.playout import Playout
from audio.sinks import DeviceSink, Sink, VirtualSink, open_sink
from audio.sources import SourceError, VoiceSource
from core.audio.timeline import Timeline
from core.audio.timing import TIMELINE, stream_timeline
from core.registry import Inputs, ParamError
from core.units import MS


def stream_inputs(values: Inputs | Mapping[str, Any] | None) -> Inputs:
    """audio.timeline's checked inputs: Inputs as they are (checked when they were made);
    raw values from a script or a test are parsed here, once (the engine is then their edge)."""
    if isinstance(values, Inputs) and values.calculator == TIMELINE.name:
        return values
    return TIMELINE.resolve(values or {})


@dataclass(frozen=True)
class StreamPlan:
    """Everything the engine's threads need of a stream, in seconds and samples, built once
    from checked inputs for one sink rate: nothing downstream parses or checks again."""

    timeline: Timeline
    chunk_samples: int
    adaptive: bool
    control_delay_s: float
    quantum_s: float
    backend_stop_s: float
    release_s: float

    @classmethod
    def build(cls, inputs: Inputs, rate_hz: int) -> StreamPlan:
        tl = stream_timeline(inputs)
        samples = rate_hz * tl.chunk_s
        if abs(samples - round(samples)) > 1e-6:
            # Not a re-check of the input: the device's rate is known only now.
            raise ParamError("chunk_ms", f"got {inputs['chunk_ms']:g} ms = {samples:g} samples at the device's "
                                         f"{rate_hz} Hz; valid: a whole number of samples")
        return cls(tl, int(round(samples)), bool(inputs["adaptive"]), inputs["control_delay_ms"] * MS,
                   inputs["device_quantum_ms"] * MS, inputs["backend_stop_ms"] * MS, inputs["release_ms"] * MS)


@dataclass
class Pulled:
    """What the GUI gets on one tick: new events, new buffer-level samples, the waveform."""

    now: float
    events: Events
    level_t: np.ndarray
    level_s: np.ndarray
    wave: np.ndarray
    finished: bool  # silent: played out, muted or stopped
    done: bool = False  # nothing more will be logged: this pull holds the run's last events


@dataclass
class StreamRun:
    values: Inputs  # the checked inputs of audio.timeline it plays
    timeline: Timeline
    playout: Playout
    network: NetworkStage
    control: InterruptController
    sink: Sink
    origin: float
    released: bool = False
    stopped: bool = False
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
        self.stopped = True
        self.network.halt()
        self.control.halt()
        if self.sink.renderer is self.playout:
            self.sink.detach()

    @property
    def finished(self) -> bool:
        return self.playout.finished or self.playout.muted or self.released or self.sink.renderer is not self.playout

    @property
    def done(self) -> bool:
        """Nothing more will happen or be logged: played to the end, stopped, or barged
        in on and released. Read it before a pull: that pull then holds every event."""
        return self.stopped or self.playout.finished or self.control.logged("release")

    def wait(self, timeout: float) -> bool:
        """Block (not in the GUI) until the stream is done (see `done`)."""
        end = time.perf_counter() + timeout
        while time.perf_counter() < end:
            if self.done:
                return True
            time.sleep(0.005)
        return False

    # -- reading ------------------------------------------------------------------------
    def all_events(self) -> Events:
        return Events.concat([self.playout.events.all(), self.network.events.all(), self.control.events.all()])

    def pull(self, wave_samples: int = 4800) -> Pulled:
        """New events and level samples since the last pull, and the latest waveform."""
        done = self.done  # first: whatever was logged before it is read below
        with self._lock:
            c = self._cursors
            parts = []
            for key, ring in (("play", self.playout.events), ("net", self.network.events), ("ctl", self.control.events)):
                got, c[key] = ring.read(c[key])
                parts.append(got)
            lt, lv, c["level"] = self.playout.levels.read(c["level"])
        return Pulled(self.clock(), Events.concat(parts), lt, lv, self.playout.wave.latest(wave_samples),
                      self.finished, done)

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
                                        > self.sink.block_s + 1e-3)) if first_play is not None else 0,
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


R = TypeVar("R")


def start_stream(sink: Sink, renderer, playout: Playout, arrival_s: np.ndarray, processed_s: np.ndarray,
                 buffer_s: float, delays: tuple[float, float, float, float],
                 make_run: Callable[[float, NetworkStage, InterruptController], R],
                 on_release: Callable[[R], None]) -> R:
    """The wiring every live stream starts with (the Audio panel's and a voice turn's):
    one clock from now for all its threads, the network thread handing chunks to the
    playout at their arrivals, a barge-in controller (delays: control delay, device
    quantum, backend stop, release, in s) that mutes the playout, stops the network at the
    backend stop and calls on_release(run) at release. make_run(origin, network, control)
    builds the run; then the renderer goes on the sink and the network starts. Returns the run."""
    holder: dict[str, R] = {}
    origin = time.perf_counter()
    clock = lambda: time.perf_counter() - origin  # noqa: E731 - one clock, shared by every thread
    network = NetworkStage(playout, arrival_s, processed_s, buffer_s, clock)
    control = InterruptController(
        clock, *delays, on_command=playout.request_mute,
        on_backend_stop=lambda t: setattr(network, "stop_at", t),
        on_release=lambda: on_release(holder["run"]) if "run" in holder else None)
    run = make_run(origin, network, control)
    holder["run"] = run
    sink.attach(renderer, origin)
    network.start()
    return run


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
        self._prepared: tuple | None = None  # ((inputs, source, rate), plan, pcm) of the last prepare
        self._prepare_lock = threading.Lock()  # prepare (a worker) and start (the GUI) share the cache
        self._default_source = VoiceSource()
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

    def start(self, inputs: Inputs | Mapping[str, Any] | None = None, source=None) -> StreamRun:
        """Play a stream: audio.timeline's checked inputs (taken as they are) or raw values
        (a script or a test; parsed here, once). Uses what prepare() made for the same
        stream, source and sink rate, so after a prepare this is quick."""
        inputs = stream_inputs(inputs)
        plan, pcm = self._prepared_for(inputs, source)  # bad input is refused before anything stops or plays
        if self.run is not None:
            self.run.stop()
        # The device callback needs the GIL: a full collection of the app's heap (75-100 ms
        # once every panel is imported) would hold it past a 20 ms block. Objects that exist
        # now move out of the collector's reach for the run; young garbage is still collected.
        gc.freeze()
        sink = self.sink
        tl = plan.timeline
        playout = Playout(pcm, sink.rate_hz, tl.chunk_s, adaptive=plan.adaptive)

        def make_run(origin: float, network: NetworkStage, control: InterruptController) -> StreamRun:
            self.run = StreamRun(inputs, tl, playout, network, control, sink, origin)
            return self.run

        return start_stream(sink, playout, playout, tl.arrival, tl.processed, tl.buffer_s,
                            (plan.control_delay_s, plan.quantum_s, plan.backend_stop_s, plan.release_s),
                            make_run, self._release)

    def prepare(self, inputs: Inputs | Mapping[str, Any] | None = None, source=None) -> StreamPlan:
        """Open the sink, lay out the stream and render its audio ahead of start(): the slow
        part of ▶ (opening a PulseAudio device can take seconds, a long adaptive stream a
        second to lay out), for a worker thread; start() then reuses it."""
        return self._prepared_for(stream_inputs(inputs), source)[0]

    def _prepared_for(self, inputs: Inputs, source) -> tuple[StreamPlan, np.ndarray]:
        source = source if source is not None else self._default_source
        sink = self.sink
        if not sink.wait_ready(5.0):
            self._failover("the device never started calling back")
            sink = self.sink
        key = (inputs, source, sink.rate_hz)
        with self._prepare_lock:
            cached = self._prepared
            if cached is not None and cached[0] == key:
                return cached[1], cached[2]
            plan = StreamPlan.build(inputs, sink.rate_hz)
            pcm = self._render(source, plan.timeline.n, plan.chunk_samples, sink.rate_hz)
            self._prepared = (key, plan, pcm)
            return plan, pcm

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
            if was_attached and old is not None:
                old.detach()
                virtual.attach(self.run.playout, self.run.origin)
        return self.notice

    def stop(self) -> None:
        if self.run is not None:
            self.run.stop()
        gc.unfreeze()  # what start() froze is collectable again

    def choose_device(self, device=None, prefer_device: bool = True) -> None:
        """Another output (None: the system's default; prefer_device False: the virtual
        clock). The current stream stops; the new sink opens on the next prepare/start."""
        self.stop()
        old, self._sink = self._sink, None
        self._device, self._prefer_device = device, prefer_device
        self._prepared = None
        self.notice = ""
        if old is not None:
            old.close()

    def close(self) -> None:
        self.stop()
        if self._sink is not None:
            self._sink.close()
            self._sink = None
