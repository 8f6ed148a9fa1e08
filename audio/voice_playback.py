"""'Hear it': one voice-agent turn as the model timed it, played through the real-time engine.

A turn (core.voice: spans on one clock, the silence gap, the reply's chunk arrivals) is
laid out on a playback clock: a short synthetic user phrase, then nothing until the first
reply sample, then the reply's 20 ms chunks handed to the engine's jitter buffer
(audio.playout.Playout) at their modelled arrivals by its network thread
(audio.network.NetworkStage). The player then starts, stalls and resumes by the same rules
as core.audio.timeline.playout, so an underrun in the model is a gap you hear. A barge-in
goes through audio.interrupt.InterruptController: mute, backend stop (no more chunks),
release, at the model's moments.

Device latency: the engine stamps a block when it hands it to the device; the real device
adds its own latency on top. The reply's first sample is therefore handed over at the
model's first audible moment minus the modelled device span, and the real device's
latency stands in for the modelled one.

    player = TurnPlayer(engine)              # the Audio panel's StreamEngine (its sink)
    seq = player.play([turn_audio(p50, rate, label="p50"), turn_audio(p95, rate, label="p95")])
    ...; player.barge_in(); ...; player.stop()

Nothing here imports Qt; the GUI polls `TurnPlayer.state()`.
"""
from __future__ import annotations

import gc
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from audio import events as ev
from audio.engine import start_stream
from audio.events import Events
from audio.interrupt import InterruptController
from audio.network import NetworkStage
from audio.playout import Playout
from audio.sources import VoiceSource
from core.audio.timeline import playout
from core.audio.timing import TIMELINE
from core.units import MS

CHUNK_S = 0.020  # the reply's chunks (issue 13: 20 ms chunks)
LEAD_IN_S = 0.25  # silence before the user's phrase, so its first syllable is not clipped
PHRASE_S = 1.26  # the user's phrase: seven syllables
MAX_REPLY_S = 4.0  # enough of the reply to hear its start and its stalls; a talk waits for no more
PAUSE_S = 0.9  # between the p50 and the p95 turn
DEVICE_SPANS = ("device", "speaker")  # the model's last stage of the gap: the real device plays it
# The user and the agent should not sound alike: a higher, quicker voice asks, a lower one answers.
USER_VOICE = VoiceSource(f0_hz=210.0, syllable_s=0.18, level=0.30, seed=7, name="user")
AGENT_VOICE = VoiceSource(f0_hz=118.0, syllable_s=0.19, level=0.30, seed=3, name="agent")


@dataclass(frozen=True, eq=False)
class TurnAudio:
    """One turn on the playback clock (seconds from the run's origin) with its samples."""

    label: str
    rate_hz: int
    phrase: np.ndarray  # the user's phrase, float32 samples
    phrase_start_s: float
    user_end_s: float  # the user's last word: the silence gap starts here
    silence_s: float  # the model's gap: user's last word -> first audible reply sample
    device_s: float  # the modelled device span (the real device's latency replaces it)
    pcm: np.ndarray  # the reply, (chunks, chunk_samples) float32, every chunk carrying its marker
    arrival_s: np.ndarray  # each reply chunk's arrival at the jitter buffer
    buffer_s: float  # chunk 0's arrival -> its hand-over to the device
    chunk_s: float
    play_start_s: np.ndarray  # the model's hand-over of each chunk (core.audio.timeline.playout)
    stall_s: np.ndarray  # stall before each chunk, as the model says

    @property
    def chunks(self) -> int:
        return int(self.arrival_s.size)

    @property
    def first_audible_s(self) -> float:
        """The model's first audible reply sample on the playback clock."""
        return self.user_end_s + self.silence_s

    @property
    def first_handover_s(self) -> float:
        return float(self.play_start_s[0])

    @property
    def underruns(self) -> int:
        return int(np.count_nonzero(self.stall_s > 1e-9))

    @property
    def end_s(self) -> float:
        """The last reply sample handed over, as the model plays it."""
        return float(self.play_start_s[-1] + self.chunk_s)


def _span_bounds(turn: Any) -> tuple[float, float]:
    """(user's last word, device span length) of a core.voice Turn, on the turn's clock."""
    spans = list(turn.spans)
    start = min(float(s.start_s) for s in spans)
    device = [float(s.end_s) - float(s.start_s) for s in spans if s.name in DEVICE_SPANS]
    return start, (device[0] if device else 0.0)


def reply_schedule(turn: Any, chunk_s: float = CHUNK_S, max_reply_s: float = MAX_REPLY_S
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray, float, float]:
    """The reply as the player plays it, on the turn's own clock (pure):
    (chunk arrivals, hand-over of each chunk to the device, stall before each chunk,
    user's last word, modelled device span). At most max_reply_s of reply.

    The model's own hand-overs (Turn.play_start_s) when it gives them; else the fixed
    buffer's rule (core.audio.timeline.playout) from the first audible sample."""
    user_word_s, device_s = _span_bounds(turn)
    arrivals = np.asarray(turn.chunk_arrivals_s, dtype=float)
    if arrivals.size == 0:
        raise ValueError("the turn has no reply chunks to play")
    keep = max(1, min(arrivals.size, int(round(max_reply_s / chunk_s))))
    arrival = arrivals[:keep]
    modelled = np.asarray(getattr(turn, "play_start_s", ()), dtype=float)
    if modelled.size >= keep and np.all(np.isfinite(modelled[:keep])):
        start = modelled[:keep].copy()
        stall = np.zeros(keep)
        stall[1:] = np.maximum(0.0, start[1:] - (start[:-1] + chunk_s))
        return arrival, start, stall, user_word_s, device_s
    first_handover = user_word_s + float(turn.silence_s) - device_s
    # Chunk 0 can be played no earlier than it arrives: a model whose gap ends before that
    # (it cannot, if it is consistent) is played as soon as possible.
    buffer_s = max(0.0, first_handover - float(arrival[0]))
    start, stall, _ = playout(arrival, chunk_s, buffer_s)
    return arrival, start, stall, user_word_s, device_s


def turn_audio(turn: Any, rate_hz: int, label: str = "", *, chunk_s: float = CHUNK_S,
               lead_in_s: float = LEAD_IN_S, phrase_s: float = PHRASE_S,
               max_reply_s: float = MAX_REPLY_S) -> TurnAudio:
    """Lay a core.voice Turn out for playback at rate_hz (pure: no device, no threads).

    The turn's clock is shifted so that its user's last word falls at the end of the
    phrase; the reply is cut after max_reply_s of audio."""
    arrival, start, stall, user_word_s, device_s = reply_schedule(turn, chunk_s, max_reply_s)
    user_end = lead_in_s + phrase_s
    shift = user_end - user_word_s
    arrival, start = arrival + shift, start + shift
    keep = arrival.size
    chunk_samples = int(round(chunk_s * rate_hz))
    pcm = AGENT_VOICE.render(keep, chunk_samples, rate_hz, marker=True)
    n_phrase = int(round(phrase_s / chunk_s))
    phrase = USER_VOICE.render(n_phrase, chunk_samples, rate_hz, marker=False).reshape(-1)
    # The phrase fades out over 30 ms: an abrupt end reads as a click, not a last word.
    fade = min(phrase.size, int(0.03 * rate_hz))
    phrase[-fade:] *= np.linspace(1.0, 0.0, fade, dtype=np.float32)
    return TurnAudio(label, int(rate_hz), phrase, lead_in_s, user_end, float(turn.silence_s), device_s, pcm,
                     arrival, float(start[0] - arrival[0]), chunk_s, start, stall)


class TurnRenderer:
    """The sink's renderer for one turn: the jitter-buffer player for the reply, plus the
    user's phrase mixed in. Runs in the audio callback: slices and in-place adds only."""

    def __init__(self, audio: TurnAudio):
        self.audio = audio
        self.playout = Playout(audio.pcm, audio.rate_hz, audio.chunk_s)
        self._phrase_at = int(round(audio.phrase_start_s * audio.rate_hz))

    def render(self, out: np.ndarray, now: float) -> None:
        self.playout.render(out, now)
        rate = self.audio.rate_hz
        phrase = self.audio.phrase
        a = int(round(now * rate)) - self._phrase_at  # phrase sample at the block's start
        b = a + out.shape[0]
        if b <= 0 or a >= phrase.shape[0] or self.playout.muted:
            return
        lo, hi = max(a, 0), min(b, phrase.shape[0])
        out[lo - a:hi - a] += phrase[lo:hi]


@dataclass
class TurnRun:
    """One turn playing (or played): its threads, log and the model's numbers."""

    audio: TurnAudio
    renderer: TurnRenderer
    network: NetworkStage
    control: InterruptController
    origin: float
    stopped: bool = False

    def clock(self) -> float:
        return time.perf_counter() - self.origin

    @property
    def playout(self) -> Playout:
        return self.renderer.playout

    @property
    def done(self) -> bool:
        return self.stopped or self.playout.finished or self.control.logged("release")

    def all_events(self) -> Events:
        return Events.concat([self.playout.events.all(), self.network.events.all(), self.control.events.all()])

    def summary(self) -> dict[str, Any]:
        """Measured beside the model: first hand-over, underruns, stalls, a barge-in's moments."""
        e = self.all_events()
        play = e.of(ev.PLAY)
        a = self.audio
        out = {
            "label": a.label,
            "chunks": a.chunks,
            "chunks_played": int(play.kind.size),
            "model_silence_s": a.silence_s,
            "model_first_audible_s": a.first_audible_s,
            "model_first_handover_s": a.first_handover_s,
            "first_handover_s": float(play.t[0]) if play.kind.size else None,
            "model_underruns": a.underruns,
            "underruns": int(e.of(ev.UNDERRUN).kind.size),
            "model_stall_s": float(a.stall_s.sum()),
            "stall_s": float(e.of(ev.RESUME).value.sum()),
        }
        m = self.control.moments
        if m is not None:
            mute = e.of(ev.MUTE)
            out.update({"interrupt_s": m.interrupt_s, "model_mute_at_s": m.mute_at_s,
                        "mute_at_s": float(mute.t[0]) if mute.kind.size else None,
                        "chunks_dropped": int(e.of(ev.DROPPED).kind.size)})
        return out

    def stop(self, sink) -> None:
        self.stopped = True
        self.network.halt()
        self.control.halt()
        if sink.renderer is self.renderer:
            sink.detach()


def _barge_in_delays() -> tuple[float, float, float, float]:
    """Control delay, device quantum, backend stop and release: audio.timeline's defaults,
    the same moments the Audio panel's ✕ uses."""
    v = TIMELINE.resolve({})
    return (v["control_delay_ms"] * MS, v["device_quantum_ms"] * MS, v["backend_stop_ms"] * MS, v["release_ms"] * MS)


def start_turn(sink, audio: TurnAudio) -> TurnRun:
    """Play one turn on an open sink (audio.sinks), now. Returns at once."""
    if sink.rate_hz != audio.rate_hz:
        raise ValueError(f"turn laid out at {audio.rate_hz} Hz, the sink runs at {sink.rate_hz} Hz")
    renderer = TurnRenderer(audio)
    # The chunks' generation ends at their arrival here (the TTS and the network are one
    # stage for playback), so a backend stop drops exactly the chunks not yet arrived.
    return start_stream(sink, renderer, renderer.playout, audio.arrival_s, audio.arrival_s, audio.buffer_s,
                        _barge_in_delays(),
                        lambda origin, network, control: TurnRun(audio, renderer, network, control, origin),
                        lambda run: run.stop(sink))


@dataclass
class PlayerState:
    """What the GUI shows: which turn plays, on its own clock, and what happened so far."""

    playing: bool
    label: str = ""
    index: int = -1
    clock_s: float = 0.0
    summaries: list = field(default_factory=list)  # one per finished turn


class TurnPlayer:
    """Plays turns one after another on the engine's sink, on a thread of its own."""

    def __init__(self, engine):
        self.engine = engine  # audio.engine.StreamEngine: its sink (device or virtual clock)
        self.run: TurnRun | None = None
        self.runs: list[TurnRun] = []
        self._halt = threading.Event()
        self._thread: threading.Thread | None = None
        self._index = -1

    @property
    def playing(self) -> bool:
        return self._thread is not None and self._thread.is_alive()

    def play(self, audios: Sequence[TurnAudio], pause_s: float = PAUSE_S) -> None:
        """Start playing the turns in order (stops what plays now)."""
        self.stop()
        if self.engine.run is not None:  # the Audio panel's stream shares the sink
            self.engine.run.stop()
        self._halt = threading.Event()
        self.runs = []
        self._thread = threading.Thread(target=self._play, args=(list(audios), pause_s, self._halt),
                                        name="voice-hear-it", daemon=True)
        self._thread.start()

    def _play(self, audios: list[TurnAudio], pause_s: float, halt: threading.Event) -> None:
        sink = self.engine.sink
        sink.wait_ready(5.0)
        # As the engine does: what exists now leaves the collector's reach while the turns
        # play (a full collection holds the GIL past a device block); no collection now
        # either, the device is already calling back.
        gc.freeze()
        try:
            for i, audio in enumerate(audios):
                if halt.is_set():
                    return
                self._index = i
                run = start_turn(sink, audio)
                self.run = run
                self.runs.append(run)
                limit = audio.end_s + 2.0 + sum(audio.stall_s)  # a stuck run never holds the sequence
                while not run.done and run.clock() < limit and not halt.is_set():
                    halt.wait(0.005)
                # The tail of the last chunk leaves the device's buffer before the next turn.
                halted = halt.wait(pause_s if i + 1 < len(audios) else 0.1)
                run.stop(sink)
                if halted:
                    return
        finally:
            gc.unfreeze()

    def barge_in(self) -> Any:
        """The user speaks now: the playing turn mutes, its backend stops, then releases.
        Returns the modelled moments, or None when no reply is playing."""
        run = self.run
        if run is None or run.done or not self.playing:
            return None
        return run.control.interrupt()

    def wait(self, timeout: float) -> bool:
        """Block (not in the GUI) until every turn has played."""
        thread = self._thread
        if thread is None:
            return True
        thread.join(timeout)
        return not thread.is_alive()

    def stop(self) -> None:
        self._halt.set()
        run = self.run
        if run is not None and self.engine.has_sink:
            run.stop(self.engine.sink)
        if self._thread is not None:
            self._thread.join(1.0)
        self._thread = None

    def state(self) -> PlayerState:
        run = self.run
        return PlayerState(self.playing, run.audio.label if run else "", self._index,
                           run.clock() if run else 0.0, [r.summary() for r in self.runs if r.done])


def play_order(labels: Iterable[str]) -> str:
    """'p50 → p95': the order the turns are heard in, for a status line."""
    return " → ".join(labels)
